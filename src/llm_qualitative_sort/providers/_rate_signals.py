"""What a server says about its rate limits: headers, Gemini's error details, quota wording.

Pure reading, no policy: `RateFacts` holds what one answer said (the limit, what remains,
when it resets, when to come back); `quota_named` tells a quota that is used up (no wait
will help within the run) from a rate (a wait will). The pace of the calls is decided in
`_calls.rate_control`.

OpenAI sends `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` on every answer
(limits per minute, resets as durations such as "1s", "6m0s", "20ms") and `retry-after`
or `retry-after-ms` on a 429. Gemini sends no such headers: its 429 body carries a
`RetryInfo` (`"retryDelay": "37s"`) and a `QuotaFailure` naming the quota (its id says
per minute or per day, its value the limit).
"""

from __future__ import annotations

import contextvars
import email.utils
import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
# A reset this many seconds or more ahead is a Unix time (September 2001 or later).
UNIX_TIME_FROM = 1e9


def parse_duration(text: object) -> float | None:
    """Seconds in a duration as rate-limit headers and Gemini write them, or None.

    Example:
        >>> parse_duration("6m0s"), parse_duration("20ms"), parse_duration("1.5s")
        (360.0, 0.02, 1.5)
        >>> parse_duration("2"), parse_duration("1h2m3s"), parse_duration("soon")
        (2.0, 3723.0, None)
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return _seconds(float(text))
    if not isinstance(text, str) or not text.strip():
        return None
    value = text.strip()
    try:
        return _seconds(float(value))
    except ValueError:
        pass
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(number) * scale[unit] for number, unit in parts)


def _seconds(value: float) -> float | None:
    """A number a server sent, as seconds: NaN says nothing, a negative one is now."""
    return None if math.isnan(value) else max(value, 0.0)


def parse_reset(text: object) -> float | None:
    """Seconds until an `x-ratelimit-reset-*` resets: a duration, or a Unix time.

    Some gateways send the moment of the reset (`1700000000`) instead of the time left.
    No limit resets 31 years ahead, so a number past `UNIX_TIME_FROM` is such a moment.

    Example:
        >>> parse_reset("6m0s"), parse_reset("1700000000"), parse_reset("nan")
        (360.0, 0.0, None)
    """
    seconds = parse_duration(text)
    if seconds is not None and UNIX_TIME_FROM <= seconds < math.inf:
        return max(seconds - time.time(), 0.0)
    return seconds


@dataclass(frozen=True)
class RateFacts:
    """What one answer said about the rate limits (None: not said).

    `requests_limit` and `tokens_limit` are per minute; resets and `retry_after` in seconds.
    """

    retry_after: float | None = None
    requests_limit: float | None = None
    requests_remaining: float | None = None
    requests_reset: float | None = None
    tokens_limit: float | None = None
    tokens_remaining: float | None = None
    tokens_reset: float | None = None
    quota: bool = False  # the limits are a quota named in an error body (Gemini), not headers

    def said_anything(self) -> bool:
        """Whether any field is known."""
        return any(value is not None for name, value in vars(self).items() if name != "quota")

    def limit_name(self, what: str) -> str:
        """Where the limit on `what` ("requests" or "tokens") per minute was stated."""
        return (f"the per-minute {what[:-1]} quota" if self.quota
                else f"x-ratelimit-limit-{what}")


def _number(headers: Any, name: str) -> float | None:
    try:
        value = headers.get(name)
    except (AttributeError, TypeError):
        return None
    if value is None:
        return None
    try:
        return _seconds(float(value))
    except (TypeError, ValueError):
        return None


def _header(headers: Any, name: str) -> Any:
    try:
        return headers.get(name)
    except (AttributeError, TypeError):
        return None


def header_retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (a number or an HTTP date)."""
    millis = _number(headers, "retry-after-ms")
    if millis is not None:
        return millis / 1000
    value = _header(headers, "retry-after")
    if value is None:
        return None
    seconds = parse_duration(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(str(value)).timestamp()
    except (TypeError, ValueError):
        return None
    return max(when - time.time(), 0.0)


def facts_from_headers(headers: Any) -> RateFacts:
    """The rate-limit headers of one answer (any mapping with `get`, case as httpx gives)."""
    return RateFacts(
        retry_after=header_retry_after(headers),
        requests_limit=_number(headers, "x-ratelimit-limit-requests"),
        requests_remaining=_number(headers, "x-ratelimit-remaining-requests"),
        requests_reset=parse_reset(_header(headers, "x-ratelimit-reset-requests")),
        tokens_limit=_number(headers, "x-ratelimit-limit-tokens"),
        tokens_remaining=_number(headers, "x-ratelimit-remaining-tokens"),
        tokens_reset=parse_reset(_header(headers, "x-ratelimit-reset-tokens")),
    )


def _entries(details: Any) -> Iterator[dict[str, Any]]:
    """The entries of a Google error's `details` list (the body, or its `error`)."""
    if not isinstance(details, dict):
        return
    error = details.get("error", details)
    entries = error.get("details", []) if isinstance(error, dict) else []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            yield entry


def retry_delay(details: Any) -> float | None:
    """Gemini's `RetryInfo.retryDelay` ("37s") in seconds, if the body has one."""
    for entry in _entries(details):
        seconds = parse_duration(entry.get("retryDelay"))
        if seconds is not None:
            return seconds
    return None


def _violations(details: Any) -> Iterator[dict[str, Any]]:
    for entry in _entries(details):
        for violation in entry.get("violations") or []:
            if isinstance(violation, dict):
                yield violation


def per_minute_limit(details: Any) -> tuple[float | None, float | None]:
    """Gemini's per-minute quotas in its `QuotaFailure`: (requests, tokens) per minute."""
    requests = tokens = None
    for violation in _violations(details):
        quota = str(violation.get("quotaId", ""))
        value = _number(violation, "quotaValue")
        if "PerMinute" not in quota or value is None:
            continue
        if "Token" in quota:
            tokens = value
        else:
            requests = value
    return requests, tokens


def facts_from_details(details: Any) -> RateFacts:
    """What a Gemini 429 body says: when to come back, and the per-minute limits."""
    requests, tokens = per_minute_limit(details)
    return RateFacts(retry_after=retry_delay(details), requests_limit=requests,
                     tokens_limit=tokens, quota=requests is not None or tokens is not None)


_BILLING = re.compile(r"\bbilling\b|\bcredit balance\b|\bplan and billing\b", re.I)
_QUOTA_CODES = ("insufficient_quota", "billing_hard_limit_reached", "billing_not_active")


def quota_named(status: int | None, body: Any, details: Any, message: str,
                timed: bool = False) -> str | None:
    """The name of a quota that is used up, or None when the error is a rate (or neither).

    OpenAI's `insufficient_quota` (and other billing codes), Gemini's per-day quota
    (a `QuotaFailure` whose quota id says `PerDay`), or a message about billing from a
    server that gave no time to come back (`timed` False): both providers' per-minute
    429s also say "check your plan and billing details", with a time to come back.

    Example:
        >>> quota_named(429, {"code": "insufficient_quota"}, None, "")
        'insufficient_quota'
        >>> day = {"error": {"details": [{"violations": [
        ...     {"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}
        >>> quota_named(429, None, day, "")
        'GenerateRequestsPerDayPerProjectPerModel-FreeTier'
        >>> quota_named(429, None, None, "Rate limit reached for requests") is None
        True
    """
    if isinstance(body, dict):
        for name in ("code", "type"):
            value = body.get(name)
            if isinstance(value, str) and value in _QUOTA_CODES:
                return value
    for violation in _violations(details):
        quota = str(violation.get("quotaId", ""))
        if "PerDay" in quota:
            return quota
    if status in (402, 429) and not timed and _BILLING.search(message):
        return "billing"
    return None


class HeaderNote:
    """A place where a provider leaves the rate-limit headers of its last answer."""

    __slots__ = ("facts",)

    def __init__(self) -> None:
        self.facts: RateFacts | None = None


# Set by the engine around one provider call; the provider's task inherits it.
_NOTE: contextvars.ContextVar[HeaderNote | None] = contextvars.ContextVar(
    "rate_header_note", default=None)


def listen() -> HeaderNote:
    """A note for the call about to start in this context (its task copies the context)."""
    note = HeaderNote()
    _NOTE.set(note)
    return note


def report_headers(headers: Any) -> None:
    """Leave an answer's rate-limit headers for the engine, if it listens."""
    note = _NOTE.get()
    if note is not None and headers is not None:
        facts = facts_from_headers(headers)
        if facts.said_anything():
            note.facts = facts
