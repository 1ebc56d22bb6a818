"""A PostgreSQL holder suspended past its lease's TTL and woken after another took over.

The lease renewal there is an awaited round trip: the woken holder must not refill its
freed request slots (paid calls) or journal anything before it learns it lost the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from woken_holder import Scenario  # noqa: E402


@pytest.mark.parametrize("schedule", ["pipelined", "rounds"])
def test_a_woken_ex_holder_writes_nothing_starts_no_call_and_the_resume_is_sound(
    tmp_path: Path, postgres_dsn: str, schedule: str
) -> None:
    outcome = Scenario(tmp_path, postgres_dsn, schedule=schedule).run()
    assert outcome.journal_rows_after_wake == 0
    assert outcome.calls_after_wake == 0
    assert outcome.a_exit == 3 and "was taken over by pid" in outcome.a_message
    assert outcome.failures() == []
