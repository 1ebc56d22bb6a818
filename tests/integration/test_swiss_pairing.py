"""Swiss with `pairing="a-optimal"` end to end: rounds, refinement, early stop, resume."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    EventType,
    LLMProvider,
    MockLLMProvider,
    PermanentProviderError,
    ProgressEvent,
    QualitativeSorter,
    RunStoppedError,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.cli import main
from llm_qualitative_sort.tournament.swiss.refine import FULL_BUDGET
from llm_qualitative_sort.tournament.swiss.settle import LEVEL

ITEMS = [str(i) for i in range(40)]


def swiss(provider: Any = None, **settings: Any) -> QualitativeSorter:
    """An A-optimal Swiss sorter unless `pairing` says otherwise, seed 3, one call a match."""
    settings.setdefault("seed", 3)
    settings.setdefault("pairing", "a-optimal")
    settings.setdefault("comparison_rounds", 1)
    own = {name: settings.pop(name) for name in list(settings) if name in Swiss.model_fields}
    return QualitativeSorter(provider or MockLLMProvider(seed=7), criteria="larger",
                             strategy=Swiss(**own), checkpointer=None, **settings)


def calls(result: SortResult) -> int:
    return sum(len(m.rounds) for m in result.match_history)


def pairs(result: SortResult) -> list[tuple[int, str, str]]:
    return [(m.round_number, m.item_a, m.item_b) for m in result.match_history]


def by_round(result: SortResult) -> dict[int, list[Any]]:
    rounds: dict[int, list[Any]] = {}
    for match in result.match_history:
        rounds.setdefault(match.round_number, []).append(match)
    return rounds


async def test_neighbours_named_plays_exactly_as_the_default() -> None:
    default = await QualitativeSorter(MockLLMProvider(seed=7), criteria="larger", seed=3,
                                      strategy=Swiss(top_k=4), checkpointer=None).sort(ITEMS)
    named = await swiss(pairing="neighbours", top_k=4).sort(ITEMS)
    assert pairs(named) == pairs(default) and named.rankings == default.rankings
    assert named.scores == default.scores


async def test_a_optimal_pairs_differ_from_neighbours_and_rank_as_well() -> None:
    chosen = await swiss().sort(ITEMS)
    neighbours = await swiss(pairing="neighbours").sort(ITEMS)
    assert pairs(chosen) != pairs(neighbours)
    assert calls(chosen) == calls(neighbours)
    top = {item for _, group in chosen.rankings[:3] for item in group}
    assert top <= {str(i) for i in range(30, 40)}


async def test_everyone_plays_every_round_with_one_bye_never_twice_in_a_row() -> None:
    items = ITEMS[:-1]  # odd
    rounds = by_round(await swiss().sort(items))
    byes = []
    for number in sorted(rounds)[:-1]:  # the last round may be cut short by the budget
        players = Counter(i for m in rounds[number] for i in (m.item_a, m.item_b))
        assert set(players.values()) == {1} and len(players) == len(items) - 1
        byes.append(next(i for i in items if i not in players))
    assert all(a != b for a, b in zip(byes, byes[1:], strict=False))


async def test_no_rematch_while_fresh_pairs_are_at_hand() -> None:
    result = await swiss(budget=6 * len(ITEMS)).sort(ITEMS)
    met = Counter(frozenset((m.item_a, m.item_b)) for m in result.match_history)
    assert max(met.values()) == 1


async def test_top_k_refinement_pairs_contenders_by_gain() -> None:
    events: list[ProgressEvent] = []
    result = await swiss(top_k=5, budget=400, on_progress=events.append).sort(ITEMS)
    phases = [e.data["phase"] for e in events if e.type is EventType.STANDINGS]
    waves = {r + 2 for r, phase in enumerate(phases[:-1]) if phase == "refine"}
    rounds = by_round(result)
    refine = [m for n in waves for m in rounds[n]]
    assert 1 <= len(waves) <= FULL_BUDGET.waves
    assert sum(len(m.rounds) for m in refine) == int(400 * FULL_BUDGET.share)
    played = Counter(i for m in refine for i in (m.item_a, m.item_b))
    assert {int(i) for i in played} <= set(range(25, 40))


async def test_a_settled_top_stops_the_run_before_the_budget() -> None:
    spread = [str(i * 50) for i in range(20)]
    events: list[ProgressEvent] = []
    result = await swiss(top_k=3, stop_when_settled=True, budget=2000,
                         on_progress=events.append).sort(spread)
    assert calls(result) < 2000
    assert [g for _, g in result.rankings[:3]] == [["950"], ["900"], ["850"]]
    expected = [e.data["expected"] for e in events if e.type is EventType.STANDINGS]
    assert expected[-1] >= LEVEL > max(expected[:-1])


async def test_the_seed_fixes_the_pairs_whatever_the_concurrency_and_latency() -> None:
    one = await swiss(top_k=4, max_concurrent_requests=1).sort(ITEMS)
    many = await swiss(MockLLMProvider(seed=7, latency=(0, 0.002)), top_k=4,
                       max_concurrent_requests=40).sort(list(reversed(ITEMS)))
    assert one.rankings == many.rankings
    assert [(m.item_a, m.item_b) for m in one.match_history] == [
        (m.item_a, m.item_b) for m in many.match_history]
    other = await swiss(top_k=4, seed=4).sort(ITEMS)
    assert pairs(other) != pairs(one)


class Larger(LLMProvider):
    """Prefers the larger number but for every seventh call; fails for good after `budget`."""

    def __init__(self, budget: int = 10_000) -> None:
        super().__init__(model="larger")
        self.budget, self.calls = budget, 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        if self.calls > self.budget:
            raise PermanentProviderError("out of credit")
        # A verdict fixed by the pair alone (not by call order): resumed runs see the same.
        upset = (int(item_a) * 7 + int(item_b) * 3) % 7 == 0
        return ComparisonResult("A" if (int(item_a) > int(item_b)) != upset else "B", "larger")


async def test_a_killed_run_resumes_into_the_same_pairs_and_ranking(tmp_path: Path) -> None:
    items = ITEMS[:24]
    settings = Swiss(pairing="a-optimal", budget=150, top_k=3)

    def sorter(judge: LLMProvider, path: Path | None) -> QualitativeSorter:
        return QualitativeSorter(judge, criteria="larger", seed=5, strategy=settings,
                                 checkpointer=path, max_concurrent_requests=1)

    whole = await sorter(Larger(), None).sort(items)
    path = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await sorter(Larger(budget=70), path).sort(items, run_id="r")
    resumed = await sorter(Larger(), path).resume("r")
    assert pairs(resumed) == pairs(whole)
    assert resumed.rankings == whole.rankings and resumed.scores == whole.scores
    assert calls(resumed) == calls(whole) == 150


def test_the_command_line_keeps_the_pairing_with_the_run_and_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.txt").write_text("\n".join(ITEMS[:10]) + "\n", encoding="utf-8")
    store = str(tmp_path / "runs.sqlite3")
    assert main(["sort", str(tmp_path / "a.txt"), "--criteria", "larger", "--strategy",
                 "swiss", "--pairing", "a-optimal", "--budget", "20", "--run-id", "p",
                 "--checkpoint", store, "--progress", "none"]) == 0
    capsys.readouterr()
    assert main(["runs", "show", "p", "--json", "--checkpoint", store]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["pairing"] == "a-optimal"
    assert main(["runs", "list", "--checkpoint", store]) == 0
    assert "pairing=a-optimal" in capsys.readouterr().out
