"""Swiss's pointwise pre-pass: the setting, the round that scores items alone, the fits."""

from __future__ import annotations

import asyncio
import copy
import csv
import dataclasses
import io
import json
import re
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import (
    ComparisonResult,
    MemoryCache,
    MockLLMProvider,
    PointwiseResult,
    QualitativeSorter,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.metrics import kendall_tau
from llm_qualitative_sort.rating.scoring import call_score
from llm_qualitative_sort.results.from_state import sort_result
from llm_qualitative_sort.tournament.swiss import prepass
from llm_qualitative_sort.tournament.swiss.evidence import gather_evidence
from llm_qualitative_sort.tournament.swiss.strategy import SwissStrategy

ITEMS = [str(n) for n in range(60)]
TRUTH = sorted(ITEMS, key=int, reverse=True)


def _sorter(judge: MockLLMProvider, **settings: object) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", strategy=Swiss(**settings),  # type: ignore[arg-type]
                             seed=2, checkpointer=None)


def test_the_setting_is_checked_and_stored_only_when_on() -> None:
    with pytest.raises(ValueError, match='prepass must be None, "pointwise"'):
        Swiss(prepass="elimination")
    assert Swiss().stored()["prepass"] is None
    assert Swiss(prepass="pointwise").stored()["prepass"] == "pointwise"
    with pytest.raises(ValueError, match="pre-pass"):
        SwissStrategy.check(Swiss(budget=60, prepass="pointwise"), 60)


def test_the_first_round_scores_every_item_alone_then_pairs() -> None:
    strategy = SwissStrategy(Swiss(budget=150, prepass="pointwise"), 60, seed=1)
    standing = strategy.start()
    assert strategy.question(standing) == prepass.question("pointwise")
    plan = strategy.plan(standing, [], 1)
    assert plan.matches == []
    assert [(s.item, s.repetition) for s in plan.scores] == [(i, 0) for i in range(60)]
    assert strategy.match_bounds() == (150, 150)
    no_prepass = SwissStrategy(Swiss(budget=150), 60, seed=1)
    assert no_prepass.question(no_prepass.start()) is None


def test_a_run_spends_n_calls_scoring_then_the_rest_on_matches() -> None:
    judge = MockLLMProvider(seed=3, pointwise="calibrated")
    result = asyncio.run(_sorter(judge, budget=150, prepass="pointwise").sort(ITEMS))
    assert judge.calls == 150 == result.statistics.total_api_calls
    # The pre-pass (round 1) scored each text once; the matches come after it.
    assert [len(s.calls) for s in result.prepass] == [1] * 60
    assert sorted(s.item for s in result.prepass) == sorted(ITEMS)
    assert len(result.match_history) == 90 == result.statistics.total_matches
    assert all(m.item_a != m.item_b and m.round_number > 1 for m in result.match_history)
    assert kendall_tau(result.rankings, TRUTH) > 0.7


def test_the_scores_reach_the_fit_as_virtual_calls() -> None:
    # With the scores' virtual calls the ranking beats pairing by the scores alone (a
    # budget of 1.5 n leaves half a Swiss round: most items meet nobody).
    taus = {}
    for rounds in (0, prepass.SCORE_ROUNDS):
        saved, prepass.SCORE_ROUNDS = prepass.SCORE_ROUNDS, rounds
        try:
            result = asyncio.run(_sorter(MockLLMProvider(seed=3, pointwise="calibrated"),
                                         budget=90, prepass="pointwise").sort(ITEMS))
        finally:
            prepass.SCORE_ROUNDS = saved
        taus[rounds] = kendall_tau(result.rankings, TRUTH)
    assert taus[prepass.SCORE_ROUNDS] > taus[0] + 0.2


