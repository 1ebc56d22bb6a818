"""The run journal: every finished comparison of a run, written before it is used.

LangGraph saves a node's writes only when the whole node finishes, and the comparison node
plays a whole round. The journal closes that gap: each finished call is committed at once,
keyed by its place in the run (run id, round, match, call), so a resumed run replays it
instead of paying for it again. A round's entries are read in one query when it starts.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_qualitative_sort.cache import open_sqlite, result_from_dict, unusable_sqlite
from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.models import ComparisonResult

_SCHEMA = """CREATE TABLE IF NOT EXISTS journal (
    run_id TEXT NOT NULL, round INTEGER NOT NULL, match INTEGER NOT NULL,
    call INTEGER NOT NULL, shown TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (run_id, round, match, call))"""


def text_digest(text: str) -> str:
    """The digest of one text, as `CallPlace.shown` joins them."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CallPlace:
    """Where a call sits in a run, and which texts it showed (first, then second).

    `shown` joins the `text_digest`s of both texts; the journal checks it on replay, so a
    journal entry is never applied to other texts.
    """

    run_id: str
    round_number: int
    match: int
    call: int
    first: str
    second: str
    shown: str


# Facts about one call beyond its answer, such as {"judge": "<model identity>"} when a panel
# answered it; empty for most calls, and then not stored at all.
CallFacts = dict[str, Any]
# A call's answer, whether it came from the user's cache, and its facts.
Answer = tuple[ComparisonResult, bool, CallFacts]

_INSERT = "INSERT OR REPLACE INTO journal VALUES (?, ?, ?, ?, ?, ?)"
_PURPOSE = "a run journal"
_Row = tuple[str, int, int, int, str, str]


class Journal:
    """Finished calls of runs, in an SQLite file or, without one, in memory.

    A write that fails (a full disk) loses nothing silently: the rows stay pending and are
    tried again, `check` raises before the next paid call, and `unsaved_calls` says how many
    paid calls are not on disk.

    Args:
        path: The SQLite file; None keeps the journal in memory.

    Raises:
        StorageError: `path` is not a usable SQLite file.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._rows: dict[tuple[str, int], dict[tuple[int, int], tuple[str, str]]] = {}
        self._conn: sqlite3.Connection | None = None
        self._pending: list[tuple[_Row, bool]] = []  # (row, paid)
        self._scheduled = False
        self._failure: sqlite3.Error | None = None
        if path is not None:
            self._conn = open_sqlite(path, _SCHEMA, _PURPOSE, StorageError)

    def get(self, place: CallPlace) -> tuple[ComparisonResult, bool] | None:
        """The journaled answer and whether it came from the user's cache, or None."""
        entry = self.entry(place)
        return None if entry is None else entry[:2]

    def entry(self, place: CallPlace) -> Answer | None:
        """The journaled answer, whether it came from the user's cache, and its facts."""
        row = self._round(place.run_id, place.round_number).get((place.match, place.call))
        if row is None:
            return None
        shown, record = row
        if shown != place.shown:
            return None  # another pairing was journaled here: ask again, never reuse it
        source = str(self.path or "the run journal")
        # Rows written before facts existed have six fields.
        winner, reasoning, raw, input_tokens, output_tokens, cached, *facts = json.loads(record)
        data = {"winner": winner, "reasoning": reasoning, "raw_response": raw,
                "input_tokens": input_tokens, "output_tokens": output_tokens}
        return result_from_dict(data, source), bool(cached), dict(facts[0]) if facts else {}

    def put(
        self,
        place: CallPlace,
        result: ComparisonResult,
        *,
        cached: bool,
        facts: CallFacts | None = None,
    ) -> None:
        """Record a finished call, with its facts (such as the judge of a panel) if any.

        The row is committed by a flush scheduled on the event loop, so all calls that
        finish in one turn of the loop share one commit; the flush runs before any code
        woken by these calls, so no verdict is acted on before its row is on disk.
        """
        fields: tuple[Any, ...] = (result.winner, result.reasoning, result.raw_response,
                                   result.input_tokens, result.output_tokens, cached)
        if facts:
            fields += (facts,)
        row = (place.shown, json.dumps(fields, ensure_ascii=False, default=str))
        self._round(place.run_id, place.round_number)[(place.match, place.call)] = row
        if self._conn is not None:
            key = (place.run_id, place.round_number, place.match, place.call)
            self._pending.append(((*key, *row), not cached))
            if not self._scheduled:
                self._scheduled = True
                asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Commit the rows recorded and not yet on disk.

        Never raises: it runs as an event-loop callback, where an exception would only be
        logged and its rows dropped. A failed write keeps the rows pending for the next
        flush and is raised by `check`.
        """
        self._scheduled = False
        if self._conn is None or not self._pending:
            return
        try:
            with self._conn:
                self._conn.execute("BEGIN")
                self._conn.executemany(_INSERT, [row for row, _ in self._pending])
        except sqlite3.Error as exc:
            self._failure = exc
            return
        self._pending = []
        self._failure = None

    def check(self) -> None:
        """Raise if finished calls cannot be written (after one more try).

        The judge calls it before each paid call: a journal that cannot keep answers must
        not buy more of them.

        Raises:
            StorageError: Naming the file and the error (a full disk, a failing device).
        """
        if self._failure is not None:
            self.flush()
        if self._failure is not None:
            raise StorageError(
                f"cannot write the run journal {self.path} ({type(self._failure).__name__}: "
                f"{self._failure}): free space on its disk, then resume the run"
            ) from self._failure

    def unsaved_calls(self) -> int:
        """Paid calls whose rows could not be written (after one more try)."""
        self.flush()
        return sum(paid for _, paid in self._pending) if self._failure is not None else 0

    def forget(self, run_id: str) -> None:
        """Drop a finished run's calls: its checkpoint holds the history from now on."""
        self._rows = {key: rows for key, rows in self._rows.items() if key[0] != run_id}
        if self._conn is None:
            return
        self.flush()
        self._pending = [entry for entry in self._pending if entry[0][0] != run_id]
        try:
            self._conn.execute("DELETE FROM journal WHERE run_id = ?", (run_id,))
        except sqlite3.Error:
            # Left behind, the rows are stale copies of what the checkpoint holds and are
            # never read again (a finished run returns its stored result): a failure to
            # delete them (a full disk) must not turn a finished run into an error.
            pass

    def _round(self, run_id: str, round_number: int) -> dict[tuple[int, int], tuple[str, str]]:
        key = (run_id, round_number)
        if key not in self._rows:
            self._rows[key] = {}
            if self._conn is not None:
                try:
                    rows = self._conn.execute(
                        "SELECT match, call, shown, record FROM journal "
                        "WHERE run_id = ? AND round = ?",
                        key,
                    ).fetchall()
                except sqlite3.Error as exc:
                    del self._rows[key]
                    problem = unusable_sqlite(Path(str(self.path)), _PURPOSE, exc)
                    raise StorageError(problem) from exc
                self._rows[key] = {(m, c): (s, r) for m, c, s, r in rows}
        return self._rows[key]

    def close(self) -> None:
        """Flush (a last try) and close the file."""
        if self._conn is not None:
            self.flush()
            self._conn.close()
