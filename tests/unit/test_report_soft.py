"""Soft verdicts in the CSV and HTML reports: per-call probabilities, share, calibration."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from functools import cache

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, SortResult, Swiss
from llm_qualitative_sort.models import RoundResult
from llm_qualitative_sort.reports import to_csv, to_html
from llm_qualitative_sort.reports._words import LANGUAGES

ITEMS = [str(i) for i in range(12)]
OLD_HEADER = ["rank", "item", "wins", "losses", "score", "low_95", "high_95", "p_top_6"]


@cache
def run(verdicts: str, logprobs: str | None) -> SortResult:
    judge = MockLLMProvider(seed=3, noise_stddev=4.0, logprobs=logprobs)  # type: ignore[arg-type]
    sorter = QualitativeSorter(judge, criteria="x", seed=3, checkpointer=None,
                               strategy=Swiss(budget=40, comparison_rounds=2,
                                              verdicts=verdicts))  # type: ignore[arg-type]
    return asyncio.run(sorter.sort(ITEMS))


def p_item_wins(call: RoundResult, item_is_a: bool) -> float:
    if call.probability is not None:
        return call.probability if item_is_a else 1 - call.probability
    won = {"A": 1.0, "B": 0.0, "tie": 0.5}[call.winner]  # type: ignore[index]
    return won if item_is_a else 1 - won


def test_a_soft_csv_gives_each_items_soft_calls_and_soft_win_share() -> None:
    result = run("soft", "calibrated")
    rows = list(csv.DictReader(io.StringIO(to_csv(result))))
    assert list(rows[0]) == [*OLD_HEADER, "soft_calls", "soft_win_share"]
    for row in rows:
        item = row["item"]
        mine = [(call, m.item_a == item) for m in result.match_history
                for call in m.rounds if item in (m.item_a, m.item_b) and call.winner is not None]
        assert int(row["soft_calls"]) == sum(c.probability is not None for c, _ in mine) > 0
        expected = sum(p_item_wins(c, a) for c, a in mine) / len(mine)
        assert abs(float(row["soft_win_share"]) - expected) < 1e-6
    stats = result.statistics.calibration
    assert stats is not None
    assert sum(int(r["soft_calls"]) for r in rows) == 2 * stats.soft_calls


def test_a_hard_csv_is_unchanged_even_when_calls_carry_probabilities() -> None:
    for logprobs in (None, "calibrated"):
        rows = list(csv.reader(io.StringIO(to_csv(run("hard", logprobs)))))
        assert rows[0] == OLD_HEADER


def test_the_html_report_shows_each_calls_probability_and_the_calibration() -> None:
    result = run("soft", "calibrated")
    page = to_html(result, {"criteria": "x", "strategy": "swiss", "verdicts": "soft"})
    calls = [(call, m) for m in result.match_history for call in m.rounds]
    soft = [(c, m) for c, m in calls if c.probability is not None]
    shown = re.findall(r'<span class="prob"[^>]*>(\d+) %</span>', page)
    # Every call is listed under both of its items, each with its own side's probability.
    assert len(shown) == 2 * len(soft) > 0
    expected = sorted(f"{round(100 * p_item_wins(c, side)):d}" for c, m in soft
                      for side in (True, False))
    assert sorted(shown) == expected
    stats = result.statistics.calibration
    assert stats is not None and stats.brier is not None
    audit = page[page.index('class="audit"'):]
    assert f"{stats.brier:.3f}" in audit and f"{stats.soft_calls:,}" in audit
    table = page[page.index('class="judges reliability"'):]
    table = table[:table.index("</table>")]
    assert table.count("<tr>") == 1 + len(stats.bins)
    for b in stats.bins:
        assert f"{b.observed * 100:.0f} %" in table


def test_a_run_without_probabilities_shows_neither() -> None:
    page = to_html(run("hard", None), {"criteria": "x", "strategy": "swiss"})
    assert 'class="prob"' not in page and 'class="judges reliability"' not in page
    assert run("hard", None).statistics.calibration is None


def test_a_japanese_report_words_the_calibration() -> None:
    page = to_html(run("soft", "calibrated"), {"criteria": "x"}, lang="ja")
    assert LANGUAGES["ja"]["calibration"] in page
    assert set(LANGUAGES["en"]) <= set(LANGUAGES["ja"])


def test_the_command_lines_summary_says_what_soft_verdicts_got(capsys, tmp_path) -> None:
    from llm_qualitative_sort.cli._config import RunConfig
    from llm_qualitative_sort.cli._run import print_summary

    def said(result: SortResult, **config: object) -> list[str]:
        print_summary(result, RunConfig(checkpoint=str(tmp_path / "r.db"), **config), None)
        return [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("soft verdicts")]

    soft = run("soft", "calibrated")
    calls = soft.statistics.calibration.soft_calls  # type: ignore[union-attr]
    assert said(soft, strategy="swiss", verdicts="soft") == [
        f"soft verdicts: 100 % of the calls with a verdict ({calls}) carried the judge's "
        "probability"]
    assert said(soft, strategy="elimination", verdicts="soft")[0].endswith(
        "; the ranking counts wins, the scores and intervals use the probabilities")
    assert said(run("soft", None), strategy="swiss", verdicts="soft") == [
        "soft verdicts: no call carried the judge's probability (its server sent no "
        "log-probabilities): the fit used the verdicts alone"]
    assert said(run("hard", "calibrated"), strategy="swiss") == []
