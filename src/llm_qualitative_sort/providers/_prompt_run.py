"""A run's prompt: checked before any call, kept in the run's state, the same on resume."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from llm_qualitative_sort.errors import RunMismatchError
from llm_qualitative_sort.providers.prompt_template import (
    PromptSetup,
    PromptTemplate,
    PromptTemplateError,
)

DEFAULT = PromptSetup(PromptTemplate.builtin("en"))


def check_prompt(prompt: PromptTemplate | None, context: Mapping[str, Any] | None,
                 pointwise: bool = False) -> PromptSetup:
    """The run's prompt setup, refused before any call unless it renders.

    A pointwise run (`pointwise`) asks a pointwise template: its default is the built-in
    pointwise prompt, and a built-in named for pairs ("builtin:ja") is taken in its
    pointwise form.

    Raises:
        TypeError: `prompt` is not a `PromptTemplate`, or `context` not a JSON-able mapping
            with string keys (it is stored with the run).
        PromptTemplateError: The template does not render with `context` (see
            `PromptTemplate.check`), or a context is given to the default prompt, which
            shows none of it.
    """
    if prompt is not None and not isinstance(prompt, PromptTemplate):
        raise TypeError(f"prompt must be a PromptTemplate, got {type(prompt).__name__}")
    if context is not None:
        if not isinstance(context, Mapping) or not all(isinstance(k, str) for k in context):
            raise TypeError("context must be a mapping with string keys")
        try:
            json.dumps(dict(context))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"context must be plain JSON data (it is stored with the run): "
                            f"{exc}") from None
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
    setup.template.check(setup.context)
    return setup


def input_prompt(state: Mapping[str, Any], pointwise: bool = False) -> dict[str, Any]:
    """Check the prompt of a run's plain input (Studio, the API server) before any call.

    `prompt` is {"system": ..., "user": ..., "name": ...} or "builtin:LANG"; `context` a
    mapping. Returns what the state should hold instead (a built-in's text), or {}.

    Raises:
        PromptTemplateError: The template does not render with the context.
        TypeError: `prompt` or `context` of the wrong shape.
    """
    given, context = state.get("prompt"), state.get("context")
    if given is None and context is None:
        return {}
    template = None
    if isinstance(given, str) and given.startswith("builtin:"):
        lang = given.removeprefix("builtin:").removesuffix(":pointwise")
        template = PromptTemplate.builtin(lang, "pointwise" if pointwise else "pairwise")
    elif isinstance(given, Mapping) and {"system", "user"} <= set(given):
        template = PromptTemplate.from_dict(given)
    elif given is not None:
        raise TypeError('prompt must be {"system": "...", "user": "..."} or "builtin:LANG", '
                        f"got {given!r:.80}")
    return prompt_state(check_prompt(template, context, pointwise))


def prompt_state(setup: PromptSetup) -> dict[str, Any]:
    """What a run's state holds of its prompt: nothing for the default (as before)."""
    if setup.is_default:
        return {}
    return {"prompt": setup.template.to_dict(), "context": dict(setup.context)}


def stored_prompt(state: Mapping[str, Any]) -> PromptSetup:
    """The prompt a run's state holds (the default when it holds none)."""
    given = state.get("prompt")
    if not given:
        return DEFAULT
    template = (PromptTemplate.builtin(given.removeprefix("builtin:")) if isinstance(given, str)
                else PromptTemplate.from_dict(given))
    return PromptSetup(template, dict(state.get("context") or {}))


def prompt_label(setup: PromptSetup) -> str:
    """How results and reports name a run's prompt: "" for the default."""
    return "" if setup.is_default else f"{setup.template.name} sha256:{setup.digest[:16]}"


def prompt_key(setup: PromptSetup | None) -> str:
    """The cache-key suffix of calls asked with `setup`: none for the default prompt."""
    if setup is None or setup.is_default:
        return ""
    return f"+prompt:{setup.digest[:16]}"


def check_same_prompt(stored: Mapping[str, Any], setup: PromptSetup, run_id: str,
                      allow_change: bool) -> None:
    """Refuse to resume a run with another prompt (or context) unless `allow_change`.

    Raises:
        RunMismatchError: The stored run was asked with another template or context.
    """
    started = stored_prompt(stored)
    if started.digest == setup.digest or allow_change or started.is_default and setup.is_default:
        return
    raise RunMismatchError(
        f"run {run_id!r} was started with the prompt {_named(started)}, not {_named(setup)}: "
        "resume it with the same template and context, start a new run, or pass "
        "allow_prompt_change=True (the ranking then mixes verdicts to both prompts)")


def _named(setup: PromptSetup) -> str:
    return f"{setup.template.name!r} (digest {setup.digest[:12]})"
