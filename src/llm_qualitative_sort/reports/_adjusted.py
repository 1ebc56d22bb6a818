"""The judge's length preference and the adjusted order, as each report shows them.

A quiet sentence in the trust section (the judge's β with its interval), a JSON entry, and,
when the run was asked to `adjust`, the adjusted order: a section of the HTML page, columns
of the CSV file, an entry of the JSON report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from markupsafe import Markup

from llm_qualitative_sort.audit import AdjustedRanking, CovariateEffect
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._trust import filled

Words = Mapping[str, str]
ADJUSTED_COLUMNS = ("adjusted_rank", "adjusted_score", "adjusted_low_95", "adjusted_high_95")


def signed(value: float) -> str:
    """A logit with its sign and two decimals: "+0.31", "−0.12" (a true minus sign)."""
    return f"{value:+.2f}".replace("-", "−")


def length_sentence(effect: CovariateEffect, who: str, words: Words) -> Markup:
    """"The judge favoured longer texts: +0.31 logit per sd of log length (95 % CI …)."."""
    side = "longer" if effect.low > 0 else "shorter" if effect.high < 0 else "none"
    return filled(words[f"s_length_{side}"], who=who, beta=signed(effect.beta),
                  low=signed(effect.low), high=signed(effect.high))


def people_length_sentence(effect: CovariateEffect, words: Mapping[str, str]) -> str:
    """"People, on the pairs they labelled: +0.12 logit per sd of log length (95 % CI …)."."""
    return filled(words["s_length_people"], beta=signed(effect.beta), low=signed(effect.low),
                  high=signed(effect.high))


def length_json(result: SortResult) -> dict[str, Any] | None:
    """The JSON report's `length_preference` entry (None when it cannot be told)."""
    effect = result.length_preference
    return None if effect is None else asdict(effect)


def adjusted_json(adjusted: AdjustedRanking) -> dict[str, Any]:
    """The JSON report's `adjusted` entry: covariates, effects, and the order with scores."""
    return {
        "covariates": list(adjusted.covariates),
        "effects": [asdict(effect) for effect in adjusted.effects],
        "standings": [
            {"rank": rank, "item": item, "score": adjusted.scores[item],
             "interval": list(adjusted.intervals[item])}
            for rank, group in adjusted.rankings for item in group
        ],
    }


def adjusted_from_json(entry: Mapping[str, Any]) -> AdjustedRanking:
    """The `AdjustedRanking` of a JSON report's `adjusted` entry."""
    rankings: dict[int, list[str]] = {}
    for row in entry["standings"]:
        rankings.setdefault(row["rank"], []).append(row["item"])
    return AdjustedRanking(
        tuple(entry["covariates"]), tuple(CovariateEffect(**e) for e in entry["effects"]),
        sorted(rankings.items()), {row["item"]: row["score"] for row in entry["standings"]},
        {row["item"]: tuple(row["interval"]) for row in entry["standings"]})


def adjusted_cells(adjusted: AdjustedRanking | None) -> dict[str, tuple[Any, ...]]:
    """Each item's `ADJUSTED_COLUMNS` cells; empty when the run was not adjusted."""
    if adjusted is None:
        return {}
    return {item: (rank, adjusted.scores[item], *adjusted.intervals[item])
            for rank, group in adjusted.rankings for item in group}


def adjusted_page(result: SortResult, words: Words) -> dict[str, Any] | None:
    """What the HTML page's adjusted section shows; None when the run was not adjusted."""
    adjusted = result.adjusted
    if adjusted is None:
        return None
    raw = {item: rank for rank, group in result.rankings for item in group}
    names = [words["covariate_length"] if name == "length" else name
             for name in adjusted.covariates]
    effects = ", ".join(words["adjusted_effect"].format(name=name, beta=signed(effect.beta))
                        for name, effect in zip(names, adjusted.effects, strict=True))
    shown = ", ".join(names)
    return {
        "title": words["adjusted"].format(covariates=shown),
        "note": words["adjusted_note"].format(covariates=shown, effects=effects),
        "rows": [{"rank": rank, "item": item, "score": f"{adjusted.scores[item]:.2f}",
                  "low": f"{adjusted.intervals[item][0]:.2f}",
                  "high": f"{adjusted.intervals[item][1]:.2f}", "raw": raw.get(item)}
                 for rank, group in adjusted.rankings for item in group],
    }
