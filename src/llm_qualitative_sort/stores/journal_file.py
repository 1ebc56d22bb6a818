"""The SQLite run journal's file: its tables, settings and upkeep, and a reader for listings.

`journal.Journal` writes the file; `journal_counts` reads a run's calls from it without
opening a journal (the run listings of the command line).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import ormsgpack

from llm_qualitative_sort.errors import DamagedJournalError
from llm_qualitative_sort.stores.entries import Record

# One row per group commit and round: its calls as a MessagePack list of records (see
# `entries.record`). A commit costs a write per page of the WAL, so one row of many
# records beats many small rows; rows have no index besides the rowid for the same reason
# (the table stays small).
CALLS = """CREATE TABLE IF NOT EXISTS calls (
    run_id TEXT NOT NULL, round INTEGER NOT NULL, records BLOB NOT NULL)"""
# One row per group commit: pairings as a MessagePack list of [seq, *pairing].
PAIRINGS = """CREATE TABLE IF NOT EXISTS pairings (
    run_id TEXT NOT NULL, last_seq INTEGER NOT NULL, records BLOB NOT NULL)"""
INSERT = "INSERT INTO calls VALUES (?, ?, ?)"
INSERT_PAIRINGS = "INSERT INTO pairings VALUES (?, ?, ?)"
DROP = "DELETE FROM calls WHERE run_id = ? AND round = ?"
DROP_PAIRINGS = "DELETE FROM pairings WHERE run_id = ? AND last_seq < ?"
PURPOSE = "a run journal"
# The fence of a held run: each commit renews the holder's lease row (same file), or finds
# it gone or taken and writes nothing.
RENEW = "UPDATE leases SET heartbeat = ? WHERE run_id = ? AND token = ?"
# WAL pages between copies into the file, and the size the WAL is cut back to after one:
# the journal stays small, so a copy is cheap, and a long run never grows a large WAL.
WAL_PAGES = 1024
WAL_LIMIT = 4 * 1024 * 1024
# How long a commit waits for the file's write lock (milliseconds) while another process
# writes; the run stops after a second wait as long (see `Journal.check`).
BUSY_MS = 30_000
# Free space (bytes) left by dropped rows above which a finished run's `forget` rewrites the
# file (VACUUM); below it the pages are simply reused by later runs.
VACUUM_ABOVE = 1024 * 1024



def journal_counts(path: Path, run_id: str, skip_rounds: Iterable[int] = ()) -> dict[str, int]:
    """Counts over a run's journaled calls (for listings), leaving out `skip_rounds`.

    Raises:
        sqlite3.Error: The file cannot be read.
        DamagedJournalError: A row of the run cannot be read (named).
    """
    skip = set(skip_rounds)
    counts = dict.fromkeys(("calls", "cache_hits", "failed_calls", "input_tokens",
                            "output_tokens"), 0)
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                            timeout=30.0)) as conn:
        rows = conn.execute("SELECT rowid, round, records FROM calls WHERE run_id = ?",
                            (run_id,))
        for rowid, number, blob in rows.fetchall():
            if number in skip:
                continue
            try:
                _count(ormsgpack.unpackb(blob), counts)
            except (ValueError, TypeError, IndexError) as exc:
                raise damaged_row(path, run_id, "calls", rowid, number, exc) from exc
    return counts


def _count(records: list[Record], counts: dict[str, int]) -> None:
    for record in records:
        # The value (verdict, label or order) is None for a call that gave none.
        value, _reasoning, _raw, tokens_in, tokens_out, cached = record[3:9]
        counts["cache_hits" if cached else "calls"] += 1
        counts["failed_calls"] += value is None
        if not cached:
            counts["input_tokens"] += tokens_in
            counts["output_tokens"] += tokens_out


def damaged_row(path: Path | str, run_id: str, table: str, rowid: int,
                round_number: int | None, cause: Exception) -> DamagedJournalError:
    """The error for a row that cannot be read: which one, and the two ways on.

    Without the file (every run's journaled calls that no checkpoint has are asked again),
    or without that row (its calls are asked again).
    """
    where = f"run {run_id!r}" + ("" if round_number is None else f", round {round_number}")
    damage = (f"the run journal {path} holds a damaged entry: row {rowid} of its table "
              f"{table} ({where}) cannot be read ({cause})")
    file = str(path)
    return DamagedJournalError(damage, [
        ("move the journal aside (the calls of every run it holds that no checkpoint has "
         "are then asked again)", f"mv {shlex.quote(file)} {shlex.quote(file + '.damaged')}"),
        ("delete that row alone (its calls are then asked again)",
         f"sqlite3 {shlex.quote(file)} "
         f"{shlex.quote(f'DELETE FROM {table} WHERE rowid = {rowid}')}"),
    ])


def file_identity(path: Path) -> tuple[int, int] | None:
    """The file behind `path` now (device, inode), or None if there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def pack(records: list[Record]) -> bytes:
    """`records` as MessagePack, a raw answer it cannot hold turned into text."""
    try:
        return ormsgpack.packb(records)
    except TypeError:  # keep it as JSON would
        return ormsgpack.packb(json.loads(json.dumps(records, default=str)))


def compact(conn: sqlite3.Connection) -> None:
    """Rewrite the file without its free pages when they add up, and cut the WAL back."""
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    if free * page > VACUUM_ABOVE:
        conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
