"""The mock judge's noise and its optional flaws, the ones real LLM judges show.

Every draw comes from its own generator keyed on the seed and on what the draw depends on
(the call for the noise and for a refusal, the unordered pair for a pair's bias, the item for
an item's bias), so verdicts never depend on concurrency or completion order, and switching
one flaw on leaves the draws of the others, and the default noise, where they were.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Literal, Protocol

from llm_qualitative_sort.errors import InputError

NoiseName = Literal["gauss", "gumbel", "student_t"]
Flaw = Literal["refusal", "wrong"]

_EULER_GAMMA = 0.5772156649015329
_T_DEGREES = 3.0


def digest(*parts: str | int) -> bytes:
    """A key for the parts; no choice of texts can make two different part lists collide."""
    # Each field is hashed on its own and the digests concatenated: no delimiter to collide on.
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(str(part).encode("utf-8")).digest())
    return h.digest()


def keyed_rng(*parts: str | int) -> random.Random:
    """A generator seeded from the parts, independent of every other key."""
    return random.Random(int.from_bytes(digest(*parts), "big"))


class KeyedDraws:
    """`keyed_rng(seed, ...)` for the many calls of one mock, at a fraction of the cost.

    Each part's digest is computed once (texts recur in call after call), and one generator
    is re-seeded instead of a new one built per call. Re-seeding resets every bit of its
    state, so the draws are exactly `keyed_rng`'s; the generator is shared, so draw from it
    before the next `rng` call (the mock draws everything before its first `await`).

    Example:
        >>> KeyedDraws(7).rng("a", "b", 0).random() == keyed_rng(7, "a", "b", 0).random()
        True
    """

    # Digests kept at most; beyond it they are forgotten (a mock judging unbounded texts).
    KEPT = 1 << 16

    def __init__(self, seed: int) -> None:
        self._seed = _part_digest(seed)
        self._parts: dict[str | int, bytes] = {}
        self._rng = random.Random()

    def rng(self, *parts: str | int) -> random.Random:
        """The generator `keyed_rng(seed, *parts)` would give (shared: draw before reuse)."""
        known = self._parts
        if len(known) > self.KEPT:
            known.clear()
        joined = [self._seed]
        for part in parts:
            found = known.get(part)
            if found is None:
                found = known[part] = _part_digest(part)
            joined.append(found)
        self._rng.seed(int.from_bytes(hashlib.sha256(b"".join(joined)).digest(), "big"))
        return self._rng


def _part_digest(part: str | int) -> bytes:
    return hashlib.sha256(str(part).encode("utf-8")).digest()


class Noise(Protocol):
    """The noise added to each side's value; `stddev` is its standard deviation."""

    def draw(self, rng: random.Random, stddev: float) -> float:
        """One centred draw."""
        ...


class GaussNoise:
    """The default noise: `gauss(0, stddev)`."""

    def draw(self, rng: random.Random, stddev: float) -> float:
        """One draw; exactly the draw the mock has always made."""
        return rng.gauss(0.0, stddev)


class GumbelNoise:
    """Centred Gumbel noise of standard deviation `stddev` (scale `stddev·√6/π`).

    The difference of two independent Gumbels of scale β is logistic of scale β, so the
    side with value `v_a` wins with probability `1 / (1 + exp(-(v_a - v_b) / β))`: an exact
    Bradley–Terry judge with log-strength `v / β`.
    """

    def draw(self, rng: random.Random, stddev: float) -> float:
        """One draw, from a uniform strictly inside (0, 1)."""
        beta = stddev * math.sqrt(6.0) / math.pi
        uniform = (rng.getrandbits(53) + 0.5) / 2.0**53
        return -beta * (math.log(-math.log(uniform)) + _EULER_GAMMA)


class StudentTNoise:
    """Student-t noise with 3 degrees of freedom, scaled to standard deviation `stddev`.

    Same spread as the Gaussian, far heavier tails: now and then a judgement is wildly off.
    """

    def draw(self, rng: random.Random, stddev: float) -> float:
        """One draw: a normal over the root of a chi-square over its degrees of freedom."""
        normal = rng.gauss(0.0, 1.0)
        chi_square = max(rng.gammavariate(_T_DEGREES / 2.0, 2.0), 1e-300)
        # t·sqrt((df-2)/df) has unit variance.
        return stddev * normal * math.sqrt((_T_DEGREES - 2.0) / chi_square)


