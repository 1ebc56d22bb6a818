"""The judge's length preference and the adjusted order in the JSON, CSV and HTML reports."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math
import random
from functools import cache

from llm_qualitative_sort import Elimination, MockLLMProvider, QualitativeSorter, SortResult
from llm_qualitative_sort.audit import CovariateEffect
from llm_qualitative_sort.reports import from_json_dict, to_csv, to_html, to_json_dict
from llm_qualitative_sort.reports._adjusted import length_sentence
from llm_qualitative_sort.reports._words import words

SCALE = 3.33 * math.sqrt(6) / math.pi


@cache
def run(adjust: str | None) -> SortResult:
    rng = random.Random(1)
    values = {f"{i:02d} " + "y" * int(math.exp(rng.uniform(3, 7))): rng.gauss(0, 1)
              for i in range(60)}
    judge = MockLLMProvider(seed=1, noise="gumbel", score=lambda t: values[t] * SCALE,
                            length_preference=1.5)
    sorter = QualitativeSorter(judge, criteria="better", seed=1, checkpointer=None,
                               strategy=Elimination(elimination_count=3))
    return asyncio.run(sorter.sort(list(values), adjust=adjust))


def test_the_json_report_carries_the_length_preference_and_the_adjusted_order() -> None:
    result = run("length")
    data = json.loads(json.dumps(to_json_dict(result)))
    assert data["length_preference"]["covariate"] == "length"
    assert data["length_preference"]["beta"] == result.length_preference.beta  # type: ignore[union-attr]
    assert [row["item"] for row in data["adjusted"]["standings"]] == [
        item for _, group in result.adjusted.rankings for item in group]  # type: ignore[union-attr]
    back = from_json_dict(data)
    assert back.adjusted == result.adjusted
    assert back.length_preference == result.length_preference
    assert "adjusted" not in to_json_dict(run(None))


def test_the_csv_report_adds_the_adjusted_columns_only_when_asked() -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(run("length")))))
    adjusted = run("length").adjusted
    assert adjusted is not None
    for row in rows:
        assert float(row["adjusted_score"]) == adjusted.scores[row["item"]]
        assert float(row["adjusted_low_95"]) <= float(row["adjusted_score"])
    assert "adjusted_rank" not in to_csv(run(None)).splitlines()[0]


def test_the_html_report_says_the_length_preference_quietly_in_both_languages() -> None:
    effect = run(None).length_preference
    assert effect is not None and effect.low > 0
    page = to_html(run(None))
    assert "The judge favoured longer texts: <b>+" in page
    assert "判定者は長い文章を好みました" in to_html(run(None), lang="ja")
    assert "taken out" not in page  # no adjusted section unless asked


def test_the_html_report_shows_the_adjusted_order_beside_the_ranking() -> None:
    en, ja = to_html(run("length")), to_html(run("length"), lang="ja")
    assert "preference for length taken out" in en
    assert en.index("<h2>Ranking</h2>") < en.index("taken out")
    assert "判定者の長さへの好みを除いた順位" in ja


def test_the_sentence_follows_the_interval() -> None:
    def said(low: float, high: float) -> str:
        return str(length_sentence(CovariateEffect("length", (low + high) / 2, 0.1, low, high),
                                   "The judge", words("en")))
    assert "longer" in said(0.18, 0.44) and "(95 % CI <b>+0.18</b> to <b>+0.44</b>)" in said(
        0.18, 0.44)
    assert "shorter" in said(-0.5, -0.1) and "−0.50" in said(-0.5, -0.1)
    assert "no clear preference" in said(-0.1, 0.2)
