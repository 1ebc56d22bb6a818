"""Answering a round's calls: the `CallRunner` seam and its live implementation."""

from llm_qualitative_sort._calls.base import AnswerSink, Call, CallRunner, CallSettings, Emit
from llm_qualitative_sort._calls.live import LiveRunner


def make_runner(settings: CallSettings) -> CallRunner:
    """The runner for a run's provider: live calls (batch providers plug in here)."""
    return LiveRunner(settings)


__all__ = ["AnswerSink", "Call", "CallRunner", "CallSettings", "Emit", "LiveRunner", "make_runner"]
