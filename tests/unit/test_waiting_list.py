"""Every entry of the waiting tests' list (`tests/_waiting.py`) still names a test."""

from __future__ import annotations

import re
from pathlib import Path

from _waiting import WAITING, waits

ROOT = Path(__file__).parents[2]


def test_every_entry_names_a_test_file_and_a_test_in_it() -> None:
    for entry in WAITING:
        path, _, name = entry.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(r"^def test_|^async def test_", source, re.M), entry
        if name:
            assert re.search(rf"^(async )?def {re.escape(name.rstrip('['))}\(", source,
                             re.M), f"{entry}: no such test"


def test_a_file_entry_takes_its_tests_and_a_test_entry_its_parameters_only() -> None:
    assert waits("tests/integration/test_lease_busy.py::test_anything")
    assert not waits("tests/integration/test_lease_busy_other.py::test_anything")
    rides = ("tests/integration/providers/test_sort.py::"
             "test_sort_rides_out_rate_limits_outages_timeouts_and_bad_json")
    assert waits(rides + "[openai]")
    assert not waits("tests/integration/providers/test_sort.py::test_bad_key[openai]")
