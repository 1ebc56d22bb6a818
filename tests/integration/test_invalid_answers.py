"""A provider's answer is checked where it enters the tournament: no invalid verdict counts."""

import dataclasses
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    InvalidAnswerError,
    LLMProvider,
    MemoryCache,
    QualitativeSorter,
    RunStoppedError,
)

ITEMS = ["apple", "banana", "cherry", "damson"]


class Answering(LLMProvider):
    """Answers every call with what `make` builds (the call count is kept)."""

    def __init__(self, make: Any) -> None:
        super().__init__(model="bad-judge")
        self.make = make
        self.calls = 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> Any:
        self.calls += 1
        return self.make()


def sorter(provider: LLMProvider, **settings: Any) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="tastier", seed=1, checkpointer=None, **settings)


@pytest.mark.parametrize("winner", ["C", "a", "b", "", "AB", 1, True])
def test_a_result_with_another_winner_cannot_be_built(winner: Any) -> None:
    with pytest.raises(InvalidAnswerError, match=repr(winner)):
        ComparisonResult(winner=winner, reasoning="")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"input_tokens": "12"}, "input_tokens"),
        ({"output_tokens": -1}, "output_tokens"),
        ({"output_tokens": 2.5}, "output_tokens"),
        ({"input_tokens": True}, "input_tokens"),
        ({"reasoning": None}, "reasoning"),
        ({"raw_response": "text"}, "raw_response"),
    ],
)
def test_every_field_of_a_result_is_checked(fields: dict[str, Any], named: str) -> None:
    values: dict[str, Any] = {"winner": "A", "reasoning": "ok", **fields}
    with pytest.raises(InvalidAnswerError, match=named):
        ComparisonResult(**values)


@pytest.mark.parametrize("winner", ["C", "a", "draw"])
async def test_an_invalid_winner_stops_the_run_naming_the_provider_and_value(
    winner: str,
) -> None:
    provider = Answering(lambda: ComparisonResult(winner=winner, reasoning=""))  # type: ignore[arg-type]
    with pytest.raises(RunStoppedError) as stopped:
        await sorter(provider).sort(ITEMS)
    message = str(stopped.value)
    assert "Answering(model='bad-judge'" in message
    assert repr(winner) in message


async def test_an_answer_forged_past_the_check_is_refused_too() -> None:
    """Even a result mutated after construction never reaches the bracket as a win."""

    def forged() -> ComparisonResult:
        result = ComparisonResult(winner="A", reasoning="")
        object.__setattr__(result, "winner", "C")
        return result

    with pytest.raises(RunStoppedError, match="'C'"):
        await sorter(Answering(forged)).sort(ITEMS)


async def test_an_answer_that_is_not_a_result_is_refused() -> None:
    with pytest.raises(RunStoppedError, match="expected a ComparisonResult, got dict"):
        await sorter(Answering(lambda: {"winner": "A"})).sort(ITEMS)


async def test_a_string_token_count_stops_at_the_first_call_and_is_never_stored() -> None:
    """Before, every call was paid and the run then failed forever, even on resume."""
    cache = MemoryCache()
    provider = Answering(lambda: dataclasses.replace(
        ComparisonResult(winner="A", reasoning=""), input_tokens="12"))
    with pytest.raises(RunStoppedError, match="input_tokens"):
        await sorter(provider, cache=cache, max_concurrent_requests=1).sort(ITEMS)
    assert provider.calls == 1
    assert len(cache) == 0
