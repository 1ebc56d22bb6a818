"""A seeded, deterministic stand-in for an LLM judge, for tests, demos and studies.

How the mock answers one comparison: both texts' hidden values plus their noise (from the
call's keyed generator, drawn before the call waits), the position bias, the pair's and the
item's fixed first-shown bonus, a tie when the run allows ties and the noisy scores are
closer than the tie margin, then a refused or a confidently wrong verdict when the call
draws one (see "Noise and flaws" below), and with `logprobs` set, the probability the judge
states ("Stated probabilities"). Its pointwise answers follow the model under "Pointwise
answers", its ranking answers (the order of 3 to 8 texts) the model under "Ranking calls".
`MockLLMProvider` comes first; the parts it draws on follow, each opened by a comment that
says how it models a real judge.
"""

from __future__ import annotations

import asyncio
import math
import random
import secrets
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from llm_qualitative_sort.errors import InputError, TransientProviderError
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.logprobs import first_wins
from llm_qualitative_sort.providers.questions import RANK_LABELS
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale, label_distribution
from llm_qualitative_sort.testing._draws import KeyedDraws, keyed_rng
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult, Side, Verdict

# The constructor's vocabulary: its options' types, and the pointwise perception's default.
Latency = float | tuple[float, float]
Share = float | tuple[float, float]
NoiseName = Literal["gauss", "gumbel", "student_t"]
LogprobMode = Literal["calibrated", "overconfident"]
PointwiseMode = Literal["calibrated", "overconfident", "lenient"]
# The sd of the perception, as a share of the scale, unless the mock is given another.
DEFAULT_NOISE = 0.15

REFUSAL = "I can't help with comparing these texts, so I decline to pick one."


def default_score(text: str) -> float:
    """The mock's hidden value of a text when no `score` is given.

    A text that reads as an integer (`int(text)`) is worth its value, as in the
    benchmarks on the items "0".."999"; any other text (or an integer too large for a
    float) is worth its length in characters, so the mock judges any text and, noise
    aside, prefers the longer.

    Example:
        >>> default_score("42"), default_score("吾輩は猫である")
        (42.0, 7.0)
    """
    try:
        return float(int(text))
    except (ValueError, OverflowError):
        return float(len(text))


