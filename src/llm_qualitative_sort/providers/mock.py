"""A seeded, deterministic stand-in for an LLM judge, for tests and demos."""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from llm_qualitative_sort.errors import TransientProviderError
from llm_qualitative_sort.models import ComparisonResult, Side
from llm_qualitative_sort.providers.base import LLMProvider

Latency = float | tuple[float, float]


def _digest(*parts: str | int) -> bytes:
    # Each field is hashed on its own and the digests concatenated, so no choice of texts
    # can make two different calls share a key (no delimiter to collide on).
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(str(part).encode("utf-8")).digest())
    return h.digest()


def _rng(*parts: str | int) -> random.Random:
    return random.Random(int.from_bytes(_digest(*parts), "big"))


def default_score(text: str) -> float:
    """The mock's hidden value of a text when no `score` is given.

    A text that reads as an integer (`int(text)`) is worth its value, as in the
    specification's mock; any other text (or an integer too large for a float) is worth its
    length in characters, so the mock judges any text and, noise aside, prefers the longer.

    Example:
        >>> default_score("42"), default_score("吾輩は猫である")
        (42.0, 7.0)
    """
    try:
        return float(int(text))
    except (ValueError, OverflowError):
        return float(len(text))


class MockLLMProvider(LLMProvider):
    """A judge whose verdicts follow a hidden score plus Gaussian noise.

    Each side of a call gets `score(text) + gauss(0, noise_stddev)` and the larger wins.
    Without `score`, `default_score` applies: an integer text is worth its value (the
    specification's mock on items "0".."999"), any other text its length. Every
    call draws its noise from its own generator, keyed on the seed, both texts, the
    presentation order and the repetition index; the same seeds therefore give the same
    verdicts whatever the concurrency, latency or completion order.

    Args:
        seed: Seed of the noise; `None` draws one.
        noise_stddev: Standard deviation of the noise on each side.
        latency: Seconds each call waits, or a `(min, max)` range drawn per call
            (deterministically, like the noise).
        position_bias: Share of calls that the first-shown text wins regardless of score.
        failure_rate: Share of attempts that raise `TransientProviderError`. Failures are
            drawn per attempt, so a retry can succeed; verdicts never depend on attempts.
        score: Maps a text to its true value (a finite number); `default_score` if None.

    Example:
        >>> import asyncio
        >>> judge = MockLLMProvider(seed=1, noise_stddev=0.0)
        >>> asyncio.run(judge.compare("3", "7", "larger")).winner
        'B'
        >>> asyncio.run(judge.compare("a short text", "short", "longer")).winner
        'A'
    """

    def __init__(
        self,
        seed: int | None = None,
        noise_stddev: float = 3.33,
        *,
        latency: Latency = 0.0,
        position_bias: float = 0.0,
        failure_rate: float = 0.0,
        score: Callable[[str], float] | None = None,
    ) -> None:
        super().__init__(model="mock")
        _check_share("position_bias", position_bias)
        _check_share("failure_rate", failure_rate)
        if noise_stddev < 0:
            raise ValueError(f"noise_stddev must be >= 0, got {noise_stddev!r}")
        self.seed = secrets.randbits(63) if seed is None else seed
        self.noise_stddev = noise_stddev
        self.latency = _check_latency(latency)
        self.position_bias = position_bias
        self.failure_rate = failure_rate
        self._score = score
        self._attempts: dict[tuple[str, str, int], int] = {}
        self.calls = 0

    @property
    def model_identity(self) -> str:
        """Two mocks share answers only when every setting that shapes a verdict matches."""
        return (
            f"MockLLMProvider:seed={self.seed}:sd={self.noise_stddev}"
            f":bias={self.position_bias}:score={self._score is not None}"
        )

    def check_items(self, items: Sequence[str]) -> None:
        """Refuse texts the score cannot value (it raises, or gives a non-finite number).

        Raises:
            ValueError: Naming the first such text.
        """
        for text in items:
            try:
                value = self.value(text)
            except Exception as exc:
                raise ValueError(
                    f"MockLLMProvider cannot score {text[:40]!r}: the score raised {exc!r}"
                ) from exc
            if not math.isfinite(value):
                raise ValueError(
                    f"MockLLMProvider scores {text[:40]!r} as {value}; a score must be finite"
                )

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """Compare as the first repetition of this presentation order."""
        return await self.compare_call(item_a, item_b, criteria, repetition=0)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        """Judge one call; deterministic in (seed, texts, order, repetition)."""
        rng = _rng(self.seed, item_a, item_b, repetition)
        value_a, value_b = self.value(item_a), self.value(item_b)
        noisy_a = value_a + rng.gauss(0.0, self.noise_stddev)
        noisy_b = value_b + rng.gauss(0.0, self.noise_stddev)
        biased = rng.random() < self.position_bias
        delay = self._delay(rng)
        self.calls += 1
        if delay > 0:
            await asyncio.sleep(delay)
        self._maybe_fail(item_a, item_b, repetition)
        winner: Side = "A" if biased or noisy_a >= noisy_b else "B"
        raw: dict[str, Any] = {"a": round(noisy_a, 4), "b": round(noisy_b, 4), "biased": biased}
        reasoning = f"A scored {noisy_a:.2f}, B scored {noisy_b:.2f}."
        return ComparisonResult(winner=winner, reasoning=reasoning, raw_response=raw)

    def value(self, text: str) -> float:
        """The hidden true value of a text."""
        if self._score is None:
            return default_score(text)
        return float(self._score(text))

    def _delay(self, rng: random.Random) -> float:
        low, high = self.latency
        return low if low == high else rng.uniform(low, high)

    def _maybe_fail(self, item_a: str, item_b: str, repetition: int) -> None:
        if self.failure_rate == 0:
            return
        key = (item_a, item_b, repetition)
        attempt = self._attempts.get(key, 0)
        self._attempts[key] = attempt + 1
        if _rng(self.seed, item_a, item_b, repetition, "attempt", attempt).random() < (
            self.failure_rate
        ):
            raise TransientProviderError("mock transient failure", retry_after=None)


def _check_share(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")


def _check_latency(latency: Latency) -> tuple[float, float]:
    low, high = latency if isinstance(latency, tuple) else (latency, latency)
    if low < 0 or high < low:
        raise ValueError(f"latency must be >= 0 or a (min, max) range, got {latency!r}")
    return float(low), float(high)
