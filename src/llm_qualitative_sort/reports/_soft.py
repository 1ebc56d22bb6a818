"""Soft verdicts in the reports: each call's probability, their share, their calibration.

A call's `probability` is P(the match's item_a wins); an item's view of it is that, or its
complement when the item is item_b. The CSV report of a soft run gives each item its soft
calls and its soft win share (the outcomes the soft fit read); the HTML report shows the
probability beside each call, and the audit's calibration (`Statistics.calibration`) as
sentences and a reliability table in the trust section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup, escape

from llm_qualitative_sort.audit import Calibration
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._trust import FEW, Reliability, few_note, filled, percent
from llm_qualitative_sort.verdicts import RoundResult

Words = Mapping[str, str]
_OUTCOME = {"A": 1.0, "B": 0.0, "tie": 0.5}


def chance_for(call: RoundResult, side: str) -> float | None:
    """The probability that the item on `side` ("A": item_a) wins `call`, if stated."""
    if call.probability is None:
        return None
    return call.probability if side == "A" else 1.0 - call.probability


def soft_columns(result: SortResult) -> dict[str, tuple[int, float | None]] | None:
    """Per item: its soft calls and soft win share, for a soft run's CSV (else None).

    The share is the mean, over the item's calls with a verdict, of its probability of
    winning: the stated one where the call had it, else 1, 0 or ½ by the verdict.
    """
    if result.verdicts != "soft":
        return None
    seen: dict[str, list[tuple[bool, float]]] = {}
    for match in result.match_history:
        for call in match.rounds:
            if call.winner is None:
                continue
            for item, side in ((match.item_a, "A"), (match.item_b, "B")):
                chance = chance_for(call, side)
                if chance is None:
                    won = _OUTCOME[call.winner]
                    chance = won if side == "A" else 1.0 - won
                seen.setdefault(item, []).append((call.probability is not None, chance))
    return {item: (sum(soft for soft, _ in calls), round(sum(p for _, p in calls) / len(calls), 6))
            for item, calls in seen.items()}


def calibration_sentences(found: Calibration | None, soft_fit: bool, words: Words
                          ) -> list[Markup]:
    """The audit's sentences on soft verdicts: their share, then their Brier score."""
    if found is None:
        return []
    calls = round(found.soft_calls / found.share) if found.share else found.soft_calls
    gap = words.get("sentence_gap", " ")
    used = escape(words["soft_used" if soft_fit else "soft_unused"])
    out = [filled(words["s_soft"], soft=found.soft_calls, calls=calls,
                 share=percent(found.share)) + gap + used]
    if found.brier is None:
        out.append(escape(words["s_brier_none"]))
    else:
        out.append(filled(words["s_brier"], pairs=found.pairs, brier=f"{found.brier:.3f}")
                   + few_note(found.pairs, "calls", words))
    return out


def reliability_table(found: Calibration | None) -> Reliability | None:
    """Stated probability against the observed share, bin by bin (None without bins)."""
    if found is None or not found.bins:
        return None
    rows = [(f"{percent(b.low)}–{percent(b.high)}",
             [f"{b.calls:,}" + _mark(b.calls), percent(b.stated), percent(b.observed)])
            for b in found.bins]
    return Reliability(rows, any(b.calls < FEW for b in found.bins))


def _mark(count: int) -> str:
    return " *" if count < FEW else ""


def soft_parts(result: SortResult, words: Words
               ) -> tuple[Sequence[Markup], Reliability | None]:
    """The trust section's soft-verdict sentences and its reliability table."""
    found = result.statistics.calibration
    return (calibration_sentences(found, result.verdicts == "soft", words),
            reliability_table(found))
