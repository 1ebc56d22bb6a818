"""Batch mode with the runs in PostgreSQL: the batch records live in the database, so a
worker killed while its batch is out is resumed by another that polls the same batch."""

from __future__ import annotations

import psycopg
from test_batch_kill import kill_and_resume


def test_batch_records_in_postgres_survive_a_killed_worker(tmp_path, postgres_dsn: str) -> None:
    kill_and_resume("openai", 2, tmp_path, postgres_dsn)
    with psycopg.connect(postgres_dsn) as conn:
        left = conn.execute("SELECT count(*) FROM llm_qualitative_sort_batch_jobs").fetchone()
    assert left == (0,)  # every round's records were dropped once its calls were journaled
