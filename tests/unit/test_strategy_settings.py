"""Each strategy owns its settings: `Elimination`, `Swiss`, `Pointwise`, checked when made.

A settings object and the shorthands the sorter keeps for it (`strategy="swiss"`,
`elimination_count=`, `comparison_rounds=`) are one run: the same settings, the same calls,
the same ranking for the same seed. A setting given to the sorter on its own is refused,
saying where it lives now.
"""

from __future__ import annotations

from typing import Any

import pytest

import llm_qualitative_sort
from llm_qualitative_sort import (
    Elimination,
    InputError,
    MockLLMProvider,
    Pointwise,
    QualitativeSorter,
    SettingTypeError,
    Swiss,
)
from llm_qualitative_sort.tournament import (
    STRATEGIES,
    parse_settings,
    settings_from_state,
    shown_settings,
)
from llm_qualitative_sort.tournament.checks import check_strategy

ITEMS = [str(n) for n in range(3, 60, 4)]


def test_the_defaults_fill_in_each_strategys_comparison_rounds() -> None:
    assert Elimination() == Elimination(elimination_count=2, comparison_rounds=2)
    assert Swiss() == Swiss(budget=None, top_k=None, stop_when_settled=False,
                            comparison_rounds=1)
    assert Swiss().calls == 1 and Elimination().calls == 2 and Pointwise().calls == 1


def test_the_registry_knows_each_strategys_settings_class() -> None:
    assert {name: s.settings_class for name, s in STRATEGIES.items()} == {
        "elimination": Elimination, "swiss": Swiss, "pointwise": Pointwise}
    assert all(s.settings_class.name == name for name, s in STRATEGIES.items())


def test_settings_are_frozen_and_given_by_keyword() -> None:
    settings = Swiss(budget=40)
    with pytest.raises(SettingTypeError, match="Swiss is frozen"):
        settings.budget = 50  # type: ignore[misc]
    with pytest.raises(TypeError):
        Swiss(40)  # type: ignore[misc]
    assert hash(Swiss(budget=40)) == hash(settings)


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: Elimination(elimination_count=0), ValueError,
     r"^elimination_count must be >= 1, got 0$"),
    (lambda: Elimination(elimination_count=True), TypeError,
     r"^elimination_count must be an int, got bool$"),
    (lambda: Elimination(elimination_count=1001), ValueError,
     r"^elimination_count must be at most 1000"),
    (lambda: Elimination(comparison_rounds=3), ValueError, r"^comparison_rounds must be even"),
    (lambda: Elimination(comparison_rounds=1), ValueError, r"^comparison_rounds must be even"),
    (lambda: Elimination(comparison_rounds=102), ValueError,
     r"^comparison_rounds must be at most 100"),
    (lambda: Swiss(comparison_rounds=3), ValueError, r"^comparison_rounds must be 1 or even"),
    (lambda: Swiss(comparison_rounds="1"), TypeError, r"^comparison_rounds must be an int"),
    (lambda: Swiss(budget=0), ValueError, r"^budget must be >= 1, got 0$"),
    (lambda: Swiss(budget=2.5), TypeError, r"^budget must be an int, got float$"),
    (lambda: Swiss(top_k=-1), ValueError, r"^top_k must be >= 1, got -1$"),
    (lambda: Swiss(stop_when_settled=1, top_k=2), TypeError,
     r"^stop_when_settled must be a bool, got int$"),
    (lambda: Swiss(stop_when_settled=True), ValueError,
     r"^stop_when_settled needs top_k: the K whose separation ends the run$"),
    (lambda: Swiss(ties=1), TypeError, r"^ties must be a bool, got int$"),
    (lambda: Elimination(verdicts="x"), ValueError,
     r'^verdicts must be "hard" or "soft", got \'x\'$'),
    (lambda: Swiss(prepass="x"), ValueError,
     r'^prepass must be None, "pointwise" or "pointwise-inverse", got \'x\'$'),
    (lambda: Swiss(pairing="a-optimal", group_size=4), ValueError,
     r"^pairing='a-optimal' chooses pairs: with group_size=4 the rounds are ranking calls"),
    (lambda: Swiss(pairing="nearest"), ValueError,
     r'^pairing must be "neighbours" or "a-optimal", got \'nearest\'$'),
    (lambda: Pointwise(repetitions=101), ValueError, r"^repetitions must be at most 100"),
    (lambda: Pointwise(inverse="yes"), TypeError, r"^inverse must be a bool, got str$"),
])
def test_a_bad_value_is_refused_when_made_naming_the_field(
    make: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as refused:
        make()
    # Never pydantic's own error: one `except llm_qualitative_sort.Error` catches them all.
    assert isinstance(refused.value, InputError | llm_qualitative_sort.Error)
    assert type(refused.value) in (InputError, SettingTypeError)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Elimination(losses=3),
     r"^losses is now called elimination_count: Elimination\(elimination_count=3\)$"),
    (lambda: Swiss(calls_per_match=2),
     r"^calls_per_match is now called comparison_rounds: Swiss\(comparison_rounds=2\)$"),
    (lambda: Elimination(budget=10),
     r"^budget is not a setting of Elimination; it belongs to strategy=Swiss\(budget=10\)$"),
    (lambda: Swiss(elimination_count=3), "elimination_count is not a setting of Swiss"),
    (lambda: Swiss(colour="red"), r"^colour is not a setting of Swiss$"),
])
def test_an_old_or_unknown_name_says_what_it_is_called_now(make: Any, message: str) -> None:
    with pytest.raises(SettingTypeError, match=message):
        make()