def test_the_result_of_a_released_history_still_fits_the_virtual_calls() -> None:
    # The sorter builds its result with `release`, which empties the history as its matches
    # are read: the pre-pass's virtual calls must be taken from it before that.
    async def final_state() -> dict[str, Any]:
        graph = build_graph(InMemorySaver())
        given = {"items": ITEMS, "criteria": "larger", "seed": 3,
                 "settings": {"strategy": "swiss", "budget": 90, "prepass": "pointwise"}}
        config: Any = {"configurable": {"thread_id": "t"}}
        await graph.ainvoke(given, config)
        return dict((await graph.aget_state(config)).values)

    state = asyncio.run(final_state())
    kept = sort_result(copy.deepcopy(state), "t", 0.0, "bradley_terry")
    released = sort_result(state, "t", 0.0, "bradley_terry", release=True)
    assert not any(entry["matches"] for entry in state["history"])  # it was released
    assert released.scores == kept.scores and released.rankings == kept.rankings


def test_virtual_calls_are_symmetric_and_skip_equal_certain_labels() -> None:
    assert prepass.beats({4: 1.0}, {3: 0.5, 4: 0.5}) == 0.75
    # Probabilities that sum to 1 only up to rounding still give a share in [0, 1].
    spread = {2: 0.36506899198262255, 3: 0.5787927773682225, 4: 0.05613823064915503}
    assert sum(spread.values()) > 1.0 and prepass.beats(spread, {1: 1.0}) == 1.0
    spreads: list[prepass.Spread | None] = [{4: 1.0}, {4: 1.0}, {1: 1.0}, None]
    first, second, won = prepass.score_calls(spreads, rounds=6)
    assert set(won) <= {0.0, 1.0}  # no ½ for the two texts both rated 4
    assert 3 not in set(first) | set(second)  # the unscored text gets none
    pairs = {(int(a), int(b)): float(w) for a, b, w in zip(first, second, won, strict=True)}
    assert all(pairs[(b, a)] == 1 - w for (a, b), w in pairs.items())


def test_the_inverse_question_is_read_from_the_other_end() -> None:
    history = [{"matches": [[0, 0, "A", [["AB", "A", "", False, 0, 0,
                                           {"pointwise": {"label": 1, "distribution": None}}]]],
                            [1, 1, "A", [["AB", "A", "", False, 0, 0,
                                           {"pointwise": {"label": 4, "distribution": None}}]]]]}]
    assert prepass.label_spreads(history, 2) == [{1: 1.0}, {4: 1.0}]
    assert prepass.label_spreads(history, 2, inverse=True) == [{4: 1.0}, {1: 1.0}]
    # The pre-pass's calls count as judgements, not as meetings of two items.
    evidence = gather_evidence(history, 2)
    assert evidence.calls == 2 and not evidence.meetings and len(evidence.first) == 0


def test_the_inverse_prepass_runs_and_ranks() -> None:
    judge = MockLLMProvider(seed=3, pointwise="calibrated")
    result = asyncio.run(_sorter(judge, budget=150, prepass="pointwise-inverse").sort(ITEMS))
    assert kendall_tau(result.rankings, TRUTH) > 0.7


def test_the_prepass_round_asks_a_pointwise_prompt() -> None:
    from llm_qualitative_sort.prompts._run import round_prompt
    from llm_qualitative_sort.prompts.setup import PromptSetup
    from llm_qualitative_sort.prompts.template import PromptTemplate

    japanese = PromptSetup(PromptTemplate.builtin("ja"))
    assert round_prompt(japanese, False) is japanese  # a round of pairs: the run's own
    assert round_prompt(japanese, True).template.name == "builtin:ja:pointwise"
    own = PromptSetup(PromptTemplate(system="Judge {{ criteria }}.",
                                     user="{{ text_a }} or {{ text_b }}?"))
    assert round_prompt(own, True).template.name == "builtin:en:pointwise"


