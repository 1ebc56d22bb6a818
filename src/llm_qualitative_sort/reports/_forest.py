"""The forest plot of the trust section: each top item's score with its 95 % interval.

One row per item in ranking order: a whisker from the interval's low end to its high end, a
dot at the score, the item's probability of being in the top K at the right. Items that
share a rank share a shaded band and are marked "=", so ties show at a glance; a dashed rule
follows the K-th row. Inline SVG, no script, every text escaped (`Markup.format`) and
direction-isolated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from llm_qualitative_sort.reports._text import isolated, truncate
from llm_qualitative_sort.reports._uncertainty import ItemUncertainty
from llm_qualitative_sort.reports._words import EN

LABEL_PX, RANK_PX, PLOT_PX, PROB_PX = 300, 44, 420, 96
ROW_PX, AXIS_PX, TOP_PX, RULE_PX = 22, 40, 22, 16
# Labels are cut to this many display columns (a wide character counts two) to fit LABEL_PX.
LABEL_COLUMNS = 38


@dataclass(frozen=True)
class ForestRow:
    """One item of the plot."""

    rank: int
    tied: bool
    item: str
    figures: ItemUncertainty


def forest_plot(rows: Sequence[ForestRow], k: int, words: Mapping[str, str] = EN) -> Markup:
    """The plot as an `<svg>` element ("" without rows).

    Args:
        rows: The items to draw, best first.
        k: Draw the top-K rule after row k, and head the probability column "P(top k)".
        words: The report's words, in its language.
    """
    if not rows:
        return Markup()
    low = min(r.figures.low for r in rows)
    high = max(r.figures.high for r in rows)
    scale = _Scale(low, high, RANK_PX + LABEL_PX, PLOT_PX)
    # The rows after the K-th sit lower, leaving a gap for the top-K rule.
    tops = [TOP_PX + i * ROW_PX + (RULE_PX if i >= k else 0) for i in range(len(rows))]
    bottom = tops[-1] + ROW_PX
    width = RANK_PX + LABEL_PX + PLOT_PX + PROB_PX
    parts = [Markup(f'<clipPath id="forest-labels"><rect x="{RANK_PX}" y="0" '
                    f'width="{LABEL_PX - 8}" height="{bottom}"/></clipPath>')]
    parts += _bands(rows, tops, width)
    parts += scale.grid(TOP_PX, bottom)
    parts.append(Markup(f'<text x="{width - 8}" y="{TOP_PX - 8}" text-anchor="end" '
                        'class="head">') + _text(words["p_top_k"].format(k=k)))
    parts += [_row(top, row, scale) for top, row in zip(tops, rows, strict=True)]
    if len(rows) > k:
        y = tops[k] - RULE_PX / 2
        parts.append(Markup(f'<line x1="0" x2="{scale.right}" y1="{y}" y2="{y}" '
                            'stroke="#9a6700" stroke-dasharray="5 4"/>'
                            f'<text x="{width - 8}" y="{y + 4}" text-anchor="end" '
                            'class="rule">') + _text(words["top_k_rule"].format(k=k)))
    parts.append(Markup(f'<text x="{scale.left + PLOT_PX / 2}" y="{bottom + 32}" '
                        'text-anchor="middle" class="head">') + _text(words["score_axis"]))
    height = bottom + AXIS_PX
    title = words["forest_title"].format(n=len(rows))
    # Markup's join escapes any part that is not Markup itself.
    return (Markup(f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="forest" '
                   f'viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px" '
                   'font-size="12">')
            + Markup("<title>{}</title>{}</svg>").format(title, Markup("").join(parts)))


def _text(text: str) -> Markup:
    """A `<text>` element's content and its end tag."""
    return Markup("{}</text>").format(text)


def _bands(rows: Sequence[ForestRow], tops: Sequence[float], width: int) -> list[Markup]:
    """A shaded band behind every other rank group, so that tied rows read as one."""
    parts, shade, previous = [], -1, None
    for top, row in zip(tops, rows, strict=True):
        if row.rank != previous:
            shade, previous = shade + 1, row.rank
        if shade % 2:
            parts.append(Markup(f'<rect x="0" y="{top}" width="{width}" height="{ROW_PX}" '
                                'fill="#f3f5f8"/>'))
    return parts


def _row(top: float, row: ForestRow, scale: _Scale) -> Markup:
    mid = top + ROW_PX / 2
    f = row.figures
    rank = f"{row.rank}=" if row.tied else str(row.rank)
    tip = (f"{row.item}\n{f.score:+.2f} [{f.low:+.2f}, {f.high:+.2f}], "
           f"P = {f.top_k:.2f}")
    x_low, x_high, x = scale(f.low), scale(f.high), scale(f.score)
    colour = "#9a6700" if row.tied else "#1d4e89"
    # direction="ltr" keeps text-anchor="end" on the right whatever the item holds.
    return Markup(
        '<g><title>{}</title><text x="{}" y="{:.1f}" text-anchor="end" class="rank">{}</text>'
        '<text x="{}" y="{:.1f}" text-anchor="end" direction="ltr" '
        'clip-path="url(#forest-labels)">{}</text>'
    ).format(tip, RANK_PX - 8, mid + 4, rank, RANK_PX + LABEL_PX - 12, mid + 4,
             isolated(truncate(row.item, LABEL_COLUMNS), "tspan")) + Markup(
        f'<line x1="{x_low:.1f}" x2="{x_high:.1f}" y1="{mid:.1f}" y2="{mid:.1f}" '
        f'stroke="{colour}" stroke-width="2"/>'
        f'<line x1="{x_low:.1f}" x2="{x_low:.1f}" y1="{mid - 4:.1f}" y2="{mid + 4:.1f}" '
        f'stroke="{colour}"/><line x1="{x_high:.1f}" x2="{x_high:.1f}" y1="{mid - 4:.1f}" '
        f'y2="{mid + 4:.1f}" stroke="{colour}"/>'
        f'<circle cx="{x:.1f}" cy="{mid:.1f}" r="4" fill="{colour}"/>'
        f'<text x="{scale.right + PROB_PX - 8}" y="{mid + 4:.1f}" text-anchor="end" '
        f'class="num">{f.top_k:.2f}</text></g>'
    )


class _Scale:
    """Maps a score to an x position; draws the vertical grid with its labels."""

    def __init__(self, low: float, high: float, left: float, width: float) -> None:
        pad = max((high - low) * 0.05, 0.1)
        self.low, self.high = low - pad, high + pad
        self.left, self.width = left, width
        self.right = left + width

    def __call__(self, value: float) -> float:
        return self.left + (value - self.low) / (self.high - self.low) * self.width

    def grid(self, top: float, bottom: float) -> list[Markup]:
        lines = []
        for tick in _ticks(self.low, self.high):
            x = self(tick)
            stroke = "#8c959f" if tick == 0 else "#e2e2e2"
            lines.append(Markup(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{bottom}" '
                                f'stroke="{stroke}"/><text x="{x:.1f}" y="{bottom + 16}" '
                                f'text-anchor="middle">{tick:g}</text>'))
        return lines


def _ticks(low: float, high: float, target: int = 6) -> list[float]:
    """Round values spaced 1, 2 or 5 × 10^k apart inside [low, high]."""
    raw = (high - low) / target
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step)
    return [round(i * step, 10) for i in range(first, math.floor(high / step) + 1)]
