"""A Swiss run with a pre-pass in the reports: the texts scored alone, then the matches."""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.models import SortResult


def phases(result: SortResult) -> dict[str, Any] | None:
    """The calls of each phase of a run with a pre-pass (None: the run had none).

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> phases(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0))) is None
        True
    """
    alone = result.prepass
    if not alone:
        return None
    pairs = result.match_history
    return {
        "prepass": {"texts": len(alone), "calls": sum(len(s.calls) for s in alone),
                    "scored": sum(any(c.label is not None for c in s.calls) for s in alone)},
        "swiss": {"matches": len(pairs), "calls": sum(len(m.rounds) for m in pairs)},
    }


def phases_text(result: SortResult) -> str | None:
    """The phases in words ("20 texts scored alone, then 40 matches (40 calls)")."""
    found = phases(result)
    if found is None:
        return None
    pre, swiss = found["prepass"], found["swiss"]
    return (f"pre-pass: {pre['texts']} texts scored alone ({pre['scored']} scored), "
            f"then {swiss['matches']} Swiss matches ({swiss['calls']} calls)")
