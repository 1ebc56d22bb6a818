import itertools
import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_qualitative_sort.metrics import (
    correct_pair_ratio,
    flatten_rankings,
    kendall_tau,
    segment_pair_ratio,
    top_k_accuracy,
)

Rankings = list[tuple[int, list[str]]]
TRUTH = ["a", "b", "c", "d", "e"]


def ranked(*groups: list[str]) -> Rankings:
    """Competition ranks for groups given best first."""
    out: Rankings = []
    rank = 1
    for group in groups:
        out.append((rank, group))
        rank += len(group)
    return out


# --- references written straight from the definitions, O(n²) or worse -------------------


def reference_tau_b(rankings: Rankings, truth: Sequence[str]) -> float:
    rank = dict(flatten_rankings(rankings))
    x = [rank[item] for item in truth]
    y = list(range(len(truth)))
    s = t_x = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        s += ((x[i] > x[j]) - (x[i] < x[j])) * ((y[i] > y[j]) - (y[i] < y[j]))
        t_x += x[i] == x[j]
    n0 = len(x) * (len(x) - 1) // 2
    return s / math.sqrt((n0 - t_x) * n0)


def reference_pair_ratio(rankings: Rankings, truth: Sequence[str]) -> float:
    rank = dict(flatten_rankings(rankings))
    score = 0.0
    pairs = list(itertools.combinations(truth, 2))  # (better, worse) in truth
    for better, worse in pairs:
        score += 1.0 if rank[better] < rank[worse] else 0.5 if rank[better] == rank[worse] else 0
    return score / len(pairs)


def reference_top_k(rankings: Rankings, truth: Sequence[str], k: int) -> float:
    """Average over every way of breaking the ties (each equally likely)."""
    top = set(truth[:k])
    groups = [list(itertools.permutations(group)) for _, group in rankings]
    shares = []
    for choice in itertools.product(*groups):
        order = list(itertools.chain.from_iterable(choice))
        shares.append(len(top & set(order[:k])) / k)
    return sum(shares) / len(shares)


# --- hypothesis strategy: a true order and a prediction with ties ----------------------


@st.composite
def case(draw: st.DrawFn, min_size: int = 2, max_size: int = 12) -> tuple[Rankings, list[str]]:
    n = draw(st.integers(min_size, max_size))
    truth = [f"item{i}" for i in range(n)]
    predicted = draw(st.permutations(truth))
    tie_with_previous = draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1))
    groups: list[list[str]] = [[predicted[0]]]
    for item, tie in zip(predicted[1:], tie_with_previous, strict=True):
        if tie:
            groups[-1].append(item)
        else:
            groups.append([item])
    return ranked(*groups), truth


def reverse(rankings: Rankings) -> Rankings:
    return ranked(*[list(group) for _, group in reversed(rankings)])


# --- flatten_rankings ---------------------------------------------------------------------


def test_flatten_lists_items_with_their_ranks_in_rank_order() -> None:
    assert flatten_rankings([(1, ["x"]), (2, ["y", "z"]), (4, ["w"])]) == [
        ("x", 1), ("y", 2), ("z", 2), ("w", 4)
    ]
    assert flatten_rankings([]) == []


