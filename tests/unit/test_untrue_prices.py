"""A NaN or infinite price is refused where it is given; a JSON report is always JSON."""

from __future__ import annotations

import json
import math

import pytest

from llm_qualitative_sort import GoogleProvider, OpenAIProvider, SortResult, Statistics
from llm_qualitative_sort.reports import write_report

KEY = "sk-unit-SECRET-123"


@pytest.mark.parametrize("cls", [OpenAIProvider, GoogleProvider])
@pytest.mark.parametrize("name", ["input_price_per_million", "output_price_per_million"])
@pytest.mark.parametrize("price", [math.nan, math.inf, -math.inf, -1.0])
def test_a_price_that_is_no_price_is_refused_at_construction(cls: type, name: str,
                                                             price: float) -> None:
    with pytest.raises(ValueError, match=f"{name} must be a finite number >= 0, got {price}"):
        cls(api_key=KEY, **{name: price})


def test_free_and_finite_prices_are_taken() -> None:
    judge = OpenAIProvider(api_key=KEY, input_price_per_million=0, output_price_per_million=2.5)
    assert judge.estimate_cost(1_000_000, 0) == 0.0


def _result(cost: float | None = None) -> SortResult:
    return SortResult([(1, ["a"]), (2, ["b"])], [], Statistics(1, 1, 0, 0.5,
                                                               estimated_cost=cost))


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_json_report_never_holds_nan_or_infinity(tmp_path, value: float) -> None:
    target = tmp_path / "r.json"
    with pytest.raises(ValueError, match=r"settings\.price_per_call is (nan|inf)"):
        write_report(_result(), target, {"price_per_call": value})
    with pytest.raises(ValueError, match=r"statistics\.estimated_cost is (nan|inf)"):
        write_report(_result(value), target)
    assert not target.exists()  # nothing half true written
    write_report(_result(0.25), target, {"price_per_call": 0.01})
    assert json.loads(target.read_text("utf-8"))["statistics"]["estimated_cost"] == 0.25
