"""The SQLite store's saver writes what LangGraph's own saver writes, in one trip per write."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort.stores.sqlite import SqliteStore
from llm_qualitative_sort.stores.sqlite_saver import OneTripSqliteSaver


def _writes(step: int) -> list[tuple[str, Any]]:
    # "__error__" is one of LangGraph's special channels (a write of only special channels
    # replaces its row; one with any other keeps the first); the others are the state's.
    return [("history", [{"round": step, "matches": [[0, 1, "A"]]}]),
            ("standing", {"losses": [step, 0], "names": ["é", "日本"]}),
            ("__error__", f"error {step}")]


async def _save_a_run(saver: AsyncSqliteSaver) -> None:
    config: Any = {"configurable": {"thread_id": "run-1", "checkpoint_ns": ""}}
    for step in range(3):
        checkpoint = empty_checkpoint()
        checkpoint["id"], checkpoint["ts"] = f"checkpoint-{step}", f"2026-11-27T00:00:0{step}"
        checkpoint["channel_values"] = {"round": step, "items": ["a", "b"]}
        checkpoint["channel_versions"] = {"round": step + 1}
        config = await saver.aput(config, checkpoint, {"source": "loop", "step": step},
                                  {"round": step + 1})
        await saver.aput_writes(config, _writes(step), task_id=f"task-{step}",
                                task_path="compare")
        # Written again: kept as first written; then the special channel's row replaced.
        await saver.aput_writes(config, _writes(step + 10), task_id=f"task-{step}")
        await saver.aput_writes(config, [("__error__", f"last {step}")],
                                task_id=f"task-{step}")


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with sqlite3.connect(path) as conn:
        tables = {
            table: sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in ("checkpoints", "writes")
        }
    conn.close()
    return tables


async def test_the_rows_are_langgraphs_own(tmp_path: Path) -> None:
    for name, made in (("langgraph", AsyncSqliteSaver), ("one-trip", OneTripSqliteSaver)):
        async with aiosqlite.connect(tmp_path / f"{name}.sqlite3") as conn:
            saver = made(conn)
            await _save_a_run(saver)
    ours, theirs = _rows(tmp_path / "one-trip.sqlite3"), _rows(tmp_path / "langgraph.sqlite3")
    assert len(ours["checkpoints"]) == 3 and len(ours["writes"]) == 3 * 3
    assert ours == theirs
    # And LangGraph's saver reads back what this one wrote.
    async with aiosqlite.connect(tmp_path / "one-trip.sqlite3") as conn:
        got = await AsyncSqliteSaver(conn).aget_tuple(
            {"configurable": {"thread_id": "run-1", "checkpoint_ns": ""}})
    assert got is not None
    assert got.checkpoint["channel_values"] == {"round": 2, "items": ["a", "b"]}
    assert sorted(got.pending_writes) == [
        ("task-2", "__error__", "last 2"),
        ("task-2", "history", [{"round": 2, "matches": [[0, 1, "A"]]}]),
        ("task-2", "standing", {"losses": [2, 0], "names": ["é", "日本"]})]


async def test_each_write_is_one_trip_to_the_connections_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trips: Counter[str] = Counter()
    real = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        # The saver's `_write` runs LangGraph's write it is given (first argument).
        write = args[0] if getattr(fn, "__name__", "") == "_write" else fn
        trips[getattr(write, "__name__", "?")] += 1
        return await real(self, fn, *args, **kwargs)

    async with SqliteStore(tmp_path / "runs.sqlite3").connect() as (saver, _):
        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
        await _save_a_run(saver)
        monkeypatch.undo()
    # Three checkpoints and nine writes: twelve trips, each LangGraph's synchronous write.
    assert trips == {"put": 3, "put_writes": 9}


async def test_a_cancelled_write_leaves_no_open_transaction(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    async with SqliteStore(path).connect() as (saver, _):
        config: Any = {"configurable": {"thread_id": "run-1", "checkpoint_ns": ""}}
        writing = asyncio.ensure_future(saver.aput(config, empty_checkpoint(), {}, {}))
        await asyncio.sleep(0)  # the trip is under way
        writing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await writing
        # The trip ends by itself: the write is whole (committed) and nothing is left open.
        await saver.conn.execute("SELECT 1")
        assert not saver.conn.in_transaction
    other = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        (count,) = other.execute("SELECT COUNT(*) FROM checkpoints").fetchone()
        other.execute("COMMIT")
    finally:
        other.close()
    assert count == 1


async def test_a_step_whose_file_another_process_keeps_locked_waits_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llm_qualitative_sort.stores import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.2)
    path = tmp_path / "runs.sqlite3"
    async with SqliteStore(path).connect() as (saver, _):
        config: Any = {"configurable": {"thread_id": "run-1", "checkpoint_ns": "",
                                        "checkpoint_id": "checkpoint-0"}}
        statements: list[str] = []
        await saver.conn._execute(saver.conn._conn.set_trace_callback, statements.append)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # a process stopped inside a write keeps the lock
        try:
            # A step hands over one write per task at once.
            failed = await asyncio.gather(
                *(saver.aput_writes(config, _writes(task), task_id=f"task-{task}")
                  for task in range(5)), return_exceptions=True)
        finally:
            other.rollback()
            other.close()
        assert all(isinstance(exc, sqlite3.OperationalError) for exc in failed)
        begins = [i for i, s in enumerate(statements) if s.startswith("BEGIN")]
        waited = [i for i in begins if i == 0 or statements[i - 1] != "PRAGMA busy_timeout=0"]
        assert len(begins) == 5 and waited == begins[:1], "only the first write waited"
        await saver.aput_writes(config, _writes(9), task_id="task-9")  # free: written
        assert statements[-1] == "PRAGMA busy_timeout=200"
        statements.clear()
        await saver.aput_writes(config, _writes(10), task_id="task-10")
        assert "PRAGMA busy_timeout=0" not in statements  # the whole wait again
    with sqlite3.connect(path) as conn:
        tasks = {task for (task,) in conn.execute("SELECT task_id FROM writes")}
    conn.close()
    assert tasks == {"task-9", "task-10"}
