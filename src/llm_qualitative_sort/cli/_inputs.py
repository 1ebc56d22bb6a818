"""Reading the items to sort: `.txt` (one per line), `.jsonl` (a field), `.csv` (a column)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import TextIO

FORMATS = ("txt", "jsonl", "csv")


class InputError(ValueError):
    """The items cannot be read; the message says where and why."""


def input_format(path: str | None, explicit: str | None) -> str:
    """The format to read: `explicit`, else the file's extension, else (stdin) `txt`."""
    if explicit:
        return explicit
    if path is None or path == "-":
        return "txt"
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix in ("txt", "text", ""):
        return "txt"
    if suffix in ("jsonl", "ndjson"):
        return "jsonl"
    if suffix in ("csv", "tsv"):
        return "csv"
    raise InputError(f"cannot tell the format of {path!r}: use --format {'|'.join(FORMATS)}")


def read_items(
    path: str | None,
    *,
    fmt: str | None = None,
    field: str | None = None,
    column: str | None = None,
    stdin: TextIO | None = None,
) -> list[str]:
    """The items in `path` (or stdin when `path` is None or "-"), in file order.

    Blank lines of a `.txt` file are skipped; other problems (a missing field, a value
    that is not a string) are errors naming the line.
    """
    kind = input_format(path, fmt)
    name = "<stdin>" if path in (None, "-") else str(path)
    text = _read_text(path, stdin)
    if kind == "jsonl":
        if not field:
            raise InputError(f"{name}: a .jsonl input needs --field NAME")
        return _jsonl(text, field, name)
    if kind == "csv":
        if not column:
            raise InputError(f"{name}: a .csv input needs --column NAME")
        return _csv(text, column, name, delimiter="\t" if name.endswith(".tsv") else ",")
    return [line.strip() for line in text.splitlines() if line.strip()]


def _read_text(path: str | None, stdin: TextIO | None) -> str:
    if path in (None, "-"):
        return (stdin or sys.stdin).read()
    try:
        # utf-8-sig: files saved by Excel or Notepad start with a byte-order mark.
        return Path(str(path)).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc


def _jsonl(text: str, field: str, name: str) -> list[str]:
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(record, dict) or field not in record:
            raise InputError(f"{name}:{number}: no field {field!r}")
        if not isinstance(record[field], str):
            kind = type(record[field]).__name__
            raise InputError(f"{name}:{number}: field {field!r} is a {kind}, not a string")
        items.append(record[field])
    return items


def _csv(text: str, column: str, name: str, delimiter: str) -> list[str]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    if reader.fieldnames is None or column not in reader.fieldnames:
        found = ", ".join(reader.fieldnames or []) or "none"
        raise InputError(f"{name}: no column {column!r} (columns: {found})")
    items = []
    for row in reader:
        value = row[column]
        if value is None:
            raise InputError(f"{name}:{reader.line_num}: row has no {column!r} value")
        items.append(value)
    return items
