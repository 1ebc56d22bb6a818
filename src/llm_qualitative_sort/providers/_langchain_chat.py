"""What the LangChain judge reads from a chat model, and what it keeps beside one.

The structured-output methods it can ask with (and OpenAI's strict mode for them), the
chat model's fields that name its model, endpoint and key, the state kept per event loop
(the chat model, its runnables, its log-probability twin), and an endpoint shown without
anything that could carry a credential.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from pydantic import SecretStr

Method = Literal["json_schema", "function_calling", "json_mode", "text"]
ALL_METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "text")
ChatModelSource = BaseChatModel | Callable[[], BaseChatModel]

_MODEL_FIELDS = ("model_name", "model", "deployment_name", "azure_deployment")
_URL_FIELDS = ("openai_api_base", "base_url", "azure_endpoint", "anthropic_api_url")
_KEY_FIELDS = ("openai_api_key", "google_api_key", "anthropic_api_key", "api_key")


@dataclass
class _LoopState:
    chat: BaseChatModel
    runnables: dict[str, Runnable[Any, Any]] = field(default_factory=dict)
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