class MockLLMProvider(LLMProvider):
    """A judge whose verdicts follow a hidden score plus noise.

    Each side of a call gets `score(text) + gauss(0, noise_stddev)` and the larger wins.
    Without `score`, `default_score` applies: an integer text is worth its value (the
    plain mock of the benchmarks, on items "0".."999"), any other text its length. Every call draws
    its noise from its own generator, keyed on the seed, both texts, the presentation order
    and the repetition index; the same seeds therefore give the same verdicts whatever the
    concurrency, latency or completion order.

    The options after `score` make it behave like a real LLM judge; all are off by default,
    leaving the plain mock exactly as it was, and each is drawn from its own keyed
    generator, so every verdict stays deterministic in (seed, texts, order, repetition):

    - `noise="gumbel"`: centred Gumbel noise of sd `noise_stddev` on each side; their
      difference is logistic with scale `β = noise_stddev·√6/π`, so the judge is *exactly*
      Bradley–Terry (A wins with probability `1 / (1 + exp(-(v_a - v_b) / β))`), which
      makes coverage checks of the rating model possible. `noise="student_t"`: Student-t
      noise (3 degrees of freedom) of the same sd, with heavy tails.
    - `close_noise`: noise that grows for close items: its sd is
      `noise_stddev · (1 + close_noise · exp(-|v_a - v_b| / noise_stddev))`.
    - `pair_bias=(mean, sd)`: each unordered pair gives its first-shown text a fixed bonus
      (score units) drawn once from the seed and the pair, so a second call on the pair in
      the other order repeats that pair's error. `item_bias=sd`: each text gets a fixed
      bonus of its own whenever it is shown first. (`position_bias` instead hands a share
      of calls to the first text, drawn afresh per call.)
    - `wrong_rate`: share of calls where the truly worse text wins with a confident
      reasoning (texts of equal score keep the noisy verdict).
    - `refusal_rate`: share of calls with no verdict (`winner=None`, a reasoning saying it
      declined); a `(low, high)` range gives each unordered pair its own fixed rate.

    Precedence within a call: refusal, then wrong verdict, then `position_bias`, then the
    noisy scores. `realistic()` builds a preset with these flaws.

    Args:
        seed: Seed of the noise; `None` draws one.
        noise_stddev: Standard deviation of the noise on each side.
        latency: Seconds each call waits, or a `(min, max)` range drawn per call
            (deterministically, like the noise).
        position_bias: Share of calls that the first-shown text wins regardless of score.
        failure_rate: Share of attempts that raise `TransientProviderError`. Failures are
            drawn per attempt, so a retry can succeed; verdicts never depend on attempts.
        score: Maps a text to its true value (a finite number); `default_score` if None.
        noise: "gauss" (default), "gumbel" or "student_t".
        close_noise: Extra relative noise for close items (0 = none).
        pair_bias: (mean, sd) of each pair's fixed first-position bonus.
        item_bias: sd of each text's fixed bonus when shown first.
        wrong_rate: Share of confident wrong verdicts.
        refusal_rate: Share of refused calls, or a (low, high) range of per-pair shares.
        tie_margin: In a run that allows ties, a call whose two noisy scores differ by
            less than this answers "tie" (0: never). Runs without ties ignore it.
        logprobs: None (default: no probabilities, the plain mock), "calibrated" or
            "overconfident": each verdict also states P(first wins), drawn from the same
            latent scores (see `judged_probability`); the verdicts are unchanged.
        sharpness: How far "overconfident" pushes the probabilities: σ(k·logit p) for
            verdicts, p_k^k renormalised for pointwise labels.
        pointwise: How `score_call` (pointwise runs) states its labels: None (default: the
            label alone), "calibrated", "overconfident" or "lenient" (label log-probabilities
            too; see `mock_score`). Pairwise verdicts are unchanged by it.
        pointwise_noise: sd of the pointwise judge's perception, as a share of the scale.
        pointwise_span: The hidden values at the bottom and top of the scale; None (default)
            takes the lowest and highest among the texts given to `check_items`.
        length_preference: How much the judge favours longer texts, in logits per standard
            deviation of log length (standardised over the texts given to `check_items`,
            which the sorter calls with the run's texts before any call): the first text's
            noisy value gains `length_preference · (x_a − x_b) · noise_stddev·√6/π`. Exact
            in logits with `noise="gumbel"`, close with the others; 0 (default) leaves
            every verdict as it was. Comparisons only: pointwise scores and ranking calls
            do not move.
        slot_bias: A ranking call's bonus per slot shown, in value units, for the first
            slots (`(b,)` gives the first-shown text +b; slots beyond the tuple get none).
            Pairwise verdicts are unchanged by it (`position_bias` is theirs).
        list_penalty: How much worse a ranking call of k texts judges: the noise on each
            text is `noise_stddev · (1 + list_penalty · (k − 2))` (0: each implied pair of
            an order is as noisy as a pairwise call on it).

    Example:
        >>> import asyncio
        >>> judge = MockLLMProvider(seed=1, noise_stddev=0.0)
        >>> asyncio.run(judge.compare("3", "7", "larger")).winner
        'B'
        >>> asyncio.run(judge.compare("a short text", "short", "longer")).winner
        'A'
    """

    # Its calls only sleep and draw: a cancel ends them at once (the engine then awaits them
    # without a shielding task; a subclass says so again, see `LLMProvider`).
    cancels_promptly = True

    def __init__(
        self,
        seed: int | None = None,
        noise_stddev: float = 3.33,
        *,
        latency: Latency = 0.0,
        position_bias: float = 0.0,
        failure_rate: float = 0.0,
        score: Callable[[str], float] | None = None,
        noise: NoiseName = "gauss",
        close_noise: float = 0.0,
        pair_bias: tuple[float, float] = (0.0, 0.0),
        item_bias: float = 0.0,
        wrong_rate: float = 0.0,
        refusal_rate: Share = 0.0,
        tie_margin: float = 0.0,
        logprobs: LogprobMode | None = None,
        sharpness: float = 3.0,
        pointwise: PointwiseMode | None = None,
        pointwise_noise: float = DEFAULT_NOISE,
        pointwise_span: tuple[float, float] | None = None,
        length_preference: float = 0.0,
        slot_bias: Sequence[float] = (),
        list_penalty: float = 0.0,
    ) -> None:
        super().__init__(model="mock")
        self.slot_bias, self.list_penalty = _checked_ranking(slot_bias, list_penalty)
        self._noise_name = noise
        check_share("position_bias", position_bias)
        check_share("failure_rate", failure_rate)
        if not noise_stddev >= 0:
            raise InputError(f"noise_stddev must be >= 0, got {noise_stddev!r}")
        self.seed = secrets.randbits(63) if seed is None else seed
        self.noise_stddev = noise_stddev
        if not tie_margin >= 0:
            raise InputError(f"tie_margin must be >= 0, got {tie_margin!r}")
        self.tie_margin = tie_margin
        check_mode(logprobs, sharpness)
        self.logprobs, self.sharpness = logprobs, float(sharpness)
        check_pointwise(pointwise, pointwise_noise, pointwise_span)
        self.pointwise, self.pointwise_noise = pointwise, float(pointwise_noise)
        self._span = pointwise_span
        self._span_given = pointwise_span is not None
        self.latency = _check_latency(latency)
        self.position_bias = position_bias
        self.failure_rate = failure_rate
        self._score = score
        mean, spread = pair_bias
        self._flaws = Flaws(
            noise, close_noise, (mean, spread), item_bias, wrong_rate, _share_range(refusal_rate)
        )
        self._noise = self._flaws.noise_model()
        self._attempts: dict[tuple[str, str, int], int] = {}
        self._draws = KeyedDraws(self.seed)
        self._values: dict[str, float] = {}
        self._length = LengthLean(length_preference)
        self.calls = 0

    @classmethod
    def realistic(
        cls, seed: int | None = None, noise_stddev: float = 3.33, **options: Any
    ) -> MockLLMProvider:
        """A judge with the flaws of real LLM judges.

        Position bias fixed per pair (mean bonus 0.3 sd, spread 1 sd) and per item (0.5
        sd), Student-t noise that doubles for close items (`close_noise=1`), 3 % confident
        wrong verdicts and 4–10 % refusals (a fixed rate per pair); sd is `noise_stddev`.
        Any keyword of the constructor overrides the preset.

        Example:
            >>> judge = MockLLMProvider.realistic(seed=1, wrong_rate=0.05)
            >>> "noise=student_t" in judge.model_identity, "wrong_rate=0.05" in judge.model_identity
            (True, True)
        """
        return cls(seed, noise_stddev, **(realistic_flaws(noise_stddev) | options))

    @property
    def model_identity(self) -> str:
        """Two mocks share answers only when every setting that shapes a verdict matches."""
        return (
            f"MockLLMProvider:seed={self.seed}:sd={self.noise_stddev}"
            f":bias={self.position_bias}:score={self._score is not None}"
            f"{self._flaws.identity()}{self._length.identity()}"
            + (f":logprobs={self.logprobs}:k={self.sharpness}" if self.logprobs else "")
            + pointwise_identity(self.pointwise, self.sharpness, self.pointwise_noise,
                                 self._span if self._span_given else None)
            + (f":slot_bias={list(self.slot_bias)}" if any(self.slot_bias) else "")
            + (f":list_penalty={self.list_penalty}" if self.list_penalty else "")
        )

    def tie_identity(self) -> str:
        """Calls that offer a tie: their answers depend on the tie margin too."""
        return f"{self.model_identity}:tie_margin={self.tie_margin}+ties"

    def check_items(self, items: Sequence[str]) -> None:
        """Refuse texts the score cannot value (it raises, or gives a non-finite number).

        Raises:
            ValueError: Naming the first such text.
        """
        for text in items:
            try:
                value = self.value(text)
            except Exception as exc:
                raise InputError(
                    f"MockLLMProvider cannot score {text[:40]!r}: the score raised {exc!r}"
                ) from exc
            if not math.isfinite(value):
                raise InputError(
                    f"MockLLMProvider scores {text[:40]!r} as {value}; a score must be finite"
                )
        self._length.learn(items)
        if not self._span_given and items:
            values = [self._value(text) for text in items]
            self._span = (min(values), max(values))

    async def score_call(self, text: str, criteria: str, *, scale: Scale, inverse: bool = False,
                         repetition: int = 0) -> PointwiseResult:
        """Score one text alone; deterministic in (seed, text, repetition, scale, inverse).

        The label follows the text's hidden value, placed on the scale by the span (see
        `mock_score`); with `pointwise` set, the label log-probabilities come too.
        """
        del criteria
        if self._span is None:
            raise InputError("MockLLMProvider places texts on the scale by the range of the "
                             "run's hidden values: call check_items(items) first, or give "
                             "pointwise_span=(low, high)")
        low, high = self._span
        position = 0.5 if high == low else (self._value(text) - low) / (high - low)
        delay = self._delay(self._draws.rng(text, "pointwise-latency", repetition))
        answer = mock_score(self.pointwise, (self.seed, text, repetition), position, scale,
                            inverse, self.pointwise_noise, self.sharpness)
        self.calls += 1
        if delay > 0:
            await asyncio.sleep(delay)
        self._maybe_fail(text, "", repetition)
        return answer

    async def rank_call(self, texts: Sequence[str], criteria: str, *, repetition: int,
                        ties: bool = False) -> RankingResult:
        """Order texts shown together; deterministic in (seed, texts as shown, repetition).

        Each text's hidden value plus one noise draw of the pairwise noise (widened by
        `list_penalty`) plus its slot's `slot_bias`, ordered best first (see
        `mock_order`); with `ties`, values closer than `tie_margin` share a place.
        """
        del criteria
        rng = self._draws.rng(*ranking_key(texts, repetition))
        values = [self._value(text) for text in texts]
        bias = [*self.slot_bias[: len(texts)], *[0.0] * max(len(texts) - len(self.slot_bias), 0)]
        order = mock_order(values, rng=rng, stddev=self.noise_stddev, noise=self._noise_name,
                           position_bias=bias, list_penalty=self.list_penalty,
                           tie_margin=self.tie_margin if ties else None)
        delay = self._delay(rng)
        self.calls += 1
        if delay > 0:
            await asyncio.sleep(delay)
        self._maybe_fail("\x1f".join(texts), "rank", repetition)
        labelled = tuple(tuple(RANK_LABELS[slot] for slot in place) for place in order)
        reasoning = "Best first: " + ", ".join("=".join(place) for place in labelled) + "."
        return RankingResult(labelled, reasoning, {"order": [list(p) for p in labelled]})

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """Compare as the first repetition of this presentation order."""
        return await self.compare_call(item_a, item_b, criteria, repetition=0)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int, ties: bool = False
    ) -> ComparisonResult:
        """Judge one call; deterministic in (seed, texts, order, repetition).

        With `ties` (a run that allows ties), scores closer than `tie_margin` tie; the
        draws are the same as without, so ties only replace the closest verdicts.
        """
        self._length.check_learned()
        rng = self._draws.rng(item_a, item_b, repetition)
        value_a, value_b = self._value(item_a), self._value(item_b)
        stddev = self._flaws.noise_stddev(abs(value_a - value_b), self.noise_stddev)
        noisy_a = value_a + self._noise.draw(rng, stddev)
        noisy_b = value_b + self._noise.draw(rng, stddev)
        biased = rng.random() < self.position_bias
        delay = self._delay(rng)
        self.calls += 1
        if delay > 0:
            await asyncio.sleep(delay)
        self._maybe_fail(item_a, item_b, repetition)
        raw: dict[str, Any] = {"a": round(noisy_a, 4), "b": round(noisy_b, 4), "biased": biased}
        bonus = self._flaws.first_bonus(self.seed, item_a, item_b)
        if bonus:
            noisy_a += bonus
            raw |= {"a": round(noisy_a, 4), "first_bonus": round(bonus, 4)}
        lean = self._length.bonus(item_a, item_b, self.noise_stddev)
        if lean:
            noisy_a += lean
            raw |= {"a": round(noisy_a, 4), "length_bonus": round(lean, 4)}
        winner: Verdict = "A" if biased or noisy_a >= noisy_b else "B"
        if ties and not biased and abs(noisy_a - noisy_b) < self.tie_margin:
            winner = "tie"
        reasoning = f"A scored {noisy_a:.2f}, B scored {noisy_b:.2f}."
        verdict = ComparisonResult(winner=winner, reasoning=reasoning, raw_response=raw)
        flaw = self._flaws.call_flaw(self.seed, item_a, item_b, repetition)
        verdict = verdict if flaw is None else _flawed(verdict, flaw, value_a, value_b)
        if self.logprobs is None:
            return verdict
        stated = judged_probability(self.logprobs, (self.seed, item_a, item_b, repetition),
                                    value_a - value_b + lean, noisy_a - noisy_b, stddev,
                                    self.sharpness)
        return with_probability(verdict, stated)

    def value(self, text: str) -> float:
        """The hidden true value of a text."""
        if self._score is None:
            return default_score(text)
        return float(self._score(text))

    def _value(self, text: str) -> float:
        # The default score is a pure function of the text: worth keeping per text. A
        # user's `score` may not be, so it is asked every time.
        if self._score is not None:
            return float(self._score(text))
        found = self._values.get(text)
        if found is None:
            if len(self._values) > KeyedDraws.KEPT:
                self._values.clear()
            found = self._values[text] = default_score(text)
        return found

    def _delay(self, rng: random.Random) -> float:
        low, high = self.latency
        return low if low == high else rng.uniform(low, high)

    def _maybe_fail(self, item_a: str, item_b: str, repetition: int) -> None:
        if self.failure_rate == 0:
            return
        key = (item_a, item_b, repetition)
        attempt = self._attempts.get(key, 0)
        self._attempts[key] = attempt + 1
        if keyed_rng(self.seed, item_a, item_b, repetition, "attempt", attempt).random() < (
            self.failure_rate
        ):
            raise TransientProviderError("mock transient failure", retry_after=None)


