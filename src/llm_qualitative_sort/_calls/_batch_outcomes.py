"""Reading an ended batch: which calls are answered, asked again, or submitted again.

Pure bookkeeping on plain data, apart from the provider and the journal: an answer with a
verdict is final; one without is asked again in the next batch until the provider's
`reasks` are used up, then final with `winner=None` (the live path's rule, through the same
`answers_result`); a request the batch did not answer goes into the next batch, unless the provider
refused it for good. A pointwise answer follows the same rules with its label for a verdict
(through the live path's `scored_result`), and is final as a `PointwiseResult`; so does a
ranking call's answer, with its order for a verdict (`ranked_result`), final as a
`RankingResult` whose order is checked as the live path checks it (`_calls.ranking.checked`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from llm_qualitative_sort._calls.base import Call
from llm_qualitative_sort._calls.ranking import checked, question_of
from llm_qualitative_sort.providers._answer import (
    AskedAnswer,
    RankedAnswer,
    ScoredAnswer,
    answers_result,
    ranked_result,
    scored_result,
)
from llm_qualitative_sort.providers._batch import Outcome, RequestFailure
from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.batch_journal import BatchJob
from llm_qualitative_sort.stores.entries import CallPlace

Place = tuple[int, int]  # (match, call)
# An answer as a batch gives it back: a verdict, a label or an order.
Given = AskedAnswer | ScoredAnswer | RankedAnswer


@dataclass
class Collected:
    """What an ended batch gave, per call index of the round.

    `final` holds the answers to journal and report; `kept` the answers without a verdict
    to keep (durably: they were paid for) while their call is asked again; `failed` the calls
    to submit again and why; `refused` the calls the provider refused for good.
    """

    final: list[tuple[int, CallAnswer]] = field(default_factory=list)
    kept: dict[Place, dict[str, Any]] = field(default_factory=dict)
    failed: list[tuple[int, str]] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)


def collect(
    job: BatchJob,
    outcomes: Mapping[str, Outcome],
    index: Mapping[Place, int],
    calls: Sequence[Call],
    unanswered: set[int],
    kept_before: Mapping[Place, list[dict[str, Any]]],
    reasks: int,
    ties: bool = False,
) -> Collected:
    """Sort the outcomes of `job`'s requests; calls already answered are left alone.

    `ties` says whether the run allows ties: a ranking call's order is checked by it, as
    the live judge's is.
    """
    done = Collected()
    for request in job.requests:
        place = (request.match, request.call)
        position = index.get(place)
        if position is None or position not in unanswered:
            continue
        if calls[position].place.shown != request.shown:
            continue  # recorded for other texts: never applied here
        outcome = outcomes.get(request.request_id)
        if outcome is None:
            done.failed.append((position, "the batch ended without answering it"))
        elif isinstance(outcome, RequestFailure):
            (done.failed if outcome.retry else done.refused).append((position, outcome.reason))
        elif isinstance(outcome, RankedAnswer) != bool(calls[position].place.texts):
            # Read by the question its record names, which is the call's: never reached
            # unless a provider's client mixed up its requests.
            done.refused.append((position, "the answer is not to the question the call asks"))
        else:
            earlier = [answer_from_dict(a) for a in kept_before.get(place, [])
                       if a.get("shown") == request.shown]
            final = _final([*earlier, outcome], reasks, calls[position].place, ties)
            if final is not None:
                done.final.append((position, final))
            else:
                done.kept[place] = answer_to_dict(outcome, request.shown)
    return done


def _final(answers: list[Given], reasks: int, place: CallPlace,
           ties: bool) -> CallAnswer | None:
    """The call's result from its answers so far, or None while it is to be asked again."""
    last = answers[-1]
    if isinstance(last, RankedAnswer):
        if last.order is None and len(answers) <= reasks:
            return None
        ranked = ranked_result([a for a in answers if isinstance(a, RankedAnswer)])
        return checked(ranked, question_of(place).labels, ties)
    if isinstance(last, ScoredAnswer):
        if last.answer is None and len(answers) <= reasks:
            return None
        return scored_result([a for a in answers if isinstance(a, ScoredAnswer)])
    if last.verdict is None and len(answers) <= reasks:
        return None
    return answers_result([a for a in answers if isinstance(a, AskedAnswer)])


def answer_to_dict(answer: Given, shown: str) -> dict[str, Any]:
    """An answer without a verdict (label, order) as kept in the batch journal."""
    kept = {"raw": answer.raw, "input_tokens": answer.input_tokens,
            "output_tokens": answer.output_tokens, "problem": answer.problem, "shown": shown}
    if isinstance(answer, RankedAnswer):
        return kept | {"ranking": True}
    return kept | ({"pointwise": True} if isinstance(answer, ScoredAnswer) else {})


def answer_from_dict(data: Mapping[str, Any]) -> Given:
    """A kept answer back (it had no verdict, no label, or no order)."""
    raw, problem = dict(data["raw"]), str(data["problem"])
    tokens = int(data["input_tokens"]), int(data["output_tokens"])
    if data.get("ranking"):
        return RankedAnswer(None, "", raw, *tokens, problem)
    kind = ScoredAnswer if data.get("pointwise") else AskedAnswer
    return kind(None, raw, *tokens, problem)
