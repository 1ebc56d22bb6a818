"""Schedules: when matches start. `rounds` (the default) or `pipelined`; see `base.py`."""

from llm_qualitative_sort.graph.schedules.base import Schedule
from llm_qualitative_sort.graph.schedules.pipelined import Pipelined
from llm_qualitative_sort.graph.schedules.rounds import Rounds

SCHEDULES: dict[str, type[Schedule]] = {"rounds": Rounds, "pipelined": Pipelined}

__all__ = ["SCHEDULES", "Pipelined", "Rounds", "Schedule"]
