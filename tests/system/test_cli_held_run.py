"""A run held by another process: the command line exits 5 and lists it as running."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import _forked as forked

from _suite import cli as _call
from _suite import items_file
from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.cli import EXIT_STOPPED, EXIT_USAGE
from llm_qualitative_sort.cli._exits import EXIT_LOCKED
from llm_qualitative_sort.providers import MockLLMProvider
from llm_qualitative_sort.stores.default import journal_path
from llm_qualitative_sort.stores.leases import SqliteRunLease

ITEMS = [str(n) for n in range(0, 300, 10)]  # 30 items


def _items(tmp_path: Path) -> str:
    return items_file(tmp_path, ITEMS)


async def _revoked(self, item_a, item_b, criteria, *, repetition):
    raise PermanentProviderError("401 invalid api key")

def test_a_run_held_by_another_process_exits_5_and_is_listed_as_running(
    tmp_path, capsys, monkeypatch
) -> None:
    db = tmp_path / "runs.db"
    items = _items(tmp_path)
    # The run's own judge, its key revoked: a resume must be made by the judge that started.
    monkeypatch.setattr(MockLLMProvider, "compare_call", _revoked)
    code, _, _ = _call(capsys, "sort", items, "--criteria", "larger", "--checkpoint", str(db),
                       "--run-id", "held", "--progress", "none")
    assert code == EXIT_STOPPED
    monkeypatch.undo()

    async def cli(*args: str) -> tuple[int, str]:
        done = await asyncio.to_thread(
            forked.run, [sys.executable, "-m", "llm_qualitative_sort", *args, "--checkpoint",
                         str(db)], capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout + done.stderr

    async def while_held() -> list[tuple[int, str]]:
        async with SqliteRunLease(journal_path(db)).hold("held"):
            return [await cli("sort", "--resume", "held", "--progress", "none"),
                    await cli("runs", "list"),
                    await cli("runs", "rm", "held")]

    (resumed, said), (_, listed), (removed, refused) = asyncio.run(while_held())
    assert resumed == EXIT_LOCKED, said
    assert "is held by another process: pid" in said and "nothing was called" in said
    assert "running" in listed
    assert removed == EXIT_USAGE and "running" in refused
    code, out, _ = _call(capsys, "runs", "list", "--checkpoint", str(db))
    assert "stopped" in out  # let go: nobody runs it now
