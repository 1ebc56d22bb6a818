"""Two processes opening a new SQLite file at once: the switch to WAL waits for the other.

Switching a file to WAL is a lock upgrade, and SQLite answers "database is locked" at once
(not after its busy timeout) while another connection is inside a write: one of several runs
started together on a new file used to fail that way.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from llm_qualitative_sort.stores.cache import CacheError
from llm_qualitative_sort.stores.sqlite_files import open_sqlite

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k TEXT)"


def _writer(path: Path) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE IF NOT EXISTS started (k TEXT)")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO started VALUES ('x')")
    return other


def test_a_new_file_another_connection_is_writing_is_opened_once_it_commits(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new.sqlite3"
    other = _writer(path)
    threading.Timer(0.3, other.commit).start()
    conn = open_sqlite(path, SCHEMA, "a test file", CacheError)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert conn.execute("SELECT count(*) FROM started").fetchone() == (1,)
    conn.close()
    other.close()


def test_a_write_that_never_ends_is_reported_naming_another_process(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    other = _writer(path)
    try:
        with pytest.raises(CacheError, match="another process is inside a write"):
            open_sqlite(path, SCHEMA, "a test file", CacheError)
    finally:
        other.rollback()
        other.close()
