"""The K of the reports' "P(top K)": never every item, where a top K would say nothing."""

from __future__ import annotations

import asyncio
import csv
import io

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, SortResult
from llm_qualitative_sort.reports import to_csv, to_html, to_json_dict
from llm_qualitative_sort.tournament import parse_settings


def _run(n: int, **settings: object) -> SortResult:
    # The reports' flat settings name the strategy's settings as its object holds them.
    strategy = parse_settings({"strategy": "elimination", **settings})
    sorter = QualitativeSorter(MockLLMProvider(seed=2), criteria="larger", seed=2,
                               checkpointer=None, strategy=strategy)
    return asyncio.run(sorter.sort([str(i) for i in range(n)]))


@pytest.mark.parametrize(("n", "settings", "k"), [
    (8, {}, 4),
    (10, {"strategy": "pointwise"}, 5),
    (12, {}, 6),  # a top 10 of 12 items would say little
    (24, {}, 10),
    (8, {"strategy": "swiss", "top_k": 3}, 3),
])
def test_every_report_shows_the_same_informative_k(n: int, settings: dict[str, object],
                                                   k: int) -> None:
    result = _run(n, **settings)
    shown = {"criteria": "larger", **settings}
    said = to_json_dict(result, shown)["uncertainty"]
    assert said["top_k"] == k
    # A pointwise run's figures come from its scores' means, not from a fit.
    assert said["method"].startswith("mean of each text's call scores"
                                     if settings.get("strategy") == "pointwise" else
                                     "Bradley–Terry fit")
    rows = list(csv.DictReader(io.StringIO(to_csv(result, settings=shown))))
    assert f"p_top_{k}" in rows[0]
    # They sum to K: with K = n every one of them would be 1.
    assert sum(float(row[f"p_top_{k}"]) for row in rows) == pytest.approx(k, abs=1e-6)
    assert f"P(top {k})" in to_html(result, shown)
