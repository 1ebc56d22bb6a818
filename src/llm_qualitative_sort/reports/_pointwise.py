"""Texts scored alone in the reports: scores, each call's label and reason, the labels' spread.

A pointwise run's JSON entry, CSV columns and HTML sections; the JSON form of an item's
score, which a Swiss pre-pass's scores share (`item_json`, `item_from_json`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.rating.scoring import ItemScore, ScoredCall
from llm_qualitative_sort.reports._standings import rank_rows

Words = Mapping[str, str]


def labels_of(result: SortResult) -> list[int]:
    """Every label that a call gave or gave a probability to, lowest first."""
    found: set[int] = set()
    for scored in result.pointwise:
        found |= set(scored.distribution)
    return sorted(found)


def label_spread(result: SortResult) -> dict[int, tuple[int, float]]:
    """Each label: how many calls gave it, and its mean probability over all answered calls."""
    calls = [c for s in result.pointwise for c in s.calls if c.label is not None]
    given = Counter(c.label for c in calls)
    spread = {}
    for label in labels_of(result):
        mean = sum((c.distribution or {c.label: 1.0}).get(label, 0.0) for c in calls
                   if c.label is not None) / max(len(calls), 1)
        spread[label] = (given.get(label, 0), round(mean, 6))
    return spread


def pointwise_json(result: SortResult) -> dict[str, Any]:
    """The JSON report's "pointwise" entry: the labels' spread and every item's calls."""
    return {
        "labels": [{"label": label, "calls": count, "mean_probability": mean}
                   for label, (count, mean) in label_spread(result).items()],
        "items": [item_json(s) for s in result.pointwise],
    }


def item_json(scored: ItemScore) -> dict[str, Any]:
    """An item's score and calls as the JSON report keeps them (label keys as strings)."""
    calls = []
    for call in scored.calls:
        entry = asdict(call)
        if call.distribution is not None:
            entry["distribution"] = {str(k): p for k, p in call.distribution.items()}
        calls.append(entry)
    return {"item": scored.item, "score": scored.score,
            "distribution": {str(k): p for k, p in scored.distribution.items()},
            "calls": calls}


def item_from_json(entry: Mapping[str, Any]) -> ItemScore:
    """An item's score and calls from their JSON form (`item_json`).

    Example:
        >>> scored = ItemScore("x", 0.5, (ScoredCall(3, 2.5, 0.5, {2: 0.5, 3: 0.5}, "ok"),))
        >>> item_from_json(item_json(scored)) == scored
        True
    """
    calls = []
    for call in entry["calls"]:
        spread = call.get("distribution")
        calls.append(ScoredCall(**{**call, "distribution": None if spread is None else
                                   {int(k): float(p) for k, p in spread.items()}}))
    return ItemScore(entry["item"], entry["score"], tuple(calls))


def csv_columns(result: SortResult) -> list[str]:
    """The CSV report's extra columns for a pointwise run (none for another run)."""
    if not result.pointwise:
        return []
    return ["labels", *(f"p_label_{label}" for label in labels_of(result)), "reason"]


def csv_cells(result: SortResult, item: str) -> list[Any]:
    """An item's extra CSV cells: its labels, its mean label probabilities, its reasons."""
    scored = next((s for s in result.pointwise if s.item == item), None)
    if scored is None:
        return []
    labels = ";".join(str(c.label) for c in scored.calls if c.label is not None)
    spread = scored.distribution
    return [labels, *(spread.get(label, 0.0) for label in labels_of(result)),
            " | ".join(scored.reasons)]


def pointwise_page(result: SortResult, ids: Mapping[str, Any], inverse: bool
                   ) -> dict[str, Any]:
    """What the HTML report's pointwise sections show: the labels given, then the scores."""
    spread = label_spread(result)
    most = max((count for count, _ in spread.values()), default=0) or 1
    labels = [(label, count, "█" * max(round(24 * count / most), 1 if count else 0),
               f"{mean:.3f}") for label, (count, mean) in spread.items()]
    scored = {s.item: s for s in result.pointwise}
    rows = rank_rows([(rank, item) for rank, group in result.rankings for item in group])
    for row in rows:
        own = scored.get(row["member"], ItemScore(row["member"], None))
        row.update(item=own.item, id=ids.get(own.item),
                   score="–" if own.score is None else f"{own.score:.3f}",
                   calls=shown_calls(own))
    return {"labels": labels, "rows": rows, "inverse": inverse}


def shown_calls(scored: ItemScore) -> list[dict[str, Any]]:
    """An item's calls as the HTML report shows them: label, expected label, spread, reason."""
    return [_call(call) for call in scored.calls]


def _call(call: ScoredCall) -> dict[str, Any]:
    expected = None if call.distribution is None else f"{call.expected:.2f}"
    return {"label": call.label, "reason": call.reason, "expected": expected,
            "cached": call.cached, "spread": _spread(call.distribution)}


def _spread(distribution: Mapping[int, float] | None) -> str:
    if not distribution:
        return ""
    return " ".join(f"{k}:{p:.2f}" for k, p in sorted(distribution.items()))


def pointwise_words(words: Words) -> dict[str, str]:
    """The report's words with the trust section's phrased for scores, not a fit."""
    own = dict(words)
    for key in ("trust_note", "score_axis", "s_top_k"):
        own[key] = words[f"{key}_pointwise"]
    return own


def shown_scale(settings: Mapping[str, Any]) -> Sequence[Any] | None:
    """The scale a report's settings name, if any (for the run line)."""
    scale = settings.get("scale")
    return scale if isinstance(scale, list | tuple) else None
