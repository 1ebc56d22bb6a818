"""Asking a chat model for log-probabilities, and reading the soft verdict it sent back.

The live providers ask for them where the client can (`ChatOpenAI`: `logprobs=True` and
`top_logprobs`; a Gemini model built by `GoogleProvider`: `response_logprobs` and `logprobs`
in its generation config). A server that refuses them (Gemini answers 400 "Logprobs is
not enabled for models/…"; OpenAI's reasoning models refuse `logprobs` likewise) is asked
again at once without them, and the provider stops asking for that model; the answer then
has no probability, a hard verdict.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from llm_qualitative_sort.errors import message_of
from llm_qualitative_sort.providers._failures import status_of
from llm_qualitative_sort.providers.logprobs import (
    TOP_LOGPROBS,
    Token,
    gemini_tokens,
    openai_tokens,
    verdict_probability,
)

# The response metadata keys that carry log-probabilities (OpenAI's; Gemini's, as
# `GoogleProvider`'s chat model stores them): read, then dropped from the stored answer.
LOGPROB_KEYS = ("logprobs", "logprobs_result")


def with_logprobs(chat: BaseChatModel) -> BaseChatModel | None:
    """A copy of `chat` that asks for log-probabilities, or None when it cannot ask."""
    if type(chat).__module__.startswith("langchain_openai"):
        return chat.model_copy(update={"logprobs": True, "top_logprobs": TOP_LOGPROBS})
    if "response_logprobs" in type(chat).model_fields:
        return chat.model_copy(update={"response_logprobs": True})
    return None


def is_logprob_refusal(exc: BaseException) -> bool:
    """Whether a client error is the server refusing the request for log-probabilities.

    Example:
        >>> class E(Exception):
        ...     status_code = 400
        >>> is_logprob_refusal(E("Logprobs is not enabled for models/gemini-x"))
        True
        >>> is_logprob_refusal(E("response_format json_schema is not supported"))
        False
    """
    status = status_of(exc)
    return status in (400, 422) and "logprob" in message_of(exc).lower()


def message_tokens(message: AIMessage) -> list[Token]:
    """The generated tokens with their alternatives, as the message's metadata holds them."""
    metadata = message.response_metadata or {}
    if isinstance(metadata.get("logprobs"), dict):
        return openai_tokens(metadata["logprobs"])
    return gemini_tokens(metadata.get("logprobs_result"))


def read_soft_verdict(message: AIMessage) -> tuple[float | None, dict[str, float]]:
    """P(first-shown wins) from the message's log-probabilities, and the label log-probs."""
    return verdict_probability(message_tokens(message))


def without_logprobs(metadata: dict[str, Any]) -> dict[str, Any]:
    """Response metadata without the (bulky) per-token log-probabilities."""
    return {k: v for k, v in metadata.items() if k not in LOGPROB_KEYS and k != "headers"}
