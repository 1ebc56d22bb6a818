"""Inline SVG charts for the HTML report: no script, no network, escaped text.

Drawn in code and returned as `Markup`: shapes and numbers are written as they are, every
text (labels, tooltips, titles) goes through `Markup.format`, which escapes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from llm_qualitative_sort.reports._text import isolated, truncate
from llm_qualitative_sort.reports._words import EN

# Bracket 0 (no loss) is the darkest blue; more losses are lighter; eliminated is grey.
_BRACKET_COLOURS = ("#1d4e89", "#3a7cc3", "#6fa8dc", "#9fc5e8", "#c9def2")
_ELIMINATED = "#c8c8c8"
# Labels of the wins chart: 44 columns (22 wide characters) fit in LABEL_PX at 12 px.
LABEL_COLUMNS = 44
LABEL_PX = 340


def bracket_colour(bracket: int, elimination_count: int) -> str:
    """The colour of a bracket (`elimination_count` = the eliminated)."""
    if bracket >= elimination_count:
        return _ELIMINATED
    return _BRACKET_COLOURS[min(bracket, len(_BRACKET_COLOURS) - 1)]


def brackets_chart(
    rows: Sequence[Sequence[int]],
    width: int = 860,
    height: int = 260,
    words: Mapping[str, str] = EN,
) -> Markup:
    """Stacked columns: how many players sat in each bracket after each round.

    Args:
        rows: From `bracket_history`: per round, counts of brackets 0 … N−1 then eliminated.
        width: Width of the drawing in pixels.
        height: Height of the drawing in pixels.
        words: The report's words, in its language.
    """
    if not rows:
        return Markup()
    n_brackets = len(rows[0]) - 1
    total = max(sum(rows[0]), 1)
    left, bottom, top = 44, 28, 10
    plot_h = height - bottom - top
    step = (width - left - 10) / len(rows)
    bar_w = max(step * 0.8, 1.0)
    parts = [_axis(left, top, plot_h, total, width)]
    for index, row in enumerate(rows):
        x = left + index * step + (step - bar_w) / 2
        y: float = top + plot_h
        for bracket, count in enumerate(row):
            h = plot_h * count / total
            y -= h
            label = (words["eliminated"] if bracket == n_brackets
                     else words["n_losses"].format(n=bracket))
            moment = words["start"] if index == 0 else words["after_round"].format(n=index)
            tip = f"{moment}: {count} × {label}"
            parts.append(Markup(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                f'fill="{bracket_colour(bracket, n_brackets)}">'
            ) + Markup("<title>{}</title></rect>").format(tip))
        if index % max(1, len(rows) // 12) == 0:
            parts.append(Markup(
                f'<text x="{x + bar_w / 2:.1f}" y="{height - 10}" text-anchor="middle">'
            ) + Markup("{}</text>").format(words["start"] if index == 0 else index))
    return _svg(width, height, words["chart_brackets"], parts)


def wins_chart(
    rows: Sequence[tuple[str, int]],
    width: int = 860,
    bar_h: int = 18,
    words: Mapping[str, str] = EN,
) -> Markup:
    """Horizontal bars: wins per item, in ranking order.

    Labels are cut at the end, with an ellipsis, to `LABEL_COLUMNS` display columns (a
    wide character counts two), and clipped to their area so none can overflow the chart;
    the full text is the label's tooltip.

    Args:
        rows: (item, wins) pairs, best first.
        width: Width of the drawing in pixels.
        bar_h: Height of one bar in pixels.
        words: The report's words, in its language.
    """
    if not rows:
        return Markup()
    label_w, most = LABEL_PX, max(max(wins for _, wins in rows), 1)
    height = len(rows) * (bar_h + 4) + 8
    parts = [Markup(f'<clipPath id="labels"><rect x="0" y="0" width="{label_w - 4}" '
                    f'height="{height}"/></clipPath>')]
    for index, (item, wins) in enumerate(rows):
        y = 4 + index * (bar_h + 4)
        w = (width - label_w - 50) * wins / max(most, 1)
        short = truncate(item, LABEL_COLUMNS)
        # direction="ltr" keeps text-anchor="end" on the right whatever the item holds.
        parts.append(
            Markup(f'<text x="{label_w - 8}" y="{y + bar_h - 5}" text-anchor="end" '
                   'direction="ltr" clip-path="url(#labels)">')
            + Markup("{}<title>{}</title></text>").format(isolated(short, "tspan"), item)
            + Markup(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                     f'fill="#3a7cc3"/><text x="{label_w + w + 6:.1f}" y="{y + bar_h - 5}">'
                     f"{wins:d}</text>")
        )
    return _svg(width, height, words["wins_title"], parts)


def _axis(left: int, top: int, plot_h: float, total: int, width: int) -> Markup:
    lines = []
    for share in (0.0, 0.5, 1.0):
        y = top + plot_h * (1 - share)
        lines.append(
            f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e2e2e2"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{round(total * share):d}'
            "</text>"
        )
    return Markup("".join(lines))  # numbers only


def _svg(width: int, height: int, title: str, parts: Sequence[Markup]) -> Markup:
    # Markup's join escapes any part that is not Markup itself.
    return (
        Markup(f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
               f'viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px" '
               'font-size="12">')
        + Markup("<title>{}</title>{}</svg>").format(title, Markup("").join(parts))
    )