def _checked_ranking(slot_bias: Sequence[float], list_penalty: float
                     ) -> tuple[tuple[float, ...], float]:
    """The ranking knobs as stored, or `InputError` naming the bad one."""
    if isinstance(slot_bias, str) or not isinstance(slot_bias, Sequence):
        raise InputError(f"slot_bias must be a sequence of numbers, got {slot_bias!r}")
    if len(slot_bias) > len(RANK_LABELS):
        raise InputError(f"slot_bias gives at most {len(RANK_LABELS)} slots a bonus, got "
                         f"{len(slot_bias)}: {list(slot_bias)!r}")
    for bonus in slot_bias:
        if isinstance(bonus, bool) or not isinstance(bonus, int | float) or not math.isfinite(
                bonus):
            raise InputError(f"slot_bias must hold finite numbers, got {bonus!r}")
    if isinstance(list_penalty, bool) or not isinstance(list_penalty, int | float) or not (
            math.isfinite(list_penalty) and list_penalty >= 0):
        raise InputError(f"list_penalty must be a number >= 0, got {list_penalty!r}")
    return tuple(float(b) for b in slot_bias), float(list_penalty)


def _flawed(
    verdict: ComparisonResult, flaw: Flaw, value_a: float, value_b: float
) -> ComparisonResult:
    """The verdict a flawed call gives instead of the noisy one."""
    raw = verdict.raw_response
    if flaw == "refusal":
        return ComparisonResult(None, REFUSAL, raw_response=raw | {"refused": True})
    if value_a == value_b:  # no worse text to prefer
        return verdict
    worse: Side = "A" if value_a < value_b else "B"
    reasoning = f"{worse} is clearly and unmistakably the better text; there is no doubt."
    return ComparisonResult(winner=worse, reasoning=reasoning, raw_response=raw | {"wrong": True})


