"""Soft verdicts from a real local model: llama-cpp-python's server returns log-probabilities.

A soft Swiss run goes through `OpenAIProvider(base_url=...)` to SmolLM2 behind
llama-cpp-python's OpenAI-compatible server, with a recording proxy in between. The server
answers chat completions with `logprobs` (its top alternatives come from the raw logits,
before the tool-call grammar), so each call's probability must be the softmax over the
"A" / "B" alternatives the server listed at the verdict token of that call's raw response.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from _local_model import LocalModel
from _recording_proxy import Exchange, recording_proxy

from llm_qualitative_sort import OpenAIProvider, QualitativeSorter, Swiss

TEXTS = [
    "Water boils at 100 degrees Celsius at sea level.",
    "The moon is made of cheese.",
    "Plants make sugar from light, water and carbon dioxide.",
    "Cats are a kind of fish.",
]
TIMEOUT = 240.0
MAX_TOKENS = 200  # a verdict takes 15-30 tokens; a rambling answer is cut (and asked again)


def expected_first_wins(response: dict[str, Any]) -> float | None:
    """The softmax over the label alternatives at the verdict token of a raw response."""
    tokens = ((response["choices"][0].get("logprobs") or {}).get("content")) or []
    text = "".join(t["token"] for t in tokens)
    at = text.rfind('"winner"')
    if at < 0:
        return None
    colon = text.index(":", at + len('"winner"'))
    start = text.index('"', colon) + 1  # the first character of the winner's value
    offset = 0
    for token in tokens:
        if offset <= start < offset + len(token["token"]):
            prefix = text[offset:start]
            labels: dict[str, float] = {}
            for alt in token["top_logprobs"]:
                if alt["token"].startswith(prefix):
                    label = alt["token"][len(prefix):].rstrip('"},] ')
                    if label in ("A", "B"):
                        labels[label] = alt["logprob"]
            if not labels:
                return None
            total = sum(math.exp(z) for z in labels.values())
            return math.exp(labels.get("A", -math.inf)) / total
        offset += len(token["token"])
    return None


def verdict_of(exchange: Exchange) -> str | None:
    """The winner the raw response states (tool-call arguments or content), if valid."""
    if exchange.status != 200:
        return None
    message = exchange.response["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    text = calls[0]["function"]["arguments"] if calls else message.get("content") or ""
    try:
        # Not strict, as the provider reads tool-call arguments (LangChain's parser): a small
        # model's reasoning may hold raw newlines, which strict JSON refuses in a string.
        winner = json.loads(text, strict=False).get("winner")
    except (ValueError, AttributeError):
        return None
    return winner if winner in ("A", "B") else None


async def test_a_soft_run_reads_the_local_servers_log_probabilities(
    local_model: LocalModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    parts = urlsplit(local_model.url)
    with recording_proxy(f"{parts.scheme}://{parts.netloc}", MAX_TOKENS) as (proxy, recording):
        provider = OpenAIProvider(base_url=proxy + "/v1", model=local_model.model,
                                  timeout=TIMEOUT)
        # One match, asked in both orders (AB, then BA), so both ways of reading a
        # probability for the first-shown text are checked; each call costs seconds of CPU.
        sorter = QualitativeSorter(provider, criteria="which statement is true",
                                   strategy=Swiss(budget=2, comparison_rounds=2,
                                                  verdicts="soft"), seed=1,
                                   max_concurrent_requests=2, call_timeout=TIMEOUT + 30,
                                   checkpointer=tmp_path / "runs.sqlite3")
        result = await sorter.sort(TEXTS)
        await provider._loop_state().chat.http_async_client.aclose()  # type: ignore[attr-defined]
    exchanges = recording.chat()
    # Every request asked for log-probabilities, and the server's answers carried them.
    assert exchanges and all(e.request.get("logprobs") is True for e in exchanges)
    answered = [e for e in exchanges if verdict_of(e) is not None]
    assert answered and all(e.response["choices"][0].get("logprobs") for e in answered)
    assert provider.logprobs  # never refused
    # Each call's probability (for its first-shown text) is the softmax the raw answer gives.
    calls = [c for m in result.match_history for c in m.rounds if c.winner is not None]
    assert len(calls) == len(answered)
    stated = sorted(c.probability if c.order == "AB" else 1 - c.probability  # type: ignore[operator]
                    for c in calls if c.probability is not None)
    sent = sorted(p for e in answered if (p := expected_first_wins(e.response)) is not None)
    assert stated and len(stated) == len(sent)
    assert stated == pytest.approx(sent, abs=1e-9)
    # The audit reports them: every call with a verdict that had a probability is soft.
    found = result.statistics.calibration
    assert found is not None and found.soft_calls == len(stated)
    assert found.share == pytest.approx(len(stated) / len(calls), abs=1e-6)
    assert result.verdicts == "soft"
