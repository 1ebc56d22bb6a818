"""Writing a report to a file, in the format its extension names."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._advice import check_front_end
from llm_qualitative_sort.reports._csv import to_csv
from llm_qualitative_sort.reports._html import to_html
from llm_qualitative_sort.reports._json import to_json_dict

REPORT_FORMATS = (".json", ".csv", ".html")


def write_report(
    result: SortResult,
    path: str | os.PathLike[str],
    settings: Mapping[str, Any] | None = None,
    *,
    ids: Mapping[str, Any] | None = None,
    lang: str | None = None,
    excel: bool = False,
    front_end: str = "python",
) -> Path:
    """Write `result` to `path` as JSON, CSV or HTML, by the file's extension (UTF-8).

    The file is written beside its final name and then renamed, so a reader never sees
    half a report.

    Args:
        result: What to report.
        path: Where; its extension picks the format.
        settings: How the run was made, recorded in the report.
        ids: Each item's id in the input, written next to it (JSON, CSV, HTML).
        lang: The HTML report's language ("en", "ja"); see `to_html`.
        excel: Start a CSV file with a UTF-8 byte-order mark, without which Excel (on a
            Japanese Windows, for one) reads UTF-8 as the local code page.
        front_end: Who writes the report: "python" (the default) or "cli"; the HTML
            report's advice names settings as that front end takes them (see `to_html`).

    Raises:
        ValueError: The extension is none of `REPORT_FORMATS`, or `front_end` is neither
            "python" nor "cli"; or a JSON report would hold a NaN or an infinity (a
            setting given so, named in the message), which JSON cannot hold.
    """
    check_front_end(front_end)
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".json":
        text = json_report_text(to_json_dict(result, settings, ids), target)
    elif suffix == ".csv":
        text = ("\ufeff" if excel else "") + to_csv(result, ids, settings)
    elif suffix == ".html":
        text = to_html(result, settings, lang=lang, ids=ids, front_end=front_end)
    else:
        raise InputError(
            f"cannot tell the report format of {str(target)!r}: use one of "
            + ", ".join(REPORT_FORMATS)
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    # newline="" keeps the CSV's own line ends on every platform.
    partial.write_text(text, encoding="utf-8", newline="")
    partial.replace(target)
    return target


def json_report_text(data: Mapping[str, Any], target: Path) -> str:
    """`data` as the JSON report's text; a NaN or an infinity is an error naming its place.

    Python's `json` would write them as `NaN` and `Infinity`, which no JSON reader takes.
    """
    try:
        return json.dumps(data, ensure_ascii=False, indent=2, default=str,
                          allow_nan=False) + "\n"
    except ValueError:
        place = _non_finite(data)
        if place is None:
            raise
        raise InputError(f"cannot write {target} as JSON: {place[0]} is {place[1]}, which "
                         "JSON cannot hold") from None


def _non_finite(value: Any, where: str = "report") -> tuple[str, float] | None:
    """The first NaN or infinity in `value` and its place ("settings.price_per_call")."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (where, value)
    if isinstance(value, Mapping):
        items: Any = ((f"{where}.{key}", item) for key, item in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{where}[{index}]", item) for index, item in enumerate(value))
    else:
        return None
    for place, item in items:
        found = _non_finite(item, place)
        if found is not None:
            return found
    return None
