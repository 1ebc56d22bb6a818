"""People's labels in a run: stored, asked of the judge, and checked against. No I/O.

How a run stores them, which pairs its judge is asked, and what its result says about them
(the agreement, the anchored order); no LLM call.

A run keeps its labels as plain data (`label_state`), with items as indices into the run's
items. The judge is asked every pair a person gave a verdict on (`pairs_to_ask`): a pair the
strategy played anyway costs nothing more, and a pair it never played is asked once in each
presentation order, so that the judge's position bias cannot pass for agreement and the
agreement within each order can be told apart. Those answers are calls like the others:
they enter the judge's fit.

`with_people` then gives a result its `agreement` (from every call the run made on a
labelled pair, `labelled_calls`) and, unless the judge's own order was asked for, the order
of `rating.anchored.fit_anchored`: the judge's fit as a prior, its scale and distance to
people fitted to their verdicts.

Example:
    >>> from llm_qualitative_sort.results.human import HumanLabels, HumanVerdict
    >>> labels = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(2, 1, "B")))
    >>> pairs_to_ask(labels, [{"round": 1, "matches": [[2, 1, "B", []]], "bye": None}])
    [(0, 1)]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_qualitative_sort.bradley_terry import DIGITS, rank_by_score
from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.results.agreement import Agreement, LabelledCall, judge_agreement
from llm_qualitative_sort.results.audit import shared_places
from llm_qualitative_sort.results.human import (
    HumanLabels,
    HumanScore,
    HumanVerdict,
    check_human,
    human_strengths,
)
from llm_qualitative_sort.tournament.registry import (
    settings_from_state,
    strategy_class,
    strategy_for,
)
from llm_qualitative_sort.tournament.settings import StrategySettings

if TYPE_CHECKING:
    from llm_qualitative_sort.models import SortResult
    from llm_qualitative_sort.rating.anchored import AnchoredFit
    from llm_qualitative_sort.rating.result import Rating
    from llm_qualitative_sort.rating.scoring import ItemScore
    from llm_qualitative_sort.verdicts import MatchResult

# A call's verdict in the other orientation of its pair.
_FLIP = {"A": "B", "B": "A", "tie": "tie", None: None}
_SHARE = {"A": 1.0, "B": 0.0, "tie": 0.5}
# The z of a 95 % interval, as `SortResult.intervals` has them.
_Z95 = 1.959963984540054


def checked_human(human: object, items: Sequence[str]) -> HumanLabels:
    """People's labels as `sort(items, human=...)` takes them, checked against `items`.

    A `HumanLabels`, a mapping with "verdicts" and/or "scores" (see `check_human`), or a
    list of verdicts `(a, b, winner)` alone; items are indices into `items`.

    Raises:
        InputError: What `check_human` refuses, named.
    """
    if isinstance(human, list | tuple):
        human = {"verdicts": human}
    if not isinstance(human, HumanLabels | Mapping):
        raise SettingTypeError("human must be a HumanLabels, a mapping with 'verdicts' and/or "
                               f"'scores', or a list of (a, b, winner), got "
                               f"{type(human).__name__}")
    return check_human(human, items)


def label_state(labels: HumanLabels) -> dict[str, list[list[Any]]]:
    """The labels as a run stores them: plain lists, no line numbers.

    Example:
        >>> label_state(HumanLabels((HumanVerdict(0, 1, "tie", line=3),)))
        {'verdicts': [[0, 1, 'tie']], 'scores': []}
    """
    return {"verdicts": [[v.a, v.b, v.winner] for v in labels.verdicts],
            "scores": [[s.item, s.score] for s in labels.scores]}


def state_labels(stored: Mapping[str, Any] | None) -> HumanLabels | None:
    """The labels of a run's stored form (`label_state`); None for a run without labels."""
    if not stored:
        return None
    return HumanLabels(tuple(HumanVerdict(int(a), int(b), w) for a, b, w in
                             stored.get("verdicts", ())),
                       tuple(HumanScore(int(i), float(s)) for i, s in stored.get("scores", ())))


def reindexed(labels: HumanLabels, texts: Sequence[str], order: Sequence[str]) -> HumanLabels:
    """`labels` about `texts` (indices into it), their items named by index into `order`.

    A run sorts its items into text order before it plays; its labels follow them.

    Example:
        >>> moved = reindexed(HumanLabels((HumanVerdict(0, 1, "A"),)), ["b", "a"], ["a", "b"])
        >>> moved.verdicts[0].a, moved.verdicts[0].b
        (1, 0)
    """
    place = {text: i for i, text in enumerate(order)}
    index = [place[text] for text in texts]
    return HumanLabels(
        tuple(dataclasses.replace(v, a=index[v.a], b=index[v.b]) for v in labels.verdicts),
        tuple(dataclasses.replace(s, item=index[s.item]) for s in labels.scores))


