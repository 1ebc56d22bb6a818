"""Every way a prompt setting can be wrong gets a message naming it, before any call."""

from __future__ import annotations

import math
from typing import Any

import pytest

from llm_qualitative_sort import (
    MockLLMProvider,
    PromptTemplate,
    PromptTemplateError,
    QualitativeSorter,
)

SHOWS_BOTH = "{{ text_a }}\n{{ text_b }}"


def _made(**kwargs: Any) -> QualitativeSorter:
    return QualitativeSorter(MockLLMProvider(), criteria="c", **kwargs)


@pytest.mark.parametrize(("system", "message"), [
    ("ok\n{{ 1/0 }}", "'t', system part, line 2: ZeroDivisionError: division by zero"),
    ("{{ 'a' + 1 }}", "'t', system part, line 1: TypeError: "),
    ("{{ [1][5] }}", "'t', system part, line 1: .*no element 5"),
    ("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
     "'t', system part, line 1: calls nest more than 50 deep"),
    ("{% include 'other.prompt' %}", r"'t', system part, line 1: \{% include %\} is not "
                                     "available: a prompt template is one text"),
    ("x\n{% import 'm' as m %}", r"'t', system part, line 2: \{% import %\} is not available"),
    ("{% extends 'base' %}", r"'t', system part, line 1: \{% extends %\} is not available"),
    ("{% from 'm' import x %}", r"'t', system part, line 1: \{% from ... import %\} is not"),
    ("{% if 1 %}" * 3000 + "{% endif %}" * 3000, "'t', system part"),
])
def test_a_template_error_is_named_with_its_part_and_line(system: str, message: str) -> None:
    with pytest.raises(PromptTemplateError, match=f"prompt template {message}"):
        _made(prompt=PromptTemplate(system=system, user=SHOWS_BOTH, name="t"))


@pytest.mark.parametrize(("given", "message"), [
    ({"system": None}, "PromptTemplate system must be a str .*got NoneType"),
    ({"user": b"{{ text_a }}"}, "PromptTemplate user must be a str .*got bytes"),
    ({"name": 3}, "PromptTemplate name must be a str, got int"),
])
def test_a_template_part_that_is_not_text_is_refused_naming_it(
    given: dict[str, Any], message: str
) -> None:
    with pytest.raises(PromptTemplateError, match=message):
        PromptTemplate(**{"system": "s", "user": SHOWS_BOTH, **given})


@pytest.mark.parametrize(("context", "error", "message"), [
    ({"rubric": math.nan}, ValueError, r"context\['rubric'\] is nan: context numbers must be "
                                       "finite \\(the judge would read 'NaN'\\)"),
    ({"rubric": {"w": [1, 1e999]}}, ValueError, r"context\['rubric'\]\['w'\]\[1\] is inf"),
    ({"rubric": -math.inf}, ValueError, r"context\['rubric'\] is -inf"),
    ({"rubric": 2**70}, ValueError, r"context\['rubric'\] is 1180591620717411303424: context "
                                    "integers must fit in 64 bits"),
    ({"rubric": {1: "x"}}, TypeError, r"context\['rubric'\] has the key 1: context keys must"),
    ({"rubric": {"x"}}, TypeError, r"context\['rubric'\] is a set: a context holds plain JSON"),
])
def test_a_context_value_no_judge_or_store_can_take_is_refused_naming_its_key(
    context: dict[str, Any], error: type[Exception], message: str
) -> None:
    template = PromptTemplate(system="{{ context.rubric }}", user=SHOWS_BOTH)
    with pytest.raises(error, match=message):
        _made(prompt=template, context=context)


def test_a_context_nested_thousands_deep_is_refused_without_a_recursion_error() -> None:
    deep: Any = "bottom"
    for _ in range(5000):
        deep = {"k": deep}
    template = PromptTemplate(system="{{ context.rubric }}", user=SHOWS_BOTH)
    with pytest.raises(ValueError, match=r"context\['rubric'\]\['k'\]\['k'\].*nests more than "
                                         "32 levels"):
        _made(prompt=template, context={"rubric": deep})
    _made(prompt=template, context={"rubric": [[{"k": 2**63 - 1, "f": 0.5, "b": True}]]})
