"""A user's template renders within bounds on work and size, refused before any call."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from llm_qualitative_sort import (
    MockLLMProvider,
    PromptTemplate,
    PromptTemplateError,
    QualitativeSorter,
)
from llm_qualitative_sort.prompts import _sandbox as sandbox
from llm_qualitative_sort.prompts import template as prompt_template

SHOWS_BOTH = "{{ text_a }}\n{{ text_b }}"


@pytest.mark.parametrize(("system", "message"), [
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
     "more than 100,000 steps"),
    ("{% for i in range(100000) %}{{ i }}{% endfor %}", "more than 100,000 steps"),
    ("{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}", "calls nest more than 50 deep"),
    ("{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", "calls nest more than 50"),
])
def test_endless_work_is_refused_when_the_sorter_is_made(system: str, message: str) -> None:
    started = time.monotonic()
    # On a loaded machine the time bound can come before the steps run out: either is the
    # refusal asked for.
    refused = f"({message}|takes more than [0-9.]+ s to render)"
    with pytest.raises(PromptTemplateError, match=f"'t', system part, line 1: .*{refused}"):
        QualitativeSorter(MockLLMProvider(), criteria="c",
                          prompt=PromptTemplate(system=system, user=SHOWS_BOTH, name="t"))
    # The steps run out long before the time bound, which is the most a check can take.
    assert time.monotonic() - started < 2 * sandbox.MAX_SECONDS + 1


@pytest.mark.parametrize(("system", "message"), [
    ("{{ 'x' * 10**9 }}", "repeating a value of length 1 1,000,000,000 times is refused"),
    ("{{ [0] * 10**9 }}", "repeating a value of length 1"),
    ("{{ 10 ** 100000000 }}", r"10 \*\* 100000000 is refused"),
    ("{{ 'x'|center(10**9) }}", "the filter 'center' is refused"),
    ("{{ 'x'.ljust(10**9) }}", "the call of ljust is refused"),
    ("{{ '%1000000000s'|format('x') }}", "width or precision of 1000000000 is refused"),
    ("{{ '%1000000000s' % 'x' }}", "width or precision of 1000000000 is refused"),
    ("{{ '{:1000000000}'.format('x') }}", "width or precision of 1000000000 is refused"),
    ("{{ range(100000)|join('x' * 1000) }}", "the filter 'join' is refused"),
    ("{{ range(30000)|map('string')|join('x' * 1000) }}", "the filter 'join' is refused"),
    ("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
     "{% endfor %}", "joining with ~ would make a value of 1,048,576 characters"),
    ("{% set ns = namespace(s=[0]) %}{% for i in range(99) %}{% set ns.s = ns.s + ns.s %}"
     "{% endfor %}", "makes a value of 1,048,576 characters or items"),
    ("{% for i in range(200) %}{% set s = 'x' * 99999 %}{% endfor %}",
     "more than 10,000,000 characters or items in all"),
    # One long string held a thousand times is a short list but a long text.
    ("{{ ['x' * 100000] * 1000 }}", "showing it is refused: the list or mapping would make"),
    ("{{ (['x' * 100000] * 1000)|string }}", "the filter 'string' is refused"),
    ("{{ (['x' * 100000] * 1000)|join }}", "the filter 'join' is refused"),
    ("{{ (['x' * 100000] * 1000)|tojson }}", "the filter 'tojson' is refused"),
    ("{{ ''.join(['x' * 100000] * 1000) }}", "the call of join is refused"),
    ("{{ ([[0] * 1000] * 100000)|sum(start=[]) }}", "the filter 'sum' is refused"),
    ("{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns.l) %}{{ ns.l }}",
     "showing it is refused"),
])
def test_huge_values_are_refused_before_they_are_made(system: str, message: str) -> None:
    tracemalloc.start()  # which slows rendering: on a loaded machine time may run out first
    refused = f"({message}|takes more than [0-9.]+ s to render)"
    try:
        with pytest.raises(PromptTemplateError, match=f"'t', system part, line 1: .*{refused}"):
            PromptTemplate(system=system, user=SHOWS_BOTH, name="t").check()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200_000_000  # bytes: the bounds' own worst case, not gigabytes


def test_a_rendered_part_has_a_bound_of_its_own() -> None:
    with pytest.raises(PromptTemplateError, match="'t', system part, .*renders more than "
                                                  "1,000,000 characters"):
        PromptTemplate(system="{% for i in range(2000) %}{{ 'y' * 999 }}{% endfor %}",
                       user=SHOWS_BOTH, name="t").check()


def test_ordinary_templates_render_as_before() -> None:
    template = PromptTemplate(
        system="{% for rule in context.rules %}{{ loop.index }}. {{ rule|upper }}\n{% endfor %}"
               "{{ '%-6s|' % 'ab' }}{{ '{:>4}'.format(7) }} {{ 2 ** 10 }} {{ 'ab' * 3 }}",
        user="{% macro show(x) %}[{{ x }}]{% endmacro %}{{ show(context.rules|length) }}\n"
             + SHOWS_BOTH + "\n{{ context.long|truncate(20) }}", name="t")
    context = {"rules": ["be brief", "be kind"], "long": "word " * 100_000}
    template.check(context)
    system, user = template.render("a", "b", "c", context=context)
    assert system == "1. BE BRIEF\n2. BE KIND\nab    |   7 1024 ababab"
    assert user.startswith("[2]\n<<<BEGIN TEXT A") and user.endswith("word word word...")


def test_templates_that_would_change_between_calls_cannot_use_randomness() -> None:
    with pytest.raises(PromptTemplateError, match="unknown variable 'lipsum'"):
        PromptTemplate(system="{{ lipsum(1) }}", user=SHOWS_BOTH).check()
    with pytest.raises(PromptTemplateError, match="No filter named 'random'"):
        PromptTemplate(system="{{ [1, 2]|random }}", user=SHOWS_BOTH).check()


def test_a_call_has_more_time_than_the_check_so_a_checked_template_never_fails_on_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Steps and sizes are the same at the check and at every call; only time depends on
    # the machine, so a call gets several times the check's.
    assert sandbox.CALL_SECONDS >= 5 * sandbox.MAX_SECONDS
    template = PromptTemplate(system="{% for i in range(10) %}{{ i }}{% endfor %}",
                              user=SHOWS_BOTH, name="t")
    monkeypatch.setattr(prompt_template, "MAX_SECONDS", -1.0)  # no check has time
    with pytest.raises(PromptTemplateError, match="'t', system part, line 1: the template "
                                                  "takes more than -1 s to render"):
        template.check()
    assert template.render("a", "b", "c")[0] == "0123456789"