# --- Options and presets ----------------------------------------------------------------
# The mock's options in their normal form, and the preset of `MockLLMProvider.realistic`.
#
# A latency is a number of seconds or a (min, max) range drawn per call; a share (the
# refusal rate) is one share or a (low, high) range from which each unordered pair draws its
# own. `realistic_flaws` holds the flaws `realistic()` switches on, in units of the noise's sd;
# `LengthLean` is the judge's preference for longer texts.

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


def _share_range(share: Share) -> tuple[float, float]:
    low, high = share if isinstance(share, tuple) else (share, share)
    return float(low), float(high)


def _check_latency(latency: Latency) -> tuple[float, float]:
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


# --- Noise and flaws --------------------------------------------------------------------
# The mock judge's noise and its optional flaws, the ones real LLM judges show.
#
# Every draw comes from its own generator keyed on the seed and on what the draw depends on
# (the call for the noise and for a refusal, the unordered pair for a pair's bias, the item for
# an item's bias), so verdicts never depend on concurrency or completion order, and switching
# one flaw on leaves the draws of the others, and the default noise, where they were.

Flaw = Literal["refusal", "wrong"]

_EULER_GAMMA = 0.5772156649015329
_T_DEGREES = 3.0


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


# --- Stated probabilities ---------------------------------------------------------------
# The mock's log-probabilities: a soft verdict drawn from the same latent strengths.
#
# The plain mock answers A when `D = noisy_a - noisy_b >= 0`, where `D = d + η`, `d` the true
# difference and `η` the noise of the call. With log-probabilities on, `η` is split into a
# perception error ε₁ and a decision error ε₂ of equal variance s² (s the per-side sd, so
# `Var η = 2s²`), and ε₁ is drawn given the η the call already drew: ε₁ | η ~ N(η/2, s²/2).
# The judge "sees" z = d + ε₁ and reports P(A wins | z) = Φ(z / s), which is exactly how
# often A wins given what it saw (for Gaussian noise; the other noises are approximated):
# the *calibrated* mode. The *overconfident* mode pushes that probability towards 0 and 1,
# as real models do: p' = σ(k · logit p), k = `sharpness` (3 by default).
#
# The draw has its own keyed generator, so the verdicts are those of the mock without
# log-probabilities: only `probability` and `raw_response["verdict_logprobs"]` are added.

