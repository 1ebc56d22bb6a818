"""A run's prompt: checked before any call, kept in the run's state, the same on resume."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from llm_qualitative_sort.errors import InputError, RunMismatchError, SettingTypeError
from llm_qualitative_sort.prompts._fields import checked_fields, kept
from llm_qualitative_sort.prompts._ranking import check_ranking_prompt
from llm_qualitative_sort.prompts.setup import PromptSetup
from llm_qualitative_sort.prompts.template import PromptTemplate, PromptTemplateError

DEFAULT = PromptSetup(PromptTemplate.builtin("en"))
# How deep a context's lists and mappings may nest (a rubric is a few levels at most).
MAX_CONTEXT_DEPTH = 32
# The stores keep a context's integers in 64 bits.
_INT_RANGE = (-(2**63), 2**63 - 1)


def check_prompt(prompt: PromptTemplate | None, context: Mapping[str, Any] | None,
                 pointwise: bool = False, scale: Any = None,
                 group_size: int = 2) -> PromptSetup:
    """The run's prompt setup, refused before any call unless it renders.

    A pointwise run (`pointwise`) asks a pointwise template: its default is the built-in
    pointwise prompt, and a built-in named for pairs ("builtin:ja") is taken in its
    pointwise form; it is checked on the run's `scale`. A run of ranking calls (Swiss
    `group_size` > 2) asks them with the built-in ranking prompt, so it takes no template
    of its own (`check_ranking_prompt`).

    Raises:
        TypeError: `prompt` is not a `PromptTemplate`, or `context` not a mapping of plain
            JSON data with string keys (it is stored with the run).
        ValueError: A context value that is not a finite number, an integer beyond 64
            bits, or lists and mappings nested more than `MAX_CONTEXT_DEPTH` deep; the
            message names the key.
        PromptTemplateError: The template does not render with `context` (see
            `PromptTemplate.check`), a context is given to the default prompt, which
            shows none of it, or a template of the run's own goes with ranking calls.
    """
    if prompt is not None and not isinstance(prompt, PromptTemplate):
        raise SettingTypeError(f"prompt must be a PromptTemplate, got {type(prompt).__name__}")
    if context is not None:
        if not isinstance(context, Mapping):
            raise SettingTypeError(f"context must be a mapping with string keys, got "
                                   f"{type(context).__name__}")
        check_context(context)
        if prompt is None:
            raise PromptTemplateError("context is given but the default prompt shows none of it: "
                                      "give a template that uses it (prompt= or --prompt)")
    template = prompt or DEFAULT.template
    if pointwise and not template.pointwise and template.name.startswith("builtin:"):
        template = PromptTemplate.builtin(template.name.removeprefix("builtin:"), "pointwise")
    if template.pointwise != pointwise:
        wanted = ("a pointwise template (showing {{ text }})" if pointwise else
                  "a pairwise template (showing {{ text_a }} and {{ text_b }})")
        raise PromptTemplateError(f"prompt template {template.name!r}: a "
                                  f"{'pointwise' if pointwise else 'pairwise'} run needs "
                                  f"{wanted}")
    setup = PromptSetup(template, dict(context or {}))
    if group_size > 2:
        check_ranking_prompt(setup, group_size)
    setup.template.check(setup.context, scale if pointwise else None)
    return setup


def check_context(context: Mapping[str, Any]) -> None:
    """Refuse a context that is not plain JSON data a judge can read, naming the key.

    Walked without recursion, so a context nested thousands deep gets this message too.

    Raises:
        TypeError: A key that is not a string, or a value of another type than JSON's.
        ValueError: A number that is not finite (the judge would read "nan"), an integer
            beyond 64 bits (the stores cannot keep it), or nesting past `MAX_CONTEXT_DEPTH`.
    """
    pending: list[tuple[str, Any, int]] = [("context", context, 0)]
    while pending:
        path, value, depth = pending.pop()
        if depth > MAX_CONTEXT_DEPTH:
            raise InputError(f"{path}: the context nests more than {MAX_CONTEXT_DEPTH} levels "
                             "of lists and mappings")
        if isinstance(value, Mapping):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise SettingTypeError(f"{path} has the key {key!r}: context keys must be "
                                           "strings")
                pending.append((f"{path}[{key!r}]", item, depth + 1))
        elif isinstance(value, (list, tuple)):
            pending.extend((f"{path}[{index}]", item, depth + 1)
                           for index, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{path} is {value!r}: context numbers must be finite (the judge "
                             f"would read {json.dumps(value)!r})")
        elif isinstance(value, int) and not isinstance(value, bool) and not (
                _INT_RANGE[0] <= value <= _INT_RANGE[1]):
            raise InputError(f"{path} is {value}: context integers must fit in 64 bits (the "
                             "run is stored with them); give it as a string")
        elif not isinstance(value, (str, int, float, type(None))):
            raise SettingTypeError(f"{path} is a {type(value).__name__}: a context holds plain "
                                   "JSON data (strings, numbers, booleans, null, lists, "
                                   "mappings); it is stored with the run")


def with_fields(setup: PromptSetup, texts: Sequence[str], fields: Any,
                names: Sequence[str] | None = None) -> PromptSetup:
    """`setup` with the fields its template shows of each item (`fields`: one per text).

    Raises:
        PromptTemplateError: The template shows a field that some item lacks, or that none
            carry (`fields` None); or fields are given and the template shows none.
        TypeError, ValueError: `fields` is not one JSON mapping per item.
    """
    keys = setup.template.field_keys
    if fields is None:
        setup.template.check_fields(None)
        return setup
    entries = checked_fields(fields, len(texts))
    if not keys:
        raise PromptTemplateError(
            f"fields are given but the prompt template {setup.template.name!r} shows none of "
            "them: show one as {{ fields_a.KEY }} and {{ fields_b.KEY }}, or give no fields")
    setup.template.check_fields(entries, names)
    return replace(setup, fields=dict(zip(texts, kept(entries, keys), strict=True)))


def round_prompt(setup: PromptSetup, pointwise: bool) -> PromptSetup:
    """The prompt of one round: a pairwise run's pre-pass asks the pointwise built-in.

    A built-in pairwise prompt becomes its pointwise form in the same language; a
    template of the user's that shows pairs becomes the default pointwise prompt (a pre-pass
    of Swiss scores texts alone, which a pairwise template cannot ask).
    """
    if not pointwise or setup.template.pointwise:
        return setup
    name = setup.template.name
    lang = name.removeprefix("builtin:") if name.startswith("builtin:") else "en"
    return PromptSetup(PromptTemplate.builtin(lang, "pointwise"))


def input_prompt(state: Mapping[str, Any], pointwise: bool = False,
                 scale: Any = None, group_size: int = 2) -> dict[str, Any]:
    """Check the prompt of a run's plain input (Studio, the API server) before any call.

    `prompt` is {"system": ..., "user": ..., "name": ...} or "builtin:LANG"; `context` a
    mapping; `fields` a list of mappings, one per item. Returns what the state should hold
    instead (a built-in's text; the fields the template shows), or {}.

    Raises:
        PromptTemplateError: The template does not render with the context, or with the
            items' fields.
        TypeError: `prompt`, `context` or `fields` of the wrong shape.
    """
    # A state never given fields reads them as [] (their channel's empty value).
    given, context, fields = state.get("prompt"), state.get("context"), state.get("fields") or None
    if given is None and context is None and fields is None:
        return {}
    template = None
    if isinstance(given, str) and given.startswith("builtin:"):
        lang = given.removeprefix("builtin:").removesuffix(":pointwise")
        template = PromptTemplate.builtin(lang, "pointwise" if pointwise else "pairwise")
    elif isinstance(given, Mapping) and {"system", "user"} <= set(given):
        template = PromptTemplate.from_dict(given)
    elif given is not None:
        raise SettingTypeError('prompt must be {"system": "...", "user": "..."} or "builtin:LANG", '
                               f"got {given!r:.80}")
    items = list(state.get("items") or [])
    setup = check_prompt(template, context, pointwise, scale, group_size)
    return prompt_state(with_fields(setup, items, fields), items)


def prompt_state(setup: PromptSetup, items: Sequence[str]) -> dict[str, Any]:
    """What a run's state holds of its prompt: nothing for the default (as before).

    The fields (only those the template shows) are a list parallel to `items`, and only
    there when the template shows some.
    """
    if setup.is_default:
        return {}
    state: dict[str, Any] = {"prompt": setup.template.to_dict(), "context": dict(setup.context)}
    if setup.fields:
        state["fields"] = [dict(setup.fields[text]) for text in items]
    return state


def stored_prompt(state: Mapping[str, Any]) -> PromptSetup:
    """The prompt a run's state holds (the default when it holds none)."""
    given = state.get("prompt")
    if not given:
        return DEFAULT
    template = (PromptTemplate.builtin(given.removeprefix("builtin:")) if isinstance(given, str)
                else PromptTemplate.from_dict(given))
    fields = state.get("fields")
    shown = dict(zip(state["items"], fields, strict=True)) if fields else {}
    return PromptSetup(template, dict(state.get("context") or {}), shown)


def prompt_label(setup: PromptSetup) -> str:
    """How results and reports name a run's prompt: "" for the default."""
    return "" if setup.is_default else f"{setup.template.name} sha256:{setup.digest[:16]}"


def prompt_key(setup: PromptSetup | None) -> str:
    """The cache-key suffix of calls asked with `setup`: none for the default prompt."""
    if setup is None or setup.is_default:
        return ""
    return f"+prompt:{setup.question_digest[:16]}"


def check_same_prompt(stored: Mapping[str, Any], setup: PromptSetup, run_id: str,
                      allow_change: bool) -> None:
    """Refuse to resume a run with another prompt, context or fields unless `allow_change`.

    Raises:
        RunMismatchError: The stored run was asked with another template or context, or
            its items carried other fields (those the template shows).
    """
    started = stored_prompt(stored)
    if started.digest == setup.digest or allow_change or started.is_default and setup.is_default:
        return
    if started.question_digest == setup.question_digest:
        changed = next((text for text in stored["items"]
                        if started.fields.get(text) != setup.fields.get(text)), "")
        raise RunMismatchError(
            f"run {run_id!r} was started with other item fields: item {changed[:60]!r} was "
            f"shown with {dict(started.fields.get(changed, {}))}, now "
            f"{dict(setup.fields.get(changed, {}))}; resume it with the same fields, start a "
            "new run, or pass allow_prompt_change=True (the ranking then mixes verdicts to "
            "both)")
    raise RunMismatchError(
        f"run {run_id!r} was started with the prompt {_named(started)}, not {_named(setup)}: "
        "resume it with the same template and context, start a new run, or pass "
        "allow_prompt_change=True (the ranking then mixes verdicts to both prompts)")


def _named(setup: PromptSetup) -> str:
    return f"{setup.template.name!r} (digest {setup.digest[:12]})"
