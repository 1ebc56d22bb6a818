"""Swiss on Bradley–Terry strengths: everyone plays every round against a near neighbour.

The standing holds the strengths fitted after the last round (the pairing order and the
warm start of the next fit), the judgements used so far, the phase ("prepass" first with
a pre-pass, then "swiss", then "refine" when `top_k` is set), the last bye, and — with
`stop_when_settled` — the Top-K accuracy the fit expects of its own top K ("expected") and
whether that settles them.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from llm_qualitative_sort.bradley_terry import DIGITS, BradleyTerryFit, fit_bradley_terry
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.models import EarlyStop, EventType
from llm_qualitative_sort.rating.played import Calls, with_calls
from llm_qualitative_sort.rating.scoring import ScoreQuestion
from llm_qualitative_sort.tournament.base import (
    Note,
    PlannedMatch,
    PlannedScore,
    RoundPlan,
    Standing,
    Strategy,
    Update,
)
from llm_qualitative_sort.tournament.elimination.ranking import competition_ranks
from llm_qualitative_sort.tournament.swiss.choice import PAIR_CHOICES, PairChoice, RoundView
from llm_qualitative_sort.tournament.swiss.evidence import (
    Evidence,
    gather_evidence,
    pair_key,
    strength_order,
)
from llm_qualitative_sort.tournament.swiss.groups import (
    extra_calls,
    focus_groups,
    gather_groups,
    neighbour_groups,
    planned,
    shown,
    sitting_out,
)
from llm_qualitative_sort.tournament.swiss.pairing import choose_bye, orient
from llm_qualitative_sort.tournament.swiss.prepass import (
    INVERSE,
    expected_scores,
    label_spreads,
    question,
    score_calls,
)
from llm_qualitative_sort.tournament.swiss.refine import (
    FULL_BUDGET,
    UNTIL_SETTLED,
    RefinePlan,
    focus_items,
)
from llm_qualitative_sort.tournament.swiss.settings import Swiss
from llm_qualitative_sort.tournament.swiss.settle import (
    SAMPLES,
    expected_top_k_share,
    top_k_settled,
)
from llm_qualitative_sort.tournament.swiss.tokens import (
    Estimates,
    check_budget_tokens,
    estimates,
    per_call,
    spent,
    tokens_left_calls,
)

# Strengths are stored rounded: enough for pairing and warm starts, small in checkpoints.
STORED_DIGITS = 6
SHOWN_TOP = 10


def ranking_calls(history: Sequence[Any]) -> int:
    """The ranking calls of a run's rounds (one judgement of the budget each)."""
    return sum(len(entry.get("groups") or ()) for entry in history)


def default_budget(n_items: int, comparison_rounds: int = 2) -> int:
    """What elimination with N=2 and two calls per match makes at most: 2·(2n − 1) calls.

    Example:
        >>> default_budget(1000)
        3998
    """
    del comparison_rounds
    return 2 * (2 * n_items - 1)


