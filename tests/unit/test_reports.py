import csv
import io
import json
import re
from html.parser import HTMLParser

import pytest

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.reports import (
    SCHEMA_VERSION,
    from_json_dict,
    to_csv,
    to_html,
    to_json_dict,
    write_report,
)
from llm_qualitative_sort.reports._standings import bracket_history, infer_elimination_count

EVIL = "<script>alert('x')</script>"
JA = "吾輩は猫である。名前はまだ無い。"


def _round(winner, order="AB", reasoning="because"):
    return RoundResult(order=order, winner=winner, reasoning=reasoning, cached=False)


def _result() -> SortResult:
    # 3 items, N=2: round 1 JA beats EVIL; round 2 JA draws "plain" (both lose);
    # round 3 "plain" beats EVIL (EVIL eliminated), round 4 JA beats "plain".
    history = [
        MatchResult(JA, EVIL, "A", [_round("A"), _round("A", "BA", "<b>bold</b> & more")], 1),
        MatchResult("plain", JA, None, [_round("A"), _round("B", "BA")], 2),
        MatchResult(EVIL, "plain", "B", [_round("B"), _round(None, "BA")], 3),
        MatchResult(JA, "plain", "A", [_round("A"), _round("A", "BA")], 4),
    ]
    stats = Statistics(4, 8, 0, 0.5, failed_calls=1, draws=1, rounds=4)
    return SortResult([(1, [JA]), (2, ["plain"]), (3, [EVIL])], history, stats, "run-1")


def test_json_round_trips_everything_in_the_result() -> None:
    result = _result()
    data = json.loads(json.dumps(to_json_dict(result, {"criteria": "c"}), ensure_ascii=False))
    assert data["schema_version"] == SCHEMA_VERSION and data["settings"] == {"criteria": "c"}
    assert from_json_dict(data) == result


def test_json_standings_count_wins_and_losses_with_draws_costing_both() -> None:
    keys = ("rank", "item", "wins", "losses")
    standings = [{k: s[k] for k in keys} for s in to_json_dict(_result())["standings"]]
    assert standings == [
        {"rank": 1, "item": JA, "wins": 2, "losses": 1},
        {"rank": 2, "item": "plain", "wins": 1, "losses": 2},
        {"rank": 3, "item": EVIL, "wins": 0, "losses": 2},
    ]


def test_json_of_another_schema_is_refused() -> None:
    with pytest.raises(ValueError, match="version"):
        from_json_dict({"schema": "llm-qualitative-sort/result", "schema_version": 99})


def test_csv_has_one_row_per_item_with_ties_sharing_a_rank() -> None:
    result = SortResult([(1, ["a"]), (2, ["b", "c,d"])], [], Statistics(0, 0, 0, 0.0))
    rows = [row[:4] for row in csv.reader(io.StringIO(to_csv(result)))]
    assert rows == [["rank", "item", "wins", "losses"], ["1", "a", "0", "0"],
                    ["2", "b", "0", "0"], ["2", "c,d", "0", "0"]]


def test_write_report_picks_the_format_by_extension_in_utf8(tmp_path) -> None:
    result = _result()
    for name in ("r.json", "r.csv", "r.html"):
        path = write_report(result, tmp_path / name)
        assert JA in path.read_text(encoding="utf-8")
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["run_id"] == "run-1"
    assert not list(tmp_path.glob("*.partial"))
    with pytest.raises(ValueError, match=".json, .csv, .html"):
        write_report(result, tmp_path / "r.xlsx")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data) -> None:
        self.text.append(data)


def test_html_escapes_items_and_reasoning_and_needs_no_network() -> None:
    page = to_html(_result(), {"criteria": "<i>which</i>"})
    parsed = _Page()
    parsed.feed(page)
    assert "script" not in parsed.tags
    text = "".join(parsed.text)
    assert EVIL in text and "<b>bold</b> & more" in text and "<i>which</i>" in text
    assert not re.search(r"(src|href)\s*=", page)  # nothing to fetch
    assert "default-src 'none'" in page


def test_html_shows_ties_matches_statistics_and_charts() -> None:
    result = SortResult([(1, ["a", "b"]), (3, ["c"])], _result().match_history[:0],
                        Statistics(0, 0, 0, 0.0))
    assert "tied ×2" in to_html(result)
    page = to_html(_result())
    assert page.count("<details") == 3 and page.count("<details open") == 1
    assert page.count("<svg") == 3  # the forest plot, the brackets, the wins
    for label in ("total matches", "failed calls", "draws", "How the brackets emptied"):
        assert label in page
    assert ">draw<" in page and ">won<" in page and ">lost<" in page and "no verdict" in page


def test_bracket_history_empties_the_brackets_round_by_round() -> None:
    result = _result()
    assert infer_elimination_count(result) == 2
    assert bracket_history(result, 2) == [[3, 0, 0], [2, 1, 0], [0, 3, 0], [0, 2, 1], [0, 1, 2]]


def test_every_statistics_card_has_a_label_in_every_language() -> None:
    from dataclasses import fields

    from llm_qualitative_sort.models import Statistics
    from llm_qualitative_sort.reports._html import _AUDIT_FIELDS
    from llm_qualitative_sort.reports._words import LANGUAGES

    cards = {f.name for f in fields(Statistics)} - _AUDIT_FIELDS
    for lang, table in LANGUAGES.items():
        assert cards - set(table) == set(), lang


def test_a_swiss_report_has_no_loss_brackets_and_says_it_ranks_by_score() -> None:
    from llm_qualitative_sort.reports._words import EN

    elimination = to_html(_result(), {"criteria": "c", "elimination_count": 2})
    swiss = to_html(_result(), {"criteria": "c", "strategy": "swiss", "elimination_count": 2})
    assert EN["brackets"] in elimination and EN["ranking_note"] in elimination
    assert EN["brackets"] not in swiss and EN["ranking_note_score"] in swiss
    assert "elimination count" in elimination and "elimination count" not in swiss


def test_a_swiss_result_reports_as_swiss_without_settings_given() -> None:
    """The result knows its strategy: a report written from it alone shows no loss brackets."""
    import asyncio

    from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
    from llm_qualitative_sort.reports import from_json_dict, to_json_dict
    from llm_qualitative_sort.reports._words import EN

    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="c", strategy=Swiss(),
                               checkpointer=None, seed=1)
    result = asyncio.run(sorter.sort([str(i) for i in range(8)]))
    assert result.strategy == "swiss"
    assert EN["brackets"] not in to_html(result) and EN["ranking_note_score"] in to_html(result)
    data = to_json_dict(result)
    assert data["settings"] == {"strategy": "swiss"}
    assert from_json_dict(json.loads(json.dumps(data))).strategy == "swiss"
    assert to_json_dict(result, {"strategy": "swiss", "criteria": "c"})["settings"] == {
        "strategy": "swiss", "criteria": "c"}
