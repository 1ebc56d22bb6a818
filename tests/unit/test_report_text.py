"""Japanese and bidirectional text in the HTML report: widths, excerpts, language, isolation."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.reports import to_html
from llm_qualitative_sort.reports._charts import LABEL_COLUMNS, wins_chart
from llm_qualitative_sort.reports._text import (
    display_width,
    page_language,
    truncate,
)

RLO = "\u202e"
LONG_JA = "吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で" * 2


def test_width_counts_wide_characters_twice_and_marks_not_at_all() -> None:
    assert display_width("abc") == 3
    assert display_width("日本語") == 6
    assert display_width("ｱｲｳ") == 3  # halfwidth katakana
    assert display_width("e\u0301") == 1 and display_width(RLO) == 0


@pytest.mark.parametrize("text", [LONG_JA, "x" * 100, "混在 mixed 日本語 " * 8, "短い"])
def test_truncation_keeps_the_start_and_fits(text: str) -> None:
    cut = truncate(text, LABEL_COLUMNS)
    assert display_width(cut) <= LABEL_COLUMNS
    if display_width(text) > LABEL_COLUMNS:
        assert cut.endswith("…") and text.startswith(cut[:-1])
    else:
        assert cut == text


def test_chart_labels_are_cut_by_width_and_keep_the_full_text_as_tooltip() -> None:
    svg = wins_chart([(LONG_JA, 3), ("short", 1)])
    labels = re.findall(r'<tspan class="iso">(.*?)</tspan>', svg)
    assert labels[0] == truncate(LONG_JA, LABEL_COLUMNS) and labels[1] == "short"
    assert f"<title>{LONG_JA}</title>" in svg and 'clip-path="url(#labels)"' in svg


def test_page_language_follows_the_content() -> None:
    assert page_language(["吾輩は猫である"]) == "ja"
    assert page_language(["说服力", "essay"]) == "zh"
    assert page_language(["an essay"]) == "en"


def _result(items: list[str]) -> SortResult:
    a, b = items[0], items[1]
    call = RoundResult("AB", "A", f"{RLO}reasoning", False)
    match = MatchResult(a, b, "A", [call, call], 1)
    rest = [(3 + i, [t]) for i, t in enumerate(items[2:])]
    return SortResult([(1, [a]), (2, [b]), *rest], [match], Statistics(1, 2, 0, 0.1), "r")


def test_lang_and_japanese_words() -> None:
    result = _result(["吾輩は猫である", "国境の長いトンネル"])
    assert '<html lang="ja">' in to_html(result)
    english = to_html(_result(["one", "two"]))
    assert '<html lang="en">' in english and "Statistics" in english
    japanese = to_html(_result(["one", "two"]), lang="ja")
    assert '<html lang="ja">' in japanese and "統計" in japanese and "勝ち" in japanese
    assert "Statistics" not in japanese


def test_a_long_opponent_shows_as_an_excerpt_that_opens_to_the_whole() -> None:
    page = to_html(_result(["short", LONG_JA]))
    excerpt = truncate(LONG_JA, 80)
    assert f'<details class="excerpt"><summary><bdi>{excerpt}</bdi></summary>' in page
    assert f'<div class="full"><bdi>{LONG_JA}</bdi></div>' in page


class _Texts(HTMLParser):
    """Collects every text node with whether an isolating element encloses it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.found: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        isolating = tag == "bdi" or ("class", "iso") in attrs or ("dir", "auto") in attrs
        self.stack.append((tag, isolating))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        # A <title> is a tooltip or the window's name, never laid out beside other text.
        if not self.stack or self.stack[-1][0] != "title":
            self.found.append((data, any(iso for _, iso in self.stack)))


def test_every_text_with_a_direction_mark_is_isolated() -> None:
    items = [f"evil {RLO}txet", "neighbour", f"{RLO}" + LONG_JA]
    parser = _Texts()
    parser.feed(to_html(_result(items), {"criteria": f"crit{RLO}eria"}, ids={items[0]: "x"}))
    marked = [(text, iso) for text, iso in parser.found if RLO in text]
    assert len(marked) >= 8
    assert [text for text, iso in marked if not iso] == []
