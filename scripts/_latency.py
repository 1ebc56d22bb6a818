"""The benchmarks' latency models, with no import of any sort library.

Shared by `bench_schedules.py` and the peer's child process (`_peer_child.py`), which runs in
another virtualenv where `llm_qualitative_sort` is the other package of that name.
"""

from __future__ import annotations

import math
import random
import zlib

SIGMA = 0.99  # lognormal: p99 = median × e^(2.326 σ) ≈ 10 × median


def delay(model: str, median: float, item_a: str, item_b: str, repetition: int) -> float:
    """A call's latency, drawn from the call itself (the same in every variant)."""
    if model == "fixed":
        return median
    draw = random.Random(zlib.crc32(f"{item_a}\x00{item_b}\x00{repetition}".encode()))
    if model == "lognormal":
        return median * math.exp(SIGMA * draw.gauss(0.0, 1.0))
    return 2.0 if draw.random() < 1 / 500 else median  # "slow": one call in 500 in backoff


def mean(model: str, median: float) -> float:
    """The latency model's mean, for the ideal time."""
    if model == "lognormal":
        return median * math.exp(SIGMA**2 / 2)
    if model == "slow":
        return median * (1 - 1 / 500) + 2.0 / 500
    return median
