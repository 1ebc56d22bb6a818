"""Failure messages are built safely and cut to a sane length, with the cut said."""

from typing import Any

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    PermanentProviderError,
    QualitativeSorter,
    RunStoppedError,
    TransientProviderError,
)
from llm_qualitative_sort.errors import MESSAGE_LIMIT, describe
from llm_qualitative_sort.providers._failures import classify


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ itself fails")


class Raising(LLMProvider):
    """Every call raises `error`."""

    def __init__(self, error: Exception) -> None:
        super().__init__(model="raising")
        self.error = error

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        raise self.error


async def stop_message(error: Exception) -> str:
    sorter = QualitativeSorter(Raising(error), criteria="c", seed=1, checkpointer=None,
                               retry_policy=RetryPolicy(max_attempts=1))
    with pytest.raises(RunStoppedError) as stopped:
        await sorter.sort(["a", "b", "c"])
    return str(stopped.value)


async def test_an_exception_whose_str_raises_still_stops_the_run_cleanly() -> None:
    message = await stop_message(Unprintable())
    assert "Unprintable" in message
    assert "message cannot be shown" in message
    assert "RuntimeError: __str__ itself fails" in message


@pytest.mark.parametrize("kind", [PermanentProviderError, TransientProviderError, ValueError])
async def test_a_huge_provider_message_is_cut_and_says_so(kind: Any) -> None:
    message = await stop_message(kind("x" * 2_000_000))
    assert len(message) < MESSAGE_LIMIT + 1000
    assert "characters cut" in message


def test_describe_cuts_and_counts() -> None:
    text = describe(ValueError("y" * (MESSAGE_LIMIT + 500)))
    assert text.startswith("ValueError: yyy")
    assert text.endswith("[500 more characters cut]")


def test_classify_survives_an_unprintable_exception_and_cuts_long_ones() -> None:
    class Status(Exception):
        status_code = 503

        def __str__(self) -> str:
            raise RuntimeError("boom")

    error = classify(Status(), where="model m", secret="k")
    assert isinstance(error, TransientProviderError)
    assert "message cannot be shown" in str(error)

    class Long(Exception):
        status_code = 400

    error = classify(Long("z" * 100_000), where="model m", secret="k")
    assert isinstance(error, PermanentProviderError)
    assert len(str(error)) < MESSAGE_LIMIT + 200
    assert "characters cut" in str(error)
