"""The tests that spend most of their time waiting, and the worker they share.

These wait on a clock, a lock or a timeout (a rate limit's pace, a lease's time to live, a
provider answering slowly) for a second or more while using little CPU. Three workers share
two cores, so one worker may wait while the other two compute; when several of these ran at
once, as neighbours in a file do, a core sat idle for seconds. The root `conftest.py` hands
them all to one worker, one after another, and the rest of the suite to whichever worker is
free (`tests/unit/test_waiting_list.py` checks that every entry still names a test).

Entries are node-id prefixes: a whole file, or a test with all its parameters.
"""

from __future__ import annotations

WAITING = (
    "tests/integration/providers/test_rate_limits.py::",
    "tests/integration/providers/test_rate_waits.py::",
    "tests/integration/test_lease_busy.py::",
    "tests/unit/test_sqlite_start_race.py::",
    "tests/integration/providers/test_sort.py::"
    "test_sort_rides_out_rate_limits_outages_timeouts_and_bad_json[",
    "tests/integration/providers/test_cli_providers.py::"
    "test_the_cli_judges_with_a_real_client_and_shows_tokens_cost_and_retries[",
    "tests/integration/providers/test_event_loops.py::test_requests_per_second_spaces_the_calls",
    "tests/integration/providers/test_failures.py::test_slow_answer_times_out_as_transient[",
    "tests/integration/test_progress.py::test_a_slow_consumer_does_not_hold_up_the_run",
    "tests/integration/test_progress.py::test_closing_the_stream_early_cancels_the_run",
    "tests/unit/test_leases.py::test_waiting_takes_the_run_once_the_holder_lets_go",
    "tests/unit/test_leases.py::test_waiting_has_a_limit",
    "tests/unit/test_leases.py::test_foreign_holder_keeps_the_run_until_its_ttl_runs_out",
)


def waits(nodeid: str) -> bool:
    """Whether the test `nodeid` is one of the waiting tests."""
    return nodeid.startswith(WAITING)
