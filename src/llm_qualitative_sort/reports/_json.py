"""The JSON report: everything in a `SortResult`, under a versioned schema."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from llm_qualitative_sort.models import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.reports._standings import Standing, standings

SCHEMA = "llm-qualitative-sort/result"
# Bump on any change that could break a reader; adding keys is not such a change.
SCHEMA_VERSION = 1


def to_json_dict(
    result: SortResult,
    settings: Mapping[str, Any] | None = None,
    ids: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report as plain JSON data.

    Args:
        result: What to report.
        settings: How the run was made (criteria, elimination count, ...), stored as given.
        ids: Each item's id in the input; each standing then carries its `id`.

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> to_json_dict(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0)))["rankings"]
        [{'rank': 1, 'items': ['x']}]
    """
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "run_id": result.run_id,
        "settings": dict(settings or {}),
        "rankings": [{"rank": rank, "items": list(group)} for rank, group in result.rankings],
        "standings": [_standing(s, ids) for s in standings(result)],
        "match_history": [asdict(match) for match in result.match_history],
        "statistics": asdict(result.statistics),
    }


def _standing(s: Standing, ids: Mapping[str, Any] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"rank": s.rank}
    if ids:
        entry["id"] = ids.get(s.item)
    entry.update(item=s.item, wins=s.wins, losses=s.losses)
    return entry


def from_json_dict(data: Mapping[str, Any]) -> SortResult:
    """Rebuild the `SortResult` of a JSON report.

    Raises:
        ValueError: The data is not a report of a schema version this code reads.
    """
    if data.get("schema") != SCHEMA or data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(
            f"not a version-{SCHEMA_VERSION} llm-qualitative-sort report: "
            f"schema={data.get('schema')!r}, version={data.get('schema_version')!r}"
        )
    return SortResult(
        rankings=[(entry["rank"], list(entry["items"])) for entry in data["rankings"]],
        match_history=[_match(entry) for entry in data["match_history"]],
        statistics=Statistics(**data["statistics"]),
        run_id=data["run_id"],
    )


def _match(entry: Mapping[str, Any]) -> MatchResult:
    fields = dict(entry)
    fields["rounds"] = [RoundResult(**call) for call in entry["rounds"]]
    return MatchResult(**fields)
