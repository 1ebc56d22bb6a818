"""Fake OpenAI and Gemini servers that enforce rate limits the way the real APIs report them.

Requests per second go through a token bucket (burst 5 by default), tokens per minute
through another (each request costs its prompt's characters / 4 plus its answer); a
request that finds a bucket short is answered 429:

- OpenAI: `retry-after-ms`, `retry-after` and the `x-ratelimit-*` headers (limits per
  minute, resets as "1s" / "20ms"), which every answer also carries;
- Gemini: no headers, a `RESOURCE_EXHAUSTED` body with a `QuotaFailure` naming the
  per-minute quota and its value, and a `RetryInfo` with the `retryDelay`.

A used-up quota answers every request: OpenAI's `insufficient_quota`, Gemini's per-day
quota (whose body still carries a `RetryInfo`, as the real one does). Answered calls take
`latency` seconds.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, strings


class Bucket:
    """A token bucket: `capacity`, refilled at `per_second`."""

    def __init__(self, capacity: float, per_second: float) -> None:
        self.capacity, self.per_second = capacity, per_second
        self.level, self.at = capacity, time.monotonic()

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.at) * self.per_second)
        self.at = now

    def wait_for(self, amount: float) -> float:
        """Seconds until `amount` is in the bucket."""
        return max(0.0, (min(amount, self.capacity) - self.level) / self.per_second)

    def reset(self) -> float:
        """Seconds until the bucket is full again."""
        return (self.capacity - self.level) / self.per_second


def duration(seconds: float) -> str:
    """As OpenAI writes a reset: "20ms", "1.5s"."""
    return f"{seconds * 1000:.0f}ms" if seconds < 1 else f"{seconds:.3g}s"


@dataclass
class RateJudge(FakeJudge):
    """A fake judge behind rate limits; counts what it answered and refused."""

    rate: float = 2.0  # requests per second
    burst: float = 5.0
    tpm: float | None = None  # tokens per minute
    token_burst_seconds: float = 6.0  # the token bucket holds this many seconds of tokens
    quota: bool = False  # every request refused: the quota is used up
    stated: bool = True  # the limits are stated (headers, QuotaFailure); else only when to retry
    latency: float = 0.0
    answered: int = 0
    limited: int = 0
    refused: int = 0
    tokens_answered: int = 0
    gate: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.requests = Bucket(self.burst, self.rate)
        self.tokens = (Bucket(self.tpm / 60 * self.token_burst_seconds, self.tpm / 60)
                       if self.tpm else None)

    def usage(self, body: dict[str, Any]) -> tuple[int, int]:
        return sum(len(text) for text in strings(body)) // 4, 10

    def cost(self, body: dict[str, Any]) -> int:
        return sum(self.usage(body))

    def admit(self, body: dict[str, Any]) -> tuple[str | None, float, dict[str, str]]:
        """("quota" / "requests" / "tokens" / None, seconds to wait, OpenAI's headers)."""
        cost = self.cost(body)
        with self.gate:
            if self.quota:
                self.refused += 1
                return "quota", 0.0, {}
            now = time.monotonic()
            self.requests.refill(now)
            if self.tokens is not None:
                self.tokens.refill(now)
            short, wait = None, 0.0
            if self.requests.level < 1:
                short, wait = "requests", self.requests.wait_for(1)
            elif self.tokens is not None and self.tokens.level < min(cost, self.tokens.capacity):
                short, wait = "tokens", self.tokens.wait_for(cost)
            else:
                self.requests.level -= 1
                if self.tokens is not None:
                    self.tokens.level -= cost
                self.answered += 1
                self.tokens_answered += cost
            if short is not None:
                self.limited += 1
            return short, wait, self.headers()

    def headers(self) -> dict[str, str]:
        if not self.stated:
            return {}
        found = {
            "x-ratelimit-limit-requests": str(round(self.rate * 60)),
            "x-ratelimit-remaining-requests": str(max(0, math.floor(self.requests.level))),
            "x-ratelimit-reset-requests": duration(self.requests.reset()),
        }
        if self.tokens is not None:
            found |= {
                "x-ratelimit-limit-tokens": str(round(self.tpm or 0)),
                "x-ratelimit-remaining-tokens": str(max(0, math.floor(self.tokens.level))),
                "x-ratelimit-reset-tokens": duration(self.tokens.reset()),
            }
        return found


class RateOpenAI(OpenAIDialect):
    """OpenAI's chat completions behind `RateJudge`'s limits."""

    @classmethod
    def handle(cls, h: Any, body: dict[str, Any]) -> None:
        judge: RateJudge = h.judge
        short, wait, headers = judge.admit(body)
        if short == "quota":
            return h.send_json(429, {"error": {
                "message": "You exceeded your current quota, please check your plan and "
                           "billing details.",
                "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}},
                {})
        if short is not None:
            headers |= {"retry-after-ms": str(math.ceil(wait * 1000)),
                        "retry-after": str(math.ceil(wait))}
            what = "requests per min (RPM)" if short == "requests" else "tokens per min (TPM)"
            return h.send_json(429, {"error": {
                "message": f"Rate limit reached for {judge.model} in organization org-fake "
                           f"on {what}. Please try again in {duration(wait)}.",
                "type": short, "param": None, "code": "rate_limit_exceeded"}}, headers)
        h.extra_headers = headers
        time.sleep(judge.latency)
        return super().handle(h, body)


class RateGemini(GeminiDialect):
    """Gemini's generateContent behind `RateJudge`'s limits (RetryInfo, QuotaFailure)."""

    @classmethod
    def handle(cls, h: Any, body: dict[str, Any]) -> None:
        judge: RateJudge = h.judge
        short, wait, _ = judge.admit(body)
        if short is None:
            time.sleep(judge.latency)
            return super().handle(h, body)
        if short == "quota":
            quota, value, wait = "GenerateRequestsPerDayPerProjectPerModel-FreeTier", 250, 7.0
        elif short == "requests":
            quota, value = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", judge.rate * 60
        else:
            quota, value = "GenerateContentInputTokensPerModelPerMinute-FreeTier", judge.tpm
        failure = {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
            "quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
            "quotaId": quota, "quotaDimensions": {"model": judge.model},
            "quotaValue": str(round(value or 0))}]}
        retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo",
                 "retryDelay": f"{wait:.3f}s"}
        return h.send_json(429, {"error": {
            "code": 429,
            "message": "You exceeded your current quota, please check your plan and billing "
                       "details. For more information on this error, head to: "
                       "https://ai.google.dev/gemini-api/docs/rate-limits.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [failure, retry] if judge.stated or short == "quota" else [retry],
        }}, {})


