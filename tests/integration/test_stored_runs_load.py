"""Runs kept by an earlier layout of the package still load and resume.

`tests/fixtures/stored_runs/` was written by `tests/fixtures/make_stored_runs.py` with the
code as it stood before the modules moved into their concept folders. Checkpoints hold
plain data only (no class paths), and the journal's records are plain msgpack: moving a
module must change neither.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss

FIXTURE = Path(__file__).parents[1] / "fixtures" / "stored_runs"
ITEMS = [str(i) for i in range(0, 40, 5)]


def _sorter(judge: MockLLMProvider, path: Path, **kwargs: object) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", seed=9, max_concurrent_requests=2,
                             checkpointer=path, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    """A copy of the stored runs (resuming writes to them)."""
    for name in ("runs.sqlite3", "runs.journal.sqlite3"):
        shutil.copy(FIXTURE / name, tmp_path / name)
    return tmp_path / "runs.sqlite3"


@pytest.mark.parametrize(("run_id", "kwargs"), [
    ("done", {}),
    ("swiss", {"strategy": Swiss(top_k=3)}),
])
async def test_a_finished_run_reads_back_without_a_call(
    stored: Path, tmp_path: Path, run_id: str, kwargs: dict[str, object]
) -> None:
    fresh = await _sorter(MockLLMProvider(seed=1), tmp_path / "fresh.sqlite3", **kwargs).sort(
        ITEMS, run_id=run_id)
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, stored, **kwargs).sort(ITEMS, run_id=run_id)
    assert judge.calls == 0
    assert result.rankings == fresh.rankings
    assert result.match_history == fresh.match_history


@pytest.mark.parametrize("run_id", ["stopped", "outage"])
async def test_a_stopped_run_resumes_to_the_uninterrupted_ranking(
    stored: Path, tmp_path: Path, run_id: str
) -> None:
    fresh = await _sorter(MockLLMProvider(seed=1), tmp_path / "fresh.sqlite3").sort(ITEMS)
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, stored).resume(run_id)
    assert result.rankings == fresh.rankings
    assert result.run_id == run_id
    assert 0 < judge.calls < fresh.statistics.total_api_calls or run_id == "outage"


async def test_a_stopped_pipelined_run_resumes_with_its_stored_pairings(stored: Path) -> None:
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, stored, schedule="pipelined").resume("piped")
    assert sorted(item for _, tied in result.rankings for item in tied) == sorted(ITEMS)
    # The segment stored before the stop, kept as it was (indices into the sorted items).
    stored_pairs = {("15", "0"), ("25", "35"), ("5", "30"), ("10", "20")}
    first = {(match.item_a, match.item_b) for match in result.match_history[:4]}
    assert first == stored_pairs
    assert judge.calls < result.statistics.total_api_calls
