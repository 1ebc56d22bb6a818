"""How far a judge agrees with people on the pairs people labelled: no I/O.

Every figure compares verdicts on the same pair in the same terms: "A" is the pair's first
item as the person labelled it (whatever order the judge saw), "B" the second, "tie" equally
good. A judge's call without a verdict (a refusal, an unreadable answer) counts in
`no_verdict` and in no other figure.

- `agreement`: the share of the judge's verdicts that equal the person's.
- Cohen's κ over the three labels: agreement beyond what two raters with these label
  frequencies would reach by chance, `(p_o − p_e) / (1 − p_e)`; 0 is chance, 1 full
  agreement. Undefined (None) when chance agreement is already certain (one label only).
- The 3 × 3 confusion matrix, rows the person's label, columns the judge's.
- κ within each presentation order: calls that showed the labelled pair's first item
  first, and calls that showed it second. A judge that follows the position agrees in one
  order and not the other.
- The Spearman ρ between the judge's order of the labelled items and the people's (their
  scores, or strengths fitted to their verdicts).

Every interval is a percentile bootstrap (95 % by default) that resamples the labelled
pairs — all calls and all human verdicts of a drawn pair go together, since they are not
independent — or, for ρ, the labelled items. Draws come from a seeded generator: the same
input gives the same intervals.

Example:
    >>> calls = [LabelledCall(0, 1, "A", "A", True), LabelledCall(0, 1, "A", "B", False),
    ...          LabelledCall(1, 2, "B", "B", True), LabelledCall(1, 2, "B", "B", False)]
    >>> figures = judge_agreement(calls, draws=200)
    >>> figures.agreed, figures.compared, round(figures.agreement, 2)
    (3, 4, 0.75)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

# The figures' types are the audit's (`audit`), below the results that carry them; they are
# re-exported (`X as X`) so that this module keeps naming everything it computes.
from llm_qualitative_sort.audit import AGREEMENT_LEVEL
from llm_qualitative_sort.audit import Agreement as Agreement
from llm_qualitative_sort.audit import Interval as Interval
from llm_qualitative_sort.audit import LabelledCall as LabelledCall
from llm_qualitative_sort.errors import InputError

LABELS = ("A", "tie", "B")
_INDEX = {label: i for i, label in enumerate(LABELS)}
LEVEL = AGREEMENT_LEVEL
DRAWS = 2000
# A figure computed from the labelled pairs' (person's label, judge's label) arrays.
_Figure = Callable[[Sequence[np.ndarray]], float | None]


def cohen_kappa(human: Sequence[str], judge: Sequence[str]) -> float | None:
    """Cohen's κ of two raters over the labels A / tie / B (None when undefined).

    Example:
        >>> cohen_kappa(["A", "B", "A", "tie"], ["A", "B", "B", "tie"])
        0.6363636363636364
    """
    matrix = confusion_matrix(human, judge)
    return _kappa(np.asarray(matrix, dtype=float))


def confusion_matrix(human: Sequence[str],
                     judge: Sequence[str]) -> tuple[tuple[int, int, int], ...]:
    """Counts of (person's label, judge's label) pairs, rows and columns in `LABELS` order."""
    if len(human) != len(judge):
        raise InputError(f"human and judge must be as long, got {len(human)} and {len(judge)}")
    counts = np.zeros((3, 3), dtype=int)
    for h, j in zip(human, judge, strict=True):
        counts[_label(h), _label(j)] += 1
    return tuple((int(r[0]), int(r[1]), int(r[2])) for r in counts)


def judge_agreement(calls: Sequence[LabelledCall], *,
                    judge_strengths: Sequence[float] | None = None,
                    human_strengths: Sequence[float] | None = None, level: float = LEVEL,
                    draws: int = DRAWS, seed: int = 0) -> Agreement:
    """The agreement figures of `calls`, with bootstrap intervals.

    Args:
        calls: The judge's calls on labelled pairs, one per call and person's verdict.
        judge_strengths: The judge's strength of every item (indexed like `LabelledCall.a`),
            for the Spearman ρ on the labelled items.
        human_strengths: The people's strength or score of every item (NaN where unknown).
        level: The intervals' coverage, in (0, 1).
        draws: Bootstrap draws.
        seed: The generator's seed.

    Raises:
        ValueError: A label outside A / tie / B, or a bad level or number of draws.
    """
    if not 0 < level < 1:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    if draws < 1:
        raise InputError(f"draws must be >= 1, got {draws!r}")
    answered = [call for call in calls if call.judge is not None]
    for call in calls:
        _label(call.human)
    rng = np.random.default_rng(seed)
    by_pair = _group_by_pair(answered)
    matrix = confusion_matrix([c.human for c in answered], [str(c.judge) for c in answered])
    agreed = sum(c.human == c.judge for c in answered)
    return Agreement(
        compared=len(answered), agreed=agreed, no_verdict=len(calls) - len(answered),
        pairs=len({(c.a, c.b) for c in calls}),
        agreement_interval=_bootstrap(by_pair, _agreement_of, rng, level, draws),
        kappa=_bootstrap(by_pair, _kappa_of, rng, level, draws),
        kappa_by_order={
            "a first": _bootstrap(_group_by_pair([c for c in answered if c.a_shown_first]),
                                  _kappa_of, rng, level, draws),
            "a second": _bootstrap(_group_by_pair([c for c in answered if not c.a_shown_first]),
                                   _kappa_of, rng, level, draws),
        },
        confusion=matrix,
        spearman=_spearman(calls, judge_strengths, human_strengths, rng, level, draws),
        disagreements=tuple(c for c in answered if c.human != c.judge),
        level=level,
    )


def _label(label: object) -> int:
    if not isinstance(label, str) or label not in _INDEX:
        raise InputError(f"a verdict must be 'A', 'B' or 'tie', got {label!r}")
    return _INDEX[label]


def _kappa(matrix: np.ndarray) -> float | None:
    total = matrix.sum()
    if total == 0:
        return None
    observed = np.trace(matrix) / total
    chance = float((matrix.sum(axis=1) * matrix.sum(axis=0)).sum()) / total**2
    if chance >= 1.0:
        return None
    return float((observed - chance) / (1.0 - chance))


def _group_by_pair(calls: Sequence[LabelledCall]) -> list[np.ndarray]:
    """Each pair's calls as an array of (person's label, judge's label) indices."""
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for call in calls:
        groups.setdefault((call.a, call.b), []).append((_label(call.human),
                                                        _label(call.judge)))
    return [np.asarray(rows, dtype=int) for rows in groups.values()]


