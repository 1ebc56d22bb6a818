"""A holder suspended past its lease's TTL and woken after another took the run over.

Before any journal write, pairing or paid call, a holder confirms its lease: at no cost
while the fence's deadline lies ahead, with one commit past it (a woken process is past it
at once). See `woken_holder` for the scenario.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from woken_holder import Scenario


@pytest.mark.parametrize("schedule", ["pipelined", "rounds"])
def test_a_woken_ex_holder_writes_nothing_starts_no_call_and_the_resume_is_sound(
    tmp_path: Path, schedule: str,
) -> None:
    outcome = Scenario(tmp_path, str(tmp_path / "runs.sqlite3"), schedule=schedule).run()
    assert outcome.journal_rows_after_wake == 0
    assert outcome.calls_after_wake == 0
    assert outcome.a_exit == 3 and "was taken over by pid" in outcome.a_message
    assert outcome.failures() == []
