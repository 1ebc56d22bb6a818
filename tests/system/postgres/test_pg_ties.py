"""Tie verdicts kept in PostgreSQL: the journal and the checkpoint carry them across a stop."""

from __future__ import annotations

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.errors import PermanentProviderError, RunStoppedError
from llm_qualitative_sort.models import ComparisonResult

ITEMS = [str(v) for v in range(0, 300, 10)]


class _Breaking(MockLLMProvider):
    def __init__(self, limit: int) -> None:
        super().__init__(seed=1, noise_stddev=20.0, tie_margin=15.0)
        self.limit = limit

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int, ties: bool = False) -> ComparisonResult:
        if self.calls >= self.limit:
            raise PermanentProviderError("killed")
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition,
                                          ties=ties)


async def test_ties_survive_a_stop_and_resume_on_postgres(postgres_dsn: str) -> None:
    options = {"criteria": "larger", "seed": 2, "strategy": Swiss(ties=True)}
    whole = await QualitativeSorter(_Breaking(10**6), checkpointer=None, **options).sort(ITEMS)
    with pytest.raises(RunStoppedError):
        await QualitativeSorter(_Breaking(25), checkpointer=postgres_dsn,
                                **options).sort(ITEMS, run_id="ties")
    judge = _Breaking(10**6)
    resumed = await QualitativeSorter(judge, checkpointer=postgres_dsn, **options).resume("ties")
    calls = [c.winner for m in resumed.match_history for c in m.rounds]
    assert calls == [c.winner for m in whole.match_history for c in m.rounds] and "tie" in calls
    assert resumed.statistics.tied_calls == whole.statistics.tied_calls
    assert judge.calls == len(calls) - 25
