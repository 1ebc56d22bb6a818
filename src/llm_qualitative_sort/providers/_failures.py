"""Mapping client-library exceptions onto the library's transient / permanent errors.

Both shipped clients raise `langchain_core.exceptions.ModelError` subclasses keyed to the HTTP
status; some failures still escape raw (Gemini's `httpx.ReadTimeout`, an SDK's own status
errors), so the status code and the transport error types are checked as a fallback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from langchain_core import exceptions as lc

from llm_qualitative_sort.errors import (
    PermanentProviderError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    TransientProviderError,
    cut,
    message_of,
)
from llm_qualitative_sort.providers._rate_signals import (
    RateFacts,
    facts_from_details,
    facts_from_headers,
    per_minute_limit,
    quota_named,
)
from llm_qualitative_sort.providers.logprobs import refuses_logprobs

# HTTP statuses of a failure that the same request may not meet again: asked again (a live
# call by the engine, a batch's request in the next batch).
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# Names of transport failures in httpx (and httpx2, which google-genai may use).
_TRANSPORT_NAMES = {"TimeoutException", "TransportError", "NetworkError", "RemoteProtocolError"}
_TRANSIENT_LC = (
    lc.ModelRateLimitError,
    lc.ModelAPIError,
    lc.ModelConnectionError,
    lc.ModelTimeoutError,
)
_PERMANENT_HINTS: list[tuple[type[Exception], str]] = [
    (lc.ModelAuthenticationError, "authentication failed (HTTP 401): check the API key"),
    (lc.ModelPermissionDeniedError, "permission denied (HTTP 403): the key may not use"),
    (lc.ModelNotFoundError, "not found (HTTP 404): unknown model or wrong base_url for"),
    (lc.ContextOverflowError, "the texts are too long for the context window of"),
    (lc.ModelInvalidRequestError, "invalid request (HTTP 400) to"),
]
# Packages that read the server's answer: an error they raise while doing so, other than
# their own API errors, means the answer was not what the protocol promises.
_CLIENT_PACKAGES = ("openai", "langchain_openai", "google.genai", "langchain_google_genai")
_READING_ERRORS = (TypeError, KeyError, ValueError, AttributeError, IndexError)
_STATUS_HINTS = {
    400: "invalid request (HTTP 400) to",
    401: "authentication failed (HTTP 401): check the API key",
    403: "permission denied (HTTP 403): the key may not use",
    404: "not found (HTTP 404): unknown model or wrong base_url for",
}


def redact(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` masked (a server may echo the key back)."""
    return text.replace(secret, "***") if secret else text


def is_invalid_request(exc: BaseException) -> bool:
    """Whether the server rejected the request itself (HTTP 400/422): maybe its format."""
    if isinstance(exc, lc.ModelInvalidRequestError):
        return True
    return _status(exc) in (400, 422)


# A server that cannot honour the structured-output fields may refuse them with any status
# (llama-cpp-python answers `json_schema` with HTTP 500); its message then names the field.
_FORMAT_FIELDS = re.compile(
    r"response_format|json_schema|json_object|tool_choice|\btools\b|structured output", re.I
)
_NOT_A_FORMAT_STATUS = {401, 403, 404, 408, 409, 425, 429}


def is_format_rejection(exc: BaseException) -> bool:
    """Whether the server refused the request's form rather than failing to answer it.

    HTTP 400/422, or any other error status whose message names the structured-output
    fields (`response_format`, `json_schema`, `tools`, ...). Such a refusal is not worth a
    retry of the same request: the next structured-output method is.
    """
    if is_invalid_request(exc):
        return True
    status = _status(exc)
    if status is None or status < 400 or status in _NOT_A_FORMAT_STATUS:
        return False
    return any(_FORMAT_FIELDS.search(message_of(cause)) for cause in _chain(exc))


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
    return refuses_logprobs(_status(exc), message_of(exc))


