"""A panel of judges in one tournament: every call goes to one of several providers."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult


class PanelProvider(LLMProvider):
    """Several judges (GPT and Gemini side by side, say) sharing the calls of one run.

    Each call goes to exactly one judge, by this rule: the calls of a match that share a
    repetition index — its "AB" call and its "BA" call — go to the same judge, so a judge
    sees every pair it judges in both orders (its own position bias cancels inside the
    match, and its order consistency can be measured); the next repetition of the pair goes
    to the next judge in the list. The first judge of a pair is drawn from the seed and the
    pair (not from the order shown), so the judges share the pairs evenly and, with one call
    per match (Swiss), each judge sees either order equally often across the run. With
    `comparison_rounds = 2 × len(judges)` every judge judges every match in both orders,
    which is what lets the run measure how far the judges agree.

    The assignment depends only on the seed, the two texts and the repetition index, so it
    is the same after a resume and whatever the concurrency. Cache keys, retries, failures,
    tokens and cost stay each judge's own: the engine calls the judge `judge_of` names. A
    judge that fails for good stops the run (resumable); its calls never move to another.

    Args:
        judges: The judges, each an `LLMProvider` with its own `model_identity`.
        seed: Seeds the first judge of each pair.

    Raises:
        ValueError: No judge, or two judges with the same `model_identity` (their answers
            could not be told apart in the cache or in the audit).

    Example:
        >>> from llm_qualitative_sort import MockLLMProvider
        >>> panel = PanelProvider([MockLLMProvider(seed=1), MockLLMProvider(seed=2)])
        >>> first = panel.judge_of("3", "7", repetition=0)
        >>> first is panel.judge_of("7", "3", repetition=0)  # both orders: one judge
        True
        >>> first is panel.judge_of("3", "7", repetition=1)  # the next repetition: the other
        False
    """

    def __init__(self, judges: Sequence[LLMProvider], *, seed: int = 0) -> None:
        members = list(judges)
        if not members:
            raise InputError("PanelProvider needs at least one judge")
        for judge in members:
            if not isinstance(judge, LLMProvider):
                raise SettingTypeError(
                    f"a judge must be an LLMProvider, got {type(judge).__name__}")
        identities = [judge.model_identity for judge in members]
        repeated = sorted({i for i in identities if identities.count(i) > 1})
        if repeated:
            raise InputError(f"two judges share the model identity {repeated[0]!r}: give "
                             "each judge its own model or seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise SettingTypeError(f"seed must be an int, got {seed!r}")
        super().__init__(model="panel")
        self.judges: tuple[LLMProvider, ...] = tuple(members)
        self.seed = seed

    @property
    def model_identity(self) -> str:
        """The judges' identities and the seed (the cache keys each judge's own calls)."""
        members = " | ".join(judge.model_identity for judge in self.judges)
        return f"PanelProvider[{members}]:seed={self.seed}"

    def judge_of(self, item_a: str, item_b: str, *, repetition: int) -> LLMProvider:
        """The judge of this call (a panel inside the panel names its own)."""
        low, high = sorted((item_a, item_b))
        index = (_pair_offset(self.seed, low, high) + repetition) % len(self.judges)
        return self.judges[index].judge_of(item_a, item_b, repetition=repetition)

    def answers(self, question: type[Question], *, ties: bool = False) -> bool:
        """Whether every judge answers it: any of them may be asked any call."""
        return all(judge.answers(question, ties=ties) for judge in self.judges)

    async def answer(self, request: Request
                     ) -> ComparisonResult | PointwiseResult | RankingResult:
        """Ask the judge `judge_of` names (the engine asks that judge directly)."""
        question = request.question
        if isinstance(question, Compare):
            first, second = question.first, question.second
        elif isinstance(question, Rank):
            first, second = question.texts[0], question.texts[1]
        else:
            first, second = question.text, ""
        judge = self.judge_of(first, second, repetition=request.repetition)
        return await judge.answer(request)

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """Ask the judge of the call's first repetition."""
        return await self.compare_call(item_a, item_b, criteria, repetition=0)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int, ties: bool = False
    ) -> ComparisonResult:
        """Ask the judge `judge_of` names (offering it a tie when the run allows ties)."""
        judge = self.judge_of(item_a, item_b, repetition=repetition)
        if ties:
            return await judge.compare_call(item_a, item_b, criteria, repetition=repetition,
                                            ties=True)
        return await judge.compare_call(item_a, item_b, criteria, repetition=repetition)

    async def score_call(self, text: str, criteria: str, *, scale: Scale, inverse: bool = False,
                         repetition: int = 0) -> PointwiseResult:
        """Ask the judge `judge_of` names for a text alone (the engine asks it directly)."""
        judge = self.judge_of(text, "", repetition=repetition)
        return await judge.score_call(text, criteria, scale=scale, inverse=inverse,
                                      repetition=repetition)

    def check_items(self, items: Sequence[str]) -> None:
        """Every judge must accept every text (any of them may be asked about any pair)."""
        for judge in self.judges:
            judge.check_items(items)

    def estimate_cost(self, input_tokens: int, output_tokens: int) -> float | None:
        """The price of tokens whose judge is not known: known when every judge agrees.

        A run's statistics price each judge's own tokens; this is for running totals (the
        command line's progress), where judges given the same prices agree.
        """
        prices = {judge.estimate_cost(input_tokens, output_tokens) for judge in self.judges}
        return prices.pop() if len(prices) == 1 else None

    def __repr__(self) -> str:
        return f"PanelProvider([{', '.join(map(repr, self.judges))}], seed={self.seed})"


def _pair_offset(seed: int, low: str, high: str) -> int:
    h = hashlib.sha256()
    for part in (str(seed), low, high):
        h.update(hashlib.sha256(part.encode("utf-8")).digest())  # no delimiter to collide on
    return int.from_bytes(h.digest()[:8], "big")


def leaf_judges(provider: LLMProvider) -> list[LLMProvider]:
    """The providers that answer calls: the panel's judges (recursively), else itself."""
    if isinstance(provider, PanelProvider):
        return [leaf for judge in provider.judges for leaf in leaf_judges(judge)]
    return [provider]


def parse_judge(spec: str, names: Sequence[str]) -> tuple[str, str | None]:
    """`PROVIDER[:MODEL]` as `(provider, model)`, for the command line and Studio.

    Raises:
        ValueError: An empty spec, or a provider not among `names`.

    Example:
        >>> parse_judge("openai:gpt-5.1", ["mock", "openai"]), parse_judge("mock", ["mock"])
        (('openai', 'gpt-5.1'), ('mock', None))
    """
    name, _, model = spec.strip().partition(":")
    if name not in names:
        raise InputError(f"judge {spec!r}: expected PROVIDER[:MODEL] with PROVIDER one of "
                         f"{', '.join(names)}")
    return name, model.strip() or None
