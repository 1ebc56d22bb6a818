"""What every report says about people's labels: one sentence, the order, the disagreements.

A run checked against people (`sort(items, human=...)`) opens its report with how far the
judge agreed with them; a run without labels says, in one quiet line, that it was not
checked. The JSON report carries the whole `Agreement`, the CSV report the order and each
item's disagreements.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from llm_qualitative_sort.models import SortResult

# The disagreements listed in an HTML report (the JSON report has them all).
DISAGREEMENTS_SHOWN = 50
CSV_COLUMNS = ("order", "human_kappa", "human_disagreements")


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def people_sentence(result: SortResult, words: Mapping[str, str]) -> str:
    """The report's opening sentence about people (or that there were none).

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> from llm_qualitative_sort.reports._words import EN
        >>> people_sentence(SortResult([], [], Statistics(0, 0, 0, 0.0)), EN)
        'Not checked against people.'
    """
    found = result.agreement
    if found is None:
        return words["people_none"]
    parts = []
    if found.compared:
        kappa = found.kappa
        if kappa.value is None:
            parts.append(words["people_agreed_no_kappa"].format(
                agreed=found.agreed, compared=found.compared))
        else:
            parts.append(words["people_agreed"].format(
                agreed=found.agreed, compared=found.compared, kappa=_figure(kappa.value),
                low=_figure(kappa.low), high=_figure(kappa.high)))
    if found.no_verdict:
        parts.append(words["people_no_verdict"].format(n=found.no_verdict))
    rho = found.spearman.value if found.spearman else None
    if rho is not None:
        parts.append(words["people_rho"].format(rho=_figure(rho)))
    if found.kendall is not None:
        parts.append(words["people_tau"].format(tau=_figure(found.kendall)))
    parts.append(words[f"people_order_{result.order}"])
    return words["people_join"].join(parts)


def people_section(result: SortResult, words: Mapping[str, str]) -> dict[str, Any]:
    """What the HTML report's opening shows: the sentence and the disagreements."""
    found = result.agreement
    rows = []
    if found is not None:
        texts = _texts(result)
        for call in found.disagreements[:DISAGREEMENTS_SHOWN]:
            rows.append({"a": texts[call.a], "b": texts[call.b],
                         "person": words[_said(call.human)],
                         "judge": words[_said(call.judge)],
                         "shown": words["a_first" if call.a_shown_first else "b_first"],
                         "reason": call.reason})
    total = len(found.disagreements) if found is not None else 0
    more = words["disagreements_more"].format(shown=len(rows), total=total) \
        if total > len(rows) else ""
    return {"sentence": people_sentence(result, words), "checked": found is not None,
            "disagreements": rows, "more": more}


def _said(verdict: str | None) -> str:
    return {"A": "said_a", "B": "said_b", "tie": "said_tie"}.get(verdict or "", "no_verdict")


def _texts(result: SortResult) -> list[str]:
    # The labels name items by index into the run's items in text order.
    return sorted(item for _, group in result.rankings for item in group)


def people_json(result: SortResult) -> dict[str, Any]:
    """The JSON report's "human" entry: the labels' digest, the order, the agreement."""
    entry: dict[str, Any] = {"order": result.order, "labels": result.human or None}
    if result.agreement is not None:
        found = asdict(result.agreement)
        texts = _texts(result)
        for call in found["disagreements"]:
            call.update(item_a=texts[call["a"]], item_b=texts[call["b"]])
        entry["agreement"] = {**found, "agreement": result.agreement.agreement}
    if result.people_length_preference is not None:
        entry["length_preference"] = asdict(result.people_length_preference)
    if result.rank_intervals is not None:
        entry["rank_intervals"] = {item: list(span)
                                   for item, span in result.rank_intervals.items()}
    return entry


def people_cells(result: SortResult) -> dict[str, tuple[Any, ...]]:
    """Each item's CSV cells (`CSV_COLUMNS`): the order, the run's κ, its disagreements.

    `human_kappa` is the run's (the same on every row, empty where undefined);
    `human_disagreements` counts the judge's calls on the item's labelled pairs whose
    verdict differs from a person's.
    """
    found = result.agreement
    if found is None:
        return {}
    texts = _texts(result)
    disagreed = dict.fromkeys(texts, 0)
    for call in found.disagreements:
        disagreed[texts[call.a]] += 1
        disagreed[texts[call.b]] += 1
    kappa = "" if found.kappa.value is None else round(found.kappa.value, 4)
    return {item: (result.order, kappa, disagreed[item]) for item in texts}
