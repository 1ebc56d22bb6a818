"""The CSV report: one row per item (rank, id, item, wins, losses, score, interval, P(top K))."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._standings import standings
from llm_qualitative_sort.reports._uncertainty import report_top_k, uncertainty

COLUMNS = ("rank", "item", "wins", "losses", "score", "low_95", "high_95")


def to_csv(
    result: SortResult,
    ids: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
) -> str:
    """The ranking as CSV text, best first; tied items share a rank.

    With `ids` (each item's id in the input) an `id` column follows `rank`, so the ranking
    can be joined back to the source. `score` is the item's Bradley–Terry log-strength,
    `low_95` / `high_95` its 95 % interval, and `p_top_K` the probability that it is among
    the K strongest (K: the run's `top_k` in `settings`, else 10, at most the item count).

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> print(to_csv(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0))), end="")
        rank,item,wins,losses,score,low_95,high_95,p_top_1
        1,x,0,0,0.0,0.0,0.0,1.0
        >>> print(to_csv(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0)), {"x": 7}),
        ...       end="")
        rank,id,item,wins,losses,score,low_95,high_95,p_top_1
        1,7,x,0,0,0.0,0.0,0.0,1.0
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    table = standings(result)
    k = report_top_k(settings, len(table))
    figures = uncertainty(result, k)
    header = (*COLUMNS, f"p_top_{k}")
    writer.writerow(("rank", "id", *header[1:]) if ids else header)
    for s in table:
        u = figures[s.item]
        row: tuple[Any, ...] = (s.rank, s.item, s.wins, s.losses, u.score, u.low, u.high,
                                u.top_k)
        writer.writerow((s.rank, ids.get(s.item, ""), *row[1:]) if ids else row)
    return out.getvalue()