class SwissStrategy(Strategy[Swiss]):
    """Swiss rounds on Bradley–Terry strengths, with optional top-K refinement and early stop.

    One call per match (the settings' default) on twice the pairings beats AB/BA pairs at
    equal calls (see the strategy study (docs/benchmarks/strategies.md): τ-b 0.907 against
    0.761 at the N=2 budget).
    """

    name = "swiss"
    settings_class = Swiss
    native_ranking = "bradley_terry"
    not_pipelined_because = (
        "Swiss pairs every item with its neighbour in strengths refitted to all calls after "
        "each round; items paired as soon as they are free would meet whoever else happens "
        "to be free, not their neighbours (use the default schedule='rounds')"
    )

    @classmethod
    def check(cls, settings: Swiss, n_items: int) -> None:
        """Top K must leave someone outside; the budget must pay for one match."""
        if settings.top_k is not None and settings.top_k >= n_items:
            raise InputError(f"top_k must be smaller than the number of items ({n_items}), "
                             f"got {settings.top_k}")
        if settings.group_size > 2 and settings.group_size > n_items:
            raise InputError(f"group_size must be at most the number of items ({n_items}), "
                             f"got {settings.group_size}")
        one_match = f"{settings.calls} call" + ("s" if settings.calls != 1 else "")
        if cls._budget(settings, n_items) < settings.calls:
            raise InputError(f"budget must pay for one match ({one_match}), "
                             f"got {settings.budget}")
        needed = n_items + settings.calls
        if settings.prepass is not None and cls._budget(settings, n_items) < needed:
            raise InputError(f"budget must pay for the pre-pass ({n_items} calls, one per "
                             f"item) and one match ({one_match}): at least "
                             f"{needed}, got {settings.budget}")

    @classmethod
    def check_texts(cls, settings: Swiss, texts: Sequence[str], criteria: str) -> None:
        """`check`, and that a token budget pays for the first round (see `swiss.tokens`)."""
        cls.check(settings, len(texts))
        if settings.budget_tokens is not None:
            check_budget_tokens(settings.budget_tokens,
                                estimates(texts, criteria, settings.group_size), len(texts),
                                settings.group_size, settings.calls, settings.prepass is not None)

    @staticmethod
    def _budget(settings: Swiss, n_items: int) -> int:
        return settings.budget if settings.budget is not None else default_budget(n_items)

    @property
    def budget(self) -> int:
        """Judgements (paid calls and cache hits) the run may use."""
        return self._budget(self.settings, self.n_items)

    @property
    def refine_plan(self) -> RefinePlan:
        """The refinement's share of the budget and its waves (see `swiss.refine`)."""
        return UNTIL_SETTLED if self.settings.stop_when_settled else FULL_BUDGET

    @property
    def swiss_budget(self) -> int:
        """Judgements for the Swiss rounds; the rest refines the top K."""
        if self.settings.top_k is None:
            return self.budget
        return self.budget - int(self.budget * self.refine_plan.share)

    @property
    def swiss_tokens(self) -> int | None:
        """Tokens for the Swiss rounds (the refinement's share kept back, as of calls)."""
        total = self.settings.budget_tokens
        if total is None or self.settings.top_k is None:
            return total
        return total - int(total * self.refine_plan.share)

    def start(self) -> Standing:
        """Everyone at strength 0, nothing used yet (the pre-pass first, with one)."""
        phase = "swiss" if self.settings.prepass is None else "prepass"
        return {"strengths": [0.0] * self.n_items, "used": 0, "phase": phase,
                "last_bye": None, "waves": 0, "settled": False, "expected": None}

    def opening(self, texts: Sequence[str], criteria: str) -> Standing:
        """`start`; with a token budget, no token used and the estimates from the texts."""
        standing = self.start()
        if self.settings.budget_tokens is not None:
            known = estimates(texts, criteria, self.settings.group_size)
            standing.update(tokens=0, per_call=float(self._kind_estimate(known)),
                            estimates=list(known))
        return standing

    def _kind_estimate(self, known: Estimates) -> int:
        return known.group if self.settings.group_size > 2 else known.pair

    def _spent(self, history: Sequence[Any], standing: Standing) -> Standing:
        """With a token budget: the tokens used and expected per call (else nothing)."""
        if self.settings.budget_tokens is None:
            return {}
        known = Estimates(*standing["estimates"])
        found = spent(history, known, groups=self.settings.group_size > 2)
        return {"tokens": found.tokens, "per_call": per_call(found, self._kind_estimate(known))}

    def _left(self, standing: Standing, swiss: bool = False) -> int:
        """Judgements the rest pays for: of the calls and, with one, of the tokens budget."""
        calls = (self.swiss_budget if swiss else self.budget) - int(standing["used"])
        tokens = self.swiss_tokens if swiss else self.settings.budget_tokens
        if tokens is None:
            return calls
        return min(calls, tokens_left_calls(tokens, int(standing["tokens"]),
                                            float(standing["per_call"])))

    def question(self, standing: Standing) -> ScoreQuestion | None:
        """The pre-pass's question during the pre-pass round, else None (pairs)."""
        return question(self.settings.prepass) if standing["phase"] == "prepass" else None

    def plan(self, standing: Standing, history: Sequence[Any], round_number: int) -> RoundPlan:
        """The pre-pass, a Swiss round, or a refinement wave once the Swiss budget is spent."""
        if standing["phase"] == "prepass":  # every item alone, once
            return RoundPlan([], scores=[PlannedScore(item) for item in range(self.n_items)])
        rng = self.rng(round_number)
        if self.settings.group_size > 2:
            return self._group_round(standing, history, rng)
        evidence = gather_evidence(history, self.n_items, self.soft)
        view = self._view(standing, history, evidence, rng)
        bye = None
        if standing["phase"] == "swiss":
            order = strength_order(standing["strengths"], rng)
            bye = choose_bye(order, standing["last_bye"], rng)
            pairs = self.choice.round_pairs([i for i in order if i != bye], view)
            # The last Swiss round may be cut short by the budget: the first pairs play.
            pairs = pairs[: self._affordable(self._left(standing, swiss=True))]
        else:
            pairs = self._wave(standing, view)
        if self.settings.calls == 1:
            pairs = orient(pairs, list(evidence.shown_first), rng)
        return RoundPlan(self._fresh(pairs, evidence.meetings), bye)

    @property
    def choice(self) -> PairChoice:
        """How rounds and refinement waves choose their pairs (`Swiss.pairing`)."""
        return PAIR_CHOICES[self.settings.pairing]

    def _view(self, standing: Standing, history: Sequence[Any], evidence: Evidence,
              rng: random.Random) -> RoundView:
        (first, second, _), _weights = self._fit_input(history, evidence)
        return RoundView(standing["strengths"], first, second, evidence.meetings, rng)

    def _group_round(self, standing: Standing, history: Sequence[Any],
                     rng: random.Random) -> RoundPlan:
        """Ranking calls: groups of neighbours in the standing, each shown shuffled."""
        size = self.settings.group_size
        found = gather_groups(history)
        order = strength_order(standing["strengths"], rng)
        if standing["phase"] == "swiss":
            sat = set(range(self.n_items)) - found.last if found.last else set()
            out = sitting_out(order, size, sat, rng)
            groups = neighbour_groups([i for i in order if i not in out], size)
            groups = groups[: self._affordable(self._left(standing, swiss=True))]
        else:
            focus, calls = self._focus(standing)
            groups = focus_groups(focus, order, size, calls)
        return RoundPlan([], None, groups=planned(shown(groups, rng), found.seen))

    def _wave(self, standing: Standing, view: RoundView) -> list[tuple[int, int]]:
        focus, calls = self._focus(standing)
        return self.choice.wave_pairs(focus, self.settings.calls, calls, view)

    def _focus(self, standing: Standing) -> tuple[list[int], int]:
        """The items where the K-th place is decided, and the calls of this wave."""
        strengths = np.asarray(standing["strengths"])
        errors = np.asarray(standing["standard_errors"])
        assert self.settings.top_k is not None
        focus = focus_items(strengths, strengths - 1.96 * errors, strengths + 1.96 * errors,
                            self.settings.top_k)
        left = self._left(standing)
        per_wave = math.ceil(left / max(self.refine_plan.waves - standing["waves"], 1))
        return focus, self._affordable(min(per_wave, left)) * self.settings.calls

    def _affordable(self, calls: int) -> int:
        return max(calls, 0) // self.settings.calls

    def _fresh(self, pairs: list[tuple[int, int]], meetings: Counter[tuple[int, int]]
               ) -> list[PlannedMatch]:
        # Repetition offsets past every earlier call on the pair (and earlier copies in this
        # round): a rematch is a new judgement, never a cached answer counted again.
        seen: Counter[tuple[int, int]] = Counter()
        planned = []
        for a, b in pairs:
            key = pair_key(a, b)
            planned.append(PlannedMatch(a, b, meetings[key] + seen[key]))
            seen[key] += self.settings.calls
        return planned

    def update(self, standing: Standing, history: Sequence[Any]) -> Update:
        """Refit the strengths to every call so far; move to refinement; test for a stop."""
        if standing["phase"] == "prepass":
            return self._after_prepass(standing, history)
        evidence = gather_evidence(history, self.n_items, self.soft)
        used = evidence.calls + ranking_calls(history)
        k = self.settings.top_k
        cost = self.settings.calls
        tokens = self._spent(history, standing)
        refining = k is not None and self._left({"used": used, **tokens}, swiss=True) < cost
        need_errors = k is not None and (refining or self.settings.stop_when_settled)
        calls, weight = self._fit_input(history, evidence)
        fit = fit_bradley_terry(self.n_items, *calls, start=np.asarray(standing["strengths"]),
                                uncertainty=need_errors, weight=weight)
        settled, expected = self._settled(fit)
        new: Standing = {
            "strengths": [round(float(s), STORED_DIGITS) for s in fit.strengths],
            "used": used,
            "phase": "refine" if refining else "swiss",
            "last_bye": history[-1].get("bye"),
            "waves": standing["waves"] + (standing["phase"] == "refine"),
            "settled": settled,
            "expected": expected,
            **tokens,
        }
        if tokens:
            new["estimates"] = standing["estimates"]
        if need_errors:
            new["standard_errors"] = [round(float(e), STORED_DIGITS)
                                      for e in fit.standard_errors]
        return Update(new, [self._standings_note(new, fit.position)])

    def _fit_input(self, history: Sequence[Any], evidence: Evidence
                   ) -> tuple[Calls, np.ndarray | None]:
        """Every call for the fit (pairwise, pre-pass, ranking calls' pairs), with weights.

        The weights are None for a run without ranking calls: every call counts once.
        """
        extra, weight = extra_calls(history, self.n_items, self.settings.prepass)
        own = (evidence.first, evidence.second, evidence.first_won)
        if weight is not None:
            weight = np.concatenate([np.ones(len(own[0])), weight])
        return with_calls(own, extra), weight

    def _after_prepass(self, standing: Standing, history: Sequence[Any]) -> Update:
        """After the pre-pass: strengths from its virtual calls (else its expected labels).

        The first Swiss round pairs neighbours in them.
        """
        spreads = label_spreads(history, self.n_items, self.settings.prepass == INVERSE)
        virtual = score_calls(spreads)
        if len(virtual[0]):
            strengths = fit_bradley_terry(self.n_items, *virtual, uncertainty=False).strengths
        else:
            strengths = np.asarray(expected_scores(spreads))
        scored = sum(s is not None for s in spreads)
        new: Standing = {**standing, "phase": "swiss",
                         "used": gather_evidence(history, self.n_items).calls,
                         "strengths": [round(float(s), STORED_DIGITS) for s in strengths],
                         **self._spent(history, standing)}
        top = strength_order(new["strengths"])[:min(SHOWN_TOP, self.n_items)]
        note = Note(EventType.STANDINGS,
                    f"pre-pass: scored {scored} of {self.n_items} items alone, "
                    f"{new['used']}/{self.budget} judgements",
                    {"top": top, "strengths": [new["strengths"][i] for i in top],
                     "used": new["used"], "budget": self.budget, "phase": "prepass",
                     "scored": scored, "settled": False, "expected": None},
                    item_lists=("top",))
        return Update(new, [note])

    def _settled(self, fit: BradleyTerryFit) -> tuple[bool, float | None]:
        """With `stop_when_settled`: whether the top K are settled, and the expected share.

        The share is the Top-K accuracy the fit expects of its own top K (see `settle`);
        the run stops once it reaches `settle.LEVEL`.
        """
        k = self.settings.top_k
        if not self.settings.stop_when_settled or k is None:
            return False, None
        chances = fit.top_k_probability(k, samples=SAMPLES, seed=self.seed)
        expected = round(expected_top_k_share(fit.strengths, chances, k), 4)
        return top_k_settled(fit.strengths, chances, k), expected

    def _standings_note(self, standing: Standing, position: float) -> Note:
        shown = min(self.settings.top_k or SHOWN_TOP, self.n_items)
        top = strength_order(standing["strengths"])[:shown]
        expected = standing.get("expected")
        tokens = self.settings.budget_tokens
        spent = "" if tokens is None else f", {standing['tokens']:,}/{tokens:,} tokens"
        message = (f"{standing['used']}/{self.budget} judgements{spent}, {standing['phase']}"
                   + ("" if expected is None else
                      f", top {shown} expected {100 * expected:.0f} % right")
                   + (", top settled" if standing["settled"] else ""))
        return Note(EventType.STANDINGS, message, {
            "top": top, "strengths": [standing["strengths"][i] for i in top],
            "used": standing["used"], "budget": self.budget, "phase": standing["phase"],
            "settled": standing["settled"], "expected": expected,
            "position": round(position, 4),
            **({} if tokens is None else {"tokens": standing["tokens"], "budget_tokens": tokens}),
        }, item_lists=("top",))

    def finished(self, standing: Standing) -> bool:
        """Over when the budgets cannot pay for another match, or the top K are settled."""
        return bool(standing["settled"]) or self._left(standing) < self.settings.calls

    def early_stop(self, standing: Standing) -> EarlyStop | None:
        """The top K settled while the budget could still pay for a match."""
        used = int(standing["used"])
        if not standing["settled"] or self._left(standing) < self.settings.calls:
            return None
        assert self.settings.top_k is not None  # settling needs a top K
        return EarlyStop(self.settings.top_k, used, self.budget, standing.get("expected"))

    def rank(self, standing: Standing, history: Sequence[Any]) -> list[tuple[int, list[int]]]:
        """By Bradley–Terry strength, fitted afresh to every call (as `SortResult.scores`)."""
        evidence = gather_evidence(history, self.n_items, self.soft)
        calls, weight = self._fit_input(history, evidence)
        fit = fit_bradley_terry(self.n_items, *calls, uncertainty=False, weight=weight)
        return competition_ranks([round(float(s), DIGITS) for s in fit.strengths])

    def match_bounds(self) -> tuple[int, int]:
        """What the budget pays for; an early stop (`stop_when_settled`) may end sooner.

        With a pre-pass, its n one-call matches (items scored alone) come first and count.
        """
        if self.n_items < 2:
            return 0, 0
        prepass = self.prepass_size
        most = prepass + self._affordable(self.budget - prepass)
        return (prepass if self.settings.stop_when_settled else most), most

    @property
    def prepass_size(self) -> int:
        """The calls of the pre-pass round (0 without one)."""
        return self.n_items if self.settings.prepass is not None else 0

    def remaining_matches(self, standing: Standing) -> int:
        """What the rest of the budget pays for (the pre-pass's items, before it is played)."""
        if standing["phase"] == "prepass":
            return self.n_items + self._affordable(self.budget - self.n_items)
        return self._affordable(self._left(standing))
