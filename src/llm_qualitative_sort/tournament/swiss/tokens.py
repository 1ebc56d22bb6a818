"""Swiss's token budget: the tokens a run has used, what a round is expected to take.

With `budget_tokens`, the standing keeps three figures besides the calls used: "tokens",
the input and output tokens of the run's paid calls so far; "per_call", the tokens a call
of the next round is expected to take; and "estimates", what a call is expected to take
before any has answered, from the texts (`Estimates`). A round is cut to the calls that
`tokens_left_calls` says the rest pays for, as the call budget cuts the last round.

The rules, each a choice:

- A call's tokens are its input and output tokens as the provider reported them. A cache
  hit costs none. A paid call that reported none (the mock, a server that sends no usage)
  counts at the estimate of its kind, so that the budget still ends the run.
- The tokens per call of the next round are the mean over the paid calls of the kind it
  asks (the matches' calls, or the ranking calls with `group_size` > 2); a pre-pass's calls
  (each text alone, shorter) count in the tokens used, not in that mean. Before any call of
  that kind has been paid, it is the estimate from the texts: the built-in prompt around
  as many texts of the run's mean length as a call shows, four characters a token, and
  150 tokens of answer (`providers._tokens.mean_call_tokens`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers._tokens import mean_call_tokens
from llm_qualitative_sort.tournament.records import read_calls, round_matches, round_scores

# Stored per-call means are rounded: enough to plan by, small and exact in checkpoints.
PER_CALL_DIGITS = 3


class Estimates(NamedTuple):
    """Tokens a call is expected to take before any has answered, from the texts.

    `alone`: a call scoring one text (a pre-pass); `pair`: a comparison of two texts;
    `group`: a call of the run's group size (the pair's for `group_size` 2).
    """

    alone: int
    pair: int
    group: int


class Spent(NamedTuple):
    """The tokens of a run's paid calls, and those of the kind the rounds ask."""

    tokens: int
    kind_calls: int
    kind_tokens: int


def estimates(texts: Sequence[str], criteria: str, group_size: int) -> Estimates:
    """What each kind of call is expected to take, from the texts' mean length.

    Example:
        >>> found = estimates(["a" * 400] * 10, "clarity", group_size=4)
        >>> found.alone < found.pair < found.group
        True
    """
    listed = list(texts)
    return Estimates(mean_call_tokens(listed, criteria, alone=True),
                     mean_call_tokens(listed, criteria),
                     mean_call_tokens(listed, criteria, shown=group_size))


def spent(history: Iterable[Any], known: Estimates, groups: bool) -> Spent:
    """The tokens of every paid call in `history`; those of the rounds' kind apart.

    `groups`: the rounds ask ranking calls (else the matches' calls are their kind).

    Example:
        >>> history = [{"matches": [[0, 1, "A", [["AB", "A", "", False, 90, 10],
        ...                                      ["BA", "B", "", True, 90, 10]]]]}]
        >>> spent(history, Estimates(50, 100, 100), groups=False)
        Spent(tokens=100, kind_calls=1, kind_tokens=100)
    """
    tokens = kind_calls = kind_tokens = 0
    for entry in history:
        for score in round_scores(entry):
            tokens += _paid(score.call.cached, score.call.input_tokens,
                            score.call.output_tokens, known.alone)
        for *_, stored in round_matches(entry):
            for call in read_calls(stored):
                used = _paid(call.cached, call.input_tokens, call.output_tokens, known.pair)
                tokens += used
                if not groups and not call.cached:
                    kind_calls, kind_tokens = kind_calls + 1, kind_tokens + used
        for log in entry.get("groups") or ():
            used = _paid(bool(log.get("cached")), int(log.get("input_tokens", 0)),
                         int(log.get("output_tokens", 0)), known.group)
            tokens += used
            if groups and not log.get("cached"):
                kind_calls, kind_tokens = kind_calls + 1, kind_tokens + used
    return Spent(tokens, kind_calls, kind_tokens)


def _paid(cached: bool, input_tokens: int, output_tokens: int, estimate: int) -> int:
    """A call's tokens: none from the cache, the estimate for a paid call that reported none."""
    if cached:
        return 0
    return input_tokens + output_tokens or estimate


def per_call(found: Spent, estimate: int) -> float:
    """The tokens a call of the next round is expected to take.

    Example:
        >>> per_call(Spent(900, 3, 600), 150), per_call(Spent(300, 0, 0), 150)
        (200.0, 150.0)
    """
    if not found.kind_calls:
        return float(estimate)
    return round(found.kind_tokens / found.kind_calls, PER_CALL_DIGITS)


def tokens_left_calls(budget_tokens: int, used: int, expected: float) -> int:
    """The calls the rest of the token budget pays for at `expected` tokens each.

    Example:
        >>> tokens_left_calls(1000, 400, 200.0), tokens_left_calls(1000, 1100, 200.0)
        (3, 0)
    """
    left = budget_tokens - used
    if left <= 0:
        return 0
    return int(left // max(expected, 1.0))


def calls_paid_for(budget_tokens: int, known: Estimates, n_items: int, group_size: int,
                   prepass: bool) -> int:
    """The calls a token budget pays for at the estimates: the pre-pass's, then the rounds'.

    Example:
        >>> calls_paid_for(1000, Estimates(50, 100, 180), 10, 2, prepass=True)
        15
    """
    before = n_items if prepass else 0
    left = budget_tokens - before * known.alone
    each = known.group if group_size > 2 else known.pair
    return before + max(left, 0) // each


def first_round(n_items: int, group_size: int, calls_per_match: int) -> int:
    """The calls of a first Swiss round in full: n // k ranking calls, or n // 2 matches.

    Example:
        >>> first_round(10, 4, 1), first_round(11, 2, 2)
        (2, 10)
    """
    if group_size > 2:
        return n_items // group_size
    return n_items // 2 * calls_per_match


def check_budget_tokens(budget_tokens: int, known: Estimates, n_items: int, group_size: int,
                        calls_per_match: int, prepass: bool) -> None:
    """Refuse a token budget that cannot pay for the first round (after a pre-pass, if any).

    Raises:
        InputError: Naming `budget_tokens`, the round's calls and their estimate.

    Example:
        >>> check_budget_tokens(300, Estimates(50, 100, 180), 10, 4, 1, prepass=False)
        Traceback (most recent call last):
        ...
        llm_qualitative_sort.errors.InputError: budget_tokens must pay for one round: 2 \
ranking calls of about 180 tokens each (estimated from the texts' mean length): about 360, \
got 300
    """
    calls = first_round(n_items, group_size, calls_per_match)
    each = known.group if group_size > 2 else known.pair
    before = n_items * known.alone if prepass else 0
    needed = calls * each + before
    if budget_tokens >= needed:
        return
    kind = "ranking calls" if group_size > 2 else "calls"
    after = (f" after the pre-pass ({n_items} texts scored alone, about {before})"
             if prepass else "")
    raise InputError(f"budget_tokens must pay for one round{after}: {calls} {kind} of about "
                     f"{each} tokens each (estimated from the texts' mean length): about "
                     f"{needed}, got {budget_tokens}")
