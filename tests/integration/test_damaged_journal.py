"""A damaged row of the run journal: the stop says to move the journal aside, naming it.

Resuming cannot help while the row is there (every resume reads it again), so the advice
must not be "resume"; once the journal is moved aside the run resumes, asking again only
the calls the journal held.
"""

import sqlite3
from pathlib import Path

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    PermanentProviderError,
    QualitativeSorter,
    RunStoppedError,
)

ITEMS = list("abcdefghij")


class Revocable(LLMProvider):
    """Later in the alphabet wins; from call `stop_at` on, the key is revoked."""

    def __init__(self, stop_at: int | None = None) -> None:
        super().__init__(model="revocable")
        self.stop_at, self.calls = stop_at, 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        if self.stop_at is not None and self.calls >= self.stop_at:
            raise PermanentProviderError("its key revoked")
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


def sorter(provider: LLMProvider, checkpoint: Path) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="later", seed=3, checkpointer=checkpoint,
                             retry_policy=RetryPolicy(max_attempts=1),
                             max_concurrent_requests=1)


async def test_a_damaged_journal_row_says_to_move_the_journal_aside(tmp_path: Path) -> None:
    checkpoint = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await sorter(Revocable(stop_at=5), checkpoint).sort(ITEMS, run_id="r")
    journal = tmp_path / "runs.journal.sqlite3"
    with sqlite3.connect(journal) as conn:
        damaged = conn.execute("UPDATE calls SET records = x'c1c1c1' WHERE run_id = 'r'")
        assert damaged.rowcount >= 1  # the stopped round's calls were there to damage
    for _ in range(2):  # every resume reads the row again: the advice cannot be "resume"
        with pytest.raises(RunStoppedError) as raised:
            await sorter(Revocable(), checkpoint).resume("r")
        message = str(raised.value)
        assert "a damaged entry" in message and str(journal) in message
        assert "move the journal aside" in message
    journal.rename(tmp_path / "aside.sqlite3")
    result = await sorter(Revocable(), checkpoint).resume("r")
    assert result.rankings[0] == (1, ["j"])
