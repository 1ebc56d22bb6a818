"""`--prompt FILE` and `--context FILE.json`: the judge's prompt, checked before any call."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llm_qualitative_sort.cli._config import RunConfig, scale_value
from llm_qualitative_sort.cli._exits import UsageError
from llm_qualitative_sort.cli._inputs import Record
from llm_qualitative_sort.tournament import scores_alone

BUILTIN_PREFIX = "builtin:"


def load_prompt(config: RunConfig) -> dict[str, Any]:
    """The sorter's `prompt` and `context` arguments the run's settings name (checked).

    `--prompt` is a template file (a `---system---` and a `---user---` section) or
    `builtin:en` / `builtin:ja`; `--context` a JSON file holding one object.

    Raises:
        UsageError: A file that cannot be read, a context that is not a JSON object, or a
            template that does not render with it (the message names the line and variable).
    """
    from llm_qualitative_sort.prompts._run import check_prompt
    from llm_qualitative_sort.prompts.template import (
        PromptTemplate,
        PromptTemplateError,
    )

    template = None
    try:
        if config.prompt and config.prompt.startswith(BUILTIN_PREFIX):
            template = PromptTemplate.builtin(config.prompt.removeprefix(BUILTIN_PREFIX))
        elif config.prompt:
            template = PromptTemplate.from_file(config.prompt)
        context = _context(config.context) if config.context else None
        check_prompt(template, context, scores_alone(config.strategy),
                     scale_value(config.scale), config.group_size or 2)
    except OSError as exc:
        raise UsageError(f"cannot read {exc.filename}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"--prompt {config.prompt}: not UTF-8 text ({exc.reason})") from None
    except (PromptTemplateError, TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return {"prompt": template, "context": context}


def item_fields(prompt: dict[str, Any], records: Sequence[Record] | None,
                name: str) -> list[dict[str, Any]] | None:
    """The items' fields (their records' other keys) when the template shows some, checked.

    None when the template shows no field (the records' other keys then play no part, as
    before), or for a resumed run, which keeps its own.

    Raises:
        UsageError: The template shows a field some item lacks (named by its file and line),
            or the input carries no fields (a text file, records without other keys).
    """
    template = prompt.get("prompt")
    if records is None or template is None or not template.field_keys:
        return None
    from llm_qualitative_sort.prompts._run import check_prompt, with_fields
    from llm_qualitative_sort.prompts.template import PromptTemplateError

    fields = [record.fields for record in records]
    try:
        with_fields(check_prompt(template, prompt.get("context")),
                    [record.text for record in records], fields if any(fields) else None,
                    names=[f"{name}:{record.line}" for record in records])
    except PromptTemplateError as exc:
        raise UsageError(str(exc)) from None
    return fields


def _context(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except ValueError as exc:
        raise UsageError(f"--context {path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise UsageError(f"--context {path}: nested too deep to read") from None
    if not isinstance(data, dict):
        raise UsageError(f"--context {path}: expected a JSON object, got {type(data).__name__}")
    return data
