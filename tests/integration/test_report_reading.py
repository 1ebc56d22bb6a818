"""The report as a reader meets it: judges by readable names, the same figures as the sort."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_qualitative_sort.cli import main


def _sort(tmp_path: Path, *extra: str) -> Path:
    items = tmp_path / "items.txt"
    items.write_text("".join(f"item {'x' * (i % 9)} {i}\n" for i in range(30)))
    store = tmp_path / "runs.sqlite3"
    assert main(["sort", str(items), "--criteria", "longer", "--run-id", "r", "--checkpoint",
                 str(store), "--progress", "none", *extra]) == 0
    return store


def test_the_report_command_gives_the_sorts_judge_and_elapsed_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = _sort(tmp_path, "--out", str(tmp_path / "sort.json"))
    assert main(["report", "r", "--out", str(tmp_path / "later.json"), "--checkpoint",
                 str(store)]) == 0
    first, later = (json.loads((tmp_path / name).read_text())["statistics"]
                    for name in ("sort.json", "later.json"))
    assert [j["judge"] for j in later["judges"]] == [j["judge"] for j in first["judges"]]
    assert later["elapsed_time"] == first["elapsed_time"]


def test_panel_judges_have_readable_names_in_a_table_that_scrolls(tmp_path: Path) -> None:
    _sort(tmp_path, "--judge", "mock", "--judge", "mock", "--comparison-rounds", "2",
          "--out", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()
    table = page[page.index('<table class="judges">'):]
    table = table[: table.index("</table>")]
    assert ">mock seed=" in table and ">MockLLMProvider:" not in table
    assert '<div class="scroll"><table class="judges">' in page
    assert "The plot shows the first 20 of the 30 items." in page
