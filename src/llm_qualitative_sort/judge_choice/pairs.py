"""The people's labels as the pairs to ask: plain data in, plain data out.

A calibration asks only what people labelled. Its items are the labelled texts, in the
order a run keeps its items (sorted by text, so that a run's item numbers are these), each
pair is asked once (in the orientation of its first verdict),
and every verdict is turned to that orientation. Labels that are scores only become a
verdict on every pair of scored items: the higher score wins, equal scores tie.

Example:
    >>> from llm_qualitative_sort.results.human import HumanLabels, HumanVerdict
    >>> labels = HumanLabels((HumanVerdict(2, 0, "A"), HumanVerdict(0, 2, "A")))
    >>> asked = labelled_pairs(labels, ["c", "x", "a"])
    >>> asked.items, asked.pairs, asked.verdicts
    ((2, 0), ((0, 1),), ((0, 1, 'A'), (0, 1, 'B')))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from llm_qualitative_sort.results.human import HumanLabels

_FLIP = {"A": "B", "B": "A", "tie": "tie"}


@dataclass(frozen=True)
class LabelledPairs:
    """What to ask, in the calibration's own item numbers.

    Attributes:
        items: The labelled items, as indices into the user's items, in the order of
            their texts.
        pairs: The distinct pairs to ask, `(a, b)` indices into `items`.
        verdicts: Every person's verdict as `(a, b, winner)` on a pair of `pairs`, in its
            orientation.
    """

    items: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    verdicts: tuple[tuple[int, int, str], ...]


def labelled_pairs(labels: HumanLabels, texts: Sequence[str]) -> LabelledPairs:
    """The pairs and verdicts `labels` on `texts` give (their verdicts, else their scores')."""
    given = [(v.a, v.b, str(v.winner)) for v in labels.verdicts] or _score_verdicts(labels)
    items = tuple(sorted({i for a, b, _ in given for i in (a, b)}, key=lambda i: texts[i]))
    local = {item: k for k, item in enumerate(items)}
    pairs: dict[frozenset[int], tuple[int, int]] = {}
    verdicts = []
    for a, b, winner in given:
        pair = pairs.setdefault(frozenset((local[a], local[b])), (local[a], local[b]))
        same = pair == (local[a], local[b])
        verdicts.append((*pair, winner if same else _FLIP[winner]))
    return LabelledPairs(items, tuple(pairs.values()), tuple(verdicts))


def _score_verdicts(labels: HumanLabels) -> list[tuple[int, int, str]]:
    scored = sorted(labels.scores, key=lambda s: s.item)
    return [(x.item, y.item, verdict(x.score, y.score)) for x, y in combinations(scored, 2)]


def verdict(first: float, second: float) -> str:
    """"A" when `first` is higher, "B" when `second` is, "tie" when they are equal.

    Example:
        >>> verdict(0.5, 0.25), verdict(1, 1)
        ('A', 'tie')
    """
    return "A" if first > second else "B" if second > first else "tie"