@pytest.mark.parametrize(
    ("rankings", "message"),
    [
        ([(2, ["a"]), (1, ["b"])], "increasing"),
        ([(1, ["a"]), (1, ["b"])], "increasing"),
        ([(0, ["a"])], "positive"),
        ([(1, [])], "no items"),
        ([(1, ["a"]), (2, ["a"])], "more than once"),
        ([(True, ["a"])], "positive ints"),
    ],
)
def test_flatten_rejects_malformed_rankings(rankings: Rankings, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        flatten_rankings(rankings)


# --- hand-computed cases --------------------------------------------------------------------


def test_perfect_order() -> None:
    perfect = ranked(*[[item] for item in TRUTH])
    assert kendall_tau(perfect, TRUTH) == 1.0
    assert correct_pair_ratio(perfect, TRUTH) == 1.0
    assert all(top_k_accuracy(perfect, TRUTH, k) == 1.0 for k in range(1, 6))


def test_reversed_order() -> None:
    backwards = ranked(*[[item] for item in reversed(TRUTH)])
    assert kendall_tau(backwards, TRUTH) == -1.0
    assert correct_pair_ratio(backwards, TRUTH) == 0.0
    assert top_k_accuracy(backwards, TRUTH, 2) == 0.0
    assert top_k_accuracy(backwards, TRUTH, 3) == pytest.approx(1 / 3)  # c is in both


def test_all_tied_carries_no_order() -> None:
    tied = [(1, list(TRUTH))]
    assert kendall_tau(tied, TRUTH) == 0.0
    assert correct_pair_ratio(tied, TRUTH) == 0.5
    # Any 2 of 5 drawn at random: each true-top item gets in with probability 2/5.
    assert top_k_accuracy(tied, TRUTH, 2) == pytest.approx(2 / 5)


def test_tau_b_with_a_tie_and_a_discordant_pair() -> None:
    # Ranks in true order a..d: 2, 1, 2, 4. Pairs: (a,b) discordant, (a,c) tied, the
    # other four concordant: tau-b = (4 - 1) / sqrt((6 - 1) * 6).
    rankings = ranked(["b"], ["a", "c"], ["d"])
    truth = ["a", "b", "c", "d"]
    assert kendall_tau(rankings, truth) == pytest.approx(3 / math.sqrt(30))
    assert correct_pair_ratio(rankings, truth) == pytest.approx(4.5 / 6)


def test_tau_b_tie_correction_differs_from_tau_a() -> None:
    # C = 2, D = 0, one tied pair: tau-a would be 2/3; tau-b is 2 / sqrt(2 * 3).
    assert kendall_tau(ranked(["a", "b"], ["c"]), ["a", "b", "c"]) == pytest.approx(
        2 / math.sqrt(6)
    )


def test_top_k_with_a_tie_straddling_the_boundary() -> None:
    rankings = ranked(["a"], ["b", "c", "d"], ["e"])
    # k = 2: a is in; one of b, c, d fills the last place, so b gets in with chance 1/3.
    assert top_k_accuracy(rankings, TRUTH, 2) == pytest.approx((1 + 1 / 3) / 2)
    # k = 3: two of b, c, d get in; b and c each with chance 2/3.
    assert top_k_accuracy(rankings, TRUTH, 3) == pytest.approx((1 + 2 * 2 / 3) / 3)
    # k = 4: the whole group is in; no draw left.
    assert top_k_accuracy(rankings, TRUTH, 4) == 1.0


def test_top_k_when_the_true_best_is_buried_in_a_tie() -> None:
    rankings = ranked(["e"], ["a", "b", "c", "d"])
    # k = 2: e takes a place; one of four fills the other; a or b each with chance 1/4.
    assert top_k_accuracy(rankings, TRUTH, 2) == pytest.approx((2 * 1 / 4) / 2)


def test_segment_ratio_looks_only_inside_the_segment() -> None:
    # Top two exactly right, bottom three tied, one cross-segment error that must not count.
    rankings = ranked(["a"], ["c"], ["b"], ["d", "e"])
    assert segment_pair_ratio(rankings, TRUTH, 0, 2) == 1.0
    assert segment_pair_ratio(rankings, TRUTH, 3, 5) == 0.5
    assert segment_pair_ratio(rankings, TRUTH, 1, 3) == 0.0
    assert segment_pair_ratio(rankings, TRUTH, 0, 5) == correct_pair_ratio(rankings, TRUTH)


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda r, t: kendall_tau(r, t),
        lambda r, t: correct_pair_ratio(r, t),
        lambda r, t: top_k_accuracy(r, t, 1),
        lambda r, t: segment_pair_ratio(r, t, 0, 2),
    ],
)
def test_every_metric_requires_the_same_items(call: object) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match="missing from rankings: \\['c'\\]"):
        call(ranked(["a"], ["b"]), ["a", "b", "c"])
    with pytest.raises(ValueError, match="not in true_order: \\['z'\\]"):
        call(ranked(["a"], ["b"], ["z"]), ["a", "b"])
    with pytest.raises(ValueError, match="more than once"):
        call(ranked(["a"], ["b"]), ["a", "b", "a"])
    with pytest.raises(ValueError, match="more than once"):
        call(ranked(["a"], ["b", "a"]), ["a", "b"])


@pytest.mark.parametrize("k", [0, -1, 6, 2.0, True])
def test_top_k_rejects_k_outside_1_to_n(k: int) -> None:
    perfect = ranked(*[[item] for item in TRUTH])
    with pytest.raises(ValueError, match="k must be an int in 1..5"):
        top_k_accuracy(perfect, TRUTH, k)


@pytest.mark.parametrize(("start", "stop"), [(-1, 2), (0, 1), (3, 3), (4, 6), (2, 1)])
def test_segment_rejects_a_segment_without_pairs_or_out_of_range(start: int, stop: int) -> None:
    perfect = ranked(*[[item] for item in TRUTH])
    with pytest.raises(ValueError, match="start"):
        segment_pair_ratio(perfect, TRUTH, start, stop)


