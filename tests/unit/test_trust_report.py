import dataclasses
import re

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.audit import JudgeAgreement, JudgeAudit, OrderConsistency, PositionBias
from llm_qualitative_sort.reports import to_html
from llm_qualitative_sort.reports._forest import ForestRow, forest_plot
from llm_qualitative_sort.reports._uncertainty import ItemUncertainty

EVIL_JUDGE = "<script>alert(1)</script>\u202ejudge"


def _result(wins: int, consistency: OrderConsistency, judges=(), agreement=()) -> SortResult:
    """Items a..l; "a" beats each other item `wins` times in both orders."""
    items = [chr(ord("a") + i) for i in range(12)]
    matches = [
        MatchResult("a", other, "A", [RoundResult("AB", "A", "", False),
                                      RoundResult("BA", "A", "", False)])
        for other in items[1:] for _ in range(wins)
    ]
    stats = Statistics(len(matches), 2 * len(matches), 0, 0.1, order_consistency=consistency,
                       position_bias=PositionBias(0.08, 0.05, 0.11, 0.58, 2 * len(matches),
                                                  "swapped_pairs", 10),
                       judges=tuple(judges), agreement=tuple(agreement), tied_items=11,
                       largest_tie=11)
    return SortResult([(1, ["a"]), (2, items[1:])], matches, stats)


def test_warnings_appear_only_past_their_thresholds() -> None:
    poor = to_html(_result(3, OrderConsistency(100, 31)), {"top_k": 1})
    assert "Poor order consistency: in 31 %" in poor
    fine = to_html(_result(3, OrderConsistency(100, 19)), {"top_k": 1})
    assert "Poor order consistency" not in fine
    # One item beat every other three times: it is the top 1 beyond doubt.
    assert "not separated" not in fine
    # The top 3 of eleven tied items cannot be told apart.
    assert "The top 3 are not separated from the rest" in to_html(
        _result(3, OrderConsistency(100, 19)), {"top_k": 3})


def test_the_audit_reads_as_sentences_and_judges_are_escaped_and_isolated() -> None:
    order = OrderConsistency(40, 4)
    bias = PositionBias(0.1, 0.0, 0.2, 0.6, 40, "swapped_pairs", 4)
    judges = [JudgeAudit(EVIL_JUDGE, 40, 40, 2, 10, 5, 0.5, bias, order),
              JudgeAudit("other", 40, 40, 0, 10, 5, None, bias, order)]
    agreement = [JudgeAgreement((EVIL_JUDGE, "other"), 20, 15, 0.75, 0.5)]
    page = to_html(_result(2, order, judges, agreement))
    assert "preferred the first-shown text in <b>58 %</b> of <b>44</b> calls" in page
    assert "estimated to win <b>58 %</b> of the time (95 %: <b>55 %</b> to <b>61 %</b>)" in page
    assert "<bdi>Judge 1</bdi> and <bdi>Judge 2</bdi> picked the same text on <b>75 %</b>" in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert re.search(r'<td class="who"><bdi>&lt;script&gt;[^<]*</bdi></td>', page)
    assert "<b>11</b> of <b>12</b> items share their rank" in page


def test_the_forest_marks_ties_and_the_top_k_rule() -> None:
    figures = ItemUncertainty(0.5, -1.0, 2.0, 0.4)
    rows = [ForestRow(1, False, "x", figures), ForestRow(2, True, "y", figures),
            ForestRow(2, True, "<b>z</b>", figures)]
    svg = forest_plot(rows, k=2)
    assert svg.count("<circle") == 3 and svg.count(">2=<") == 2 and ">1<" in svg
    assert "stroke-dasharray" in svg and "top 2 ↑" in svg
    assert "<b>z</b>" not in svg and "&lt;b&gt;z&lt;/b&gt;" in svg
    assert "stroke-dasharray" not in forest_plot(rows, k=3) and forest_plot([], k=1) == ""


def test_the_section_speaks_japanese() -> None:
    result = _result(2, OrderConsistency(10, 5))
    page = to_html(result, lang="ja")
    assert "このランキングはどこまで確かか" in page and "提示順による判定の不一致" in page
    single = dataclasses.replace(result.statistics, order_consistency=OrderConsistency(0, 0))
    page = to_html(SortResult(result.rankings, result.match_history, single), lang="ja")
    assert "順序の一貫性は" in page


def test_a_few_disagreeing_pairs_of_an_unbiased_judge_raise_no_warning() -> None:
    # 5 of 18 pairs (28 %): what a judge disagreeing in 20 % of pairs gives one time in four.
    chance = to_html(_result(3, OrderConsistency(18, 5)), {"top_k": 1})
    assert "Poor order consistency" not in chance
    assert "In <b>28 %</b> of the <b>18</b> AB/BA pairs" in chance  # still stated, as a figure
    poor = to_html(_result(3, OrderConsistency(18, 8)), {"top_k": 1})
    assert ("Poor order consistency: in 44 % of the 18 AB/BA pairs the two orders gave "
            "different winners, so the verdict followed the position rather than the texts: "
            "more than 20 % of pairs, by a one-sided binomial test at the 5 % level.") in poor
    assert "片側二項検定・有意水準5 %で" in to_html(_result(3, OrderConsistency(18, 8)), lang="ja")


def test_the_top_k_of_a_dozen_items_is_half_of_them_not_ten() -> None:
    page = to_html(_result(3, OrderConsistency(100, 19)))
    assert "P(top 6)" in page and "The top 6 are not separated from the rest" in page
    assert "top 10" not in page.lower() and "top_k=10" not in page
    assert 'top_k=6' in page  # the advice: a Swiss run for this top K
