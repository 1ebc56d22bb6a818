"""Pointwise scores from a real local model: the expected label from the server's log-probs.

A pointwise run goes through `OpenAIProvider(base_url=...)` to SmolLM2 behind
llama-cpp-python's OpenAI-compatible server, with a recording proxy in between. Each call's
value must be S = Σ k · softmax(z)_k over the label alternatives (1–4) the server listed at
the token where the answer's label begins — read here from the raw responses, independently
of the provider — or the label itself when the server listed none. The model is weak; the
test checks the reading, not the ranking.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from _local_model import LocalModel
from _recording_proxy import Exchange, recording_proxy
from langchain_core.utils.json import parse_partial_json

from llm_qualitative_sort import OpenAIProvider, Pointwise, QualitativeSorter

TEXTS = [
    "Water boils at 100 degrees Celsius at sea level.",
    "The moon is made of cheese.",
    "Plants make sugar from light, water and carbon dioxide.",
]
LABELS = ("1", "2", "3", "4")
TIMEOUT = 240.0
MAX_TOKENS = 200  # a verdict takes 15-30 tokens; a rambling answer is cut (and asked again)


def _answer_text(exchange: Exchange) -> str:
    message = exchange.response["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    return str(calls[0]["function"]["arguments"] if calls else message.get("content") or "")


def stated_label(exchange: Exchange) -> int | None:
    """The label the raw response states, if it is one of the scale's."""
    if exchange.status != 200:
        return None
    try:  # read as LangChain's tool-call parser reads it: a cut-off object is completed
        label = parse_partial_json(_answer_text(exchange)).get("label")
    except (ValueError, AttributeError):
        return None
    return int(label) if str(label) in LABELS else None


def expected_label(response: dict[str, Any]) -> float | None:
    """Σ k · softmax(z)_k over the label alternatives at the token where the label begins."""
    tokens = ((response["choices"][0].get("logprobs") or {}).get("content")) or []
    text = "".join(t["token"] for t in tokens)
    at = text.rfind('"label"')
    if at < 0:
        return None
    start = text.index(":", at + len('"label"')) + 1
    while text[start] in ' "':  # the value's first character (a digit, quoted or not)
        start += 1
    offset = 0
    for token in tokens:
        if offset <= start < offset + len(token["token"]):
            prefix = text[offset:start]
            found: dict[int, float] = {}
            for alt in token["top_logprobs"]:
                if alt["token"].startswith(prefix):
                    label = alt["token"][len(prefix):].rstrip('"},] \n')
                    if label in LABELS:
                        found[int(label)] = alt["logprob"]
            if not found:
                return None
            total = sum(math.exp(z) for z in found.values())
            return sum(k * math.exp(z) / total for k, z in found.items())
        offset += len(token["token"])
    return None


async def test_a_pointwise_run_reads_the_local_servers_label_probabilities(
    local_model: LocalModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    parts = urlsplit(local_model.url)
    with recording_proxy(f"{parts.scheme}://{parts.netloc}", MAX_TOKENS) as (proxy, recording):
        provider = OpenAIProvider(base_url=proxy + "/v1", model=local_model.model,
                                  timeout=TIMEOUT)
        sorter = QualitativeSorter(provider, criteria="which statement is true",
                                   strategy=Pointwise(repetitions=1), seed=1,
                                   max_concurrent_requests=2, call_timeout=TIMEOUT + 30,
                                   checkpointer=tmp_path / "runs.sqlite3")
        result = await sorter.sort(TEXTS)
        await provider._loop_state().chat.http_async_client.aclose()  # type: ignore[attr-defined]
    exchanges = recording.chat()
    assert exchanges and all(e.request.get("logprobs") is True for e in exchanges)
    answered = [e for e in exchanges if stated_label(e) is not None]
    calls = [call for item in result.pointwise for call in item.calls if call.label is not None]
    assert answered and len(calls) == len(answered)
    # The labels the run kept are the ones the server stated.
    assert sorted(c.label for c in calls) == sorted(stated_label(e) for e in answered)
    # Each call's value is the expected label the raw answer gives, or its label without one.
    sent = sorted(p if (p := expected_label(e.response)) is not None else float(stated_label(e))
                  for e in answered)
    kept = sorted(c.expected for c in calls)
    assert kept == pytest.approx(sent, abs=1e-9)
    # The server did send label probabilities, spread over more than one label.
    assert any(c.distribution and len(c.distribution) > 1 for c in calls), [
        (_answer_text(e)[:120], e.response["choices"][0].get("logprobs") is not None)
        for e in answered]
    assert sorted(item.item for item in result.pointwise) == sorted(TEXTS)
