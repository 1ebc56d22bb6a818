"""Swiss's pointwise pre-pass: every item scored alone once, then matches that start there.

The pre-pass is the run's first round: one call per item, each showing that item alone
(a `PlannedScore`, see `Strategy.question`) and asking for a label on the default 1–4
scale (or the inverse question: how far the text is from meeting the criterion). Its
scores then serve the Swiss rounds twice:

- the first Swiss round pairs neighbours in the strengths fitted to the virtual calls
  below (in expected label when there are none);
- every Bradley–Terry fit of the run (pairing, refinement, the early stop, the final
  ranks and `SortResult.scores`) also takes `score_calls`: for each of `SCORE_ROUNDS`
  random perfect matchings of the items (drawn from n alone, so every reader of a run
  draws the same), a virtual call per pair whose outcome is the chance that the first
  item's label beats the other's (ties count ½), from the labels' probabilities where the
  judge gave them. A pair whose chance is exactly ½ (the same label, given with certainty)
  gets no virtual call: equal labels do not say that the texts are equal, and a lenient
  judge gives most texts the top label (the fit would pull them all together). Each
  virtual call is entered in both presentation orders (outcomes p and 1 − p), so it
  says nothing about the position bias.

Without the virtual calls (`SCORE_ROUNDS = 0`) the scores only order the first pairing;
at a budget of 2n the one Swiss round that follows meets each item once, and a fit of
those calls alone knows nothing across pairs (the pre-pass study in the docs measured
both).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import numpy as np

from llm_qualitative_sort.rating.played import Calls
from llm_qualitative_sort.rating.scoring import Scale, ScoreQuestion
from llm_qualitative_sort.tournament.records import round_scores

# The pre-pass question: the default scale, asked directly (or inverse).
SCALE = Scale.parse(None)
INVERSE = "pointwise-inverse"


def question(prepass: str | None) -> ScoreQuestion:
    """The question of a pre-pass ("pointwise" or "pointwise-inverse")."""
    return ScoreQuestion(SCALE, prepass == INVERSE)
# Random matchings whose virtual calls carry the scores into every fit (0: none).
SCORE_ROUNDS = 4

Spread = dict[int, float]


def label_spreads(history: Iterable[Any], n_items: int, inverse: bool = False
                  ) -> list[Spread | None]:
    """Each item's pre-pass answer as label probabilities (None: not scored).

    Reads the scores of the rounds: the label's distribution when the judge gave
    one, else the label alone (probability 1). An inverse answer's labels are turned
    around (label k becomes low + high − k), so a higher label is always better.
    """
    flip = SCALE.low + SCALE.high
    spreads: list[Spread | None] = [None] * n_items
    for entry in history:
        for item, call in round_scores(entry):
            stored = call.label
            if stored is None or stored.get("label") is None:
                continue
            dist = stored.get("distribution")
            spread = ({int(k): float(p) for k, p in dist} if dist else
                      {int(stored["label"]): 1.0})
            total = sum(spread.values())
            spreads[item] = {(flip - k if inverse else k): p / total
                             for k, p in spread.items()}
    return spreads


def expected_scores(spreads: list[Spread | None]) -> list[float]:
    """Each item's expected label on 0–1 (unscored items in the middle, ½)."""
    scale = SCALE
    width = scale.high - scale.low
    return [0.5 if s is None else
            sum(k * p for k, p in s.items()) / width - scale.low / width for s in spreads]


def beats(first: Spread, second: Spread) -> float:
    """P(first's label > second's) + ½ P(equal), the labels drawn independently.

    Example:
        >>> beats({4: 1.0}, {3: 0.5, 4: 0.5})
        0.75
    """
    share = 0.0
    for k, p in first.items():
        for j, q in second.items():
            share += p * q * (1.0 if k > j else 0.5 if k == j else 0.0)
    return min(max(share, 0.0), 1.0)  # a sum of rounded products may pass 1 by an ulp


def score_calls(spreads: list[Spread | None], rounds: int | None = None) -> Calls:
    """The virtual calls that carry the pre-pass into a fit, as (first, second, first_won)."""
    rounds = SCORE_ROUNDS if rounds is None else rounds
    n = len(spreads)
    rng = random.Random(f"llm-qualitative-sort/prepass/{n}")
    first: list[int] = []
    second: list[int] = []
    won: list[float] = []
    for _ in range(rounds):
        order = list(range(n))
        rng.shuffle(order)
        for i, j in zip(order[::2], order[1::2], strict=False):
            si, sj = spreads[i], spreads[j]
            if si is None or sj is None:
                continue
            p = beats(si, sj)
            if p == 0.5:  # equal labels say nothing of the order, not that they are equal
                continue
            first += [i, j]
            second += [j, i]
            won += [p, 1.0 - p]
    return (np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp),
            np.asarray(won, dtype=np.float64))


def prepass_calls(history: Iterable[Any], n_items: int, prepass: str | None
                  ) -> Calls | None:
    """The virtual calls of a run's pre-pass (None: the run had none, or they are off)."""
    rounds = list(history)
    if prepass is None or SCORE_ROUNDS == 0 or not any(round_scores(entry) for entry in rounds):
        return None
    return score_calls(label_spreads(rounds, n_items, prepass == INVERSE))