def test_pair_metrics_need_two_items() -> None:
    with pytest.raises(ValueError, match="at least two"):
        kendall_tau([(1, ["a"])], ["a"])
    with pytest.raises(ValueError, match="at least two"):
        correct_pair_ratio([], [])


# --- cross-checks against the definitions ------------------------------------------------


@given(case())
def test_tau_b_matches_the_definition(data: tuple[Rankings, list[str]]) -> None:
    rankings, truth = data
    if len(rankings) == 1:
        assert kendall_tau(rankings, truth) == 0.0
    else:
        assert kendall_tau(rankings, truth) == pytest.approx(reference_tau_b(rankings, truth))


@given(case())
def test_pair_ratio_matches_the_definition(data: tuple[Rankings, list[str]]) -> None:
    rankings, truth = data
    assert correct_pair_ratio(rankings, truth) == pytest.approx(
        reference_pair_ratio(rankings, truth)
    )


@given(case(min_size=1, max_size=7), st.data())
def test_top_k_is_the_exact_mean_over_all_tie_breaks(
    data: tuple[Rankings, list[str]], pick: st.DataObject
) -> None:
    rankings, truth = data
    k = pick.draw(st.integers(1, len(truth)))
    assert top_k_accuracy(rankings, truth, k) == pytest.approx(
        reference_top_k(rankings, truth, k)
    )


@given(case(), st.data())
def test_segment_ratio_is_the_ratio_of_the_sub_ranking(
    data: tuple[Rankings, list[str]], pick: st.DataObject
) -> None:
    rankings, truth = data
    start = pick.draw(st.integers(0, len(truth) - 2))
    stop = pick.draw(st.integers(start + 2, len(truth)))
    inside = set(truth[start:stop])
    sub = [(rank, [i for i in group if i in inside]) for rank, group in rankings]
    sub = [(rank, group) for rank, group in sub if group]
    assert segment_pair_ratio(rankings, truth, start, stop) == pytest.approx(
        reference_pair_ratio(sub, truth[start:stop])
    )


# --- properties -----------------------------------------------------------------------------


@given(case())
def test_reversing_the_prediction_mirrors_the_pair_metrics(
    data: tuple[Rankings, list[str]],
) -> None:
    rankings, truth = data
    tau, ratio = kendall_tau(rankings, truth), correct_pair_ratio(rankings, truth)
    assert -1.0 <= tau <= 1.0 and 0.0 <= ratio <= 1.0
    assert kendall_tau(reverse(rankings), truth) == pytest.approx(-tau)
    assert correct_pair_ratio(reverse(rankings), truth) == pytest.approx(1 - ratio)


@given(st.permutations([f"item{i}" for i in range(10)]))
def test_without_ties_tau_is_twice_the_pair_ratio_minus_one(predicted: list[str]) -> None:
    truth = [f"item{i}" for i in range(10)]
    rankings = ranked(*[[item] for item in predicted])
    assert kendall_tau(rankings, truth) == pytest.approx(
        2 * correct_pair_ratio(rankings, truth) - 1
    )


@given(case())
def test_only_the_order_of_ranks_matters(data: tuple[Rankings, list[str]]) -> None:
    rankings, truth = data
    dense = [(i + 1, group) for i, (_, group) in enumerate(rankings)]
    assert kendall_tau(dense, truth) == kendall_tau(rankings, truth)
    assert correct_pair_ratio(dense, truth) == correct_pair_ratio(rankings, truth)


@given(case(min_size=1))
def test_top_k_of_everything_is_one_and_sums_are_consistent(
    data: tuple[Rankings, list[str]],
) -> None:
    rankings, truth = data
    n = len(truth)
    assert top_k_accuracy(rankings, truth, n) == pytest.approx(1.0)
    for k in range(1, n + 1):
        assert 0.0 <= top_k_accuracy(rankings, truth, k) <= 1.0 + 1e-12


def test_a_thousand_items_match_the_reference() -> None:
    rng = random.Random(7)
    truth = [str(i) for i in range(1000)]
    noisy = sorted(truth, key=lambda t: int(t) + rng.gauss(0, 50))
    groups: list[list[str]] = []
    while noisy:
        size = rng.choice([1, 1, 1, 2, 5, 30])  # mostly singles, a few large tied blocks
        groups.append(noisy[:size])
        noisy = noisy[size:]
    rankings = ranked(*groups)
    assert kendall_tau(rankings, truth) == pytest.approx(reference_tau_b(rankings, truth))
    assert correct_pair_ratio(rankings, truth) == pytest.approx(
        reference_pair_ratio(rankings, truth)
    )
