"""Row locks on a PostgreSQL lease: a holder suspended inside a journal commit, and a
heartbeat that runs while the journal commits on the same event loop.

A journal commit renews (and so locks) the holder's lease row, then sends its rows: two
round trips. Neither a suspended holder nor its own heartbeat may leave that row locked for
long: a contender would wait on it until the holder woke, and a commit waiting (on the
event loop) for a heartbeat of its own process would wait forever.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import _forked as forked
import psycopg
import pytest

from llm_qualitative_sort.stores._postgres_journal import PostgresJournal
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease
from llm_qualitative_sort.stores.postgres import PostgresStore

STOPPER = Path(__file__).with_name("commit_stopper.py")
TTL = 1.0
BOUND = 120.0  # generous for a loaded machine; a blocked takeover never ends at all
ROWS = ("SELECT (SELECT count(*) FROM llm_qualitative_sort_journal)"
        " + (SELECT count(*) FROM llm_qualitative_sort_pairings)")


@pytest.fixture
def dsn(postgres_dsn: str) -> str:
    asyncio.run(PostgresStore(postgres_dsn).prepare())
    return postgres_dsn


@pytest.fixture
def stopper(dsn: str, tmp_path: Path) -> Iterator[forked.Forked]:
    process = forked.start([sys.executable, str(STOPPER), dsn, str(TTL),
                            str(tmp_path / "out")])
    yield process
    if process.poll() is None:
        process.send_signal(signal.SIGCONT)
        process.kill()
        process.wait(timeout=30)


def _stopped(process: forked.Forked) -> bool:
    """Whether `process` is stopped by a signal (state T in /proc)."""
    stat = Path(f"/proc/{process.pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "T"


async def test_a_holder_suspended_inside_a_commit_does_not_block_a_takeover_and_writes_nothing(
    dsn: str, stopper: forked.Forked, tmp_path: Path
) -> None:
    deadline = time.monotonic() + BOUND
    while not _stopped(stopper):
        assert stopper.poll() is None and time.monotonic() < deadline, "it never stopped"
        await asyncio.sleep(0.01)
    # Before the fix the takeover waited on the row lock until the holder woke: never.
    taking = PostgresRunLease(dsn, TTL).hold("run-1", wait=BOUND)
    me = await asyncio.wait_for(taking.__aenter__(), BOUND)
    try:
        stopper.send_signal(signal.SIGCONT)
        assert await asyncio.to_thread(stopper.wait, BOUND) == 0
    finally:
        await taking.__aexit__(None, None, None)
    told = (tmp_path / "out").read_text()
    assert told.startswith(f"stopped: run 'run-1' was taken over by pid {me.pid}"), told
    with psycopg.connect(dsn) as conn:
        assert conn.execute(ROWS).fetchone() == (0,)  # the woken holder wrote nothing


async def test_a_heartbeat_never_keeps_the_row_locked_while_the_journal_commits(
    dsn: str,
) -> None:
    lease = PostgresRunLease(dsn, TTL)
    async with lease.hold("run-1") as me:
        journal = PostgresJournal(dsn)
        journal.fence(lease.fence(me))
        # Bounded, so that a commit waiting on this process's own heartbeat fails the test
        # instead of freezing it (the event loop that would finish the heartbeat waits).
        journal._conn.execute("SET lock_timeout = 2000")
        for seq in range(5):
            renewal = asyncio.create_task(lease.renew(me))
            while not renewal.done():  # a commit at every step of the renewal
                journal.put_pairing("run-1", seq, [seq, seq + 1])
                journal.flush()
                assert journal._failure is None, journal._failure
                await asyncio.sleep(0)
            assert (await renewal) == me or (await renewal).token == me.token
        journal.close()
