"""A ranking call of four texts to a real small model, end to end through `OpenAIProvider`.

SmolLM2 behind llama-cpp-python's OpenAI-compatible server (see `_local_model.py`), a
recording proxy in between. The server refuses `json_schema`; the provider falls back down
its ladder. The model is weak: the test checks the protocol, not the order. The call's
answer must be an order of exactly the four labels, read from what the server last said,
or visibly no order, with the problem the raw answer shows; never a guess.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _local_model import LocalModel
from _recording_proxy import recording_proxy
from langchain_core.utils.json import parse_partial_json

from llm_qualitative_sort import OpenAIProvider
from llm_qualitative_sort.providers.questions import Rank, Request
from llm_qualitative_sort.verdicts import RankingResult, ranking_order

TEXTS = (
    "Water boils at 100 degrees Celsius at sea level.",
    "The moon is made of cheese.",
    "Plants make sugar from light, water and carbon dioxide.",
    "Cats are a kind of fish.",
)
TIMEOUT = 240.0
MAX_TOKENS = 300  # an order of four labels with its reasoning takes 40-80 tokens


def _stated(response: dict[str, object]) -> object:
    """The order the server's answer states (as LangChain reads a cut-off tool call)."""
    message = response["choices"][0]["message"]  # type: ignore[index]
    calls = message.get("tool_calls") or []
    text = calls[0]["function"]["arguments"] if calls else message.get("content") or ""
    try:
        return (parse_partial_json(str(text)) or {}).get("order")
    except (ValueError, AttributeError):
        return None


async def test_a_ranking_call_is_an_order_of_the_labels_shown_or_visibly_none(
    local_model: LocalModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    del tmp_path
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    parts = urlsplit(local_model.url)
    with recording_proxy(f"{parts.scheme}://{parts.netloc}", MAX_TOKENS) as (proxy, recording):
        provider = OpenAIProvider(base_url=proxy + "/v1", model=local_model.model,
                                  timeout=TIMEOUT, logprobs=False)
        assert provider.answers(Rank)
        result = await provider.answer(Request(Rank(TEXTS), "which statement is true"))
        await provider._loop_state().chat.http_async_client.aclose()  # type: ignore[attr-defined]
    assert isinstance(result, RankingResult)
    answered = [e for e in recording.chat() if e.status == 200]
    assert answered, "the server answered no request"
    assert result.raw_response["answers"] == len(answered)
    last = _stated(answered[-1].response)
    read, problem = ranking_order(last, ("A", "B", "C", "D"), ties=False)
    if result.order is None:  # visibly without a verdict, for the reason the answer shows
        assert result.raw_response["problem"]
        assert result.reasoning.startswith("no usable order after")
    else:
        assert read == result.order, problem
        assert sorted(label for place in result.order for label in place) == ["A", "B", "C", "D"]
    # The texts went out fenced under their labels, in the order given.
    prompt = str(answered[-1].request["messages"][-1]["content"])
    assert all(f"TEXT {label} " in prompt and text in prompt
               for label, text in zip("ABCD", TEXTS, strict=True))
