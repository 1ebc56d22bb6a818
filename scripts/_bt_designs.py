"""Comparison data for the Bradley–Terry scripts: real tournaments played by known judges.

`GumbelJudge` is a judge whose truth is exactly Bradley–Terry with a position term: each
side gets its value plus standard Gumbel noise, the first-shown side also gets `h`, and the
larger wins — the difference of two Gumbels is logistic, so the first-shown wins with
probability exactly σ(v_first − v_second + h). Tournaments are played by the library's own
`QualitativeSorter` (elimination, AB/BA in every match), so the designs are the ones the
model meets in use.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
from collections.abc import Sequence

import numpy as np

from llm_qualitative_sort import ComparisonResult, LLMProvider, QualitativeSorter
from llm_qualitative_sort.bradley_terry import shown_calls

Calls = tuple[np.ndarray, np.ndarray, np.ndarray]

# The default mock: each side int(text) + gauss(0, 3.33). The difference of two
# such sides is normal with sd 3.33·√2; the logistic that best matches a standard normal
# has scale 1/1.702, so value v maps to about 1.702·v / (3.33·√2) logits.
MOCK_LOGITS_PER_UNIT = 1.702 / (3.33 * math.sqrt(2))


class GumbelJudge(LLMProvider):
    """First-shown wins with probability σ(v_first − v_second + h): exact Bradley–Terry."""

    def __init__(self, values: dict[str, float], h: float, seed: int) -> None:
        super().__init__(model="gumbel")
        self.values, self.h, self.seed = values, h, seed

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        return await self.compare_call(item_a, item_b, criteria, repetition=0)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        key = f"{self.seed}|{item_a}|{item_b}|{repetition}".encode()
        rng = random.Random(hashlib.sha256(key).digest())
        first = self.values[item_a] + self.h + _gumbel(rng)
        second = self.values[item_b] + _gumbel(rng)
        return ComparisonResult(winner="A" if first > second else "B", reasoning="")


def _gumbel(rng: random.Random) -> float:
    return -math.log(-math.log(1.0 - rng.random()))


def tournament_calls(judge: LLMProvider, items: Sequence[str], losses: int, seed: int) -> Calls:
    """The calls, in presentation order and in the order played, of one elimination run."""
    sorter = QualitativeSorter(
        judge, criteria="larger", elimination_count=losses, seed=seed, checkpointer=None
    )
    result = asyncio.run(sorter.sort(list(items)))
    return shown_calls(items, result.match_history)


def spaced_truth(n: int, spread: float) -> np.ndarray:
    """Log-strengths 0, d, 2d, … with d = spread / (n − 1): item i has rank n − i."""
    return np.linspace(0.0, spread, n)


def random_design(n: int, opponents: int, truth: np.ndarray, h: float, seed: int) -> Calls:
    """Each item meets about `opponents` random others, one call per pair, random order."""
    rng = np.random.default_rng(seed)
    pairs = n * opponents // 2
    first = rng.integers(0, n, pairs)
    second = (first + rng.integers(1, n, pairs)) % n  # never the first itself
    p = 1 / (1 + np.exp(-(truth[first] - truth[second] + h)))
    return first, second, (rng.random(pairs) < p).astype(float)
