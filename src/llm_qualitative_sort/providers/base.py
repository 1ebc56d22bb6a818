"""The provider interface: one comparison of two texts by an LLM."""

from __future__ import annotations

import inspect
from abc import ABCMeta, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from llm_qualitative_sort.errors import PermanentProviderError
from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult

if TYPE_CHECKING:
    from llm_qualitative_sort.providers._batch import BatchClient


class _ProviderType(ABCMeta):
    """Lets a provider that implements `answer` itself leave `compare` out."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any],
                **kwargs: Any) -> _ProviderType:
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        # `compare` is abstract only for the providers the default `answer` serves.
        if "compare" in cls.__abstractmethods__ and any(
                "answer" in vars(base) for base in cls.__mro__[:-1]
                if base.__name__ != "LLMProvider" or base.__module__ != __name__):
            cls.__abstractmethods__ = frozenset(cls.__abstractmethods__ - {"compare"})
        return cls


class LLMProvider(metaclass=_ProviderType):
    """Compares two texts under a criterion.

    The engine asks every question through `answer(request)` (see `questions.Request`),
    and reads what a provider can answer from `answers`. The simple case implements only
    `compare`: the default `answer` hands a comparison to `compare_call` (which asks
    `compare`) and a score to `score_call`, so providers written against those methods
    keep working. Before any call, the sorter hands every text to `check_items`; a
    provider that cannot judge some texts (such as a mock with a custom score) refuses
    them there.

    Args:
        api_key: Secret credential; kept as a `SecretStr` so it never shows in a repr.
        base_url: Endpoint override (proxy, compatible server).
        model: Model name.

    Example:
        >>> class Longer(LLMProvider):
        ...     async def compare(self, item_a, item_b, criteria):
        ...         winner = "A" if len(item_a) >= len(item_b) else "B"
        ...         return ComparisonResult(winner=winner, reasoning="longer wins")
        >>> Longer(model="len").model_identity
        'Longer:len'
    """

    # Whether the engine paces this judge's calls by the 429s and rate-limit headers it
    # meets (see the providers guide), and how long, in total, one call may wait for the
    # rate limit (a longer wait stops the run).
    adaptive_rate: bool = True
    rate_wait_limit: float = 600.0
    # Set True on a provider class whose calls end as soon as they are cancelled (they never
    # catch `CancelledError` and go on): the round schedule then awaits its calls in each
    # call's own task, without a second task per call that shields the wait from a provider
    # that swallows a cancel. Read from the class's own body, never inherited: a subclass
    # may override a call with code that swallows the cancel, so it declares it anew.
    cancels_promptly: bool = False

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, model: str = "default"
    ) -> None:
        self._api_key = SecretStr(api_key) if api_key is not None else None
        self.base_url = base_url
        self.model = model

    @property
    def model_identity(self) -> str:
        """What distinguishes this judge's answers from another's, for cache keys.

        Never contains the API key.
        """
        return f"{type(self).__name__}:{self.model}"

    @abstractmethod
    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """Judge which of two texts better meets the criterion.

        Args:
            item_a: The text shown first.
            item_b: The text shown second.
            criteria: The user's criterion.

        Returns:
            The verdict in the call's terms ("A" = `item_a`), or `winner=None` when the
            model gave no usable verdict.

        Raises:
            TransientProviderError: A failure worth retrying.
            PermanentProviderError: A failure that retrying cannot fix.
        """

    async def answer(self, request: Request
                     ) -> ComparisonResult | PointwiseResult | RankingResult:
        """The answer to one request: the one method the engine calls.

        This default hands each question to its own method: a `Compare` to `compare_call`
        (offered `ties=True` only in a run with ties, so an override without the `ties`
        keyword keeps working elsewhere), a `Score` to `score_call`, a `Rank` to
        `rank_call`. A provider implements the methods of the questions it answers, or
        `answer` itself; it then says what it answers in `answers`.

        Args:
            request: The question and what the run adds to it.

        Returns:
            A `ComparisonResult` for a `Compare`, a `PointwiseResult` for a `Score`, a
            `RankingResult` for a `Rank` (from a provider that answers those).

        Raises:
            TransientProviderError: A failure worth retrying.
            PermanentProviderError: A failure that retrying cannot fix, or a question this
                provider cannot answer.
        """
        question = request.question
        if isinstance(question, Compare):
            if request.ties:
                return await self.compare_call(question.first, question.second,
                                               request.criteria, repetition=request.repetition,
                                               ties=True)
            return await self.compare_call(question.first, question.second, request.criteria,
                                           repetition=request.repetition)
        if isinstance(question, Score):
            return await self.score_call(question.text, request.criteria, scale=question.scale,
                                         inverse=question.inverse,
                                         repetition=request.repetition)
        if isinstance(question, Rank):
            return await self.rank_call(question.texts, request.criteria,
                                        repetition=request.repetition, ties=request.ties)
        raise PermanentProviderError(
            f"{type(self).__name__} cannot answer a {type(question).__name__} question")

    def answers(self, question: type[Question], *, ties: bool = False) -> bool:
        """Whether this provider answers questions of type `question` (checked before any call).

        The default keeps what providers written against `compare_call` and `score_call`
        could do (`legacy_answers`). A provider that implements `answer` overrides this.

        Args:
            question: `Compare`, `Score` or `Rank`.
            ties: For `Compare`: whether a tie may be offered too.

        Example:
            >>> from llm_qualitative_sort import MockLLMProvider
            >>> from llm_qualitative_sort.providers.questions import Compare, Score
            >>> judge = MockLLMProvider()
            >>> judge.answers(Compare, ties=True), judge.answers(Score)
            (True, True)
        """
        return legacy_answers(self, question, ties=ties)

    def check_items(self, items: Sequence[str]) -> None:
        """Refuse, before any call, texts this provider cannot judge.

        The default accepts everything: an LLM judges any text.

        Raises:
            ValueError: Naming the first text that cannot be judged, before any call.
        """
        del items

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int, ties: bool = False
    ) -> ComparisonResult:
        """One call of a match; `repetition` counts calls with this same presentation order.

        `ties` is passed (as True) only in runs that allow ties: the provider may then
        answer `winner="tie"`. This default asks `compare`, which offers no tie; a provider
        that can offer one overrides this method (see `answers`).
        """
        del repetition, ties  # a real LLM samples afresh on every call
        return await self.compare(item_a, item_b, criteria)

    async def score_call(self, text: str, criteria: str, *, scale: Scale,
                         inverse: bool = False, repetition: int = 0) -> PointwiseResult:
        """One pointwise call: a label on `scale` for `text` alone, with the judge's reason.

        `inverse` asks how far the text is from meeting the criterion (the highest label
        the farthest). `repetition` counts earlier calls on this text, as in
        `compare_call`. The same failures as `compare` (`TransientProviderError`,
        `PermanentProviderError`); a label outside the scale is a bad answer that stops
        the run. A provider that can score overrides this (see `answers`).
        """
        del text, criteria, scale, inverse, repetition
        raise PermanentProviderError(f"{type(self).__name__} cannot score a text alone "
                                     "(strategy='pointwise'): it has no score_call")

    async def rank_call(self, texts: Sequence[str], criteria: str, *, repetition: int,
                        ties: bool = False) -> RankingResult:
        """One ranking call: the order of `texts`, shown together, best first.

        `texts` are shown in this order, labelled A, B, C, ... (`Rank.labels`); the answer's
        order names those labels, every label once (with `ties`, texts may share a place).
        `repetition` counts earlier calls showing the same texts in the same order. The same
        failures as `compare`. A provider that can order several texts overrides this.
        """
        del texts, criteria, repetition, ties
        raise PermanentProviderError(f"{type(self).__name__} cannot order several texts in "
                                     "one call (Swiss group_size > 2): it has no rank_call")

    @property
    def scores_texts(self) -> bool:
        """Whether this judge can score a text alone (`strategy="pointwise"`, the pre-pass).

        By default, whether its class overrides `score_call`; a provider that can score
        only when configured so says it here.
        """
        return type(self).score_call is not LLMProvider.score_call

    @property
    def asks_logprobs(self) -> bool:
        """Whether this judge's calls ask for log-probabilities now, for soft verdicts.

        Its answers are then cached apart from those asked without them (see
        `stores.cache.CallKeys`). False by default: a judge that gives its probabilities without
        being asked (the mock) names them in its `model_identity` instead.
        """
        return False

    def tie_identity(self) -> str:
        """`model_identity` of the calls that offer a tie: a different question, cached apart."""
        return f"{self.model_identity}+ties"

    def judge_of(self, item_a: str, item_b: str, *, repetition: int) -> LLMProvider:
        """The provider that answers the call showing `item_a` then `item_b`.

        Itself, unless this provider hands its calls to others (`PanelProvider`). The engine
        calls the judge it names directly, keys the cache on that judge's `model_identity`,
        and records which judge answered; retries and failures are that judge's own.
        """
        del item_a, item_b, repetition
        return self

    def estimate_cost(self, input_tokens: int, output_tokens: int) -> float | None:
        """The price of the given token counts, or None when this provider has no prices."""
        del input_tokens, output_tokens
        return None

    def batch_client(self) -> BatchClient | None:
        """A client of the provider's batch interface when batch mode is on, else None.

        The sorter then sends each round's calls as one provider batch instead of live
        calls. Asked once per round; a client connects on first use.
        """
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"


def legacy_answers(provider: LLMProvider, question: type[Question], *, ties: bool) -> bool:
    """What a provider written against `compare_call` and `score_call` can answer.

    Read from its methods, for providers that declare nothing: it scores when its class
    overrides `score_call` (or `scores_texts` says so), it orders several texts when its
    class overrides `rank_call`, and it can be offered a tie when
    its `compare_call` takes the `ties` keyword. An override with the signature of earlier
    versions (without `ties`) would fail on the first call of a run with ties; the sorter
    refuses such a provider before any call instead.
    """
    if question is Score:
        return provider.scores_texts
    if question is Rank:
        return type(provider).rank_call is not LLMProvider.rank_call
    if question is not Compare:
        return False
    if not ties:
        return True
    try:
        parameters = inspect.signature(provider.compare_call).parameters
    except (TypeError, ValueError):
        return False
    return "ties" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
