"""Everything under tests/system is marked `system`: these tests start and kill processes, boot
`langgraph dev`, drive Chromium, serve a real model, need PostgreSQL or fill a disk.

`python -m pytest -m "not system"` leaves them out (the quick inner loop)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.system)
