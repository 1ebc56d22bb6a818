"""Pointwise scoring: a labelled scale, the judge's answer, and the score it gives a text.

A pointwise call shows the judge one text and asks for a label on a scale of consecutive
integers (1–4 by default, each with a description). When the server returns the label
token's log-probabilities z_k, the call's value is the expected label
S = Σ k · softmax(z)_k, normalised to 0–1 over the scale; without them, the label itself.
The inverse question asks how far the text is from meeting the criterion, and the text's
score is then the complement. Labels are single digits (0–9): each is then one token in the
judges' vocabularies, so its log-probability is read at one place of the answer.

A pointwise answer travels through the runners, the journal and the cache as itself, a
`PointwiseResult` (`stores.answers` stores it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llm_qualitative_sort.rating.scale import Scale as Scale


@dataclass(frozen=True)
class ScoreQuestion:
    """What a pointwise call asks: the scale, and whether it is the inverse question."""

    scale: Scale
    inverse: bool = False

    @property
    def identity(self) -> str:
        """Appended to the judge's identity in cache keys: another question, other answers."""
        return f"+pointwise:{self.scale.worded(self.inverse).digest}" + (
            ":inverse" if self.inverse else "")


@dataclass(frozen=True)
class PointwiseResult:
    """What a provider answered for one pointwise call.

    `label` is the label the judge gave (None: no usable answer); `distribution` the
    probability of each label read from its log-probabilities (None when the server sent
    none: the call then counts as its label); `reason` the judge's reason.

    Example:
        >>> PointwiseResult(3, "clear", {3: 0.5, 4: 0.5}).expected
        3.5
    """

    label: int | None
    reason: str
    distribution: Mapping[int, float] | None = None
    raw_response: dict[str, Any] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def expected(self) -> float | None:
        """The expected label (the label itself without a distribution)."""
        if self.label is None:
            return None
        if self.distribution:
            return expected_label(self.distribution)
        return float(self.label)


def pointwise_problem(result: Any, scale: Scale) -> str:
    """What is wrong with a provider's pointwise answer, or "" when it can be used."""
    if not isinstance(result, PointwiseResult):
        return f"expected a PointwiseResult, got {type(result).__name__}"
    if result.label is not None and result.label not in scale.labels:
        return f"label must be one of {list(scale.labels)} or None, got {result.label!r}"
    if not isinstance(result.reason, str):
        return f"reason must be a str, got {type(result.reason).__name__}"
    if result.distribution is not None:
        if result.label is None:
            return "distribution must be None when the call gave no label"
        dist = result.distribution
        if not dist or any(k not in scale.labels or not (isinstance(p, float | int)
                                                         and 0 <= p <= 1)
                           for k, p in dist.items()) or sum(dist.values()) <= 0:
            return f"distribution must map labels of the scale to probabilities, got {dist!r}"
    return ""


def label_distribution(logprobs: Mapping[int, float]) -> dict[int, float]:
    """Softmax over the labels' log-probabilities (labels missing from it count nothing).

    Example:
        >>> label_distribution({1: math.log(0.2), 2: math.log(0.6)})
        {1: 0.25, 2: 0.75}
    """
    finite = {k: v for k, v in logprobs.items() if math.isfinite(v)}
    if not finite:
        return {}
    high = max(finite.values())
    weights = {k: math.exp(v - high) for k, v in finite.items()}
    total = sum(weights.values())
    return {k: round(w / total, 12) for k, w in sorted(weights.items())}


def expected_label(distribution: Mapping[int, float]) -> float:
    """S = Σ k·p_k / Σ p_k: the probability-weighted label.

    Example:
        >>> expected_label({1: 0.25, 2: 0.75})
        1.75
    """
    total = sum(distribution.values())
    return sum(k * p for k, p in distribution.items()) / total


def normalised(value: float, scale: Scale) -> float:
    """A label (or expected label) on 0–1: the lowest label 0, the highest 1.

    Example:
        >>> normalised(3.5, Scale.parse("1-4"))
        0.8333333333333334
    """
    return (value - scale.low) / (scale.high - scale.low)


def call_score(value: float, scale: Scale, inverse: bool) -> float:
    """The text's score from one call's (expected) label: 0–1, higher is better.

    The inverse question's label says how far the text is: its score is the complement.

    Example:
        >>> scale = Scale.parse("1-4")
        >>> call_score(4, scale, inverse=False), call_score(4, scale, inverse=True)
        (1.0, 0.0)
    """
    share = min(max(normalised(value, scale), 0.0), 1.0)
    return 1.0 - share if inverse else share


def stored_value(facts: Mapping[str, Any]) -> float | None:
    """A stored call's expected label, from its facts' "pointwise" entry (None: no label)."""
    stored = facts.get("pointwise")
    if not isinstance(stored, Mapping) or stored.get("label") is None:
        return None
    dist = stored.get("distribution")
    if dist:
        return expected_label({int(k): float(p) for k, p in dist})
    return float(stored["label"])


@dataclass(frozen=True)
class ScoredCall:
    """One call that scored a text alone (a pointwise run, a Swiss pre-pass), as shown.

    `label` is the label the judge gave (None: the call gave none), `expected` the expected
    label from its distribution (the label without one), `score` the text's score from it
    (0–1, higher better: the complement for the inverse question), `distribution` each
    label's probability when the server sent log-probabilities, `reason` the judge's reason.
    """

    label: int | None
    expected: float | None
    score: float | None
    distribution: Mapping[int, float] | None
    reason: str
    cached: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    batch: bool = False
    judge: str | None = None


@dataclass(frozen=True)
class ItemScore:
    """An item scored alone: its score (the mean over its calls) and its calls.

    A pointwise run's `SortResult.pointwise` holds them, and so does a Swiss pre-pass's
    `SortResult.prepass`.

    Example:
        >>> call = ScoredCall(4, 3.5, 0.83, {3: 0.5, 4: 0.5}, "clear")
        >>> ItemScore("text", 0.83, (call,)).distribution
        {3: 0.5, 4: 0.5}
    """

    item: str
    score: float | None
    calls: tuple[ScoredCall, ...] = ()

    @property
    def distribution(self) -> dict[int, float]:
        """The mean probability of each label over the calls.

        A call without log-probabilities counts as all of its weight on its label.
        """
        answered = [c for c in self.calls if c.label is not None]
        total: dict[int, float] = {}
        for call in answered:
            assert call.label is not None
            for label, p in (call.distribution or {call.label: 1.0}).items():
                total[label] = total.get(label, 0.0) + p / len(answered)
        return {k: round(v, 9) for k, v in sorted(total.items())}

    @property
    def reasons(self) -> list[str]:
        """The judge's reason of each call that gave a label."""
        return [c.reason for c in self.calls if c.label is not None]
