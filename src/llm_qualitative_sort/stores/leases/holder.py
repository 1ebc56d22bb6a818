"""`LeaseHolder`: who holds a run, as a lease records it and `RunLockedError` reports it.

A leaf: it imports nothing of the package. `errors` does not import it: a lock error's
`holder` is typed by the `errors.RunHolder` protocol, which a `LeaseHolder` satisfies.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """A process holding a run.

    Attributes:
        run_id: The run.
        host: The holder's host name.
        pid: The holder's process id.
        started: When it took the run (seconds since the epoch).
        heartbeat: Its last sign of life (seconds since the epoch).
        token: Names this one hold: a process may hold several runs, or lose and retake one.
        space: The holder's boot and pid-namespace identity ("" where unknown): a pid only
            means something to a process that shares it.
    """

    run_id: str
    host: str
    pid: int
    started: float
    heartbeat: float
    token: str
    space: str

    def describe(self, now: float | None = None) -> str:
        """Who holds the run, since when, and when it was last heard of."""
        since = datetime.fromtimestamp(self.started, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        silent = max(0.0, (time.time() if now is None else now) - self.heartbeat)
        return (
            f"pid {self.pid} on host {self.host!r} since {since} "
            f"(last heartbeat {silent:.0f} s ago)"
        )
