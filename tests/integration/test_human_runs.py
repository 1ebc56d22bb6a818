"""Runs checked against people's labels: asked, stored, resumed, measured and anchored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from test_runs import ITEMS, BreaksAfter

from llm_qualitative_sort import (
    InputError,
    MemoryCache,
    MockLLMProvider,
    Pointwise,
    QualitativeSorter,
    RunMismatchError,
    RunStoppedError,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.results.human import HumanLabels, HumanVerdict

# Indices into ITEMS ("0", "3", ..., "87"); several people on one pair, one of them wrong.
VERDICTS = [(0, 29, "B"), (5, 4, "A"), (10, 11, "B"), (10, 11, "A"), (2, 20, "B"),
            (7, 8, "tie"), (14, 3, "A"), (26, 12, "A")]
LABELLED = {frozenset((a, b)) for a, b, _ in VERDICTS}


def _sorter(judge: MockLLMProvider, store: Path | None, **options: Any) -> QualitativeSorter:
    options.setdefault("max_concurrent_requests", 4)
    return QualitativeSorter(judge, criteria="larger", seed=9, checkpointer=store, **options)


def pairs_played(result: SortResult, rounds: slice = slice(None)) -> set[frozenset[int]]:
    index = {text: i for i, text in enumerate(ITEMS)}
    return {frozenset((index[m.item_a], index[m.item_b]))
            for m in result.match_history[rounds]}


def calls_of(result: SortResult) -> list[tuple[str, str, str, str | None, int]]:
    return [(m.item_a, m.item_b, c.order, c.winner, m.round_number)
            for m in result.match_history for c in m.rounds]


# Swiss keeps two calls of its budget back for each labelled pair: it plays as the same run
# without labels and a budget smaller by that much.
@pytest.mark.parametrize(("strategy", "alone"), [
    ("elimination", "elimination"),
    (Swiss(budget=40), Swiss(budget=40 - 2 * len(LABELLED))),
])
async def test_the_judge_is_asked_each_labelled_pair_the_strategy_did_not_play(
        strategy: Any, alone: Any) -> None:
    plain_judge, judge = MockLLMProvider(seed=1), MockLLMProvider(seed=1)
    plain = await _sorter(plain_judge, None,
                          strategy=alone).sort(ITEMS)
    result = await _sorter(judge, None,
                           strategy=strategy).sort(ITEMS, human=VERDICTS)
    # The strategy's own matches and calls are those of the run without labels.
    strategy_calls = calls_of(plain)
    assert calls_of(result)[:len(strategy_calls)] == strategy_calls
    unplayed = LABELLED - pairs_played(plain)
    assert unplayed  # the test means something only if some pair was left out
    extra = result.match_history[len(plain.match_history):]
    assert {frozenset((ITEMS.index(m.item_a), ITEMS.index(m.item_b))) for m in extra} == unplayed
    # Each once, in both presentation orders; nothing played twice.
    assert all(sorted(c.order for c in m.rounds) == ["AB", "BA"] for m in extra)
    assert judge.calls == plain_judge.calls + 2 * len(unplayed)
    assert result.statistics.total_api_calls == judge.calls
    assert plain.agreement is None and plain.order == "judge" and plain.human == ""
    assert result.agreement is not None and result.human.startswith("sha256:")
    if isinstance(strategy, Swiss):  # the labelled pairs' calls within its budget
        assert judge.calls <= 40


async def test_a_budget_too_small_for_the_labelled_pairs_is_refused_before_any_call() -> None:
    judge = MockLLMProvider(seed=1)
    with pytest.raises(InputError, match=r"budget=40 must pay for the labelled pairs too: 7 "
                                         r"pairs take up to 14 calls, leaving 26 .*pre-pass"):
        await _sorter(judge, None, strategy=Swiss(budget=40, prepass="pointwise")).sort(
            ITEMS, human=VERDICTS)
    assert judge.calls == 0


async def test_agreement_matches_sklearn_on_the_runs_own_calls() -> None:
    result = await _sorter(MockLLMProvider(seed=1, noise_stddev=40), None).sort(
        ITEMS, human=VERDICTS)
    human, judge = [], []
    for a, b, winner in VERDICTS:
        for match in result.match_history:
            if {match.item_a, match.item_b} != {ITEMS[a], ITEMS[b]}:
                continue
            for call in match.rounds:
                said = call.winner if match.item_a == ITEMS[a] else \
                    {"A": "B", "B": "A", "tie": "tie"}.get(call.winner or "", None)
                if said is not None:
                    human.append(winner)
                    judge.append(said)
    agreement = result.agreement
    assert agreement is not None and agreement.compared == len(judge) > 8
    labels = ["A", "tie", "B"]
    assert agreement.kappa.value == pytest.approx(cohen_kappa_score(human, judge,
                                                                    labels=labels))
    assert np.array_equal(agreement.confusion, confusion_matrix(human, judge, labels=labels))
    assert agreement.agreed == sum(h == j for h, j in zip(human, judge, strict=True))
    assert len(agreement.disagreements) == agreement.compared - agreement.agreed
    assert all(d.reason for d in agreement.disagreements)


async def test_anchored_order_by_default_and_the_judges_own_on_request() -> None:
    judge_only = await _sorter(MockLLMProvider(seed=1), None,
                               ranking="judge").sort(ITEMS, human=VERDICTS)
    unlabelled = await _sorter(MockLLMProvider(seed=1), None).sort(ITEMS)
    assert judge_only.order == "judge" and judge_only.rankings == unlabelled.rankings
    assert judge_only.agreement is not None and judge_only.rank_intervals is None
    # People put "0" above "87" (and "42" above "9"): the anchored order follows them.
    anchored = await _sorter(MockLLMProvider(seed=1), None,
                             ).sort(ITEMS, human=[(0, 29, "A")] * 30 + VERDICTS[1:])
    order = [text for _, group in anchored.rankings for text in group]
    assert anchored.order == "anchored"
    assert order.index("0") < order.index("87")
    assert set(anchored.rank_intervals or {}) == set(ITEMS)
    low, high = anchored.intervals["0"]
    assert low < anchored.scores["0"] < high


@pytest.mark.parametrize(("human", "named"), [
    ([(0, 99, "A")], "item index 99 is out of range"),
    ([(3, 3, "A")], "an item against itself"),
    ([(0, 1, "left")], "winner 'left' is not 'A', 'B' or 'tie'"),
    ({"verdicts": [(0, 1, "A")], "votes": []}, "unknown key(s) votes"),
    ("0,1,A", "human must be a HumanLabels"),
])
async def test_bad_labels_are_refused_before_any_call(human: Any, named: str) -> None:
    judge = MockLLMProvider(seed=1)
    with pytest.raises(InputError) as refused:
        await _sorter(judge, None).sort(ITEMS, human=human)
    assert named in str(refused.value)
    assert judge.calls == 0


async def test_other_labels_on_resume_are_refused_unless_allowed(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await _sorter(BreaksAfter(limit=30), store).sort(ITEMS, run_id="r", human=VERDICTS)
    other = MockLLMProvider(seed=1)
    with pytest.raises(RunMismatchError, match="allow_human_change=True"):
        await _sorter(other, store).sort(ITEMS, run_id="r", human=VERDICTS[:-1])
    assert other.calls == 0
    # The same labels, given with the items in another order and as data, go on.
    shuffled = ITEMS[::-1]
    moved = HumanLabels(tuple(HumanVerdict(29 - a, 29 - b, w) for a, b, w in VERDICTS))
    again = await _sorter(MockLLMProvider(seed=1), store).sort(shuffled, run_id="r",
                                                                human=moved)
    assert again.agreement is not None
    changed = await _sorter(MockLLMProvider(seed=1), store).sort(
        ITEMS, run_id="r", human=VERDICTS[:2], allow_human_change=True)
    assert changed.agreement is not None and changed.agreement.pairs == 2


async def test_a_run_stopped_in_its_labelled_pairs_resumes_to_the_same_result(
        tmp_path: Path) -> None:
    whole_judge = MockLLMProvider(seed=1)
    whole = await _sorter(whole_judge, tmp_path / "whole.sqlite3").sort(
        ITEMS, run_id="r", human=VERDICTS)
    plain = MockLLMProvider(seed=1)
    await _sorter(plain, None).sort(ITEMS)
    store = tmp_path / "runs.sqlite3"
    # Stopped after the strategy's calls and three of the labelled pairs' calls.
    with pytest.raises(RunStoppedError):
        await _sorter(BreaksAfter(limit=plain.calls + 3), store).sort(
            ITEMS, run_id="r", human=VERDICTS)
    rest = MockLLMProvider(seed=1)
    resumed = await _sorter(rest, store).resume("r")
    assert resumed.rankings == whole.rankings
    assert sorted(calls_of(resumed)) == sorted(calls_of(whole))
    assert resumed.agreement == whole.agreement
    # Only the labelled calls not answered before the stop were paid again.
    assert rest.calls == whole_judge.calls - plain.calls - 3


async def test_a_pipelined_run_with_labels_stopped_midway_pays_no_call_twice(
        tmp_path: Path) -> None:
    # A pipelined run pairs players in the order their calls complete, so it need not play
    # the matches an uninterrupted run would: what holds is that every labelled pair is
    # asked and no answered call is paid again.
    store = tmp_path / "runs.sqlite3"
    breaks = BreaksAfter(limit=40)
    with pytest.raises(RunStoppedError):
        await _sorter(breaks, store, schedule="pipelined").sort(ITEMS, run_id="r",
                                                                human=VERDICTS)
    rest = MockLLMProvider(seed=1)
    resumed = await _sorter(rest, store, schedule="pipelined").resume("r")
    assert resumed.agreement is not None
    assert resumed.agreement.pairs == len({frozenset((a, b)) for a, b, _ in VERDICTS})
    assert resumed.statistics.total_api_calls == 40 + rest.calls


async def test_labelled_calls_are_cached() -> None:
    cache = MemoryCache()
    first = await _sorter(MockLLMProvider(seed=1), None,
                          cache=cache).sort(ITEMS, human=VERDICTS)
    judge = MockLLMProvider(seed=1)
    again = await _sorter(judge, None, cache=cache).sort(
        ITEMS, human=VERDICTS)
    paid, reused = first.statistics.total_api_calls, first.statistics.cache_hits
    assert judge.calls == 0 and again.statistics.cache_hits == paid + reused
    assert again.agreement == first.agreement


async def test_astream_takes_labels_too() -> None:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=9,
                               checkpointer=None)
    last = [x async for x in sorter.astream(ITEMS, human=VERDICTS)][-1]
    assert isinstance(last, SortResult) and last.agreement is not None


async def test_a_pointwise_run_is_compared_with_peoples_scores() -> None:
    scores = {i: 1 + (i * 7) % 4 for i in range(len(ITEMS))}  # on the run's 1-4 scale
    result = await _sorter(MockLLMProvider(seed=1), None,
                           strategy=Pointwise(scale="1-4", repetitions=2)).sort(
        ITEMS, human={"scores": scores})
    agreement = result.agreement
    assert agreement is not None and result.order == "anchored"
    judge = [result.pointwise[[p.item for p in result.pointwise].index(t)] for t in ITEMS]
    assert agreement.kendall == pytest.approx(stats.kendalltau(
        [j.score for j in judge], list(scores.values()), variant="b").statistic)
    assert agreement.spearman is not None and agreement.spearman.value == pytest.approx(
        stats.spearmanr([j.score for j in judge], list(scores.values())).statistic)
    people = [scores[i] for i, j in enumerate(judge) for _ in j.calls]
    labels = [c.label for j in judge for c in j.calls]
    assert agreement.scale_labels == (1, 2, 3, 4)
    assert np.array_equal(agreement.label_confusion,
                          confusion_matrix(people, labels, labels=[1, 2, 3, 4]))
    # No pair was asked: the judge scored every text alone.
    assert result.statistics.total_api_calls == 2 * len(ITEMS)


async def test_studio_input_takes_labels_by_index() -> None:
    from llm_qualitative_sort.studio import graph

    given = {"items": ITEMS, "criteria": "larger", "seed": 9,
             "human": {"verdicts": [[0, 29, "A"]] * 30}}
    anchored = await graph.ainvoke(given)
    judge = await graph.ainvoke({**given, "ranking": "judge"})
    order = [t for _, group in anchored["rankings"] for t in group]
    assert order.index("0") < order.index("87")
    judged = [t for _, g in judge["rankings"] for t in g]
    assert judged.index("87") < judged.index("0")
    with pytest.raises(InputError, match="an item against itself"):
        await graph.ainvoke({**given, "human": {"verdicts": [[4, 4, "A"]]}})
