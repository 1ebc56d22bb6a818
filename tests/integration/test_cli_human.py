"""`sort --human FILE`: labels read by the input's ids, checked before any call, reported."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE, main
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.testing import MockLLMProvider

IDS = [f"e{i}" for i in range(12)]
LABELS = "a,b,winner\ne0,e11,B\ne3,e4,a\ne5,e9,tie\n"


def _files(tmp_path: Path, labels: str = LABELS, name: str = "human.csv") -> None:
    with (tmp_path / "items.jsonl").open("w", encoding="utf-8") as out:
        for i, ident in enumerate(IDS):
            out.write(json.dumps({"id": ident, "text": "essay" + " word" * (i + 1)}) + "\n")
    (tmp_path / name).write_text(labels, encoding="utf-8")


def _sort(tmp_path: Path, *args: str) -> int:
    return main(["sort", str(tmp_path / "items.jsonl"), "--id-field", "id", "--criteria",
                 "longer", "--seed", "1", "--progress", "none",
                 "--checkpoint", str(tmp_path / "runs.db"), *args])


def test_labels_by_id_are_checked_against_the_run_and_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    out = tmp_path / "r.json"
    assert _sort(tmp_path, "--human", str(tmp_path / "human.csv"), "--out", str(out)) == EXIT_OK
    err = capsys.readouterr().err
    assert "human verdicts, κ" in err and "anchored by people's labels" in err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["order"] == "anchored"
    assert report["human"]["agreement"]["pairs"] == 3
    assert report["human"]["labels"].startswith("sha256:")
    # The CSV report of the stored run carries the order and the agreement too.
    table = tmp_path / "r.csv"
    assert main(["report", "--checkpoint", str(tmp_path / "runs.db"),
                 _run_id(err), "--out", str(table)]) == EXIT_OK
    rows = list(csv.DictReader(table.read_text(encoding="utf-8").splitlines()))
    assert {r["order"] for r in rows} == {"anchored"} and rows[0]["human_kappa"] != ""


def _run_id(err: str) -> str:
    return err.split("run id ", 1)[1].split()[0]


def test_a_run_without_labels_says_so(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    assert _sort(tmp_path) == EXIT_OK
    assert "Not checked against people." in capsys.readouterr().err


def test_the_config_file_key_and_jsonl_labels(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    lines = [{"a": "e0", "b": "e11", "winner": "B"}, {"id": "e3", "score": 4}]
    _files(tmp_path, "\n".join(map(json.dumps, lines)) + "\n", "human.jsonl")
    config = tmp_path / "llm-qualitative-sort.toml"
    config.write_text(f'human = "{tmp_path / "human.jsonl"}"\nranking = "judge"\n',
                      encoding="utf-8")
    assert _sort(tmp_path, "--config", str(config)) == EXIT_OK
    assert "The ranking is the judge's own." in capsys.readouterr().err


@pytest.mark.parametrize(("labels", "message"), [
    ("a,b,winner\ne0,e11,B\ne3,e99,a\n", "human.csv', line 3: unknown item id 'e99'"),
    ("a,b,winner\ne4,e4,A\n", "line 2: an item against itself"),
    ("a,b,winner\ne0,e1,left\n", "line 2: winner 'left' is not 'A', 'B' or 'tie'"),
])
def test_a_bad_label_stops_before_any_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        labels: str, message: str) -> None:
    _files(tmp_path, labels)

    async def counted(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        raise AssertionError("no call may be made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", counted)
    assert _sort(tmp_path, "--human", str(tmp_path / "human.csv")) == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_the_dry_run_counts_the_labelled_pairs(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    assert _sort(tmp_path, "--human", str(tmp_path / "human.csv"), "--dry-run") == EXIT_OK
    assert "labelled pairs: 3, asked in both orders after the tournament: up to 6 LLM " \
        "calls" in capsys.readouterr().out
