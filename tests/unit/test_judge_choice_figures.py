"""The figures that compare judges on labelled pairs, and the labelled pairs themselves."""

from __future__ import annotations

import numpy as np
import pytest

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.judge_choice.figures import (
    Ranked,
    first_shown_share,
    length_logit,
    ordered,
    unsettled_with,
)
from llm_qualitative_sort.judge_choice.pairs import labelled_pairs
from llm_qualitative_sort.results.agreement import Interval
from llm_qualitative_sort.results.human import HumanLabels, HumanScore, HumanVerdict
from llm_qualitative_sort.tournament import STRATEGIES, parse_settings, strategy_for
from llm_qualitative_sort.tournament.labelled import Labelled


def test_a_judge_that_always_picks_the_first_text_wins_every_first_showing() -> None:
    calls = [(pair, True) for pair in range(20) for _ in range(2)]
    assert first_shown_share(calls, draws=200) == Interval(1.0, 1.0, 1.0)


def test_the_first_shown_share_resamples_pairs_and_brackets_its_value() -> None:
    rng = np.random.default_rng(3)
    calls = [(pair, bool(rng.random() < 0.7)) for pair in range(200) for _ in range(2)]
    share = first_shown_share(calls, draws=500, seed=1)
    assert share is not None and share.low is not None and share.high is not None
    assert share.low < share.value < share.high
    assert share.low < 0.7 < share.high and share.high - share.low < 0.15
    assert first_shown_share(calls, draws=500, seed=1) == share  # seeded
    assert first_shown_share([], draws=10) is None


def test_the_length_logit_recovers_a_known_slope_within_its_interval() -> None:
    rng = np.random.default_rng(7)
    gaps = rng.normal(0, 1.4, 4000)
    won = rng.random(4000) < 1 / (1 + np.exp(-(0.3 + 0.8 * gaps)))
    found = length_logit(gaps.tolist(), won.tolist())
    assert found is not None and found.low is not None and found.high is not None
    assert found.low < 0.8 < found.high and abs(found.value - 0.8) < 0.1  # type: ignore[operator]


def test_the_length_logit_is_none_without_spread_and_finite_when_separated() -> None:
    assert length_logit([0.5, 0.5, 0.5], [True, False, True]) is None
    assert length_logit([1.0], [True]) is None
    separated = length_logit([1.0, 2.0, -1.0, -2.0], [True, True, False, False])
    assert separated is not None and separated.value is not None
    assert 0 < separated.value < 100 and np.isfinite(separated.high)


def _ranked(kappa: float | None, low: float | None, high: float | None,
            agreement: float | None = 0.5, cost: float | None = None) -> Ranked:
    return Ranked(Interval(kappa, low, high), agreement, cost)


def test_rows_are_ordered_by_kappa_then_agreement_then_cost() -> None:
    rows = [_ranked(0.3, 0.2, 0.4), _ranked(None, None, None), _ranked(0.5, 0.4, 0.6),
            _ranked(0.3, 0.2, 0.4, agreement=0.6), _ranked(0.3, 0.2, 0.4, cost=0.01),
            _ranked(0.3, 0.2, 0.4, cost=0.001)]
    assert ordered(rows) == [2, 3, 5, 4, 0, 1]


def test_only_rows_whose_interval_reaches_the_best_are_unsettled() -> None:
    best = _ranked(0.5, 0.4, 0.6)
    others = [_ranked(0.45, 0.35, 0.55), _ranked(0.2, 0.1, 0.39), _ranked(0.3, None, None),
              _ranked(None, None, None)]
    assert unsettled_with(best, others) == [0, 2]
    assert unsettled_with(_ranked(0.5, None, None), others) == [0, 1, 2]


def test_labelled_pairs_are_asked_once_in_the_orientation_of_their_first_verdict() -> None:
    texts = ["d", "b", "a", "c"]
    labels = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 0, "tie"),
                          HumanVerdict(1, 0, "B"), HumanVerdict(3, 1, "B")))
    asked = labelled_pairs(labels, texts)
    assert asked.items == (1, 3, 0)  # "b", "c", "d": a run's (sorted) order
    assert asked.pairs == ((2, 0), (1, 0))
    assert asked.verdicts == ((2, 0, "A"), (2, 0, "tie"), (2, 0, "A"), (1, 0, "B"))


def test_scores_alone_become_a_verdict_on_every_pair_of_scored_items() -> None:
    labels = HumanLabels(scores=(HumanScore(0, 3.0), HumanScore(2, 1.0), HumanScore(1, 3.0)))
    asked = labelled_pairs(labels, ["x", "y", "z"])
    assert sorted(asked.verdicts) == [(0, 1, "tie"), (0, 2, "A"), (1, 2, "A")]


def test_the_labelled_strategy_plays_exactly_its_pairs_in_one_round_and_is_not_offered() -> None:
    settings = Labelled(pairs=((0, 2), (3, 1)))
    strategy = strategy_for(settings, n_items=4, seed=0)
    plan = strategy.plan(strategy.start(), [], 1)
    assert [(m.a, m.b) for m in plan.matches] == [(0, 2), (3, 1)] and settings.calls == 2
    assert strategy.finished(strategy.update(strategy.start(), []).standing)
    assert parse_settings(settings.stored()) == settings
    assert "labelled" not in STRATEGIES


@pytest.mark.parametrize(("pairs", "message"), [
    ((), "give at least one labelled pair"),
    (((1, 1),), r"\(1, 1\) pairs an item with itself"),
    (((0, 1), (1, 0)), r"\(1, 0\) is given twice"),
])
def test_the_labelled_settings_refuse_bad_pairs(pairs: tuple[tuple[int, int], ...],
                                                message: str) -> None:
    with pytest.raises(InputError, match=message):
        Labelled(pairs=pairs)


def test_the_labelled_strategy_refuses_a_pair_outside_the_items() -> None:
    with pytest.raises(InputError, match=r"\(0, 5\) names an item outside 0..2"):
        strategy_for(Labelled(pairs=((0, 5),)), 3, 0).check(Labelled(pairs=((0, 5),)), 3)


def test_a_refused_setting_never_points_to_the_labelled_strategy() -> None:
    from llm_qualitative_sort import Pointwise

    with pytest.raises(InputError, match=r"strategy=Elimination\(ties=True\) or "
                                         r"Swiss\(ties=True\)$"):
        Pointwise(ties=True)  # type: ignore[call-arg]
