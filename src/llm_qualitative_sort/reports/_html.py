"""The HTML report: one self-contained page (inline CSS and SVG, no script, no network)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from html import escape
from itertools import groupby
from typing import Any

from llm_qualitative_sort.models import MatchResult, RoundResult, SortResult
from llm_qualitative_sort.reports._charts import bracket_colour, brackets_chart, wins_chart
from llm_qualitative_sort.reports._standings import (
    Standing,
    bracket_history,
    infer_elimination_count,
    standings,
)
from llm_qualitative_sort.reports._style import CSS

# Even if some text escaped escaping, the page could neither run script nor fetch anything.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
WINS_CHART_LIMIT = 60


def to_html(result: SortResult, settings: Mapping[str, Any] | None = None) -> str:
    """The report as one HTML document (UTF-8, viewable offline).

    Args:
        result: What to report.
        settings: How the run was made; `criteria` becomes the title, the rest is listed.

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> page = to_html(SortResult([(1, ["<b>x</b>"])], [], Statistics(0, 0, 0, 0.0)))
        >>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
        True
    """
    settings = dict(settings or {})
    n_losses = int(settings.get("elimination_count") or infer_elimination_count(result))
    table = standings(result)
    title = str(settings.get("criteria") or "Ranking")
    body = [
        f"<h1>{escape(title)}</h1>",
        _run_line(result, settings),
        _statistics(result),
        _bracket_section(result, n_losses),
        _ranking(table),
        _wins_section(table),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · llm-qualitative-sort</title><style>{CSS}</style></head>"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def _run_line(result: SortResult, settings: dict[str, Any]) -> str:
    shown = {k: v for k, v in settings.items() if k != "criteria" and v is not None}
    pairs = [("run id", result.run_id or "—")]
    pairs += [(name.replace("_", " "), value) for name, value in shown.items()]
    cells = "".join(f"<span><b>{escape(k)}</b> {escape(str(v))}</span>" for k, v in pairs)
    return f'<p class="run">{cells}</p>'


def _statistics(result: SortResult) -> str:
    stats = asdict(result.statistics)
    stats["elapsed_time"] = f"{stats['elapsed_time']:.2f} s"
    cost = stats["estimated_cost"]
    stats["estimated_cost"] = "—" if cost is None else f"{cost:.4f}"  # no prices given
    cards = "".join(
        f'<div class="stat"><div class="value">{escape(str(value))}</div>'
        f'<div class="label">{escape(name.replace("_", " "))}</div></div>'
        for name, value in stats.items()
    )
    return f'<section><h2>Statistics</h2><div class="stats">{cards}</div></section>'


def _bracket_section(result: SortResult, n_losses: int) -> str:
    if not result.match_history:
        return ""
    legend = "".join(
        f'<span><i style="background:{bracket_colour(b, n_losses)}"></i>'
        f"{'eliminated' if b == n_losses else f'{b} loss' + ('' if b == 1 else 'es')}</span>"
        for b in range(n_losses + 1)
    )
    chart = brackets_chart(bracket_history(result, n_losses))
    return (
        "<section><h2>How the brackets emptied</h2>"
        f'<p class="note">Players in each loss bracket after every round; {n_losses} '
        f'loss{"" if n_losses == 1 else "es"} eliminate.</p>'
        f'<div class="legend">{legend}</div>{chart}</section>'
    )


def _ranking(table: list[Standing]) -> str:
    # The first item opens by itself, to show the reader that the rows unfold.
    rows: list[str] = []
    for shade, (rank, group) in enumerate(groupby(table, key=lambda s: s.rank)):
        members = list(group)
        for index, standing in enumerate(members):
            rank_cell = ""
            if index == 0:
                tie = f'<span class="tie">tied ×{len(members)}</span>' if len(members) > 1 else ""
                rank_cell = f'<td class="rank" rowspan="{len(members)}">{rank}{tie}</td>'
            cell = _item_cell(standing, open_=not rows)
            rows.append(
                f'<tr class="g{shade % 2}">{rank_cell}<td>{cell}</td>'
                f'<td class="num">{standing.wins}</td><td class="num">{standing.losses}</td></tr>'
            )
    return (
        "<section><h2>Ranking</h2>"
        '<p class="note">Items with equal wins share a rank. Open an item to read its '
        "matches and the judge's reasoning (the first is open).</p>"
        '<table class="ranking"><thead><tr><th>Rank</th><th>Item</th><th>Wins</th>'
        f"<th>Losses</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _item_cell(standing: Standing, open_: bool) -> str:
    if not standing.matches:
        return f'<div class="item">{escape(standing.item)}</div>'
    matches = "".join(_match_row(standing.item, m) for m in standing.matches)
    return (
        f'<details{" open" if open_ else ""}>'
        f'<summary class="item">{escape(standing.item)}</summary>'
        f'<div class="full">{escape(standing.item)}</div>'
        '<table class="matches"><thead><tr><th>Round</th><th>Opponent</th><th>Result</th>'
        f"<th>Calls</th></tr></thead><tbody>{matches}</tbody></table></details>"
    )


def _match_row(item: str, match: MatchResult) -> str:
    side = "A" if match.item_a == item else "B"
    opponent = match.item_b if side == "A" else match.item_a
    outcome = "draw" if match.winner is None else ("won" if match.winner == side else "lost")
    calls = "".join(_call(call, side) for call in match.rounds)
    return (
        f'<tr><td class="num">{match.round_number}</td><td>{escape(opponent)}</td>'
        f'<td><span class="{outcome}">{outcome}</span></td><td><ol>{calls}</ol></td></tr>'
    )


def _call(call: RoundResult, side: str) -> str:
    verdict = "this" if call.winner == side else "opponent"
    if call.winner is None:
        verdict = "no verdict"
    # The judge's reasoning names the texts "A" and "B" in the order it was shown them.
    first = (call.order == "AB") == (side == "A")
    shown = f"this item shown {'first' if first else 'second'}"
    cached = ' <span class="cached">cached</span>' if call.cached else ""
    return (
        f"<li><b>{verdict}</b> <small>({shown}){cached}</small> "
        f"{escape(call.reasoning)}</li>"
    )


def _wins_section(table: list[Standing]) -> str:
    if not any(s.matches for s in table):
        return ""
    shown = table[:WINS_CHART_LIMIT]
    more = len(table) - len(shown)
    note = f" The first {len(shown)} of {len(table)} items are shown." if more else ""
    chart = wins_chart([(s.item, s.wins) for s in shown])
    return f'<section><h2>Wins per item</h2><p class="note">Best first.{note}</p>{chart}</section>'
