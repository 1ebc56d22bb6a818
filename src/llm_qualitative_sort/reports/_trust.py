"""The HTML report's trust section: the forest plot, the audit in plain sentences, warnings.

Warnings (a band above the plot) when the ranking should not be taken at face value:
- **order consistency** is poor: more than `ORDER_WARNING` of the AB/BA pairs disagreed;
- **the top K are not separated**: the K items ranked highest are expected to hold at least
  `TOP_K_WARNING` item that is not truly in the top K (K minus the sum of their P(top K)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from llm_qualitative_sort.audit import JudgeAgreement, JudgeAudit, PositionBias
from llm_qualitative_sort.models import Statistics
from llm_qualitative_sort.reports._forest import ForestRow, forest_plot
from llm_qualitative_sort.reports._standings import Standing
from llm_qualitative_sort.reports._text import isolated
from llm_qualitative_sort.reports._uncertainty import ItemUncertainty

ORDER_WARNING = 0.20
TOP_K_WARNING = 1.0
# Rows of the forest plot: the top K and at least this many more, to show the boundary.
FOREST_EXTRA, FOREST_ROWS = 10, 20
Words = Mapping[str, str]


def trust_section(
    table: Sequence[Standing],
    figures: Mapping[str, ItemUncertainty],
    k: int,
    stats: Statistics,
    words: Words,
) -> str:
    """The section ("" for a result without items)."""
    if not table or not figures:
        return ""
    rows = [ForestRow(s.rank, s.tied > 1, s.item, figures[s.item])
            for s in table[: max(k + FOREST_EXTRA, FOREST_ROWS)]]
    missing = k - sum(figures[s.item].top_k for s in table[:k])
    sentences = _sentences(stats, len(table), k, missing, words)
    return (
        f"<section><h2>{words['trust']}</h2>{_warnings(stats, k, missing, words)}"
        f'<p class="note">{escape(words["trust_note"])}</p>{forest_plot(rows, k, words)}'
        f'<ul class="audit">{"".join(f"<li>{s}</li>" for s in sentences)}</ul>'
        f"{_judge_table(stats.judges, words)}</section>"
    )


def _warnings(stats: Statistics, k: int, missing: float, words: Words) -> str:
    bands = []
    order = stats.order_consistency
    if order is not None and order.share is not None and order.share > ORDER_WARNING:
        bands.append(words["warn_order"].format(share=_percent(order.share)))
    if missing >= TOP_K_WARNING:
        bands.append(words["warn_top_k"].format(k=k, missing=f"{missing:.1f}"))
    return "".join(f'<p class="warn" role="alert">⚠ {escape(b)}</p>' for b in bands)


def _sentences(stats: Statistics, n: int, k: int, missing: float, words: Words) -> list[str]:
    """One plain sentence per figure, the figures in bold (every text escaped)."""
    out = []
    who = words["who_panel"] if len(stats.judges) > 1 else words["who_one"]
    if stats.position_bias is not None:
        out.append(_position(stats.position_bias, who, words))
    order = stats.order_consistency
    if order is not None and order.share is not None:
        out.append(_fill(words["s_order"], share=_percent(order.share), pairs=order.pairs))
    elif order is not None:
        out.append(escape(words["s_order_none"]))
    numbers = {j.judge: f"{words['judge']} {n}" for n, j in enumerate(stats.judges, 1)}
    out += [_agreement(a, numbers, words) for a in stats.agreement]
    if stats.tied_items:
        out.append(_fill(words["s_ties"], tied=stats.tied_items, n=n, largest=stats.largest_tie))
    else:
        out.append(escape(words["s_no_ties"]))
    out.append(_fill(words["s_top_k"], k=k, expected=f"{k - missing:.1f}"))
    calls = stats.total_api_calls + stats.cache_hits
    if stats.failed_calls and calls:
        out.append(_fill(words["s_failed"], failed=stats.failed_calls,
                         share=_percent(stats.failed_calls / calls)))
    return out


def _position(bias: PositionBias, who: str, words: Words) -> str:
    return _fill(words["s_position"], who=who, share=_percent(bias.first_shown_share),
                 calls=bias.calls, equal=_percent(0.5 + bias.shift),
                 low=_percent(0.5 + bias.low), high=_percent(0.5 + bias.high))


def _agreement(agreement: JudgeAgreement, numbers: Mapping[str, str], words: Words) -> str:
    a, b = (numbers.get(j, j) for j in agreement.judges)
    if agreement.share is None:
        judges = len(numbers)
        return _fill(words["s_agree_none"], a=a, b=b, j=judges, r=2 * judges)
    kappa = "—" if agreement.kappa is None else f"{agreement.kappa:.2f}"
    return _fill(words["s_agree"], a=a, b=b, share=_percent(agreement.share),
                 prompts=agreement.prompts, kappa=kappa)


def _fill(template: str, **values: object) -> str:
    """The sentence with each figure escaped and in bold; judges' names are isolated."""
    shown = {}
    for name, value in values.items():
        text = f"{value:,}" if isinstance(value, int) else str(value)
        if name in ("a", "b"):
            shown[name] = isolated(text)
        elif name == "who":
            shown[name] = escape(text)
        else:
            shown[name] = f"<b>{escape(text)}</b>"
    return escape(template).format(**shown)


def _judge_table(judges: Sequence[JudgeAudit], words: Words) -> str:
    if not judges:
        return ""
    ties = any(j.tied_calls for j in judges)  # a run with ties: each judge's tie rate
    head = "".join(f"<th>{escape(words[c])}</th>" for c in (
        "number_col", "judge", "calls_col", "no_verdict_col", *(("tie_col",) if ties else ()),
        "tokens_col", "cost_col", "first_col", "advantage_col", "disagree_col"))
    rows = "".join(_judge_row(n, j, ties) for n, j in enumerate(judges, 1))
    return (f'<h3>{escape(words["judges"])}</h3><table class="judges"><thead><tr>{head}'
            f"</tr></thead><tbody>{rows}</tbody></table>")


def _judge_row(number: int, judge: JudgeAudit, ties: bool = False) -> str:
    bias, order = judge.position_bias, judge.order_consistency
    cells = [
        _num(str(number)), f'<td class="who">{isolated(judge.judge)}</td>',
        _num(f"{judge.calls:,}"), _num(f"{judge.failed_calls:,}"),
        *([_num(_tie_rate(judge))] if ties else []),
        _num(f"{judge.input_tokens:,} / {judge.output_tokens:,}"),
        _num("—" if judge.estimated_cost is None else f"{judge.estimated_cost:.4f}"),
        _num("—" if bias is None else _percent(bias.first_shown_share)),
        _num("—" if bias is None else
             f"{bias.shift * 100:+.1f} ({bias.low * 100:+.1f}…{bias.high * 100:+.1f}) pt"),
        _num("—" if order.share is None else
             f"{_percent(order.share)} ({order.disagreements:,}/{order.pairs:,})"),
    ]
    return f"<tr>{''.join(cells)}</tr>"


def _tie_rate(judge: JudgeAudit) -> str:
    rate = judge.tie_rate
    return f"{judge.tied_calls:,}" if rate is None else f"{_percent(rate)} ({judge.tied_calls:,})"


def _num(text: str) -> str:
    return f'<td class="num">{escape(text)}</td>'


def _percent(share: float) -> str:
    return f"{share * 100:.0f} %"