LOGPROB_MODES: tuple[LogprobMode, ...] = ("calibrated", "overconfident")
# A confidently wrong verdict (the mock's `wrong_rate`) states this much for the worse text.
WRONG_CONFIDENCE = 0.95


def check_mode(mode: str | None, sharpness: float) -> None:
    """Refuse an unknown mode or a sharpness that is not a positive number."""
    if mode is not None and mode not in LOGPROB_MODES:
        raise InputError(f'logprobs must be None, "calibrated" or "overconfident", got {mode!r}')
    if not (isinstance(sharpness, int | float) and math.isfinite(sharpness) and sharpness > 0):
        raise InputError(f"sharpness must be a positive number, got {sharpness!r}")


def judged_probability(
    mode: LogprobMode, key: tuple[int, str, str, int], true_difference: float,
    noisy_difference: float, stddev: float, sharpness: float,
) -> float:
    """P(first-shown wins) as the mock judge states it for one call.

    `key` is (seed, first text, second text, repetition): the perception draw is keyed on
    it, like every other draw of the mock.
    """
    if stddev <= 0:
        p = 1.0 if true_difference > 0 else 0.0 if true_difference < 0 else 0.5
    else:
        rng = keyed_rng(*key, "logprob")
        error = noisy_difference - true_difference
        perceived = true_difference + error / 2 + rng.gauss(0.0, stddev / math.sqrt(2.0))
        p = 0.5 * math.erfc(-perceived / (stddev * math.sqrt(2.0)))
    if mode == "overconfident":
        p = sharpened(p, sharpness)
    return p


def sharpened(p: float, sharpness: float) -> float:
    """σ(k · logit p): a probability pushed towards 0 and 1 (k > 1).

    Example:
        >>> round(sharpened(0.75, 3.0), 4), sharpened(0.5, 3.0), sharpened(1.0, 3.0)
        (0.9643, 0.5, 1.0)
    """
    if p <= 0.0 or p >= 1.0:
        return p
    x = sharpness * (math.log(p) - math.log1p(-p))
    if x >= 0:  # the logistic without overflow on either side
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x) / (1.0 + math.exp(x))


