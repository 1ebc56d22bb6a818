"""Scores and ranking calls in the PostgreSQL journal and cache, in their form and the carrier's."""

from __future__ import annotations

from llm_qualitative_sort import ComparisonResult, PostgresCache
from llm_qualitative_sort.rating.scoring import PointwiseResult
from llm_qualitative_sort.stores.cache import CallKeys
from llm_qualitative_sort.stores.entries import POINTWISE_SHOWN, RANKING_SHOWN, CallPlace
from llm_qualitative_sort.stores.postgres import PostgresStore
from llm_qualitative_sort.verdicts import RankingResult

SCORE = PointwiseResult(3, "mostly", {2: 0.25, 3: 0.75}, {"x": 1}, 9, 2)
NO_LABEL = PointwiseResult(None, "no label", None, {"problem": "no label"}, 9, 2)
ORDER = RankingResult((("B",), ("A", "C")), "B best", {"order": "B, A=C"}, 20, 4)
NO_ORDER = RankingResult(None, "garbled", {"problem": "'A' is named twice"}, 20, 4)
# The same answers as the code before kept them: a verdict "A" carrying the label or order.
CARRIED_SCORE = ComparisonResult("A", "mostly", {"x": 1, "pointwise": {
    "label": 3, "distribution": [[2, 0.25], [3, 0.75]]}}, 9, 2)
CARRIED_ORDER = ComparisonResult("A", "B best", {"order": "B, A=C",
                                                 "ranking": [["B"], ["A", "C"]]}, 20, 4)


def _place(match: int, shown: str) -> CallPlace:
    return CallPlace("run", 1, match, 0, "a", "", shown)


async def test_the_journal_keeps_each_kind_and_reads_carrier_rows(postgres_dsn: str) -> None:
    kept = [(SCORE, SCORE, POINTWISE_SHOWN), (NO_LABEL, NO_LABEL, POINTWISE_SHOWN),
            (ORDER, ORDER, RANKING_SHOWN), (NO_ORDER, NO_ORDER, RANKING_SHOWN),
            (CARRIED_SCORE, SCORE, POINTWISE_SHOWN), (CARRIED_ORDER, ORDER, RANKING_SHOWN)]
    store = PostgresStore(postgres_dsn)
    await store.prepare()
    async with store.connect() as (_, journal):
        for match, (written, _, shown) in enumerate(kept):
            journal.put(_place(match, "a" + shown), written, cached=False)
    store = PostgresStore(postgres_dsn)
    await store.prepare()
    async with store.connect() as (_, reopened):
        for match, (_, read, shown) in enumerate(kept):
            assert reopened.get(_place(match, "a" + shown)) == (read, False)
    async with store.runs() as runs:
        counts = await runs.journal_counts("run")
    assert counts is not None
    assert (counts["calls"], counts["failed_calls"]) == (6, 2)  # no label, no order
    assert counts["input_tokens"] == 3 * 9 + 3 * 20


async def test_the_cache_keeps_each_kind_and_finds_carrier_entries(postgres_dsn: str) -> None:
    cache = PostgresCache(postgres_dsn)
    try:
        for kind, new, carried, read in [("score", SCORE, CARRIED_SCORE, SCORE),
                                         ("rank", ORDER, CARRIED_ORDER, ORDER)]:
            keys = CallKeys.of(kind, "", "c", 0, "judge", logprobs=False, soft=False,
                               kind=kind)  # type: ignore[arg-type]
            before = CallKeys.of(kind, "", "c", 1, "judge", logprobs=False, soft=False,
                                 kind=kind)  # type: ignore[arg-type]
            await cache.set(keys.own, new)
            await cache.set(before.own, carried)  # as the code before stored it
            assert await keys.read(cache) == read
            assert await before.read(cache) == read
    finally:
        await cache.aclose()
