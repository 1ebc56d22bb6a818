"""The Swiss strategy end to end through the public API, with the seeded mock judge."""

from collections import Counter
from typing import Any

import pytest

from llm_qualitative_sort import (
    EventType,
    MemoryCache,
    MockLLMProvider,
    ProgressEvent,
    QualitativeSorter,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.bradley_terry import rank_by_score
from llm_qualitative_sort.tournament.swiss.refine import FULL_BUDGET
from llm_qualitative_sort.tournament.swiss.settle import LEVEL

ITEMS = [str(i) for i in range(40)]


def swiss(provider: Any = None, **settings: Any) -> QualitativeSorter:
    """A Swiss sorter: the `Swiss` fields among `settings` make its settings object."""
    settings.setdefault("seed", 3)
    own = {name: settings.pop(name) for name in list(settings) if name in Swiss.model_fields}
    return QualitativeSorter(provider or MockLLMProvider(seed=7), criteria="larger",
                             strategy=Swiss(**own), checkpointer=None, **settings)


def calls(result: SortResult) -> int:
    return sum(len(m.rounds) for m in result.match_history)


def by_round(result: SortResult) -> dict[int, list[Any]]:
    rounds: dict[int, list[Any]] = {}
    for match in result.match_history:
        rounds.setdefault(match.round_number, []).append(match)
    return rounds


async def test_the_default_budget_is_what_double_elimination_would_pay_at_most() -> None:
    result = await swiss().sort(ITEMS)
    budget = 2 * (2 * len(ITEMS) - 1)
    assert budget - 2 < calls(result) <= budget
    assert result.statistics.total_api_calls == calls(result)


async def test_everyone_plays_every_round_with_one_bye_never_twice_in_a_row() -> None:
    items = ITEMS[:-1]  # odd
    result = await swiss(comparison_rounds=1).sort(items)
    rounds = by_round(result)
    byes = []
    for number in sorted(rounds)[:-1]:  # the last round may be cut short by the budget
        players = Counter(i for m in rounds[number] for i in (m.item_a, m.item_b))
        assert set(players.values()) == {1}
        assert len(players) == len(items) - 1
        byes.append(next(i for i in items if i not in players))
    assert all(a != b for a, b in zip(byes, byes[1:], strict=False))


async def test_no_rematch_while_another_opponent_is_available() -> None:
    result = await swiss(comparison_rounds=1, budget=6 * len(ITEMS)).sort(ITEMS)
    pairs = Counter(frozenset((m.item_a, m.item_b)) for m in result.match_history)
    # 12 rounds of 20 matches among 40 items: every item has plenty of unmet neighbours.
    assert max(pairs.values()) == 1


async def test_one_call_per_match_shows_each_item_first_about_half_the_time() -> None:
    result = await swiss(comparison_rounds=1).sort(ITEMS)
    balance: Counter[str] = Counter()
    for match in result.match_history:
        first, second = (match.item_a, match.item_b)
        if match.rounds[0].order == "BA":
            first, second = second, first
        balance[first] += 1
        balance[second] -= 1
    assert max(abs(v) for v in balance.values()) <= 2


async def test_the_ranking_follows_the_bradley_terry_scores_of_the_same_calls() -> None:
    result = await swiss(comparison_rounds=1).sort(ITEMS)
    assert result.rankings == rank_by_score(result.scores)
    top = {item for _, group in result.rankings[:3] for item in group}
    assert top <= {str(i) for i in range(30, 40)}


async def test_a_rematch_is_a_fresh_judgement_not_a_cache_hit() -> None:
    cache = MemoryCache()
    result = await swiss(cache=cache, comparison_rounds=1, top_k=3).sort(ITEMS[:8])
    pairs = Counter(frozenset((m.item_a, m.item_b)) for m in result.match_history)
    assert max(pairs.values()) > 1  # 8 items over 30 judgements: rematches happen
    assert result.statistics.cache_hits == 0
    again = await swiss(cache=cache, comparison_rounds=1, top_k=3).sort(ITEMS[:8])
    assert again.statistics.cache_hits == calls(again) and again.rankings == result.rankings


async def test_top_k_refinement_spends_its_share_on_the_top() -> None:
    events: list[ProgressEvent] = []
    result = await swiss(comparison_rounds=1, top_k=5, budget=400,
                         on_progress=events.append).sort(ITEMS)
    phases = [e.data["phase"] for e in events if e.type is EventType.STANDINGS]
    # Round r + 1 is a refinement wave when the standing after round r says "refine".
    waves = {r + 2 for r, phase in enumerate(phases[:-1]) if phase == "refine"}
    rounds = by_round(result)
    refine = [m for n in waves for m in rounds[n]]
    assert 1 <= len(waves) <= FULL_BUDGET.waves
    assert sum(len(m.rounds) for m in refine) == int(400 * FULL_BUDGET.share)
    played = Counter(i for m in refine for i in (m.item_a, m.item_b))
    assert {int(i) for i in played} <= set(range(25, 40))


async def test_a_settled_top_stops_the_run_before_the_budget() -> None:
    spread = [str(i * 50) for i in range(20)]  # far apart for a judge of sd 3.33
    events: list[ProgressEvent] = []
    result = await swiss(comparison_rounds=1, top_k=3, stop_when_settled=True,
                         budget=2000, on_progress=events.append).sort(spread)
    assert calls(result) < 2000
    assert [g for _, g in result.rankings[:3]] == [["950"], ["900"], ["850"]]
    # It stopped at the first round whose fit expected 95 % of its top 3 to be right.
    expected = [e.data["expected"] for e in events if e.type is EventType.STANDINGS]
    assert expected[-1] >= LEVEL > max(expected[:-1])
    last = [e for e in events if e.type is EventType.STANDINGS][-1]
    assert "top 3 expected" in last.message and "top settled" in last.message


async def test_without_early_stop_no_top_k_chances_are_computed() -> None:
    events: list[ProgressEvent] = []
    await swiss(comparison_rounds=1, top_k=3, on_progress=events.append).sort(ITEMS[:12])
    assert {e.data["expected"] for e in events if e.type is EventType.STANDINGS} == {None}


async def test_the_seeds_fix_the_result_whatever_the_concurrency_and_latency() -> None:
    one = await swiss(comparison_rounds=1, top_k=4, max_concurrent_requests=1).sort(ITEMS)
    many = await swiss(MockLLMProvider(seed=7, latency=(0, 0.002)), comparison_rounds=1,
                       top_k=4, max_concurrent_requests=40).sort(list(reversed(ITEMS)))
    assert one.rankings == many.rankings
    assert [(m.item_a, m.item_b) for m in one.match_history] == [
        (m.item_a, m.item_b) for m in many.match_history]


async def test_progress_reports_standings_instead_of_brackets() -> None:
    events: list[ProgressEvent] = []
    result = await swiss(on_progress=events.append, comparison_rounds=1, top_k=3).sort(ITEMS)
    kinds = Counter(e.type for e in events)
    assert kinds[EventType.BRACKET_CHANGE] == 0
    assert kinds[EventType.STANDINGS] == kinds[EventType.ROUND_END] == result.statistics.rounds
    assert all(e.completed <= e.total for e in events)
    assert events[-1].completed == events[-1].total == result.statistics.total_matches
    standings = [e for e in events if e.type is EventType.STANDINGS]
    assert len(standings[-1].data["top"]) == 3
    assert standings[-1].data["used"] == calls(result)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"top_k": 40}, "top_k must be smaller than the number of items"),
        ({"stop_when_settled": True}, "stop_when_settled needs top_k"),
        ({"budget": 1, "comparison_rounds": 2}, "budget must pay for one match"),
        ({"ranking": "wins"}, "ranking='wins' needs strategy='elimination'"),
        ({"comparison_rounds": 3}, "comparison_rounds must be 1 or even"),
    ],
)
async def test_bad_swiss_settings_are_named_before_any_call(
    settings: dict[str, Any], message: str
) -> None:
    judge = MockLLMProvider(seed=1)
    with pytest.raises(ValueError, match=message):
        await swiss(judge, **settings).sort(ITEMS)
    assert judge.calls == 0
