"""What the terminal shows of a run: ids in the ranking, `runs show`, `runs list` limits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import MockLLMProvider, Pointwise, QualitativeSorter, Swiss
from llm_qualitative_sort.cli import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(argv) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def _items(tmp_path: Path, long: bool = False) -> str:
    path = tmp_path / "items.jsonl"
    tail = " and then it went on" * 10 if long else ""
    path.write_text("".join(json.dumps({"id": f"x{i:02}", "text": f"story {i}{tail}"}) + "\n"
                            for i in range(6)))
    return str(path)


def test_the_printed_ranking_shows_each_items_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = str(tmp_path / "runs.sqlite3")
    out, _ = _run(["sort", _items(tmp_path), "--field", "text", "--id-field", "id",
                   "--criteria", "c", "--checkpoint", store, "--progress", "none"], capsys)
    lines = out.splitlines()
    assert len(lines) == 6 and all("[x0" in line for line in lines)
    assert lines[0].split()[1].startswith("[x0") and lines[0].split()[2] == "story"


def test_runs_show_cuts_with_an_ellipsis_and_hides_n_for_swiss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = str(tmp_path / "runs.sqlite3")
    _run(["sort", _items(tmp_path, long=True), "--field", "text", "--id-field", "id",
          "--criteria", "c", "--strategy", "swiss", "--run-id", "s", "--checkpoint", store,
          "--progress", "none"], capsys)
    out, _ = _run(["runs", "show", "s", "--checkpoint", store], capsys)
    assert "elimination count" not in out
    assert "{" not in out and f"source:              path={tmp_path}" in out
    ranked = [line for line in out.splitlines() if line.startswith("   1  ")]
    assert ranked and ranked[0].endswith("…") and "[x0" in ranked[0]


def test_a_run_started_from_python_names_its_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "runs.sqlite3"
    sorter = QualitativeSorter(MockLLMProvider(seed=5), criteria="larger", checkpointer=store)
    asyncio.run(sorter.sort([str(i) for i in range(6)], run_id="py"))
    out, _ = _run(["runs", "list", "--checkpoint", str(store)], capsys)
    assert "mock seed=5 N=2" in out and "?" not in out


def test_runs_list_shows_the_newest_20_and_says_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "runs.sqlite3"

    async def fill() -> None:
        for n in range(23):
            strategy = "swiss" if n % 2 else "elimination"
            sorter = QualitativeSorter(MockLLMProvider(seed=n), criteria="larger",
                                       checkpointer=store, strategy=strategy)
            await sorter.sort([str(i) for i in range(4)], run_id=f"r{n:02}")

    asyncio.run(fill())
    out, err = _run(["runs", "list", "--checkpoint", str(store)], capsys)
    rows = out.splitlines()[1:]
    assert len(rows) == 20 and rows[0].startswith("r22") and "3 more" in err
    out, err = _run(["runs", "list", "--limit", "0", "--checkpoint", str(store)], capsys)
    assert len(out.splitlines()) == 24 and "more" not in err
    out, err = _run(["runs", "list", "--strategy", "swiss", "--limit", "5",
                     "--checkpoint", str(store)], capsys)
    rows = out.splitlines()[1:]
    assert len(rows) == 5 and all("swiss" in row for row in rows) and "6 more" in err
    out, _ = _run(["runs", "list", "--status", "stopped", "--checkpoint", str(store)], capsys)
    assert out == ""
    out, _ = _run(["runs", "list", "--status", "finished", "--json", "--limit", "2",
                   "--checkpoint", str(store)], capsys)
    assert [json.loads(line)["run_id"] for line in out.splitlines()] == ["r22", "r21"]


@pytest.mark.parametrize("strategy", [
    "elimination", Swiss(group_size=3), Swiss(prepass="pointwise"), Pointwise(repetitions=2)])
def test_runs_list_counts_the_calls_the_result_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], strategy: Any,
) -> None:
    """Every call of the run, whatever it asked (a pair, a ranking, a score), is listed."""
    store = tmp_path / "runs.sqlite3"
    sorter = QualitativeSorter(MockLLMProvider(seed=5), criteria="larger", checkpointer=store,
                               strategy=strategy, seed=1)
    result = asyncio.run(sorter.sort([str(i) for i in range(8)], run_id="r"))
    out, _ = _run(["runs", "list", "--json", "--checkpoint", str(store)], capsys)
    [listed] = [json.loads(line) for line in out.splitlines()]
    assert result.statistics.total_api_calls > 0
    assert listed["calls"] == result.statistics.total_api_calls


def test_runs_list_counts_the_labelled_pairs_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "runs.sqlite3"
    sorter = QualitativeSorter(MockLLMProvider(seed=5), criteria="larger", checkpointer=store,
                               seed=1)
    items = [str(i) for i in range(8)]
    result = asyncio.run(sorter.sort(items, run_id="r", human=[(0, 7, "B"), (2, 5, "B")]))
    out, _ = _run(["runs", "list", "--json", "--checkpoint", str(store)], capsys)
    [listed] = [json.loads(line) for line in out.splitlines()]
    assert listed["calls"] == result.statistics.total_api_calls


def test_runs_list_names_a_swiss_runs_group_size_and_token_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "runs.sqlite3"
    sorter = QualitativeSorter(MockLLMProvider(seed=5), criteria="larger", checkpointer=store,
                               strategy=Swiss(group_size=4, budget_tokens=20_000), seed=1)
    asyncio.run(sorter.sort([str(i) for i in range(8)], run_id="g"))
    out, _ = _run(["runs", "list", "--checkpoint", str(store)], capsys)
    assert "mock seed=5 swiss K=1 budget_tokens=20000 groups=4" in out


def test_runs_show_names_ranking_calls_and_counts_labelled_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "runs.sqlite3"
    sorter = QualitativeSorter(MockLLMProvider(seed=5), criteria="larger", checkpointer=store,
                               strategy=Swiss(group_size=3), seed=1)
    asyncio.run(sorter.sort([str(i) for i in range(8)], run_id="g"))
    out, _ = _run(["runs", "show", "g", "--checkpoint", str(store)], capsys)
    assert "ranking calls:" in out and "\nmatches:" not in out
    items = tmp_path / "items.txt"
    items.write_text("".join(f"story {'x' * i}\n" for i in range(4)))
    labels = tmp_path / "labels.csv"
    labels.write_text("a,b,winner\n2,3,B\n4,1,A\n")
    _run(["calibrate", str(items), "--human", str(labels), "--judge", "mock",
          "--criteria", "longer", "--checkpoint", str(store)], capsys)
    out, _ = _run(["runs", "list", "--json", "--checkpoint", str(store)], capsys)
    calibration = next(json.loads(line)["run_id"] for line in out.splitlines()
                       if json.loads(line)["run_id"].startswith("calibrate-"))
    out, _ = _run(["runs", "show", calibration, "--checkpoint", str(store)], capsys)
    assert "pairs:               2 labelled pairs" in out
