"""Answering a round's calls: the `CallRunner` seam, live calls and provider batches."""

from llm_qualitative_sort._calls.base import (
    AnswerSink,
    Call,
    CallRunner,
    CallSettings,
    batch_answer,
    call_log,
    score_log,
)
from llm_qualitative_sort._calls.batch import BatchRunner
from llm_qualitative_sort._calls.guard import LiveAfterBatch
from llm_qualitative_sort._calls.live import LiveRunner


def make_runner(settings: CallSettings) -> CallRunner:
    """The runner for a run's provider: its batch interface if it offers one, else live calls."""
    client = settings.provider.batch_client()
    if client is None:
        return LiveAfterBatch(settings, LiveRunner(settings))
    return BatchRunner(settings, client)


__all__ = [
    "AnswerSink",
    "BatchRunner",
    "Call",
    "CallRunner",
    "CallSettings",
    "LiveAfterBatch",
    "LiveRunner",
    "batch_answer",
    "call_log",
    "make_runner",
    "score_log",
]