def labels_digest(labels: HumanLabels, texts: Sequence[str]) -> str:
    """The digest of `labels` about `texts`, whatever the order the texts were given in."""
    return reindexed(labels, texts, sorted(texts)).digest()


def labelled_pairs(labels: HumanLabels) -> list[tuple[int, int]]:
    """Every pair a person gave a verdict on, once, as first labelled."""
    seen: dict[frozenset[int], tuple[int, int]] = {}
    for verdict in labels.verdicts:
        seen.setdefault(frozenset((verdict.a, verdict.b)), (verdict.a, verdict.b))
    return list(seen.values())


def pairs_to_ask(labels: HumanLabels | None, history: Sequence[Mapping[str, Any]]
                 ) -> list[tuple[int, int]]:
    """The labelled pairs the run has not asked its judge about yet, as first labelled.

    A pair any stored match played (in either orientation) is not asked again: its calls
    already say what the judge thinks of it.
    """
    if labels is None:
        return []
    played = {frozenset((log[0], log[1])) for entry in history for log in entry["matches"]
              if log[0] != log[1]}
    return [pair for pair in labelled_pairs(labels) if frozenset(pair) not in played]


def within_budget(settings: StrategySettings, n_items: int,
                  labels: HumanLabels | None) -> StrategySettings:
    """The settings a strategy with a budget plays by when the labelled pairs share it.

    The judge asks each labelled pair at most twice, after the strategy: a strategy that
    spends a budget (Swiss) keeps that much of it back, so that the run as a whole spends no
    more than its budget. A pair the strategy plays anyway is then asked nothing more, and
    what it kept back for it goes unspent. Other strategies, and a pointwise run (which asks
    no pair), play as they are.

    Raises:
        InputError: The budget cannot pay for the labelled pairs and the strategy's least.

    Example:
        >>> from llm_qualitative_sort.tournament import Swiss
        >>> labels = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 2, "B")))
        >>> within_budget(Swiss(budget=40), 10, labels).budget
        36
    """
    reserve = 2 * len(labelled_pairs(labels)) if labels is not None else 0
    total = getattr(strategy_for(settings, n_items, 0), "budget", None)
    if not reserve or not isinstance(total, int) or settings.name == "pointwise":
        return settings
    left = total - reserve
    kept = settings.model_copy(update={"budget": left})
    try:
        if left < 1:
            raise InputError("nothing is left for the tournament")
        strategy_class(kept).check(kept, n_items)
    except InputError as refused:
        raise InputError(
            f"budget={total} must pay for the labelled pairs too: {reserve // 2} pairs take "
            f"up to {reserve} calls, leaving {left} for the tournament ({refused}); raise "
            "the budget or label fewer pairs") from None
    return kept


def labelled_calls(labels: HumanLabels, items: Sequence[str],
                   matches: Sequence[MatchResult]) -> list[LabelledCall]:
    """One `LabelledCall` per judge call on a labelled pair and person's verdict on it.

    Every call of the run on the pair counts, whichever round played it; a call without a
    verdict is kept (as `judge=None`), never read as a win, loss or draw.
    """
    index = {text: i for i, text in enumerate(items)}
    by_pair: dict[frozenset[int], list[tuple[int, bool, Any, str]]] = {}
    wanted = {frozenset((v.a, v.b)) for v in labels.verdicts}
    for match in matches:
        a, b = index[match.item_a], index[match.item_b]
        pair = frozenset((a, b))
        if a == b or pair not in wanted:
            continue
        for call in match.rounds:
            by_pair.setdefault(pair, []).append((a, call.order == "AB", call.winner,
                                                 call.reasoning))
    calls = []
    for verdict in labels.verdicts:
        for first, shown_first, winner, reason in by_pair.get(frozenset((verdict.a,
                                                                         verdict.b)), ()):
            same = first == verdict.a
            calls.append(LabelledCall(verdict.a, verdict.b, verdict.winner,
                                      winner if same else _FLIP[winner],
                                      shown_first == same, reason))
    return calls


