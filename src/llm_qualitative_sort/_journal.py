"""The run journal: every finished comparison of a run, written before it is used.

LangGraph saves a node's writes only when the whole node finishes, and the comparison node
plays a whole round. The journal closes that gap: each finished call is committed at once,
keyed by its place in the run (round, match, call) and by the texts shown, so a resumed run
replays it instead of paying for it again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from llm_qualitative_sort.cache import SqliteTable, result_from_record, result_to_record
from llm_qualitative_sort.models import ComparisonResult


@dataclass(frozen=True)
class CallPlace:
    """Where a call sits in a run."""

    run_id: str
    round_number: int
    match: int
    call: int
    first: str
    second: str

    @property
    def key(self) -> str:
        """A key with each field hashed on its own."""
        fields = (
            self.run_id,
            str(self.round_number),
            str(self.match),
            str(self.call),
            self.first,
            self.second,
        )
        joined = "".join(hashlib.sha256(f.encode("utf-8")).hexdigest() for f in fields)
        return hashlib.sha256(joined.encode("ascii")).hexdigest()


class Journal:
    """Finished calls of runs, in an SQLite table or, without one, in memory."""

    def __init__(self, table: SqliteTable | None = None) -> None:
        self._table = table
        self._memory: dict[str, str] = {}

    def get(self, place: CallPlace) -> tuple[ComparisonResult, bool] | None:
        """The journaled answer and whether it came from the user's cache, or None."""
        key = place.key
        record = self._memory.get(key) if self._table is None else self._table.get(key)
        if record is None:
            return None
        data = json.loads(record)
        source = "the run journal" if self._table is None else str(self._table.path)
        return result_from_record(data["result"], source), bool(data["cached"])

    def put(self, place: CallPlace, result: ComparisonResult, *, cached: bool) -> None:
        """Record a finished call."""
        record = json.dumps({"result": result_to_record(result), "cached": cached})
        if self._table is None:
            self._memory[place.key] = record
        else:
            self._table.set(place.key, record)
