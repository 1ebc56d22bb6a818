"""The engine end to end through the public API, with the seeded mock judge."""

import random
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    MockLLMProvider,
    QualitativeSorter,
    SortResult,
)

CRITERIA = "which number is larger"
ITEMS = [str(i) for i in range(40)]  # spaced 1 apart: with sd 3.33 many verdicts are close


class CountingProvider(LLMProvider):
    """Counts every call; judges by length so that any text works."""

    def __init__(self) -> None:
        super().__init__(model="counting")
        self.calls = 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        return ComparisonResult(winner="A" if len(item_a) >= len(item_b) else "B", reasoning="")


def sorter(provider: LLMProvider, **settings: Any) -> QualitativeSorter:
    settings.setdefault("seed", 3)
    return QualitativeSorter(provider, criteria=CRITERIA, checkpointer=None, **settings)


def fingerprint(result: SortResult) -> tuple[Any, ...]:
    history = [(m.item_a, m.item_b, m.winner, [r.winner for r in m.rounds])
               for m in result.match_history]
    return result.rankings, result.statistics.total_matches, history


async def test_the_input_order_does_not_change_the_result() -> None:
    shuffled = ITEMS[:]
    random.Random(1).shuffle(shuffled)
    assert shuffled != ITEMS
    first = await sorter(MockLLMProvider(seed=7)).sort(ITEMS)
    second = await sorter(MockLLMProvider(seed=7)).sort(shuffled)
    assert fingerprint(first) == fingerprint(second)


async def test_the_seeds_fix_the_result_whatever_the_concurrency_and_latency() -> None:
    baseline = await sorter(MockLLMProvider(seed=7), max_concurrent_requests=1).sort(ITEMS)
    wide = await sorter(MockLLMProvider(seed=7), max_concurrent_requests=50).sort(ITEMS)
    jittery = await sorter(
        MockLLMProvider(seed=7, latency=(0, 0.002)), max_concurrent_requests=50
    ).sort(ITEMS)
    serial_jittery = await sorter(
        MockLLMProvider(seed=7, latency=(0, 0.002)), max_concurrent_requests=1
    ).sort(ITEMS)
    assert fingerprint(wide) == fingerprint(baseline)
    assert fingerprint(jittery) == fingerprint(baseline)
    assert fingerprint(serial_jittery) == fingerprint(baseline)


async def test_other_seeds_give_another_result() -> None:
    """Guards the two tests above against comparing results that never vary."""
    baseline = fingerprint(await sorter(MockLLMProvider(seed=7)).sort(ITEMS))
    assert fingerprint(await sorter(MockLLMProvider(seed=8)).sort(ITEMS)) != baseline
    assert fingerprint(await sorter(MockLLMProvider(seed=7), seed=4).sort(ITEMS)) != baseline


@pytest.mark.parametrize("n_losses", [1, 2, 3, 5])
async def test_a_noiseless_judge_through_the_engine(n_losses: int) -> None:
    n = len(ITEMS)
    judge = MockLLMProvider(seed=0, noise_stddev=0)
    result = await sorter(judge, elimination_count=n_losses).sort(ITEMS)
    assert n_losses * n - n_losses <= result.statistics.total_matches <= n_losses * n - 1
    assert judge.calls == 2 * result.statistics.total_matches
    assert sorted(i for _, group in result.rankings for i in group) == sorted(ITEMS)
    assert result.rankings[0][0] == 1
    if n_losses >= 2:  # see the single-elimination note in test_tournament_properties
        assert result.rankings[0] == (1, ["39"])


async def test_no_items_give_an_empty_result_without_calls() -> None:
    judge = CountingProvider()
    result = await sorter(judge).sort([])
    assert result.rankings == []
    assert result.match_history == []
    assert judge.calls == 0


async def test_one_item_ranks_first_without_calls() -> None:
    judge = CountingProvider()
    result = await sorter(judge).sort(["only"])
    assert result.rankings == [(1, ["only"])]
    assert result.statistics.total_matches == 0
    assert result.statistics.total_api_calls == 0
    assert judge.calls == 0


