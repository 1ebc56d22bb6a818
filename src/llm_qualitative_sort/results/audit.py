"""The audit of a run's judges from its matches: one pass over the calls, no fit.

Tied calls (runs with `ties=True`) are counted per judge (`JudgeAudit.tied_calls`) and
left out of the position and order figures and of the agreement between judges: a tie
picks neither the first- nor the second-shown text.

Pure functions on the public result types. The only costly figure — the position advantage
of a run of single calls, which needs the fitted strengths — asks for them lazily, so a run
with both orders in every match (elimination, the default) never fits anything here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from llm_qualitative_sort.audit import JudgeAgreement, JudgeAudit, OrderConsistency, PositionBias
from llm_qualitative_sort.rating.position_bias import from_model, from_swapped_pairs
from llm_qualitative_sort.rating.scoring import ScoredCall
from llm_qualitative_sort.verdicts import MatchResult, RoundResult

CostEstimate = Callable[[int, int], float | None]
# Item → fitted strength, asked for only when a judge's calls come without AB/BA pairs.
Strengths = Callable[[], Mapping[str, float]]
# (the two texts in the order shown) → which was picked: True when the first-shown won.
_Prompts = dict[tuple[str, str], bool]


@dataclass
class _Tally:
    """One judge's counts, filled by `_JudgeTallies.add`."""

    calls: int = 0
    paid: int = 0
    failed: int = 0
    tied: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    batch_input: int = 0  # of the tokens above, those paid through a provider batch
    batch_output: int = 0
    first_wins: int = 0
    pairs: int = 0
    disagreements: int = 0
    first_both: int = 0
    second_both: int = 0
    alone: int = 0  # calls of a text scored alone that gave a label: no first-shown text
    single: list[tuple[str, str, float]] = field(default_factory=list)  # (first, second, won)
    prompts: _Prompts = field(default_factory=dict)


@dataclass(frozen=True)
class Audit:
    """The audit fields of `Statistics`."""

    judges: tuple[JudgeAudit, ...]
    position_bias: PositionBias | None
    order_consistency: OrderConsistency
    agreement: tuple[JudgeAgreement, ...]


def audit(
    matches: Iterable[MatchResult],
    default_judge: str,
    costs: Callable[[str], CostEstimate | None] | None = None,
    strengths: Strengths | None = None,
    order: Sequence[str] = (),
    batch_discount: float = 0.5,
    scored: Iterable[ScoredCall] = (),
) -> Audit:
    """The audit of `matches`; calls without a recorded judge are `default_judge`'s.

    Args:
        matches: The run's matches.
        default_judge: Identity of the run's provider (a single judge records no name).
        costs: A judge's price function from its identity (None: no prices).
        strengths: The fitted strengths, for judges whose calls came without AB/BA pairs.
        order: Judges in the order to list them (a panel's); others follow as met.
        batch_discount: The share of the live price that batch calls save.
        scored: Calls that scored a text alone (a pre-pass): each judge's calls, failures
            and tokens count them; having no first-shown text, they say nothing of the
            position or the order.
    """
    if strengths is not None:
        strengths = functools.cache(strengths)  # the overall figure and each judge's share it
    tallies: dict[str, _Tally] = {name: _Tally() for name in order}
    matches = list(matches)
    for call in scored:  # a pre-pass comes first: its judges are met first
        _add_score(tallies.setdefault(call.judge or default_judge, _Tally()), call)
    solo = _solo_tally(matches)
    if solo is not None:
        _merge(tallies.setdefault(default_judge, _Tally()), solo)
    else:
        for match in matches:
            _add_match(tallies, match, default_judge)
    tallies = {name: tally for name, tally in tallies.items() if tally.calls}
    total = _Tally()
    for tally in tallies.values():
        _merge(total, tally)
    judges = tuple(
        _judge_audit(name, tally, costs(name) if costs else None, strengths, batch_discount)
        for name, tally in tallies.items()
    )
    agreement = tuple(
        _agreement(a, b, tallies[a].prompts, tallies[b].prompts)
        for a, b in combinations(tallies, 2)
    )
    return Audit(judges, _position(total, strengths), _consistency(total), agreement)


