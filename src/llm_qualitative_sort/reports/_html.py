"""The HTML report: one self-contained page (inline CSS and SVG, no script, no network)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from html import escape
from itertools import groupby
from typing import Any

from llm_qualitative_sort.models import EarlyStop, SortResult
from llm_qualitative_sort.reports._advice import check_front_end
from llm_qualitative_sort.reports._charts import bracket_colour, brackets_chart, wins_chart
from llm_qualitative_sort.reports._pointwise import pointwise_sections, pointwise_words
from llm_qualitative_sort.reports._soft import call_chance, soft_parts
from llm_qualitative_sort.reports._standings import (
    Standing,
    bracket_history,
    infer_elimination_count,
    standings,
)
from llm_qualitative_sort.reports._style import CSS
from llm_qualitative_sort.reports._text import display_width, isolated, page_language, truncate
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
    swiss = settings.get("strategy") == "swiss"
    by_score = swiss or settings.get("ranking") == "bradley_terry"
    n_losses = int(settings.get("elimination_count") or infer_elimination_count(result))
    table = standings(result)
    title = str(settings.get("criteria") or words["title"])
    page_lang = lang or page_language([title, *(s.item for s in table)])
    k = report_top_k(settings, len(table))
    trust = trust_section(table, uncertainty(result, k), k, result.statistics, words,
                          made_by, _calls_per_match(result, settings),
                          soft_parts(result, words))
    both = phases(result)  # a pre-pass, then Swiss (None: no pre-pass)
    body = [
        f"<h1>{isolated(title)}</h1>",
        _run_line(result, settings, words, both),
        _statistics(result, words, both),
        trust,
        "" if swiss or result.pointwise else _bracket_section(result, n_losses, words),
        pointwise_sections(result, ids or {}, words, settings.get("inverse") is True)
        if result.pointwise else
        _ranking(table, ids or {}, _judge_numbers(result), words,
                 words["ranking_note_score" if by_score else "ranking_note"]),
        _wins_section(table, words),
    ]
    return (
        f'<!DOCTYPE html>\n<html lang="{escape(page_lang)}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · llm-qualitative-sort</title><style>{CSS}</style></head>"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def _calls_per_match(result: SortResult, settings: Mapping[str, Any]) -> int:
    """The run's `comparison_rounds`: as set, else as many calls as its longest match had."""
    given = settings.get("comparison_rounds")
    if isinstance(given, int) and not isinstance(given, bool) and given > 0:
        return given
    return max((len(m.rounds) for m in result.match_history), default=2)


def _run_line(result: SortResult, settings: dict[str, Any], words: Words,
              both: dict[str, Any] | None) -> str:
    shown = {k: v for k, v in settings.items() if k != "criteria" and v is not None}
    pairs = [(words["run_id"], result.run_id or "—")]
    pairs += [(words.get(f"setting_{name}", name.replace("_", " ")), value)
              for name, value in shown.items()]
    cells = "".join(f"<span><b>{escape(k)}</b> {isolated(str(v))}</span>" for k, v in pairs)
    return f'<p class="run">{cells}</p>' + ("" if both is None else '<p class="run">' + escape(
        words["phases"].format(texts=both["prepass"]["texts"], scored=both["prepass"]["scored"],
                               **both["swiss"])) + "</p>")


# The audit's records have a section of their own (the trust section).
_AUDIT_FIELDS = {"position_bias", "order_consistency", "judges", "agreement", "tied_items",
                 "largest_tie", "early_stop", "calibration"}


def _statistics(result: SortResult, words: Words, both: dict[str, Any] | None) -> str:
    """The run's counts as cards; `both`: the phases of a run with a pre-pass (`phases`)."""
    stats = {f.name: getattr(result.statistics, f.name) for f in fields(result.statistics)
             if f.name not in _AUDIT_FIELDS}
    stats["elapsed_time"] = f"{stats['elapsed_time']:.2f} s"
    stats["rate_wait"] = f"{stats['rate_wait']:.1f} s"
    cost = stats["estimated_cost"]
    stats["estimated_cost"] = "—" if cost is None else f"{cost:.4f}"  # no prices given
    if result.pointwise:  # texts scored alone: no match, no draw, no tie
        for name in ("total_matches", "draws", "tied_calls"):
            del stats[name]
        stats = {"texts_scored": len(result.pointwise), **stats}
    elif both is not None:  # a pre-pass: its texts, then the matches
        stats = {"texts_scored": both["prepass"]["texts"], **stats,
                 "total_matches": both["swiss"]["matches"]}
    cards = "".join(
        f'<div class="stat"><div class="value">{escape(str(value))}</div>'
        f'<div class="label">{escape(words.get(name, name.replace("_", " ")))}</div></div>'
        for name, value in stats.items()
    )
    return (f'<section><h2>{words["statistics"]}</h2><div class="stats">{cards}</div>'
            f"{_early_stop(result.statistics.early_stop, words)}</section>")


def _early_stop(stop: EarlyStop | None, words: Words) -> str:
    """Why the run spent less than its budget: a sentence under the counts."""
    if stop is None:
        return ""
    sure = "" if stop.expected is None else words["early_stop_sure"].format(
        share=f"{100 * stop.expected:.0f} %")
    text = words["early_stop"].format(k=stop.top_k, sure=sure, used=stop.judgements,
                                      budget=stop.budget, unspent=stop.budget - stop.judgements)
    return f'<p class="note stop">{escape(text)}</p>'


