"""The pure logic of people's labels in a run: stored form, pairs asked, calls read."""

from __future__ import annotations

import pytest
from scipy import stats

from llm_qualitative_sort import InputError, SettingTypeError
from llm_qualitative_sort.rating.scoring import ItemScore, ScoredCall
from llm_qualitative_sort.results.human import HumanLabels, HumanScore, HumanVerdict
from llm_qualitative_sort.results.labelled import (
    checked_human,
    kendall_tau,
    label_confusion,
    label_state,
    labelled_calls,
    labels_digest,
    pairs_to_ask,
    pointwise_calls,
    reindexed,
    score_verdicts,
    state_labels,
)
from llm_qualitative_sort.verdicts import MatchResult, RoundResult

LABELS = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 0, "tie"),
                      HumanVerdict(2, 3, "B")), (HumanScore(0, 2.0),))


def test_the_stored_form_reads_back_the_same_labels() -> None:
    assert state_labels(label_state(LABELS)) == LABELS
    assert state_labels(None) is None and state_labels({}) is None


def test_the_digest_does_not_depend_on_the_order_of_the_items() -> None:
    texts = ["d", "c", "b", "a"]
    moved = reindexed(LABELS, texts, sorted(texts))
    assert [(v.a, v.b) for v in moved.verdicts] == [(3, 2), (2, 3), (1, 0)]
    assert labels_digest(LABELS, texts) == labels_digest(moved, sorted(texts))
    assert labels_digest(LABELS, texts) != labels_digest(LABELS, sorted(texts))


def test_a_pair_played_in_either_orientation_is_not_asked_again() -> None:
    history = [{"round": 1, "matches": [[1, 0, "A", []], [2, 2, None, []]], "bye": None}]
    assert pairs_to_ask(LABELS, history) == [(2, 3)]
    assert pairs_to_ask(LABELS, []) == [(0, 1), (2, 3)]
    assert pairs_to_ask(None, []) == []


def test_calls_are_read_in_the_persons_terms_and_a_failed_call_has_no_verdict() -> None:
    items = ["a", "b", "c", "d"]
    # The match shows b first: its "A" is b's win, its "BA" call showed a first.
    match = MatchResult("b", "a", "A", [RoundResult("AB", "A", "b is better", False),
                                        RoundResult("BA", None, "unreadable", False)])
    calls = labelled_calls(HumanLabels((HumanVerdict(0, 1, "A"),)), items, [match])
    assert [(c.judge, c.a_shown_first, c.reason) for c in calls] == [
        ("B", False, "b is better"), (None, True, "unreadable")]


def test_a_pointwise_judge_compares_labelled_pairs_by_its_scores() -> None:
    scored = [ItemScore("a", 0.5), ItemScore("b", 0.25), ItemScore("c", None)]
    labels = HumanLabels((HumanVerdict(0, 1, "B"), HumanVerdict(1, 0, "B"),
                          HumanVerdict(0, 2, "A")))
    calls = pointwise_calls(labels, ["a", "b", "c"], scored)
    assert [c.judge for c in calls] == ["A", "B", None]


def test_label_confusion_only_where_the_scales_match() -> None:
    call = ScoredCall(label=3, expected=3.0, score=0.5, distribution=None, reason="")
    scored = [ItemScore("a", 0.5, (call, call)), ItemScore("b", 0.5, (call,))]
    on_scale = HumanLabels(scores=(HumanScore(0, 3.0), HumanScore(1, 1.0)))
    assert label_confusion(on_scale, ["a", "b"], scored, [1, 2, 3]) == (
        (0, 0, 1), (0, 0, 0), (0, 0, 2))
    off_scale = HumanLabels(scores=(HumanScore(0, 3.5),))
    assert label_confusion(off_scale, ["a", "b"], scored, [1, 2, 3]) is None


def test_kendall_tau_b_is_scipys_on_the_items_both_score() -> None:
    judge, human = [0.1, 0.4, 0.4, -1.0, 2.0], [1.0, 3.0, 2.0, 2.0, float("nan")]
    expected = stats.kendalltau(judge[:4], human[:4], variant="b").statistic
    assert kendall_tau(judge, human) == pytest.approx(expected)
    assert kendall_tau([1.0, 1.0], [1.0, 2.0]) is None


def test_scores_alone_become_a_verdict_per_pair_for_the_anchor() -> None:
    labels = HumanLabels(scores=(HumanScore(2, 1.0), HumanScore(0, 3.0), HumanScore(1, 3.0)))
    assert [(v.a, v.b, v.winner) for v in score_verdicts(labels)] == [
        (0, 1, "tie"), (0, 2, "A"), (1, 2, "A")]


def test_sort_takes_a_list_of_verdicts_and_refuses_other_types() -> None:
    assert checked_human([(0, 1, "a")], ["x", "y"]).verdicts == (HumanVerdict(0, 1, "A"),)
    with pytest.raises(SettingTypeError, match="human must be"):
        checked_human("0,1,A", ["x", "y"])
    with pytest.raises(InputError, match="out of range"):
        checked_human({"scores": {5: 1.0}}, ["x", "y"])