def _solo_tally(matches: Sequence[MatchResult]) -> _Tally | None:
    """The one judge's tally, in a tight loop; None as soon as a call names a judge.

    The same counts as `_add_match`, for the common case (one provider, every match with
    both orders) that every run ranked by wins goes through: plain local counters instead of
    attributes, so the audit adds well under a microsecond per call.
    """
    paid = failed = tokens_in = tokens_out = batch_in = batch_out = first_wins = 0
    pairs = disagreements = first_both = second_both = 0
    tally = _Tally()
    for match in matches:
        rounds = match.rounds
        if len(rounds) != 2:
            return None
        first, second = rounds
        if first.judge is not None or second.judge is not None or first.order == second.order:
            return None
        for call in rounds:
            if not call.cached:
                paid += 1
                tokens_in += call.input_tokens
                tokens_out += call.output_tokens
                if call.batch:
                    batch_in += call.input_tokens
                    batch_out += call.output_tokens
        a, b = first.winner, second.winner
        if a == "tie" or b == "tie":
            return None  # a run with ties: the general pass counts them
        if a is None or b is None:
            failed += (a is None) + (b is None)
            first_wins += (a is not None and (a == "A") == (first.order == "AB")) + (
                b is not None and (b == "A") == (second.order == "AB"))
            continue
        pairs += 1
        first_won = (a == "A") == (first.order == "AB")
        if a == b:
            first_wins += 1  # one call's first-shown text won, the other's lost
        else:
            disagreements += 1
            first_both += first_won
            second_both += not first_won
            first_wins += 2 * first_won
    tally.calls, tally.paid, tally.failed = 2 * len(matches), paid, failed
    tally.input_tokens, tally.output_tokens, tally.first_wins = tokens_in, tokens_out, first_wins
    tally.batch_input, tally.batch_output = batch_in, batch_out
    tally.pairs, tally.disagreements = pairs, disagreements
    tally.first_both, tally.second_both = first_both, second_both
    return tally


def _add_match(tallies: dict[str, _Tally], match: MatchResult, default_judge: str) -> None:
    # The hot loop of the audit (every call of the run): no call of a helper per call.
    rounds = match.rounds
    for call in rounds:
        judge = call.judge
        tally = tallies.get(judge or default_judge)
        if tally is None:
            tally = tallies[judge or default_judge] = _Tally()
        tally.calls += 1
        if not call.cached:
            tally.paid += 1
            tally.input_tokens += call.input_tokens
            tally.output_tokens += call.output_tokens
            if call.batch:
                tally.batch_input += call.input_tokens
                tally.batch_output += call.output_tokens
        winner = call.winner
        if winner is None:
            tally.failed += 1
            continue
        if winner == "tie":
            tally.tied += 1
            continue
        first_won = (winner == "A") == (call.order == "AB")
        tally.first_wins += first_won
        if judge is not None:  # a panel's call: remember the prompt for the agreement
            shown = ((match.item_a, match.item_b) if call.order == "AB"
                     else (match.item_b, match.item_a))
            tally.prompts.setdefault(shown, first_won)  # a rematch: the first verdict counts
    if len(rounds) == 1:  # one call per match (Swiss): no pair to hold it against
        _add_single(tallies[rounds[0].judge or default_judge], match, rounds[0])
        return
    # The calls of a match come as AB, BA, AB, BA, ...; a panel gives each AB/BA to one judge.
    for index in range(0, len(rounds) - 1, 2):
        first, second = rounds[index], rounds[index + 1]
        if first.order != second.order and first.judge == second.judge:
            _add_pair(tallies[first.judge or default_judge], first, second)


def _add_score(tally: _Tally, call: ScoredCall) -> None:
    tally.calls += 1
    if not call.cached:
        tally.paid += 1
        tally.input_tokens += call.input_tokens
        tally.output_tokens += call.output_tokens
        if call.batch:
            tally.batch_input += call.input_tokens
            tally.batch_output += call.output_tokens
    if call.label is None:
        tally.failed += 1
    else:
        tally.alone += 1


