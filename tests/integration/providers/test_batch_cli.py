"""Batch mode from the command line: --batch, --detach then resume, the dry run, no key in files."""

from __future__ import annotations

import json
import shlex

import pytest
from _batch_setup import batch_server
from _setup import KEY, hidden_scores, make_items

from llm_qualitative_sort.cli import EXIT_DETACHED, EXIT_OK, EXIT_USAGE, main

ITEMS = make_items(8)
VARIABLE = {"openai": "OPENAI_API_KEY", "google": "GOOGLE_API_KEY"}


@pytest.fixture
def items_file(tmp_path):
    path = tmp_path / "items.jsonl"  # the texts hold line breaks
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in ITEMS), encoding="utf-8")
    return path


def sort_args(kind: str, url: str, tmp_path, items_file, *extra: str) -> list[str]:
    return ["sort", str(items_file), "--field", "text", "--criteria", "which essay argues better",
            "--seed", "2",
            "--provider", kind, "--base-url", url, "--checkpoint", str(tmp_path / "runs.sqlite3"),
            "--batch", "--batch-poll", "0.005", *extra]


def resume_command(err: str) -> list[str]:
    line = next(line for line in err.splitlines() if line.startswith("  llm-qualitative-sort"))
    return shlex.split(line)[1:]


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_detach_then_resume_until_the_ranking_is_printed(
    kind, tmp_path, items_file, capsys, monkeypatch
) -> None:
    monkeypatch.setenv(VARIABLE[kind], KEY)
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        code = main(sort_args(kind, url, tmp_path, items_file, "--detach", "--run-id", "cli"))
        out, err = capsys.readouterr()
        assert code == EXIT_DETACHED and not out
        assert "detached: round 1 is waiting on batch" in err
        command = resume_command(err)
        assert command[:3] == ["sort", "--resume", "cli"]
        # The run keeps its settings (batch mode included): only --detach is said again.
        assert "--detach" in command and KEY not in err
        for _ in range(100):
            code = main(command)
            if code != EXIT_DETACHED:
                break
        out, err = capsys.readouterr()
        rounds = fake.rounds()
    assert code == EXIT_OK, err
    assert len(out.splitlines()) == len(ITEMS) and ITEMS[0] in out
    assert rounds == sorted(set(rounds)) == list(range(1, len(rounds) + 1))


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_the_key_is_in_no_file_the_run_wrote(
    kind, tmp_path, items_file, capsys, monkeypatch
) -> None:
    monkeypatch.setenv(VARIABLE[kind], KEY)
    with batch_server(kind, hidden_scores(ITEMS), echo_key=True) as (fake, url):
        code = main(sort_args(kind, url, tmp_path, items_file, "--cache-dir",
                              str(tmp_path / "cache"), "--out", str(tmp_path / "report.json"),
                              "--progress", "lines", "--run-id", "secret"))
        out, err = capsys.readouterr()
        assert any(fake.key in str(answer) for batch in fake.batches.values()
                   for answer in batch.answers or [])  # the server did echo it
    assert code == EXIT_OK and "round 1: batch submitted" in err
    (tmp_path / "stdout.log").write_text(out)
    (tmp_path / "stderr.log").write_text(err)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != items_file]
    assert {p.name for p in written} >= {"runs.sqlite3", "runs.journal.sqlite3",
                                         "comparisons.sqlite3", "report.json"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path


def test_the_dry_run_shows_rounds_and_both_prices(tmp_path, items_file, capsys) -> None:
    code = main(["sort", str(items_file), "--field", "text", "--criteria", "better", "--dry-run",
                 "--price-per-call", "0.01", "--batch-discount", "0.5"])
    out = capsys.readouterr().out
    assert code == EXIT_OK  # 8 items, N=2: 14 or 15 matches, 28 … 30 calls
    assert "rounds: about 5" in out and "one batch turnaround" in out
    assert "cost: at most 0.3000" in out and "cost with --batch: at most 0.1500 (50% off)" in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--batch"], "--batch needs --provider openai or google"),
    (["--detach"], "--detach needs --batch"),
    (["--provider", "openai", "--batch", "--batch-discount", "1.5"], "discount must be in"),
    (["--provider", "openai", "--batch", "--batch-poll", "0"], "poll_interval must be > 0"),
])
def test_bad_batch_options_are_usage_errors(extra, message, items_file, capsys) -> None:
    code = main(["sort", str(items_file), "--field", "text", "--criteria", "c", *extra])
    assert code == EXIT_USAGE and message in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_a_pointwise_run_in_batch_mode_detaches_then_resumes_to_its_scores(
    kind, tmp_path, items_file, capsys, monkeypatch
) -> None:
    monkeypatch.setenv(VARIABLE[kind], KEY)
    report = tmp_path / "scores.json"
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        code = main(sort_args(kind, url, tmp_path, items_file, "--strategy", "pointwise",
                              "--repetitions", "2", "--detach", "--run-id", "pw",
                              "--out", str(report)))
        out, err = capsys.readouterr()
        assert code == EXIT_DETACHED and "detached: round 1 is waiting on batch" in err
        command = resume_command(err)
        for _ in range(100):
            code = main(command)
            if code != EXIT_DETACHED:
                break
        out, err = capsys.readouterr()
        submitted = fake.submitted()
    assert code == EXIT_OK, err
    assert len(out.splitlines()) == len(ITEMS)
    assert len(submitted) == len(set(submitted)) == 2 * len(ITEMS)  # one batch, none twice
    scored = json.loads(report.read_text("utf-8"))
    assert scored["settings"]["strategy"] == "pointwise"
    assert scored["statistics"]["batch_calls"] == 2 * len(ITEMS)
    assert all(call["batch"] and call["label"] is not None
               for item in scored["pointwise"]["items"] for call in item["calls"])


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_a_swiss_run_with_a_prepass_runs_in_batch_mode(
    kind, tmp_path, items_file, capsys, monkeypatch
) -> None:
    monkeypatch.setenv(VARIABLE[kind], KEY)
    report = tmp_path / "prepass.json"
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        code = main(sort_args(kind, url, tmp_path, items_file, "--strategy", "swiss",
                              "--prepass", "pointwise", "--budget", "24", "--progress", "none",
                              "--out", str(report)))
        out, err = capsys.readouterr()
        batches = [b.requests for b in fake.batches.values()]
    assert code == EXIT_OK, err
    assert len(out.splitlines()) == len(ITEMS)
    # The pre-pass: one batch of texts scored alone; then batches of comparisons.
    assert sorted(r.text for r in batches[0]) == sorted(ITEMS)
    assert all(r.texts is not None for b in batches[1:] for r in b) and len(batches) > 1
    scored = json.loads(report.read_text("utf-8"))
    assert scored["settings"]["prepass"] == "pointwise"
    assert scored["phases"]["prepass"] == {"texts": len(ITEMS), "calls": len(ITEMS),
                                           "scored": len(ITEMS)}
    assert scored["statistics"]["batch_calls"] == 24


def test_a_swiss_run_of_ranking_calls_in_batch_mode_from_the_command_line(
    tmp_path, items_file, capsys, monkeypatch
) -> None:
    monkeypatch.setenv(VARIABLE["openai"], KEY)
    report = tmp_path / "report.json"
    with batch_server("openai", hidden_scores(ITEMS)) as (fake, url):
        code = main(sort_args("openai", url, tmp_path, items_file, "--strategy", "swiss",
                              "--group-size", "4", "--budget", "6", "--progress", "none",
                              "--out", str(report)))
        out, err = capsys.readouterr()
        batches = [b.requests for b in fake.batches.values()]
    assert code == EXIT_OK, err
    assert [len(b) for b in batches] == [2, 2, 2]  # one batch a round of two ranking calls
    assert "6 ranking calls in 3 rounds" in err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert len(data["ranking_calls"]) == 6
    assert all(call["batch"] and call["order"] for call in data["ranking_calls"])
    assert data["statistics"]["batch_calls"] == 6
