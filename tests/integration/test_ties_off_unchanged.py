"""With ties off, runs play exactly as before tie verdicts existed.

The digests were recorded on main before ties were added (commit 8abcaf1): every call of
the run (its order, verdict in match terms, reasoning and judge), every match's verdict and
pairing, and the final ranking. Any change to pairing, prompting or fitting with ties off
changes a digest. The pipelined schedule pairs players in the order their calls complete,
which is not fixed even one request at a time (on main as of 3145c49 about one run in four
differs), so it has no digest: its test checks that no call is offered a tie instead.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from llm_qualitative_sort import (
    Elimination,
    MockLLMProvider,
    PanelProvider,
    QualitativeSorter,
    Swiss,
)
from llm_qualitative_sort.models import ComparisonResult, SortResult

ITEMS = [str(v) for v in range(0, 240, 7)]

CONFIGS: dict[str, dict[str, Any]] = {
    "elimination": {"strategy": Elimination()},
    "swiss": {"strategy": Swiss(budget=90)},
    "swiss_top_k": {"strategy": Swiss(budget=120, top_k=5)},
    "panel": {"strategy": Swiss(budget=60), "panel": True},
}

RECORDED = {
    "elimination": "60034dda1eaf44abdde37fcff0a48f466994e77f03568432d71664e58a0110b7",
    "swiss": "35a8d430c917db596f57aeeb02e845aff7d11cb245f96b863fa0091c009cd4e6",
    "swiss_top_k": "fed27db7536cbae641b230e1b714750ad6d446ba8a2a190c0acc99bb9c8e91ea",
    "panel": "3d1fa8ba7d5317322e00d2c34102d8406f7689212afe9ee61b98303645f37c2d",
}


def _digest(result: SortResult) -> str:
    calls = [
        [m.round_number, m.item_a, m.item_b, m.winner,
         [[c.order, c.winner, c.reasoning, c.judge] for c in m.rounds]]
        for m in result.match_history
    ]
    text = json.dumps([calls, result.rankings], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


async def _run(config: dict[str, Any]) -> SortResult:
    options = dict(config)
    judge: Any = MockLLMProvider(seed=3, noise_stddev=20.0)
    if options.pop("panel", False):
        judge = PanelProvider([MockLLMProvider(seed=1, noise_stddev=20.0),
                               MockLLMProvider(seed=2, noise_stddev=30.0)], seed=7)
    sorter = QualitativeSorter(judge, criteria="larger", seed=11, checkpointer=None,
                               ranking="bradley_terry", **options)
    return await sorter.sort(ITEMS)


@pytest.mark.parametrize("name", sorted(CONFIGS))
async def test_ties_off_plays_as_before(name: str) -> None:
    assert _digest(await _run(CONFIGS[name])) == RECORDED[name]


class _Watching(MockLLMProvider):
    """The mock, remembering every keyword its calls were given."""

    def __init__(self) -> None:
        super().__init__(seed=3, noise_stddev=20.0, tie_margin=1000.0)
        self.keywords: set[str] = set()

    async def compare_call(self, item_a: str, item_b: str, criteria: str, **kwargs: Any
                           ) -> ComparisonResult:
        self.keywords |= set(kwargs)
        return await super().compare_call(item_a, item_b, criteria, **kwargs)


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_ties_off_no_call_is_offered_a_tie(schedule: str) -> None:
    judge = _Watching()  # would tie every call if it were offered one
    sorter = QualitativeSorter(judge, criteria="larger", seed=11, checkpointer=None,
                               schedule=schedule)
    result = await sorter.sort(ITEMS)
    assert judge.keywords == {"repetition"}
    assert {c.winner for m in result.match_history for c in m.rounds} <= {"A", "B"}
