"""Swiss with ranking calls: groups of k neighbours, each call asking for their order.

With `group_size` k > 2, a Swiss round is one ranking call per group of k items that are
neighbours in the current standing (the n mod k left over sit out, drawn at random, never
the same items two rounds running when others can), each group shown in a fresh random
order. The top-K refinement groups the focus items the same way.

Every call's order enters the Bradley–Terry fit as the pairs it implies
(`rating.design.implied_pairs`), the earlier-shown item of each pair as its "first", ties
half a win. The k(k−1)/2 pairs of one call come from one judgement, not from independent
calls, so each counts `PAIR_WEIGHT(k)` = 2/k: a call weighs as k − 1 comparisons, as many
as it has degrees of freedom. Measured against weight 1 in `scripts/group_fit_study.py`
(docs/benchmarks/listwise.md).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llm_qualitative_sort.rating.design import implied_pairs
from llm_qualitative_sort.rating.played import Calls, with_calls
from llm_qualitative_sort.tournament.base import PlannedGroup
from llm_qualitative_sort.tournament.swiss.prepass import prepass_calls

Group = tuple[int, ...]
# A ranking call as a round stores it (see `tournament.records.RoundLog`): the items as shown,
# the order (item indices best first, tied items sharing a place; None: no order), the
# reasoning, whether the cache answered, the tokens, and optional facts (judge, problem).
GroupLog = dict[str, Any]


def pair_weight(size: int) -> float:
    """How much each implied pair of a ranking call of `size` items counts in the fit.

    Example:
        >>> pair_weight(2), pair_weight(4)
        (1.0, 0.5)
    """
    return 2.0 / size


def sitting_out(order: Sequence[int], size: int, last: Iterable[int],
                rng: random.Random) -> set[int]:
    """The n mod k items that sit this round out: at random, not last round's when avoidable.

    Example:
        >>> sorted(sitting_out([0, 1, 2, 3, 4], 4, last=[2], rng=random.Random(0))) != [2]
        True
    """
    count = len(order) % size
    if not count:
        return set()
    before = set(last)
    fresh = sorted(i for i in order if i not in before)
    pool = fresh if len(fresh) >= count else sorted(order)
    return set(rng.sample(pool, count))


def neighbour_groups(order: Sequence[int], size: int) -> list[Group]:
    """Consecutive runs of `size` items of `order` (strongest first); a short tail is left out.

    Example:
        >>> neighbour_groups([5, 3, 1, 0, 2, 4, 6], 3)
        [(5, 3, 1), (0, 2, 4)]
    """
    return [tuple(order[start:start + size])
            for start in range(0, len(order) - size + 1, size)]


def focus_groups(focus: Sequence[int], order: Sequence[int], size: int,
                 calls: int) -> list[Group]:
    """At most `calls` groups for a refinement wave: the focus items in runs of `size`.

    Each pass over the focus shifts where its runs start, so that items meet other
    neighbours from one group to the next; a focus smaller than `size` is filled with the
    strongest items outside it.

    Example:
        >>> focus_groups([4, 2, 7], [4, 2, 7, 1, 0], 3, calls=3)
        [(4, 2, 7), (4, 2, 7), (4, 2, 7)]
    """
    members = list(focus)
    members += [i for i in order if i not in set(focus)][: max(size - len(members), 0)]
    chosen: list[Group] = []
    shift = 0
    while len(chosen) < calls:
        start = shift % max(len(members) - size + 1, 1)
        chosen += neighbour_groups(members[start:], size)[: calls - len(chosen)]
        shift += max(size // 2, 1)
    return chosen


def shown(groups: Sequence[Group], rng: random.Random) -> list[Group]:
    """Each group in a fresh random order: a slot's bias then falls on no item in particular."""
    placed = []
    for group in groups:
        order = list(group)
        rng.shuffle(order)
        placed.append(tuple(order))
    return placed


def planned(groups: Sequence[Group], seen: Counter[Group]) -> list[PlannedGroup]:
    """The groups as calls, each repetition past the calls that showed it so before."""
    counts = Counter(seen)
    calls = []
    for group in groups:
        calls.append(PlannedGroup(group, counts[group]))
        counts[group] += 1
    return calls


@dataclass
class GroupEvidence:
    """What a run's ranking calls tell the fit, and the counts pairing needs.

    `first`, `second`, `first_won` and `weight` hold one entry per implied pair of every
    call that gave an order; `calls` counts every ranking call (with an order or not),
    `seen` how often each group was shown in each order, `last` the items of the last round
    that had ranking calls.
    """

    first: list[int] = field(default_factory=list)
    second: list[int] = field(default_factory=list)
    first_won: list[float] = field(default_factory=list)
    weight: list[float] = field(default_factory=list)
    calls: int = 0
    seen: Counter[Group] = field(default_factory=Counter)
    last: set[int] = field(default_factory=set)


def gather_groups(history: Iterable[Any]) -> GroupEvidence:
    """One pass over the ranking calls (`"groups"`) of a run's rounds."""
    found = GroupEvidence()
    for entry in history:
        logs = entry.get("groups") or ()
        if logs:
            found.last = set()
        for log in logs:
            items = tuple(log["items"])
            found.calls += 1
            found.seen[items] += 1
            found.last.update(items)
            if log.get("order") is not None:
                add_order(found, items, log["order"])
    return found


def add_order(found: GroupEvidence, items: Sequence[int], order: Sequence[Sequence[int]]) -> None:
    """The pairs a call's order implies, each oriented as shown (earlier slot first)."""
    slot = {item: place for place, item in enumerate(items)}
    weight = pair_weight(len(items))
    for a, b, share in implied_pairs(order):
        first, second, won = (a, b, share) if slot[a] < slot[b] else (b, a, 1.0 - share)
        found.first.append(first)
        found.second.append(second)
        found.first_won.append(won)
        found.weight.append(weight)


def arrays(found: GroupEvidence) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The implied pairs as the fit takes them: (first, second, first_won, weight)."""
    return (np.asarray(found.first, dtype=np.intp), np.asarray(found.second, dtype=np.intp),
            np.asarray(found.first_won, dtype=np.float64),
            np.asarray(found.weight, dtype=np.float64))


def extra_calls(history: Sequence[Any], n_items: int, prepass: str | None
                ) -> tuple[Calls | None, np.ndarray | None]:
    """What a Swiss run's fit takes besides its pairwise calls, and the weight of each.

    The pre-pass's virtual calls (weight 1), then every ranking call's implied pairs
    (`pair_weight`). The weights are None when there are no ranking calls: the fit is then
    exactly the fit of a run without them.
    """
    virtual = prepass_calls(history, n_items, prepass)
    found = gather_groups(history)
    if not found.first:
        return virtual, None
    first, second, won, weight = arrays(found)
    before = 0 if virtual is None else len(virtual[0])
    return (with_calls(virtual, (first, second, won)) if virtual is not None
            else (first, second, won)), np.concatenate([np.ones(before), weight])
