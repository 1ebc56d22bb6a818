"""A call's answer as the run journal and the cache store it: one form per kind of question.

A call asks one of three questions, and its answer travels as what it is: a comparison as a
`ComparisonResult` (a verdict), a score as a `rating.scoring.PointwiseResult` (a label and
its spread), a ranking call as a `RankingResult` (an order). Every stored form keeps the
reasoning, the raw answer and the tokens beside the one value of its kind, named by it:

- a comparison `{"winner": "A", ...}` (and `"probability"` for a soft verdict), as always;
- a score `{"score": {"label": 3, "distribution": [[3, 0.25], [4, 0.75]]}, ...}`
  (`"distribution"` None without log-probabilities);
- a ranking call `{"rank": [["B"], ["A", "C"]], ...}`, labels best first, tied labels
  sharing a place.

The value is None when the call gave nothing usable (its reason in
`raw_response["problem"]`). A journal row keeps the same value in its verdict column
(`stores.entries.record`), so the listings count failed calls alike for every kind.

Earlier versions stored a score and a ranking call as a comparison won by "A", the label or
the order carried in `raw_response["pointwise"]` or `raw_response["ranking"]`. Such entries
are read back by `read_as` alone, where the question asked is known (a journal row's
place, a cache key's call), so runs and caches written then resume and are found.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple, cast

from llm_qualitative_sort.errors import CacheError
from llm_qualitative_sort.rating.scoring import PointwiseResult
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult, Verdict

# The question a call asks: compare two texts, score one, or rank several.
Kind = Literal["compare", "score", "rank"]
# A call's answer, of the kind its question asks.
CallAnswer = ComparisonResult | PointwiseResult | RankingResult


class _Form(NamedTuple):
    """How one kind of answer other than a comparison is stored."""

    value: Callable[[Any], Any]  # the answer's value (None: nothing usable)
    build: Callable[[Any, str, dict[str, Any], int, int], CallAnswer]  # the answer back
    reasoning: str  # the name of the answer's reasoning


def _score_value(answer: PointwiseResult) -> dict[str, Any] | None:
    if answer.label is None:
        return None
    dist = answer.distribution
    return {"label": answer.label, "distribution": None if dist is None else [
        [k, float(p)] for k, p in sorted(dist.items())]}


def _score(value: Any, reasoning: str, raw: dict[str, Any], tokens_in: int,
           tokens_out: int) -> PointwiseResult:
    if not isinstance(value, Mapping) or value.get("label") is None:
        return PointwiseResult(None, reasoning, None, raw, tokens_in, tokens_out)
    dist = value.get("distribution")
    return PointwiseResult(int(value["label"]), reasoning,
                           None if dist is None else {int(k): float(p) for k, p in dist},
                           raw, tokens_in, tokens_out)


def _rank_value(answer: RankingResult) -> list[list[str]] | None:
    return None if answer.order is None else [list(place) for place in answer.order]


def _rank(value: Any, reasoning: str, raw: dict[str, Any], tokens_in: int,
          tokens_out: int) -> RankingResult:
    order = None if not isinstance(value, list) else tuple(tuple(place) for place in value)
    return RankingResult(order, reasoning, raw, tokens_in, tokens_out)


_FORMS: dict[str, _Form] = {"score": _Form(_score_value, _score, "reason"),
                            "rank": _Form(_rank_value, _rank, "reasoning")}
_KINDS: dict[type, Kind] = {ComparisonResult: "compare", PointwiseResult: "score",
                            RankingResult: "rank"}
# Where an earlier version's carrier kept the value of each kind.
_CARRIED = {"score": "pointwise", "rank": "ranking"}


def kind_of(answer: CallAnswer) -> Kind:
    """The kind of question `answer` answers (a provider's subclass answers its base's).

    Example:
        >>> kind_of(RankingResult(None, "")), kind_of(ComparisonResult("A", ""))
        ('rank', 'compare')
    """
    kind = _KINDS.get(type(answer))
    if kind is not None:
        return kind
    return next(name for base, name in _KINDS.items() if isinstance(answer, base))


def usable(answer: CallAnswer) -> bool:
    """Whether the call gave a verdict, a label or an order: only such answers are cached.

    Example:
        >>> usable(PointwiseResult(None, "no label")), usable(ComparisonResult("B", ""))
        (False, True)
    """
    if type(answer) is ComparisonResult or isinstance(answer, ComparisonResult):
        return answer.winner is not None  # the common answer first: no lookup
    return _FORMS[kind_of(answer)].value(answer) is not None


# An answer's stored fields: its value, reasoning, raw answer, tokens in and out, and the
# probability of a soft verdict (None for other answers).
Fields = tuple[Any, str, dict[str, Any], int, int, float | None]


def stored_fields(answer: CallAnswer) -> Fields:
    """The fields every stored form of `answer` keeps (see `Fields`)."""
    if isinstance(answer, ComparisonResult):
        return (answer.winner, answer.reasoning, answer.raw_response, answer.input_tokens,
                answer.output_tokens, answer.probability)
    form = _FORMS[kind_of(answer)]
    return (form.value(answer), getattr(answer, form.reasoning), answer.raw_response,
            answer.input_tokens, answer.output_tokens, None)


def answer_from(kind: Kind, value: Any, reasoning: str, raw: dict[str, Any],
                tokens: tuple[int, int], probability: float | None = None) -> CallAnswer:
    """The answer of a `kind` question from its stored fields (a journal row's columns).

    A verdict stored for a score or a ranking call is an earlier version's carrier.

    Raises:
        InvalidAnswerError: The fields do not make an answer of this kind.
    """
    if kind == "compare":
        return ComparisonResult(value, reasoning, raw, *tokens, probability)
    if type(value) is str:
        return read_as(kind, ComparisonResult(cast(Verdict, value), reasoning, raw, *tokens))
    return _FORMS[kind].build(value, reasoning, raw, *tokens)


def read_as(kind: Kind, answer: CallAnswer) -> CallAnswer:
    """`answer` read back as the answer to a `kind` question.

    An earlier version's carrier of a score or an order is read out of its `raw_response`
    (the only reader of that form); any other answer is returned as it is.

    Example:
        >>> carrier = ComparisonResult("A", "B best", {"ranking": [["B"], ["A"], ["C"]]})
        >>> read_as("rank", carrier).order
        (('B',), ('A',), ('C',))
    """
    if kind == "compare" or type(answer) is not ComparisonResult:
        return answer
    raw = dict(answer.raw_response)
    value = raw.pop(_CARRIED[kind], None) if answer.winner is not None else None
    return _FORMS[kind].build(value, answer.reasoning, raw, answer.input_tokens,
                              answer.output_tokens)


def answer_to_dict(answer: CallAnswer) -> dict[str, Any]:
    """The JSON-ready form of an answer (see the module's docstring).

    Example:
        >>> answer_to_dict(RankingResult((("B",), ("A", "C")), "B best", {}, 7, 2))
        {'rank': [['B'], ['A', 'C']], 'reasoning': 'B best', 'raw_response': {}, \
'input_tokens': 7, 'output_tokens': 2}
    """
    if isinstance(answer, ComparisonResult):
        return {
            "winner": answer.winner,
            "reasoning": answer.reasoning,
            "raw_response": answer.raw_response,
            "input_tokens": answer.input_tokens,
            "output_tokens": answer.output_tokens,
            # Only when there is one: an answer without it is stored exactly as before.
            **({"probability": answer.probability} if answer.probability is not None else {}),
        }
    value, reasoning, raw, tokens_in, tokens_out, _ = stored_fields(answer)
    return {kind_of(answer): value, "reasoning": reasoning, "raw_response": raw,
            "input_tokens": tokens_in, "output_tokens": tokens_out}


def answer_from_dict(data: Any, source: Path | str) -> CallAnswer:
    """An answer from its JSON-ready form; a malformed entry is an error naming `source`.

    A form with a verdict is a comparison's, or an earlier version's carrier of another
    answer (`read_as` reads it out); the others name their kind.
    """
    try:
        if "winner" in data:
            return ComparisonResult(**data)
        tag = "score" if "score" in data else "rank"
        return _FORMS[tag].build(data[tag], data["reasoning"], data["raw_response"],
                                 data["input_tokens"], data["output_tokens"])
    except (TypeError, ValueError, KeyError) as exc:
        raise CacheError(f"corrupt entry in {source}: {exc}") from exc


def answer_to_record(answer: CallAnswer) -> str:
    """An answer as JSON text (what `FileCache` and `PostgresCache` store)."""
    return json.dumps(answer_to_dict(answer), ensure_ascii=False, default=str)


def answer_from_record(record: str, source: Path | str) -> CallAnswer:
    """An answer from JSON text; malformed text is an error naming `source` (see above)."""
    try:
        data = json.loads(record)
    except ValueError as exc:
        raise CacheError(f"corrupt entry in {source}: {exc}") from exc
    return answer_from_dict(data, source)
