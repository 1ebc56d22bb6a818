"""Batch records: which provider batch is answering which calls of a round.

A batch runs for hours, so the process that submitted it may be gone when it ends. Each
batch is recorded in the run journal's SQLite file *before* it is submitted (state
"submitting", with its tag) and again once the provider gave its id ("open"), so a resumed
run polls the same batch instead of paying for the round again; a record still
"submitting" after a crash is looked up by its tag. Answers without a verdict that will be
asked again are kept too, since they were paid for. The rows of a round are dropped once
every call of the round is in the run journal.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import weakref
from dataclasses import dataclass
from typing import Any, Literal

from llm_qualitative_sort.stores.cache import CacheError
from llm_qualitative_sort.stores.journal import Journal
from llm_qualitative_sort.stores.sqlite_files import open_sqlite

_JOBS = """CREATE TABLE IF NOT EXISTS batch_jobs (
    run_id TEXT NOT NULL, round INTEGER NOT NULL, seq INTEGER NOT NULL, tag TEXT NOT NULL,
    batch_id TEXT, state TEXT NOT NULL, requests TEXT NOT NULL,
    PRIMARY KEY (run_id, round, seq))"""
_ANSWERS = """CREATE TABLE IF NOT EXISTS batch_answers (
    run_id TEXT NOT NULL, round INTEGER NOT NULL, match INTEGER NOT NULL, call INTEGER NOT NULL,
    seq INTEGER NOT NULL, answer TEXT NOT NULL,
    PRIMARY KEY (run_id, round, match, call, seq))"""

JobState = Literal["submitting", "open", "closed"]


@dataclass(frozen=True, slots=True)
class JobRequest:
    """A request of a batch: its id in the batch, the call it answers, the texts it showed.

    `asked` names the question it asked, as the batch runner words it (see
    `_calls._batch_requests.asked`), so that its answer is read as that question when the
    batch is collected by a resumed run; "" in records written before requests named
    theirs (they asked their round's question).
    """

    request_id: str
    match: int
    call: int
    shown: str
    asked: str = ""


def requests_text(requests: list[JobRequest]) -> str:
    """A batch's requests as its record stores them (JSON: one list per request)."""
    return json.dumps([[r.request_id, r.match, r.call, r.shown, *([r.asked] if r.asked else [])]
                       for r in requests])


def requests_from(text: str) -> list[JobRequest]:
    """A batch's requests from its record, old (four fields a request) or new."""
    return [JobRequest(*row) for row in json.loads(text)]


@dataclass
class BatchJob:
    """One provider batch of a round.

    `seq` numbers the round's batches; `batch_id` is None until the provider has given it.
    """

    seq: int
    tag: str
    state: JobState
    requests: list[JobRequest]
    batch_id: str | None = None


def storable(job: BatchJob, secret: str | None) -> BatchJob:
    """`job` as it may be written: without a batch id that holds the API key.

    A server may echo the key back, in a batch id too. Such an id is never written: the job
    is kept as "submitting" (its id unknown), so that a resumed run finds the batch again
    by its tag, which is ours and holds no secret.
    """
    if not secret or job.batch_id is None or secret not in job.batch_id:
        return job
    state: JobState = "submitting" if job.state == "open" else job.state
    return dataclasses.replace(job, batch_id=None, state=state)


# An in-memory run journal keeps its batch records in a private in-memory database that
# lives as long as the journal object, so a run resumed in the same process finds them.
_MEMORY: weakref.WeakKeyDictionary[Journal, sqlite3.Connection] = weakref.WeakKeyDictionary()


class BatchJournal:
    """The batch records of runs, beside the run journal.

    Args:
        journal: The run journal; its SQLite file (if any) also holds these tables.
        run_id: The run.
        round_number: The round.
    """

    def __init__(self, journal: Journal, run_id: str, round_number: int) -> None:
        self._key = (run_id, round_number)
        self._owned = journal.path is not None
        if journal.path is not None:
            self._conn = open_sqlite(journal.path, _JOBS, "a run journal", CacheError)
        else:
            if journal not in _MEMORY:
                _MEMORY[journal] = open_sqlite_memory()
            self._conn = _MEMORY[journal]
        self._conn.execute(_ANSWERS)

    def jobs(self) -> list[BatchJob]:
        """The round's batches, in the order they were submitted."""
        rows = self._conn.execute(
            "SELECT seq, tag, state, requests, batch_id FROM batch_jobs "
            "WHERE run_id = ? AND round = ? ORDER BY seq",
            self._key,
        )
        return [
            BatchJob(seq, tag, state, requests_from(requests), batch_id)
            for seq, tag, state, requests, batch_id in rows
        ]

    def save(self, job: BatchJob) -> None:
        """Record (or update) a batch, committed at once."""
        requests = requests_text(job.requests)
        self._conn.execute(
            "INSERT OR REPLACE INTO batch_jobs VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*self._key, job.seq, job.tag, job.batch_id, job.state, requests),
        )

    def answers(self) -> dict[tuple[int, int], list[dict[str, Any]]]:
        """Answers without a verdict kept for each (match, call), oldest first."""
        rows = self._conn.execute(
            "SELECT match, call, answer FROM batch_answers WHERE run_id = ? AND round = ? "
            "ORDER BY seq",
            self._key,
        )
        kept: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for match, call, answer in rows:
            kept.setdefault((match, call), []).append(json.loads(answer))
        return kept

    def close_job(self, job: BatchJob, kept: dict[tuple[int, int], dict[str, Any]]) -> None:
        """Mark a batch as read, with the answers to ask again, in one transaction."""
        job.state = "closed"
        rows = [
            (*self._key, match, call, job.seq, json.dumps(answer, ensure_ascii=False))
            for (match, call), answer in kept.items()
        ]
        with self._conn:
            self._conn.execute("BEGIN")
            self._conn.executemany(
                "INSERT OR REPLACE INTO batch_answers VALUES (?, ?, ?, ?, ?, ?)", rows
            )
            self.save(job)

    def forget(self) -> None:
        """Drop the round's records: all its calls are in the run journal now."""
        with self._conn:
            self._conn.execute("BEGIN")
            for table in ("batch_jobs", "batch_answers"):
                self._conn.execute(f"DELETE FROM {table} WHERE run_id = ? AND round = ?", self._key)

    def close(self) -> None:
        """Close the file (an in-memory journal's records stay with the journal)."""
        if self._owned:
            self._conn.close()


def open_sqlite_memory() -> sqlite3.Connection:
    """An autocommit in-memory database with the batch tables."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.execute(_JOBS)
    return conn


def batches_in_flight(journal: Journal, run_id: str, round_number: int) -> list[str]:
    """The batches of a round that may still be at the provider, without writing anything.

    Cheap enough for every live round: a read-only look, and nothing at all when the
    journal never held a batch.
    """
    conn = _MEMORY.get(journal)
    owned = False
    if conn is None:
        if journal.path is None or not journal.path.exists():
            return []
        conn = sqlite3.connect(f"{journal.path.resolve().as_uri()}?mode=ro", uri=True)
        owned = True
    try:
        if not conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'batch_jobs'"
        ).fetchone():
            return []
        rows = conn.execute(
            "SELECT COALESCE(batch_id, tag) FROM batch_jobs "
            "WHERE run_id = ? AND round = ? AND state != 'closed' ORDER BY seq",
            (run_id, round_number),
        ).fetchall()
    except sqlite3.OperationalError:
        return []  # unreadable here: the run journal itself reports real problems
    finally:
        if owned:
            conn.close()
    return [str(row[0]) for row in rows]
