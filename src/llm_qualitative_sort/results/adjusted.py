"""The judge's preference for per-item covariates, and the order with it taken out.

A covariate is a number per item: "length" (each text's log length in characters), or a
numeric field of every item (`sort(items, fields=..., adjust=["length", "reading_level"])`).
The run's calls are fitted with each item's strength split in two (see
`rating.preference`, which also gives `SortResult.length_preference`): the covariates' part
`x_i · β` and a residual of the item's own. β is the judge's preference, in logits per
standard deviation of the covariate; the residuals, with their intervals, rank the items as
if every item had the same covariates. That order is reported beside the judge's own, never
in its place: a judge that favours long texts may be right to (people often do too), and
only people's verdicts can say (`human_effects` fits the same model to them).

Example:
    >>> adjust = check_adjust("length", ["a text", "a longer text", "longest text of all"])
    >>> adjust.names
    ('length',)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_qualitative_sort.audit import AdjustedRanking, CovariateEffect
from llm_qualitative_sort.bradley_terry import DIGITS, rank_by_score
from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.rating.preference import LENGTH, covariate_fit, rounded_effects
from llm_qualitative_sort.rating.result import LEVEL, Rating
from llm_qualitative_sort.rating.structured import fit_structured
from llm_qualitative_sort.results.human import HumanLabels

Vector = NDArray[np.float64]
_Z = 1.959963984540054  # the normal quantile of 0.975: 95 % intervals, as `LEVEL`


@dataclass(frozen=True)
class Adjust:
    """A checked `adjust=`: each covariate's value per item text.

    Attributes:
        names: The covariates, as asked.
        values: Per covariate, each text's value (for "length", its log length).
        reads_fields: Whether a covariate is an item field.
    """

    names: tuple[str, ...]
    values: dict[str, dict[str, float]]
    reads_fields: bool

    def columns(self, items: Sequence[str]) -> dict[str, Vector]:
        """Each covariate's values over `items`, in their order."""
        return {name: np.array([self.values[name][text] for text in items])
                for name in self.names}


def check_adjust(adjust: str | Sequence[str] | None, items: Sequence[str],
                 fields: Sequence[Mapping[str, Any]] | None = None, *,
                 pairwise: bool = True) -> Adjust | None:
    """`adjust=` checked against the items and their fields, before any call.

    Args:
        adjust: None, "length", or a list of covariates: "length" and names of numeric
            fields that every item has.
        items: The run's items, checked (`tournament.checks.check_items`).
        fields: Each item's fields, in the order of `items`.
        pairwise: Whether the run compares texts (a pointwise run has no calls to fit).

    Raises:
        InputError: A pointwise run, an empty list, a name given twice, a field some item
            lacks or holds no finite number in (naming the item), or a covariate that does
            not vary.
        SettingTypeError: `adjust` is not a str or a list of str.
    """
    if adjust is None:
        return None
    if not pairwise:
        raise InputError("adjust: a pointwise run scores each text alone; adjusting for "
                         "covariates needs a pairwise strategy (elimination or swiss)")
    names = _names(adjust)
    texts = list(items)
    values = {name: _values(name, texts, fields) for name in names}
    for name, column in values.items():
        if len(set(column.values())) < 2 and len(texts) > 1:
            raise InputError(f"adjust: {name!r} is the same for every item; there is "
                             "nothing to adjust for")
    return Adjust(names, values, any(name != LENGTH for name in names))


def _names(adjust: str | Sequence[str]) -> tuple[str, ...]:
    names = (adjust,) if isinstance(adjust, str) else adjust
    if isinstance(names, bytes) or not isinstance(names, Sequence) or \
            not all(isinstance(name, str) for name in names):
        raise SettingTypeError(f"adjust must be 'length' or a list of covariate names, "
                               f"got {adjust!r}")
    if not names:
        raise InputError("adjust: give at least one covariate ('length' or a numeric field)")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(f"adjust: {', '.join(map(repr, repeated))} given twice")
    return tuple(names)


