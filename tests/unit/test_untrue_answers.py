"""Answers that must not be read as something they do not say.

A boolean is not a label; a log-probability that is none (NaN, +inf) or that rules out the
token the judge wrote (-inf) gives no probability, rather than one against the verdict.
"""

from __future__ import annotations

import math

import pytest

from llm_qualitative_sort.prompts._score import parse_text_score, score_answer
from llm_qualitative_sort.providers._answer import parsed_score
from llm_qualitative_sort.providers.logprobs import Token, score_distribution, verdict_probability
from llm_qualitative_sort.rating.scoring import Scale

SCALE = Scale.parse(None)  # 1..4
VERDICT_HEAD = '{"reasoning": "x", "winner": "'
LABEL_HEAD = '{"reason": "ok", "label": '


@pytest.mark.parametrize("label", [True, False, "3.0", "03", "+3", " 3", "three"])
def test_a_label_not_written_as_an_integer_is_no_label(label: object) -> None:
    answer, problem = score_answer({"reason": "ok", "label": label}, SCALE)
    assert answer is None and "a label is an integer of the scale" in problem
    text = '{"reason": "ok", "label": %s}' % ("true" if label is True else "false"
                                              if label is False else f'"{label}"')
    assert parse_text_score(text, SCALE) is None
    assert parsed_score(text, "", None, SCALE)[0] is None  # a batch's answer alike


@pytest.mark.parametrize("label", [3, 3.0, "3"])
def test_an_integer_as_a_number_or_its_quoted_digits_is_a_label(label: object) -> None:
    answer, problem = score_answer({"reason": "ok", "label": label}, SCALE)
    assert answer is not None and answer.label == 3 and problem == ""


def _verdict(chosen: str, top: dict[str, float]) -> list[Token]:
    return [Token(VERDICT_HEAD, 0.0, {}), Token(chosen, top[chosen], top), Token('"}', 0.0, {})]


@pytest.mark.parametrize("bad", [math.inf, math.nan, -math.inf])
def test_a_verdict_whose_own_logprob_is_not_one_has_no_probability(bad: float) -> None:
    probability, labels = verdict_probability(_verdict("A", {"A": bad, "B": -2.0}))
    assert probability is None and labels == {}


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_an_alternative_whose_logprob_is_not_one_gives_no_probability(bad: float) -> None:
    probability, _ = verdict_probability(_verdict("A", {"A": -0.1, "B": bad}))
    assert probability is None


def test_an_alternative_at_minus_infinity_has_probability_zero() -> None:
    probability, labels = verdict_probability(_verdict("A", {"A": -0.1, "B": -math.inf}))
    assert probability == 1.0 and labels == {"A": -0.1}


def _label(chosen: str, top: dict[str, float]) -> list[Token]:
    return [Token(LABEL_HEAD, 0.0, {}), Token(chosen, top[chosen], top), Token("}", 0.0, {})]


@pytest.mark.parametrize("bad", [math.inf, math.nan, -math.inf])
def test_a_label_whose_own_logprob_is_not_one_has_no_distribution(bad: float) -> None:
    distribution, labels = score_distribution(_label("3", {"3": bad, "1": -2.0}), SCALE)
    assert distribution is None and labels == {}


def test_a_label_alternative_at_plus_infinity_gives_no_distribution() -> None:
    distribution, _ = score_distribution(_label("3", {"3": -0.1, "1": math.inf}), SCALE)
    assert distribution is None
    distribution, _ = score_distribution(_label("3", {"3": -0.1, "1": -math.inf}), SCALE)
    assert distribution == {3: 1.0}
