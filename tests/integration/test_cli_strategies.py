"""The command line with the Swiss strategy, the dry run per strategy, and held runs."""

from __future__ import annotations

import json
from pathlib import Path

from _suite import cli as _call
from _suite import items_file
from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE

ITEMS = [str(n) for n in range(0, 300, 10)]  # 30 items


def _items(tmp_path: Path) -> str:
    return items_file(tmp_path, ITEMS)


def test_swiss_from_the_command_line_is_kept_and_listed(tmp_path, capsys) -> None:
    db = str(tmp_path / "runs.db")
    code, out, _ = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--strategy", "swiss", "--comparison-rounds", "1", "--top-k", "3",
                         "--budget", "90", "--checkpoint", db, "--run-id", "sw",
                         "--progress", "none", "--out", str(tmp_path / "r.json"))
    assert code == EXIT_OK
    assert out.splitlines()[0].split()[-1] in {"290", "280"}
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["settings"]["strategy"] == "swiss" and report["settings"]["top_k"] == 3
    assert sum(len(m["rounds"]) for m in report["match_history"]) == 90
    code, out, _ = _call(capsys, "runs", "list", "--checkpoint", db)
    assert "swiss K=1 budget=90 top_k=3" in out and "finished" in out


def test_the_summary_counts_one_match_and_one_call_in_the_singular(tmp_path, capsys) -> None:
    code, _, err = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--strategy", "swiss", "--budget", "1", "--progress", "none",
                         "--checkpoint", str(tmp_path / "runs.db"))
    assert code == EXIT_OK, err
    assert "1 match in 1 round, 1 LLM call (0 from cache)" in err


def test_the_dry_run_counts_calls_per_strategy(tmp_path, capsys) -> None:
    items = _items(tmp_path)
    code, out, _ = _call(capsys, "sort", items, "--criteria", "larger", "--dry-run")
    assert code == EXIT_OK and "LLM calls: 116 … 118" in out  # elimination: 2·(2n−2 … 2n−1)
    code, out, _ = _call(capsys, "sort", items, "--criteria", "larger", "--dry-run",
                         "--strategy", "swiss", "--comparison-rounds", "1")
    assert code == EXIT_OK and "LLM calls: 118 … 118" in out  # the default budget 2·(2n−1)
    code, out, _ = _call(capsys, "sort", items, "--criteria", "larger", "--dry-run",
                         "--strategy", "swiss", "--budget", "40", "--top-k", "5",
                         "--stop-when-settled")
    assert code == EXIT_OK and "LLM calls: 0 … 40" in out and "rounds: about" in out


def test_a_prepass_shows_in_the_dry_run_the_summary_the_reports_and_the_listing(
    tmp_path, capsys
) -> None:
    items, db = _items(tmp_path), str(tmp_path / "runs.db")
    flags = ["--strategy", "swiss", "--comparison-rounds", "2", "--prepass", "pointwise",
             "--budget", "90"]
    code, out, _ = _call(capsys, "sort", items, "--criteria", "larger", "--dry-run", *flags)
    assert code == EXIT_OK and "pre-pass: 30 LLM calls" in out
    # 30 calls score the texts, 60 play 30 matches of two calls.
    assert "matches: 30 … 30" in out and "LLM calls: 90 … 90" in out
    code, out, err = _call(capsys, "sort", items, "--criteria", "larger", *flags,
                           "--checkpoint", db, "--run-id", "pp", "--progress", "none",
                           "--out", str(tmp_path / "r.json"))
    assert code == EXIT_OK, err
    assert "pre-pass: 30 texts scored alone (30 scored), then 30 Swiss matches (60 calls)" in err
    # The summary counts matches as the dry run does: a text scored alone is not one.
    assert "30 texts scored alone and 30 matches in " in err and "90 LLM calls" in err
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["settings"]["prepass"] == "pointwise"
    assert report["phases"] == {"prepass": {"texts": 30, "calls": 30, "scored": 30},
                                "swiss": {"matches": 30, "calls": 60}}
    code, out, _ = _call(capsys, "runs", "list", "--checkpoint", db)
    assert "prepass=pointwise" in out
    code, _, err = _call(capsys, "sort", items, "--criteria", "larger", "--strategy", "swiss",
                         "--prepass", "pointwise", "--budget", "30", "--checkpoint", db)
    assert code == EXIT_USAGE and "pre-pass" in err


def test_swiss_settings_are_checked_before_any_call(tmp_path, capsys) -> None:
    items = _items(tmp_path)
    code, _, err = _call(capsys, "sort", items, "--criteria", "larger", "--budget", "50")
    assert code == EXIT_USAGE and "budget applies to strategy='swiss' only" in err
    code, _, err = _call(capsys, "sort", items, "--criteria", "larger", "--strategy", "swiss",
                         "--top-k", "30", "--dry-run")
    assert code == EXIT_USAGE and "top_k must be smaller than the number of items" in err
