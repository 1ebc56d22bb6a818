"""An answer of the judge as the providers read it, and the comparison result it makes.

Shared by the live LangChain provider and the provider batches (`_batch`), which read the
same verdicts; a leaf below both, so that neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from llm_qualitative_sort.prompts._comparison import TieVerdict, Verdict, verdict_model
from llm_qualitative_sort.verdicts import ComparisonResult


@dataclass
class AskedAnswer:
    verdict: Verdict | TieVerdict | None
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""
    # P(first-shown wins) read from the answer's log-probabilities, if it had any.
    probability: float | None = None


def answers_result(answers: list[AskedAnswer]) -> ComparisonResult:
    last = answers[-1]
    tokens_in = sum(a.input_tokens for a in answers)
    tokens_out = sum(a.output_tokens for a in answers)
    raw = dict(last.raw, answers=len(answers))
    if last.verdict is not None:
        return ComparisonResult(
            last.verdict.winner, last.verdict.reasoning, raw, tokens_in, tokens_out,
            last.probability,
        )
    reasoning = f"no usable verdict after {len(answers)} answer(s): {last.problem}"
    return ComparisonResult(None, reasoning, raw, tokens_in, tokens_out)


def validated_answer(
    parsed: Any, error: Any, ties: bool = False
) -> tuple[Verdict | TieVerdict | None, str]:
    # With `ties` (a run that allows them) "tie" is a valid winner; otherwise it is not.
    if parsed is None:
        return None, f"no parsable verdict ({error or 'empty answer'})"
    try:
        return verdict_model(ties).model_validate(parsed), ""
    except ValidationError as exc:
        return None, f"the answer does not match the verdict schema: {exc.errors()[:2]}"
