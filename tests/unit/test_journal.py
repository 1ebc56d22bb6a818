import asyncio
import sqlite3
from pathlib import Path

import pytest

from llm_qualitative_sort import StorageError
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.stores import journal as journal_module
from llm_qualitative_sort.stores.entries import CallPlace, text_digest
from llm_qualitative_sort.stores.journal import Journal


def _place(first: str, second: str, call: int = 0) -> CallPlace:
    return CallPlace("run", 1, 0, call, first, second, text_digest(first) + text_digest(second))


async def test_rows_survive_reopening_and_other_texts_are_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    answer = ComparisonResult(winner="B", reasoning="r", raw_response={"x": [1]}, input_tokens=3)
    journal.put(_place("a", "b"), answer, cached=True)
    journal.close()  # flushes
    reopened = Journal(path)
    assert reopened.get(_place("a", "b")) == (answer, True)
    assert reopened.get(_place("b", "a")) is None
    reopened.forget("run")
    assert Journal(path).get(_place("a", "b")) is None


async def test_a_calls_facts_survive_reopening_and_old_rows_have_none(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    answer = ComparisonResult(winner="A", reasoning="r")
    journal.put(_place("a", "b"), answer, cached=False, facts={"judge": "OpenAIProvider:x"})
    journal.put(_place("c", "d", call=1), answer, cached=True)
    journal.close()
    reopened = Journal(path)
    assert reopened.entry(_place("a", "b")) == (answer, False, {"judge": "OpenAIProvider:x"})
    assert reopened.entry(_place("c", "d", call=1)) == (answer, True, {})
    assert reopened.get(_place("a", "b")) == (answer, False)  # the old contract


async def test_a_failed_write_is_kept_pending_raised_by_check_and_retried(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    conn = journal._conn
    assert conn is not None
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
    big = ComparisonResult(winner="A", reasoning="x" * 5000)
    journal.put(_place("a", "b"), big, cached=False)
    journal.put(_place("c", "d", call=1), big, cached=True)  # from the cache: not paid
    await asyncio.sleep(0)  # the scheduled flush runs, fails, and must not raise
    assert journal.unsaved_calls() == 1
    with pytest.raises(StorageError, match=r"j\.sqlite3 \(OperationalError: database or disk"):
        journal.check()
    conn.execute("PRAGMA max_page_count = 1000000")  # space again
    journal.check()  # retries and succeeds
    assert journal.unsaved_calls() == 0
    journal.close()
    reopened = Journal(path)
    assert reopened.get(_place("a", "b")) == (big, False)
    assert reopened.get(_place("c", "d", call=1)) == (big, True)
    reopened.close()


async def test_after_one_vain_wait_for_a_lock_later_tries_look_once_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "BUSY_MS", 200)
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    conn = journal._conn
    assert conn is not None
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a process stopped inside a write keeps the lock
    try:
        journal.put(_place("a", "b"), ComparisonResult(winner="A", reasoning="r"), cached=False)
        await asyncio.sleep(0)  # the scheduled flush waits the whole 200 ms, in vain
        assert "PRAGMA busy_timeout=0" not in statements
        for _ in range(3):  # each call in flight checks before it is paid
            statements.clear()
            with pytest.raises(StorageError, match="locked for more than 0.2 s"):
                journal.check()
            assert statements[:2] == ["PRAGMA busy_timeout=0", "BEGIN IMMEDIATE"]
            assert statements[-1] == "PRAGMA busy_timeout=200"  # the next open wait is whole
    finally:
        other.execute("ROLLBACK")
        other.close()
    statements.clear()
    journal.check()  # the lock is free: this look writes the pending row
    assert statements[0] == "PRAGMA busy_timeout=0" and journal.unsaved_calls() == 0
    statements.clear()
    journal.put(_place("c", "d", call=1), ComparisonResult(winner="B", reasoning="r"),
                cached=False)
    journal.flush()  # written normally again, with the whole wait
    assert "PRAGMA busy_timeout=0" not in statements and "BEGIN IMMEDIATE" in statements
    journal.close()
    assert Journal(path).get(_place("a", "b")) is not None
