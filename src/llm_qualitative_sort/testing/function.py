"""A judge made from plain functions, for the tests of code that uses this library.

As httpx's `MockTransport` and pydantic-ai's `FunctionModel` serve their users' tests:
every call runs through the engine a real judge's would, with no network and no key.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from llm_qualitative_sort.errors import PermanentProviderError, SettingTypeError
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.questions import RANK_LABELS, Compare, Question, Rank, Score
from llm_qualitative_sort.rating.scale import Scale
from llm_qualitative_sort.rating.scoring import PointwiseResult
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult, ranking_order

# What a compare function may answer: the verdict in the call's terms ("A" is the text
# shown first), None for no verdict, or a whole `ComparisonResult` (reasoning, tokens, a
# probability).
CompareAnswer: TypeAlias = "str | None | ComparisonResult"
CompareFunction: TypeAlias = Callable[
    [str, str, str], "CompareAnswer | Awaitable[CompareAnswer]"]
# What a score function may answer: a label on the run's scale, None for no label, or a
# whole `PointwiseResult`.
ScoreAnswer: TypeAlias = "int | None | PointwiseResult"
ScoreFunction: TypeAlias = Callable[[str, str, Scale], "ScoreAnswer | Awaitable[ScoreAnswer]"]
# What a rank function may answer: the labels best first (a list whose entries are labels
# or, in a run with ties, lists of tied labels), None for no order, or a whole
# `RankingResult`.
RankAnswer: TypeAlias = "list[Any] | None | RankingResult"
RankFunction: TypeAlias = Callable[
    [tuple[str, ...], str], "RankAnswer | Awaitable[RankAnswer]"]


class FunctionProvider(LLMProvider):
    """A judge whose answers come from plain Python functions.

    Each call runs through the same engine as a real judge's (the cache, the journal, the
    audit, ties and a bad answer's stop), so a test of code that uses this library needs
    neither a network nor a key. Either function may be `async`.

    Args:
        compare: `compare(text_a, text_b, criteria)` answers a comparison: `"A"` (the text
            shown first), `"B"`, `"tie"` (counted only in a run with `ties=True`), `None`
            for no verdict, or a `ComparisonResult`.
        score: `score(text, criteria, scale)` answers a pointwise call (for
            `strategy="pointwise"` and Swiss's pre-pass): a label within `scale`, `None`,
            or a `PointwiseResult`. Without it the judge cannot score a text alone, and
            such a run is refused before any call.
        rank: `rank(texts, criteria)` answers a ranking call (Swiss with `group_size` 3 to
            8): the labels "A", "B", … of `texts` (in the order given) best first, such as
            `["B", "A", "C"]`, `None` for no order, or a `RankingResult`. An answer that
            is not an order of exactly the labels shown counts as a call without one.
        model: The name in the judge's `model_identity`, which keys cached answers; by
            default the compare function's qualified name.

    Example:
        >>> import asyncio
        >>> from llm_qualitative_sort import Pointwise, QualitativeSorter
        >>> judge = FunctionProvider(score=lambda text, criteria, scale: min(len(text), 4))
        >>> sorter = QualitativeSorter(judge, criteria="long", strategy=Pointwise(),
        ...                            seed=0, checkpointer=None)
        >>> asyncio.run(sorter.sort(["a", "aaaa", "aa"])).rankings[0]
        (1, ['aaaa'])
    """

    def __init__(self, compare: CompareFunction | None = None, *,
                 score: ScoreFunction | None = None, rank: RankFunction | None = None,
                 model: str | None = None) -> None:
        if compare is None and score is None and rank is None:
            raise SettingTypeError("FunctionProvider needs a compare function, a score function, "
                                   "a rank function or several")
        for name, function in (("compare", compare), ("score", score), ("rank", rank)):
            if function is not None and not callable(function):
                raise SettingTypeError(f"FunctionProvider: {name} must be callable, got "
                                       f"{type(function).__name__}")
        named = next(f for f in (compare, score, rank) if f is not None)
        super().__init__(model=model if model is not None else _name_of(named))
        self._compare = compare
        self._score_function = score
        self._rank = rank

    @property
    def scores_texts(self) -> bool:
        """Whether this judge can score a text alone: it was given a score function."""
        return self._score_function is not None

    def answers(self, question: type[Question], *, ties: bool = False) -> bool:
        """A comparison (ties too) with a compare function, a score with a score function."""
        if question is Compare:
            return self._compare is not None
        if question is Rank:
            return self._rank is not None
        return question is Score and self._score_function is not None

    async def rank_call(self, texts: Sequence[str], criteria: str, *, repetition: int,
                        ties: bool = False) -> RankingResult:
        """The rank function's order of `texts`, as a `RankingResult`."""
        del repetition
        if self._rank is None:
            raise PermanentProviderError("FunctionProvider was given no rank function, so it "
                                         "cannot order several texts")
        answer = await _answered(self._rank(tuple(texts), criteria))
        if isinstance(answer, RankingResult):
            return answer
        if answer is None:
            return RankingResult(None, "", {"problem": "the rank function gave no order"})
        order, problem = ranking_order(answer, tuple(RANK_LABELS[: len(texts)]), ties=ties)
        return RankingResult(order, "", {"problem": problem} if problem else {})

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """The compare function's answer, as a `ComparisonResult`."""
        if self._compare is None:
            raise PermanentProviderError("FunctionProvider was given no compare function, so "
                                         "it cannot compare two texts")
        answer = await _answered(self._compare(item_a, item_b, criteria))
        if isinstance(answer, ComparisonResult):
            return answer
        return ComparisonResult(winner=answer, reasoning="")

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int, ties: bool = False) -> ComparisonResult:
        """One call: the function decides; a "tie" outside a run with ties gives no verdict."""
        del repetition, ties  # the engine turns a refused tie into a call without a verdict
        return await self.compare(item_a, item_b, criteria)

    async def score_call(self, text: str, criteria: str, *, scale: Scale,
                         inverse: bool = False, repetition: int = 0) -> PointwiseResult:
        """The score function's answer, as a `PointwiseResult`.

        The function always says how well the text meets the criterion. A run with the
        inverse question asks how far it is from meeting it, so the label is mirrored on
        the scale (the highest label the farthest), as a judge asked that question would.
        """
        del repetition
        if self._score_function is None:
            raise PermanentProviderError("FunctionProvider was given no score function, so "
                                         "it cannot score a text alone")
        answer = await _answered(self._score_function(text, criteria, scale))
        if not isinstance(answer, PointwiseResult):
            answer = PointwiseResult(label=answer, reason="")
        if inverse and isinstance(answer.label, int) and answer.label in scale.labels:
            ends = scale.labels[0] + scale.labels[-1]
            distribution = answer.distribution
            if distribution is not None:
                distribution = {ends - label: p for label, p in distribution.items()}
            answer = dataclasses.replace(answer, label=ends - answer.label,
                                         distribution=distribution)
        return answer


async def _answered(answer: Any) -> Any:
    """A function's answer, awaited when the function was `async`."""
    return await answer if inspect.isawaitable(answer) else answer


def _name_of(function: object) -> str:
    """A function's qualified name, for the judge's identity in cache keys."""
    return str(getattr(function, "__qualname__", None) or type(function).__name__)
