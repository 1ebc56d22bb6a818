"""A pointwise run in the reports: scores, each call's label and reason, the labels' spread.

The JSON entry, the CSV columns and the HTML sections.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from html import escape
from itertools import groupby
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._text import isolated
from llm_qualitative_sort.scoring import ItemScore

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
        "items": [_item_json(s) for s in result.pointwise],
    }


def _item_json(scored: ItemScore) -> dict[str, Any]:
    calls = []
    for call in scored.calls:
        entry = asdict(call)
        if call.distribution is not None:
            entry["distribution"] = {str(k): p for k, p in call.distribution.items()}
        calls.append(entry)
    return {"item": scored.item, "score": scored.score,
            "distribution": {str(k): p for k, p in scored.distribution.items()},
            "calls": calls}


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


def pointwise_sections(result: SortResult, ids: Mapping[str, Any], words: Words,
                       inverse: bool) -> str:
    """The HTML sections of a pointwise run: the labels given, then the scores."""
    return _labels_section(result, words) + _scores_section(result, ids, words, inverse)


def _labels_section(result: SortResult, words: Words) -> str:
    spread = label_spread(result)
    most = max((count for count, _ in spread.values()), default=0) or 1
    rows = "".join(
        f'<tr><td class="num">{label}</td><td class="num">{count}</td>'
        f'<td><span class="bar">{"█" * max(round(24 * count / most), 1 if count else 0)}'
        f'</span></td><td class="num">{mean:.3f}</td></tr>'
        for label, (count, mean) in spread.items())
    return (f'<section><h2>{words["labels_title"]}</h2><p class="note">'
            f'{words["labels_note"]}</p><table class="ranking"><thead><tr>'
            f'<th>{words["label"]}</th><th>{words["calls_count"]}</th><th></th>'
            f'<th>{words["mean_probability"]}</th></tr></thead><tbody>{rows}</tbody></table>'
            "</section>")


def _scores_section(result: SortResult, ids: Mapping[str, Any], words: Words,
                    inverse: bool) -> str:
    scored = {s.item: s for s in result.pointwise}
    rows: list[str] = []
    ranked = [(rank, item) for rank, group in result.rankings for item in group]
    for shade, (rank, members) in enumerate(groupby(ranked, key=lambda pair: pair[0])):
        group = [item for _, item in members]
        for index, item in enumerate(group):
            rank_cell = ""
            if index == 0:
                tie = words["tied"].format(n=len(group))
                tie = f'<span class="tie">{tie}</span>' if len(group) > 1 else ""
                rank_cell = f'<td class="rank" rowspan="{len(group)}">{rank}{tie}</td>'
            own = scored.get(item, ItemScore(item, None))
            score = "–" if own.score is None else f"{own.score:.3f}"
            rows.append(f'<tr class="g{shade % 2}">{rank_cell}<td>'
                        f"{_item_cell(own, ids.get(item), words, open_=not rows)}</td>"
                        f'<td class="num">{score}</td></tr>')
    note = words["scores_note"] + (words["scores_note_inverse"] if inverse else "")
    return (f'<section><h2>{words["scores_title"]}</h2><p class="note">{note}</p>'
            f'<table class="ranking"><thead><tr><th>{words["rank"]}</th>'
            f'<th>{words["item"]}</th><th>{words["score"]}</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></section>")


def _item_cell(scored: ItemScore, item_id: Any, words: Words, open_: bool) -> str:
    ident = "" if item_id is None else (
        f'<span class="id">{words["id"]} {isolated(str(item_id))}</span>')
    calls = "".join(_call(call, words) for call in scored.calls)
    return (f'<details{" open" if open_ else ""}><summary class="item">'
            f"{isolated(scored.item)}</summary>{ident}"
            f'<div class="full">{isolated(scored.item)}</div><ol>{calls}</ol></details>')


def _call(call: Any, words: Words) -> str:
    if call.label is None:
        return f"<li><b>{words['no_verdict']}</b> {isolated(call.reason)}</li>"
    spread = _spread(call.distribution)
    expected = "" if call.distribution is None else (
        f" ({words['expected']} {call.expected:.2f})")
    cached = f' <span class="cached">{words["cached"]}</span>' if call.cached else ""
    return (f"<li><b>{words['label']} {call.label}</b>{expected}{cached} "
            f"<small>{escape(spread)}</small> {isolated(call.reason)}</li>")


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
