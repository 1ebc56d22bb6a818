"""Writing a report to a file, in the format its extension names."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports._csv import to_csv
from llm_qualitative_sort.reports._html import to_html
from llm_qualitative_sort.reports._json import to_json_dict

REPORT_FORMATS = (".json", ".csv", ".html")


def write_report(
    result: SortResult, path: str | os.PathLike[str], settings: Mapping[str, Any] | None = None
) -> Path:
    """Write `result` to `path` as JSON, CSV or HTML, by the file's extension (UTF-8).

    The file is written beside its final name and then renamed, so a reader never sees
    half a report.

    Raises:
        ValueError: The extension is none of `REPORT_FORMATS`.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".json":
        text = json.dumps(to_json_dict(result, settings), ensure_ascii=False, indent=2) + "\n"
    elif suffix == ".csv":
        text = to_csv(result)
    elif suffix == ".html":
        text = to_html(result, settings)
    else:
        raise ValueError(
            f"cannot tell the report format of {str(target)!r}: use one of "
            + ", ".join(REPORT_FORMATS)
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    # newline="" keeps the CSV's own line ends on every platform.
    partial.write_text(text, encoding="utf-8", newline="")
    partial.replace(target)
    return target
