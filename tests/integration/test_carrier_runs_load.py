"""Scores and ranking calls journaled and cached in the carrier form still load and resume.

`tests/fixtures/carrier_runs/` was written by `tests/fixtures/make_carrier_runs.py` with the
code that journaled and cached every answer as a pairwise verdict "A" carrying its label or
order in `raw_response`: finished runs read back without a call, runs stopped in a round
resume from their journaled answers to the result of the run never stopped, and the cached
answers are found under the same keys by a new run. Runs written by this code (each answer
in the stored form of its kind) do the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.make_carrier_runs import ITEMS, STOPS, Spotty, sorter
from llm_qualitative_sort import SortResult

FIXTURE = Path(__file__).parents[1] / "fixtures" / "carrier_runs"
STOPPED = [pytest.param(kind, limit, id=f"{kind}-stopped-{limit}") for kind, limit in STOPS]


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    """A copy of the stored runs and their cache (resuming writes to them)."""
    shutil.copytree(FIXTURE, tmp_path / "old")
    return tmp_path / "old" / "runs.sqlite3"


async def _fresh(tmp_path: Path, kind: str) -> SortResult:
    return await sorter(Spotty(), tmp_path / "fresh.sqlite3", kind).sort(
        ITEMS, run_id=f"fresh-{kind}")


def _answers(result: SortResult) -> list[object]:
    """What the judge's answers made of a run, whether paid for or found in the cache."""
    return [result.rankings, result.scores,
            [(s.item, s.score, [(c.label, c.expected, c.distribution, c.reason, c.input_tokens)
                                for c in s.calls]) for s in result.pointwise or ()],
            [(c.items, c.order, c.problem, c.reasoning, c.input_tokens, c.round_number)
             for c in result.ranking_calls],
            [getattr(result.statistics, name) for name in ("failed_calls", "rounds")]]


def _same(result: SortResult, fresh: SortResult) -> None:
    assert _answers(result) == _answers(fresh)
    assert result.match_history == fresh.match_history
    assert result.pointwise == fresh.pointwise
    counted = ("total_matches", "total_api_calls", "input_tokens", "output_tokens")
    assert ([getattr(result.statistics, name) for name in counted]
            == [getattr(fresh.statistics, name) for name in counted])


@pytest.mark.parametrize("kind", ["pointwise", "groups"])
async def test_a_finished_run_reads_back_without_a_call(
    stored: Path, tmp_path: Path, kind: str
) -> None:
    fresh = await _fresh(tmp_path, kind)
    judge = Spotty()
    result = await sorter(judge, stored, kind).sort(ITEMS, run_id=kind)
    assert judge.calls == 0
    _same(result, fresh)
    assert fresh.statistics.failed_calls > 0  # answers without a label or an order too


@pytest.mark.parametrize(("kind", "limit"), STOPPED)
async def test_an_old_stopped_run_resumes_from_its_journal_to_the_finished_result(
    stored: Path, tmp_path: Path, kind: str, limit: int
) -> None:
    finished = await sorter(Spotty(), stored, kind).sort(ITEMS, run_id=kind)
    judge = Spotty()
    result = await sorter(judge, stored, kind).resume(f"{kind}-stopped-{limit}")
    # Every call answered before the stop is kept (checkpointed, or journaled in its round).
    assert judge.calls == finished.statistics.total_api_calls - limit
    _same(result, finished)
    _same(result, await _fresh(tmp_path, kind))


@pytest.mark.parametrize(("kind", "limit"), STOPPED)
async def test_a_new_stopped_run_resumes_to_the_uninterrupted_result(
    tmp_path: Path, kind: str, limit: int
) -> None:
    path = tmp_path / "new.sqlite3"
    with pytest.raises(Exception, match="invalid API key"):
        await sorter(Spotty(limit), path, kind).sort(ITEMS, run_id="stopped")
    judge = Spotty()
    result = await sorter(judge, path, kind).resume("stopped")
    fresh = await _fresh(tmp_path, kind)
    assert judge.calls == fresh.statistics.total_api_calls - limit
    _same(result, fresh)


@pytest.mark.parametrize("source", ["old", "new"])
@pytest.mark.parametrize("kind", ["pointwise", "groups"])
async def test_cached_answers_are_found_by_a_new_run(
    stored: Path, tmp_path: Path, kind: str, source: str
) -> None:
    cache = stored.parent / "cache"
    if source == "new":
        cache = tmp_path / "new-cache"
        await sorter(Spotty(), tmp_path / "paid.sqlite3", kind, cache).sort(ITEMS, run_id="paid")
    fresh = await _fresh(tmp_path, kind)
    judge = Spotty()
    result = await sorter(judge, tmp_path / "again.sqlite3", kind, cache).sort(
        ITEMS, run_id="again")
    # Only the answers without a label or an order were not cached: they are asked again.
    assert judge.calls == fresh.statistics.failed_calls > 0
    assert _answers(result) == _answers(fresh)
    assert result.statistics.cache_hits == fresh.statistics.total_api_calls - judge.calls
