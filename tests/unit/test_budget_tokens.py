"""Swiss's token budget as plain logic: tokens used, tokens per call, rounds cut to fit."""

from __future__ import annotations

import random
from typing import Any

import pytest

from llm_qualitative_sort import InputError, Swiss
from llm_qualitative_sort.tournament import strategy_for
from llm_qualitative_sort.tournament.records import CallRecord
from llm_qualitative_sort.tournament.swiss.tokens import (
    Estimates,
    Spent,
    check_budget_tokens,
    estimates,
    per_call,
    spent,
    tokens_left_calls,
)

KNOWN = Estimates(alone=50, pair=100, group=180)


def test_cache_hits_cost_nothing_and_unreported_calls_count_at_the_estimate() -> None:
    paid = CallRecord("AB", "A", "", False, 200, 40).stored()
    cached = CallRecord("BA", "B", "", True, 200, 40).stored()
    unreported = CallRecord("AB", None, "", False, 0, 0).stored()
    history = [{"matches": [[0, 1, "A", [paid, cached]], [2, 3, None, [unreported]]],
                "scores": [[4, CallRecord("AB", None, "", False, 0, 0).stored()]]}]
    found = spent(history, KNOWN, groups=False)
    assert found == Spent(tokens=240 + 100 + 50, kind_calls=2, kind_tokens=340)
    assert per_call(found, KNOWN.pair) == 170.0


def test_ranking_calls_are_the_kind_of_a_run_of_groups() -> None:
    history = [{"matches": [[0, 1, "A", [CallRecord("AB", "A", "", False, 60, 5).stored()]]],
                "groups": [{"items": [0, 1, 2, 3], "order": None, "cached": False,
                            "input_tokens": 300, "output_tokens": 30},
                           {"items": [4, 5, 6, 7], "order": None, "cached": True,
                            "input_tokens": 300, "output_tokens": 30}]}]
    found = spent(history, KNOWN, groups=True)
    assert found == Spent(tokens=65 + 330, kind_calls=1, kind_tokens=330)
    assert per_call(Spent(0, 0, 0), KNOWN.group) == 180.0  # before any: the estimate


def test_the_rest_of_the_budget_pays_for_whole_calls_only() -> None:
    assert tokens_left_calls(1000, 0, 300.0) == 3
    assert tokens_left_calls(1000, 999, 0.0) == 1  # a call is never expected to be free
    assert tokens_left_calls(1000, 1200, 300.0) == 0


def test_the_estimate_grows_with_the_texts_shown() -> None:
    short, long = estimates(["a" * 40] * 8, "c", 4), estimates(["a" * 4000] * 8, "c", 4)
    assert short.alone <= short.pair <= short.group
    assert long.group - long.pair == pytest.approx(2 * 4000 / 4, abs=2)


@pytest.mark.parametrize(("group_size", "prepass", "words"), [
    (4, False, ["2 ranking calls of about 180 tokens each", "about 360, got 300"]),
    (2, True, ["after the pre-pass (10 texts scored alone, about 500)",
               "5 calls of about 100 tokens", "about 1000, got 300"]),
])
def test_a_budget_too_small_for_one_round_names_itself_and_the_estimate(
    group_size: int, prepass: bool, words: list[str]
) -> None:
    with pytest.raises(InputError, match="^budget_tokens must pay for one round") as refused:
        check_budget_tokens(300, KNOWN, 10, group_size, 1, prepass)
    for word in words:
        assert word in str(refused.value)
    check_budget_tokens(1000, KNOWN, 10, 2, 1, prepass=True)  # exactly enough


@pytest.mark.parametrize("given", [0, -5])
def test_a_budget_of_no_tokens_is_refused_by_the_settings(given: int) -> None:
    with pytest.raises(InputError, match=f"budget_tokens must be >= 1, got {given}"):
        Swiss(budget_tokens=given)


