"""`LocalRunLease`: holders kept in this process's memory."""

from __future__ import annotations

import dataclasses
import time

from llm_qualitative_sort.stores.leases.base import LeaseHolder, RunLease, is_stale

# (id of the scope, run id) -> holder. Entries live only while held: a scope (checkpointer)
# cannot be collected while a sorter holding one of its runs still refers to it.
_HELD: dict[tuple[int, str], LeaseHolder] = {}


class LocalRunLease(RunLease):
    """Holders in process memory, shared by every lease on the same `scope`.

    Used for runs kept in memory and for custom checkpointers: two sorters (or two tasks)
    of this process on one run of the same checkpointer are kept apart. Other processes are
    not seen: a checkpointer that several processes share gets no protection from it.

    Args:
        scope: What the runs live in (the checkpointer object).
        ttl: As in `RunLease`.

    Example:
        >>> import asyncio
        >>> lease = LocalRunLease(scope=object())
        >>> async def twice():
        ...     async with lease.hold("run-1"):
        ...         async with lease.hold("run-1"):
        ...             pass
        >>> asyncio.run(twice())
        Traceback (most recent call last):
        ...
        llm_qualitative_sort.errors.RunLockedError: run 'run-1' is held by another process: ...
    """

    def __init__(self, scope: object, ttl: float | None = None) -> None:
        super().__init__(ttl)
        self._scope = id(scope)

    async def acquire(self, me: LeaseHolder) -> LeaseHolder | None:
        """Take the run unless a live holder has it."""
        key = (self._scope, me.run_id)
        current = _HELD.get(key)
        if current is not None and not is_stale(current, time.time(), self.ttl):
            return current
        _HELD[key] = me
        return None

    async def renew(self, me: LeaseHolder) -> LeaseHolder | None:
        """Refresh the heartbeat while `me` holds the run; return the holder."""
        key = (self._scope, me.run_id)
        current = _HELD.get(key)
        if current is not None and current.token == me.token:
            current = _HELD[key] = dataclasses.replace(current, heartbeat=time.time())
        return current

    async def recorded(self, run_id: str) -> LeaseHolder | None:
        """The holder on record in this process."""
        return _HELD.get((self._scope, run_id))

    async def release(self, me: LeaseHolder) -> None:
        """Let the run go if `me` holds it."""
        key = (self._scope, me.run_id)
        if key in _HELD and _HELD[key].token == me.token:
            del _HELD[key]
