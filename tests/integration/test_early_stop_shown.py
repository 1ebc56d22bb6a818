"""A Swiss run that stops before its budget says so: events, display, summary and reports."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import EventType, MockLLMProvider, ProgressEvent, QualitativeSorter, Swiss
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._progress import LineProgress
from llm_qualitative_sort.cli._run import print_summary
from llm_qualitative_sort.models import EarlyStop
from llm_qualitative_sort.reports import to_html, to_json_dict
from llm_qualitative_sort.reports._json import from_json_dict

SPREAD = [str(i * 50) for i in range(20)]  # far apart: the top 3 settle long before 2000


def _sorter(on_progress: Any = None, **settings: Any) -> QualitativeSorter:
    return QualitativeSorter(MockLLMProvider(seed=7), criteria="larger",
                             strategy=Swiss(comparison_rounds=1, **settings),
                             checkpointer=None, seed=3, on_progress=on_progress)


async def test_the_last_round_end_fills_the_bar_and_names_the_early_stop() -> None:
    events: list[ProgressEvent] = []
    result = await _sorter(top_k=3, stop_when_settled=True, budget=2000,
                           on_progress=events.append).sort(SPREAD)
    ends = [e for e in events if e.type is EventType.ROUND_END]
    assert ends[-1].completed == ends[-1].total == result.statistics.total_matches
    stop = ends[-1].data["early_stop"]
    assert isinstance(stop, EarlyStop)
    assert stop.top_k == 3 and stop.budget == 2000
    assert stop.judgements == result.statistics.total_api_calls < 2000
    assert all("early_stop" not in e.data for e in ends[:-1])
    assert result.statistics.early_stop == stop


async def test_swiss_rounds_count_no_players_left_and_say_one_match() -> None:
    events: list[ProgressEvent] = []
    await _sorter(top_k=3, on_progress=events.append).sort(SPREAD[:8])
    ends = [e for e in events if e.type is EventType.ROUND_END]
    assert all("left" not in e.message and e.data["remaining"] is None for e in ends)
    assert not any("1 matches" in e.message for e in events)


async def test_a_run_that_spends_its_budget_has_no_early_stop() -> None:
    result = await _sorter(top_k=3).sort(SPREAD[:8])
    assert result.statistics.early_stop is None


async def test_the_display_the_summary_and_the_reports_say_it_stopped_early(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    out = io.StringIO()
    result = await _sorter(top_k=3, stop_when_settled=True, budget=2000,
                           on_progress=LineProgress(out, None)).sort(SPREAD)
    used = result.statistics.total_api_calls
    said = "stopped early: the top 3 were settled"
    assert said in out.getvalue() and f"after {used} of 2000 judgements" in out.getvalue()
    assert "1 matches" not in out.getvalue()
    # Each round's line says how sure the top K is, up to the share that stopped the run.
    shares = [int(line.rsplit("expected ", 1)[1].split(" %")[0])
              for line in out.getvalue().splitlines() if line.startswith("round ")]
    assert len(shares) == len([line for line in out.getvalue().splitlines()
                               if line.startswith("round ")]) > 1
    assert all(", top 3 expected " in line for line in out.getvalue().splitlines()
               if line.startswith("round ")) and shares[-1] >= 95 > shares[0]
    print_summary(result, RunConfig(checkpoint=str(tmp_path / "x.sqlite3")), None)
    assert said in capsys.readouterr().err
    page = to_html(result, {"strategy": "swiss"})
    assert "Stopped early: the top 3 were settled" in page and f"{used} of 2000" in page
    assert "早期終了" in to_html(result, {"strategy": "swiss"}, lang="ja")
    again = from_json_dict(json.loads(json.dumps(to_json_dict(result))))
    assert again.statistics.early_stop == result.statistics.early_stop
