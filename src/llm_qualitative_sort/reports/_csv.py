"""The CSV report: one row per item (rank, id, item, wins, losses, score, interval, P(top K)).

A soft run adds each item's soft calls and soft win share.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._adjusted import ADJUSTED_COLUMNS, adjusted_cells
from llm_qualitative_sort.reports._people import CSV_COLUMNS as PEOPLE_COLUMNS
from llm_qualitative_sort.reports._people import people_cells
from llm_qualitative_sort.reports._pointwise import csv_cells, csv_columns
from llm_qualitative_sort.reports._soft import soft_columns
from llm_qualitative_sort.reports._standings import standings
from llm_qualitative_sort.reports._uncertainty import report_top_k, uncertainty

COLUMNS = ("rank", "item", "wins", "losses", "score", "low_95", "high_95")
# A soft run's two more columns (see `_soft.soft_columns`).
SOFT_COLUMNS = ("soft_calls", "soft_win_share")
# Excel's most characters in one cell; longer text is cut there, with a marker saying so.
CELL_LIMIT = 32_767
# What a spreadsheet reads as the start of a formula (OWASP's "CSV injection" list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_csv(
    result: SortResult,
    ids: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
) -> str:
    """The ranking as CSV text, best first; tied items share a rank.

    With `ids` (each item's id in the input) an `id` column follows `rank`, so the ranking
    can be joined back to the source. `score` is the item's Bradley–Terry log-strength,
    `low_95` / `high_95` its 95 % interval, and `p_top_K` the probability that it is among
    the K strongest (K: the run's `top_k` in `settings`, else 10, half the items below 20).
    A run asked to `adjust` adds `adjusted_rank`, `adjusted_score`, `adjusted_low_95` and
    `adjusted_high_95`: the item's place and score with the judge's preference for the
    covariates taken out (`SortResult.adjusted`). A run with `verdicts="soft"` adds
    `soft_calls` (the item's calls that carried the judge's probability) and
    `soft_win_share` (the mean, over its calls with a verdict, of its probability of
    winning: the stated one, else 1, 0 or ½ by the verdict). A run checked against
    people's labels adds `order` ("anchored": the judge's fit anchored by
    them, or "judge"), `human_kappa` (the run's κ against them) and `human_disagreements`
    (the judge's calls on the item's labelled pairs that differ from a person's verdict).

    The file is made for spreadsheets, and every text cell (an item, an id given as text)
    is made safe for them: one that starts with a formula character (`=`, `+`, `-`, `@`,
    a tab or a carriage return) gets a leading `'`, so that it shows as text instead of
    running; one longer than Excel's 32,767 characters is cut, ending in a marker that
    says how long it was (the JSON report keeps every text whole). Cells holding a line
    break or a carriage return are quoted, so every row reads back as one row.

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
    writer = _Writer(out)
    table = standings(result)
    k = report_top_k(settings, len(table))
    figures = uncertainty(result, k)
    soft = soft_columns(result)
    # A pointwise run plays no match: no wins or losses to count.
    kept = [i for i, name in enumerate(COLUMNS)
            if not (result.pointwise and name in ("wins", "losses"))]
    people = people_cells(result)
    adjusted = adjusted_cells(result.adjusted)
    header = (*(COLUMNS[i] for i in kept), f"p_top_{k}",
              *(SOFT_COLUMNS if soft is not None else ()), *csv_columns(result),
              *(PEOPLE_COLUMNS if people else ()), *(ADJUSTED_COLUMNS if adjusted else ()))
    writer.writerow(("rank", "id", *header[1:]) if ids else header)
    for s in table:
        u = figures[s.item]
        shown = (s.rank, s.item, s.wins, s.losses, u.score, u.low, u.high)
        row: tuple[Any, ...] = (*(shown[i] for i in kept), u.top_k)
        if soft is not None:
            row += soft.get(s.item, (0, ""))
        row += tuple(csv_cells(result, s.item))
        row += people.get(s.item, ())
        row += adjusted.get(s.item, ())
        writer.writerow((s.rank, ids.get(s.item, ""), *row[1:]) if ids else row)
    return out.getvalue()


class _Writer:
    """Rows that end in a line feed, with any cell holding a CR or an LF quoted.

    `csv.writer` quotes only the characters of its own line terminator: with a bare LF it
    leaves a lone CR unquoted, which readers take as the end of a row. Each row is written
    with CR LF (so both are quoted), then its terminator is swapped for a lone LF.
    """

    def __init__(self, out: io.StringIO) -> None:
        self._out = out
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\r\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.writerow([_cell(value) for value in row])
        self._out.write(self._buffer.getvalue()[:-2] + "\n")


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet shows as text, in full or visibly cut; others as they are."""
    if not isinstance(value, str):
        return value
    text = "'" + value if value.startswith(FORMULA_STARTS) else value
    if len(text) <= CELL_LIMIT:
        return text
    marker = f" [… cut: {len(value)} characters in all; the JSON report has the full text]"
    return text[: CELL_LIMIT - len(marker)] + marker
