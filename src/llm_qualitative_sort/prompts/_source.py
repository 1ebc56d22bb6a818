"""What the prompt templates share besides the class.

Compiling in the bounded sandbox, placeholders, reading a template's source (its file's
sections, its kind, its context keys, error lines), digests.
"""

from __future__ import annotations

import hashlib
import json
import re
import traceback
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jinja2 import Template, TemplateSyntaxError, meta, nodes

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.prompts._sandbox import ENV, bounded_template


@lru_cache(maxsize=256)
def compiled(source: str) -> Template:
    """`source` compiled once (a syntax error is raised each time, never kept).

    Every call renders its template, and compiling one costs about a millisecond. Its loops,
    outputs and `~` count towards the rendering's bounds (see `_sandbox`).
    """
    return bounded_template(source)


_SECTION = re.compile(r"^---(system|user)---[ \t]*$", re.MULTILINE)


def split_sections(text: str) -> dict[str, tuple[str, int]]:
    """The `---system---` and `---user---` sections of a file: each body and first line.

    Each marker stands alone on its line; a section runs to the next marker or the end of
    the file, without the newline just before the next marker.

    Raises:
        ValueError: A section twice, one missing, or text before the first.
    """
    found = list(_SECTION.finditer(text))
    parts: dict[str, tuple[str, int]] = {}
    for index, marker in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        body = text[marker.end() + 1:end]
        if index + 1 < len(found):
            body = body.removesuffix("\n")
        if marker.group(1) in parts:
            raise InputError(f"two ---{marker.group(1)}--- sections")
        parts[marker.group(1)] = (body, text.count("\n", 0, marker.end()) + 2)
    missing = [name for name in ("system", "user") if name not in parts]
    if missing or text[:found[0].start()].strip():
        raise InputError("expected a ---system--- line then a ---user--- line, each starting "
                         "its section, and nothing before them")
    return parts


def inferred_kind(system: str, user: str) -> str:
    """"pointwise" for a template that shows `{{ text }}` and no pair, else "pairwise"."""
    names: set[str] = set()
    for source in (system, user):
        try:
            names |= meta.find_undeclared_variables(ENV.parse(source))
        except (TemplateSyntaxError, RecursionError):
            return "pairwise"  # reported by `check`, with its line
    return "pointwise" if "text" in names and not names & {"text_a", "text_b"} else "pairwise"


def placeholder(name: str, salt: dict[str, str]) -> str:
    """What a template renders in place of a fenced value, replaced after rendering.

    Random per call, so no template or context value can collide with it by chance.
    """
    return f"\x00{salt.get('salt', 'check')}:{name}\x00"


def context_keys(tree: nodes.Template) -> Iterator[tuple[int, str]]:
    """The line and key of each `context.KEY` and `context["KEY"]` in `tree`."""
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        if not isinstance(node, (nodes.Getattr, nodes.Getitem)):
            continue
        if not (isinstance(node.node, nodes.Name) and node.node.name == "context"):
            continue
        if isinstance(node, nodes.Getattr):
            yield node.lineno, node.attr
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            yield node.lineno, node.arg.value


def template_line(exc: BaseException) -> int | None:
    """The template line a rendering error was raised at (Jinja2 rewrites the traceback)."""
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__)
             if frame.filename == "<template>"]
    return lines[-1] if lines else None


def sha256(value: Any) -> str:
    """The hex digest of `value` as sorted JSON."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