def with_probability(result: ComparisonResult, first_shown: float) -> ComparisonResult:
    """`result` carrying the stated probability (unchanged for a call without a verdict).

    The probability is written as the label log-probabilities a server would send, and the
    soft verdict is read from them as from a server's.
    """
    if result.winner is None:
        return result
    if result.raw_response.get("wrong"):  # confidently wrong: it states the worse text wins
        first_shown = WRONG_CONFIDENCE if result.winner == "A" else 1 - WRONG_CONFIDENCE
    logprobs = {"A": _log(first_shown), "B": _log(1.0 - first_shown)}
    raw = dict(result.raw_response, verdict_logprobs={k: round(v, 6) for k, v in
                                                      logprobs.items()})
    return replace(result, raw_response=raw, probability=first_wins(logprobs))


def _log(p: float) -> float:
    return math.log(p) if p > 0 else -1e9


# --- Pointwise answers ------------------------------------------------------------------
# The mock's pointwise answers: labels and label log-probabilities from its hidden values.
#
# The mock places a text on the scale by its hidden value (the same value its pairwise
# verdicts compare): its position u = (value − low) / (high − low) on 0–1, where low and high
# are the lowest and highest values among the run's texts (learned from `check_items`) or
# the span given. The judge perceives z = u + ε, ε ~ N(0, s²) with s = `pointwise_noise`
# (a share of the scale's width), drawn from its own keyed generator. The scale's labels cut
# 0–1 into equal bins; the judge's belief about u is N(z, s²), so it gives label k the
# probability that the belief falls in k's bin — the *calibrated* mode — and answers a label
# drawn from those probabilities. Modes:
#
# - "calibrated": states those probabilities (as label log-probabilities);
# - "overconfident": states them sharpened, p_k^k' renormalised (k' = `sharpness`), as
#   real models are sure of labels they often miss; the label drawn is the same;
# - "lenient": the direct question's bins are warped towards the bottom (the bin edges are
#   1 − (1 − j/m)^(1/3) instead of j/m), so most texts get the top labels — the ceiling
#   pointwise rerankers report. The inverse question is answered without that warp: an
#   assumption of the mock (the reranker's finding that asking how far a text is from the
#   criterion suffers less from leniency), not something the mock can show by itself.
#
# The judge states its probabilities to three decimals (`PRECISION`): a label it gives
# less than 0.05 % is not stated, so a judge sure of a label states that label alone and the
# expected label saturates there, as saturated log-probabilities do. That is what makes the
# lenient judge lose the order of the many texts it is sure belong at the top.
#
# The inverse question asks for the distance 1 − u: the same bins, read from the other end.
# Without a mode (None, the default) the mock answers the calibrated label alone, without
# probabilities, as a server that returns no log-probabilities would.

POINTWISE_MODES: tuple[PointwiseMode, ...] = ("calibrated", "overconfident", "lenient")
# The warp of the lenient mode's bin edges: edge_j = 1 − (1 − j/m)^(1/LENIENCY).
LENIENCY = 3.0
# Decimals of the stated probabilities (see above).
PRECISION = 3


def pointwise_identity(mode: str | None, sharpness: float, noise: float,
                       span: tuple[float, float] | None) -> str:
    """The mock identity's part for pointwise answers ("" with every default).

    Only what changes a pointwise answer, and only when it differs from the default, so the
    identity (and the cache) of every mock made before stays the same.
    """
    parts = []
    if mode is not None:
        parts.append(f":pointwise={mode}:k={sharpness}")
    if noise != DEFAULT_NOISE:
        parts.append(f":pointwise_noise={noise}")
    if span is not None:
        parts.append(f":span={span}")
    return "".join(parts)


def check_pointwise(mode: str | None, noise: float, span: tuple[float, float] | None) -> None:
    """Refuse an unknown mode, a noise that is not a positive number, or an empty span."""
    if mode is not None and mode not in POINTWISE_MODES:
        raise InputError(f'pointwise must be None, "calibrated", "overconfident" or "lenient", '
                         f"got {mode!r}")
    if not (isinstance(noise, int | float) and math.isfinite(noise) and noise > 0):
        raise InputError(f"pointwise_noise must be a positive number, got {noise!r}")
    if span is not None and not (len(span) == 2 and span[0] < span[1]):
        raise InputError(f"pointwise_span must be (low, high) with low < high, got {span!r}")


def bin_edges(count: int, lenient: bool) -> list[float]:
    """The inner edges of `count` label bins on 0–1 (lenient: warped towards 0).

    Example:
        >>> bin_edges(4, lenient=False)
        [0.25, 0.5, 0.75]
        >>> [round(e, 3) for e in bin_edges(4, lenient=True)]
        [0.091, 0.206, 0.37]
    """
    edges = [j / count for j in range(1, count)]
    if lenient:
        edges = [1.0 - (1.0 - e) ** (1.0 / LENIENCY) for e in edges]
    return edges


def belief(perceived: float, noise: float, edges: list[float]) -> list[float]:
    """P(each bin) when the position is believed N(perceived, noise²)."""
    cuts = [-math.inf, *edges, math.inf]
    return [max(_cdf((cuts[j + 1] - perceived) / noise) - _cdf((cuts[j] - perceived) / noise),
                0.0) for j in range(len(cuts) - 1)]


