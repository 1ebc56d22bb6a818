"""How well a judge's stated probabilities (soft verdicts) match what it then did.

A soft call states p, the probability that its first-shown text wins. The check needs an
outcome the probability did not produce: the same match's call in the other order (its
swapped pair). For each AB/BA pair of calls that both gave a verdict (not a tie), each call
with a probability is scored against whether its first-shown text also won the other call.
A judge with a position bias is then scored against calls where that text was second, so
its probabilities look a little over-confident for the first-shown text; the audit's
position bias says how much. Figures: the share of soft calls, the Brier score and a
reliability table (stated probability in five bins against the observed share).
"""

from __future__ import annotations

from collections.abc import Sequence

from llm_qualitative_sort.audit import Calibration, ReliabilityBin
from llm_qualitative_sort.verdicts import MatchResult, RoundResult

BINS = 5


def calibration(matches: Sequence[MatchResult]) -> Calibration | None:
    """The run's soft-verdict figures, or None when no call carried a probability."""
    # Counted, not listed: this runs at the end of a run, when its memory peaks.
    calls = soft = 0
    for match in matches:
        for call in match.rounds:
            if call.winner is not None:
                calls += 1
                soft += call.probability is not None
    if not soft:
        return None
    scored: list[tuple[float, float]] = []
    for match in matches:
        rounds = match.rounds
        for first, second in zip(rounds[::2], rounds[1::2], strict=False):
            if first.order != second.order:
                scored.extend(_scored(first, second) + _scored(second, first))
    return Calibration(
        soft_calls=soft,
        share=round(soft / calls, 6),
        pairs=len(scored),
        brier=round(sum((p - y) ** 2 for p, y in scored) / len(scored), 6) if scored else None,
        bins=_bins(scored),
    )


def _scored(call: RoundResult, other: RoundResult) -> list[tuple[float, float]]:
    """(p that `call`'s first-shown wins, 1 if that text won `other`), or nothing."""
    if call.probability is None or other.winner in (None, "tie") or call.winner == "tie":
        return []
    # In match terms: call.probability is P(item_a wins); its first-shown text is item_a
    # when call.order == "AB".
    a_first = call.order == "AB"
    p = call.probability if a_first else 1.0 - call.probability
    won = (other.winner == "A") == a_first
    return [(p, 1.0 if won else 0.0)]


def _bins(scored: list[tuple[float, float]]) -> tuple[ReliabilityBin, ...]:
    groups: list[list[tuple[float, float]]] = [[] for _ in range(BINS)]
    for p, y in scored:
        groups[min(int(p * BINS), BINS - 1)].append((p, y))
    return tuple(
        ReliabilityBin(low=i / BINS, high=(i + 1) / BINS, calls=len(g),
                       stated=round(sum(p for p, _ in g) / len(g), 6),
                       observed=round(sum(y for _, y in g) / len(g), 6))
        for i, g in enumerate(groups) if g)


def soft_text(verdicts: str, found: Calibration | None, ranking_by_wins: bool) -> str | None:
    """What a run asked to use soft verdicts got, in a line (None for a run of hard ones).

    `ranking_by_wins`: the run ranks by wins (an elimination run's default), which the
    probabilities do not change.

    Example:
        >>> soft_text("soft", None, False)
        "soft verdicts: no call carried the judge's probability (its server sent no \
log-probabilities): the fit used the verdicts alone"
        >>> soft_text("hard", None, False) is None
        True
    """
    if verdicts != "soft":
        return None
    if found is None:
        return ("soft verdicts: no call carried the judge's probability (its server sent no "
                "log-probabilities): the fit used the verdicts alone")
    text = (f"soft verdicts: {100 * found.share:.0f} % of the calls with a verdict "
            f"({found.soft_calls}) carried the judge's probability")
    if ranking_by_wins:
        text += "; the ranking counts wins, the scores and intervals use the probabilities"
    return text
