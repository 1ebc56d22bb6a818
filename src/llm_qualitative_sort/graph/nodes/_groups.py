"""The ranking calls of a round, from their journal places to their stored logs.

A ranking call is one call: one journal entry, one cache entry, its tokens counted once. It
is stored in the round's own list (`RoundLog["groups"]`), never as matches: the items in
the order shown, the order they were given (item indices, best first) or None with the
reason, the reasoning, whether the cache answered, the tokens and the judge of a panel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort._calls import Call, batch_answer
from llm_qualitative_sort._calls.ranking import ranking_place
from llm_qualitative_sort.providers.questions import RANK_LABELS
from llm_qualitative_sort.stores.base import RunJournal
from llm_qualitative_sort.stores.entries import CallFacts
from llm_qualitative_sort.tournament.swiss.groups import GroupLog
from llm_qualitative_sort.verdicts import RankingResult


class GroupCalls:
    """A round's ranking calls: their `Call`s, then each answer in its stored form.

    Args:
        items: The run's texts.
        planned: The round's groups as the state keeps them: [first repetition, items...].
        run_id: The run (names each call's place in the journal).
        round_number: The round.
        first_key: The journal's match number of the first group (after the round's
            matches, so that no group shares a place with a match).
    """

    def __init__(self, items: Sequence[str], planned: Sequence[Sequence[int]], run_id: str,
                 round_number: int, first_key: int, journal: RunJournal | None = None) -> None:
        self.shown = [list(group[1:]) for group in planned]
        self.calls = [Call(ranking_place(run_id, round_number, first_key + number,
                                         [items[i] for i in shown]), group[0])
                      for number, (group, shown) in enumerate(zip(planned, self.shown,
                                                                  strict=True))]
        self.logs: list[GroupLog | None] = [None] * len(planned)
        # The calls a resumed run finds answered (progress counts them apart).
        self.journaled = {number for number, call in enumerate(self.calls)
                          if journal is not None and journal.entry(call.place) is not None}

    def answer(self, number: int, result: RankingResult, cached: bool,
               facts: CallFacts | None = None) -> GroupLog:
        """Store the answer of group `number`; return its stored form."""
        log = self.logs[number] = group_log(self.shown[number], result, cached, facts)
        return log

    def stored(self) -> list[GroupLog]:
        """The round's ranking calls as the history keeps them (every one answered)."""
        return [log for log in self.logs if log is not None]


def group_log(shown: Sequence[int], result: RankingResult, cached: bool,
              facts: CallFacts | None = None) -> GroupLog:
    """A ranking call as a round stores it (`GroupLog`); its order in item indices.

    Example:
        >>> answer = RankingResult((("C",), ("A",), ("B",)), "C first")
        >>> group_log([7, 2, 5], answer, cached=False)["order"]
        [[5], [7], [2]]
    """
    log: dict[str, Any] = {"items": list(shown), "order": None, "reasoning": result.reasoning,
                           "cached": cached, "input_tokens": result.input_tokens,
                           "output_tokens": result.output_tokens}
    order = result.order
    if order is not None:
        log["order"] = [[shown[RANK_LABELS.index(label)] for label in place] for place in order]
    else:
        log["problem"] = str(result.raw_response.get("problem") or "the judge gave no order")
    if facts and isinstance(facts.get("judge"), str):
        log["judge"] = facts["judge"]
    if not cached and batch_answer(result):
        log["batch"] = True
    return log
