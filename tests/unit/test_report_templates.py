"""The HTML report comes from Jinja2 templates with autoescaping: no text can become markup."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from importlib.resources import files

import pytest

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.audit import JudgeAudit, OrderConsistency
from llm_qualitative_sort.rating.scoring import ItemScore, ScoredCall
from llm_qualitative_sort.reports import to_html

# Each breaks out of a different place: text, a double- or single-quoted attribute, a
# comment, a table, and a template's own syntax (which must stay text, never be evaluated).
HOSTILE = [
    "<script>alert(1)</script>",
    '" onmouseover="alert(2)',
    "' onfocus='alert(3)",
    "--><img src=x onerror=alert(4)><!--",
    "</td></tr></table><h1>5</h1>",
    "{{ 6 * 7 }}{% if true %}jinja{% endif %}",
]
# Every tag and attribute the report writes itself.
TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "p",
        "span", "b", "bdi", "section", "div", "table", "thead", "tbody", "tr", "th", "td",
        "details", "summary", "ol", "ul", "li", "small", "i", "code", "svg", "g", "rect",
        "line", "circle", "text", "tspan", "clippath"}
ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "rowspan", "open",
              "title", "style", "role", "xmlns", "viewbox", "width", "height", "font-size",
              "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "fill", "stroke",
              "stroke-width", "stroke-dasharray", "text-anchor", "direction", "clip-path", "id"}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.texts: list[str] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes |= {name for name, _ in attrs}
        self.texts += [value for _, value in attrs if value]

    def handle_data(self, data: str) -> None:
        self.texts.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def _parsed(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    parsed.close()
    return parsed


def _pairwise(text: str) -> SortResult:
    long = text + " and a long tail " * 8
    calls = [RoundResult("AB", "A", text, False, judge=text, probability=0.7),
             RoundResult("BA", None, text, True, judge=text)]
    judge = JudgeAudit(text, 2, 2, 1, 10, 10, None, None, OrderConsistency(1, 0))
    stats = dataclasses.replace(Statistics(1, 2, 0, 0.1), judges=(judge,))
    return SortResult([(1, [text]), (2, [long])], [MatchResult(text, long, "A", calls, 1)],
                      stats, run_id=text, verdicts="soft")


def _pointwise(text: str) -> SortResult:
    calls = (ScoredCall(3, 2.5, 0.6, {2: 0.5, 3: 0.5}, text, cached=True),
             ScoredCall(None, None, None, None, text))
    return SortResult([(1, [text])], [], Statistics(0, 2, 1, 0.1), run_id=text,
                      pointwise=(ItemScore(text, 0.6, calls),))


def test_the_page_comes_from_templates_shipped_in_the_package_with_autoescape() -> None:
    from llm_qualitative_sort.reports._html import _environment

    shipped = files("llm_qualitative_sort.reports") / "templates"
    names = {"report.html.j2", "trust.html.j2", "pointwise.html.j2", "items.html.j2"}
    assert names <= {entry.name for entry in shipped.iterdir()}
    environment = _environment()
    assert environment.autoescape is True
    assert environment.get_template("report.html.j2").filename is not None


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("lang", [None, "ja"])
@pytest.mark.parametrize("build", [_pairwise, _pointwise])
def test_no_text_id_setting_or_judge_becomes_markup(text: str, lang: str | None,
                                                    build: object) -> None:
    assert callable(build)
    result = build(text)
    settings = {"criteria": text, text: text, "strategy": "swiss"}
    page = to_html(result, settings, lang=lang, ids={text: text})
    parsed = _parsed(page)
    assert parsed.tags <= TAGS and parsed.attributes <= ATTRIBUTES
    assert not parsed.comments
    # The text reaches the reader whole, as text: as an item, a reason, an id, a setting,
    # a judge's name (in a tooltip); template syntax shows as typed, never evaluated.
    assert sum(text in chunk for chunk in parsed.texts) >= 5
