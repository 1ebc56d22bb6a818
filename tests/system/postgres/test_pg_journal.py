"""The PostgreSQL run journal and batch records against a real server."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from llm_qualitative_sort import ComparisonResult, StorageError
from llm_qualitative_sort.stores.batch_journal import BatchJob, JobRequest
from llm_qualitative_sort.stores.entries import CallPlace, text_digest
from llm_qualitative_sort.stores.postgres import PostgresStore
from llm_qualitative_sort.stores.postgres_connect import MIGRATIONS

COUNT = ("SELECT count(*), COALESCE(SUM(jsonb_array_length(calls::jsonb)), 0)::int "
         "FROM llm_qualitative_sort_journal")


def _place(first: str, second: str, match: int = 0, call: int = 0) -> CallPlace:
    return CallPlace("run", 1, match, call, first, second, text_digest(first) + text_digest(second))


def _result(winner: str | None = "A") -> ComparisonResult:
    return ComparisonResult(winner=winner, reasoning="because", raw_response={"k": [1, "é"]},
                            input_tokens=12, output_tokens=3)


async def _journal(dsn: str):
    store = PostgresStore(dsn)
    await store.prepare()
    return store.connect()


async def test_rows_are_committed_in_one_turn_and_read_back_by_another_connection(
    postgres_dsn: str,
) -> None:
    async with await _journal(postgres_dsn) as (_, journal):
        journal.put(_place("a", "b"), _result("A"), cached=False)
        journal.put(_place("c", "d", match=1), _result(None), cached=True)
        with psycopg.connect(postgres_dsn) as other:
            before = other.execute(COUNT).fetchone()
        await asyncio.sleep(0)  # one turn of the loop: the scheduled flush has run
        with psycopg.connect(postgres_dsn) as other:
            after = other.execute(COUNT).fetchone()
    assert (before, after) == ((0, 0), (1, 2))  # one row (one commit) holding both calls
    async with await _journal(postgres_dsn) as (_, reopened):
        assert reopened.get(_place("a", "b")) == (_result("A"), False)
        assert reopened.get(_place("c", "d", match=1)) == (_result(None), True)
        assert reopened.get(_place("a", "x")) is None  # other texts at the same place


async def test_the_newest_row_of_a_call_wins_and_forget_drops_the_run(postgres_dsn: str) -> None:
    async with await _journal(postgres_dsn) as (_, journal):
        journal.put(_place("a", "b"), _result("A"), cached=False)
        journal.flush()
        journal.put(_place("x", "y"), _result("B"), cached=False)  # a new pairing there
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.get(_place("a", "b")) is None
        assert journal.get(_place("x", "y")) == (_result("B"), False)
        journal.forget("run")
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.get(_place("x", "y")) is None


async def test_a_dropped_connection_is_replaced_and_nothing_is_lost(postgres_dsn: str) -> None:
    async with await _journal(postgres_dsn) as (_, journal):
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            # Only this test's database: other tests run beside it on the same server.
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "application_name = 'llm-qualitative-sort' AND pid != pg_backend_pid() "
                          "AND datname = current_database()")
        journal.put(_place("a", "b"), _result("A"), cached=False)
        journal.flush()  # fails on the dead connection: kept for the next try
        journal.check()  # tries again on a new connection
        assert journal.unsaved_calls() == 0
    async with await _journal(postgres_dsn) as (_, reopened):
        assert reopened.get(_place("a", "b")) == (_result("A"), False)


async def test_an_unreachable_server_stops_paid_calls_and_counts_them(
    postgres_dsn: str, postgres_server: str
) -> None:
    name = postgres_dsn.rsplit("/", 1)[1]
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.get(_place("a", "b")) is None  # as the judge does: the round is read
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          f"WHERE datname = '{name}'")
        try:
            journal.put(_place("a", "b"), _result("A"), cached=False)
            journal.put(_place("c", "d", match=1), _result("A"), cached=True)
            journal.flush()
            with pytest.raises(StorageError, match="cannot write the run journal in postgresql"):
                journal.check()
            assert journal.unsaved_calls() == 1  # the cache hit cost nothing
        finally:
            with psycopg.connect(postgres_server, autocommit=True) as admin:
                admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        journal.check()  # the server is back: the rows are written now
    async with await _journal(postgres_dsn) as (_, reopened):
        assert reopened.get(_place("c", "d", match=1)) == (_result("A"), True)


async def test_batch_records_follow_the_journal(postgres_dsn: str) -> None:
    async with await _journal(postgres_dsn) as (_, journal):
        records = journal.batch_records("run", 2)
        job = BatchJob(0, "tag-0", "submitting", [JobRequest("r0", 0, 1, "ab")])
        records.save(job)
        assert journal.batches_in_flight("run", 2) == ["tag-0"]
        job.batch_id, job.state = "batch-7", "open"
        records.save(job)
        assert journal.batches_in_flight("run", 2) == ["batch-7"]
        records.close_job(job, {(0, 1): {"answer": "unclear"}})
        assert journal.batches_in_flight("run", 2) == []
    async with await _journal(postgres_dsn) as (_, reopened):
        records = reopened.batch_records("run", 2)
        assert records.jobs() == [job]
        assert records.answers() == {(0, 1): [{"answer": "unclear"}]}
        records.forget()
        assert records.jobs() == [] and records.answers() == {}


async def test_concurrent_workers_set_up_the_tables_once(postgres_dsn: str) -> None:
    import sys

    import _forked as forked

    code = ("import asyncio, sys; from llm_qualitative_sort.stores.postgres import PostgresStore; "
            "asyncio.run(PostgresStore(sys.argv[1]).prepare())")
    workers = [forked.start([sys.executable, "-c", code, postgres_dsn]) for _ in range(4)]
    assert [w.wait(timeout=120) for w in workers] == [0, 0, 0, 0]
    with psycopg.connect(postgres_dsn) as conn:
        versions = conn.execute("SELECT v FROM llm_qualitative_sort_migrations").fetchall()
        saver = conn.execute("SELECT count(*) FROM checkpoint_migrations").fetchone()
    assert versions == [(v,) for v in range(1, len(MIGRATIONS) + 1)]  # each applied once
    assert saver is not None and saver[0] > 0


async def test_facts_and_pairings_survive_a_reopen_and_settled_rows_go(postgres_dsn: str) -> None:
    judge = {"judge": "mock:seed=2"}
    async with await _journal(postgres_dsn) as (_, journal):
        journal.put_pairing("run", 0, [3, 4, 0])
        journal.put_pairing("run", 1, [5, 6, 0])
        journal.put(_place("a", "b"), _result("A"), cached=False, facts=judge)
        journal.put(CallPlace("run", 2, 0, 0, "c", "d", text_digest("c") + text_digest("d")),
                    _result("B"), cached=False)
        await asyncio.sleep(0)
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.entry(_place("a", "b")) == (_result("A"), False, judge)
        assert journal.pairings("run") == {0: [3, 4, 0], 1: [5, 6, 0]}
        journal.settle("run", [1], pairings_below=1)  # a checkpoint now holds round 1, seq 0
        await asyncio.sleep(0)
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.entry(_place("a", "b")) is None
        kept = CallPlace("run", 2, 0, 0, "c", "d", text_digest("c") + text_digest("d"))
        assert journal.get(kept) == (_result("B"), False)
        # Pairings are dropped by their commit's last number: seq 0 and 1 were one commit.
        assert journal.pairings("run") == {0: [3, 4, 0], 1: [5, 6, 0]}
        journal.settle("run", [], pairings_below=2)
        await asyncio.sleep(0)
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.pairings("run") == {}


async def test_a_damaged_row_is_named_with_the_statement_that_deletes_it(
        postgres_dsn: str) -> None:
    from llm_qualitative_sort.errors import DamagedJournalError

    async with await _journal(postgres_dsn) as (_, journal):
        journal.put_pairing("run", 0, [3, 4, 0])
        journal.put(_place("a", "b"), _result("A"), cached=False)
        await asyncio.sleep(0)
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("UPDATE llm_qualitative_sort_journal SET calls = 'not json'")
        conn.execute("UPDATE llm_qualitative_sort_pairings SET records = 'not json'")
        (calls,) = conn.execute("SELECT seq FROM llm_qualitative_sort_journal").fetchone()
        (pairs,) = conn.execute("SELECT seq FROM llm_qualitative_sort_pairings").fetchone()
    for read, table, seq, where in (
            (lambda j: j.entry(_place("a", "b")), "llm_qualitative_sort_journal", calls,
             "(run 'run', round 1)"),
            (lambda j: j.pairings("run"), "llm_qualitative_sort_pairings", pairs,
             "(run 'run')")):
        async with await _journal(postgres_dsn) as (_, journal):
            with pytest.raises(DamagedJournalError) as raised:
                read(journal)
        assert f"row seq = {seq} of its table {table} {where}" in str(raised.value)
        assert raised.value.steps[0][1] == f"DELETE FROM {table} WHERE seq = {seq}"
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(raised.value.steps[0][1])
    async with await _journal(postgres_dsn) as (_, journal):
        assert journal.entry(_place("a", "b")) is None and journal.pairings("run") == {}
