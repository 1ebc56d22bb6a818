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


def _damage(journal: Path) -> int:
    """Damage one row of run r's calls; its rowid."""
    with sqlite3.connect(journal) as conn:
        rowid = conn.execute("SELECT min(rowid) FROM calls WHERE run_id = 'r'").fetchone()[0]
        conn.execute("UPDATE calls SET records = x'c1c1c1' WHERE rowid = ?", (rowid,))
    assert rowid is not None
    return int(rowid)


async def test_the_stop_names_the_row_and_the_way_on_before_the_resume(tmp_path: Path) -> None:
    checkpoint = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await sorter(Revocable(stop_at=5), checkpoint).sort(ITEMS, run_id="r")
    journal = tmp_path / "runs.journal.sqlite3"
    rowid = _damage(journal)
    with pytest.raises(RunStoppedError) as raised:
        await sorter(Revocable(), checkpoint).resume("r")
    stop = raised.value
    assert f"row {rowid} of its table calls (run 'r', round " in stop.reason
    assert "judge" not in stop.reason  # the judge had no part in it
    # The way on comes before the resume, never the resume alone.
    assert stop.first is not None and str(stop).index(stop.first) < str(stop).index("resume(")
    assert f"mv {journal} {journal}.damaged" in stop.first
    delete = f"DELETE FROM calls WHERE rowid = {rowid}"
    assert delete in stop.first
    with sqlite3.connect(journal) as conn:  # the second way: that row alone
        conn.execute(delete)
    result = await sorter(Revocable(), checkpoint).resume("r")
    assert result.rankings[0] == (1, ["j"])


def _stopped_cli_run(tmp_path: Path, monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    """A run `r` stopped by its judge in its second round; the common flags."""
    from llm_qualitative_sort.cli import EXIT_STOPPED, main
    from llm_qualitative_sort.testing import MockLLMProvider

    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    common = ["--checkpoint", str(tmp_path / "runs.sqlite3"), "--progress", "none"]
    calls = {"n": 0}
    real = MockLLMProvider.compare_call

    async def revoked_later(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] >= 15:
            raise PermanentProviderError("its key revoked")
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", revoked_later)
    assert main(["sort", str(items), "--criteria", "later", "--run-id", "r", "--seed", "3",
                 "--concurrency", "1", *common]) == EXIT_STOPPED
    monkeypatch.undo()
    return common


def test_the_command_line_names_the_row_and_the_commands_that_remove_it(
        tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE, main

    common = _stopped_cli_run(tmp_path, monkeypatch)
    journal = tmp_path / "runs.journal.sqlite3"
    rowid = _damage(journal)
    capsys.readouterr()
    for command in (["sort", "--resume", "r"], ["runs", "show", "r"]):
        assert main([*command, *common[:2]]) == EXIT_USAGE
        err = capsys.readouterr().err
        assert f"row {rowid} of its table calls (run 'r', round " in err
        assert f"`mv {journal} {journal}.damaged`" in err
        assert f"`sqlite3 {journal} 'DELETE FROM calls WHERE rowid = {rowid}'`" in err
    with sqlite3.connect(journal) as conn:
        conn.execute(f"DELETE FROM calls WHERE rowid = {rowid}")
    assert main(["sort", "--resume", "r", *common]) == EXIT_OK


def test_a_stop_on_a_damaged_row_says_what_to_do_before_the_resume(
        tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, main

    common = _stopped_cli_run(tmp_path, monkeypatch)
    journal = tmp_path / "runs.journal.sqlite3"
    # A leftover row of a settled round: the listing skips it, the resumed run reads it.
    with sqlite3.connect(journal) as conn:
        conn.execute("INSERT INTO calls VALUES ('r', 1, x'c1c1c1')")
        rowid = conn.execute("SELECT max(rowid) FROM calls").fetchone()[0]
    capsys.readouterr()
    for _ in range(2):  # every resume says it again, with the way on before the resume
        assert main(["sort", "--resume", "r", *common]) == EXIT_STOPPED
        err = capsys.readouterr().err
        assert f"row {rowid} of its table calls (run 'r', round 1)" in err
        assert err.index("so first") < err.index(f"mv {journal} {journal}.damaged") \
            < err.index(f"DELETE FROM calls WHERE rowid = {rowid}") < err.index("then resume")
        assert "judge" not in err
    journal.rename(tmp_path / "aside.sqlite3")
    assert main(["sort", "--resume", "r", *common]) == EXIT_OK
