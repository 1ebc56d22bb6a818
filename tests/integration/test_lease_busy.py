"""A lease file kept locked by a process stopped inside a write (Ctrl-Z mid-commit).

SQLite's own wait for a lock is 30 s; a waiter must not die after it with "database is
locked", blaming the file: it waits as for a holder, and the event loop keeps running. A run
already going whose journal commits find the file kept locked stops, naming the likely
cause (a suspended process) rather than the disk.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    MockLLMProvider,
    QualitativeSorter,
    RunLockedError,
    RunStoppedError,
    StorageError,
)
from llm_qualitative_sort.stores import journal as journal_module
from llm_qualitative_sort.stores.leases import SqliteRunLease
from llm_qualitative_sort.stores.sqlite_saver import OneTripSqliteSaver

ITEMS = [str(i * 7 % 101) for i in range(8)]


async def test_a_waiter_outlasts_a_journal_locked_longer_than_sqlites_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llm_qualitative_sort.stores import sqlite as sqlite_store

    # SQLite's 30 s waits, cut to 0.3 s; the file stays locked several times longer.
    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.3)
    monkeypatch.setattr(journal_module, "BUSY_MS", 300)
    checkpoint = tmp_path / "runs.sqlite3"
    journal = tmp_path / "runs.journal.sqlite3"
    async with SqliteRunLease(journal).hold("warm-up"):
        pass
    suspended = sqlite3.connect(journal, isolation_level=None)
    suspended.execute("BEGIN IMMEDIATE")  # what a process stopped inside a commit keeps
    released = asyncio.get_running_loop().call_later(2.0, suspended.rollback)
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=checkpoint, wait_for_run=None)
    try:
        result = await sorter.sort(ITEMS, run_id="run")
    finally:
        released.cancel()
        suspended.close()
    assert len(result.rankings) > 0


async def test_a_locked_lease_file_is_a_locked_run_not_a_damaged_file(tmp_path: Path) -> None:
    journal = tmp_path / "runs.journal.sqlite3"
    lease = SqliteRunLease(journal)
    async with lease.hold("warm-up"):
        pass
    suspended = sqlite3.connect(journal, isolation_level=None)
    suspended.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(RunLockedError, match="locked by another process.*Ctrl-Z"):
            async with lease.hold("run", wait=0):
                pass
    finally:
        suspended.close()


class _LocksTheFileAtItsThirdCall(MockLLMProvider):
    """Another process stops inside a write to the journal while this run is going."""

    def __init__(self, journal: Path) -> None:
        super().__init__(seed=1)
        self.suspended = sqlite3.connect(journal, isolation_level=None)

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int) -> ComparisonResult:
        if self.calls == 2:
            self.suspended.execute("BEGIN IMMEDIATE")  # kept, as by a process stopped there
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


async def _stopped_by_a_lock_on(locked: Path, checkpoint: Path, run_id: str) -> str:
    """The message of a run stopped because another process locks `locked` at its 3rd call."""
    provider = _LocksTheFileAtItsThirdCall(locked)
    sorter = QualitativeSorter(provider, criteria="larger", seed=1, checkpointer=checkpoint)
    try:
        with pytest.raises(RunStoppedError) as stopped:
            await sorter.sort(ITEMS, run_id=run_id)
    finally:
        provider.suspended.close()
    return str(stopped.value)


async def test_a_run_whose_journal_another_process_keeps_locked_names_that_not_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "BUSY_MS", 300, raising=False)  # SQLite's 30 s, cut
    journal = tmp_path / "runs.journal.sqlite3"
    message = await _stopped_by_a_lock_on(journal, tmp_path / "runs.sqlite3", "other-run")
    assert str(journal) in message
    assert "suspended in the middle of a write to it" in message
    assert "`fg`" in message and "then resume this run" in message
    assert "free space" not in message and "database is locked" not in message


async def test_a_checkpoint_file_another_process_keeps_locked_is_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two starts at once: the other one inside a write to the checkpoint file (and, if it
    stops there, for longer than the wait) gives a message naming that, not a bare "database
    is locked"; a short write is waited out."""
    from llm_qualitative_sort.stores import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.3)
    checkpoint = tmp_path / "runs.sqlite3"
    other = sqlite3.connect(checkpoint, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=checkpoint, wait_for_run=0)
    try:
        with pytest.raises(StorageError, match="another process is inside a write.*Ctrl-Z"):
            await sorter.sort(ITEMS, run_id="r")
    finally:
        other.rollback()
    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 30.0)
    other.execute("BEGIN IMMEDIATE")
    asyncio.get_running_loop().call_later(0.5, other.rollback)  # a short write, then done
    result = await sorter.sort(ITEMS, run_id="r")
    other.close()
    assert result.statistics.total_api_calls > 0


