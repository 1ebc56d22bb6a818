"""An answer that no journal could store is refused or made storable before it is counted.

A `raw_response` with a non-string key, nesting hundreds deep or an integer beyond 64 bits
used to pass the answer check and then make every journal flush fail inside an event-loop
callback: the run went on paying with nothing journaled.
"""

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    PermanentProviderError,
    QualitativeSorter,
    RunStoppedError,
    StorageError,
)
from llm_qualitative_sort.stores.entries import CallPlace
from llm_qualitative_sort.stores.journal import Journal

ITEMS = list("abcdefgh")


def deep(levels: int) -> dict[str, Any]:
    raw: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        raw = {"x": raw}
    return raw


ODD_RAWS: dict[str, dict[Any, Any]] = {
    "non-string key": {1: "one", (2, 3): "pair", "ok": [1, 2]},
    "nesting 300 deep": deep(300),
    "huge integer": {"id": 2**64, "small": -(2**70)},
    "odd values": {"nan": math.nan, "set": {1, 2}, "bytes": b"\x00\xff", "obj": object()},
}


class Odd(LLMProvider):
    """Answers "later wins" with an odd `raw_response`; stops for good after `stop_after` calls."""

    def __init__(self, raw: dict[Any, Any], stop_after: int | None = None) -> None:
        super().__init__(model="odd")
        self.raw, self.stop_after, self.calls = raw, stop_after, 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        await asyncio.sleep(0)
        if self.stop_after is not None and self.calls > self.stop_after:
            raise PermanentProviderError("quota gone")
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="",
                                raw_response=self.raw)


def sorter(provider: LLMProvider, path: Path) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="later", seed=1, checkpointer=path / "runs.db",
                             max_concurrent_requests=1,
                             retry_policy=RetryPolicy(max_attempts=1))


@pytest.mark.parametrize("kind", list(ODD_RAWS))
async def test_an_odd_raw_response_is_journaled_so_a_resume_pays_nothing_twice(
    tmp_path: Path, kind: str
) -> None:
    first = Odd(ODD_RAWS[kind], stop_after=12)
    with pytest.raises(RunStoppedError, match="quota gone") as stopped:
        await sorter(first, tmp_path).sort(ITEMS, run_id="r")
    assert "could not be written" not in str(stopped.value)
    again = Odd(ODD_RAWS[kind])
    result = await sorter(again, tmp_path).resume("r")
    assert result.rankings[0] == (1, ["h"])
    # Every answer paid for before the stop was journaled: the resume asks only the rest.
    assert 12 + again.calls == result.statistics.total_api_calls


async def test_a_token_count_no_store_can_hold_is_a_bad_answer() -> None:
    with pytest.raises(ValueError, match="input_tokens"):
        ComparisonResult(winner="A", reasoning="", input_tokens=2**64)


async def test_a_journal_that_cannot_encode_a_row_stops_paid_calls_with_the_cause(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "journal.db")
    place = CallPlace("r", 1, 0, 0, "a", "b", "ab")
    # Bypassing the judge's check, as a bug would: the flush must not raise in the loop.
    result = ComparisonResult(winner="A", reasoning="", raw_response=deep(300))
    journal.put(place, result, cached=False)
    await asyncio.sleep(0)  # the scheduled flush runs (and fails) here
    with pytest.raises(StorageError, match="cannot encode") as refused:
        journal.check()
    assert "free space" not in str(refused.value)
    assert journal.unsaved_calls() == 1
    journal.close()
