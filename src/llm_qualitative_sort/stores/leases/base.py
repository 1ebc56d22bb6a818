"""`RunLease`: who may run a run now, and how long a silent holder keeps it.

A holder takes the lease before its first call, renews it with a heartbeat while it runs and
lets it go when the run call ends. A holder that died lets it go on its own: at once when a
process on the same machine sees that its pid is gone, after `ttl` seconds of silence
otherwise (another machine cannot see its processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import socket
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from pathlib import Path

from llm_qualitative_sort.errors import InputError, RunLockedError, StorageError
from llm_qualitative_sort.errors import LeaseStoreBusyError as LeaseStoreBusyError
from llm_qualitative_sort.stores.leases._fence import Fence as Fence
from llm_qualitative_sort.stores.leases._fence import taken_over_error
from llm_qualitative_sort.stores.leases.holder import LeaseHolder as LeaseHolder

DEFAULT_TTL = 60.0
# How often a waiting process asks again whether the run is free.
POLL_SECONDS = 0.25
# Tokens of the holds this process has now: its own stale rows (a release that failed on a
# full disk) must not lock it out of its runs.
_HOLDING: set[str] = set()


def _unknown(run_id: str) -> LeaseHolder:
    """The holder of a run whose store could not be read (locked): nothing is known."""
    return LeaseHolder(run_id, "unknown", 0, time.time(), time.time(), "", "")


def this_process(run_id: str) -> LeaseHolder:
    """A fresh hold of `run_id` by the running process."""
    now = time.time()
    return LeaseHolder(
        run_id, socket.gethostname(), os.getpid(), now, now, uuid.uuid4().hex, process_space()
    )


@functools.cache
def process_space() -> str:
    """The boot id and pid namespace of this process (Linux), or "" where unknown.

    Two containers may share a host name while each has its own pids: only a holder in the
    same space can be declared dead by its pid.
    """
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""
    return f"{boot}/{namespace}"


def is_stale(holder: LeaseHolder, now: float, ttl: float) -> bool:
    """Whether `holder` has let its run go: silent for more than `ttl` seconds, or dead.

    Death is only seen from the holder's own machine and pid namespace; the silence rule
    covers the rest (another machine, a pid reused after a crash).
    """
    if now - holder.heartbeat > ttl:
        return True
    if holder.host != socket.gethostname() or holder.space != process_space():
        return False
    if holder.pid == os.getpid():
        return holder.token not in _HOLDING
    return not _pid_alive(holder.pid)


def _pid_alive(pid: int) -> bool:
    if os.name == "nt":
        return True  # os.kill would terminate it: rely on the heartbeat alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


class RunLease(ABC):
    """Where holders of runs are kept, seen by every process that may run them.

    An implementation makes three steps atomic (`acquire`, `renew`, `release`); `hold`
    builds waiting, the heartbeat and letting go on top of them.

    Args:
        ttl: Seconds of silence after which a holder has lost its run (default
            `DEFAULT_TTL`, 60 s); a holder renews every `ttl / 3` seconds.
    """

    # Where the holders are kept, for messages (a path, a database without its password).
    where = "the lease store"

    def __init__(self, ttl: float | None = None) -> None:
        ttl = DEFAULT_TTL if ttl is None else ttl
        if not ttl > 0:
            raise InputError(f"ttl must be positive seconds, got {ttl!r}")
        self.ttl = ttl
        self._fences: dict[str, Fence] = {}

    def fence(self, me: LeaseHolder) -> Fence:
        """The fence of a hold taken by `hold` (shared with its heartbeat)."""
        return self._fences[me.token]

    @abstractmethod
    async def acquire(self, me: LeaseHolder) -> LeaseHolder | None:
        """Take `me.run_id` for `me` unless a live holder has it (see `is_stale`).

        Returns:
            None when `me` holds the run now, else the holder that keeps it.
        """

    @abstractmethod
    async def renew(self, me: LeaseHolder) -> LeaseHolder | None:
        """Refresh `me`'s heartbeat if it still holds the run.

        Returns:
            The run's holder afterwards (`me` refreshed, another, or None if nobody).
        """

    @abstractmethod
    async def release(self, me: LeaseHolder) -> None:
        """Let the run go, if `me` still holds it."""

    @abstractmethod
    async def recorded(self, run_id: str) -> LeaseHolder | None:
        """The holder on record for `run_id`, live or not, without taking anything."""

    async def live_holder(self, run_id: str) -> LeaseHolder | None:
        """The process holding `run_id` now, or None (a dead or silent holder is none)."""
        holder = await self.recorded(run_id)
        if holder is None or is_stale(holder, time.time(), self.ttl):
            return None
        return holder

    @contextlib.asynccontextmanager
    async def hold(self, run_id: str, *, wait: float | None = 0.0) -> AsyncIterator[LeaseHolder]:
        """Hold `run_id` for the length of the block.

        A holder that loses the run meanwhile (silent for longer than `ttl`, so another took
        it) has its task cancelled at once, and the block raises `RunLockedError`.

        Args:
            run_id: The run.
            wait: Seconds to wait for another holder to let go; None waits without limit.

        Raises:
            RunLockedError: Another process holds the run (after `wait`), or took it over.
        """
        fence = await self._take(run_id, wait)
        me = fence.me
        _HOLDING.add(me.token)
        self._fences[me.token] = fence
        task = asyncio.current_task()
        assert task is not None
        lost: list[LeaseHolder | None] = []
        beat = asyncio.create_task(self._beat(fence, task, lost))
        try:
            yield me
        except asyncio.CancelledError:
            if lost and task.uncancel() == 0:
                raise taken_over_error(me, lost[0], self.ttl, self.where) from None
            raise
        finally:
            _HOLDING.discard(me.token)
            self._fences.pop(me.token, None)
            beat.cancel()
            try:  # not `await beat`: a cancel of this task would go to it, and be swallowed
                await asyncio.wait({beat})
                if not beat.cancelled():
                    beat.result()  # a failure of the heartbeat itself is not hidden
            finally:
                if not lost:
                    await self._let_go(me)

    async def _take(self, run_id: str, wait: float | None) -> Fence:
        deadline = None if wait is None else time.monotonic() + wait
        while True:
            me = this_process(run_id)
            sent = time.monotonic()
            try:
                holder = await self.acquire(me)
            except LeaseStoreBusyError as exc:
                # Another process is inside a write (a start racing this one, or a holder
                # suspended mid-commit): the run may be free, so wait as for a holder.
                if deadline is not None and time.monotonic() >= deadline:
                    raise RunLockedError(f"run {run_id!r}: {exc}; wait with "
                                         "QualitativeSorter(wait_for_run=SECONDS)",
                                         run_id=run_id, holder=_unknown(run_id)) from exc
                await asyncio.sleep(POLL_SECONDS)
                continue
            if holder is None:
                return Fence(me, self.ttl, sent)
            if deadline is not None and time.monotonic() >= deadline:
                raise RunLockedError(
                    f"run {run_id!r} is held by another process: {holder.describe()}; "
                    "wait for it with QualitativeSorter(wait_for_run=SECONDS), or continue "
                    "the run once that process has ended",
                    run_id=run_id,
                    holder=holder,
                )
            await asyncio.sleep(POLL_SECONDS)

    async def _beat(
        self, fence: Fence, task: asyncio.Task[object], lost: list[LeaseHolder | None]
    ) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            sent = time.monotonic()
            try:
                holder = await self.renew(fence.me)
            except StorageError:
                # A failing disk stops the run through the journal; a missed heartbeat only
                # matters after `ttl`, by when the next one may have got through.
                continue
            if not fence.renewed(sent, holder):
                lost.append(holder)
                task.cancel()
                return

    async def _let_go(self, me: LeaseHolder) -> None:
        try:
            await self.release(me)
        except StorageError:
            # The run ends anyway; its lease lapses when this process exits (same machine)
            # or after `ttl` (elsewhere). Raising here would hide why the run ended.
            pass
