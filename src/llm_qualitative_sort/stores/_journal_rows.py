"""The SQLite run journal's rows: a run's calls and pairings read back, pending rows written.

`journal.Journal` keeps each run's calls in memory as `JournalRounds` and its pairings by number;
`load_run` fills both from the file when a run is first looked up, and `write_pending`
writes what is pending inside the journal's commit (see `Journal._commit`). The tables and
statements are `journal_file`'s.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import ormsgpack

from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import CallFacts, Record, decode
from llm_qualitative_sort.stores.journal_file import INSERT, INSERT_PAIRINGS, damaged_row, pack

# An answer as kept in memory: the texts' digests, the result, whether it came from a cache,
# and the call's facts.
_Entry = tuple[str, CallAnswer, bool, CallFacts]
JournalRounds = dict[int, dict[tuple[int, int], _Entry]]


def write_pending(conn: sqlite3.Connection, pending: dict[tuple[str, int], list[Record]],
                  paired: dict[str, list[list[int]]],
                  drops: list[tuple[str, tuple[Any, ...]]]) -> None:
    """Write the pending call rows, pairing rows and drops (inside the caller's transaction)."""
    if pending:
        conn.executemany(INSERT, [(run_id, number, pack(records))
                                   for (run_id, number), records in pending.items()])
    if paired:  # only the pipelined schedule pairs between commits
        conn.executemany(INSERT_PAIRINGS, [(run_id, rows[-1][0], ormsgpack.packb(rows))
                                            for run_id, rows in paired.items()])
    for statement, row in drops:
        conn.execute(statement, row)


def load_run(conn: sqlite3.Connection, run_id: str, rounds: JournalRounds,
             found: dict[int, list[int]], source: str) -> None:
    """Read a run's calls into `rounds` and its pairings into `found` (`source`: the file).

    Raises:
        DamagedJournalError: A row cannot be read (named, so that it can be deleted).
    """
    calls = conn.execute(
        "SELECT rowid, round, records FROM calls WHERE run_id = ?", (run_id,)).fetchall()
    pairings = conn.execute(
        "SELECT rowid, records FROM pairings WHERE run_id = ?", (run_id,)).fetchall()
    for rowid, number, blob in calls:
        entries = rounds.setdefault(number, {})
        try:
            for row in ormsgpack.unpackb(blob):
                entries[row[0], row[1]] = (row[2], *decode(row, source))
        except (ValueError, TypeError, IndexError) as exc:
            raise damaged_row(source, run_id, "calls", rowid, number, exc) from exc
    for rowid, blob in pairings:
        try:
            for seq, *pairing in ormsgpack.unpackb(blob):
                found[seq] = pairing
        except (ValueError, TypeError) as exc:
            raise damaged_row(source, run_id, "pairings", rowid, None, exc) from exc
