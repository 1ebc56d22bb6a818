"""The mock's log-probabilities: a soft verdict drawn from the same latent strengths.

Today's mock answers A when `D = noisy_a - noisy_b >= 0`, where `D = d + η`, `d` the true
difference and `η` the noise of the call. With log-probabilities on, `η` is split into a
perception error ε₁ and a decision error ε₂ of equal variance s² (s the per-side sd, so
`Var η = 2s²`), and ε₁ is drawn given the η the call already drew: ε₁ | η ~ N(η/2, s²/2).
The judge "sees" z = d + ε₁ and reports P(A wins | z) = Φ(z / s), which is exactly how
often A wins given what it saw (for Gaussian noise; the other noises are approximated):
the *calibrated* mode. The *overconfident* mode pushes that probability towards 0 and 1,
as real models do: p' = σ(k · logit p), k = `sharpness` (3 by default).

The draw has its own keyed generator, so the verdicts are those of the mock without
log-probabilities: only `probability` and `raw_response["verdict_logprobs"]` are added.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Literal

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers._mock_flaws import keyed_rng
from llm_qualitative_sort.providers.logprobs import first_wins
from llm_qualitative_sort.verdicts import ComparisonResult

LogprobMode = Literal["calibrated", "overconfident"]
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
