"""A ranking call on the call path: its place, its question, and its answer checked.

A ranking call shows k texts (`providers.questions.Rank`) and is answered with an order
(`verdicts.RankingResult`), which travels through the runners, the journal and the cache as
itself (`stores.answers` stores it). A provider's order is read once, here (`checked`): an
answer without a usable order (none given, or not an order of exactly the labels shown, or
ties in a run without them) goes on with no order, its reason in `raw_response["problem"]`:
it is never read as any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from llm_qualitative_sort.providers.questions import Rank
from llm_qualitative_sort.stores.entries import RANKING_SHOWN, CallPlace, text_digest
from llm_qualitative_sort.verdicts import InvalidAnswerError, RankingResult, ranking_order

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


def checked(result: Any, labels: tuple[str, ...], ties: bool) -> RankingResult:
    """A provider's answer to a `Rank`, its order read as an order of exactly `labels`.

    Anything else is no order, the reason in `raw_response["problem"]`.

    Raises:
        InvalidAnswerError: The answer is not a `RankingResult` (a bug of the provider,
            which stops the run, as a comparison's wrong answer does).

    Example:
        >>> checked(RankingResult((("b",), ("A",)), "B first"), ("A", "B"), ties=False).order
        (('B',), ('A',))
        >>> checked(RankingResult((("B",),), ""), ("A", "B"), ties=False).raw_response
        {'problem': "'A' is missing"}
    """
    if not isinstance(result, RankingResult):
        raise InvalidAnswerError(f"expected a RankingResult, got {type(result).__name__}")
    order, problem = (None, result.raw_response.get("problem") or "the judge gave no order")
    if result.order is not None:
        order, problem = ranking_order([list(place) for place in result.order], labels,
                                       ties=ties)
    if order is None:
        return replace(result, order=None,
                       raw_response=dict(result.raw_response, problem=str(problem)))
    return replace(result, order=order)


def question_of(place: CallPlace) -> Rank:
    """The question a ranking call's place asks."""
    return Rank(place.texts)


def key_texts(place: CallPlace) -> tuple[str, str]:
    """What stands for the two texts in a ranking call's cache key: every text's digest.

    The digests of the texts in the order shown, so the key names the group, its order and
    its size.
    """
    return place.shown, ""
