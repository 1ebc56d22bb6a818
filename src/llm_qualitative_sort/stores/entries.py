"""A journaled call: where it sits in a run, what it answered, and its row in a journal.

Both run journals (SQLite's `journal.Journal`, PostgreSQL's `PostgresJournal`) key a call by
its `CallPlace` and keep it as the same list of plain values (`record`), MessagePack in one
and JSON in the other; `decode` reads one back.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort.stores.cache import result_from_dict
from llm_qualitative_sort.verdicts import ComparisonResult


def text_digest(text: str) -> str:
    """The digest of one text, as `CallPlace.shown` joins them."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CallPlace:
    """Where a call sits in a run, and which texts it showed (first, then second).

    `shown` joins the `text_digest`s of both texts; the journal checks it on replay, so a
    journal entry is never applied to other texts. A ranking call (`Rank`) holds every
    text it shows in `texts`, in the order shown (its first two also as `first` and
    `second`); a comparison or a score holds none there.
    """

    run_id: str
    round_number: int
    match: int
    call: int
    first: str
    second: str
    shown: str
    texts: tuple[str, ...] = ()


# Facts about one call beyond its answer, such as {"judge": "<model identity>"} when a panel
# answered it; empty for most calls, and then stored as None.
CallFacts = dict[str, Any]
# A call's answer, whether it came from the user's cache, and its facts.
Answer = tuple[ComparisonResult, bool, CallFacts]
# A call as a journal row keeps it: [match, call, shown, winner, reasoning, raw answer,
# input tokens, output tokens, cached, facts (a dict, or None for most calls), probability
# (the soft verdict or None; absent from rows written before it)].
Record = list[Any]


def record(place: CallPlace, result: ComparisonResult, cached: bool,
           facts: CallFacts | None = None) -> Record:
    """A finished call as a journal row keeps it."""
    return [place.match, place.call, place.shown, result.winner, result.reasoning,
            result.raw_response, result.input_tokens, result.output_tokens, cached,
            facts or None, result.probability]


def decode(kept: Record, source: str) -> Answer:
    """The result, cache flag and facts of a journal row (`source` names it in errors)."""
    winner, reasoning, raw, input_tokens, output_tokens, cached = kept[3:9]
    facts = kept[9] if len(kept) > 9 and isinstance(kept[9], dict) else {}
    data = {"winner": winner, "reasoning": reasoning, "raw_response": raw,
            "input_tokens": input_tokens, "output_tokens": output_tokens,
            "probability": kept[10] if len(kept) > 10 else None}
    return result_from_dict(data, source), bool(cached), dict(facts)