def _bracket_section(result: SortResult, n_losses: int, words: Words) -> str:
    if not result.match_history:
        return ""
    legend = "".join(
        f'<span><i style="background:{bracket_colour(b, n_losses)}"></i>'
        f"{words['eliminated'] if b == n_losses else words['n_losses'].format(n=b)}</span>"
        for b in range(n_losses + 1)
    )
    chart = brackets_chart(bracket_history(result, n_losses), words=words)
    return (
        f"<section><h2>{words['brackets']}</h2>"
        f'<p class="note">{words["brackets_note"].format(n=n_losses)}</p>'
        f'<div class="legend">{legend}</div>{chart}</section>'
    )


def _judge_numbers(result: SortResult) -> dict[str, int]:
    """Each judge's number in the trust section's table (calls show it, not the name)."""
    return {judge.judge: n for n, judge in enumerate(result.statistics.judges, 1)}


def _ranking(
    table: list[Standing], ids: Mapping[str, Any], judges: Mapping[str, int], words: Words,
    note: str,
) -> str:
    # The first item opens by itself, to show the reader that the rows unfold.
    rows: list[str] = []
    for shade, (rank, group) in enumerate(groupby(table, key=lambda s: s.rank)):
        members = list(group)
        for index, standing in enumerate(members):
            rank_cell = ""
            if index == 0:
                tie = words["tied"].format(n=len(members))
                tie = f'<span class="tie">{tie}</span>' if len(members) > 1 else ""
                rank_cell = f'<td class="rank" rowspan="{len(members)}">{rank}{tie}</td>'
            cell = _item_cell(standing, ids.get(standing.item), judges, words, open_=not rows)
            rows.append(
                f'<tr class="g{shade % 2}">{rank_cell}<td>{cell}</td>'
                f'<td class="num">{standing.wins}</td><td class="num">{standing.losses}</td></tr>'
            )
    return (
        f"<section><h2>{words['ranking']}</h2>"
        f'<p class="note">{note}</p>'
        f'<table class="ranking"><thead><tr><th>{words["rank"]}</th><th>{words["item"]}</th>'
        f'<th>{words["wins"]}</th><th>{words["losses"]}</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )


def _item_cell(
    standing: Standing, item_id: Any, judges: Mapping[str, int], words: Words, open_: bool
) -> str:
    ident = "" if item_id is None else (
        f'<span class="id">{words["id"]} {isolated(str(item_id))}</span>')
    if not standing.matches:
        return f'<div class="item">{isolated(standing.item)}</div>{ident}'
    matches = "".join(_match_row(standing.item, m, judges, words) for m in standing.matches)
    return (
        f'<details{" open" if open_ else ""}>'
        f'<summary class="item">{isolated(standing.item)}</summary>{ident}'
        f'<div class="full">{isolated(standing.item)}</div>'
        f'<table class="matches"><thead><tr><th>{words["round"]}</th>'
        f'<th>{words["opponent"]}</th><th>{words["result"]}</th><th>{words["calls"]}</th>'
        f"</tr></thead><tbody>{matches}</tbody></table></details>"
    )


def _match_row(item: str, match: MatchResult, judges: Mapping[str, int], words: Words) -> str:
    side = "A" if match.item_a == item else "B"
    opponent = match.item_b if side == "A" else match.item_a
    outcome = "draw" if match.winner is None else ("won" if match.winner == side else "lost")
    calls = "".join(_call(call, side, judges, words) for call in match.rounds)
    return (
        f'<tr><td class="num">{match.round_number}</td><td>{_excerpt(opponent)}</td>'
        f'<td><span class="{outcome}">{words[outcome]}</span></td><td><ol>{calls}</ol></td></tr>'
    )


def _excerpt(text: str) -> str:
    """A long text as its first words, opening to the whole (no script needed)."""
    if display_width(text) <= EXCERPT_COLUMNS and "\n" not in text:
        return isolated(text)
    return (f'<details class="excerpt"><summary>{isolated(truncate(text, EXCERPT_COLUMNS))}'
            f'</summary><div class="full">{isolated(text)}</div></details>')


def _call(call: RoundResult, side: str, judges: Mapping[str, int], words: Words) -> str:
    verdict = words["this"] if call.winner == side else words["other"]
    if call.winner is None:
        verdict = words["no_verdict"]
    elif call.winner == "tie":
        verdict = words["tie_verdict"]
    # The judge's reasoning names the texts "A" and "B" in the order it was shown them.
    first = (call.order == "AB") == (side == "A")
    shown = words["shown_first"] if first else words["shown_second"]
    cached = f' <span class="cached">{words["cached"]}</span>' if call.cached else ""
    judge = "" if call.judge is None else (
        f' <span class="judge" title="{escape(call.judge)}">{words["judge"]} '
        f"{judges.get(call.judge, '?')}</span>")
    return (
        f"<li><b>{verdict}</b>{call_chance(call, side, words)} "
        f"<small>({shown}){cached}{judge}</small> "
        f"{isolated(call.reasoning)}</li>"
    )


def _wins_section(table: list[Standing], words: Words) -> str:
    if not any(s.matches for s in table):
        return ""
    shown = table[:WINS_CHART_LIMIT]
    more = len(table) - len(shown)
    note = words["wins_more"].format(shown=len(shown), total=len(table)) if more else ""
    chart = wins_chart([(s.item, s.wins) for s in shown], words=words)
    return (f'<section><h2>{words["wins_title"]}</h2>'
            f'<p class="note">{words["wins_note"]}{note}</p>{chart}</section>')
