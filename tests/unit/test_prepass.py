"""Swiss's pointwise pre-pass: the setting, the round that scores items alone, the fits."""

from __future__ import annotations

import asyncio
import copy
import re
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import ComparisonResult, MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.metrics import kendall_tau
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
    alone = [m for m in result.match_history if m.item_a == m.item_b]
    assert len(alone) == 60 and all(m.round_number == 1 for m in alone)
    assert all(m.item_a != m.item_b for m in result.match_history[60:])
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
    # first-shown text lose, while a text scored alone is stored as a one-call match "A".
    class SecondShownWins(MockLLMProvider):
        async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                               repetition: int = 0) -> ComparisonResult:
            return ComparisonResult(winner="B", reasoning="the second")

    judge = SecondShownWins(seed=2)
    result = asyncio.run(_sorter(judge, budget=150, prepass="pointwise").sort(ITEMS))
    pairs = [call for m in result.match_history if m.item_a != m.item_b for call in m.rounds]
    alone = [m for m in result.match_history if m.item_a == m.item_b]
    assert len(alone) == len(ITEMS) and len(pairs) == 150 - len(ITEMS)
    stats = result.statistics
    for bias in (stats.position_bias, stats.judges[0].position_bias):
        assert bias is not None and bias.calls == len(pairs)
        assert bias.first_shown_share == 0.0  # the labels given alone count for no side
    assert stats.judges[0].calls == 150  # the calls are the judge's all the same
    assert stats.draws == sum(m.winner is None for m in result.match_history
                              if m.item_a != m.item_b)


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
    japanese = to_html(result, settings, lang="ja")
    assert "事前採点: 60件のテキストを単独で採点" in japanese and "pre-pass" not in japanese
    assert "<b>事前採点</b>" in japanese and "<b>prepass</b>" not in japanese
