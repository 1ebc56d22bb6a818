"""Runs stored while each strategy setting was a state key of its own still load and resume.

`tests/fixtures/flat_settings_runs/` was written by `tests/fixtures/make_flat_settings_runs.py`
with the code whose runs kept `"strategy"`, `"budget"`, `"ties"`, `"verdicts"`, ... as keys of
their own. Their keys are read once into the settings object: a resume with the same settings,
given as an object, goes on where the run stopped and ends as that code's uninterrupted run
did; a resume with other settings is refused before any call. The answers that code cached
are found by the same settings given as objects: no call is paid again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import (
    Elimination,
    FileCache,
    MockLLMProvider,
    Pointwise,
    QualitativeSorter,
    RunMismatchError,
    Swiss,
)
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.tournament import StrategySettings, settings_from_state

FIXTURE = Path(__file__).parents[1] / "fixtures" / "flat_settings_runs"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
ITEMS = [str(i) for i in range(0, 60, 5)]
# The settings each run was started with, as settings objects now.
SETTINGS: dict[str, StrategySettings] = {
    "swiss-ties-soft": Swiss(budget=40, top_k=3, comparison_rounds=2, ties=True,
                             verdicts="soft"),
    "swiss-prepass": Swiss(budget=40, prepass="pointwise"),
    "elimination": Elimination(elimination_count=3, comparison_rounds=4),
    "pointwise": Pointwise(scale="0-5", inverse=True, repetitions=2),
}


def _judge() -> MockLLMProvider:
    return MockLLMProvider(seed=1, noise_stddev=15.0, logprobs="calibrated",
                           pointwise="calibrated")


def _sorter(judge: MockLLMProvider, path: Path | None, settings: StrategySettings,
            cache: FileCache | None = None) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", seed=9, max_concurrent_requests=2,
                             checkpointer=path, strategy=settings, cache=cache)


def _played(result: Any) -> dict[str, Any]:
    # A pre-pass's scores first (its round), each in the form the runs were recorded in:
    # a one-call match of the text with itself, won by "A" when its call gave a label.
    scored = [[s.item, s.item, won, [["AB", won]]] for s in result.prepass for c in s.calls
              for won in ["A" if c.label is not None else None]]
    calls = scored + [[m.item_a, m.item_b, m.winner, [[c.order, c.winner] for c in m.rounds]]
                      for m in result.match_history]
    return json.loads(json.dumps({"rankings": result.rankings, "calls": calls}))


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    """A copy of the stored runs (resuming writes to them)."""
    for name in ("runs.sqlite3", "runs.journal.sqlite3"):
        shutil.copy(FIXTURE / name, tmp_path / name)
    return tmp_path / "runs.sqlite3"


@pytest.mark.parametrize("run_id", list(SETTINGS))
async def test_a_run_of_flat_keys_resumes_to_what_it_would_have_played(
    stored: Path, run_id: str
) -> None:
    judge = _judge()
    resumed = await _sorter(judge, stored, SETTINGS[run_id]).resume(run_id)
    assert 0 < judge.calls < resumed.statistics.total_api_calls  # it went on, not again
    assert _played(resumed) == EXPECTED[run_id]
    # A fresh run of these settings plays what that code played.
    fresh = await _sorter(_judge(), None, SETTINGS[run_id]).sort(ITEMS)
    assert _played(fresh) == EXPECTED[run_id]


@pytest.mark.parametrize("run_id", list(SETTINGS))
async def test_the_answers_that_code_cached_are_found_again(tmp_path: Path, run_id: str) -> None:
    shutil.copytree(FIXTURE / "cache", tmp_path / "cache")
    judge = _judge()
    result = await _sorter(judge, None, SETTINGS[run_id], FileCache(tmp_path / "cache")).sort(
        ITEMS)
    assert judge.calls == 0 and result.statistics.cache_hits > 0
    assert _played(result) == EXPECTED[run_id]


@pytest.mark.parametrize(("run_id", "other", "message"), [
    ("swiss-ties-soft", Swiss(budget=40, top_k=3, comparison_rounds=2, verdicts="soft"),
     "was started with ties=True, not False"),
    ("swiss-ties-soft", Swiss(budget=40, top_k=3, comparison_rounds=2, ties=True),
     "was started with verdicts='soft', not 'hard'"),
    ("swiss-prepass", Swiss(budget=40), "was started with prepass='pointwise', not None"),
    ("elimination", Elimination(elimination_count=3), "comparison_rounds=4, not 2"),
    ("pointwise", Pointwise(scale="0-5", repetitions=2), "inverse=True, not False"),
    ("elimination", Swiss(), "was started with strategy='elimination', not 'swiss'"),
])
async def test_a_resume_with_other_settings_is_refused_before_any_call(
    stored: Path, run_id: str, other: StrategySettings, message: str
) -> None:
    judge = _judge()
    with pytest.raises(RunMismatchError, match=message):
        await _sorter(judge, stored, other).resume(run_id)
    assert judge.calls == 0


async def test_the_flat_keys_read_into_the_settings_object(stored: Path) -> None:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    async with AsyncSqliteSaver.from_conn_string(str(stored)) as saver:
        graph = build_graph(saver)
        for run_id, settings in SETTINGS.items():
            values = (await graph.aget_state({"configurable": {"thread_id": run_id}})).values
            assert "settings" not in values and values["strategy"] == settings.name
            assert settings_from_state(values) == settings
