"""Pointwise prompts and answers: the templates, the label token's log-probabilities, cache."""

from __future__ import annotations

import asyncio
import math

import pytest

from llm_qualitative_sort import (
    MemoryCache,
    MockLLMProvider,
    Pointwise,
    PromptTemplate,
    PromptTemplateError,
    QualitativeSorter,
    Scale,
)
from llm_qualitative_sort.prompts._run import check_prompt
from llm_qualitative_sort.prompts._score import parse_text_score
from llm_qualitative_sort.prompts._score_messages import build_score_messages
from llm_qualitative_sort.prompts.setup import using_prompt
from llm_qualitative_sort.providers.logprobs import Token, score_logprobs


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_builtin_pointwise_prompts_show_the_text_the_scale_and_the_question(
    lang: str
) -> None:
    setup = check_prompt(PromptTemplate.builtin(lang), None, pointwise=True)
    assert setup.template.pointwise and setup.template.name == f"builtin:{lang}:pointwise"
    with using_prompt(setup):
        direct = build_score_messages("{{ 7*7 }} text", "clarity", Scale.parse("0-3"), False)
        inverse = build_score_messages("a text", "clarity", Scale.parse(None), True)
    system, user = direct[0].text, direct[1].text
    assert "0\n1\n2\n3" in system and "{{ 7*7 }} text" in user
    # The text is shown, not evaluated (the fence's random tag may itself spell "49").
    shown = user.split("<<<BEGIN TEXT ", 1)[1].split("\n", 1)[1].split("\n<<<END TEXT", 1)[0]
    assert shown == "{{ 7*7 }} text"
    assert "<<<BEGIN TEXT " in user and "<<<BEGIN CRITERION " in user
    far = {"en": "Very far", "ja": "非常に遠い"}[lang]
    assert system != inverse[0].text and far in inverse[0].text


def test_a_template_showing_text_is_pointwise_and_each_kind_is_refused_for_the_other() -> None:
    pointwise = PromptTemplate(system="Rate by {{ context.rubric }}:\n{{ scale }}",
                               user="{{ criteria }} {{ text }} {{ low }}..{{ high }}")
    assert pointwise.kind == "pointwise"
    setup = check_prompt(pointwise, {"rubric": "depth"}, pointwise=True)
    system, user = setup.score_messages("t", "c", Scale.parse("1-3"), inverse=False)
    assert system == "Rate by depth:\n1\n2\n3" and user.endswith("1..3")
    with pytest.raises(PromptTemplateError, match="pairwise run needs"):
        check_prompt(pointwise, {"rubric": "depth"}, pointwise=False)
    with pytest.raises(PromptTemplateError, match="pointwise run needs"):
        check_prompt(PromptTemplate(system="s", user="{{ text_a }} {{ text_b }}"), None,
                     pointwise=True)
    with pytest.raises(PromptTemplateError, match="unknown variable 'text_a'"):
        PromptTemplate(system="{{ text }}", user="{{ text_a }}", kind="pointwise").check()
    assert PromptTemplate.from_dict(pointwise.to_dict()) == pointwise
    assert pointwise.digest != PromptTemplate(system=pointwise.system,
                                              user=pointwise.user.replace("text", "x")).digest


def test_the_label_tokens_alternatives_give_each_labels_log_probability() -> None:
    scale = Scale.parse(None)
    head = Token('{"reason": "ok", "label":', 0.0, {})
    label = Token(" 3", math.log(0.6), {" 3": math.log(0.6), " 4": math.log(0.3),
                                        " 2": math.log(0.05), " x": -2.0, "3": -9.0})
    found = score_logprobs([head, label, Token("}", 0.0, {})], scale)
    assert found == {3: math.log(0.6), 4: math.log(0.3), 2: math.log(0.05)}
    assert score_logprobs([Token('{"reason": "no label"}', 0.0, {})], scale) is None
    assert score_logprobs([head, Token(" 7", -0.1, {" 7": -0.1})], scale) is None


def test_a_plain_text_answer_must_be_the_json_object_with_a_label_of_the_scale() -> None:
    scale = Scale.parse("1-4")
    assert parse_text_score('```json\n{"reason": "r", "label": 2}\n```', scale) is not None
    assert parse_text_score('{"reason": "r", "label": 5}', scale) is None
    assert parse_text_score("label: 2", scale) is None


def test_pointwise_answers_are_cached_apart_from_other_questions() -> None:
    cache = MemoryCache()
    items = [str(n) for n in range(12)]

    def run(judge: MockLLMProvider, **settings: object) -> None:
        sorter = QualitativeSorter(judge, criteria="larger", strategy=Pointwise(**settings),
                                   cache=cache, seed=1, checkpointer=None)
        asyncio.run(sorter.sort(items))

    first = MockLLMProvider(seed=1, pointwise="calibrated")
    run(first)
    again = MockLLMProvider(seed=1, pointwise="calibrated")
    run(again)
    assert first.calls == 12 and again.calls == 0  # all from the cache
    for settings in ({"inverse": True}, {"scale": "0-3"}):
        other = MockLLMProvider(seed=1, pointwise="calibrated")
        run(other, **settings)
        assert other.calls == 12  # another question: asked again
