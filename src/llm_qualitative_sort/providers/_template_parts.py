"""What the prompt templates share besides the class: placeholders, names found, digests."""

from __future__ import annotations

import hashlib
import json
import traceback
from collections.abc import Iterator
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import SandboxedEnvironment

ENV = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True,
                           autoescape=False)


def inferred_kind(system: str, user: str) -> str:
    names: set[str] = set()
    for source in (system, user):
        try:
            names |= meta.find_undeclared_variables(ENV.parse(source))
        except TemplateSyntaxError:
            return "pairwise"  # reported by `check`, with its line
    return "pointwise" if "text" in names and not names & {"text_a", "text_b"} else "pairwise"


def placeholder(name: str, salt: dict[str, str]) -> str:
    # Random per call, so no template or context value can collide with it by chance.
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
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