def mock_score(mode: PointwiseMode | None, key: tuple[int, str, int], position: float,
               scale: Scale, inverse: bool, noise: float, sharpness: float) -> PointwiseResult:
    """One pointwise answer of the mock for a text at `position` (0–1) on the scale.

    `key` is (seed, text, repetition): the call's draws are keyed on it.
    """
    rng = keyed_rng(*key, "pointwise")
    perceived = position + rng.gauss(0.0, noise)
    distance = 1.0 - perceived if inverse else perceived
    bins = belief(distance, noise, bin_edges(len(scale.labels), mode == "lenient" and
                                             not inverse))
    total = sum(bins)
    bins = [p / total for p in bins] if total > 0 else [1.0 / len(bins)] * len(bins)
    pick, draw = len(bins) - 1, rng.random()
    for index, p in enumerate(bins):
        draw -= p
        if draw < 0:
            pick = index
            break
    label = scale.labels[pick]
    raw: dict[str, object] = {"perceived": round(perceived, 4)}
    distribution = None
    if mode is not None:
        stated = [p ** sharpness for p in bins] if mode == "overconfident" else bins
        total = sum(stated)
        stated = [round(p / total, PRECISION) for p in stated]
        logprobs = {k: math.log(p) for k, p in zip(scale.labels, stated, strict=True) if p > 0}
        raw["label_logprobs"] = {str(k): round(v, 6) for k, v in logprobs.items()}
        distribution = label_distribution(logprobs)
    reason = (f"The text is {distance:.2f} of the scale away from meeting the criterion."
              if inverse else f"The text sits {distance:.2f} of the way up the scale.")
    return PointwiseResult(label, reason, distribution, raw)


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# --- Ranking calls ----------------------------------------------------------------------
# The mock's answer to a ranking call: the order it gives k texts shown together.
#
# The model is the pairwise mock's, widened to k slots: each shown text gets its hidden value
# plus one noise draw of this call, plus the bonus of the slot it is shown in, and the order
# is by those noisy values, best first. With k = 2 and no list penalty the noise is exactly
# the pairwise noise, so every implied pair of an order is as noisy as a pairwise call on the
# same pair: under Gaussian noise of sd σ, slot i comes before slot j with probability
# Φ((v_i − v_j) / (√2·σ)).
#
# The draws come from a generator keyed on the seed, the texts in the order shown and the
# repetition (`ranking_rng`), like the pairwise mock's, so an order never depends on
# concurrency; the key ends in its own tag, so no ranking call shares its draws with a
# pairwise call, a flaw or a latency draw. Only the model is this part's: the pairwise flaws
# (close-item noise, per-pair and per-item bonuses, wrong verdicts, refusals) are not part of
# it.

_RANKING_TAG = "ranking"


def ranking_key(texts: Sequence[str], repetition: int) -> tuple[str | int, ...]:
    """The parts after the seed that key one ranking call's generator.

    Pass them to `KeyedDraws(seed).rng(*parts)` for the mock's cached digests; the draws are
    the same as `ranking_rng(seed, texts, repetition)`'s.

    Example:
        >>> ranking_key(["b", "a", "c"], 2)
        ('b', 'a', 'c', 2, 'ranking')
    """
    # The tag comes last: every other key of the mock ends in an integer or its own tag, so
    # no choice of texts turns a ranking key into one of theirs.
    return (*texts, repetition, _RANKING_TAG)


def ranking_rng(seed: int, texts: Sequence[str], repetition: int) -> random.Random:
    """The generator of one ranking call: keyed on the seed, the texts as shown, the repetition.

    These are the pairwise mock's ingredients (seed, texts in their order, repetition), so
    the same call always gets the same draws, and showing the texts in another order, or
    repeating the call, gets fresh ones.

    Example:
        >>> first = ranking_rng(7, ["a", "b", "c"], 0).random()
        >>> first == ranking_rng(7, ["a", "b", "c"], 0).random()
        True
        >>> first == ranking_rng(7, ["b", "a", "c"], 0).random()
        False
    """
    return keyed_rng(seed, *ranking_key(texts, repetition))


def list_stddev(stddev: float, k: int, list_penalty: float) -> float:
    """The noise sd on each slot of a k-text list: `stddev · (1 + list_penalty · (k − 2))`.

    Example:
        >>> list_stddev(2.0, 2, 0.5), list_stddev(2.0, 4, 0.5)
        (2.0, 4.0)
    """
    return stddev * (1.0 + list_penalty * (k - 2))


def noisy_values(
    values: Sequence[float],
    *,
    rng: random.Random,
    stddev: float,
    noise: NoiseName = "gauss",
    position_bias: Sequence[float] | None = None,
    list_penalty: float = 0.0,
) -> list[float]:
    """The values the judge perceives in one ranking call, one per shown slot.

    Draws exactly k noises from `rng`, in slot order, and nothing else, so a caller may draw
    more (a latency, say) from the same generator afterwards. See `mock_order` for the
    arguments.

    Raises:
        InputError: A setting out of range, named with its value.
    """
    _check_order_inputs(values, stddev, noise, position_bias, list_penalty)
    spread = list_stddev(stddev, len(values), list_penalty)
    draw = NOISES[noise].draw
    noisy = [value + draw(rng, spread) for value in values]
    if position_bias is not None:
        noisy = [value + bonus for value, bonus in zip(noisy, position_bias, strict=True)]
    return noisy


