"""What a prompt template may name, and the check of one part's names before any call.

`VARIABLES` (a pairwise template) and `SCORE_VARIABLES` (a pointwise one) are the names a
template may use; `check_names` refuses a part that names another, a `context` key the
mapping lacks, or the items' fields shown whole (see `PromptTemplate.check`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import TemplateSyntaxError, meta, nodes

from llm_qualitative_sort.prompts._fields import FieldUse, field_uses
from llm_qualitative_sort.prompts._sandbox import ENV
from llm_qualitative_sort.prompts._source import context_keys

# What a template may name: the fenced texts and criterion, the fence tag, whether a tie is
# on offer, the run's context mapping, and the fields of the items shown as A and B.
VARIABLES = frozenset({"text_a", "text_b", "criteria", "tag", "ties", "context", "fields_a",
                       "fields_b"})
# A pointwise template's (kind "pointwise"): one text, the scale, the question's direction.
SCORE_VARIABLES = frozenset({"text", "criteria", "scale", "low", "high", "inverse", "tag",
                             "context"})
# The values filled in after rendering, for each call (the fields too): a template can show
# them, never look at them, since what it would see is a stand-in.
FILLED_IN = frozenset({"text_a", "text_b", "text", "criteria", "tag"})
# Where a value shown alone (`{{ text_a }}`) may stand: anywhere its output is sent as it is.
# Inside a macro, a block, a `{% set %}`, `{% filter %}` or `{% call %}` block its output
# can be captured and transformed.
_SENT_AS_IS = (nodes.Template, nodes.Output, nodes.If, nodes.For, nodes.With, nodes.Scope,
               nodes.ScopedEvalContextModifier)
# Statements that read another template: a prompt template is one text, without a loader.
_LOADS = {nodes.Extends: "extends", nodes.Include: "include", nodes.Import: "import",
          nodes.FromImport: "from ... import"}


@dataclass(frozen=True)
class PartRead:
    """What the checks and the rendering need of a template part's text, read once per text."""

    undeclared: frozenset[str]
    names: tuple[tuple[str, int], ...]  # every variable named, with its line, in order
    context: tuple[tuple[int, str], ...]  # each context key asked for, with its line
    uses: tuple[FieldUse, ...]  # every use of the items' fields, keyed or not
    keyed: tuple[FieldUse, ...]  # the uses that name a field (`fields_a.KEY`)
    looked_at: tuple[tuple[str, int, str], ...]  # a filled-in value not shown alone: how
    loads: tuple[tuple[int, str], ...]  # each statement reading another template


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
        looked_at=tuple(_looked_at(tree, ())),
        loads=tuple((node.lineno, _LOADS[type(node)]) for node in tree.find_all(tuple(_LOADS))),
    )


def _filled_in(node: nodes.Node) -> str | None:
    """The filled-in value `node` stands for ("text_a", "fields_a.source"), or None."""
    if isinstance(node, nodes.Name) and node.name in FILLED_IN:
        return node.name
    if isinstance(node, (nodes.Getattr, nodes.Getitem)) and isinstance(node.node, nodes.Name) \
            and node.node.name in ("fields_a", "fields_b"):
        key = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        return f"{node.node.name}.{key}" if isinstance(key, str) else None
    return None


def _looked_at(node: nodes.Node, parents: tuple[nodes.Node, ...]
               ) -> Iterator[tuple[str, int, str]]:
    """Each filled-in value in `node` that is not shown alone, with its line and how."""
    name = _filled_in(node)
    if name is not None:
        outer = next((p for p in parents[:-1] if not isinstance(p, _SENT_AS_IS)), None)
        if getattr(node, "ctx", "load") != "load":
            yield name, node.lineno, "assigns to it"
        elif not isinstance(parents[-1], nodes.Output):
            yield name, node.lineno, _how(parents[-1])
        elif outer is not None:
            yield name, node.lineno, _how(outer)
        return
    for child in node.iter_child_nodes():
        yield from _looked_at(child, (*parents, node))


def _how(node: nodes.Node) -> str:
    """What `node` does with the value under it, as a message says it."""
    if isinstance(node, nodes.Filter):
        return f"passes it to the filter {node.name!r}"
    if isinstance(node, nodes.Test):
        return f"tests it ({node.name!r})"
    named = {nodes.Compare: "compares it", nodes.If: "tests it", nodes.CondExpr: "tests it",
             nodes.Call: "passes it to a call", nodes.Assign: "assigns it",
             nodes.For: "loops over it", nodes.Macro: "shows it inside a macro",
             nodes.CallBlock: "shows it inside a {% call %} block",
             nodes.FilterBlock: "shows it inside a {% filter %} block",
             nodes.AssignBlock: "shows it inside a {% set %} block",
             nodes.Block: "shows it inside a {% block %}"}
    return next((what for kind, what in named.items() if isinstance(node, kind)),
                f"uses it in an expression ({type(node).__name__.lower()})")


def check_names(source: str, known: frozenset[str], context: dict[str, Any],
                error: Callable[[int | None, str], Exception]) -> None:
    """Refuse a part (`source`) that names anything but `known` or a missing context key.

    `error(line, what)` is the exception raised, the line counted within the part.
    """
    try:
        read = read_part(source)
    except TemplateSyntaxError as exc:
        raise error(exc.lineno, exc.message or str(exc)) from None
    except RecursionError:
        raise error(None, "the template nests too deep to read") from None
    for line, statement in read.loads:
        raise error(line, f"{{% {statement} %}} is not available: a prompt template is one "
                    "text (its system and user parts), it cannot read another")
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