NOISES: dict[str, Noise] = {
    "gauss": GaussNoise(),
    "gumbel": GumbelNoise(),
    "student_t": StudentTNoise(),
}


@dataclass(frozen=True)
class Flaws:
    """The options beyond the default mock; all off by default.

    Attributes:
        noise: Name of the noise on each side (`NOISES`).
        close_noise: How much the noise grows for close items: its standard deviation is
            `noise_stddev · (1 + close_noise · exp(-|v_a - v_b| / noise_stddev))`.
        pair_bias: (mean, sd) of the fixed bonus, in score units, that each unordered pair
            gives its first-shown text; drawn once per pair.
        item_bias: sd of the fixed bonus each text gets whenever it is shown first.
        wrong_rate: Share of calls where the truly worse text wins, confidently.
        refusal_rate: (low, high) share of calls with no verdict; each unordered pair
            refuses at its own fixed rate drawn uniformly in the range.
    """

    noise: str = "gauss"
    close_noise: float = 0.0
    pair_bias: tuple[float, float] = (0.0, 0.0)
    item_bias: float = 0.0
    wrong_rate: float = 0.0
    refusal_rate: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        if self.noise not in NOISES:
            raise InputError(f"noise must be one of {sorted(NOISES)}, got {self.noise!r}")
        _check_at_least_zero("close_noise", self.close_noise)
        if not math.isfinite(self.pair_bias[0]):
            raise InputError(f"pair_bias mean must be finite, got {self.pair_bias[0]!r}")
        _check_at_least_zero("pair_bias sd", self.pair_bias[1])
        _check_at_least_zero("item_bias", self.item_bias)
        check_share("wrong_rate", self.wrong_rate)
        low, high = self.refusal_rate
        check_share("refusal_rate", low)
        check_share("refusal_rate", high)
        if high < low:
            raise InputError(f"refusal_rate must be a share or a (low, high) range: {low, high}")

    def noise_model(self) -> Noise:
        """The noise drawn on each side."""
        return NOISES[self.noise]

    def identity(self) -> str:
        """The options that differ from the default, for the mock's `model_identity`."""
        default = Flaws()
        parts = [
            f":{name}={value}"
            for name, value in vars(self).items()
            if value != getattr(default, name)
        ]
        return "".join(parts)

    def noise_stddev(self, gap: float, stddev: float) -> float:
        """The noise's standard deviation for two values `gap` apart."""
        if self.close_noise == 0.0 or stddev == 0.0:
            return stddev
        return stddev * (1.0 + self.close_noise * math.exp(-gap / stddev))

    def first_bonus(self, seed: int, first: str, second: str) -> float:
        """The fixed bonus the first-shown text gets in this pair (0 when off)."""
        mean, pair_sd = self.pair_bias
        bonus = mean
        if pair_sd:
            low, high = sorted((first, second))
            bonus += keyed_rng(seed, low, high, "pair-bias").gauss(0.0, pair_sd)
        if self.item_bias:
            bonus += keyed_rng(seed, first, "item-bias").gauss(0.0, self.item_bias)
        return bonus

    def call_flaw(self, seed: int, first: str, second: str, repetition: int) -> Flaw | None:
        """Whether this call refuses, gives a confident wrong verdict, or neither."""
        if not (self.wrong_rate or self.refusal_rate[1]):
            return None
        # Both shares are drawn on every call, so changing one rate leaves the other's
        # calls where they were.
        rng = keyed_rng(seed, first, second, repetition, "flaw")
        refuse, wrong = rng.random(), rng.random()
        if refuse < self._refusal_share(seed, first, second):
            return "refusal"
        return "wrong" if wrong < self.wrong_rate else None

    def _refusal_share(self, seed: int, first: str, second: str) -> float:
        low, high = self.refusal_rate
        if low == high:
            return low
        # Real refusals depend on the content, so a pair keeps its rate in both orders.
        pair_low, pair_high = sorted((first, second))
        return keyed_rng(seed, pair_low, pair_high, "refusal-rate").uniform(low, high)


def check_share(name: str, value: float) -> None:
    """Raise unless `value` is a share in [0, 1]."""
    if not 0.0 <= value <= 1.0:
        raise InputError(f"{name} must lie in [0, 1], got {value!r}")


def _check_at_least_zero(name: str, value: float) -> None:
    if not (math.isfinite(value) and value >= 0.0):
        raise InputError(f"{name} must be >= 0, got {value!r}")
