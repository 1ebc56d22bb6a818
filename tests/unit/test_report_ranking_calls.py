"""The HTML report's table of ranking calls: texts as shown, the judge's order, its reason."""

from __future__ import annotations

import re

import pytest

from llm_qualitative_sort import SortResult, Statistics
from llm_qualitative_sort.reports import to_html
from llm_qualitative_sort.reports._ranking_calls import RANKING_CALLS_SHOWN, labelled_order
from llm_qualitative_sort.verdicts import RankingCall

TEXTS = ("<b>first</b>", "second text", "third text", "fourth text")


def _calls(n: int) -> tuple[RankingCall, ...]:
    ordered = RankingCall(TEXTS, (("third text",), ("<b>first</b>",), ("fourth text",),
                                  ("second text",)), "C is the clearest.", False, 100, 10, 1)
    failed = RankingCall(TEXTS, None, "no usable order after 2 answer(s)", False, 200, 20, 2,
                         problem="not an order of the texts shown: 'A' is named twice")
    return (ordered, failed, *[ordered] * (n - 2))


def _result(calls: tuple[RankingCall, ...]) -> SortResult:
    rankings = [(i + 1, [t]) for i, t in enumerate(TEXTS)]
    return SortResult(rankings, [], Statistics(0, len(calls), 0, 0.1), "r",
                      ranking_calls=calls)


def test_an_order_is_written_in_the_labels_shown_ties_joined() -> None:
    call = RankingCall(("x", "y", "z", "w"), (("w", "y"), ("x",), ("z",)), "", False)
    assert labelled_order(call) == "D = B > A > C"
    assert labelled_order(RankingCall(("x", "y", "z"), None, "", False)) is None


@pytest.mark.parametrize(("lang", "heading", "none", "more"), [
    ("en", "The ranking calls", "no order", "The first 50 of 60 calls are listed; the JSON "
                                            "report has all."),
    ("ja", "順位付け判定", "順位なし",
     "60件のうち最初の50件を示します（JSONレポートに全件あり）。"),
])
def test_the_report_lists_the_first_calls_with_their_order_and_reason(
    lang: str, heading: str, none: str, more: str
) -> None:
    page = to_html(_result(_calls(60)), {"strategy": "swiss", "group_size": 4}, lang=lang)
    section = page[page.index('<section class="ranking-calls">'):]
    section = section[:section.index("</section>")]
    assert f"<h2>{heading}</h2>" in section
    rows = re.findall(r"<tr><td>\d+</td>", section)
    assert len(rows) == RANKING_CALLS_SHOWN
    assert section.count("<b>C &gt; A &gt; D &gt; B</b>") == RANKING_CALLS_SHOWN - 1
    assert f"<em>{none}</em>" in section and "&#39;A&#39; is named twice" in section
    assert "C is the clearest." in section and more in section
    # Every text escaped, in the order shown, under A, B, C, D.
    assert "&lt;b&gt;first&lt;/b&gt;" in section and "<b>first</b>" not in section
    first_row = section[section.index("<ol"):section.index("</ol>")]
    assert [re.sub("<[^>]+>", "", li) for li in first_row.split("<li>")[1:]] == [
        "&lt;b&gt;first&lt;/b&gt;", "second text", "third text", "fourth text"]


def test_a_run_of_few_calls_lists_them_all_and_a_pairwise_run_none() -> None:
    page = to_html(_result(_calls(3)), {"strategy": "swiss"})
    assert "The ranking calls" in page and "the JSON report has all" not in page
    plain = to_html(_result(()), {"strategy": "swiss"})
    assert 'class="ranking-calls"' not in plain


def test_a_long_text_shows_cut_and_whole_in_its_tooltip() -> None:
    long = "word " * 60
    call = RankingCall((long, "b", "c"), ((long,), ("b",), ("c",)), "r", False)
    page = to_html(_result((call,)), {"strategy": "swiss"})
    assert f'title="{long}"' in page and "word word…" in page
