"""The CSV report: one row per item (rank, item, wins, losses)."""

from __future__ import annotations

import csv
import io

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._standings import standings

COLUMNS = ("rank", "item", "wins", "losses")


def to_csv(result: SortResult) -> str:
    """The ranking as CSV text, best first; tied items share a rank.

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> print(to_csv(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0))), end="")
        rank,item,wins,losses
        1,x,0,0
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for s in standings(result):
        writer.writerow((s.rank, s.item, s.wins, s.losses))
    return out.getvalue()
