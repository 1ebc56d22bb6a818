"""The judge-against-people figures equal direct computations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion

from llm_qualitative_sort.results.agreement import (
    LABELS,
    LabelledCall,
    cohen_kappa,
    confusion_matrix,
    judge_agreement,
)

label = st.sampled_from(LABELS)


@given(st.lists(st.tuples(label, label), min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_kappa_and_confusion_equal_sklearn(pairs: list[tuple[str, str]]) -> None:
    human = [h for h, _ in pairs]
    judge = [j for _, j in pairs]
    expected = sk_confusion(human, judge, labels=list(LABELS))
    assert np.array_equal(np.asarray(confusion_matrix(human, judge)), expected)
    ours = cohen_kappa(human, judge)
    if len(set(human) | set(judge)) == 1:
        assert ours is None  # chance agreement is certain: κ is undefined
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            theirs = cohen_kappa_score(human, judge, labels=list(LABELS))
        assert ours == pytest.approx(theirs)


def calls_from(rows: list[tuple[int, int, str, str | None, bool]]) -> list[LabelledCall]:
    return [LabelledCall(a, b, h, j, first) for a, b, h, j, first in rows]


def test_a_run_s_figures_equal_a_direct_computation() -> None:
    rng = np.random.default_rng(3)
    rows = []
    for pair in range(40):
        human = LABELS[rng.integers(3)]
        for first in (True, False):
            judge = human if rng.random() < 0.7 else LABELS[rng.integers(3)]
            rows.append((pair, pair + 100, human, judge if rng.random() > 0.05 else None, first))
    calls = calls_from(rows)
    figures = judge_agreement(calls, draws=300)
    answered = [c for c in calls if c.judge is not None]
    human = [c.human for c in answered]
    judge = [str(c.judge) for c in answered]
    assert figures.compared == len(answered)
    assert figures.no_verdict == len(calls) - len(answered)
    assert figures.agreed == sum(h == j for h, j in zip(human, judge, strict=True))
    assert figures.kappa.value == pytest.approx(cohen_kappa_score(human, judge))
    assert np.array_equal(np.asarray(figures.confusion), sk_confusion(human, judge,
                                                                      labels=list(LABELS)))
    first = [c for c in answered if c.a_shown_first]
    assert figures.kappa_by_order["a first"].value == pytest.approx(
        cohen_kappa_score([c.human for c in first], [str(c.judge) for c in first]))
    assert len(figures.disagreements) == figures.compared - figures.agreed
    assert figures.pairs == 40


def test_intervals_hold_their_estimate_and_narrow_with_more_pairs() -> None:
    def figures(pairs: int) -> tuple[float, float, float]:
        rng = np.random.default_rng(7)
        rows = []
        for pair in range(pairs):
            human = LABELS[rng.integers(3)]
            judge = human if rng.random() < 0.6 else LABELS[rng.integers(3)]
            rows.append((pair, pair + 1000, human, judge, bool(pair % 2)))
        kappa = judge_agreement(calls_from(rows), draws=500).kappa
        assert kappa.value is not None and kappa.low is not None and kappa.high is not None
        return kappa.low, kappa.value, kappa.high

    low, value, high = figures(40)
    assert low <= value <= high
    wide = high - low
    low, value, high = figures(400)
    assert low <= value <= high
    assert high - low < wide / 2


def test_a_judge_that_follows_the_position_agrees_in_one_order_only() -> None:
    rows = []
    for pair in range(30):
        human = "A" if pair % 2 else "B"
        rows.append((pair, pair + 50, human, "A", True))  # shown first: always "first wins"
        rows.append((pair, pair + 50, human, "B", False))
    figures = judge_agreement(calls_from(rows), draws=200)
    assert figures.kappa_by_order["a first"].value == pytest.approx(0.0)
    assert figures.kappa_by_order["a second"].value == pytest.approx(0.0)
    assert figures.agreed == 30


def test_the_spearman_of_the_labelled_items_equals_scipy() -> None:
    rng = np.random.default_rng(5)
    judge = rng.normal(size=30)
    human = judge + rng.normal(size=30)
    rows = [(i, i + 1, "A", "A", True) for i in range(0, 20)]
    figures = judge_agreement(calls_from(rows), judge_strengths=judge, human_strengths=human,
                              draws=300)
    labelled = list(range(21))
    assert figures.spearman is not None
    assert figures.spearman.value == pytest.approx(
        stats.spearmanr(judge[labelled], human[labelled]).statistic)


def test_bad_labels_are_refused_naming_them() -> None:
    with pytest.raises(ValueError, match="'first'"):
        judge_agreement(calls_from([(0, 1, "first", "A", True)]))
    with pytest.raises(ValueError, match="as long"):
        confusion_matrix(["A"], [])
