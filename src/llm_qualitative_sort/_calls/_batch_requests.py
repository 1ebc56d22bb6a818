"""The requests of a batch round: what each call sends, how it is recorded, how a round splits.

Pure functions on plain data. A pairwise call sends its two texts, first then second (a tie
offered in a run with ties); a pointwise call (a round with a `ScoreQuestion`) sends its one
text and the question; a ranking call (its place shows several texts) sends a `Rank` of
them in the order shown, as the live judge asks it. Each is recorded under an id naming its
match and call, with the digest of the texts it showed and the question it asked (`asked`),
so that a resumed run reads its answer as that question.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from llm_qualitative_sort._calls.base import Call, CallSettings
from llm_qualitative_sort._calls.ranking import question_of
from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score
from llm_qualitative_sort.stores.batch_journal import JobRequest


def call_request(call: Call, settings: CallSettings) -> Request:
    """What `call` asks the provider: its two texts, its item alone, or its texts' order."""
    place = call.place
    scored = settings.question
    question: Question
    if place.texts:
        question = question_of(place)
    elif scored is None:
        question = Compare(place.first, place.second)
    else:
        question = Score(place.first, scored.scale, scored.inverse)
    return Request(question, settings.criteria, call.repetition, settings.rules.offers_ties,
                   settings.rules.soft_verdicts)


def asked(request: Request) -> str:
    """The question `request` asks, as a batch record names it: its kind and flags.

    The texts are the call's (checked by their digest) and a score's scale the run's, so
    the kind and the flags that change how an answer is read are all a record keeps.

    Example:
        >>> asked(Request(Compare("x", "y"), "c", ties=True))
        'compare+ties'
    """
    question = request.question
    if isinstance(question, Score):
        return "score+inverse" if question.inverse else "score"
    kind = "rank" if isinstance(question, Rank) else "compare"
    return f"{kind}+ties" if request.ties else kind


def recorded_request(record: JobRequest, call: Call, settings: CallSettings) -> Request | None:
    """The request `record` sent for `call`, to read its answer by; None if it asked another.

    A record written before requests named their question asked its round's, the call's
    own. A record of another kind of question than the call asks is never read for it.
    """
    request = call_request(call, settings)
    if not record.asked or record.asked == asked(request):
        return request
    kind, *flags = record.asked.split("+")
    if kind != asked(request).split("+")[0]:
        return None
    question = request.question
    if isinstance(question, Score):
        question = dataclasses.replace(question, inverse="inverse" in flags)
    return dataclasses.replace(request, question=question, ties="ties" in flags)


def job_request(call: Call, request: Request) -> JobRequest:
    """The record of `call` in its batch, sending `request`."""
    place = call.place
    return JobRequest(f"m{place.match}-c{place.call}", place.match, place.call, place.shown,
                      asked(request))


def split(weights: Sequence[int], max_requests: int, max_bytes: int) -> list[list[int]]:
    """Positions of requests of the given sizes, in order, in batches within both limits.

    Example:
        >>> split([40, 40, 40, 10], max_requests=3, max_bytes=100)
        [[0, 1], [2, 3]]
    """
    chunks: list[list[int]] = []
    size = 0
    for position, weight in enumerate(weights):
        full = chunks and (len(chunks[-1]) >= max_requests or size + weight > max_bytes)
        if not chunks or full:
            chunks.append([])
            size = 0
        chunks[-1].append(position)
        size += weight
    return chunks
