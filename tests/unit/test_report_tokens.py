"""Tokens per text in the JSON statistics, the HTML statistics card and the CLI summary."""

from __future__ import annotations

import asyncio
import json
from functools import cache

import pytest

from llm_qualitative_sort import QualitativeSorter, SortResult, Swiss
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._run import print_summary
from llm_qualitative_sort.reports import from_json_dict, to_html, to_json_dict
from llm_qualitative_sort.testing import FunctionProvider
from llm_qualitative_sort.verdicts import ComparisonResult

ITEMS = [str(i) for i in range(12)]


def _larger(a: str, b: str, criteria: str) -> ComparisonResult:
    return ComparisonResult(winner="A" if int(a) > int(b) else "B", reasoning="",
                            input_tokens=280, output_tokens=20)


@cache
def run() -> SortResult:
    sorter = QualitativeSorter(FunctionProvider(_larger, model="larger"), criteria="larger",
                               seed=1, checkpointer=None, strategy=Swiss(budget=30))
    return asyncio.run(sorter.sort(ITEMS))


def test_tokens_per_text_are_the_paid_tokens_over_the_items() -> None:
    assert run().statistics.total_api_calls == 30
    assert run().tokens_per_text == 30 * 300 / 12 == 750.0


def test_the_json_statistics_give_it_and_read_back() -> None:
    data = json.loads(json.dumps(to_json_dict(run())))
    assert data["statistics"]["tokens_per_text"] == 750.0
    assert from_json_dict(data).statistics == run().statistics


@pytest.mark.parametrize(("lang", "word"), [("en", "tokens per text"),
                                            ("ja", "テキストあたりのトークン")])
def test_the_html_statistics_card_says_it_in_both_languages(lang: str, word: str) -> None:
    page = to_html(run(), lang=lang)
    assert word in page
    card = page[:page.index(word)].rsplit('<div class="stat">', 1)[1]
    assert '<div class="value">750</div>' in card


def test_the_command_line_summary_says_it(capsys: pytest.CaptureFixture[str]) -> None:
    print_summary(run(), RunConfig(), None)
    assert "30 LLM calls (0 from cache), 9,000 tokens (750 per text), " in capsys.readouterr().err
