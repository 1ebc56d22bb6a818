"""The CSV report: one row per item (rank, id, item, wins, losses)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._standings import standings

COLUMNS = ("rank", "item", "wins", "losses")


def to_csv(result: SortResult, ids: Mapping[str, Any] | None = None) -> str:
    """The ranking as CSV text, best first; tied items share a rank.

    With `ids` (each item's id in the input) an `id` column follows `rank`, so the ranking
    can be joined back to the source.

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> print(to_csv(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0))), end="")
        rank,item,wins,losses
        1,x,0,0
        >>> print(to_csv(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0)), {"x": 7}),
        ...       end="")
        rank,id,item,wins,losses
        1,7,x,0,0
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if ids:
        writer.writerow(("rank", "id", *COLUMNS[1:]))
    else:
        writer.writerow(COLUMNS)
    for s in standings(result):
        row: tuple[Any, ...] = (s.rank, s.item, s.wins, s.losses)
        writer.writerow((s.rank, ids.get(s.item, ""), *row[1:]) if ids else row)
    return out.getvalue()
