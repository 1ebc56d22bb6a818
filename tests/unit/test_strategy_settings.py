"""Each strategy owns its settings: `Elimination` and `Swiss`, checked when made.

A settings object and the flat keywords it stands for (`strategy="swiss", budget=...`) are
one run: the same settings, the same calls, the same ranking for the same seed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from llm_qualitative_sort import (
    Elimination,
    MockLLMProvider,
    Pointwise,
    QualitativeSorter,
    Swiss,
)
from llm_qualitative_sort.tournament import STRATEGIES, settings_from_state, shown_settings
from llm_qualitative_sort.tournament.checks import check_strategy

ITEMS = [str(n) for n in range(3, 60, 4)]


def test_the_defaults_fill_in_each_strategys_calls_per_match() -> None:
    assert Elimination() == Elimination(losses=2, calls_per_match=2)
    assert Elimination(calls_per_match=None).calls_per_match == 2
    assert Swiss() == Swiss(budget=None, top_k=None, stop_when_settled=False, calls_per_match=1)
    assert Swiss().calls == 1 and Elimination().calls == 2


def test_the_registry_knows_each_strategys_settings_class() -> None:
    assert {name: s.settings_class for name, s in STRATEGIES.items()} == {
        "elimination": Elimination, "swiss": Swiss, "pointwise": Pointwise}
    assert all(s.settings_class.name == name for name, s in STRATEGIES.items())


def test_settings_are_frozen_and_given_by_keyword() -> None:
    settings = Swiss(budget=40)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.budget = 50  # type: ignore[misc]
    with pytest.raises(TypeError):
        Swiss(40)  # type: ignore[misc]
    assert hash(Swiss(budget=40)) == hash(settings)


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: Elimination(losses=0), ValueError, r"^losses must be >= 1, got 0$"),
    (lambda: Elimination(losses=True), TypeError, r"^losses must be an int, got bool$"),
    (lambda: Elimination(losses=1001), ValueError, r"^losses must be at most 1000"),
    (lambda: Elimination(calls_per_match=3), ValueError, r"^calls_per_match must be even"),
    (lambda: Elimination(calls_per_match=1), ValueError, r"^calls_per_match must be even"),
    (lambda: Elimination(calls_per_match=102), ValueError,
     r"^calls_per_match must be at most 100"),
    (lambda: Swiss(calls_per_match=3), ValueError, r"^calls_per_match must be 1 or even"),
    (lambda: Swiss(calls_per_match="1"), TypeError, r"^calls_per_match must be an int"),
    (lambda: Swiss(budget=0), ValueError, r"^budget must be >= 1, got 0$"),
    (lambda: Swiss(budget=2.5), TypeError, r"^budget must be an int, got float$"),
    (lambda: Swiss(top_k=-1), ValueError, r"^top_k must be >= 1, got -1$"),
    (lambda: Swiss(stop_when_settled=1, top_k=2), TypeError,
     r"^stop_when_settled must be a bool, got int$"),
    (lambda: Swiss(stop_when_settled=True), ValueError,
     r"^stop_when_settled needs top_k: the K whose separation ends the run$"),
])
def test_a_bad_value_is_refused_when_made_naming_the_field(
    make: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        make()


def test_the_flat_keywords_name_the_keyword_not_the_field() -> None:
    with pytest.raises(ValueError, match=r"^elimination_count must be >= 1, got 0$"):
        check_strategy("elimination", elimination_count=0)
    with pytest.raises(ValueError, match=r"^comparison_rounds must be 1 or even"):
        check_strategy("swiss", comparison_rounds=3)


def test_flat_keywords_make_the_same_settings_object() -> None:
    assert check_strategy("elimination", elimination_count=3) == Elimination(losses=3)
    assert check_strategy("swiss", budget=50, top_k=4, comparison_rounds=2) == Swiss(
        budget=50, top_k=4, calls_per_match=2)
    # As always: another strategy's default is no setting; its N is taken and unused.
    assert check_strategy("elimination", stop_when_settled=False) == Elimination()
    assert check_strategy("swiss", elimination_count=3) == Swiss()
    with pytest.raises(ValueError, match="budget applies to strategy='swiss' only"):
        check_strategy("elimination", budget=10)


@pytest.mark.parametrize(("strategy", "flat", "error", "message"), [
    (Swiss(budget=40), {"budget": 50}, ValueError,
     r"budget=50 contradicts strategy=Swiss\(...\): its budget is 40"),
    (Swiss(top_k=3), {"stop_when_settled": False, "top_k": 4}, ValueError, "top_k=4"),
    (Elimination(losses=3), {"elimination_count": 2}, ValueError,
     r"elimination_count=2 contradicts strategy=Elimination\(...\): its losses is 3"),
    (Swiss(), {"comparison_rounds": 2}, ValueError, "comparison_rounds=2 contradicts"),
    (Elimination(), {"budget": 10}, TypeError, "budget is not a setting of Elimination"),
    (Swiss(), {"elimination_count": 3}, TypeError, "elimination_count is not a setting of Swiss"),
])
def test_a_settings_object_with_a_flat_keyword_that_says_otherwise_is_refused(
    strategy: Any, flat: dict[str, Any], error: type[Exception], message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def no_call(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a call was made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", no_call)
    with pytest.raises(error, match=message):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", strategy=strategy,
                          checkpointer=None, **flat)


def test_a_flat_keyword_that_says_the_same_is_taken() -> None:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None,
                               strategy=Swiss(budget=40, top_k=3), budget=40, top_k=3)
    assert sorter.settings == Swiss(budget=40, top_k=3)
    assert (sorter.strategy, sorter.comparison_rounds) == ("swiss", 1)
    # Another strategy's default says nothing either, as beside a name.
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None,
                               strategy=Elimination(losses=3), stop_when_settled=False)
    assert sorter.settings == Elimination(losses=3) and sorter.elimination_count == 3


def test_the_stored_keys_are_the_flat_keys_runs_have_always_stored() -> None:
    assert Elimination(losses=3).state() == {
        "strategy": "elimination", "elimination_count": 3, "comparison_rounds": 2}
    assert Swiss(budget=40, top_k=3).state() == {
        "strategy": "swiss", "elimination_count": 2, "comparison_rounds": 1, "budget": 40,
        "top_k": 3, "stop_when_settled": False}
    for settings in (Elimination(losses=5, calls_per_match=4),
                     Swiss(top_k=2, stop_when_settled=True, calls_per_match=2)):
        assert settings_from_state(settings.state()) == settings
    # A run stored before the strategy and the calls per match were: elimination, 2 calls.
    assert settings_from_state({"elimination_count": 1}) == Elimination(losses=1)


def test_reports_show_only_the_named_strategys_settings() -> None:
    assert shown_settings({"strategy": "swiss", "elimination_count": 2, "top_k": 3}) == {
        "strategy": "swiss", "top_k": 3}
    assert shown_settings({"elimination_count": 2, "top_k": 3}) == {
        "elimination_count": 2, "top_k": 3}


async def _run(**kwargs: Any) -> tuple[Any, int, list[Any]]:
    judge = MockLLMProvider(seed=4)
    events: list[Any] = []
    sorter = QualitativeSorter(judge, criteria="larger", seed=11, checkpointer=None,
                               on_progress=events.append, **kwargs)
    result = await sorter.sort(ITEMS)
    pairs = [(m.item_a, m.item_b, m.winner) for m in result.match_history]
    return (result.rankings, pairs), judge.calls, [(e.type, e.message) for e in events]


@pytest.mark.parametrize(("settings", "flat"), [
    (Swiss(budget=60, top_k=4), {"strategy": "swiss", "budget": 60, "top_k": 4}),
    (Swiss(budget=60, top_k=4, stop_when_settled=True),
     {"strategy": "swiss", "budget": 60, "top_k": 4, "stop_when_settled": True}),
    (Elimination(losses=1), {"elimination_count": 1}),
    (Elimination(calls_per_match=4), {"strategy": "elimination", "comparison_rounds": 4}),
])
async def test_a_settings_object_plays_the_run_its_flat_keywords_play(
    settings: Any, flat: dict[str, Any]
) -> None:
    by_object = await _run(strategy=settings)
    assert by_object == await _run(**flat)
    assert by_object[1] > 0 and by_object[2]  # the runs called the judge and said so


def test_calls_per_match_and_budget_messages_say_what_each_strategy_takes() -> None:
    from llm_qualitative_sort.tournament.swiss.strategy import SwissStrategy

    with pytest.raises(ValueError, match=r"^comparison_rounds must be 1 or even \(half the "
                                         r"calls in each order\), got 3$"):
        check_strategy("swiss", comparison_rounds=3)
    with pytest.raises(ValueError, match="must be even .*only strategy='swiss' allows 1"):
        check_strategy("elimination", comparison_rounds=3)
    with pytest.raises(ValueError, match=r"one match \(1 call\): at least 41, got 30"):
        SwissStrategy.check(Swiss(budget=30, prepass="pointwise"), 40)
    with pytest.raises(ValueError, match=r"one match \(2 calls\), got 1"):
        SwissStrategy.check(Swiss(budget=1, calls_per_match=2), 40)
