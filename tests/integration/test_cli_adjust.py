"""`sort --adjust length|FIELD`: the adjusted order beside the ranking in the reports."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE, main

TEXTS = ["a short one", "a somewhat longer text", "an even longer text than that one",
         "the longest text of them all, by a long way, with words to spare"]


def _input(tmp_path: Path, levels: list[object]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"text": t, "level": level}) + "\n"
                            for t, level in zip(TEXTS, levels, strict=True)), encoding="utf-8")
    return path


def _sort(tmp_path: Path, source: Path, *args: str) -> int:
    return main(["sort", str(source), "--field", "text", "--criteria", "longer", "--seed",
                 "1", "--progress", "none", "--checkpoint", str(tmp_path / "runs.db"), *args])


def test_adjust_length_and_a_field_add_the_adjusted_order_to_the_reports(
        tmp_path: Path) -> None:
    source = _input(tmp_path, [3, 1, 4, 2])
    out = tmp_path / "report.json"
    assert _sort(tmp_path, source, "--adjust", "length", "--adjust", "level",
                 "--out", str(out)) == EXIT_OK
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["adjusted"]["covariates"] == ["length", "level"]
    assert sorted(row["item"] for row in data["adjusted"]["standings"]) == sorted(TEXTS)
    assert _sort(tmp_path, source, "--adjust", "length", "--out",
                 str(tmp_path / "report.csv"), "--run-id", "again") == EXIT_OK
    with (tmp_path / "report.csv").open(encoding="utf-8") as handle:
        assert "adjusted_score" in next(csv.reader(handle))


def test_a_field_that_is_no_number_is_refused_before_any_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _input(tmp_path, [3, "hard", 4, 2])
    assert _sort(tmp_path, source, "--adjust", "level") == EXIT_USAGE
    assert "'level' is 'hard', not a finite number" in capsys.readouterr().err