def _add_pair(tally: _Tally, first: RoundResult, second: RoundResult) -> None:
    if first.winner in (None, "tie") or second.winner in (None, "tie"):
        return
    tally.pairs += 1
    if first.winner != second.winner:
        tally.disagreements += 1
        # Opposite orders, different winners: each call's first-shown text won, or each's
        # second-shown text did.
        if (first.winner == "A") == (first.order == "AB"):
            tally.first_both += 1
        else:
            tally.second_both += 1


def _add_single(tally: _Tally, match: MatchResult, call: RoundResult) -> None:
    if call.winner in (None, "tie"):
        return
    first, second = ((match.item_a, match.item_b) if call.order == "AB"
                     else (match.item_b, match.item_a))
    tally.single.append((first, second, float((call.winner == "A") == (call.order == "AB"))))


def _merge(total: _Tally, tally: _Tally) -> None:
    for name in ("calls", "paid", "failed", "tied", "input_tokens", "output_tokens", "batch_input",
                 "batch_output", "first_wins",
                 "pairs", "disagreements", "first_both", "second_both", "alone"):
        setattr(total, name, getattr(total, name) + getattr(tally, name))
    total.single.extend(tally.single)


def _judge_audit(
    name: str,
    tally: _Tally,
    estimate: CostEstimate | None,
    strengths: Strengths | None,
    batch_discount: float,
) -> JudgeAudit:
    return JudgeAudit(
        judge=name, calls=tally.calls, paid_calls=tally.paid, failed_calls=tally.failed,
        tied_calls=tally.tied, input_tokens=tally.input_tokens, output_tokens=tally.output_tokens,
        estimated_cost=_judge_cost(tally, estimate, batch_discount),
        position_bias=_position(tally, strengths), order_consistency=_consistency(tally),
    )


def _judge_cost(
    tally: _Tally, estimate: CostEstimate | None, batch_discount: float
) -> float | None:
    """The judge's tokens at its prices, those of batch calls at the batch price."""
    if estimate is None:
        return None
    live = estimate(tally.input_tokens - tally.batch_input,
                    tally.output_tokens - tally.batch_output)
    if not (tally.batch_input or tally.batch_output):
        return live
    batched = estimate(tally.batch_input, tally.batch_output)
    if live is None or batched is None:
        return None
    return live + batched * (1.0 - batch_discount)


def _consistency(tally: _Tally) -> OrderConsistency:
    return OrderConsistency(tally.pairs, tally.disagreements)


def _position(tally: _Tally, strengths: Strengths | None) -> PositionBias | None:
    verdicts = tally.calls - tally.failed - tally.tied - tally.alone
    if tally.pairs or not tally.single:
        return from_swapped_pairs(tally.first_both, tally.second_both, tally.first_wins,
                                  verdicts)
    if strengths is None:
        return None
    scores = strengths()
    gaps = np.array([scores[a] - scores[b] for a, b, _ in tally.single])
    return from_model(gaps, np.array([won for _, _, won in tally.single]))


def _agreement(a: str, b: str, first: _Prompts, second: _Prompts) -> JudgeAgreement:
    shared = [(first[p], second[p]) for p in first.keys() & second.keys()]
    prompts = len(shared)
    if not prompts:
        return JudgeAgreement((a, b), 0, 0, None, None)
    agreeing = sum(x == y for x, y in shared)
    observed = agreeing / prompts
    p_a = sum(x for x, _ in shared) / prompts  # how often each picked the first-shown
    p_b = sum(y for _, y in shared) / prompts
    chance = p_a * p_b + (1 - p_a) * (1 - p_b)
    kappa = None if chance >= 1 else round((observed - chance) / (1 - chance), 6)
    return JudgeAgreement((a, b), prompts, agreeing, round(observed, 6), kappa)


def shared_places(rankings: Sequence[tuple[int, Sequence[str]]]) -> tuple[int, int]:
    """(items that share their rank with another, size of the largest tied block).

    Example:
        >>> shared_places([(1, ["a"]), (2, ["b", "c", "d"]), (5, ["e", "f"])])
        (5, 3)
    """
    sizes = [len(group) for _, group in rankings]
    return sum(s for s in sizes if s > 1), max(sizes, default=0)
