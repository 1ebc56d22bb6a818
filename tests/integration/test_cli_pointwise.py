"""The command line with the pointwise strategy: flags, dry run, reports, resume."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from _suite import cli as _call
from _suite import items_file
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from llm_qualitative_sort.providers import MockLLMProvider
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale

ITEMS = [str(n) for n in range(0, 200, 10)]  # 20 items


def _items(tmp_path: Path) -> str:
    return items_file(tmp_path, ITEMS)


def test_the_dry_run_counts_texts_times_repetitions(tmp_path: Path, capsys: Any) -> None:
    code, out, _ = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--strategy", "pointwise", "--repetitions", "3", "--dry-run")
    assert code == EXIT_OK
    assert "LLM calls: 60 (20 texts × 3 repetitions" in out and "matches" not in out


def test_the_dry_runs_tokens_per_call_count_one_text_for_a_pointwise_call(
        tmp_path: Path, capsys: Any) -> None:
    long = items_file(tmp_path, [f"{n} " + "word " * 400 for n in range(10)])

    def tokens(*flags: str) -> int:
        code, out, _ = _call(capsys, "sort", long, "--criteria", "larger", "--dry-run", *flags)
        assert code == EXIT_OK
        line = next(x for x in out.splitlines() if x.startswith("tokens per call: about "))
        return int(line.split()[4])

    pairwise, alone = tokens(), tokens("--strategy", "pointwise")
    # Two texts of ~2,000 characters against one: about 500 tokens apart.
    assert 400 < pairwise - alone < 600


def test_a_pointwise_run_shows_scores_and_writes_its_reports(tmp_path: Path,
                                                             capsys: Any) -> None:
    db = str(tmp_path / "runs.db")
    scale = tmp_path / "scale.json"
    scale.write_text(json.dumps({"0": "none", "1": "some", "2": "all"}), encoding="utf-8")
    args = ["sort", _items(tmp_path), "--criteria", "larger", "--strategy", "pointwise",
            "--scale", str(scale), "--inverse", "--repetitions", "2", "--checkpoint", db,
            "--progress", "none", "--seed", "1"]
    code, out, err = _call(capsys, *args, "--run-id", "p", "--out", str(tmp_path / "r.json"))
    assert code == EXIT_OK, err
    first = out.splitlines()[0].split()
    assert float(first[1]) == 1.0 and int(first[-1]) >= 100  # rank, score, text
    assert "20 texts scored alone in 1 round, 40 LLM calls" in err
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["settings"]["strategy"] == "pointwise"
    assert report["settings"]["inverse"] is True
    labels = {entry["label"] for entry in report["pointwise"]["labels"]}
    assert labels <= {0, 1, 2}
    assert all(len(item["calls"]) == 2 and item["calls"][0]["reason"]
               for item in report["pointwise"]["items"])
    code, _, err = _call(capsys, *args, "--run-id", "q", "--out", str(tmp_path / "r.csv"))
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text("utf-8-sig"))))
    assert code == EXIT_OK and len(rows) == 20 and rows[0]["reason"] and "p_label_2" in rows[0]
    assert "wins" not in rows[0] and "losses" not in rows[0]  # it plays no match
    code, _, _ = _call(capsys, *args, "--run-id", "h", "--out", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text("utf-8")
    assert code == EXIT_OK and "Labels given" in page
    assert "how far each text is from meeting" in page
    code, out, _ = _call(capsys, "runs", "list", "--checkpoint", db)
    assert "pointwise scale=0-2 repetitions=2 inverse" in out
    code, out, _ = _call(capsys, "runs", "show", "p", "--checkpoint", db)
    assert "0 (none), 1 (some), 2 (all)" in out


def test_bad_pointwise_flags_stop_before_any_call(tmp_path: Path, capsys: Any) -> None:
    items = _items(tmp_path)
    for flags, message in (
            (["--scale", "1-12"], "single digits"),
            (["--scale", "5-1"], "error: scale needs LOW < HIGH, got '5-1'"),
            (["--repetitions", "0"], "repetitions must be >= 1"),
            (["--comparison-rounds", "2"],
             "comparison_rounds applies to strategy='elimination' or strategy='swiss' only"),
            # Options of comparisons that a run scoring texts alone would silently ignore.
            (["--ties"], "ties=True applies to comparisons"),
            (["--verdicts", "soft"], "verdicts='soft' applies to the Bradley-Terry fit")):
        code, _, err = _call(capsys, "sort", items, "--criteria", "larger", "--strategy",
                             "pointwise", "--checkpoint", str(tmp_path / "runs.db"), *flags)
        assert code == EXIT_USAGE and message in err, (flags, err)
        assert "started" not in err


def test_a_stopped_pointwise_run_resumes_from_the_command_line(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    original = MockLLMProvider.score_call
    answered: list[str] = []

    async def stops_after_seven(self: MockLLMProvider, text: str, criteria: str, *,
                                scale: Scale, inverse: bool = False,
                                repetition: int = 0) -> PointwiseResult:
        if len(answered) >= 7:
            from llm_qualitative_sort import PermanentProviderError
            raise PermanentProviderError("out of credit")
        answered.append(text)
        return await original(self, text, criteria, scale=scale, inverse=inverse,
                              repetition=repetition)

    db = str(tmp_path / "runs.db")
    monkeypatch.setattr(MockLLMProvider, "score_call", stops_after_seven)
    code, _, err = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--strategy", "pointwise", "--checkpoint", db, "--run-id", "s",
                         "--progress", "none", "--concurrency", "1")
    assert code == EXIT_STOPPED and "out of credit" in err
    monkeypatch.setattr(MockLLMProvider, "score_call", original)
    code, out, err = _call(capsys, "sort", "--resume", "s", "--checkpoint", db,
                           "--progress", "none")
    assert code == EXIT_OK, err
    assert "13 paid now, 7 before" in err and len(out.splitlines()) == 20


def test_progress_lines_count_texts_scored_alone_not_matches(tmp_path: Path,
                                                             capsys: Any) -> None:
    common = ["sort", _items(tmp_path), "--criteria", "larger", "--progress", "lines",
              "--checkpoint", str(tmp_path / "runs.db")]
    code, _, err = _call(capsys, *common, "--strategy", "pointwise")
    assert code == EXIT_OK, err
    assert "round 1: 20 texts scored alone (20/20 texts; " in err and "matches" not in err
    code, _, err = _call(capsys, *common, "--strategy", "swiss", "--prepass", "pointwise",
                         "--budget", "40")
    assert code == EXIT_OK, err
    lines = [line for line in err.splitlines() if line.startswith("round ")]
    # The pre-pass: its texts and the Swiss matches that follow count together as judgements.
    assert lines[0].startswith("round 1: 20 texts scored alone (20/40 judgements; ")
    assert lines[1].startswith("round 2: 10 matches (30/40 judgements; ")
    assert lines[1].startswith("round 2: 10 matches (")  # Swiss from the scores


def test_the_bar_of_a_pointwise_run_counts_texts(tmp_path: Path, capsys: Any) -> None:
    common = ["sort", _items(tmp_path), "--criteria", "larger", "--progress", "bar",
              "--checkpoint", str(tmp_path / "runs.db")]
    code, _, err = _call(capsys, *common, "--strategy", "pointwise")
    assert code == EXIT_OK, err
    assert "20/20" in err and "text/s" in err and "match/s" not in err
    code, _, err = _call(capsys, *common, "--strategy", "swiss", "--budget", "40")
    assert code == EXIT_OK and "match/s" in err


def test_a_pointwise_runs_report_refuses_a_ranking_by_matches(tmp_path: Path,
                                                              capsys: Any) -> None:
    db = str(tmp_path / "runs.db")
    code, _, err = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--strategy", "pointwise", "--checkpoint", db, "--run-id", "p",
                         "--progress", "none")
    assert code == EXIT_OK, err
    for ranking in ("wins", "bradley_terry"):
        out = tmp_path / f"{ranking}.html"
        code, _, err = _call(capsys, "report", "p", "--out", str(out), "--ranking", ranking,
                             "--checkpoint", db)
        assert code == EXIT_USAGE and "is ranked by its scores" in err and not out.exists()
    code, _, _ = _call(capsys, "report", "p", "--out", str(tmp_path / "r.html"),
                       "--checkpoint", db)
    assert code == EXIT_OK


def test_repetitions_count_texts_not_calls_in_the_progress_and_runs_show(
        tmp_path: Path, capsys: Any) -> None:
    db = str(tmp_path / "runs.db")
    common = ["sort", _items(tmp_path), "--criteria", "larger", "--progress", "lines",
              "--checkpoint", db]
    code, _, err = _call(capsys, *common, "--strategy", "pointwise", "--repetitions", "2",
                         "--run-id", "p")
    assert code == EXIT_OK, err
    assert "round 1: 20 texts scored alone, 2 calls each (20/20 texts; 40 calls" in err
    assert "40 texts" not in err
    code, out, _ = _call(capsys, "runs", "show", "p", "--checkpoint", db)
    assert code == EXIT_OK
    rows = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    assert rows["scored alone"].strip() == "20 texts (40 calls)" and "matches" not in rows
    code, _, err = _call(capsys, *common, "--strategy", "swiss", "--prepass", "pointwise",
                         "--budget", "40", "--run-id", "s")
    assert code == EXIT_OK, err
    code, out, _ = _call(capsys, "runs", "show", "s", "--checkpoint", db)
    rows = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    assert rows["scored alone"].strip() == "20 texts" and rows["matches"].strip() == "20"


def test_a_long_round_says_how_far_it_got(tmp_path: Path, capsys: Any,
                                          monkeypatch: Any) -> None:
    from llm_qualitative_sort.cli import _progress

    monkeypatch.setattr(_progress, "ROUND_NOTE_SECONDS", 0.0)  # as if every call took long
    code, _, err = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--progress", "lines", "--strategy", "pointwise", "--repetitions", "2",
                         "--checkpoint", str(tmp_path / "runs.db"))
    assert code == EXIT_OK, err
    lines = err.splitlines()
    assert lines[0].startswith("run ") and " started (20 items" in lines[0]
    assert lines[1].startswith("round 1: 0/20 texts so far (1 call")
    assert lines[40].startswith("round 1: 20/20 texts so far (40 calls")
    assert lines[41].startswith("round 1: 20 texts scored alone, 2 calls each")


def test_the_bar_starts_below_the_line_that_names_the_run(tmp_path: Path,
                                                          capsys: Any) -> None:
    code, _, err = _call(capsys, "sort", _items(tmp_path), "--criteria", "larger",
                         "--progress", "bar", "--strategy", "pointwise", "--repetitions", "2",
                         "--checkpoint", str(tmp_path / "runs.db"))
    assert code == EXIT_OK, err
    assert err.startswith("run ") and "20/20" in err and "40/40" not in err
