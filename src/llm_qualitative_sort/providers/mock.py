"""A seeded, deterministic stand-in for an LLM judge, for tests, demos and studies.

How the mock answers one comparison: both texts' hidden values plus their noise (from the
call's keyed generator, drawn before the call waits), the position bias, the pair's and the
item's fixed first-shown bonus, a tie when the run allows ties and the noisy scores are
closer than the tie margin, then a refused or a confidently wrong verdict when the call
draws one (`_mock_flaws`), and with `logprobs` set, the probability the judge states
(`_mock_logprobs`). Its pointwise answers follow the model in `_mock_pointwise`, its
ranking answers (the order of 3 to 8 texts) the model in `_mock_ranking`.
"""

from __future__ import annotations

import asyncio
import math
import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from llm_qualitative_sort.errors import InputError, TransientProviderError
from llm_qualitative_sort.providers._mock_flaws import (
    Flaw,
    Flaws,
    KeyedDraws,
    NoiseName,
    check_share,
    keyed_rng,
)
from llm_qualitative_sort.providers._mock_logprobs import (
    LogprobMode,
    check_mode,
    judged_probability,
    with_probability,
)
from llm_qualitative_sort.providers._mock_options import (
    Latency,
    LengthLean,
    Share,
    check_latency,
    realistic_flaws,
    share_range,
)
from llm_qualitative_sort.providers._mock_pointwise import (
    DEFAULT_NOISE,
    PointwiseMode,
    check_pointwise,
    mock_score,
    pointwise_identity,
)
from llm_qualitative_sort.providers._mock_ranking import mock_order, ranking_key
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.questions import RANK_LABELS, Question, Rank, Request
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult, Side, Verdict

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
        logprobs: None (default: no probabilities, today's mock), "calibrated" or
            "overconfident": each verdict also states P(first wins), drawn from the same
            latent scores (see `_mock_logprobs`); the verdicts are unchanged.
        sharpness: How far "overconfident" pushes the probabilities: σ(k·logit p) for
            verdicts, p_k^k renormalised for pointwise labels.
        pointwise: How `score_call` (pointwise runs) states its labels: None (default: the
            label alone), "calibrated", "overconfident" or "lenient" (label log-probabilities
            too; see `_mock_pointwise`). Pairwise verdicts are unchanged by it.
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
        self.latency = check_latency(latency)
        self.position_bias = position_bias
        self.failure_rate = failure_rate
        self._score = score
        mean, spread = pair_bias
        self._flaws = Flaws(
            noise, close_noise, (mean, spread), item_bias, wrong_rate, share_range(refusal_rate)
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
        `_mock_pointwise`); with `pointwise` set, the label log-probabilities come too.
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

    def answers(self, question: type[Question], *, ties: bool = False) -> bool:
        """Comparisons (ties too), scores and ranking calls."""
        return question is Rank or super().answers(question, ties=ties)

    async def answer(self, request: Request) -> ComparisonResult | PointwiseResult | RankingResult:
        """A ranking call by `rank_call`; comparisons and scores as every provider."""
        question = request.question
        if isinstance(question, Rank):
            return await self.rank_call(question.texts, request.criteria,
                                        repetition=request.repetition, ties=request.ties)
        return await super().answer(request)

    async def rank_call(self, texts: Sequence[str], criteria: str, *, repetition: int,
                        ties: bool = False) -> RankingResult:
        """Order texts shown together; deterministic in (seed, texts as shown, repetition).

        Each text's hidden value plus one noise draw of the pairwise noise (widened by
        `list_penalty`) plus its slot's `slot_bias`, ordered best first (see
        `_mock_ranking`); with `ties`, values closer than `tie_margin` share a place.
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