def test_the_sorters_shorthands_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"^elimination_count must be >= 1, got 0$"):
        check_strategy("elimination", elimination_count=0)
    with pytest.raises(ValueError, match=r"^comparison_rounds must be 1 or even"):
        check_strategy("swiss", comparison_rounds=3)


def test_the_shorthands_make_the_same_settings_object() -> None:
    assert check_strategy("elimination", elimination_count=3) == Elimination(
        elimination_count=3)
    assert check_strategy("swiss", comparison_rounds=2) == Swiss(comparison_rounds=2)
    assert check_strategy("pointwise") == Pointwise()
    # A strategy without the field refuses it, saying whose it is.
    with pytest.raises(SettingTypeError, match=r"^elimination_count is not a setting of Swiss; "
                                               r"it belongs to strategy=Elimination"):
        check_strategy("swiss", elimination_count=3)
    with pytest.raises(SettingTypeError, match="comparison_rounds is not a setting of "
                                               "Pointwise"):
        check_strategy("pointwise", comparison_rounds=1)


@pytest.mark.parametrize(("strategy", "flat", "error", "message"), [
    (Elimination(elimination_count=3), {"elimination_count": 2}, ValueError,
     r"elimination_count=2 contradicts strategy=Elimination\(...\): its elimination_count is 3"),
    (Swiss(), {"comparison_rounds": 2}, ValueError, "comparison_rounds=2 contradicts"),
    (Swiss(), {"elimination_count": 3}, TypeError, "elimination_count is not a setting of Swiss"),
])
def test_a_settings_object_with_a_shorthand_that_says_otherwise_is_refused(
    strategy: Any, flat: dict[str, Any], error: type[Exception], message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def no_call(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a call was made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", no_call)
    with pytest.raises(error, match=message):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", strategy=strategy,
                          checkpointer=None, **flat)


def test_a_shorthand_that_says_the_same_is_taken() -> None:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None,
                               strategy=Swiss(budget=40, comparison_rounds=2),
                               comparison_rounds=2)
    assert sorter.settings == Swiss(budget=40, comparison_rounds=2)
    assert (sorter.strategy, sorter.comparison_rounds) == ("swiss", 2)
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None,
                               strategy=Elimination(elimination_count=3), elimination_count=3)
    assert sorter.settings == Elimination(elimination_count=3) and sorter.elimination_count == 3


