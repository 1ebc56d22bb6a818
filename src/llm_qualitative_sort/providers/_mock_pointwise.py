"""The mock's pointwise answers: labels and label log-probabilities from its hidden values.

The mock places a text on the scale by its hidden value (the same value its pairwise
verdicts compare): its position u = (value − low) / (high − low) on 0–1, where low and high
are the lowest and highest values among the run's texts (learned from `check_items`) or
the span given. The judge perceives z = u + ε, ε ~ N(0, s²) with s = `pointwise_noise`
(a share of the scale's width), drawn from its own keyed generator. The scale's labels cut
0–1 into equal bins; the judge's belief about u is N(z, s²), so it gives label k the
probability that the belief falls in k's bin — the *calibrated* mode — and answers a label
drawn from those probabilities. Modes:

- "calibrated": states those probabilities (as label log-probabilities);
- "overconfident": states them sharpened, p_k^k' renormalised (k' = `sharpness`), as
  real models are sure of labels they often miss; the label drawn is the same;
- "lenient": the direct question's bins are warped towards the bottom (the bin edges are
  1 − (1 − j/m)^(1/3) instead of j/m), so most texts get the top labels — the ceiling
  pointwise rerankers report. The inverse question is answered without that warp: an
  assumption of the mock (the reranker's finding that asking how far a text is from the
  criterion suffers less from leniency), not something the mock can show by itself.

The judge states its probabilities to three decimals (`PRECISION`): a label it gives
less than 0.05 % is not stated, so a judge sure of a label states that label alone and the
expected label saturates there, as saturated log-probabilities do. That is what makes the
lenient judge lose the order of the many texts it is sure belong at the top.

The inverse question asks for the distance 1 − u: the same bins, read from the other end.
Without a mode (None, the default) the mock answers the calibrated label alone, without
probabilities, as a server that returns no log-probabilities would.
"""

from __future__ import annotations

import math
from typing import Literal

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers._mock_flaws import keyed_rng
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale, label_distribution

PointwiseMode = Literal["calibrated", "overconfident", "lenient"]
POINTWISE_MODES: tuple[PointwiseMode, ...] = ("calibrated", "overconfident", "lenient")
# The warp of the lenient mode's bin edges: edge_j = 1 − (1 − j/m)^(1/LENIENCY).
LENIENCY = 3.0
# Decimals of the stated probabilities (see above).
PRECISION = 3
# The sd of the perception, as a share of the scale, unless the mock is given another.
DEFAULT_NOISE = 0.15


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