@pytest.mark.parametrize(
    ("items", "error", "message"),
    [
        (["a", ""], ValueError, r"items\[1\] is empty"),
        (["a", "   ", "b"], ValueError, r"items\[1\] is empty"),
        (["a", "b", "a"], ValueError, r"items\[2\] duplicates items\[0\]"),
        (["a", 2], TypeError, r"items\[1\] is of type int, not str"),
        (["a", None], TypeError, r"items\[1\] is of type NoneType"),
        ("ab", TypeError, r"items must be a list of str"),
        (["a", "b\ud800c"], ValueError, r"items\[1\] is not valid Unicode text"),
    ],
)
async def test_bad_items_are_named_before_any_call(
    items: Any, error: type[Exception], message: str
) -> None:
    judge = CountingProvider()
    with pytest.raises(error, match=message):
        await sorter(judge).sort(items)
    assert judge.calls == 0


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"comparison_rounds": 3}, ValueError, "comparison_rounds must be even"),
        ({"comparison_rounds": 0}, ValueError, "comparison_rounds must be >= 1"),
        ({"comparison_rounds": -2}, ValueError, "comparison_rounds must be >= 1"),
        ({"comparison_rounds": 2.0}, TypeError, "comparison_rounds must be an int"),
        ({"elimination_count": 0}, ValueError, "elimination_count must be >= 1"),
        ({"elimination_count": True}, TypeError, "elimination_count must be an int"),
        ({"max_concurrent_requests": 0}, ValueError, "max_concurrent_requests must be >= 1"),
        ({"max_concurrent_requests": -5}, ValueError, "max_concurrent_requests must be >= 1"),
        ({"elimination_count": 10**9}, ValueError, "elimination_count must be at most 1000"),
        ({"comparison_rounds": 2**70}, ValueError, "comparison_rounds must be at most 100"),
        ({"comparison_rounds": 1}, ValueError, "only strategy='swiss' allows 1"),
        ({"seed": 2**80}, ValueError, "seed must fit in 64 bits"),
        ({"seed": "7"}, TypeError, "seed must be an int"),
        ({"strategy": "round-robin"}, ValueError, "strategy must be one of"),
        # A strategy's setting lives in its settings object, and says so.
        ({"budget": 100}, ValueError, r"budget is a Swiss setting: strategy=Swiss\(budget=100\)"),
        ({"top_k": 3}, TypeError, r"top_k is a Swiss setting: strategy=Swiss\(top_k=3\)"),
        ({"call_timeout": 0}, ValueError, "call_timeout must be > 0"),
        ({"call_timeout": "5"}, TypeError, "call_timeout must be seconds"),
        ({"ranking": "elo"}, ValueError, "ranking must be 'wins' or 'bradley_terry'"),
    ],
)
async def test_bad_settings_are_named_before_any_call(
    settings: dict[str, Any], error: type[Exception], message: str
) -> None:
    judge = CountingProvider()
    with pytest.raises(error, match=message):
        await sorter(judge, **settings).sort(["a", "bb", "ccc"])
    assert judge.calls == 0


@pytest.mark.parametrize(("n", "seed"), [(3, 2), (5, 36)])
async def test_single_elimination_ranks_the_unbeaten_champion_alone_first(
    n: int, seed: int
) -> None:
    items = [str(i) for i in range(n)]
    result = await sorter(
        MockLLMProvider(seed=0, noise_stddev=0), elimination_count=1, seed=seed
    ).sort(items)
    champion = str(n - 1)
    assert all(m.winner is not None for m in result.match_history)
    assert not any(
        (m.item_a == champion and m.winner == "B") or (m.item_b == champion and m.winner == "A")
        for m in result.match_history
    ), "the champion lost a match"
    assert result.rankings[0] == (1, [champion])


async def test_a_result_prints_as_a_summary_whatever_its_history() -> None:
    items = [f"essay {i}: " + "words " * 20 for i in range(200)]
    result = await sorter(MockLLMProvider(seed=1)).sort(items)
    shown = repr(result)
    # The default dataclass repr printed every call (megabytes for a large run).
    assert len(shown) < 300, len(shown)
    stats = result.statistics
    assert f"200 items in {len(result.rankings)} ranks" in shown
    assert f"{stats.total_matches} matches, {stats.total_api_calls} calls" in shown
    assert repr(result.rankings[0][1][0][:39] + "…") in shown
