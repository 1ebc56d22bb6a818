"""What a calibration found: one `JudgeTrial` per judge × prompt, and the `JudgeChoice`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from llm_qualitative_sort.results.agreement import Agreement, Interval

RULE = ("the highest Cohen's κ with the people's verdicts (then the higher agreement, then "
        "the lower cost per call); settled when its κ interval lies above every other "
        "row's")


@dataclass(frozen=True)
class JudgeTrial:
    """One judge under one prompt, asked the labelled pairs (or texts).

    Attributes:
        judge: The judge's name.
        prompt: The prompt's name ("default" for the built-in prompt).
        agreement: Agreement and κ with the people (`results.agreement.Agreement`).
        first_shown: The share of decided calls won by the first-shown text, with its
            interval (None for pointwise calls, which show one text).
        length: The preference for the longer text, in logits per sd of log length, with
            its interval (None when it cannot be fitted).
        calls: The calls the run made, from the cache or paid.
        paid_calls: The calls paid for.
        tokens_per_call: Input and output tokens per paid call (None: nothing was paid).
        cost_per_call: The estimated cost per paid call (None: the judge has no prices,
            or nothing was paid).
        run_id: The stored run that asked the calls (resumable, reported like any run).
    """

    judge: str
    prompt: str
    agreement: Agreement
    first_shown: Interval | None
    length: Interval | None
    calls: int
    paid_calls: int
    tokens_per_call: float | None
    cost_per_call: float | None
    run_id: str


@dataclass(frozen=True)
class JudgeChoice:
    """The judges and prompts against the people's labels, best first.

    Attributes:
        trials: One row per judge × prompt, best first (see `RULE`).
        recommended: The first row (None when no row has a κ).
        unsettled: The rows whose κ interval overlaps the recommended one's: the
            difference between them is not settled by these labels.
        strategy: "pairwise" (each labelled pair asked in both orders) or "pointwise"
            (each labelled text scored alone; a pair's verdict from the two scores).
        items: The labelled texts.
        pairs: The distinct labelled pairs.
        verdicts: The people's verdicts (several per pair allowed).
        people_length: The people's own preference for the longer text on their
            verdicts, in the same unit as each row's `length`.
        rule: How the rows are ordered and the recommendation made.
        level: The intervals' coverage.
    """

    trials: tuple[JudgeTrial, ...]
    recommended: JudgeTrial | None
    unsettled: tuple[JudgeTrial, ...]
    strategy: str
    items: int
    pairs: int
    verdicts: int
    people_length: Interval | None
    rule: str = RULE
    level: float = 0.95

    def to_data(self) -> dict[str, Any]:
        """Everything as plain JSON-ready data (the `--format json` output).

        Example:
            >>> JudgeChoice((), None, (), "pairwise", 0, 0, 0, None).to_data()["recommended"]
        """
        data = asdict(self)
        for row in data["trials"]:
            row["agreement"]["agreement"] = _share(row["agreement"])
            row["agreement"].pop("disagreements")
        data["recommended"] = _named(self.recommended)
        data["unsettled"] = [_named(trial) for trial in self.unsettled]
        return data


def _share(agreement: dict[str, Any]) -> float | None:
    compared = agreement["compared"]
    return agreement["agreed"] / compared if compared else None


def _named(trial: JudgeTrial | None) -> dict[str, str] | None:
    return None if trial is None else {"judge": trial.judge, "prompt": trial.prompt}
