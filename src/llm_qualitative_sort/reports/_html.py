"""The HTML report: one self-contained page (inline CSS and SVG, no script, no network).

The page is rendered from the Jinja2 templates in `templates/`, with autoescaping: every
item, reason, id, setting and judge's name is escaped where it is written, whatever code
builds the figures around it. Only what the package writes itself goes in unescaped, as
`Markup`: the stylesheet, the SVG charts (whose texts are escaped as they are drawn), the
audit's sentences (filled with escaped figures) and the report's own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from functools import cache
from html import escape
from typing import Any, NamedTuple

from jinja2 import Environment, PackageLoader
from jinja2.ext import Extension
from markupsafe import Markup

from llm_qualitative_sort.audit import SlotShare
from llm_qualitative_sort.models import EarlyStop, SortResult
from llm_qualitative_sort.rating.scoring import ItemScore
from llm_qualitative_sort.reports._adjusted import (
    adjusted_page,
    length_sentence,
    people_length_sentence,
)
from llm_qualitative_sort.reports._advice import check_front_end
from llm_qualitative_sort.reports._charts import bracket_colour, brackets_chart, wins_chart
from llm_qualitative_sort.reports._people import people_section
from llm_qualitative_sort.reports._pointwise import pointwise_page, pointwise_words, shown_calls
from llm_qualitative_sort.reports._ranking_calls import ranking_calls_section
from llm_qualitative_sort.reports._soft import chance_for, soft_parts
from llm_qualitative_sort.reports._standings import (
    Standing,
    bracket_history,
    infer_elimination_count,
    rank_rows,
    standings,
)
from llm_qualitative_sort.reports._style import CSS
from llm_qualitative_sort.reports._text import display_width, page_language, truncate
from llm_qualitative_sort.reports._trust import trust_section
from llm_qualitative_sort.reports._uncertainty import report_top_k, uncertainty
from llm_qualitative_sort.reports._words import words as words_in
from llm_qualitative_sort.results.phases import phases
from llm_qualitative_sort.tournament import shown_settings
from llm_qualitative_sort.verdicts import MatchResult, RoundResult

# Even if some text escaped escaping, the page could neither run script nor fetch anything.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
WINS_CHART_LIMIT = 60
# An opponent's text longer than this (in display columns) shows as an excerpt that opens.
EXCERPT_COLUMNS = 80
Words = Mapping[str, str]


def to_html(
    result: SortResult,
    settings: Mapping[str, Any] | None = None,
    *,
    lang: str | None = None,
    ids: Mapping[str, Any] | None = None,
    front_end: str = "python",
) -> str:
    """The report as one HTML document (UTF-8, viewable offline).

    Every item's text is escaped and isolated (`<bdi>`), so no text can run as markup nor
    reorder its neighbours with direction marks.

    Args:
        result: What to report.
        settings: How the run was made; `criteria` becomes the title, the rest is listed.
        lang: Language of the report's own words ("en" or "ja"); also the page's `lang`.
            By default English words, and a `lang` that follows the items and criterion.
        ids: Each item's id in the input, shown beside it.
        front_end: Who writes the report, which decides how its advice names settings:
            "python" (the sorter's arguments, `strategy=Swiss(top_k=10)`) or "cli" (the
            command line's flags, `--strategy swiss --top-k 10`).

    Raises:
        ValueError: `front_end` is neither "python" nor "cli".

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> page = to_html(SortResult([(1, ["<b>x</b>"])], [], Statistics(0, 0, 0, 0.0)))
        >>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
        True
    """
    made_by = check_front_end(front_end)
    # Only the named strategy's own settings (a Swiss run's N is not a setting of it).
    settings = shown_settings(settings or {})
    words = words_in(lang)
    if result.pointwise:  # the trust section speaks of scores, not of a fit
        words = pointwise_words(words)
    # The result knows its strategy; settings written by hand may name it, or not.
    swiss = (settings.get("strategy") or result.strategy) == "swiss"
    by_score = swiss or settings.get("ranking") == "bradley_terry"
    table = standings(result)
    title = str(settings.get("criteria") or words["title"])
    k = report_top_k(settings, len(table))
    both = phases(result)  # a pre-pass, then Swiss (None: no pre-pass)
    ids = ids or {}
    trust = trust_section(table, uncertainty(result, k), k, result.statistics, words,
                          made_by, _calls_per_match(result, settings), soft_parts(result, words))
    if trust is not None and (length := result.length_preference) is not None:
        who = words["who_panel"] if len(result.statistics.judges) > 1 else words["who_one"]
        trust["sentences"].append(length_sentence(length, who, words))
        if (people := result.people_length_preference) is not None:
            trust["sentences"].append(people_length_sentence(people, words))
    page = {
        "w": _trusted(tuple(words.items())), "title": title,
        "css": Markup(CSS), "csp": Markup(_CSP),
        "page_lang": lang or page_language([title, *(s.item for s in table)]),
        "run_line": _run_line(result, settings, words),
        "phases": None if both is None else words["phases"].format(
            texts=both["prepass"]["texts"], scored=both["prepass"]["scored"], **both["swiss"]),
        "people": people_section(result, words),
        "cards": _statistics(result, words, both),
        "early_stop": _early_stop(result.statistics.early_stop, words),
        "slots": _slots(result.statistics.slot_bias),
        "ranking_calls": ranking_calls_section(result.ranking_calls, words),
        "trust": trust,
        "brackets": None if swiss or result.pointwise else _brackets(result, settings, words),
        "pointwise": pointwise_page(result, ids, settings.get("inverse") is True)
        if result.pointwise else None,
        "ranking_note": "ranking_note_anchored" if result.order == "anchored" else
        "ranking_note_score" if by_score else "ranking_note",
        "ranking": [] if result.pointwise else _ranking(table, ids, _judge_numbers(result),
                                                        result.prepass),
        "wins": _wins(table, words),
        "adjusted": adjusted_page(result, words),
    }
    return _environment().get_template("report.html.j2").render(page)


class _JoinLines(Extension):
    """Joins a template's lines without their indentation and line ends.

    The templates stay readable, one element a line, while the page keeps the exact
    spacing of its inline text (a line end between two spans would show as a space).
    """

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return "".join(line.strip() for line in source.splitlines())


@cache
def _environment() -> Environment:
    return Environment(loader=PackageLoader("llm_qualitative_sort.reports", "templates"),
                       autoescape=True, extensions=[_JoinLines], keep_trailing_newline=True)


@cache
def _trusted(words: tuple[tuple[str, str], ...]) -> dict[str, Markup]:
    """The report's own words as the templates take them: escaped once, then `Markup`."""
    # Apostrophes stay as typed (the templates' attributes are double-quoted), so a word
    # reads in the page as it does in `_words`.
    return {key: Markup(escape(text, quote=False).replace('"', "&#34;"))
            for key, text in words}


def _calls_per_match(result: SortResult, settings: Mapping[str, Any]) -> int:
    """The run's `comparison_rounds`: as set, else as many calls as its longest match had."""
    given = settings.get("comparison_rounds")
    if isinstance(given, int) and not isinstance(given, bool) and given > 0:
        return given
    return max((len(m.rounds) for m in result.match_history), default=2)


def _run_line(result: SortResult, settings: dict[str, Any], words: Words
              ) -> list[tuple[str, str]]:
    """The run's id and settings, each as (its name in the report's words, its value)."""
    shown = {k: v for k, v in settings.items() if k != "criteria" and v is not None}
    pairs = [(words["run_id"], result.run_id or "—")]
    return pairs + [(words.get(f"setting_{name}", name.replace("_", " ")), str(value))
                    for name, value in shown.items()]


# The audit's records have a section of their own (the trust section).
_AUDIT_FIELDS = {"position_bias", "order_consistency", "judges", "agreement", "tied_items",
                 "largest_tie", "early_stop", "calibration", "slot_bias"}


def _statistics(result: SortResult, words: Words, both: dict[str, Any] | None
                ) -> list[tuple[str, str]]:
    """The run's counts as (label, value) cards; `both`: a pre-pass's phases (`phases`)."""
    stats = {f.name: getattr(result.statistics, f.name) for f in fields(result.statistics)
             if f.name not in _AUDIT_FIELDS}
    stats["elapsed_time"] = f"{stats['elapsed_time']:.2f} s"
    stats["rate_wait"] = f"{stats['rate_wait']:.1f} s"
    # Beside the tokens it divides: what the run cost per text.
    at = list(stats).index("output_tokens") + 1
    stats = dict([*stats.items()][:at] + [("tokens_per_text", f"{result.tokens_per_text:,.0f}")]
                 + [*stats.items()][at:])
    cost = stats["estimated_cost"]
    stats["estimated_cost"] = "—" if cost is None else f"{cost:.4f}"  # no prices given
    if result.pointwise:  # texts scored alone: no match, no draw, no tie
        for name in ("total_matches", "draws", "tied_calls"):
            del stats[name]
        stats = {"texts_scored": len(result.pointwise), **stats}
    elif both is not None:  # a pre-pass: its texts, then the matches
        stats = {"texts_scored": both["prepass"]["texts"], **stats,
                 "total_matches": both["swiss"]["matches"]}
    return [(words.get(name, name.replace("_", " ")), str(value))
            for name, value in stats.items()]


def _slots(shares: Sequence[SlotShare]) -> list[tuple[str, ...]]:
    """Per shown slot of the ranking calls: first places, share, interval, share expected."""
    return [(f"{s.slot}/{s.size}", f"{s.first:g} / {s.calls}", f"{100 * s.share:.1f} %",
             f"{100 * s.low:.1f}–{100 * s.high:.1f} %", f"{100 * s.expected:.1f} %")
            for s in shares]


def _early_stop(stop: EarlyStop | None, words: Words) -> str | None:
    """Why the run spent less than its budget: a sentence under the counts."""
    if stop is None:
        return None
    sure = "" if stop.expected is None else words["early_stop_sure"].format(
        share=f"{100 * stop.expected:.0f} %")
    return words["early_stop"].format(k=stop.top_k, sure=sure, used=stop.judgements,
                                      budget=stop.budget, unspent=stop.budget - stop.judgements)


def _brackets(result: SortResult, settings: Mapping[str, Any], words: Words
              ) -> dict[str, Any] | None:
    """The loss brackets' legend and chart (None without matches)."""
    if not result.match_history:
        return None
    n = int(settings.get("elimination_count") or infer_elimination_count(result))
    legend = [(bracket_colour(b, n),
               words["eliminated"] if b == n else words["n_losses"].format(n=b))
              for b in range(n + 1)]
    return {"n": n, "legend": legend,
            "chart": brackets_chart(bracket_history(result, n), words=words)}


def _judge_numbers(result: SortResult) -> dict[str, int]:
    """Each judge's number in the trust section's table (calls show it, not the name)."""
    return {judge.judge: n for n, judge in enumerate(result.statistics.judges, 1)}


def _ranking(table: list[Standing], ids: Mapping[str, Any], judges: Mapping[str, int],
             prepass: Sequence[ItemScore] = ()) -> list[dict[str, Any]]:
    """The ranking's rows, each with its item's matches (the first item's open).

    A run with a pre-pass lists first, among an item's matches, its score alone.
    """
    scored = {s.item: s for s in prepass}
    rows = rank_rows([(s.rank, s) for s in table])
    for row in rows:
        standing = row["member"]
        row["id"] = ids.get(standing.item)
        row["matches"] = [_match(standing.item, m, judges) for m in standing.matches]
        own = scored.get(standing.item)
        row["prepass"] = None if own is None else {
            # The pre-pass is the run's first round.
            "round": 1, "score": "–" if own.score is None else f"{own.score:.3f}",
            "calls": shown_calls(own)}
    return rows


class _Call(NamedTuple):
    """One call of a match, from the item's side: `verdict` and `shown` name words."""

    verdict: str
    chance: int | None  # the item's stated chance of winning, in per cent
    shown: str
    cached: bool
    judge: str | None
    number: int | str  # the judge's number in the judges' table
    reasoning: str


class _Match(NamedTuple):
    """One match of an item, from its side; `outcome` names a word."""

    round: int
    opponent: str
    short: bool
    short_text: str
    outcome: str
    calls: list[_Call]


def _match(item: str, match: MatchResult, judges: Mapping[str, int]) -> _Match:
    side = "A" if match.item_a == item else "B"
    opponent = match.item_b if side == "A" else match.item_a
    # A long opponent shows its first words, opening to the whole (no script needed).
    short = display_width(opponent) <= EXCERPT_COLUMNS and "\n" not in opponent
    return _Match(match.round_number, opponent, short,
                  "" if short else truncate(opponent, EXCERPT_COLUMNS),
                  "draw" if match.winner is None else ("won" if match.winner == side else "lost"),
                  [_call(call, side, judges) for call in match.rounds])


def _call(call: RoundResult, side: str, judges: Mapping[str, int]) -> _Call:
    verdict = "this" if call.winner == side else "other"
    if call.winner is None:
        verdict = "no_verdict"
    elif call.winner == "tie":
        verdict = "tie_verdict"
    chance = chance_for(call, side)
    # The judge's reasoning names the texts "A" and "B" in the order it was shown them.
    first = (call.order == "AB") == (side == "A")
    return _Call(verdict, None if chance is None else round(100 * chance),
                 "shown_first" if first else "shown_second", call.cached, call.judge,
                 "?" if call.judge is None else judges.get(call.judge, "?"), call.reasoning)


def _wins(table: list[Standing], words: Words) -> dict[str, str] | None:
    """The wins chart of the first `WINS_CHART_LIMIT` items (None without matches)."""
    if not any(s.matches for s in table):
        return None
    shown = table[:WINS_CHART_LIMIT]
    more = len(table) - len(shown)
    return {"more": words["wins_more"].format(shown=len(shown), total=len(table))
            if more else "",
            "chart": wins_chart([(s.item, s.wins) for s in shown], words=words)}
