"""Batch records of a round in PostgreSQL (see `stores.batch_journal` for what they are for)."""

from __future__ import annotations

import json
from typing import Any

from llm_qualitative_sort.stores.batch_journal import BatchJob, requests_from, requests_text
from llm_qualitative_sort.stores.postgres_connect import BATCH_ANSWERS, BATCH_JOBS

_SAVE = (f"INSERT INTO {BATCH_JOBS} VALUES (%s, %s, %s, %s, %s, %s, %s) "
         "ON CONFLICT (run_id, round, seq) DO UPDATE SET tag = excluded.tag, "
         "batch_id = excluded.batch_id, state = excluded.state, requests = excluded.requests")
_KEEP = (f"INSERT INTO {BATCH_ANSWERS} VALUES (%s, %s, %s, %s, %s, %s) "
         "ON CONFLICT (run_id, round, match, call, seq) DO UPDATE SET answer = excluded.answer")


class PostgresBatchRecords:
    """The batch records of one round, on the run journal's connection (autocommit).

    Args:
        conn: A synchronous psycopg connection in autocommit mode.
        run_id: The run.
        round_number: The round.
    """

    def __init__(self, conn: Any, run_id: str, round_number: int) -> None:
        self._conn = conn
        self._key = (run_id, round_number)

    def jobs(self) -> list[BatchJob]:
        """The round's batches, in the order they were submitted."""
        rows = self._conn.execute(
            f"SELECT seq, tag, state, requests, batch_id FROM {BATCH_JOBS} "
            "WHERE run_id = %s AND round = %s ORDER BY seq", self._key).fetchall()
        return [
            BatchJob(seq, tag, state, requests_from(requests), batch_id)
            for seq, tag, state, requests, batch_id in rows
        ]

    def save(self, job: BatchJob) -> None:
        """Record (or update) a batch, committed at once."""
        self._conn.execute(_SAVE, self._job_row(job))

    def answers(self) -> dict[tuple[int, int], list[dict[str, Any]]]:
        """Answers without a verdict kept for each (match, call), oldest first."""
        rows = self._conn.execute(
            f"SELECT match, call, answer FROM {BATCH_ANSWERS} WHERE run_id = %s AND round = %s "
            "ORDER BY seq", self._key).fetchall()
        kept: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for match, call, answer in rows:
            kept.setdefault((match, call), []).append(json.loads(answer))
        return kept

    def close_job(self, job: BatchJob, kept: dict[tuple[int, int], dict[str, Any]]) -> None:
        """Mark a batch as read, with the answers to ask again, in one transaction."""
        job.state = "closed"
        rows = [(*self._key, match, call, job.seq, json.dumps(answer, ensure_ascii=False))
                for (match, call), answer in kept.items()]
        with self._conn.transaction(), self._conn.cursor() as cursor:
            if rows:
                cursor.executemany(_KEEP, rows)
            cursor.execute(_SAVE, self._job_row(job))

    def forget(self) -> None:
        """Drop the round's records: all its calls are in the run journal now."""
        with self._conn.transaction():
            for table in (BATCH_JOBS, BATCH_ANSWERS):
                self._conn.execute(
                    f"DELETE FROM {table} WHERE run_id = %s AND round = %s", self._key)

    def close(self) -> None:
        """Nothing to close: the connection is the journal's."""

    def _job_row(self, job: BatchJob) -> tuple[Any, ...]:
        requests = requests_text(job.requests)
        return (*self._key, job.seq, job.tag, job.batch_id, job.state, requests)


def in_flight(conn: Any, run_id: str, round_number: int) -> list[str]:
    """The batches of a round not yet read, by provider id (or tag while submitting)."""
    rows = conn.execute(
        f"SELECT COALESCE(batch_id, tag) FROM {BATCH_JOBS} "
        "WHERE run_id = %s AND round = %s AND state != 'closed' ORDER BY seq",
        (run_id, round_number)).fetchall()
    return [str(row[0]) for row in rows]
