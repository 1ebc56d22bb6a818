"""A holder that stops itself inside a journal commit: python commit_stopper.py DSN TTL OUT.

It takes run "run-1", fences a PostgreSQL journal with the lease, records one pairing and
commits it; between the commit's two round trips (the lease row renewed and locked, the
rows not yet sent) it sends itself SIGSTOP, as Ctrl-Z can. Once woken it asks the journal
whether it may go on (`check`, as before a paid call) and writes what happened to OUT:
"stopped: <message>" if it learnt it lost the run, "went on" otherwise.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from llm_qualitative_sort import RunLockedError
from llm_qualitative_sort.stores._postgres_journal import PostgresJournal
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease


def stop_after_renewal() -> None:
    original = PostgresJournal._held
    stops = [1]

    def held(self: Any, cursor: Any, pipeline: Any) -> bool:
        found: bool = original(self, cursor, pipeline)
        if stops:  # the first commit only
            stops.pop()
            os.kill(os.getpid(), signal.SIGSTOP)
        return found

    PostgresJournal._held = held  # type: ignore[method-assign]


async def main(dsn: str, ttl: float, out: Path) -> None:
    lease = PostgresRunLease(dsn, ttl)
    try:
        async with lease.hold("run-1") as me:
            journal = PostgresJournal(dsn)
            journal.fence(lease.fence(me))
            stop_after_renewal()
            journal.put_pairing("run-1", 0, [0, 1])
            journal.flush()  # stops inside; woken, its session may be gone
            journal.check()
            out.write_text("went on")
    except RunLockedError as exc:
        out.write_text(f"stopped: {exc}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2]), Path(sys.argv[3])))
