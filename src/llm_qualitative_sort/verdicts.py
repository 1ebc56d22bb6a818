"""A judge's answer to one call, and the calls and matches a run records.

`ComparisonResult` is what a provider answers (checked where it enters the tournament:
`answer_problem`); `RoundResult` is one call of a match in the match's own terms and
`MatchResult` the match. All are re-exported by `llm_qualitative_sort.models` too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from llm_qualitative_sort.errors import InvalidAnswerError as InvalidAnswerError

Side = Literal["A", "B"]
# A call's verdict: a side, or "tie" (both equally good) in a run that allows ties.
Verdict = Literal["A", "B", "tie"]
# The largest token count a journal, cache or checkpoint can store (a signed 64-bit integer).
TOKENS_LIMIT = 2**63 - 1
Order = Literal["AB", "BA"]
TIE: Verdict = "tie"
_VERDICTS = ("A", "B", TIE)


@dataclass(frozen=True)
class ComparisonResult:
    """What a provider answered for one comparison call.

    `winner` is stated in the terms of the call: "A" is the text that was shown first.
    "tie" says both meet the criterion equally well; it counts only in a run that allows
    ties (`ties=True`), elsewhere the engine records the call as giving no verdict.
    `None` means the call gave no usable verdict (unparseable or refused answer).
    `probability` is the judge's own probability that the first-shown text wins (a tie
    counting half), read from the log-probabilities of its verdict token when the model
    returned them (see `providers.logprobs`); None when it did not: a hard verdict.

    Example:
        >>> ComparisonResult(winner="A", reasoning="A cites evidence.").winner
        'A'
    """

    winner: Verdict | None
    reasoning: str
    raw_response: dict[str, Any] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    probability: float | None = None

    def __post_init__(self) -> None:
        # The boundary where a provider's answer enters the tournament: a verdict that is
        # not exactly "A", "B", "tie" or None must never be read as a win.
        problem = answer_problem(self)
        if problem:
            raise InvalidAnswerError(f"invalid ComparisonResult: {problem}")


def answer_problem(result: Any) -> str:
    """What is wrong with a provider's answer, or "" when it can enter the tournament."""
    # Every answer is checked twice (when built, and by the judge): the common answer, a
    # plain `ComparisonResult` with a hard verdict, passes on exact type checks alone.
    if (
        type(result) is ComparisonResult
        and result.probability is None
        and type(result.reasoning) is str
        and type(result.raw_response) is dict
        and type(result.input_tokens) is int
        and type(result.output_tokens) is int
        and 0 <= result.input_tokens <= TOKENS_LIMIT
        and 0 <= result.output_tokens <= TOKENS_LIMIT
        and (result.winner is None or result.winner in _VERDICTS)
    ):
        return ""
    if not isinstance(result, ComparisonResult):
        return f"expected a ComparisonResult, got {type(result).__name__}"
    if result.winner not in ("A", "B", TIE, None):
        return f'winner must be "A", "B", "tie" or None, got {result.winner!r}'
    return (_fields_problem(result)
            or _probability_problem(result.probability, result.winner))


