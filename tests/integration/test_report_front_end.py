"""A report written by the command line advises flags, not Python arguments."""

from __future__ import annotations

from pathlib import Path

from llm_qualitative_sort.cli import main


def test_reports_written_by_the_command_line_advise_its_flags(tmp_path: Path) -> None:
    items = tmp_path / "items.txt"
    items.write_text("".join(f"item {'x' * (i % 9)} {i}\n" for i in range(30)))
    store = str(tmp_path / "runs.sqlite3")
    # Two judges, one call each per match: they never share a prompt, and the report says
    # which setting would make them (four calls per match).
    assert main(["sort", str(items), "--criteria", "longer", "--run-id", "r", "--checkpoint",
                 store, "--progress", "none", "--judge", "mock", "--judge", "mock",
                 "--comparison-rounds", "2", "--out", str(tmp_path / "sort.html")]) == 0
    assert main(["report", "r", "--out", str(tmp_path / "later.html"), "--checkpoint",
                 store, "--lang", "ja"]) == 0
    for name in ("sort.html", "later.html"):
        page = (tmp_path / name).read_text(encoding="utf-8")
        assert "<code>--comparison-rounds 4</code>" in page
        assert "comparison_rounds=" not in page and "top_k=" not in page