@dataclass
class StrictJudge(FakeJudge):
    """A fake judge whose 429s say what a test wants, and whose limit allows no burst.

    The first `refuse_first` requests are answered 429 (`math.inf`: every request); with
    `window` (n, seconds), a request that finds n requests admitted in the last `seconds`
    is answered 429 too: a strict sliding window. A 429 carries `on_429`, an answer
    `on_answer`, as headers.
    """

    refuse_first: float = 0
    window: tuple[int, float] | None = None
    on_429: dict[str, str] = field(default_factory=dict)
    on_answer: dict[str, str] = field(default_factory=dict)
    latency: float = 0.0
    answered: int = 0
    limited: int = 0
    admitted: list[float] = field(default_factory=list)
    gate: threading.Lock = field(default_factory=threading.Lock)

    def admit(self) -> bool:
        with self.gate:
            now = time.monotonic()
            if self.answered + self.limited < self.refuse_first:
                self.limited += 1
                return False
            if self.window is not None:
                most, seconds = self.window
                recent = [t for t in self.admitted[-most:] if t > now - seconds]
                if len(recent) >= most:
                    self.limited += 1
                    return False
            self.admitted.append(now)
            self.answered += 1
            return True


class StrictOpenAI(OpenAIDialect):
    """OpenAI's chat completions behind `StrictJudge`."""

    @classmethod
    def handle(cls, h: Any, body: dict[str, Any]) -> None:
        judge: StrictJudge = h.judge
        if not judge.admit():
            return h.send_json(429, {"error": {
                "message": f"Rate limit reached for {judge.model} on requests per min (RPM)",
                "type": "requests", "param": None, "code": "rate_limit_exceeded"}},
                judge.on_429)
        h.extra_headers = judge.on_answer
        time.sleep(judge.latency)
        return super().handle(h, body)
