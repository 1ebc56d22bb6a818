"""The HTML report's trust section: the forest plot, the audit in plain sentences, warnings.

Warnings (a band above the plot) when the ranking should not be taken at face value:
- **order consistency** is poor: more than `ORDER_WARNING` of the AB/BA pairs disagreed, by
  a one-sided binomial test at the `ORDER_LEVEL` level (so a few pairs that happen to
  disagree do not call an unbiased judge poor);
- **the top K are not separated**: the K items ranked highest are expected to hold at least
  `TOP_K_WARNING` item that is not truly in the top K (K minus the sum of their P(top K)).

Every audit figure names the count it rests on (calls, AB/BA pairs, shared prompts); one
resting on fewer than `FEW` of them is called uncertain, in the sentence and in the judges'
table. The advice is spelt for the front end that wrote the report (see `_advice`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape
from scipy.special import betainc

from llm_qualitative_sort.audit import JudgeAgreement, JudgeAudit, OrderConsistency, PositionBias
from llm_qualitative_sort.models import Statistics
from llm_qualitative_sort.reports._advice import FrontEnd, panel, spelt
from llm_qualitative_sort.reports._forest import ForestRow, forest_plot
from llm_qualitative_sort.reports._standings import Standing
from llm_qualitative_sort.reports._text import isolated, judge_name
from llm_qualitative_sort.reports._uncertainty import ItemUncertainty

ORDER_WARNING = 0.20
# An unbiased judge's 5 disagreements in 18 pairs (28 %) are what 20 % gives by chance one
# time in four; the warning waits for evidence at this level.
ORDER_LEVEL = 0.05
TOP_K_WARNING = 1.0
# Rows of the forest plot: the top K and at least this many more, to show the boundary.
FOREST_EXTRA, FOREST_ROWS = 10, 20
# A share or an interval resting on fewer pairs, calls or prompts than this is uncertain:
# with 30 swapped pairs a 95 % interval of a share still spans about ±18 points.
FEW = 30
Words = Mapping[str, str]


@dataclass(frozen=True)
class Reliability:
    """The soft verdicts' reliability table: per bin, its stated range and its figures.

    `few`: some bin rests on fewer than `FEW` calls (its count is marked). Built by `_soft`,
    which builds on this module's sentences.
    """

    rows: list[tuple[str, list[str]]]
    few: bool


def trust_section(
    table: Sequence[Standing],
    figures: Mapping[str, ItemUncertainty],
    k: int,
    stats: Statistics,
    words: Words,
    front_end: FrontEnd = "python",
    calls_per_match: int = 2,
    soft: tuple[Sequence[Markup], Reliability | None] = ((), None),
) -> dict[str, Any] | None:
    """What the section shows, for its template (None for a result without items).

    `front_end` spells the advice ("cli": flags, "python": arguments); `calls_per_match`
    is the run's `comparison_rounds`, which the advice on poor order consistency doubles;
    `soft` holds the soft verdicts' sentences and reliability table (see `_soft`).
    """
    if not table or not figures:
        return None
    rows = [ForestRow(s.rank, s.tied > 1, s.item, figures[s.item])
            for s in table[: max(k + FOREST_EXTRA, FOREST_ROWS)]]
    shown = "" if len(rows) == len(table) else " " + words["forest_more"].format(
        shown=len(rows), total=len(table))
    missing = k - sum(figures[s.item].top_k for s in table[:k])
    reliability, ties = soft[1], any(j.tied_calls for j in stats.judges)
    return {
        "warnings": _warnings(stats, k, missing, words, front_end, calls_per_match),
        "note": words["trust_note"] + shown, "forest": forest_plot(rows, k, words),
        "sentences": [*_sentences(stats, len(table), k, missing, words, front_end), *soft[0]],
        "reliability": None if reliability is None else reliability.rows,
        "reliability_few": reliability is not None and reliability.few, "few": FEW,
        "judge_columns": _judge_columns(ties),
        "judges": [_judge_row(n, j, words, ties) for n, j in enumerate(stats.judges, 1)],
        "judges_few": any(_uncertain(j) for j in stats.judges),
    }


def _warnings(stats: Statistics, k: int, missing: float, words: Words, front_end: FrontEnd,
              calls_per_match: int) -> list[Markup]:
    bands = []
    order = stats.order_consistency
    if order is not None and order.share is not None and poor_order(order):
        more = spelt(front_end, comparison_rounds=2 * max(calls_per_match, 1))
        bands.append(_plain(words["warn_order"], share=percent(order.share), pairs=order.pairs,
                            limit=percent(ORDER_WARNING), level=percent(ORDER_LEVEL),
                            more=_code(more), panel=_code(panel(front_end))))
    if missing >= TOP_K_WARNING:
        calls = max(2 * (stats.total_api_calls + stats.cache_hits), 1)
        swiss = spelt(front_end, strategy="swiss", top_k=k, budget=calls)
        bands.append(_plain(words["warn_top_k"], k=k, missing=f"{missing:.1f}",
                            swiss=_code(swiss)))
    return bands


def poor_order(order: OrderConsistency) -> bool:
    """Whether more than `ORDER_WARNING` of the judge's AB/BA pairs disagree, at `ORDER_LEVEL`.

    One-sided binomial test: the chance of at least this many disagreements if the true
    share were `ORDER_WARNING`.

    Example:
        >>> poor_order(OrderConsistency(18, 5)), poor_order(OrderConsistency(100, 31))
        (False, True)
    """
    if not order.pairs or order.disagreements / order.pairs <= ORDER_WARNING:
        return False
    # P(X >= d) for X ~ Binomial(pairs, ORDER_WARNING), as a regularized incomplete beta.
    tail = betainc(order.disagreements, order.pairs - order.disagreements + 1, ORDER_WARNING)
    return bool(tail < ORDER_LEVEL)


def _code(text: str) -> Markup:
    """Settings to type, kept on one line (a flag broken at its hyphen misleads)."""
    return Markup("<code>{}</code>").format(text)


def _plain(template: str, **values: object) -> Markup:
    """The sentence filled with its figures, escaped (`Markup` values as they are)."""
    return escape(template).format(**values)


def _sentences(stats: Statistics, n: int, k: int, missing: float, words: Words,
               front_end: FrontEnd) -> list[Markup]:
    """One plain sentence per figure, the figures in bold (every text escaped)."""
    out: list[Markup] = []
    who = words["who_panel"] if len(stats.judges) > 1 else words["who_one"]
    if stats.position_bias is not None:
        out.append(_position(stats.position_bias, who, words))
    order = stats.order_consistency
    if order is not None and order.share is not None:
        out.append(filled(words["s_order"], share=percent(order.share), pairs=order.pairs)
                   + few_note(order.pairs, "pairs", words))
    elif order is not None:
        out.append(escape(words["s_order_none"]))
    numbers = {j.judge: f"{words['judge']} {n}" for n, j in enumerate(stats.judges, 1)}
    out += [_agreement(a, numbers, words, front_end) for a in stats.agreement]
    if stats.tied_items:
        out.append(filled(words["s_ties"], tied=stats.tied_items, n=n, largest=stats.largest_tie))
    else:
        out.append(escape(words["s_no_ties"]))
    calls = stats.total_api_calls + stats.cache_hits
    verdicts = max(calls - stats.failed_calls, 0)
    out.append(filled(words["s_top_k"], k=k, expected=f"{k - missing:.1f}", calls=verdicts)
               + few_note(verdicts, "calls", words))
    if stats.failed_calls and calls:
        out.append(filled(words["s_failed"], failed=stats.failed_calls, calls=calls,
                         share=percent(stats.failed_calls / calls)))
    return out


def _position(bias: PositionBias, who: str, words: Words) -> Markup:
    unit = "pairs" if bias.method == "swapped_pairs" else "calls"
    basis = filled(words[f"basis_{bias.method}"], n=bias.evidence)
    return filled(words["s_position"], who=who, share=percent(bias.first_shown_share),
                 calls=bias.calls, equal=percent(0.5 + bias.shift),
                 low=percent(0.5 + bias.low), high=percent(0.5 + bias.high),
                 basis=basis) + few_note(bias.evidence, unit, words)


def _agreement(agreement: JudgeAgreement, numbers: Mapping[str, str], words: Words,
               front_end: FrontEnd) -> Markup:
    a, b = (numbers.get(j, j) for j in agreement.judges)
    if agreement.share is None:
        judges = len(numbers)
        return filled(words["s_agree_none"], a=a, b=b, j=judges,
                     advice=spelt(front_end, comparison_rounds=2 * judges))
    kappa = "—" if agreement.kappa is None else f"{agreement.kappa:.2f}"
    return filled(words["s_agree"], a=a, b=b, share=percent(agreement.share),
                 prompts=agreement.prompts, kappa=kappa) + few_note(agreement.prompts, "prompts",
                                                                words)


def few_note(count: int, unit: str, words: Words) -> Markup:
    """" Only 10 pairs: …" after a figure resting on fewer than `FEW` of them, else ""."""
    if count >= FEW:
        return Markup()
    gap = words.get("sentence_gap", " ")  # Japanese sentences follow with no space
    if count == 0:  # "Only 0 pairs" would read as a miscount
        return gap + escape(words["few_none"])
    return gap + filled(words[f"few_{unit}"], n=count, few=FEW)


def filled(template: str, **values: object) -> Markup:
    """The sentence with each figure escaped and in bold; judges' names are isolated."""
    shown: dict[str, object] = {}
    for name, value in values.items():
        text = f"{value:,}" if isinstance(value, int) else str(value)
        if name in ("a", "b"):
            shown[name] = isolated(text)
        elif name in ("who", "basis"):  # words, or a clause filled (and escaped) already
            shown[name] = value
        elif name == "advice":
            shown[name] = _code(text)
        else:
            shown[name] = Markup("<b>{}</b>").format(text)
    return escape(template).format(**shown)


