"""Schedules: when matches start. `rounds` (the default) or `pipelined`; see `base.py`."""

from typing import Any

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.graph.schedules.base import Schedule
from llm_qualitative_sort.graph.schedules.pipelined import Pipelined
from llm_qualitative_sort.graph.schedules.rounds import Rounds
from llm_qualitative_sort.tournament import Strategy

SCHEDULES: dict[str, type[Schedule]] = {"rounds": Rounds, "pipelined": Pipelined}

__all__ = ["SCHEDULES", "Pipelined", "Rounds", "Schedule", "check_schedule"]


def check_schedule(schedule: Any, strategy: type[Strategy[Any]], provider: Any) -> str:
    """The schedule's name, or `ValueError` when it is unknown or cannot play the run."""
    if schedule not in SCHEDULES:
        raise InputError(f"schedule must be one of {', '.join(map(repr, SCHEDULES))}, "
                         f"got {schedule!r}")
    SCHEDULES[schedule].check(strategy, provider)
    return str(schedule)

