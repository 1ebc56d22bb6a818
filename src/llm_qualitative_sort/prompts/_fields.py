"""Per-item fields in prompt templates: `{{ fields_a.KEY }}` and `{{ fields_b.KEY }}`.

Items may carry fields (the question an answer responds to, its source, metadata). A
template names the fields it shows; only those count: they are checked on every item before
any call, stored with the run and keyed in the cache. Like the texts, a field's value never
passes through Jinja2: the template sees a placeholder, replaced after rendering by the
value fenced as data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from jinja2 import nodes

from llm_qualitative_sort.errors import InputError, SettingTypeError

SIDES = {"fields_a": "A", "fields_b": "B"}


class FieldUse:
    """One `fields_a.KEY` (or `fields_b["KEY"]`) in a template part, at its line."""

    __slots__ = ("key", "line", "side")

    def __init__(self, side: str, key: str | None, line: int) -> None:
        self.side, self.key, self.line = side, key, line


def field_uses(tree: nodes.Template) -> list[FieldUse]:
    """Every use of `fields_a` / `fields_b` in `tree`, in source order.

    A use without a constant key (`{{ fields_a }}`, `fields_a[name]`, a loop over it) has
    `key` None: the template may show only named fields, as they are.
    """
    uses: list[FieldUse] = []
    keyed: set[int] = set()
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        assert isinstance(node, (nodes.Getattr, nodes.Getitem))
        if not (isinstance(node.node, nodes.Name) and node.node.name in SIDES):
            continue
        key: str | None = None
        if isinstance(node, nodes.Getattr):
            key = node.attr
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            key = node.arg.value
        if key is not None:
            keyed.add(id(node.node))
            uses.append(FieldUse(node.node.name, key, node.lineno))
    for name in tree.find_all(nodes.Name):
        assert isinstance(name, nodes.Name)
        if name.name in SIDES and id(name) not in keyed:
            uses.append(FieldUse(name.name, None, name.lineno))
    return sorted(uses, key=lambda use: use.line)


def fence_name(side: str, key: str) -> str:
    """The fence of a field: `FIELD A.source`."""
    return f"FIELD {SIDES[side]}.{key}"


def shown(value: Any) -> str:
    """A field's value as the judge reads it: a string as it is, other JSON as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def checked_fields(fields: Any, count: int) -> list[dict[str, Any]]:
    """`fields` as a list of plain dicts, one per item, or a `TypeError`/`ValueError`.

    Each entry is a mapping with string keys and JSON values (they are stored with the run).
    """
    if isinstance(fields, (str, Mapping)) or not isinstance(fields, Sequence):
        raise SettingTypeError("fields must be a list of mappings, one per item, got "
                               f"{type(fields).__name__}")
    if len(fields) != count:
        entries = "1 entry" if len(fields) == 1 else f"{len(fields)} entries"
        raise InputError(f"fields has {entries} for {count} items: give one mapping per "
                         "item, in the items' order")
    result: list[dict[str, Any]] = []
    for index, entry in enumerate(fields):
        if not isinstance(entry, Mapping) or not all(isinstance(k, str) for k in entry):
            raise SettingTypeError(f"fields[{index}] must be a mapping with string keys, got "
                                   f"{type(entry).__name__}")
        try:
            json.dumps(dict(entry))
        except (TypeError, ValueError) as exc:
            raise SettingTypeError(f"fields[{index}] must be plain JSON data (it is stored "
                                   f"with the run): {exc}") from None
        result.append(dict(entry))
    return result


def missing_field(use: FieldUse, fields: Sequence[Mapping[str, Any]] | None,
                  names: Sequence[str] | None) -> str | None:
    """Why the items cannot fill `use` (None: every item has its key).

    `fields` holds each item's fields (None: the items carry none); `names` how to name
    each item (default `items[i]`).
    """
    shows = f"{{{{ {use.side}.{use.key} }}}}"
    if fields is None:
        return f"shows {shows} but the items carry no fields (give each item its fields)"
    assert use.key is not None  # a use without a key fails `PromptTemplate.check`
    lacking = first_lacking(fields, use.key)
    if lacking is None:
        return None
    name = names[lacking] if names is not None else f"items[{lacking}]"
    has = ", ".join(sorted(fields[lacking])) or "none"
    return f"shows {shows} but item {name} has no field {use.key!r} (its fields: {has})"


def field_blocks(uses: Iterable[FieldUse],
                 given: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str, str]]:
    """Each used field's placeholder name, with its fence and shown value, for one call.

    Raises:
        ValueError: An item shown lacks a field the template shows (checked before any
            call, so only a caller that skipped the check sees it).
    """
    blocks: dict[str, tuple[str, str]] = {}
    for use in uses:
        assert use.key is not None
        if given[use.side].get(use.key) is None:
            raise InputError(f"the item shown as {SIDES[use.side]} has no field {use.key!r}")
        blocks[f"{use.side}.{use.key}"] = (fence_name(use.side, use.key),
                                           shown(given[use.side][use.key]))
    return blocks


def first_lacking(fields: Sequence[Mapping[str, Any]], key: str) -> int | None:
    """The index of the first item without `key` (a None value counts as none), or None."""
    for index, entry in enumerate(fields):
        if entry.get(key) is None:
            return index
    return None


def kept(fields: Sequence[Mapping[str, Any]], keys: frozenset[str]) -> list[dict[str, Any]]:
    """Each item's fields reduced to `keys`: what the judge is shown of them."""
    return [{key: entry[key] for key in sorted(keys)} for entry in fields]


def placeholders(uses: Iterable[FieldUse],
                 mark: Any) -> dict[str, dict[str, str]]:
    """`fields_a` and `fields_b` as the template sees them: each used key's placeholder."""
    values: dict[str, dict[str, str]] = {side: {} for side in SIDES}
    for use in uses:
        if use.key is not None:
            values[use.side][use.key] = mark(f"{use.side}.{use.key}")
    return values
