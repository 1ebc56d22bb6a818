"""The HTML report's table of ranking calls: the texts as shown, the judge's order, its reason.

A Swiss run of ranking calls (`group_size` > 2) lists its first calls, in the order made,
each with its texts labelled A, B, C… as the judge saw them and the order it gave in those
labels ("C > A > B"; texts sharing a place joined by "="). A call that gave no order says
so, with the reason it was not one. A long text shows cut to one line, whole in its
tooltip. The JSON report has every call (`"ranking_calls"`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llm_qualitative_sort.providers.questions import RANK_LABELS
from llm_qualitative_sort.reports._text import truncate
from llm_qualitative_sort.verdicts import RankingCall

# The ranking calls listed in an HTML report (the JSON report has them all).
RANKING_CALLS_SHOWN = 50
# A text longer than this (in display columns) shows cut, whole in its tooltip: a call
# shows up to eight texts in one cell.
TEXT_COLUMNS = 80


def labelled_order(call: RankingCall) -> str | None:
    """The judge's order in the labels the texts were shown under, or None (no order).

    Example:
        >>> labelled_order(RankingCall(("x", "y", "z"), (("z",), ("x", "y")), "", False))
        'C > A = B'
    """
    if call.order is None:
        return None
    label = {text: RANK_LABELS[slot] for slot, text in enumerate(call.items)}
    return " > ".join(" = ".join(label[text] for text in place) for place in call.order)


def ranking_calls_section(calls: Sequence[RankingCall],
                          words: Mapping[str, str]) -> dict[str, Any] | None:
    """What the report's table of ranking calls shows (None: the run made none)."""
    if not calls:
        return None
    rows = []
    for call in calls[:RANKING_CALLS_SHOWN]:
        order = labelled_order(call)
        rows.append({"round": call.round_number,
                     "shown": [(truncate(text, TEXT_COLUMNS), text) for text in call.items],
                     "order": order if order is not None else words["no_order"],
                     "failed": order is None,
                     "reason": call.problem if order is None else call.reasoning})
    more = (words["ranking_calls_more"].format(shown=len(rows), total=len(calls))
            if len(calls) > len(rows) else "")
    return {"rows": rows, "total": len(calls), "more": more}