def _fields_problem(result: ComparisonResult | RankingResult) -> str:
    # What every answer carries besides its verdict: the reasoning, the raw answer, tokens.
    if not isinstance(result.reasoning, str):
        return f"reasoning must be a str, got {type(result.reasoning).__name__}"
    if not isinstance(result.raw_response, dict):
        return f"raw_response must be a dict, got {type(result.raw_response).__name__}"
    for name in ("input_tokens", "output_tokens"):
        value = getattr(result, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"{name} must be an int >= 0, got {value!r}"
        if value > TOKENS_LIMIT:  # no store holds more than a signed 64-bit integer
            return f"{name} must be at most 2**63 - 1, got {value!r}"
    return ""


def _probability_problem(value: Any, winner: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, float | int) or not 0 <= value <= 1:
        return f"probability must be None or a number in [0, 1], got {value!r}"
    if winner is None:
        return "probability must be None when the call gave no verdict"
    return ""


def refused_tie(result: ComparisonResult) -> ComparisonResult:
    """A "tie" answered in a run without ties, as a call that gave no verdict.

    Never a coin flip: the call counts for neither side and shows as failed, with the
    reason in `raw_response["problem"]` like any other unusable answer.
    """
    raw = dict(result.raw_response, problem="answered 'tie', but this run does not allow ties")
    return ComparisonResult(None, result.reasoning, raw, result.input_tokens,
                            result.output_tokens)


# A ranking call's answer: the labels shown, best first; labels in one inner tuple tied.
Ranking = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class RankingResult:
    """What a provider answered for one ranking call (`providers.questions.Rank`).

    `order` names the labels shown ("A" is the text shown first), best first, each place a
    tuple of the labels that share it: one label per place unless the run allows ties.
    `None` means the call gave no usable order (unparseable, refused, or not an order of
    exactly the labels shown); `raw_response["problem"]` then says why, and the call
    counts for no text.

    Example:
        >>> RankingResult((("B",), ("A", "C")), "B is clearest; A and C alike.").order[0]
        ('B',)
    """

    order: Ranking | None
    reasoning: str
    raw_response: dict[str, Any] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0

    def __post_init__(self) -> None:
        problem = _ranking_result_problem(self)
        if problem:
            raise InvalidAnswerError(f"invalid RankingResult: {problem}")


def _ranking_result_problem(result: RankingResult) -> str:
    problem = _fields_problem(result)
    if problem:
        return problem
    order = result.order
    if order is None:
        return ""
    if not isinstance(order, tuple) or not order or not all(
            isinstance(place, tuple) and place and all(type(label) is str for label in place)
            for place in order):
        return ("order must be None or a non-empty tuple of non-empty tuples of labels, "
                f"got {order!r}")
    return ""


def ranking_order(answer: Any, labels: tuple[str, ...], *,
                  ties: bool) -> tuple[Ranking | None, str]:
    """Read a judge's order of `labels` (best first), or say why it is not one.

    `answer` is what the judge gave: a list whose entries are labels or, where the run
    allows ties, lists of labels sharing a place. It is an order only when it names every
    label shown exactly once and nothing else; labels are read without surrounding spaces
    and case ("b " is "B").

    Returns:
        (the order, "") or (None, the problem in words).

    Example:
        >>> ranking_order(["B", "a", "C"], ("A", "B", "C"), ties=False)
        ((('B',), ('A',), ('C',)), '')
        >>> ranking_order(["B", "B", "C"], ("A", "B", "C"), ties=False)[1]
        "'B' is named twice and 'A' is missing"
        >>> ranking_order([["A", "C"], "B"], ("A", "B", "C"), ties=True)[0]
        (('A', 'C'), ('B',))
    """
    if not isinstance(answer, list | tuple) or not answer:
        return None, f"the order must be a non-empty list of labels, got {answer!r}"
    places: list[tuple[str, ...]] = []
    for entry in answer:
        group = list(entry) if isinstance(entry, list | tuple) else [entry]
        if not group or not all(isinstance(label, str) for label in group):
            return None, f"every place must name labels, got {entry!r}"
        if len(group) > 1 and not ties:
            return None, (f"{entry!r} puts several labels in one place, but this run does "
                          "not allow ties")
        places.append(tuple(label.strip().upper() for label in group))
    named = [label for place in places for label in place]
    unknown = sorted({label for label in named if label not in labels})
    repeated = sorted({label for label in named if named.count(label) > 1})
    missing = [label for label in labels if label not in named]
    problems = ([f"{label!r} was not shown" for label in unknown]
                + [f"{label!r} is named twice" for label in repeated]
                + [f"{label!r} is missing" for label in missing])
    if problems:
        return None, " and ".join(problems)
    return tuple(places), ""


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One LLM call of a match.

    `winner` is stated in the match's own terms (`MatchResult.item_a` / `item_b`), whatever
    the order shown to the LLM; "tie" (runs with `ties=True`) is half a win for each side;
    `None` means the call gave no verdict and counted for neither.
    `cached` is true when the answer came from the user's cache instead of a paid call;
    `batch` when it was paid for through the provider's batch interface (at its price).
    `judge` names the judge that answered (its `model_identity`) when a `PanelProvider`
    shared the calls; None when the run had one judge. `probability` is the judge's
    probability (from its log-probabilities) that the match's `item_a` wins, in the
    match's terms like `winner`; None for a hard verdict (no log-probabilities).
    """

    order: Order
    winner: Verdict | None
    reasoning: str
    cached: bool
    input_tokens: int = 0
    output_tokens: int = 0
    batch: bool = False
    judge: str | None = None
    probability: float | None = None


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A match: `comparison_rounds` calls, half in each presentation order.

    `winner` is None for a draw (equal numbers of calls won, a tied call counting half for
    each side), which costs both items a loss.
    """

    item_a: str
    item_b: str
    winner: Side | None
    rounds: list[RoundResult]
    round_number: int = 0


@dataclass(frozen=True, slots=True)
class RankingCall:
    """One ranking call of a run (Swiss with `group_size` 3 to 8), as its result shows it.

    `items` are the texts in the order shown ("A" first); `order` the judge's order of them,
    best first, texts sharing a place tied, or None when the call gave no usable order
    (`problem` says why; it then counted for no text). A ranking call is one call: its
    tokens are counted once, it is one judgement of the budget, and `cached` says whether
    the user's cache answered it.
    """

    items: tuple[str, ...]
    order: tuple[tuple[str, ...], ...] | None
    reasoning: str
    cached: bool
    input_tokens: int = 0
    output_tokens: int = 0
    round_number: int = 0
    problem: str | None = None
    judge: str | None = None
    batch: bool = False
