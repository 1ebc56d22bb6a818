"""What a provider is asked: one request object, whatever the kind of question.

A strategy plans questions (compare two texts, score one, order several); the engine wraps each in a
`Request` with what the run adds (criterion, repetition, ties, log-probabilities) and hands
it to `LLMProvider.answer`. A new way of judging is one more question type here, not one
more provider method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.rating.scale import Scale


@dataclass(frozen=True, slots=True)
class Compare:
    """Which of two texts better meets the criterion.

    The answer's `winner` speaks in the call's terms: "A" is `first`, "B" is `second`.

    Args:
        first: The text shown first.
        second: The text shown second.

    Example:
        >>> Compare("a short text", "a longer text").second
        'a longer text'
    """

    first: str
    second: str


@dataclass(frozen=True, slots=True)
class Score:
    """A label on `scale` for one text alone (pointwise runs, Swiss's pre-pass).

    Args:
        text: The text to score.
        scale: The labels the judge may give.
        inverse: Ask how far the text is from meeting the criterion (the highest label
            the farthest) instead of how well it meets it.

    Example:
        >>> Score("a text", Scale.parse("1-5"), inverse=False).scale.labels
        (1, 2, 3, 4, 5)
    """

    text: str
    scale: Scale
    inverse: bool = False


# The labels a ranking call shows its texts under, in the order shown.
RANK_LABELS = "ABCDEFGH"
# How many texts one ranking call may show.
RANK_SIZES = range(3, len(RANK_LABELS) + 1)


@dataclass(frozen=True, slots=True)
class Rank:
    """The order of several texts under the criterion, best first.

    The texts are shown labelled "A", "B", "C", … in the order given; the answer
    (`verdicts.RankingResult`) names them by those labels.

    Args:
        texts: The texts to order, as shown (3 to 8 of them).

    Example:
        >>> Rank(("one", "two", "three")).labels
        ('A', 'B', 'C')
    """

    texts: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.texts) not in RANK_SIZES:
            raise InputError(f"a ranking call shows 3 to {len(RANK_LABELS)} texts, "
                             f"got {len(self.texts)}")

    @property
    def labels(self) -> tuple[str, ...]:
        """The label of each text, in the order shown."""
        return tuple(RANK_LABELS[: len(self.texts)])


Question: TypeAlias = Compare | Score | Rank


@dataclass(frozen=True, slots=True)
class Request:
    """The one object a provider answers (`LLMProvider.answer`).

    Args:
        question: What is asked (`Compare`, `Score` or `Rank`).
        criteria: The user's criterion.
        repetition: How many earlier calls asked this same question (a comparison counts
            per presentation order); a provider whose answers should differ between
            repetitions (the seeded mock) reads it.
        ties: The run allows ties: a comparison may be answered `winner="tie"`, a ranking
            may put several labels in one place.
        logprobs: The run wants the judge's probabilities (soft verdicts). Information
            for now: providers still read their own `logprobs` setting.

    Example:
        >>> request = Request(Compare("x", "y"), "clearer", repetition=0, ties=False,
        ...                   logprobs=False)
        >>> isinstance(request.question, Compare)
        True
    """

    question: Question
    criteria: str
    repetition: int = 0
    ties: bool = False
    logprobs: bool = False
