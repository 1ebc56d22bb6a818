"""Reports of a `SortResult`: JSON (complete, versioned), CSV (the ranking) and HTML.

Example:
    >>> from llm_qualitative_sort import SortResult, Statistics
    >>> result = SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0), run_id="r1")
    >>> to_json_dict(result)["schema_version"]
    1
"""

from llm_qualitative_sort.reports._csv import to_csv
from llm_qualitative_sort.reports._html import to_html
from llm_qualitative_sort.reports._json import (
    SCHEMA,
    SCHEMA_VERSION,
    from_json_dict,
    to_json_dict,
)
from llm_qualitative_sort.reports._write import REPORT_FORMATS, write_report

__all__ = [
    "REPORT_FORMATS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "from_json_dict",
    "to_csv",
    "to_html",
    "to_json_dict",
    "write_report",
]