def test_the_audit_of_a_prepass_run_reads_order_from_the_matches_alone() -> None:
    # A judge that always prefers the text shown second: every pair call has the
    # first-shown text lose, while a text scored alone has no first-shown text.
    class SecondShownWins(MockLLMProvider):
        async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                               repetition: int = 0) -> ComparisonResult:
            return ComparisonResult(winner="B", reasoning="the second")

    judge = SecondShownWins(seed=2)
    result = asyncio.run(_sorter(judge, budget=150, prepass="pointwise").sort(ITEMS))
    pairs = [call for m in result.match_history for call in m.rounds]
    alone = [call for s in result.prepass for call in s.calls]
    assert len(alone) == len(ITEMS) and len(pairs) == 150 - len(ITEMS)
    stats = result.statistics
    for bias in (stats.position_bias, stats.judges[0].position_bias):
        assert bias is not None and bias.calls == len(pairs)
        assert bias.first_shown_share == 0.0  # the labels given alone count for no side
    assert stats.judges[0].calls == 150  # the calls are the judge's all the same
    assert stats.draws == sum(m.winner is None for m in result.match_history)


def test_the_html_report_of_a_prepass_run_counts_each_phase_in_its_language() -> None:
    from llm_qualitative_sort.reports import to_html

    result = asyncio.run(_sorter(MockLLMProvider(seed=2), budget=150,
                                 prepass="pointwise").sort(ITEMS))
    settings = {"criteria": "larger", "strategy": "swiss", "budget": 150,
                "prepass": "pointwise"}
    english = to_html(result, settings)
    assert "pre-pass: 60 texts scored alone (60 scored), then 90 Swiss matches (90 calls)" \
        in english
    # The cards: the texts scored alone, then the matches between two texts.
    cards = re.findall(r'<div class="value">([^<]*)</div><div class="label">([^<]*)</div>',
                       english)
    assert cards[:2] == [("60", "texts scored alone"), ("90", "total matches")]
    # Each text's score alone opens its list of matches; it is no win nor loss.
    assert english.count("<td>scored alone (pre-pass)</td>") == 60
    rows = re.findall(r'<td class="num">(\d+)</td><td class="num">(\d+)</td></tr>', english)
    assert len(rows) == 60 and sum(int(won) for won, _ in rows) == 90 - result.statistics.draws
    japanese = to_html(result, settings, lang="ja")
    assert "事前採点: 60件のテキストを単独で採点" in japanese and "pre-pass" not in japanese
    assert "<b>事前採点</b>" in japanese and "<b>prepass</b>" not in japanese
    assert japanese.count("<td>単独で採点（事前採点）</td>") == 60


def test_the_csv_report_counts_matches_of_two_texts_as_wins_and_losses() -> None:
    from llm_qualitative_sort.reports import to_csv

    result = asyncio.run(_sorter(MockLLMProvider(seed=2), budget=150,
                                 prepass="pointwise").sort(ITEMS))
    rows = list(csv.DictReader(io.StringIO(to_csv(result))))
    decided = 90 - result.statistics.draws
    assert sum(int(r["wins"]) for r in rows) == decided
    assert sum(int(r["losses"]) for r in rows) == decided + 2 * result.statistics.draws