def classify(exc: BaseException, *, where: str, secret: str | None) -> ProviderError | None:
    """The library error for a client exception, or None when it is not a provider failure.

    Args:
        exc: What the client raised.
        where: The model and endpoint, named in messages.
        secret: The API key, masked out of every message.
    """
    detail = cut(redact(f"{type(exc).__name__}: {message_of(exc)}", secret), 500)
    status = _status(exc)
    if status not in (None, 400, 422) and is_format_rejection(exc):
        return PermanentProviderError(
            f"the server refused the request's format (HTTP {status}) {where}: {detail}"
        )
    if status == 429 or isinstance(exc, lc.ModelRateLimitError):
        return rate_error(exc, f"{where}: {detail}")
    if (
        isinstance(exc, (*_TRANSIENT_LC, TimeoutError, ConnectionError))
        or _is_transport(exc)
        or status in TRANSIENT_STATUS
    ):
        return TransientProviderError(f"{where}: {detail}", retry_after=retry_after(exc))
    for kind, hint in _PERMANENT_HINTS:
        if isinstance(exc, kind):
            return PermanentProviderError(f"{hint} {where}: {detail}")
    if status is not None and 400 <= status < 500:
        hint = _STATUS_HINTS.get(status, f"request refused (HTTP {status}) by")
        return PermanentProviderError(f"{hint} {where}: {detail}")
    if isinstance(exc, lc.ModelError):
        return PermanentProviderError(f"{where}: {detail}")
    if _unreadable_answer(exc):
        # Transient: a proxy that cut the body, or answered an upstream failure with a 200
        # and no completion, says nothing about the texts, and an outage must not cost an
        # item a loss (a missing verdict would count as a draw).
        return TransientProviderError(
            f"{where} answered HTTP 200 with a body that cannot be read (cut off, or without "
            f"a completion): {detail}"
        )
    return None


def _unreadable_answer(exc: BaseException) -> bool:
    """Whether the client failed while reading a 200 answer: bad JSON, or missing fields."""
    if any(isinstance(cause, json.JSONDecodeError) for cause in _chain(exc)):
        return True
    if not isinstance(exc, _READING_ERRORS):
        return False
    module = _innermost_module(exc.__traceback__)
    return any(module == name or module.startswith(name + ".") for name in _CLIENT_PACKAGES)


def _innermost_module(tb: TracebackType | None) -> str:
    module = ""
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        tb = tb.tb_next
    return module


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_transport(exc: BaseException) -> bool:
    return any(
        cls.__name__ in _TRANSPORT_NAMES and cls.__module__.startswith("httpx")
        for cause in _chain(exc)
        for cls in type(cause).__mro__
    )


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of a client exception (or of its causes), if it carries one."""
    return _status(exc)


def _status(exc: BaseException) -> int | None:
    for cause in _chain(exc):
        for name in ("status_code", "code"):
            value = getattr(cause, name, None)
            if isinstance(value, int) and 100 <= value < 600:
                return value
    return None


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked to wait: Retry-After(-ms) headers or Google's RetryInfo."""
    return rate_facts(exc).retry_after


def rate_facts(exc: BaseException) -> RateFacts:
    """What a failed call's answer said about the rate limits (headers or Gemini's details)."""
    found: RateFacts | None = None
    for cause in _chain(exc):
        headers: Any = getattr(getattr(cause, "response", None), "headers", None)
        facts = facts_from_headers(headers) if headers is not None else RateFacts()
        if not facts.said_anything():
            facts = facts_from_details(getattr(cause, "details", None))
        if facts.said_anything():
            if facts.retry_after is not None:
                return facts
            found = found or facts
    return found or RateFacts()


def rate_error(exc: BaseException, text: str) -> TransientProviderError | QuotaExceededError:
    """A 429: a used-up quota (the run stops), or a rate (the judge slows down)."""
    facts = rate_facts(exc)
    per_minute = any(per_minute_limit(getattr(c, "details", None)) != (None, None)
                     for c in _chain(exc))
    timed = per_minute or facts.said_anything()
    quota = None
    for worded in (False, True):  # the structured names first, then the wording
        for cause in _chain(exc):
            quota = quota or quota_named(
                _status(cause) or 429, getattr(cause, "body", None),
                getattr(cause, "details", None), message_of(cause) if worded else "", timed)
    if quota is not None:
        return QuotaExceededError(
            f"the provider's quota {quota!r} is used up (this is not a rate limit: waiting "
            f"within the run will not help); add credit or raise the quota, or wait for it "
            f"to renew, then resume the run. {text}", quota=quota)
    return RateLimitedError(text, retry_after=facts.retry_after, facts=facts)