def _judge_columns(ties: bool) -> list[str]:
    """The judges' table's columns (a run with ties: each judge's tie rate too)."""
    return ["number_col", "judge", "calls_col", "no_verdict_col", *(["tie_col"] if ties else []),
            "tokens_col", "cost_col", "first_col", "advantage_col", "disagree_col"]


# Marks a judge's figure that rests on fewer than `FEW` calls or pairs.
_MARK = "*"


def _judge_row(number: int, judge: JudgeAudit, words: Words, ties: bool = False
               ) -> tuple[int, str, list[str]]:
    """The judge's number, name and the figures of its row."""
    bias, order = judge.position_bias, judge.order_consistency
    cells = [
        f"{judge.calls:,}", f"{judge.failed_calls:,}", *([_tie_rate(judge)] if ties else []),
        f"{judge.input_tokens:,} / {judge.output_tokens:,}",
        "—" if judge.estimated_cost is None else f"{judge.estimated_cost:.4f}",
        "—" if bias is None else _first_won(bias),
        "—" if bias is None else _advantage(bias, words),
        "—" if order.share is None else
        f"{percent(order.share)} ({order.disagreements:,}/{order.pairs:,})"
        + _marked(order.pairs),
    ]
    return number, judge_name(judge.judge), cells


def _tie_rate(judge: JudgeAudit) -> str:
    rate = judge.tie_rate
    return f"{judge.tied_calls:,}" if rate is None else f"{percent(rate)} ({judge.tied_calls:,})"


