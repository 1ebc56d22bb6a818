"""The schedule seam: how a run's matches are laid out in time, as part of the graph.

A schedule adds its nodes to the graph (`wire`) between `prepare` and `ranking`; `prepare`
sends a run to the entry node of the schedule it names, once. Every schedule plays the same
strategies' rules; what differs is when a match may start.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from langgraph.graph import StateGraph

from llm_qualitative_sort.tournament import Strategy


class Schedule(ABC):
    """When matches start: after a round ends (`rounds`), or as players free up."""

    name: ClassVar[str]
    # The node `prepare` hands a run to.
    entry: ClassVar[str]

    @classmethod
    def check(cls, strategy: type[Strategy[Any]], provider: Any) -> None:
        """Raise `ValueError` when this schedule cannot play `strategy` with `provider`."""
        del strategy, provider

    @classmethod
    @abstractmethod
    def wire(cls, builder: StateGraph[Any, Any, Any, Any]) -> None:
        """Add this schedule's nodes and edges; its loop ends at the "ranking" node."""
