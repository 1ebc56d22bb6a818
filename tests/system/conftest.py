"""Everything under tests/system is marked `system`: these tests start and kill processes, boot
`langgraph dev`, drive Chromium, serve a real model, need PostgreSQL or fill a disk.

`python -m pytest -m "not system"` leaves them out (the quick inner loop)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def _start_order(item: pytest.Item) -> int:
    """Longest first: xdist hands tests out in this order, so the local model's tests and the
    process tests start first, and the many short tests fill the workers' gaps at the end
    instead of waiting for them."""
    if HERE not in item.path.parents:
        return 2
    return 0 if "local_model" in item.path.name else 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.system)
    items.sort(key=_start_order)  # stable: each file keeps its order