def _play(settings: Swiss, texts: list[str], tokens: int, seed: int = 5
          ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every round a judge that always prefers the larger number plays, at `tokens` a call.

    Returns the history and the standing after each round.
    """
    strategy = strategy_for(settings, len(texts), seed)
    standing = strategy.opening(texts, "larger")
    history: list[dict[str, Any]] = []
    standings = [standing]
    while not strategy.finished(standing):
        plan = strategy.plan(standing, history, len(history) + 1)
        matches = [[m.a, m.b, "A" if m.a > m.b else "B",
                    [CallRecord("AB", "A" if m.a > m.b else "B", "", False, tokens - 10,
                                10).stored()]] for m in plan.matches]
        groups = [{"items": list(g.items), "order": [[i] for i in sorted(g.items, reverse=True)],
                   "cached": False, "input_tokens": tokens - 10, "output_tokens": 10}
                  for g in plan.groups]
        history.append({"round": len(history) + 1, "matches": matches, "bye": plan.bye,
                        **({"groups": groups} if groups else {})})
        standing = strategy.update(standing, history).standing
        standings.append(standing)
    return history, standings


TEXTS = [f"{i:02d} " + "x" * random.Random(i).randrange(100, 300) for i in range(40)]


@pytest.mark.parametrize("group_size", [2, 4])
def test_a_run_ends_within_its_tokens_having_spent_all_a_call_more_would_break(
    group_size: int
) -> None:
    history, standings = _play(Swiss(budget_tokens=20_000, group_size=group_size), TEXTS, 333)
    used = standings[-1]["tokens"]
    assert 20_000 - 333 < used <= 20_000
    assert standings[-1]["per_call"] == 333.0
    calls = sum(len(e["matches"]) + len(e.get("groups", ())) for e in history)
    # 60 calls, where the call budget alone pays for 2·(2·40 − 1) = 158.
    assert calls == standings[-1]["used"] == 20_000 // 333 == 60


def test_the_calls_budget_ends_the_run_when_it_is_reached_first() -> None:
    with_tokens, _ = _play(Swiss(budget=30, budget_tokens=10**9), TEXTS, 333)
    without, _ = _play(Swiss(budget=30), TEXTS, 333)
    assert with_tokens == without


def test_without_a_token_budget_the_standing_is_as_before() -> None:
    strategy = strategy_for(Swiss(), len(TEXTS), 5)
    assert strategy.opening(TEXTS, "larger") == strategy.start()
    _, standings = _play(Swiss(), TEXTS, 333)
    assert not {"tokens", "per_call", "estimates"} & set(standings[-1])


def test_the_top_k_refinement_gets_its_share_of_the_tokens() -> None:
    settings = Swiss(budget_tokens=40_000, top_k=5)
    history, standings = _play(settings, TEXTS, 400)
    phases = [s["phase"] for s in standings]
    assert "refine" in phases and phases.index("refine") > 1
    swiss_tokens = strategy_for(settings, len(TEXTS), 5).swiss_tokens
    assert swiss_tokens is not None and swiss_tokens < 40_000
    entered = standings[phases.index("refine")]["tokens"]
    assert entered <= swiss_tokens < entered + 400 * len(TEXTS) // 2
    assert 40_000 - 400 < standings[-1]["tokens"] <= 40_000


def test_the_early_stop_still_ends_a_run_with_tokens_left() -> None:
    settings = Swiss(budget_tokens=10**7, top_k=3, stop_when_settled=True)
    _, standings = _play(settings, TEXTS, 400)
    assert standings[-1]["settled"] and standings[-1]["tokens"] < 10**7
    strategy = strategy_for(settings, len(TEXTS), 5)
    assert strategy.early_stop(standings[-1]) is not None


def test_the_same_seed_plans_the_same_rounds() -> None:
    settings = Swiss(budget_tokens=15_000, group_size=3)
    assert _play(settings, TEXTS, 250) == _play(settings, TEXTS, 250)
    assert _play(settings, TEXTS, 250, seed=6) != _play(settings, TEXTS, 250)


def test_the_standings_say_the_tokens_used_of_the_budget() -> None:
    texts = TEXTS[:8]
    strategy = strategy_for(Swiss(budget_tokens=90_000), len(texts), 5)
    standing = strategy.opening(texts, "larger")
    plan = strategy.plan(standing, [], 1)
    history = [{"round": 1, "bye": None, "matches": [
        [m.a, m.b, "A", [CallRecord("AB", "A", "", False, 1_000, 234).stored()]]
        for m in plan.matches]}]
    note = strategy.update(standing, history).notes[0]
    assert note.message.startswith("4/30 judgements, 4,936/90,000 tokens, swiss")
    assert note.data["tokens"] == 4_936 and note.data["budget_tokens"] == 90_000
    assert "tokens" not in strategy_for(Swiss(), 8, 5).update(
        strategy.start(), history).notes[0].data
