"""A report written by the command line advises flags, not Python arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_report_takes_the_runs_own_language_and_bom_and_its_help_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = tmp_path / "items.txt"
    items.write_text("".join(f"item {'x' * i}\n" for i in range(6)))
    store = str(tmp_path / "runs.sqlite3")
    assert main(["sort", str(items), "--criteria", "longer", "--run-id", "r", "--checkpoint",
                 store, "--progress", "none", "--lang", "ja", "--no-excel"]) == 0
    for name in ("later.html", "later.csv"):
        assert main(["report", "r", "--out", str(tmp_path / name), "--checkpoint", store]) == 0
    assert "統計" in (tmp_path / "later.html").read_text(encoding="utf-8")  # the run's --lang
    assert not (tmp_path / "later.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "(default: the run's own --lang, else English;" in shown
    assert "(default: the run's own --excel/--no-excel, else on)" in shown
