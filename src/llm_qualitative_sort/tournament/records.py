"""A stored call and a stored score as named records: the one reader and writer of their forms.

A round of a run's history is stored as a `RoundLog`, its matches as `MatchLog`s, its calls
as `CallLog`s and its texts scored alone as `ScoreLog`s: the graph's state keeps them, and
the results read them back.

A checkpoint keeps each call as a compact list, `[order, winner in match terms, reasoning,
cached, input tokens, output tokens]`, then, only when it has any, a dict of the call's facts
(`{"judge": identity}` when a panel answered it, `{"batch": True}` when a provider batch
did, `"probability"` for a soft verdict, `"pointwise"` for a label and its spread). Runs
stored before the facts dict marked a batch answer with the string "batch" instead. Every
other module reads and writes calls through this module, never by position: `CallRecord`,
or, where every call of a run passes, the functions that read or write the compact form
without a record in between (`stored_call`, `call_winners`, `call_verdicts`,
`call_results`).

A text scored alone (a pointwise run, a Swiss pre-pass) is stored in its round's "scores"
as `[item, call]` (`ScoreRecord`). Runs stored by earlier versions kept it among the
round's matches as a one-call match of the text with itself, `[item, item, winner,
[call]]`: `round_scores` reads both forms, and `round_matches` leaves the older one out.

Earlier versions also left a call whose provider raised a stray `CancelledError` out of its
match's log (a `None` where the call belongs), and every later ranking failed on it, so the
run could never finish. `read_calls` reads such a call as a failed call (no verdict, no
tokens): the run finishes, and the loss stays visible in `failed_calls`. New runs never
store one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, NotRequired

from typing_extensions import TypedDict

from llm_qualitative_sort.rating.soft import stored_probability
from llm_qualitative_sort.verdicts import Order, RoundResult, Verdict

# A call as stored: a compact list that only `CallRecord` reads and writes.
CallLog = list[Any]
# A match as stored: [index of item_a, index of item_b, winner, [CallLog, ...]]
MatchLog = list[Any]
# A text scored alone as stored: [index of the item, CallLog] (see `ScoreRecord`).
ScoreLog = list[Any]


class RoundLog(TypedDict):
    """One round of the history (pipelined: one segment, with each match's pairing number).

    A round that scored texts alone keeps them in `scores` (its `matches` empty); runs
    stored by earlier versions kept them among the matches (`round_scores` reads both).
    """

    round: int
    matches: list[MatchLog]
    bye: int | None
    seqs: NotRequired[list[int]]
    scores: NotRequired[list[ScoreLog]]
    # The round that asked the judge the pairs people labelled (see `results.labelled`).
    labelled: NotRequired[bool]
    # The round's ranking calls, each a dict (see `tournament.swiss.groups.GroupLog`).
    groups: NotRequired[list[dict[str, Any]]]


LOST_REASON = "no answer: the call was lost (a stray CancelledError); counted as a failed call"
# What a call cut short after its order and winner reads as (see `CallRecord.read`).
_UNSTATED = ("", False, 0, 0)
# Shared by every record without facts, never written to (records are read-only).
_NO_FACTS: Mapping[str, Any] = {}
# A NamedTuple's own constructor is a Python function with defaults: twice the time.
_new_tuple = tuple.__new__


class CallRecord(NamedTuple):
    """One answered call of a match, in match terms (`winner` "A" is the match's first item).

    Example:
        >>> record = CallRecord.read(["BA", "B", "why", False, 10, 2, {"judge": "j"}])
        >>> record.winner, record.judge, record.stored()[-1]
        ('B', 'j', {'judge': 'j'})
    """

    order: Order
    winner: Verdict | None
    reasoning: str
    cached: bool
    input_tokens: int
    output_tokens: int
    facts: Mapping[str, Any] = _NO_FACTS
    # Only runs stored before the facts dict: the "batch" marker that stood for its entry.
    marked_batch: bool = False

    @classmethod
    def read(cls, stored: Sequence[Any]) -> CallRecord:
        """A call from its stored form (any version's).

        A form cut short after its order and winner (as hand-written histories are) reads
        with no reasoning, not cached, and no tokens.
        """
        if len(stored) == 6:  # most calls: built directly, as every fit reads every call
            return _new_tuple(cls, (*stored, _NO_FACTS, False))
        if len(stored) < 6:
            return cls(*stored, *_UNSTATED[len(stored) - 2:])
        facts: dict[str, Any] = {}
        marked = False
        for value in stored[6:]:
            if isinstance(value, dict):
                facts.update(value)
            elif value == "batch":
                marked = True
        return cls._make([*stored[:6], facts, marked])

    def stored(self) -> list[Any]:
        """The compact list a checkpoint keeps (the facts only when there are any)."""
        log = stored_call(self.order, self.winner, self.reasoning, self.cached,
                          self.input_tokens, self.output_tokens, self.facts)
        if self.marked_batch:
            log.append("batch")
        return log

    @property
    def judge(self) -> str | None:
        """The panel judge that answered, if the run had a panel."""
        judge = self.facts.get("judge")
        return judge if isinstance(judge, str) else None

    @property
    def batch(self) -> bool:
        """Whether a provider batch answered it (priced at the batch price)."""
        return self.marked_batch or self.facts.get("batch") is True

    @property
    def probability(self) -> float | None:
        """The judge's probability that the match's first item wins (a soft verdict)."""
        return stored_probability(self.facts)

    @property
    def label(self) -> Mapping[str, Any] | None:
        """A call that scored a text alone: its label and their spread, else None."""
        scored = self.facts.get("pointwise")
        return scored if isinstance(scored, Mapping) else None


def stored_call(order: Order, winner: Verdict | None, reasoning: str, cached: bool,
                input_tokens: int, output_tokens: int,
                facts: Mapping[str, Any] | None = None) -> list[Any]:
    """A new call's compact stored form, as `CallRecord.stored` writes it.

    Written without a record in between: the match book stores every answer the moment it
    comes, and most calls have no facts.

    Example:
        >>> stored_call("AB", "A", "why", False, 10, 2)
        ['AB', 'A', 'why', False, 10, 2]
    """
    log: list[Any] = [order, winner, reasoning, cached, input_tokens, output_tokens]
    if facts:
        log.append(dict(facts))
    return log


def call_winners(stored: list[Any]) -> list[Verdict | None]:
    """A match's calls' verdicts in match terms, a call an earlier version lost as None.

    The same as each call's record's `winner`, without building one: a match reads them as
    it closes, once per match of the run.

    Example:
        >>> call_winners([["AB", "A", "", False, 1, 1], ["BA", "tie"], None])
        ['A', 'tie', None]
    """
    # Every version's form keeps the verdict second (see `CallRecord.read`).
    return [None if call is None else call[1] for call in stored]


def read_calls(stored: list[Any]) -> list[CallRecord]:
    """A match's stored calls as records, a call an earlier version lost as a failed one.

    Example:
        >>> [(call.order, call.winner) for call in read_calls([["AB", "A", "", 0, 1, 1], None])]
        [('AB', 'A'), ('BA', None)]
    """
    read = CallRecord.read
    if None not in stored:
        # A call without facts (most calls) is built here as `read` builds it: a run's
        # counts read every call it made.
        return [_new_tuple(CallRecord, (*call, _NO_FACTS, False)) if len(call) == 6
                else read(call) for call in stored]
    # Orders alternate AB, BA within a match (see `tournament.presentation_orders`).
    return [read(call) if call is not None else
            CallRecord("AB" if number % 2 == 0 else "BA", None, LOST_REASON, False, 0, 0)
            for number, call in enumerate(stored)]


def call_verdicts(stored: list[Any]) -> list[tuple[Order, Verdict | None, float | None]]:
    """A match's calls as (order, winner, probability): what a fit reads of every call.

    The same as reading each call's record, without building one for a call with no facts
    (most calls): a Swiss run reads every call of its history twice a round.

    Example:
        >>> call_verdicts([["AB", "A", "", False, 1, 1], ["BA", "B", "", False, 1, 1,
        ...                                            {"probability": 0.25}]])
        [('AB', 'A', None), ('BA', 'B', 0.25)]
    """
    if None in stored:
        return [(call.order, call.winner, call.probability) for call in read_calls(stored)]
    return [(call[0], call[1], None) if len(call) == 6 else _verdict(CallRecord.read(call))
            for call in stored]


def call_results(stored: list[Any]) -> list[RoundResult]:
    """A match's calls as the results list them (`MatchResult.rounds`).

    A call without facts (most calls) becomes its result directly, without a record in
    between: a run's result reads every call it made.
    """
    if None in stored:
        return [round_result(call) for call in read_calls(stored)]
    return [RoundResult(*call) if len(call) == 6 else round_result(CallRecord.read(call))
            for call in stored]


def round_result(call: CallRecord) -> RoundResult:
    """A call as the results list it, with its facts: its judge, whether a batch answered."""
    return RoundResult(call.order, call.winner, call.reasoning, call.cached,
                       call.input_tokens, call.output_tokens, batch=call.batch,
                       judge=call.judge,
                       probability=None if call.winner is None else call.probability)


def _verdict(call: CallRecord) -> tuple[Order, Verdict | None, float | None]:
    return call.order, call.winner, call.probability


class ScoreRecord(NamedTuple):
    """One call that scored a text alone: the text's index and the call.

    Example:
        >>> record = ScoreRecord.read([2, ["AB", None, "no label", False, 5, 1]])
        >>> record.item, record.call.winner, record.stored()[0]
        (2, None, 2)
    """

    item: int
    call: CallRecord

    @classmethod
    def read(cls, stored: Sequence[Any]) -> ScoreRecord:
        """A score from its stored form, `[item, call]`."""
        item, call = stored
        return cls(item, CallRecord.read(call))

    def stored(self) -> list[Any]:
        """The compact list a checkpoint keeps."""
        return [self.item, self.call.stored()]


def round_scores(entry: Mapping[str, Any]) -> list[ScoreRecord]:
    """The texts a stored round scored alone, in the order planned (either stored form).

    Example:
        >>> call = ["AB", "A", "", False, 5, 1, {"pointwise": {"label": 3}}]
        >>> earlier = {"matches": [[4, 4, "A", [call]]]}
        >>> round_scores(earlier) == round_scores({"matches": [], "scores": [[4, call]]})
        True
    """
    scores = [ScoreRecord.read(stored) for stored in entry.get("scores", ())]
    scores += [ScoreRecord(a, call) for a, b, _winner, calls in entry["matches"] if a == b
               for call in read_calls(calls)]
    return scores


def round_matches(entry: Mapping[str, Any]) -> list[Any]:
    """The matches of two texts a stored round played (an earlier form's scores left out)."""
    matches: list[Any] = entry["matches"]
    return [match for match in matches if match[0] != match[1]]