def order_of(noisy: Sequence[float], tie_margin: float | None = None) -> list[list[int]]:
    """The slots best first, tied slots grouped; equal values keep the order shown.

    A group opens at its best slot and takes each next slot whose value is less than
    `tie_margin` below that best one, so any two slots in a group differ by less than the
    margin, as a pairwise tie requires. None or 0 never ties.

    Example:
        >>> order_of([1.0, 3.0, 2.9, 0.0], tie_margin=0.5)
        [[1, 2], [0], [3]]

    Raises:
        InputError: A negative or non-finite `tie_margin`.
    """
    _check_margin(tie_margin)
    # sorted is stable: of two equal values the one shown first leads, as the pairwise
    # mock lets the first-shown text win an exact tie of scores.
    ranked = sorted(range(len(noisy)), key=lambda slot: -noisy[slot])
    groups: list[list[int]] = []
    for slot in ranked:
        if groups and tie_margin and noisy[groups[-1][0]] - noisy[slot] < tie_margin:
            groups[-1].append(slot)
        else:
            groups.append([slot])
    return groups


def mock_order(
    values: Sequence[float],
    *,
    rng: random.Random,
    stddev: float,
    noise: NoiseName = "gauss",
    position_bias: Sequence[float] | None = None,
    list_penalty: float = 0.0,
    tie_margin: float | None = None,
) -> list[list[int]]:
    """The order the mock gives k shown texts: slot indices best first, ties grouped.

    Each slot's value plus one noise draw (from `rng`, in slot order) plus its slot's
    bonus; the order is by these noisy values. With k = 2, no bias and no penalty the two
    noisy values are distributed as the pairwise mock's, so each implied pair of any order
    is as noisy as a pairwise call.

    Args:
        values: The hidden values of the texts, in the order they are shown (k ≥ 2).
        rng: The call's generator, from `ranking_rng` (or `KeyedDraws.rng(*ranking_key(...))`).
        stddev: The pairwise mock's noise sd (`noise_stddev`) on each text.
        noise: "gauss", "gumbel" or "student_t", as the pairwise mock's `noise`.
        position_bias: A bonus per shown slot, in value units (e.g. `[b, 0, 0, 0]` gives
            the first-shown text +b); None for none. Its length must be k.
        list_penalty: How much worse longer lists are judged: the noise sd is
            `stddev · (1 + list_penalty · (k − 2))`, so k = 2 is the pairwise noise.
        tie_margin: In a run that allows ties, slots whose noisy values differ by less than
            this are grouped as tied (see `order_of`); None or 0 never ties.

    Returns:
        The groups of tied slot indices (0 = first shown), best group first; without a tie
        margin every group holds one slot.

    Raises:
        InputError: A setting out of range, named with its value.

    Example:
        >>> mock_order([1.0, 5.0, 3.0], rng=ranking_rng(1, ["x", "y", "z"], 0), stddev=0.0)
        [[1], [2], [0]]
        >>> mock_order([1.0, 5.0, 3.0], rng=random.Random(0), stddev=0.0,
        ...            position_bias=[4.5, 0.0, 0.0])
        [[0], [1], [2]]
    """
    _check_margin(tie_margin)
    noisy = noisy_values(values, rng=rng, stddev=stddev, noise=noise,
                         position_bias=position_bias, list_penalty=list_penalty)
    return order_of(noisy, tie_margin)


def _check_order_inputs(values: Sequence[float], stddev: float, noise: str,
           position_bias: Sequence[float] | None, list_penalty: float) -> None:
    if len(values) < 2:
        raise InputError(f"values must hold at least 2 texts to order, got {len(values)}")
    for value in values:
        if not math.isfinite(value):
            raise InputError(f"values must be finite, got {value!r}")
    if not (math.isfinite(stddev) and stddev >= 0.0):
        raise InputError(f"stddev must be >= 0, got {stddev!r}")
    if noise not in NOISES:
        raise InputError(f"noise must be one of {sorted(NOISES)}, got {noise!r}")
    if not (math.isfinite(list_penalty) and list_penalty >= 0.0):
        raise InputError(f"list_penalty must be >= 0, got {list_penalty!r}")
    if position_bias is None:
        return
    if len(position_bias) != len(values):
        raise InputError(f"position_bias must give one bonus per shown text ({len(values)}), "
                         f"got {len(position_bias)}: {list(position_bias)!r}")
    for bonus in position_bias:
        if not math.isfinite(bonus):
            raise InputError(f"position_bias must be finite, got {bonus!r}")


def _check_margin(tie_margin: float | None) -> None:
    if tie_margin is not None and not (math.isfinite(tie_margin) and tie_margin >= 0.0):
        raise InputError(f"tie_margin must be >= 0 or None, got {tie_margin!r}")
