"""User prompt templates: checked whole before any call, texts always fenced as data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from llm_qualitative_sort import PromptTemplate, PromptTemplateError
from llm_qualitative_sort.prompts._comparison import build_messages
from llm_qualitative_sort.prompts.setup import PromptSetup, using_prompt

SHOWS_BOTH = "{{ text_a }}\n{{ text_b }}"


def _untagged(text: str) -> str:
    tags = set(re.findall(r"<<<(?:BEGIN|END) [A-Z ]+ (\w+)>>>", text))
    for tag in tags:
        text = text.replace(tag, "TAG")
    return text


@pytest.mark.parametrize("ties", [False, True])
def test_the_english_builtin_renders_the_default_prompt_byte_for_byte(ties: bool) -> None:
    system, user = PromptTemplate.builtin("en").render("one", "two", "crit", ties=ties)
    default = build_messages("one", "two", "crit", ties=ties)
    assert system == default[0].text
    assert _untagged(user) == _untagged(default[1].text)


def test_the_japanese_builtin_is_valid_and_fences_the_texts() -> None:
    template = PromptTemplate.builtin("ja")
    template.check()
    system, user = template.render("first", "second", "crit", ties=True)
    assert "審査員" in system and '"tie"' in system
    assert re.search(r"<<<BEGIN TEXT A (\w+)>>>\nfirst\n<<<END TEXT A \1>>>", user)
    with pytest.raises(PromptTemplateError, match="'fr'"):
        PromptTemplate.builtin("fr")


def test_an_item_with_template_syntax_is_judged_as_text() -> None:
    template = PromptTemplate(system="Rubric: {{ context.rubric }}", user=SHOWS_BOTH,
                              name="mine")
    item = "{{ context.rubric }} {% for x in range(9) %}loop{% endfor %} {{ 7 * 7 }}"
    system, user = template.render(item, "{{ text_a }}", "{{ criteria }}",
                                   context={"rubric": "secret"})
    assert system == "Rubric: secret"
    assert item in user and "{{ text_a }}" in user
    # The fences carry a random hex tag, which may spell "49": look between them only.
    shown = "\n".join(line for line in user.splitlines() if not line.startswith("<<<"))
    assert "secret" not in shown and "49" not in shown and "looploop" not in shown


def test_context_values_and_ties_reach_the_template() -> None:
    template = PromptTemplate(
        system="{% if ties %}tie ok{% else %}no tie{% endif %}",
        user="Q: {{ context.question }}\nRef: {{ context['reference'] }}\n" + SHOWS_BOTH)
    context = {"question": "2+2?", "reference": "4"}
    template.check(context)
    system, user = template.render("a", "b", "c", context=context, ties=True)
    assert system == "tie ok" and user.startswith("Q: 2+2?\nRef: 4\n<<<BEGIN TEXT A")


@pytest.mark.parametrize(("system", "user", "context", "message"), [
    ("ok", "line one\n{{ text_a }} {{ text_b }} {{ rubrik }}", {},
     r"'t', user part, line 2: unknown variable 'rubrik'"),
    ("one\ntwo\n{{ context.rubric }}", SHOWS_BOTH, {"question": "q"},
     r"'t', system part, line 3: context has no key 'rubric'"),
    ("fine\n{{ 1 + }}", SHOWS_BOTH, {}, r"'t', system part, line 2: unexpected"),
    ("{% if ties %}\nunclosed", SHOWS_BOTH, {}, r"'t', system part, line 1: .*'endif'"),
    ("ok", "{{ text_a }}\n{{ text_b }}\n{{ context.a.missing }}", {"a": {}},
     r"'t', user part, line 3: .*'missing'"),
    ("ok", "{{ text_a }} only", {}, r"'t' never shows \{\{ text_b \}\}"),
    ("ok", "{{ text_a|upper }} {{ text_b }}", {}, r"'t' never shows \{\{ text_a \}\}"),
    ("ok", "{% if ties %}{{ text_a }}{% endif %} {{ text_b }}", {},
     r"'t' never shows \{\{ text_a \}\} as it is \(ties=False\)"),
    ("{{ ''.__class__.__mro__ }}", SHOWS_BOTH, {}, r"'t', system part, line 1: .*unsafe"),
])
def test_every_template_error_names_the_template_line_and_variable(
    system: str, user: str, context: dict[str, object], message: str
) -> None:
    with pytest.raises(PromptTemplateError, match=message):
        PromptTemplate(system=system, user=user, name="t").check(context)


def test_a_template_file_has_a_system_and_a_user_section(tmp_path: Path) -> None:
    path = tmp_path / "judge.prompt"
    path.write_text("---system---\nYou judge.\n\n---user---\nCompare:\n{{ text_a }}\n"
                    "{{ text_b }}\n{{ context.rubric }}\n", encoding="utf-8")
    template = PromptTemplate.from_file(path)
    assert (template.system, template.name) == ("You judge.\n", str(path))
    assert template.user == "Compare:\n{{ text_a }}\n{{ text_b }}\n{{ context.rubric }}\n"
    # Errors give the line in the file, not in the section.
    with pytest.raises(PromptTemplateError, match=r"judge.prompt', user part, line 8: .*'rubric'"):
        template.check({})
    path.write_text("no sections here\n", encoding="utf-8")
    with pytest.raises(PromptTemplateError, match="---system---"):
        PromptTemplate.from_file(path)


def test_the_digest_follows_the_text_and_the_setup_the_context() -> None:
    one = PromptTemplate(system="s", user=SHOWS_BOTH, name="one")
    assert one.digest == PromptTemplate(system="s", user=SHOWS_BOTH, name="two").digest
    assert one.digest != PromptTemplate(system="s ", user=SHOWS_BOTH).digest
    assert PromptSetup(one, {"k": 1}).digest != PromptSetup(one, {"k": 2}).digest
    assert PromptSetup(PromptTemplate.builtin("en")).is_default
    assert not PromptSetup(PromptTemplate.builtin("ja")).is_default
    assert PromptTemplate.from_dict(one.to_dict()) == one


def test_calls_inside_using_prompt_get_the_template_and_only_those() -> None:
    setup = PromptSetup(PromptTemplate(system="S {{ context.k }}", user=SHOWS_BOTH), {"k": "v"})
    with using_prompt(setup):
        system, user = build_messages("a", "b", "c")
    assert system.text == "S v" and user.text.startswith("<<<BEGIN TEXT A")
    assert build_messages("a", "b", "c")[0].text.startswith("You are a careful")


def test_batch_requests_carry_the_template() -> None:
    from llm_qualitative_sort.providers._batch import BatchOptions, BatchRequest
    from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient
    from llm_qualitative_sort.providers.questions import Compare, Request

    client = OpenAIBatchClient(BatchOptions(), "gpt-5.1", "sk-x", "http://127.0.0.1:1/v1", 5.0)
    setup = PromptSetup(PromptTemplate(system="S {{ context.k }}", user=SHOWS_BOTH), {"k": "v"})
    request = BatchRequest("m0-c0", Request(Compare("{{ context.k }}", "two"), "crit"))
    with using_prompt(setup):
        messages = client._line(request)["body"]["messages"]
    assert messages[0]["content"] == "S v"
    assert "\n{{ context.k }}\n<<<END TEXT A" in messages[1]["content"]


def test_batch_calls_with_a_template_are_cached_apart() -> None:
    from langgraph.types import RetryPolicy

    from llm_qualitative_sort._calls import Call, CallSettings
    from llm_qualitative_sort._calls.batch import _Round
    from llm_qualitative_sort.providers._batch import BatchOptions
    from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient
    from llm_qualitative_sort.providers.mock import MockLLMProvider
    from llm_qualitative_sort.stores.cache import CacheKey
    from llm_qualitative_sort.stores.entries import CallPlace

    client = OpenAIBatchClient(BatchOptions(), "gpt-5.1", "sk-x", "http://127.0.0.1:1/v1", 5.0)
    call = Call(CallPlace("r", 1, 0, 0, "x", "y", "xy"), 0)

    def key(prompt: PromptSetup | None) -> str:
        settings = CallSettings(provider=MockLLMProvider(seed=1), criteria="c", cache=None,
                                journal=None, retry=RetryPolicy(),  # type: ignore[arg-type]
                                max_concurrent_requests=1, prompt=prompt)
        return _Round(settings, client, None, [call], print)._keys(0).own.model_hash  # type: ignore[arg-type]

    def hashed(identity: str) -> str:
        return CacheKey.of("x", "y", "c", 0, identity).model_hash

    default = PromptSetup(PromptTemplate.builtin("en"))
    mine = PromptSetup(PromptTemplate(system="s", user=SHOWS_BOTH))
    plain = MockLLMProvider(seed=1).model_identity
    assert key(None) == key(default) == hashed(plain)
    assert key(mine) == hashed(f"{plain}+prompt:{mine.digest[:16]}")


def test_a_text_read_once_is_checked_again_against_each_context_and_errors_are_not_kept(
) -> None:
    template = PromptTemplate(system="Rubric: {{ context.rubric }}", user=SHOWS_BOTH, name="t")
    template.check({"rubric": "clarity"})
    with pytest.raises(PromptTemplateError, match="context has no key 'rubric'"):
        template.check({})
    broken = PromptTemplate(system="{{ text_a ", user=SHOWS_BOTH, name="b")
    for _ in range(2):
        with pytest.raises(PromptTemplateError, match="'b', system part, line 1"):
            broken.check()
    unknown = PromptTemplate(system="{{ text_a }} {{ mood }}", user=SHOWS_BOTH, name="u")
    for _ in range(2):
        with pytest.raises(PromptTemplateError, match="unknown variable 'mood'"):
            unknown.check()
