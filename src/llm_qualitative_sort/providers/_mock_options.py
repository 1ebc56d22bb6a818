"""The mock's options in their normal form, and the preset of `MockLLMProvider.realistic`.

A latency is a number of seconds or a (min, max) range drawn per call; a share (the
refusal rate) is one share or a (low, high) range from which each unordered pair draws its
own. `realistic_flaws` holds the flaws `realistic()` switches on, in units of the noise's sd.
"""

from __future__ import annotations

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
