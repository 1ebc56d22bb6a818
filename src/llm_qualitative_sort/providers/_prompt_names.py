"""What a prompt template may name, and the check of one part's names before any call.

`VARIABLES` (a pairwise template) and `SCORE_VARIABLES` (a pointwise one) are the names a
template may use; `check_names` refuses a part that names another, a `context` key the
mapping lacks, or the items' fields shown whole (see `PromptTemplate.check`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import TemplateSyntaxError, meta, nodes

from llm_qualitative_sort.providers._prompt_fields import FieldUse, field_uses
from llm_qualitative_sort.providers._prompt_source import ENV, context_keys

# What a template may name: the fenced texts and criterion, the fence tag, whether a tie is
# on offer, the run's context mapping, and the fields of the items shown as A and B.
VARIABLES = frozenset({"text_a", "text_b", "criteria", "tag", "ties", "context", "fields_a",
                       "fields_b"})
# A pointwise template's (kind "pointwise"): one text, the scale, the question's direction.
SCORE_VARIABLES = frozenset({"text", "criteria", "scale", "low", "high", "inverse", "tag",
                             "context"})


@dataclass(frozen=True)
class PartRead:
    """What the checks and the rendering need of a template part's text, read once per text."""

    undeclared: frozenset[str]
    names: tuple[tuple[str, int], ...]  # every variable named, with its line, in order
    context: tuple[tuple[int, str], ...]  # each context key asked for, with its line
    uses: tuple[FieldUse, ...]  # every use of the items' fields, keyed or not
    keyed: tuple[FieldUse, ...]  # the uses that name a field (`fields_a.KEY`)


@lru_cache(maxsize=256)
def read_part(source: str) -> PartRead:
    """`source` parsed (a syntax error is raised each time, never kept).

    Every sorter checks its prompt when it is made, and every call renders it: parsing the
    built-in one costs about a millisecond, so a process parses each text once.
    """
    tree = ENV.parse(source)
    uses = tuple(field_uses(tree))
    return PartRead(
        undeclared=frozenset(meta.find_undeclared_variables(tree)),
        names=tuple((node.name, node.lineno) for node in tree.find_all(nodes.Name)),
        context=tuple(context_keys(tree)),
        uses=uses,
        keyed=tuple(use for use in uses if use.key is not None),
    )


def check_names(source: str, known: frozenset[str], context: dict[str, Any],
                error: Callable[[int | None, str], Exception]) -> None:
    """Refuse a part (`source`) that names anything but `known` or a missing context key.

    `error(line, what)` is the exception raised, the line counted within the part.
    """
    try:
        read = read_part(source)
    except TemplateSyntaxError as exc:
        raise error(exc.lineno, exc.message or str(exc)) from None
    unknown = sorted(read.undeclared - known)
    for name, line in read.names:
        if name in unknown:
            raise error(line, f"unknown variable {name!r} "
                        f"(known: {', '.join(sorted(known))})")
    for line, key in read.context:
        if key not in context:
            raise error(line, f"context has no key {key!r} "
                        f"(given: {sorted(context) or 'none'})")
    for use in read.uses:
        if use.key is None:
            raise error(use.line, f"{use.side} is shown only by key: "
                        f"{{{{ {use.side}.KEY }}}}, each field fenced as data")
