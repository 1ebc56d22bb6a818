"""What the LangChain judge reads from a chat model, and what it keeps beside one.

The structured-output methods it can ask with (and OpenAI's strict mode for them), the
chat model's fields that name its model, endpoint and key, the state kept per event loop
(the chat model, its runnables, each asked as its two halves where it can be, its
log-probability twin), an endpoint shown without anything that could carry a credential,
and one request to the chat model (`ask_model`, the path of both verdicts and scores).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast
from urllib.parse import urlsplit, urlunsplit

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import SecretStr

from llm_qualitative_sort.providers._logprob_request import without_logprobs
from llm_qualitative_sort.providers._rate_signals import report_headers
from llm_qualitative_sort.providers._structured import Asking

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.langchain import LangChainProvider

Method = Literal["json_schema", "function_calling", "json_mode", "text"]
ALL_METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "text")
ChatModelSource = BaseChatModel | Callable[[], BaseChatModel]

_MODEL_FIELDS = ("model_name", "model", "deployment_name", "azure_deployment")
_URL_FIELDS = ("openai_api_base", "base_url", "azure_endpoint", "anthropic_api_url")
_KEY_FIELDS = ("openai_api_key", "google_api_key", "anthropic_api_key", "api_key")


@dataclass
class _LoopState:
    chat: BaseChatModel
    runnables: dict[str, Asking] = field(default_factory=dict)
    # The chat model that asks for log-probabilities (None: it cannot ask), built once.
    logprob_chat: BaseChatModel | None = None


def _strict(chat: BaseChatModel, method: Method) -> dict[str, Any]:
    # OpenAI's strict mode guarantees schema-shaped answers (JSON mode has no schema to be
    # strict about); other clients may not take the argument at all.
    is_openai = type(chat).__module__.startswith("langchain_openai")
    return {"strict": True} if is_openai and method != "json_mode" else {}


def _field_text(model: BaseChatModel | None, names: Sequence[str]) -> str | None:
    for name in names:
        value = getattr(model, name, None)
        if isinstance(value, str) and value:
            return value
    return None


def _field_secret(model: BaseChatModel | None) -> str | None:
    for name in _KEY_FIELDS:
        value = getattr(model, name, None)
        if isinstance(value, SecretStr):
            return value.get_secret_value()
    return None


def _safe_url(url: str) -> str:
    """`url` without user info, query or fragment, where a key could hide (`?key=...`)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


async def ask_model(provider: LangChainProvider, runnable: Asking,
                    messages: list[BaseMessage], method: Method) -> tuple[AIMessage, Any]:
    """`messages` through `provider`'s rate limiter and deadline to `runnable`.

    Returns the model's message and the structured output (None for `method="text"`). The
    message's rate-limit headers are left for the engine here, for every kind of call; they
    are never stored (they name the organization).
    """
    if provider._limiter is not None:
        await provider._limiter.aacquire()
    async with asyncio.timeout(provider.timeout):
        output = await runnable.ainvoke(messages)
    if method == "text":
        message, structured = cast(AIMessage, output), None
    else:
        message, structured = output["raw"], output
    report_headers(message.response_metadata.get("headers"))
    return message, structured


def stored_reply(method: Method, message: AIMessage) -> dict[str, Any]:
    """What a call keeps of the model's message (its raw response): a verdict's or a score's."""
    return {
        "method": method,
        "content": message.content,
        "tool_calls": message.tool_calls,
        "refusal": message.additional_kwargs.get("refusal"),
        "response_metadata": without_logprobs(message.response_metadata),
        "usage": dict(message.usage_metadata or {}),
    }
