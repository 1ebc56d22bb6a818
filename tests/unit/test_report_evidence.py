"""The HTML report's audit names the counts its figures rest on, and its advice the front end."""

import json
from pathlib import Path

import pytest

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.audit import JudgeAgreement, JudgeAudit, OrderConsistency, PositionBias
from llm_qualitative_sort.reports import to_html, write_report

ITEMS = [chr(ord("a") + i) for i in range(12)]


def _result(pairs: int, evidence: int, prompts: int | None = None) -> SortResult:
    """Eleven items tied below "a" (so the top 3 are not separated), with the audit given."""
    matches = [MatchResult("a", other, "A", [RoundResult("AB", "A", "", False),
                                             RoundResult("BA", "A", "", False)])
               for other in ITEMS[1:] for _ in range(2)]
    calls = 2 * len(matches)
    order = OrderConsistency(pairs, pairs // 2)
    bias = PositionBias(0.22, 0.06, 0.40, 0.72, calls, "swapped_pairs", evidence)
    judges: tuple[JudgeAudit, ...] = ()
    agreement: tuple[JudgeAgreement, ...] = ()
    if prompts is not None:
        judges = tuple(JudgeAudit(name, calls // 2, calls // 2, 0, 1, 1, None, bias, order)
                       for name in ("MockLLMProvider:seed=1", "MockLLMProvider:seed=2"))
        agreement = (JudgeAgreement((judges[0].judge, judges[1].judge), prompts, prompts // 2,
                                    None if not prompts else 0.5, None if not prompts else 0.1),)
    stats = Statistics(len(matches), calls, 0, 0.1, failed_calls=4, position_bias=bias,
                       order_consistency=order, judges=judges, agreement=agreement,
                       tied_items=11, largest_tie=11)
    return SortResult([(1, ["a"]), (2, ITEMS[1:])], matches, stats)


def test_each_audit_figure_names_its_count_and_a_small_one_is_uncertain() -> None:
    page = to_html(_result(pairs=20, evidence=10, prompts=12), {"top_k": 3})
    assert ("(95 %: <b>56 %</b> to <b>90 %</b>), from the <b>10</b> AB/BA pairs whose two "
            "orders gave different winners. Only <b>10</b> pairs (fewer than <b>30</b>): this "
            "figure is uncertain.") in page
    assert ("In <b>50 %</b> of the <b>20</b> AB/BA pairs" in page
            and "Only <b>20</b> pairs (fewer than <b>30</b>)" in page)
    assert "on <b>50 %</b> of the <b>12</b> prompts both answered" in page
    assert "Only <b>12</b> shared prompts (fewer than <b>30</b>)" in page
    assert "fitted to <b>40</b> calls with a verdict" in page
    assert "<b>4</b> of <b>44</b> calls (<b>9 %</b>) gave no verdict" in page
    assert "Poor order consistency: in 50 % of the 20 AB/BA pairs" in page
    # The judges' table: each share with its count, and the small ones marked.
    assert "72 % (32/44)</td>" in page and "+22.0 (+6.0…+40.0) pt, 10 pairs *" in page
    assert "50 % (10/20) *" in page and "* Rests on fewer than 30 calls or pairs" in page


def test_figures_resting_on_enough_are_not_called_uncertain() -> None:
    page = to_html(_result(pairs=200, evidence=60, prompts=300))
    assert "from the <b>60</b> AB/BA pairs" in page and "of the <b>200</b> AB/BA pairs" in page
    assert "uncertain" not in page.replace("calls with a verdict", "")
    assert "Rests on fewer" not in page


def test_the_evidence_is_named_in_japanese() -> None:
    page = to_html(_result(pairs=20, evidence=10, prompts=12), {"top_k": 3}, lang="ja")
    assert "提示順で勝者が変わったAB/BAの<b>10</b>組から推定）。<b>10</b>組しかない" in page
    assert "<b>10</b>組しかないため（<b>30</b>組未満）、この数値は不確かです。" in page
    assert "共通の設問が<b>12</b>件しかないため" in page
    assert "判定のあった<b>40</b>回に当てはめたモデル" in page
    assert "AB/BAの20組の50 %で" in page and "10組 *" in page
    assert "30件未満の判定または組に基づく数値" in page


def test_advice_is_spelt_for_python_by_default_and_for_the_command_line_when_it_writes() -> None:
    result = _result(pairs=20, evidence=10, prompts=0)
    python = to_html(result, {"top_k": 3, "comparison_rounds": 2})
    assert "strategy=Swiss(top_k=3, budget=88)" in python
    assert ("More calls per match (<code>comparison_rounds=4</code>), a panel of judges "
            "(<code>PanelProvider") in python
    assert "<code>comparison_rounds=4</code> has every judge judge every match" in python
    assert "--" not in python.split("<body>")[1].replace("<!--", "")
    cli = to_html(result, {"top_k": 3, "comparison_rounds": 2}, front_end="cli")
    assert "--strategy swiss --top-k 3 --budget 88" in cli
    assert ("More calls per match (<code>--comparison-rounds 4</code>), a panel of judges "
            "(<code>--judge") in cli
    assert "<code>--comparison-rounds 4</code> has every judge" in cli
    assert "top_k=" not in cli and "comparison_rounds=" not in cli
    ja = to_html(result, {"top_k": 3}, lang="ja", front_end="cli")
    assert "--strategy swiss --top-k 3" in ja and "（<code>--comparison-rounds 4</code>）" in ja
    # The panel is shown as the flags themselves, with no English words in a Japanese page.
    assert "<code>--judge PROVIDER:MODEL --judge PROVIDER:MODEL</code>" in ja
    assert "repeated" not in ja


def test_write_report_passes_the_front_end_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    result = _result(pairs=20, evidence=10)
    path = write_report(result, tmp_path / "r.html", {"top_k": 3}, front_end="cli")
    assert "--top-k 3" in path.read_text(encoding="utf-8")
    assert "top_k=3" in write_report(result, tmp_path / "p.html", {"top_k": 3}).read_text(
        encoding="utf-8")
    with pytest.raises(ValueError, match="front_end"):
        write_report(result, tmp_path / "x.html", front_end="shell")
    with pytest.raises(ValueError, match="front_end"):
        to_html(result, front_end="shell")
    assert json.loads((write_report(result, tmp_path / "r.json")).read_text())["schema_version"]


def test_a_figure_resting_on_nothing_says_so() -> None:
    page = to_html(_result(pairs=20, evidence=0))
    assert ("from the <b>0</b> AB/BA pairs whose two orders gave different winners. With none, "
            "this figure rests on nothing but its prior: ignore it.") in page
    assert "Only <b>0</b>" not in page
    assert "根拠が1件もないため" in to_html(_result(pairs=20, evidence=0), lang="ja")
