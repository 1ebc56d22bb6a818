"""The batch records kept beside the run journal."""

from __future__ import annotations

import sqlite3

import pytest

from llm_qualitative_sort.stores.batch_journal import (
    BatchJob,
    BatchJournal,
    JobRequest,
    batches_in_flight,
)
from llm_qualitative_sort.stores.journal import Journal

REQUESTS = [JobRequest("m0-c0", 0, 0, "s00"), JobRequest("m0-c1", 0, 1, "s01")]


@pytest.fixture(params=["file", "memory"])
def journal(request, tmp_path):
    journal = Journal(tmp_path / "runs.journal.sqlite3" if request.param == "file" else None)
    yield journal
    journal.close()


def test_jobs_are_kept_in_order_and_updated_in_place(journal) -> None:
    store = BatchJournal(journal, "run", 1)
    store.save(BatchJob(2, "tag-2", "submitting", REQUESTS[1:]))
    first = BatchJob(1, "tag-1", "submitting", REQUESTS)
    store.save(first)
    first.batch_id, first.state = "batch_1", "open"
    store.save(first)
    store.close()
    again = BatchJournal(journal, "run", 1)  # a fresh connection (a resumed process)
    jobs = again.jobs()
    assert [(j.seq, j.tag, j.state, j.batch_id) for j in jobs] == [
        (1, "tag-1", "open", "batch_1"), (2, "tag-2", "submitting", None)]
    assert jobs[0].requests == REQUESTS
    assert BatchJournal(journal, "run", 2).jobs() == []
    assert BatchJournal(journal, "other", 1).jobs() == []


def test_closing_a_job_keeps_its_answers_and_forget_drops_the_round(journal) -> None:
    store = BatchJournal(journal, "run", 3)
    job = BatchJob(1, "t", "open", REQUESTS, "b1")
    store.save(job)
    store.close_job(job, {(0, 1): {"problem": "not JSON", "shown": "s01"}})
    store.close_job(BatchJob(2, "u", "open", REQUESTS, "b2"), {(0, 1): {"problem": "again"}})
    assert [j.state for j in store.jobs()] == ["closed", "closed"]
    assert store.answers() == {(0, 1): [{"problem": "not JSON", "shown": "s01"},
                                        {"problem": "again"}]}
    store.forget()
    assert store.jobs() == [] and store.answers() == {}
    store.close()


def test_in_flight_lists_the_batches_not_yet_read(journal) -> None:
    assert batches_in_flight(journal, "run", 1) == []
    store = BatchJournal(journal, "run", 1)
    store.save(BatchJob(1, "tag-1", "submitting", REQUESTS))
    store.save(BatchJob(2, "tag-2", "open", REQUESTS, "batch_2"))
    store.save(BatchJob(3, "tag-3", "closed", REQUESTS, "batch_3"))
    store.close()
    assert batches_in_flight(journal, "run", 1) == ["tag-1", "batch_2"]
    assert batches_in_flight(journal, "run", 2) == []


def test_in_flight_writes_nothing_to_a_journal_that_never_held_a_batch(tmp_path) -> None:
    path = tmp_path / "runs.journal.sqlite3"
    journal = Journal(path)
    try:
        assert batches_in_flight(journal, "run", 1) == []
    finally:
        journal.close()
    conn = sqlite3.connect(path)
    try:
        tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
    finally:
        conn.close()
    assert ("batch_jobs",) not in tables
    assert batches_in_flight(Journal(), "run", 1) == []  # in memory, never used
