"""Runs that scored texts alone, stored before scores had a record of their own, still load.

`tests/fixtures/scored_runs/` was written by `tests/fixtures/make_scored_runs.py` with the
code that stored a text scored alone as a one-call match of the text with itself (a
pointwise run, a Swiss pre-pass): finished runs read back without a call, and runs stopped
half way resume to the result of a run never stopped.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from llm_qualitative_sort import MockLLMProvider, Pointwise, QualitativeSorter, SortResult, Swiss

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scored_runs"
ITEMS = [str(i) for i in range(0, 40, 5)]
STRATEGIES = {"pointwise": Pointwise(repetitions=2),
              "prepass": Swiss(budget=24, prepass="pointwise")}


def _sorter(judge: MockLLMProvider, path: Path, kind: str) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", seed=9, max_concurrent_requests=1,
                             checkpointer=path, strategy=STRATEGIES[kind])


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    """A copy of the stored runs (resuming writes to them)."""
    for name in ("runs.sqlite3", "runs.journal.sqlite3"):
        shutil.copy(FIXTURE / name, tmp_path / name)
    return tmp_path / "runs.sqlite3"


async def _fresh(tmp_path: Path, kind: str) -> SortResult:
    return await _sorter(MockLLMProvider(seed=1), tmp_path / "fresh.sqlite3", kind).sort(
        ITEMS, run_id=f"fresh-{kind}")


def _same(result: SortResult, fresh: SortResult) -> None:
    assert result.rankings == fresh.rankings
    assert result.match_history == fresh.match_history
    assert result.pointwise == fresh.pointwise
    assert result.prepass == fresh.prepass
    assert result.scores == fresh.scores
    counted = ("total_matches", "total_api_calls", "failed_calls", "rounds", "input_tokens")
    assert ([getattr(result.statistics, name) for name in counted]
            == [getattr(fresh.statistics, name) for name in counted])


@pytest.mark.parametrize("kind", ["pointwise", "prepass"])
async def test_a_finished_run_reads_back_without_a_call(
    stored: Path, tmp_path: Path, kind: str
) -> None:
    fresh = await _fresh(tmp_path, kind)
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, stored, kind).sort(ITEMS, run_id=kind)
    assert judge.calls == 0
    _same(result, fresh)


@pytest.mark.parametrize(("run_id", "kind"), [
    ("pointwise-stopped", "pointwise"),
    ("prepass-stopped", "prepass"),
    ("prepass-later", "prepass"),
])
async def test_a_stopped_run_resumes_to_the_uninterrupted_result(
    stored: Path, tmp_path: Path, run_id: str, kind: str
) -> None:
    fresh = await _fresh(tmp_path, kind)
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, stored, kind).resume(run_id)
    assert result.run_id == run_id
    assert 0 < judge.calls < fresh.statistics.total_api_calls  # the answered calls are kept
    _same(result, fresh)
