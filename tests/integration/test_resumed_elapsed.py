"""A resumed run's elapsed time is the run's total, the same in the summary and every report."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import MockLLMProvider, PermanentProviderError
from llm_qualitative_sort.cli import main
from llm_qualitative_sort.cli._inventory import RunInventory


def _stored(store: Path) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        async with RunInventory.open(store) as runs:
            summary = await runs.summary("r")
            assert summary is not None
            return dict(summary.settings)
    return asyncio.run(read())


def _store_elapsed(store: Path, seconds: float) -> None:
    async def write() -> None:
        async with RunInventory.open(store) as runs:
            summary = await runs.summary("r")
            assert summary is not None
            await runs.catalog.put("r", {**summary.settings, "elapsed_time": seconds},
                                   list(summary.ids))
    asyncio.run(write())


def test_a_resumed_run_states_its_total_time_in_summary_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    items = tmp_path / "items.txt"
    items.write_text("".join(f"item {i}\n" for i in range(16)))
    store = tmp_path / "runs.sqlite3"
    common = ["--checkpoint", str(store), "--progress", "none", "--concurrency", "1"]
    original = MockLLMProvider.compare_call
    calls = 0

    async def out_of_credit(self: MockLLMProvider, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > 20:
            raise PermanentProviderError("out of credit")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", out_of_credit)
    assert main(["sort", str(items), "--criteria", "c", "--run-id", "r", *common]) != 0
    # The stopped process kept the time it worked on the run.
    assert _stored(store)["elapsed_time"] > 0
    monkeypatch.setattr(MockLLMProvider, "compare_call", original)
    # As if the first process had worked 1000 s: the resume adds its own time to them.
    _store_elapsed(store, 1000.0)
    capsys.readouterr()
    assert main(["sort", "--resume", "r", "--out", str(tmp_path / "resumed.json"),
                 *common]) == 0
    summary = capsys.readouterr().err
    assert main(["report", "r", "--out", str(tmp_path / "later.json"), "--checkpoint",
                 str(store)]) == 0
    resumed, later = (json.loads((tmp_path / name).read_text())["statistics"]["elapsed_time"]
                      for name in ("resumed.json", "later.json"))
    assert resumed >= 1000.0 and later == resumed == _stored(store)["elapsed_time"]
    shown = re.search(r"LLM calls .*, ([0-9.]+) s$", summary, re.MULTILINE)
    assert shown is not None and shown.group(1) == f"{resumed:.1f}"