async def test_a_checkpoint_file_locked_during_the_run_is_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llm_qualitative_sort.stores import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.3)
    checkpoint = tmp_path / "runs.sqlite3"
    message = await _stopped_by_a_lock_on(checkpoint, checkpoint, "r")
    assert f"(writing the checkpoint {checkpoint}: another process kept it locked for more " \
           "than 0.3 s, most likely one suspended in the middle of a write" in message
    assert "`fg`" in message
    # The lock is gone with the process: the same run goes on (or starts again, if its
    # input had not reached the file yet), replaying the journaled calls.
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=checkpoint)
    result = await sorter.sort(ITEMS, run_id="r")
    assert result.statistics.total_api_calls > 0


@pytest.fixture
def input_writes_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, Callable[[], None]]]:
    """Another process stops inside a write to the checkpoint file just as a run's first
    writes (those of its input) go out: the file, and how to end that process."""
    from llm_qualitative_sort.stores import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.3)
    checkpoint = tmp_path / "runs.sqlite3"
    real = OneTripSqliteSaver.aput_writes
    suspended: list[sqlite3.Connection] = []

    async def locking(self: OneTripSqliteSaver, *args: Any, **kwargs: Any) -> None:
        if not suspended:
            suspended.append(sqlite3.connect(checkpoint, isolation_level=None))
            suspended[0].execute("BEGIN IMMEDIATE")
        await real(self, *args, **kwargs)

    def end() -> None:
        monkeypatch.setattr(OneTripSqliteSaver, "aput_writes", real)
        for conn in suspended:
            conn.close()

    monkeypatch.setattr(OneTripSqliteSaver, "aput_writes", locking)
    yield checkpoint, end
    end()


async def test_a_run_stopped_before_its_input_was_saved_is_started_again(
    input_writes_locked: tuple[Path, Callable[[], None]]
) -> None:
    checkpoint, end_the_other_process = input_writes_locked
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=checkpoint)
    with pytest.raises(RunStoppedError) as stopped:
        await sorter.sort(ITEMS, run_id="r")
    assert stopped.value.input_saved is False
    assert "start it again with `await sorter.sort(items, run_id='r')`" in str(stopped.value)
    assert "resume(" not in str(stopped.value)
    end_the_other_process()
    assert (await sorter.sort(ITEMS, run_id="r")).statistics.total_api_calls > 0


def test_the_command_line_says_to_run_a_run_stopped_before_its_input_was_saved_again(
    input_writes_locked: tuple[Path, Callable[[], None]], tmp_path: Path,
    capsys: pytest.CaptureFixture[str]
) -> None:
    from _suite import cli, items_file
    from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED

    checkpoint, end_the_other_process = input_writes_locked
    command = ["sort", items_file(tmp_path, ITEMS), "--criteria", "larger",
               "--checkpoint", str(checkpoint), "--run-id", "first"]
    code, _, err = cli(capsys, *command)
    assert code == EXIT_STOPPED
    assert "it stopped before its input was saved, so it cannot be resumed" in err
    assert "run the same command again with --run-id first" in err and "--resume" not in err
    end_the_other_process()
    code, out, err = cli(capsys, *command)  # as told
    assert code == EXIT_OK, err
    assert out