def score_verdicts(labels: HumanLabels) -> list[HumanVerdict]:
    """People's verdicts, or, with scores only, one per pair of scored items.

    A pair's verdict follows the scores (the higher wins, equal scores tie): the scores
    order the items, and the anchored fit reads an order as verdicts.
    """
    if labels.verdicts:
        return list(labels.verdicts)
    scores = sorted(labels.scores, key=lambda s: s.item)
    return [HumanVerdict(x.item, y.item, "A" if x.score > y.score else
                         "B" if x.score < y.score else "tie")
            for k, x in enumerate(scores) for y in scores[k + 1:]]


def anchored_fit(labels: HumanLabels, strengths: Sequence[float],
                 errors: Sequence[float]) -> AnchoredFit:
    """The judge's strengths (and their standard errors) anchored by people's labels."""
    # Imported here: the fit loads SciPy's optimizers, which a run without labels never needs.
    from llm_qualitative_sort.rating.anchored import fit_anchored

    verdicts = score_verdicts(labels)
    return fit_anchored(np.asarray(strengths, dtype=float), np.asarray(errors, dtype=float),
                        first=[v.a for v in verdicts], second=[v.b for v in verdicts],
                        first_won=[_SHARE[v.winner] for v in verdicts])


def anchored_scores(labels: HumanLabels, rating: Rating) -> dict[str, float]:
    """The anchored strengths of a judge's rating's items, rounded as scores."""
    scores, intervals = rating.scores(), rating.intervals()
    errors = [(intervals[t][1] - intervals[t][0]) / (2 * _Z95) for t in rating.items]
    fit = anchored_fit(labels, [scores[t] for t in rating.items], errors)
    return AnchoredRating(rating.items, fit).scores()


class AnchoredRating:
    """An anchored fit read as `SortResult` reads its rating: scores, intervals, P(top K).

    Args:
        items: The items, in the order of the fit's strengths.
        fit: The anchored fit.
    """

    def __init__(self, items: Sequence[str], fit: AnchoredFit) -> None:
        self.items = list(items)
        self.fit = fit

    def scores(self) -> dict[str, float]:
        """Each item's anchored strength, rounded as scores are."""
        return {t: round(float(s), DIGITS) for t, s in zip(self.items, self.fit.strengths,
                                                           strict=True)}

    def intervals(self) -> dict[str, tuple[float, float]]:
        """Each strength's 95 % normal interval (its posterior standard deviation)."""
        fit = self.fit
        return {t: (round(float(s - _Z95 * e), DIGITS), round(float(s + _Z95 * e), DIGITS))
                for t, s, e in zip(self.items, fit.strengths, fit.standard_errors, strict=True)}

    def top_k_probability(self, k: int) -> dict[str, float]:
        """P(item is among the k strongest), from the fit's posterior draws (seed 0)."""
        found = self.fit.top_k_probability(k)
        return {t: float(p) for t, p in zip(self.items, found, strict=True)}


def kendall_tau(judge: Sequence[float], human: Sequence[float]) -> float | None:
    """Kendall's τ-b between two orders of the items both give a finite number to."""
    pairs = np.asarray([(j, h) for j, h in zip(judge, human, strict=True)
                        if np.isfinite(j) and np.isfinite(h)], dtype=float)
    if len(pairs) < 2 or np.ptp(pairs[:, 0]) == 0 or np.ptp(pairs[:, 1]) == 0:
        return None
    # Imported here: SciPy's statistics cost every run some 30 MB, and few runs have labels.
    from scipy import stats

    return float(stats.kendalltau(pairs[:, 0], pairs[:, 1], variant="b").statistic)


def pointwise_calls(labels: HumanLabels, items: Sequence[str],
                    scored: Sequence[ItemScore]) -> list[LabelledCall]:
    """A pointwise run's verdict on each labelled pair: the higher score wins.

    Its judge scored each text alone, never a pair: one verdict per person's verdict,
    shown in the person's order, None where a text has no score.
    """
    score = {entry.item: entry.score for entry in scored}
    calls = []
    for v in labels.verdicts:
        a, b = score.get(items[v.a]), score.get(items[v.b])
        judge = None if a is None or b is None else "A" if a > b else "B" if a < b else "tie"
        reason = "" if judge is None else f"scores {a:.3g} and {b:.3g}"
        calls.append(LabelledCall(v.a, v.b, v.winner, judge, True, reason))
    return calls


