"""A ranking call on the call path: its place, its question, and its answer's carrier form.

A ranking call shows k texts (`providers.questions.Rank`) and is answered with an order
(`verdicts.RankingResult`). It travels through the journal, the cache and the runners like
any call, as a `ComparisonResult` whose `raw_response["ranking"]` holds the order in labels
(`as_comparison`, `order_of`), so every store keeps it without knowing about it. An answer
without a usable order (none given, or not an order of exactly the labels shown, or ties in
a run without them) is carried as a call without a verdict, its reason in
`raw_response["problem"]`: it is never read as any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort.providers.questions import Rank
from llm_qualitative_sort.stores.entries import CallPlace, text_digest
from llm_qualitative_sort.verdicts import (
    ComparisonResult,
    InvalidAnswerError,
    Ranking,
    RankingResult,
    ranking_order,
)

# What a ranking call's place shows after its texts' digests (a pair shows two digests).
RANKING_SHOWN = ":rank"
# Appended to the judge's identity in a ranking call's cache key: another question.
RANKING_MARK = "+rank"


def ranking_place(run_id: str, round_number: int, key: int, texts: Sequence[str]) -> CallPlace:
    """The journal place of the ranking call showing `texts` in this order.

    `first` and `second` name its first two texts (the texts a panel picks its judge by).

    Example:
        >>> place = ranking_place("run", 1, 0, ["a", "b", "c"])
        >>> place.texts, place.shown.endswith(RANKING_SHOWN)
        (('a', 'b', 'c'), True)
    """
    shown = "".join(text_digest(text) for text in texts) + RANKING_SHOWN
    return CallPlace(run_id, round_number, key, 0, texts[0], texts[1], shown, tuple(texts))


def as_comparison(result: Any, labels: tuple[str, ...], ties: bool) -> ComparisonResult:
    """A provider's answer to a `Rank` in the engine's carrier form (journal, cache).

    An order of exactly `labels` is the "verdict" "A" with the order in
    `raw_response["ranking"]`; anything else is no verdict, the reason in
    `raw_response["problem"]`.

    Raises:
        InvalidAnswerError: The answer is not a `RankingResult` (a bug of the provider,
            which stops the run, as a comparison's wrong answer does).
    """
    if not isinstance(result, RankingResult):
        raise InvalidAnswerError(f"expected a RankingResult, got {type(result).__name__}")
    raw = dict(result.raw_response)
    order, problem = (None, raw.get("problem") or "the judge gave no order")
    if result.order is not None:
        order, problem = ranking_order([list(place) for place in result.order], labels,
                                       ties=ties)
    if order is None:
        raw["problem"] = str(problem)
        return ComparisonResult(None, result.reasoning, raw, result.input_tokens,
                                result.output_tokens)
    raw["ranking"] = [list(place) for place in order]
    return ComparisonResult("A", result.reasoning, raw, result.input_tokens,
                            result.output_tokens)


def order_of(raw: dict[str, Any]) -> Ranking | None:
    """The order (labels, best first) a carrier's `raw_response` holds, or None."""
    stored = raw.get("ranking")
    if not isinstance(stored, list):
        return None
    return tuple(tuple(place) for place in stored)


def question_of(place: CallPlace) -> Rank:
    """The question a ranking call's place asks."""
    return Rank(place.texts)


def key_texts(place: CallPlace) -> tuple[str, str]:
    """What stands for the two texts in a ranking call's cache key: every text's digest.

    The digests of the texts in the order shown, so the key names the group, its order and
    its size.
    """
    return place.shown, ""
