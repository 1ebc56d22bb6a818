"""The check of a template sees what the calls will send: the run's scale, context and tag."""

from __future__ import annotations

import pytest

from llm_qualitative_sort import (
    MockLLMProvider,
    Pointwise,
    PromptTemplate,
    PromptTemplateError,
    QualitativeSorter,
    Scale,
)
from llm_qualitative_sort.prompts._run import check_prompt
from llm_qualitative_sort.prompts._source import placeholder

SHOWS_BOTH = "{{ text_a }}\n{{ text_b }}"


@pytest.mark.parametrize(("user", "message"), [
    ("{{ text_a|truncate(15) }} {{ text_b }}", r"text_a \}\} as it is: user part, line 1 "
                                                 "passes it to the filter 'truncate'"),
    ("{{ text_a|truncate(30) }} {{ text_b }}", "passes it to the filter 'truncate'"),
    ("{{ text_a }}\n{% if text_b|length > 20 %}{{ text_b }}{% endif %}",
     r"text_b \}\} as it is: user part, line 2 passes it to the filter 'length'"),
    ("{{ text_a }} {% if text_b is string %}{{ text_b }}{% endif %}", "tests it"),
    ("{{ text_a }} {{ text_b if ties else text_a }}", "tests it"),
    ("{{ text_a }} {{ text_b ~ '!' }}", r"uses it in an expression \(concat\)"),
    ("{% set b = text_b %}{{ text_a }} {{ b }}", "assigns it"),
    ("{% set b %}{{ text_b }}{% endset %}{{ text_a }} {{ b|upper }}",
     r"shows it inside a \{% set %\} block"),
    ("{% macro m() %}{{ text_b }}{% endmacro %}{{ text_a }} {{ m()|truncate(5) }}",
     "shows it inside a macro"),
    ("{% filter upper %}{{ text_b }}{% endfilter %}{{ text_a }}",
     r"shows it inside a \{% filter %\} block"),
    (SHOWS_BOTH + " {{ criteria|upper }}", r"never shows \{\{ criteria \}\} as it is"),
    (SHOWS_BOTH + " {% if tag == 'TAG' %}x{% endif %}", r"never shows \{\{ tag \}\} as it is"),
    (SHOWS_BOTH + "\n\n{{ fields_a.src|truncate(30) }}",
     r"user part, line 4: fields_a.src is never shown as it is.*'truncate'"),
])
def test_a_value_filled_in_per_call_may_only_be_shown_as_it_is(user: str, message: str) -> None:
    # Filters and tests would see a stand-in, never the text: refused, never sent.
    with pytest.raises(PromptTemplateError, match=f"prompt template 't'.*{message}"):
        PromptTemplate(system="s", user=user, name="t").check()


def test_shown_as_it_is_inside_ifs_loops_and_withs_is_fine() -> None:
    template = PromptTemplate(
        system="{% with n = 2 %}{{ n }}{% endwith %}",
        user="{% if ties %}{{ text_a }}{% else %}{{ text_a }}{% endif %}\n"
             "{% for i in range(1) %}{{ text_b }}{% endfor %}\n{{ tag }} {{ criteria }}")
    template.check()
    _, user = template.render("first", "second", "crit")
    tag = user.split("<<<BEGIN TEXT A ", 1)[1][:12]
    assert f"\n{tag} <<<BEGIN CRITERION {tag}>>>\ncrit\n" in user
    assert "first" in user and "second" in user


@pytest.mark.parametrize("context", [
    {"note": placeholder("text_a", {})}, {"note": "\x00check:text_a\x00"}])
def test_a_placeholder_forged_in_a_context_value_does_not_pass_for_the_text(
    context: dict[str, str]
) -> None:
    template = PromptTemplate(system="s", user="{{ context.note }} {{ text_b }}", name="t")
    with pytest.raises(PromptTemplateError, match=r"never shows \{\{ text_a \}\}"):
        template.check(context)
    forged = PromptTemplate(system="s", user="\x00check:text_a\x00 {{ text_b }}", name="t")
    with pytest.raises(PromptTemplateError, match=r"never shows \{\{ text_a \}\}"):
        forged.check()


SCORED = PromptTemplate(system="Rate {{ criteria }} from {{ low }} to {{ high }}.",
                        user="{% if high == 4 %}{{ text }}{% endif %}", name="scored")


def test_a_pointwise_template_is_checked_on_the_runs_own_scale() -> None:
    assert SCORED.pointwise
    check_prompt(SCORED, None, pointwise=True)  # the default 1-4 scale shows the text
    with pytest.raises(PromptTemplateError, match=r"'scored' never shows \{\{ text \}\}"):
        QualitativeSorter(MockLLMProvider(), criteria="c", strategy=Pointwise(scale="0-5"),
                          prompt=SCORED)
    with pytest.raises(PromptTemplateError, match=r"never shows \{\{ text \}\}"):
        SCORED.check(scale=Scale.parse("0-5"))


def test_an_error_only_the_runs_scale_shows_stops_the_sorter_being_made() -> None:
    template = PromptTemplate(system="{{ 1 / (high - 5) }}", user="{{ text }}", name="div")
    QualitativeSorter(MockLLMProvider(), criteria="c", strategy=Pointwise(), prompt=template)
    with pytest.raises(PromptTemplateError,
                       match="'div', system part, line 1: ZeroDivisionError: division by zero"):
        QualitativeSorter(MockLLMProvider(), criteria="c", strategy=Pointwise(scale="0-5"),
                          prompt=template)


@pytest.mark.parametrize("key", ["items", "values", "keys", "get"])
def test_a_context_key_means_the_users_value_even_when_a_dict_has_a_method_so_named(
    key: str
) -> None:
    template = PromptTemplate(system=f"Rubric: {{{{ context.{key} }}}} "
                                     f"{{{{ context.nested.{key} }}}}", user=SHOWS_BOTH)
    context = {key: "mine", "nested": {key: "deep"}}
    setup = check_prompt(template, context)
    system, _ = setup.messages("a", "b", "c", ties=False)
    assert system == "Rubric: mine deep"
    # A mapping without such a key keeps the method: a loop over its items still works.
    looped = PromptTemplate(system="{% for k, v in context.r.items() %}{{ k }}={{ v }}"
                                   "{% endfor %}", user=SHOWS_BOTH)
    assert looped.render("a", "b", "c", context={"r": {"x": 1}})[0] == "x=1"