def _counts(groups: Sequence[np.ndarray]) -> np.ndarray:
    matrix = np.zeros((3, 3))
    for rows in groups:
        np.add.at(matrix, (rows[:, 0], rows[:, 1]), 1)
    return matrix


def _kappa_of(groups: Sequence[np.ndarray]) -> float | None:
    return _kappa(_counts(groups))


def _agreement_of(groups: Sequence[np.ndarray]) -> float | None:
    matrix = _counts(groups)
    total = matrix.sum()
    return float(np.trace(matrix) / total) if total else None


def _bootstrap(groups: Sequence[np.ndarray], figure: _Figure, rng: np.random.Generator,
               level: float, draws: int) -> Interval:
    value = figure(groups)
    if value is None or not groups:
        return Interval(value, None, None)
    picks = rng.integers(0, len(groups), size=(draws, len(groups)))
    values = [v for pick in picks if (v := figure([groups[i] for i in pick])) is not None]
    if not values:
        return Interval(value, None, None)
    tail = (1 - level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return Interval(value, float(low), float(high))


def _spearman(calls: Sequence[LabelledCall], judge: Sequence[float] | None,
              human: Sequence[float] | None, rng: np.random.Generator, level: float,
              draws: int) -> Interval | None:
    if judge is None or human is None:
        return None
    # The labelled pairs' items; without a pair (people gave scores only), every item
    # both give a number to.
    items = sorted({c.a for c in calls} | {c.b for c in calls}) or range(len(judge))
    pairs = np.asarray([(judge[i], human[i]) for i in items], dtype=float).reshape(-1, 2)
    pairs = pairs[np.isfinite(pairs).all(axis=1)]
    if len(pairs) < 3:
        return Interval(None, None, None)

    # Imported here: SciPy's statistics cost every run some 30 MB, and few runs have labels.
    from scipy import stats

    def rho(rows: np.ndarray) -> float | None:
        if np.ptp(rows[:, 0]) == 0 or np.ptp(rows[:, 1]) == 0:
            return None
        return float(stats.spearmanr(rows[:, 0], rows[:, 1]).statistic)

    value = rho(pairs)
    if value is None:
        return Interval(None, None, None)
    picks = rng.integers(0, len(pairs), size=(draws, len(pairs)))
    values = [v for pick in picks if (v := rho(pairs[pick])) is not None]
    tail = (1 - level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return Interval(value, float(low), float(high))
