"""`sort --dry-run`: what a run would cost, without calling anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from llm_qualitative_sort.tournament import StrategySettings, strategy_for


@dataclass(frozen=True)
class Estimate:
    """Bounds on a run's matches and LLM calls (before cache hits)."""

    items: int
    min_matches: int
    max_matches: int
    calls_per_match: int
    # Pointwise: calls per text (each call scores one text alone); 0 for pairwise runs.
    repetitions: int = 0
    # Swiss with a pre-pass: its calls (one per text, scored alone) before the matches.
    prepass: int = 0
    # Pairs people labelled (`--human`): each asked in both orders unless the strategy
    # plays it anyway, so at most two calls each, after the tournament.
    labelled_pairs: int = 0
    # Swiss with `group_size` > 2: each "match" is one ranking call of this many texts.
    group_size: int = 2

    @property
    def min_calls(self) -> int:
        """Calls if no match is drawn and the fewest matches are played."""
        return self.prepass + self.min_matches * self.calls_per_match

    @property
    def max_calls(self) -> int:
        """Calls at most."""
        return self.prepass + self.max_matches * self.calls_per_match \
            + 2 * self.labelled_pairs


def estimate(items: int, settings: StrategySettings) -> Estimate:
    """The matches and calls the strategy can take on `items` items (none for fewer than 2).

    Elimination plays N·n−N … N·n−1 matches; Swiss what its budget
    pays for.

    Example:
        >>> from llm_qualitative_sort.tournament import Elimination, Swiss
        >>> estimate(16, Elimination()).max_calls
        62
        >>> estimate(16, Swiss()).max_calls
        62
        >>> estimate(16, Swiss(group_size=4)).max_calls
        62
    """
    strategy = strategy_for(settings, items, seed=0)
    fewest, most = strategy.match_bounds()
    repetitions = getattr(settings, "repetitions", 0) if settings.scores_alone else 0
    prepass = int(getattr(strategy, "prepass_size", 0)) if items >= 2 else 0
    return Estimate(items, fewest - prepass, most - prepass, settings.calls, repetitions,
                    prepass, group_size=getattr(settings, "group_size", 2))


def print_estimate(
    plan: Estimate,
    price_per_call: float | None,
    out: TextIO,
    rounds: int = 0,
    batch_discount: float = 0.5,
    tokens_per_call: int | None = None,
    token_calls: int | None = None,
) -> None:
    """The estimate as a few lines of text; `rounds` as simulated (see `cli._rounds`).

    `tokens_per_call` is the estimate a judge paces its calls by under a tokens-per-minute
    limit (`providers._tokens.mean_call_tokens`), for the texts a call shows.
    `token_calls`: the calls a token budget pays for at that estimate (Swiss's
    `budget_tokens`; see `tournament.swiss.tokens.calls_paid_for`).
    """
    print(f"items: {plan.items}", file=out)
    if plan.repetitions:  # pointwise: no matches, each call scores one text
        print(f"LLM calls: {plan.max_calls} ({plan.items} texts × {plan.repetitions} "
              "repetitions, each text scored alone, all in one round; cache hits cost "
              "nothing)", file=out)
    elif plan.prepass:
        print(f"pre-pass: {plan.prepass} LLM calls (each text scored alone once, all in "
              "one round), then Swiss from the scores", file=out)
    if plan.group_size > 2:  # ranking calls: no match, each call orders k texts
        print(f"LLM calls: {plan.min_calls} … {plan.max_calls} (ranking calls, each "
              f"showing {plan.group_size} texts and asking for their order"
              f"{f', {plan.prepass} in the pre-pass' if plan.prepass else ''}; cache hits "
              "cost nothing)", file=out)
    elif not plan.repetitions:
        print(f"matches: {plan.min_matches} … {plan.max_matches}{_why_fewer(plan)}",
              file=out)
        print(f"LLM calls: {plan.min_calls} … {plan.max_calls} "
              f"({plan.calls_per_match} per match"
              f"{f', {plan.prepass} in the pre-pass' if plan.prepass else ''}; cache hits "
              "cost nothing)", file=out)
    if plan.labelled_pairs:
        print(f"labelled pairs: {plan.labelled_pairs}, asked in both orders after the "
              f"tournament: up to {2 * plan.labelled_pairs} LLM calls (none for a pair the "
              "strategy plays), counted above (within a Swiss budget)", file=out)
    if tokens_per_call is not None:
        print(f"tokens per call: about {tokens_per_call} (from the texts' mean length; "
              f"about {tokens_per_call * plan.max_calls:,} for {plan.max_calls:,} calls)",
              file=out)
        calls = plan.max_calls
        if token_calls is not None:
            calls = min(token_calls, plan.max_calls)
            print(f"budget_tokens pays for about {calls:,} calls"
                  + (" (the calls budget ends the run first)"
                     if token_calls >= plan.max_calls else ""), file=out)
        if plan.items:
            print(f"tokens per text: about {tokens_per_call * calls // plan.items:,}", file=out)
    if rounds:
        print(f"rounds: about {rounds} (with --batch, each is one batch turnaround: "
              "up to 24 h)", file=out)
    if price_per_call is not None:
        print(f"cost: at most {plan.max_calls * price_per_call:.4f} "
              f"at {price_per_call} per call", file=out)
        print(f"cost with --batch: at most "
              f"{plan.max_calls * price_per_call * (1 - batch_discount):.4f} "
              f"({batch_discount:.0%} off)", file=out)
    print("dry run: nothing was called", file=out)


def _why_fewer(plan: Estimate) -> str:
    """Why a run may play fewer than the most matches (elimination: draws; Swiss: its stop)."""
    if plan.min_matches == plan.max_matches:
        return ""
    if plan.min_matches == 0:  # Swiss with stop_when_settled: no lower bound but the stop
        return " (fewer if the top K are settled before the budget is spent)"
    return " (fewer when matches are drawn)"
