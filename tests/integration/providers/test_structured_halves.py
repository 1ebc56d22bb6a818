"""The structured-output chain asked as its two halves answers exactly as the whole chain.

Against the fake servers with the real clients: for every structured-output method and
for an answer that parses, one that does not (cut JSON / prose) and a refusal, the halves
send the chain's request and give its `parsed` value, parsing error and message, with and
without log-probabilities asked.
"""

from __future__ import annotations

from typing import Any

import pytest
from _setup import make_provider
from langchain_core.runnables import RunnableLambda

from llm_qualitative_sort.prompts._comparison import build_messages, verdict_schema
from llm_qualitative_sort.providers._structured import Halves, split
from llm_qualitative_sort.providers.langchain import _strict

METHODS = ["json_schema", "function_calling", "json_mode"]


def summary(output: dict[str, Any]) -> tuple[Any, ...]:
    raw, error = output["raw"], output["parsing_error"]
    return (
        output["parsed"], type(error).__name__, str(error),
        # The Gemini client numbers its tool calls at random: their ids are left out.
        raw.content, [{**call, "id": None} for call in raw.tool_calls],
        raw.additional_kwargs.get("refusal"),
        raw.response_metadata.get("logprobs"), raw.response_metadata.get("logprobs_result"),
    )


# Every kind, method and answer the fake servers can give (Gemini's API has no refusal
# field, and its function calls carry parsed arguments, never cut JSON).
CASES = [
    (kind, method, fault)
    for kind in ("openai", "google", "langchain") for method in METHODS
    for fault in (None, "malformed", "refusal")
    if kind != "google" or (fault != "refusal"
                            and (fault, method) != ("malformed", "function_calling"))
]


@pytest.mark.parametrize("logprobs", [False, True])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize(("kind", "method", "fault"), CASES)
async def test_the_halves_answer_as_the_chain(
    request: pytest.FixtureRequest, items: list[str], kind: str, method: str,
    fault: str | None, ties: bool, logprobs: bool,
) -> None:
    served = "gemini_judge" if kind == "google" else "openai_judge"
    judge, url = request.getfixturevalue(served)
    state = make_provider(kind, url)._loop_state()
    chat = state.logprob_chat if logprobs else state.chat
    assert chat is not None
    chain = chat.with_structured_output(
        verdict_schema(ties), method=method, include_raw=True, **_strict(chat, method))
    halves = split(chain)
    assert isinstance(halves, Halves)
    messages = build_messages(items[7], items[8], "which text is more persuasive", ties=ties)
    judge.script = [fault, fault] if fault else []
    if fault != "malformed":  # sent where asked for; the fake tokenises only whole answers
        judge.logprobs = {"A": -0.2, "B": -1.7}
    whole, parts = await chain.ainvoke(messages), await halves.ainvoke(messages)
    assert summary(parts) == summary(whole)
    assert parts["parsed"] is not None or fault is not None
    first, second = judge.seen
    assert (second.path, second.method, second.body) == (first.path, first.method, first.body)


def test_other_shapes_are_asked_whole() -> None:
    lone = RunnableLambda(lambda messages: messages)
    assert split(lone) is lone
    pair = RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)
    assert split(pair) is pair
    raw_only = {"raw": lone} | RunnableLambda(lambda x: x)
    assert split(raw_only) is raw_only
