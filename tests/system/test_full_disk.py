"""A journal write that fails (a full disk) stops the run: every paid call is then either on
disk or counted in the message, and resuming after freeing space finishes the run.

The disk fills for real in two ways: SQLite's own limit on the journal's size (`PRAGMA
max_page_count`, which fails writes with SQLITE_FULL exactly as a full disk does; always
runs), and a tiny tmpfs mounted in a user namespace (where the system allows one).
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, RunStoppedError
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.stores import journal as journal_module
from llm_qualitative_sort.stores import journal_path
from llm_qualitative_sort.stores import sqlite as storage_module
from llm_qualitative_sort.stores.journal_file import journal_counts

ITEMS = [str(n * 13 % 97) for n in range(40)]
CONCURRENCY = 4
WORKER = Path(__file__).with_name("full_disk_worker.py")
UNSAVED = re.compile(r"(\d+) paid calls? could not be written to the run journal")


def _sorter(provider: MockLLMProvider, checkpoint: Path | None) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="larger", seed=2, checkpointer=checkpoint,
                             max_concurrent_requests=CONCURRENCY)


async def _reference() -> tuple[list[Any], int]:
    provider = MockLLMProvider(seed=4)
    result = await _sorter(provider, None).sort(ITEMS, run_id="reference")
    return result.rankings, provider.calls


async def _saved_calls(checkpoint: Path, run_id: str) -> int:
    """Calls on disk: in the journal, or settled from it into the checkpoint's history."""
    counts = journal_counts(journal_path(checkpoint), run_id)
    async with AsyncSqliteSaver.from_conn_string(str(checkpoint)) as saver:
        state = await build_graph(saver).aget_state({"configurable": {"thread_id": run_id}})
    history = state.values.get("history", [])
    return counts["calls"] + counts["cache_hits"] + sum(
        len(calls) for entry in history for *_, calls in entry["matches"])


def _limited(extra_pages: int) -> Any:
    real = journal_module.open_sqlite

    def open_limited(path: Path, *args: Any) -> sqlite3.Connection:
        conn = real(path, *args)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + extra_pages}")
        return conn

    return open_limited


async def test_a_full_journal_stops_the_run_and_counts_what_it_could_not_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranking, reference_calls = await _reference()
    checkpoint = tmp_path / "runs.sqlite3"
    monkeypatch.setattr(journal_module, "open_sqlite", _limited(extra_pages=1))
    provider = MockLLMProvider(seed=4, latency=0.001)
    with pytest.raises(RunStoppedError) as caught:
        await _sorter(provider, checkpoint).sort(ITEMS, run_id="full")
    message = str(caught.value)
    journal = tmp_path / "runs.journal.sqlite3"
    assert f"cannot write the run journal {journal}" in message
    assert "database or disk is full" in message
    found = UNSAVED.search(message)
    assert found is not None, message
    unsaved = int(found.group(1))
    saved = await _saved_calls(checkpoint, "full")
    paid = provider.calls
    # Every paid call is on disk or counted; the run stopped at once (no call started
    # after the failure was known: only calls already in flight finished).
    assert paid == saved + unsaved
    assert 1 <= unsaved <= 2 * CONCURRENCY
    assert paid < reference_calls

    monkeypatch.undo()  # space freed
    result = await _sorter(provider, checkpoint).resume("full")
    assert result.rankings == ranking
    assert provider.calls - reference_calls <= unsaved  # only unsaved calls were paid again


def _can_mount_tmpfs(tmp: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    (tmp / "probe").mkdir()
    probe = ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {tmp / 'probe'}"]
    return subprocess.run(probe, capture_output=True).returncode == 0


async def test_a_real_full_disk_under_the_journal(tmp_path: Path) -> None:
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("no user namespace here to mount a tmpfs in (covered by the test above)")
    ranking, reference_calls = await _reference()
    disk = tmp_path / "disk"
    disk.mkdir()
    # Only the journal lives on the tiny disk: SQLite follows the link, and puts its WAL
    # beside the target.
    (tmp_path / "runs.journal.sqlite3").symlink_to(disk / "journal.sqlite3")
    config = {"items": ITEMS, "seed": 2, "mock_seed": 4, "concurrency": CONCURRENCY,
              "checkpoint": str(tmp_path / "runs.sqlite3"), "disk": str(disk),
              "fill_at_call": 30, "out": str(tmp_path / "out.json")}
    (tmp_path / "config.json").write_text(json.dumps(config))
    command = (f"mount -t tmpfs -o size=4m tmpfs {disk} && "
               f"exec {sys.executable} {WORKER} {tmp_path / 'config.json'}")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", command], timeout=120)
    assert done.returncode == 0
    out = json.loads((tmp_path / "out.json").read_text())
    message = out["message"]
    assert "cannot write the run journal" in message and "database or disk is full" in message
    found = UNSAVED.search(message)
    assert found is not None, message
    unsaved = int(found.group(1))
    assert out["paid_before"] == out["saved"] + unsaved
    assert out["rankings"] == json.loads(json.dumps(ranking))
    assert out["paid_total"] - reference_calls <= unsaved


async def test_a_full_checkpoint_stops_the_run_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranking, reference_calls = await _reference()
    real = storage_module._connect

    async def connect_limited(path: Path) -> Any:
        conn = await real(path)
        async with conn.execute("PRAGMA page_count") as cursor:
            row = await cursor.fetchone()
        await conn.execute(f"PRAGMA max_page_count = {row[0] + 8}")
        return conn

    monkeypatch.setattr(storage_module, "_connect", connect_limited)
    checkpoint = tmp_path / "runs.sqlite3"
    provider = MockLLMProvider(seed=4)
    with pytest.raises(RunStoppedError) as caught:
        await _sorter(provider, checkpoint).sort(ITEMS, run_id="full")
    message = str(caught.value)
    assert f"database or disk is full (writing the checkpoint {checkpoint})" in message
    assert "could not be written" not in message  # the journal kept every call

    monkeypatch.undo()
    result = await _sorter(provider, checkpoint).resume("full")
    assert result.rankings == ranking
    assert provider.calls == reference_calls  # the journal replayed what the checkpoint lost
