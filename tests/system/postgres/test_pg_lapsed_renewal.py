"""A lease renewal that comes back only after the lease lapsed vouches for nothing.

Before a paid call, a holder past its fence's deadline renews its lease in a journal commit:
a round trip. A process suspended while that answer is on its way (Ctrl-Z, SIGSTOP, a
paused VM) wakes to a renewal that succeeded before it slept, while another process may
have taken the run over meanwhile. It must ask again before it pays for a call.

The suspension is simulated, not timed: the commit's answer arrives, then the fence's clock
is moved past the lease's TTL and another holder is written on the lease row, as a takeover
during the suspension leaves them.
"""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from llm_qualitative_sort import RunLockedError
from llm_qualitative_sort._calls.judge import Judge
from llm_qualitative_sort.graph.context import DEFAULT_RETRY
from llm_qualitative_sort.stores._postgres_journal import PostgresJournal
from llm_qualitative_sort.stores.entries import CallPlace
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease
from llm_qualitative_sort.stores.postgres import PostgresStore
from llm_qualitative_sort.stores.postgres_connect import LEASES
from llm_qualitative_sort.testing import FunctionProvider

TTL = 60.0  # the heartbeat task sleeps through the test: only the journal renews the lease
TAKEN_OVER = (f"UPDATE {LEASES} SET host = 'elsewhere', pid = 4242, token = 'other', "
              "heartbeat = extract(epoch FROM clock_timestamp()) WHERE run_id = 'run-1'")


class _SuspendedInCommit(PostgresJournal):
    """A journal whose next commit is answered only after the run was taken over."""

    suspend = False

    def _commit(self) -> None:
        super()._commit()
        if self.suspend:
            self.suspend = False
            fence = self._fence
            assert fence is not None and not fence.lost  # the renewal itself succeeded
            fence.confirmed -= TTL  # the monotonic clock ran on while the process slept
            with psycopg.connect(self._dsn, autocommit=True) as conn:
                conn.execute(TAKEN_OVER)


@pytest.fixture
def dsn(postgres_dsn: str) -> str:
    asyncio.run(PostgresStore(postgres_dsn).prepare())
    return postgres_dsn


async def test_a_renewal_answered_after_a_takeover_lets_no_paid_call_start(dsn: str) -> None:
    paid: list[str] = []
    provider = FunctionProvider(lambda a, b, criteria: paid.append(a) or "A")
    lease = PostgresRunLease(dsn, TTL)
    async with lease.hold("run-1") as me:
        journal = _SuspendedInCommit(dsn)
        fence = lease.fence(me)
        journal.fence(fence)
        judge = Judge(provider=provider, criteria="larger", cache=None, journal=journal,
                      retry=DEFAULT_RETRY, stop=asyncio.Event())
        fence.confirmed -= TTL  # past its deadline: the judge renews before it pays
        journal.suspend = True
        try:
            with pytest.raises(RunLockedError, match="taken over by pid 4242"):
                await judge.call(CallPlace("run-1", 1, 0, 0, "a", "b", "a|b"), 0)
            assert paid == []
            assert fence.lost
        finally:
            journal.close()
