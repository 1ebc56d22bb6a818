"""The requests of a batch round: what each call sends, how it is recorded, how a round splits.

Pure functions on plain data. A pairwise call sends its two texts, first then second; a
pointwise call (a run with a `ScoreQuestion`) sends its one text and the question. Each is
recorded under an id naming its match and call, with the digest of the texts it showed.
"""

from __future__ import annotations

from collections.abc import Sequence

from llm_qualitative_sort._calls.base import Call
from llm_qualitative_sort.providers._batch import BatchRequest, Request, ScoreRequest
from llm_qualitative_sort.scoring import ScoreQuestion
from llm_qualitative_sort.stores.batch_journal import JobRequest


def job_request(call: Call) -> JobRequest:
    """The record of `call` in its batch."""
    place = call.place
    return JobRequest(f"m{place.match}-c{place.call}", place.match, place.call, place.shown)


def provider_request(call: Call, question: ScoreQuestion | None, request_id: str) -> Request:
    """What `call` asks the provider: its two texts, or (pointwise) its item alone."""
    place = call.place
    if question is not None:
        return ScoreRequest(request_id, place.first, question)
    return BatchRequest(request_id, place.first, place.second)


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