def _first_won(bias: PositionBias) -> str:
    """"58 % (70/120)": the share of calls with a verdict the first-shown text won."""
    won = round(bias.first_shown_share * bias.calls)
    return f"{percent(bias.first_shown_share)} ({won:,}/{bias.calls:,})" + _marked(bias.calls)


def _advantage(bias: PositionBias, words: Words) -> str:
    """The shift, its interval and what it rests on: "+8.0 (…) pt, 10 pairs"."""
    unit = "n_pairs" if bias.method == "swapped_pairs" else "n_calls"
    return (f"{bias.shift * 100:+.1f} ({bias.low * 100:+.1f}…{bias.high * 100:+.1f}) pt, "
            + words[unit].format(n=f"{bias.evidence:,}") + _marked(bias.evidence))


def _uncertain(judge: JudgeAudit) -> bool:
    """Whether a figure of the judge's row is marked."""
    bias, pairs = judge.position_bias, judge.order_consistency.pairs
    counts = ([] if bias is None else [bias.calls, bias.evidence]) + (
        [pairs] if judge.order_consistency.share is not None else [])
    return any(count < FEW for count in counts)


def _marked(count: int) -> str:
    return f" {_MARK}" if count < FEW else ""


def percent(share: float) -> str:
    return f"{share * 100:.0f} %"