def label_confusion(labels: HumanLabels, items: Sequence[str], scored: Sequence[ItemScore],
                    scale: Sequence[int]) -> tuple[tuple[int, ...], ...] | None:
    """Counts of (person's score, judge's label) over the calls on scored items.

    Only when every person's score is one of the scale's labels (None otherwise): then
    both speak the same scale. Rows and columns follow `scale`.
    """
    place = {label: k for k, label in enumerate(scale)}
    if not labels.scores or any(s.score not in place for s in labels.scores):
        return None
    calls = {entry.item: entry.calls for entry in scored}
    counts = np.zeros((len(scale), len(scale)), dtype=int)
    for s in labels.scores:
        for call in calls.get(items[s.item], ()):
            if call.label in place:
                counts[place[int(s.score)], place[call.label]] += 1
    return tuple(tuple(int(c) for c in row) for row in counts)


def stored_with_people(result: SortResult, state: Mapping[str, Any], anchor: bool,
                       human: Mapping[str, Any] | None = None) -> SortResult:
    """The result of a stored run (its final `state`) with its people's labels, if any.

    `human` replaces the run's labels (a sort allowed to go on with other ones).
    """
    labels = state_labels(human if human is not None else state.get("human"))
    if labels is None:
        return result
    settings = settings_from_state(state)
    scale = getattr(settings, "scale", None)  # a pointwise run's: its labels, unless inverse
    on_scale = None if scale is None or getattr(settings, "inverse", False) else scale.labels
    return with_people(result, list(state["items"]), labels, anchor, on_scale)


def with_people(result: SortResult, items: Sequence[str], labels: HumanLabels,
                anchor: bool, scale: Sequence[int] | None = None) -> SortResult:
    """`result` with its agreement with `labels` and, with `anchor`, the anchored order.

    Args:
        result: A run's result (its `scores` and `intervals` are the judge's).
        items: The run's items, in the order the labels' indices name them.
        labels: The people's labels.
        anchor: Rank by the anchored fit (False: keep the judge's own order).
        scale: A pointwise run's labels, when higher is better (for `label_confusion`).
    """
    # Imported here: the length fit loads SciPy's optimizers, which a run without labels
    # never needs.
    from llm_qualitative_sort.results.adjusted import human_length_preference

    judge = [result.scores[text] for text in items]
    people = human_strengths(labels, len(items)).tolist()
    calls = (pointwise_calls(labels, items, result.pointwise) if result.pointwise else
             labelled_calls(labels, items, result.match_history))
    agreement = judge_agreement(calls, judge_strengths=judge, human_strengths=people)
    if labels.scores:
        agreement = dataclasses.replace(agreement, kendall=kendall_tau(
            judge, human_strengths(HumanLabels(scores=labels.scores), len(items)).tolist()))
    if result.pointwise and scale is not None:
        found = label_confusion(labels, items, result.pointwise, scale)
        if found is not None:
            agreement = dataclasses.replace(agreement, scale_labels=tuple(scale),
                                            label_confusion=found)
    changes: dict[str, Any] = {"agreement": agreement, "human": "sha256:" + labels.digest(),
                               "people_length_preference": human_length_preference(labels,
                                                                                   items)}
    # The fits already made are kept, not made again (`SortResult`'s cached properties).
    cached = {key: value for key, value in result.__dict__.items()
              if key in ("_rating", "_top_k", "scores", "intervals")}
    if anchor:
        intervals = result.intervals
        errors = [(intervals[text][1] - intervals[text][0]) / (2 * _Z95) for text in items]
        fit = anchored_fit(labels, judge, errors)
        rating = AnchoredRating(items, fit)
        rankings = rank_by_score(scores := rating.scores())
        tied, largest = shared_places(rankings)
        changes.update(rankings=rankings, order="anchored", statistics=dataclasses.replace(
            result.statistics, tied_items=tied, largest_tie=largest))
        cached = {"_rating": rating, "scores": scores, "intervals": rating.intervals(),
                  "_judge_rating": result._judge_rating}
        low, high = fit.rank_intervals()
        changes["rank_intervals"] = {text: (int(lo), int(hi)) for text, lo, hi in
                                     zip(items, low, high, strict=True)}
    made = dataclasses.replace(result, **changes)
    made.__dict__.update(cached)
    return made


__all__ = [
    "Agreement",
    "AnchoredRating",
    "anchored_fit",
    "anchored_scores",
    "checked_human",
    "kendall_tau",
    "label_confusion",
    "label_state",
    "labelled_calls",
    "labelled_pairs",
    "labels_digest",
    "pairs_to_ask",
    "pointwise_calls",
    "reindexed",
    "score_verdicts",
    "state_labels",
    "stored_with_people",
    "within_budget",
    "with_people",
]
