"""A journaled call: where it sits in a run, what it answered, and its row in a journal.

Both run journals (SQLite's `journal.Journal`, PostgreSQL's `PostgresJournal`) key a call by
its `CallPlace` and keep it as the same list of plain values (`record`), MessagePack in one
and JSON in the other; `decode` reads one back, as the answer of the question its place
asks (`question_kind`; the answers' stored forms are `stores.answers`').
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort.errors import CacheError
from llm_qualitative_sort.stores.answers import CallAnswer, Kind, answer_from, stored_fields
from llm_qualitative_sort.verdicts import ComparisonResult

# What a call's place shows after its texts' digests, besides a pair's two digests: a text
# scored alone, and the texts of a ranking call.
POINTWISE_SHOWN = ":pointwise"
RANKING_SHOWN = ":rank"


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
Answer = tuple[CallAnswer, bool, CallFacts]
# A call as a journal row keeps it: [match, call, shown, value, reasoning, raw answer,
# input tokens, output tokens, cached, facts (a dict, or None for most calls), probability
# (the soft verdict or None; absent from rows written before it)]. The value is the
# answer's verdict, label or order in its stored form (`stores.answers`), None when the
# call gave none.
Record = list[Any]


def question_kind(shown: str) -> Kind:
    """The question asked by the call whose place shows `shown` (see `CallPlace.shown`).

    Example:
        >>> question_kind("ab12" + RANKING_SHOWN), question_kind("ab12cd34")
        ('rank', 'compare')
    """
    if shown.endswith(RANKING_SHOWN):
        return "rank"
    return "score" if shown.endswith(POINTWISE_SHOWN) else "compare"


def record(place: CallPlace, result: CallAnswer, cached: bool,
           facts: CallFacts | None = None) -> Record:
    """A finished call as a journal row keeps it."""
    if type(result) is ComparisonResult:
        return [place.match, place.call, place.shown, result.winner, result.reasoning,
                result.raw_response, result.input_tokens, result.output_tokens, cached,
                facts or None, result.probability]
    value, reasoning, raw, tokens_in, tokens_out, probability = stored_fields(result)
    return [place.match, place.call, place.shown, value, reasoning, raw, tokens_in, tokens_out,
            cached, facts or None, probability]


def decode(kept: Record, source: str) -> Answer:
    """The result, cache flag and facts of a journal row (`source` names it in errors)."""
    value, reasoning, raw, input_tokens, output_tokens, cached = kept[3:9]
    facts = kept[9] if len(kept) > 9 and isinstance(kept[9], dict) else {}
    try:
        result = answer_from(question_kind(kept[2]), value, reasoning, raw,
                             (input_tokens, output_tokens), kept[10] if len(kept) > 10 else None)
    except (TypeError, ValueError) as exc:
        raise CacheError(f"corrupt entry in {source}: {exc}") from exc
    return result, bool(cached), dict(facts)