def _values(name: str, texts: list[str], fields: Sequence[Mapping[str, Any]] | None,
            ) -> dict[str, float]:
    if name == LENGTH:
        return {text: math.log(max(len(text), 1)) for text in texts}
    if fields is None or len(fields) != len(texts):
        raise InputError(f"adjust: {name!r} is not 'length', so it must be a field of "
                         "every item: give fields=, one mapping per item")
    values = {}
    for index, (text, record) in enumerate(zip(texts, fields, strict=True)):
        where = f"adjust: item {index} ({text[:40]!r})"
        if not isinstance(record, Mapping) or name not in record:
            raise InputError(f"{where} has no field {name!r}")
        value = record[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not math.isfinite(value):
            raise InputError(f"{where}: its field {name!r} is {value!r}, not a finite number")
        values[text] = float(value)
    return values


def adjusted_ranking(rating: Rating, adjust: Adjust) -> AdjustedRanking | None:
    """The run's order with `adjust`'s covariates taken out; None without a verdict."""
    items = rating.items
    if len(items) < 2 or not rating.calls()[0].size:
        return None
    effects, residuals, errors = covariate_fit(rating, adjust.columns(items))
    scores = {text: round(float(r), DIGITS) for text, r in zip(items, residuals, strict=True)}
    intervals = {text: (round(float(r - _Z * e), DIGITS), round(float(r + _Z * e), DIGITS))
                 for text, r, e in zip(items, residuals, errors, strict=True)}
    return AdjustedRanking(adjust.names, effects, rank_by_score(scores), scores, intervals)


def human_effects(labels: HumanLabels, items: Sequence[str],
                  covariates: Mapping[str, ArrayLike]) -> tuple[CovariateEffect, ...]:
    """People's own preference for each covariate, from their pairwise verdicts.

    The same structured model as the judge's (`rating.preference`), fitted to the people's
    verdicts (a tie is half a win each) without a position term: the order in which a
    verdict names its two items says nothing about what was shown first. People's scores
    are not used. Set beside the judge's effect on the same items, the difference is the
    judge's preference beyond people's.

    Args:
        labels: Checked labels (`check_human`, `read_human`) of `items`.
        items: The run's items, in the order the labels' indices refer to.
        covariates: Named per-item values, in the order of `items`.

    Returns:
        One effect per covariate, in their order; empty without a verdict.
    """
    if not labels.verdicts:
        return ()
    first = [v.a for v in labels.verdicts]
    second = [v.b for v in labels.verdicts]
    won = [{"A": 1.0, "B": 0.0, "tie": 0.5}[v.winner] for v in labels.verdicts]
    fit = fit_structured(len(items), first, second, won, covariates, position=False,
                         level=LEVEL)
    return rounded_effects(fit.effects, "structured")


def human_length_preference(labels: HumanLabels, items: Sequence[str],
                            ) -> CovariateEffect | None:
    """People's own preference for longer texts (see `human_effects`); None without verdicts.

    Example:
        >>> from llm_qualitative_sort.results.human import check_human
        >>> items = ["short", "a good deal longer", "the longest text of the three here"]
        >>> labels = check_human({"verdicts": [(2, 0, "A"), (1, 0, "A"), (2, 1, "A")] * 20},
        ...                      items)
        >>> human_length_preference(labels, items).beta > 0
        True
    """
    lengths = np.log([max(len(text), 1) for text in items])
    found = human_effects(labels, items, {LENGTH: lengths})
    return found[0] if found else None


def with_adjusted(result: SortResult, adjust: Adjust | None) -> SortResult:
    """`result` with its `adjusted` order filled in; `result` itself when nothing is asked.

    When length is the only covariate, the same fit gives the result's length preference.
    """
    if adjust is None or result.pointwise:
        return result
    # The result's own fit input (a Swiss pre-pass's calls included), which a new `Rating`
    # of its matches would miss; the judge's calls alone where people's labels anchor the
    # order.
    rating: Rating = result._judge_rating
    ranking = adjusted_ranking(rating, adjust)
    # The result is new and not yet handed out: filling its field in place keeps the fits
    # it already holds.
    object.__setattr__(result, "adjusted", ranking)
    if ranking is not None and adjust.names == (LENGTH,) and len(rating.items) >= 3:
        result.__dict__["length_preference"] = ranking.effects[0]
    return result
