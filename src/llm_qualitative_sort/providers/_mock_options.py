"""The mock's options in their normal form, and the preset of `MockLLMProvider.realistic`.

A latency is a number of seconds or a (min, max) range drawn per call; a share (the
refusal rate) is one share or a (low, high) range from which each unordered pair draws its
own. `realistic_flaws` holds the flaws `realistic()` switches on, in units of the noise's sd;
`LengthLean` is the judge's preference for longer texts.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort.errors import InputError

Latency = float | tuple[float, float]
Share = float | tuple[float, float]


def realistic_flaws(noise_stddev: float) -> dict[str, Any]:
    """The constructor options of `MockLLMProvider.realistic` for a noise of `noise_stddev`."""
    return {
        "noise": "student_t",
        "close_noise": 1.0,
        "pair_bias": (0.3 * noise_stddev, noise_stddev),
        "item_bias": 0.5 * noise_stddev,
        "wrong_rate": 0.03,
        "refusal_rate": (0.04, 0.10),
    }


def share_range(share: Share) -> tuple[float, float]:
    low, high = share if isinstance(share, tuple) else (share, share)
    return float(low), float(high)


def check_latency(latency: Latency) -> tuple[float, float]:
    low, high = latency if isinstance(latency, tuple) else (latency, latency)
    if low < 0 or high < low:
        raise InputError(f"latency must be >= 0 or a (min, max) range, got {latency!r}")
    return float(low), float(high)


class LengthLean:
    """The mock's preference for longer texts, `length_preference` logits per sd of log length.

    A text's length feature is its log length in characters, standardised over the run's
    texts, which the mock learns from `check_items` (the sorter hands it every text before
    any call). The preference enters as a bonus to the first text's noisy value of
    `λ · (x_a − x_b) · β`, where `β = noise_stddev·√6/π` is the logistic scale of the noise:
    with `noise="gumbel"` the judge is then exactly Bradley–Terry with strength
    `value/β + λ·x`; with the other noises, approximately so.
    """

    def __init__(self, preference: float) -> None:
        if not math.isfinite(preference):
            raise InputError(f"length_preference must be a finite number, got {preference!r}")
        self.preference = float(preference)
        self._centre = 0.0
        self._spread = 0.0
        self._learned = False

    def learn(self, texts: Sequence[str]) -> None:
        """Standardise lengths over `texts`: the run's texts."""
        if not self.preference or not texts:
            return
        logs = [math.log(max(len(text), 1)) for text in texts]
        self._centre = statistics.fmean(logs)
        self._spread = statistics.pstdev(logs)
        self._learned = True

    def bonus(self, text_a: str, text_b: str, noise_stddev: float) -> float:
        """What the first text's value gains over the second's, in the mock's score units."""
        if not self.preference or not self._spread:
            return 0.0
        gap = math.log(max(len(text_a), 1)) - math.log(max(len(text_b), 1))
        scale = noise_stddev * math.sqrt(6.0) / math.pi
        return self.preference * gap / self._spread * scale

    def identity(self) -> str:
        """A part of `model_identity`: the knob and the run's length scale, when on."""
        if not self.preference:
            return ""
        return f":length={self.preference}@{self._centre:.6g}/{self._spread:.6g}"

    def check_learned(self) -> None:
        """Refuse to judge before the run's texts are known (they set the length scale)."""
        if self.preference and not self._learned:
            raise InputError("MockLLMProvider's length_preference standardises lengths over "
                             "the run's texts: call check_items(items) first")