class _Counted(MockLLMProvider):
    """Tokens on every answer; no label for every seventh text; the labels it gave, kept."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.labels: dict[str, int | None] = {}

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int, ties: bool = False) -> ComparisonResult:
        found = await super().compare_call(item_a, item_b, criteria, repetition=repetition,
                                           ties=ties)
        return dataclasses.replace(found, input_tokens=120, output_tokens=9)

    async def score_call(self, text: str, criteria: str, **kwargs: Any) -> PointwiseResult:
        found = await super().score_call(text, criteria, **kwargs)
        label = None if int(text) % 7 == 0 else found.label
        self.labels[text] = label
        return dataclasses.replace(found, label=label, input_tokens=40 + int(text),
                                   output_tokens=3,
                                   distribution=None if label is None else found.distribution)


def _counted_run(cache: MemoryCache, budget: int, rounds: int, prepass: str = "pointwise"
                 ) -> tuple[_Counted, SortResult]:
    judge = _Counted(seed=4, pointwise="calibrated", noise_stddev=20)
    swiss = Swiss(budget=budget, prepass=prepass, comparison_rounds=rounds)  # type: ignore[arg-type]
    sorter = QualitativeSorter(judge, criteria="larger", seed=3, checkpointer=None,
                               cache=cache, strategy=swiss)
    return judge, asyncio.run(sorter.sort([str(i) for i in range(30)]))


def test_the_prepass_scores_are_the_results_scores_not_matches_of_a_text_with_itself() -> None:
    judge, result = _counted_run(MemoryCache(), 75, 1, "pointwise-inverse")
    assert not [m for m in result.match_history if m.item_a == m.item_b]
    # One score per text, with the label its call gave (none for every seventh text).
    assert [s.item for s in result.prepass] == sorted(judge.labels)
    assert {s.item: [c.label for c in s.calls] for s in result.prepass} == {
        text: [label] for text, label in judge.labels.items()}
    assert all((s.score is None) == (judge.labels[s.item] is None) for s in result.prepass)
    # Read with the pre-pass's question: the inverse question's low label scores high.
    labelled = [c for s in result.prepass for c in s.calls if c.expected is not None]
    assert len(labelled) == 25 and any(c.label == 1 and c.score > 0.9 for c in labelled)
    assert all(c.score == call_score(c.expected, prepass.SCALE, True) for c in labelled)
    assert result.pointwise == ()  # not a pointwise run


def test_the_json_report_keeps_the_prepass_scores_and_no_self_match() -> None:
    from llm_qualitative_sort.reports import from_json_dict, to_json_dict

    _, result = _counted_run(MemoryCache(), 75, 1)
    report = json.loads(json.dumps(to_json_dict(result)))
    assert all(m["item_a"] != m["item_b"] for m in report["match_history"])
    assert [entry["item"] for entry in report["prepass"]] == [s.item for s in result.prepass]
    assert report["phases"] == {"prepass": {"texts": 30, "calls": 30, "scored": 25},
                                "swiss": {"matches": 45, "calls": 45}}
    again = from_json_dict(report)
    assert again.prepass == result.prepass and again.match_history == result.match_history
    # A report written before: its texts scored alone were one-call self-matches, unlabelled.
    earlier = copy.deepcopy(report)
    del earlier["prepass"]
    earlier["match_history"][:0] = [
        {"item_a": s.item, "item_b": s.item, "winner": "A", "round_number": 1,
         "rounds": [{"order": "AB", "winner": "A", "reasoning": "", "cached": False,
                     "input_tokens": 40, "output_tokens": 3}]} for s in result.prepass]
    earlier["statistics"]["total_matches"] += 30
    old = from_json_dict(earlier)
    assert old.match_history == result.match_history and old.prepass == ()
    assert old.statistics.total_matches == 75  # the statistics as the report wrote them


# The figures of these runs as counted when the pre-pass's calls were listed as one-call
# matches of a text with itself: every total but the matches is the same.
COUNTED_BEFORE: dict[str, dict[str, Any]] = {
    "paid": {"total_api_calls": 75, "cache_hits": 0, "failed_calls": 5, "draws": 0,
             "input_tokens": 7035, "output_tokens": 495, "judge": [75, 75, 5, 7035, 495]},
    "cached": {"total_api_calls": 44, "cache_hits": 46, "failed_calls": 5, "draws": 13,
               "input_tokens": 4950, "output_tokens": 366, "judge": [90, 44, 5, 4950, 366]},
}


@pytest.mark.parametrize(("name", "budget", "rounds"), [("paid", 75, 1), ("cached", 90, 2)])
def test_the_totals_count_the_prepass_calls_as_before(name: str, budget: int,
                                                      rounds: int) -> None:
    cache = MemoryCache()
    _, result = _counted_run(cache, 75, 1)
    if name == "cached":  # the pre-pass and the first matches from the cache
        _, result = _counted_run(cache, budget, rounds)
    stats, judge = result.statistics, result.statistics.judges[0]
    found = {"total_api_calls": stats.total_api_calls, "cache_hits": stats.cache_hits,
             "failed_calls": stats.failed_calls, "draws": stats.draws,
             "input_tokens": stats.input_tokens, "output_tokens": stats.output_tokens,
             "judge": [judge.calls, judge.paid_calls, judge.failed_calls,
                       judge.input_tokens, judge.output_tokens]}
    assert found == COUNTED_BEFORE[name]
    assert stats.total_matches == len(result.match_history) == (budget - 30) // rounds
