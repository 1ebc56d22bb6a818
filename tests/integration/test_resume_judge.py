"""A run is resumed by the judge that started it: another judge is refused before any call."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runs import ITEMS, BreaksAfter, _sorter

from llm_qualitative_sort import MockLLMProvider, RunMismatchError, RunStoppedError


class Priced(MockLLMProvider):
    """A mock judge with a price: a cent for all its calls."""

    def estimate_cost(self, input_tokens: int, output_tokens: int) -> float | None:
        return 0.01


async def _stopped_run(tmp_path: Path) -> Path:
    store = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await _sorter(BreaksAfter(limit=40), store).sort(ITEMS, run_id="r")
    return store


@pytest.mark.parametrize("how", ["resume", "sort"])
async def test_resuming_with_another_judge_is_refused_naming_both(how, tmp_path) -> None:
    store = await _stopped_run(tmp_path)
    other = MockLLMProvider(seed=999, noise_stddev=50)
    sorter = _sorter(other, store)
    with pytest.raises(RunMismatchError) as refused:
        await (sorter.resume("r") if how == "resume" else sorter.sort(ITEMS, run_id="r"))
    message = str(refused.value)
    assert MockLLMProvider(seed=1).model_identity in message
    assert other.model_identity in message
    assert other.calls == 0
    # The judge that started it still finishes it.
    same = MockLLMProvider(seed=1)
    result = await _sorter(same, store).resume("r")
    assert same.calls > 0 and result.statistics.total_api_calls > same.calls
    assert [j.judge for j in result.statistics.judges] == [same.model_identity]


async def test_with_allow_judge_change_each_call_is_credited_to_its_judge(tmp_path) -> None:
    store = await _stopped_run(tmp_path)
    first = MockLLMProvider(seed=1).model_identity
    other = Priced(seed=999, noise_stddev=50)
    result = await _sorter(other, store, allow_judge_change=True).resume("r")
    judges = {j.judge: j for j in result.statistics.judges}
    assert set(judges) == {first, other.model_identity}
    assert judges[first].paid_calls == 40  # the calls made before the stop
    assert judges[other.model_identity].paid_calls == other.calls > 0
    assert judges[first].estimated_cost is None  # its prices were never known here
    assert judges[other.model_identity].estimated_cost == 0.01
    assert result.statistics.estimated_cost is None
    # Read back later (a finished run, no call), the credit is the same.
    again = await _sorter(MockLLMProvider(seed=1), store).sort(ITEMS, run_id="r")
    assert {j.judge: j.paid_calls for j in again.statistics.judges} == {
        first: 40, other.model_identity: other.calls}
