"""Holds a run's PostgreSQL lease until killed: python lease_holder.py DSN RUN TTL HOST READY.

HOST, if not empty, is the host name the holder records (another machine, as far as the
lease can tell). Exits 7 if the lease was taken over while it held the run.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

from llm_qualitative_sort import RunLockedError
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease


async def main(dsn: str, run_id: str, ttl: float, ready: str) -> int:
    try:
        async with PostgresRunLease(dsn, ttl).hold(run_id):
            Path(ready).touch()
            await asyncio.sleep(3600)
    except RunLockedError:
        return 7
    return 0


if __name__ == "__main__":
    dsn, run_id, ttl, host, ready = sys.argv[1:]
    if host:
        socket.gethostname = lambda: host  # type: ignore[assignment]
    sys.exit(asyncio.run(main(dsn, run_id, float(ttl), ready)))