@pytest.mark.parametrize(("flat", "message"), [
    ({"budget": 40}, r"^budget is a Swiss setting: strategy=Swiss\(budget=40\)$"),
    ({"top_k": 3}, r"^top_k is a Swiss setting: strategy=Swiss\(top_k=3\)$"),
    ({"stop_when_settled": True}, r"^stop_when_settled is a Swiss setting"),
    ({"prepass": "pointwise"}, r"^prepass is a Swiss setting"),
    ({"pairing": "a-optimal"}, r"^pairing is a Swiss setting"),
    ({"scale": "0-5"}, r"^scale is a Pointwise setting: strategy=Pointwise\(scale='0-5'\)$"),
    ({"inverse": True}, r"^inverse is a Pointwise setting"),
    ({"repetitions": 2}, r"^repetitions is a Pointwise setting"),
    ({"ties": True}, r"^ties is a setting of Elimination and Swiss: "
                     r"strategy=Elimination\(ties=True\) or Swiss\(ties=True\)$"),
    ({"verdicts": "soft"}, r"^verdicts is a setting of Elimination and Swiss"),
    ({"colour": "red"}, r"^QualitativeSorter got an unexpected keyword 'colour'$"),
])
def test_a_strategy_setting_given_to_the_sorter_says_where_it_lives(
    flat: dict[str, Any], message: str
) -> None:
    with pytest.raises(SettingTypeError, match=message):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None,
                          **flat)


def test_the_sorter_takes_at_most_twenty_parameters() -> None:
    import inspect

    parameters = inspect.signature(QualitativeSorter.__init__).parameters
    assert len([name for name in parameters if name != "self"]) <= 20


def test_a_run_stores_one_settings_object_and_reads_back_earlier_runs_keys() -> None:
    assert Elimination(elimination_count=3).stored() == {
        "strategy": "elimination", "comparison_rounds": 2, "ties": False, "verdicts": "hard",
        "elimination_count": 3}
    for settings in (Elimination(elimination_count=5, comparison_rounds=4),
                     Swiss(top_k=2, stop_when_settled=True, comparison_rounds=2, ties=True),
                     Pointwise(scale="0-5", inverse=True, repetitions=3)):
        assert settings_from_state({"settings": settings.stored()}) == settings
        assert parse_settings(settings.stored()) == settings
    # The keys earlier versions stored, each setting its own: read into the same object.
    assert settings_from_state({
        "strategy": "swiss", "elimination_count": 2, "comparison_rounds": 1, "budget": 40,
        "top_k": 3, "stop_when_settled": False, "ties": True, "verdicts": "soft",
    }) == Swiss(budget=40, top_k=3, ties=True, verdicts="soft")
    assert settings_from_state({"strategy": "pointwise", "elimination_count": 2,
                                "comparison_rounds": 1, "scale": [[0, ""], [1, ""]],
                                "inverse": True, "repetitions": 2}) == Pointwise(
        scale="0-1", inverse=True, repetitions=2)
    # A run stored before the strategy and the calls per match were: elimination, 2 calls.
    assert settings_from_state({"elimination_count": 1}) == Elimination(elimination_count=1)


def test_plain_data_names_its_strategy() -> None:
    with pytest.raises(InputError, match='name no "strategy"'):
        parse_settings({"budget": 40})
    with pytest.raises(InputError, match="strategy must be one of 'elimination', 'swiss', "
                                         "'pointwise'"):
        parse_settings({"strategy": "league"})
    with pytest.raises(SettingTypeError, match="budget is not a setting of Elimination"):
        parse_settings({"strategy": "elimination", "budget": 40})


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
    (Swiss(), {"strategy": "swiss"}),
    (Swiss(comparison_rounds=2), {"strategy": "swiss", "comparison_rounds": 2}),
    (Pointwise(), {"strategy": "pointwise"}),
    (Elimination(elimination_count=1), {"elimination_count": 1}),
    (Elimination(comparison_rounds=4), {"strategy": "elimination", "comparison_rounds": 4}),
])
async def test_a_settings_object_plays_the_run_its_shorthand_plays(
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
        SwissStrategy.check(Swiss(budget=1, comparison_rounds=2), 40)


def test_a_run_stored_without_a_pairing_pairs_neighbours() -> None:
    stored = Swiss(budget=40, pairing="a-optimal").stored()
    assert stored["pairing"] == "a-optimal"
    assert settings_from_state({"settings": stored}) == Swiss(budget=40, pairing="a-optimal")
    del stored["pairing"]
    assert settings_from_state({"settings": stored}) == Swiss(budget=40)
    assert settings_from_state({"strategy": "swiss", "budget": 40}) == Swiss(
        budget=40, comparison_rounds=2)
