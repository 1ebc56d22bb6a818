"""A resumed run tells the calls it pays now from those paid before (journal, checkpoint)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    PermanentProviderError,
    QualitativeSorter,
    RunStoppedError,
)
from llm_qualitative_sort.cli import main
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._progress import LineProgress
from llm_qualitative_sort.cli._run import print_summary

ITEMS = [str(i) for i in range(16)]


class Larger(LLMProvider):
    """Prefers the larger number; after `budget` calls, fails for good."""

    def __init__(self, budget: int = 10_000) -> None:
        super().__init__(model="larger")
        self.budget, self.calls = budget, 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        if self.calls > self.budget:
            raise PermanentProviderError("out of credit")
        return ComparisonResult("A" if int(item_a) > int(item_b) else "B", "larger",
                                input_tokens=10, output_tokens=2)


def _sorter(provider: LLMProvider, path: Path, progress: LineProgress) -> QualitativeSorter:
    # One call at a time: the failure leaves exactly `budget` answers in the journal.
    return QualitativeSorter(provider, criteria="larger", seed=1, checkpointer=path,
                             max_concurrent_requests=1, on_progress=progress)


async def test_a_resumed_run_counts_journal_replays_apart_from_calls_paid_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "runs.sqlite3"
    first = LineProgress(io.StringIO(), None)
    with pytest.raises(RunStoppedError):
        await _sorter(Larger(budget=21), path, first).sort(ITEMS, run_id="r")
    # Round 1 (16 calls) is checkpointed; round 2's 5 calls (two whole matches and half of
    # a third) are journaled. The display counts the calls of finished matches.
    assert first.tally.calls == 20
    out = io.StringIO()
    again = _sorter(judge := Larger(), path, LineProgress(out, None))
    result = await again.resume("r")
    tally = again.on_progress.tally  # type: ignore[union-attr]
    assert tally.journaled == 5 and tally.calls == judge.calls
    assert tally.calls + 21 == result.statistics.total_api_calls
    assert f"{judge.calls} calls paid now, 5 from the journal" in out.getvalue()
    print_summary(result, RunConfig(checkpoint=str(path)), None, tally)
    assert f": {judge.calls} paid now, 21 before" in capsys.readouterr().err


def test_resuming_a_finished_run_says_nothing_was_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    store = str(tmp_path / "runs.sqlite3")
    assert main(["demo", "--checkpoint", store, "--progress", "none"]) == 0
    run_id = capsys.readouterr().err.split("run id ")[1].split()[0]
    assert main(["sort", "--resume", run_id, "--checkpoint", store, "--progress", "none"]) == 0
    err = capsys.readouterr().err
    assert "had finished" in err and "nothing is called" in err
    assert "84 LLM calls (0 from cache), all paid before: nothing was called now" in err
