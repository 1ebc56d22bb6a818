"""A run journal deleted under a running run: the run stops before its next paid call.

Its rows (and, on SQLite, the lease that keeps other processes out) went with the file, so
going on would pay for calls nothing keeps while another process could take the run. The
stop names the journal, not a suspended process.
"""

import os
from pathlib import Path

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    QualitativeSorter,
    RunLockedError,
    RunStoppedError,
)

ITEMS = [f"item {i:02d}" for i in range(16)]


class Deleting(LLMProvider):
    """Later text wins; at call `at` the run journal file is deleted."""

    def __init__(self, journal: Path, at: int) -> None:
        super().__init__(model="deleting")
        self.journal, self.at, self.calls = journal, at, 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        if self.calls == self.at:
            os.remove(self.journal)
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


async def test_a_journal_deleted_mid_run_stops_it_before_its_next_call(tmp_path: Path) -> None:
    checkpoint = tmp_path / "runs.sqlite3"
    journal = tmp_path / "runs.journal.sqlite3"
    judge = Deleting(journal, at=6)
    sorter = QualitativeSorter(judge, criteria="later", seed=1, checkpointer=checkpoint,
                               retry_policy=RetryPolicy(max_attempts=1),
                               max_concurrent_requests=1)
    with pytest.raises((RunStoppedError, RunLockedError)) as raised:
        await sorter.sort(ITEMS, run_id="r")
    message = str(raised.value)
    assert "journal" in message and ("deleted" in message or "replaced" in message)
    assert "suspended" not in message
    # One call at a time: the call that deleted the file may finish, none may start after.
    assert judge.calls <= 7
