"""A hold's fence, and the error that ends a hold another process took over.

`Fence` is what a holder knows of its hold between two round trips to the lease store; the
journals check it before each write (see `Journal.check`). `taken_over_error` words the
`RunLockedError` of a holder that lost its run, whether to another process or to nobody.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from llm_qualitative_sort.errors import RunLockedError
from llm_qualitative_sort.stores.leases.holder import LeaseHolder


@dataclass(slots=True)
class Fence:
    """What a holder knows of its hold between two round trips to the store.

    The hold is sure until `deadline`: nobody can take the run before the holder's last
    confirmed heartbeat is `ttl` seconds old, and `confirmed` is read on the monotonic clock
    before that heartbeat was sent. A process that was suspended wakes with that clock
    advanced, so it sees at once, without a round trip, that it must ask the store again
    before its next journal write, pairing or paid call (see `Journal.check`).

    Attributes:
        me: The hold.
        ttl: The lease's time-to-live (seconds).
        confirmed: `time.monotonic()` before the last heartbeat the store accepted.
        lost: The store said another process (or nobody) holds the run now.
    """

    me: LeaseHolder
    ttl: float
    confirmed: float = field(default_factory=time.monotonic)
    lost: bool = False

    @property
    def deadline(self) -> float:
        """Until when (monotonic) the hold needs no round trip.

        A third of `ttl` is kept as margin for clock steps and a late heartbeat (it renews
        every `ttl / 3`).
        """
        return self.confirmed + self.ttl * 2 / 3

    def due(self) -> bool:
        """Whether the hold must be confirmed with the store before going on."""
        return self.lost or time.monotonic() >= self.deadline

    def renewed(self, sent: float, holder: LeaseHolder | None) -> bool:
        """Take in a renewal sent at `sent` (monotonic) that found `holder`; still held?"""
        if holder is not None and holder.token == self.me.token:
            self.confirmed = max(self.confirmed, sent)
        else:
            self.lost = True
        return not self.lost

    def taken_over(self, holder: LeaseHolder | None, where: str = "") -> RunLockedError:
        """The error that stops this holder (see `taken_over_error`)."""
        self.lost = True
        return taken_over_error(self.me, holder, self.ttl, where)


def taken_over_error(
    me: LeaseHolder, holder: LeaseHolder | None, ttl: float, where: str = ""
) -> RunLockedError:
    if holder is None:
        # Nobody took the run: its lease row went (the journal file deleted or replaced, the
        # row deleted by hand). Not a silence: say so, and stop before another process runs
        # it from the new, empty record.
        return RunLockedError(
            f"run {me.run_id!r} lost its lease: its record is gone from "
            f"{where or 'the lease store'} (was the run journal deleted, moved or replaced "
            "while the run was going?); this process stopped before its next call so that "
            "no other process drives the run at the same time",
            run_id=me.run_id,
            holder=me,
        )
    return RunLockedError(
        f"run {me.run_id!r} was taken over by {holder.describe()}: this process was silent "
        f"for more than {ttl:g} s (a blocked or suspended process) and stopped before its "
        "next call",
        run_id=me.run_id,
        holder=holder,
    )
