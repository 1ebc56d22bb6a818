"""What both run journals share: group commits on the event loop, the fence, the failure.

A journal records calls in memory and schedules one flush per turn of the event loop; the
flush commits every pending row in one transaction (`_commit`, the store's own), which also
renews the fenced lease. A failed commit keeps its rows pending: `check` tries once more
and raises before the next paid call.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod

from llm_qualitative_sort.errors import StorageError
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import Answer, CallPlace
from llm_qualitative_sort.stores.leases._fence import Fence
from llm_qualitative_sort.stores.leases.base import LeaseHolder

# Renewals `confirm` sends before it gives up on a hold whose renewals all come back past
# the fence's deadline: two suspensions in a row are rare, three a store too slow to hold.
_RENEWALS = 3


class GroupCommitJournal(ABC):
    """The commit cycle of a run journal; subclasses keep the rows and write them."""

    def __init__(self) -> None:
        self._scheduled = False
        self._failure: Exception | None = None
        self._fence: Fence | None = None
        self._holder: LeaseHolder | None = None  # who took the run, once the fence fell
        # New runs' inputs until their saver has saved them, by run (several runs may share
        # a journal: an in-memory store's).
        self._inputs: dict[str, asyncio.Future[None]] = {}

    @property
    @abstractmethod
    def _named(self) -> str:
        """The journal's file or database, as messages name it (never a password)."""

    @property
    def _writes(self) -> bool:
        """Whether rows are written anywhere (an in-memory journal writes none)."""
        return True

    @abstractmethod
    def _has_pending(self) -> bool:
        """Whether rows wait to be committed."""

    @abstractmethod
    def _commit(self) -> None:
        """Commit what is pending in one transaction, if the fence holds (see `fence`).

        Sets `_failure` (and keeps the rows pending) when the write fails, clears it when
        it succeeds.
        """

    @abstractmethod
    def _unwritable(self, failure: Exception) -> str:
        """Why the journal cannot be written, and what to do."""

    @abstractmethod
    def entry(self, place: CallPlace) -> Answer | None:
        """The journaled answer, whether it came from the user's cache, and its facts."""

    def fence(self, fence: Fence) -> None:
        """Write for `fence`'s run only while this process holds it.

        Each commit renews the lease row in its own transaction and writes nothing once
        another process took the run; `confirm` asks again once the fence's deadline has
        passed.
        """
        if self._writes:
            self._fence = fence

    def confirm(self) -> None:
        """Raise `RunLockedError` if this process no longer holds its run.

        Free while the fence's deadline lies ahead; past it (a suspended process wakes
        past it at once), a commit renews the lease or finds it taken.

        Raises:
            RunLockedError: Another process took the run, or its lease record is gone.
            StorageError: Renewals keep coming back too late to confirm the hold.
        """
        fence = self._fence
        if fence is None or not fence.due():
            return
        for _ in range(_RENEWALS):
            if fence.lost:
                break
            self._commit()
            # A renewal vouches for the hold only from when it was sent: one answered past
            # the deadline (the process was suspended, or the server stalled, while the
            # answer was on its way) says nothing of now, as another process may have
            # taken the run meanwhile. So the hold is asked again.
            if self._failure is not None or not fence.due():
                break
        if fence.lost:
            raise fence.taken_over(self._holder, self._named)
        if self._failure is None and fence.due():
            raise StorageError(
                f"{self._named} answered {_RENEWALS} renewals in a row of the lease of run "
                f"{fence.me.run_id!r} more than {fence.ttl * 2 / 3:g} s after they were "
                "sent (two thirds of the lease's ttl): this process cannot be sure it still "
                "holds the run and stopped before its next call; resume the run once the "
                "store answers promptly")

    def get(self, place: CallPlace) -> tuple[CallAnswer, bool] | None:
        """The journaled answer and whether it came from the user's cache, or None."""
        found = self.entry(place)
        return None if found is None else found[:2]

    def flush(self) -> None:
        """Commit the rows recorded and not yet written.

        Never raises: it runs as an event-loop callback, where an exception would only be
        logged and its rows dropped. A failed write keeps the rows pending for the next
        flush and is raised by `check`.
        """
        self._scheduled = False
        if self._writes and self._has_pending():
            self._commit()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def expect_input(self, run_id: str) -> None:
        """A new run: its paid calls wait until its input is saved (see `input_saved`)."""
        self._inputs[run_id] = asyncio.get_running_loop().create_future()

    def input_written(self, run_id: str, failure: BaseException | None = None) -> None:
        """The run's saver saved a checkpoint of it (its input first), or failed to."""
        waiting = self._inputs.get(run_id)
        if waiting is None or waiting.done():
            return
        if failure is None:
            waiting.set_result(None)
            return
        said = str(failure) or type(failure).__name__
        waiting.set_exception(StorageError(
            f"the run's input could not be saved, so no call was paid for: {said}"))
        waiting.exception()  # raised to the calls that wait; unheard of if none does

    async def input_saved(self, run_id: str) -> None:
        """Wait until a new run's input is saved; raise `StorageError` if it could not be.

        LangGraph saves a new run's input while its first steps run: a process killed
        before that save has no run to resume. The judge waits here before each paid call
        and the batch runner before each batch, so every call paid for belongs to a run
        that can be resumed. Free once the input is saved.
        """
        waiting = self._inputs.get(run_id) if self._inputs else None
        if waiting is None:
            return
        if not waiting.done():
            await asyncio.shield(waiting)  # one call's cancel must not cancel the others' wait
        waiting.result()  # the save failed: raise it
        self._inputs.pop(run_id, None)

    def check(self) -> None:
        """Raise if finished calls cannot be written (after one more try).

        The judge calls it before each paid call: a journal that cannot keep answers must
        not buy more of them.

        Raises:
            StorageError: Naming the journal and the error (a full disk, a lost server).
            RunLockedError: This process no longer holds the run (see `confirm`).
        """
        self.confirm()
        if self._failure is not None:
            self.flush()
            self.confirm()  # that retry may be the one that finds the run taken
        failure = self._failure
        if failure is not None:
            raise StorageError(self._unwritable(failure)) from failure
