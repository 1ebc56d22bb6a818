"""Calls a damaged run lost: read back as failed calls, never as missing ones.

Earlier versions left a call whose provider raised a stray `CancelledError` out of its
match's log (a `None` where the call belongs), and every later ranking failed on it, so the
run could never finish. Such a stored call is read as a failed call (no verdict, no tokens):
the run finishes, and the loss stays visible in `failed_calls`. New runs never store one.
"""

from __future__ import annotations

from typing import Any

LOST_REASON = "no answer: the call was lost (a stray CancelledError); counted as a failed call"


def stored_calls(calls: list[Any]) -> list[Any]:
    """A match's stored call logs, each lost call (`None`) replaced by a failed call.

    Example:
        >>> stored_calls([["AB", "A", "", False, 1, 1], None])[1][:2]
        ['BA', None]
    """
    if None not in calls:
        return calls
    # Orders alternate AB, BA within a match (see `tournament.presentation_orders`).
    return [call if call is not None else ["AB" if number % 2 == 0 else "BA", None,
                                           LOST_REASON, False, 0, 0]
            for number, call in enumerate(calls)]
