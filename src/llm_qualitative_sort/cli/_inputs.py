"""Reading the items to sort: `.txt` (one per line), `.jsonl` (a field), `.csv` (a column).

Every item keeps the line it came from and an id (a column or field of the input, or its
line number), so that messages name lines and reports can be joined back to the source. The
other fields of a record (columns of a row) are the item's fields, which a prompt template
may show (`{{ fields_a.KEY }}`).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, TextIO

from llm_qualitative_sort.errors import InputError as InputError

FORMATS = ("txt", "jsonl", "csv")
# The column a table's texts are read from when --column names none.
DEFAULT_COLUMN = "text"
ItemId = str | int | float


@dataclass(frozen=True)
class Record:
    """One item: its text, the line it starts on, its id, and its record's other fields."""

    text: str
    line: int
    id: ItemId
    fields: dict[str, Any] = dataclass_field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Source:
    """Where the items come from and how to read them."""

    path: str | None = None
    fmt: str | None = None
    field: str | None = None
    column: str | None = None
    id_field: str | None = None
    id_column: str | None = None

    @property
    def name(self) -> str:
        """The file's name as messages show it."""
        return "<stdin>" if self.path in (None, "-") else str(self.path)

    def describe(self) -> dict[str, Any]:
        """What reports and `runs show` say about the input."""
        described = {k: v for k, v in vars(self).items() if v is not None}
        if self.path not in (None, "-"):
            described["path"] = str(Path(str(self.path)).resolve())
        return described


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


def read_records(source: Source, stdin: TextIO | None = None) -> list[Record]:
    """The items of `source`, in file order, each with its line and id.

    Blank lines of a `.txt` file are skipped; anything else that cannot be an item (a
    missing field, an empty text, a value that is not a string) is an error naming the line.
    """
    kind = input_format(source.path, source.fmt)
    text = _read_text(source.path, stdin)
    if kind == "jsonl":
        return list(_jsonl(text, replace(source, field=source.field or _jsonl_field(text,
                                                                                  source))))
    if kind == "csv":
        return list(_csv(text, source))
    if source.id_field or source.id_column:
        raise InputError(f"{source.name}: a text file has no id field; its ids are line numbers")
    return [Record(line.strip(), number, number)
            for number, line in enumerate(text.splitlines(), start=1) if line.strip()]


def checked(records: list[Record], name: str, *, dedupe: bool,
            note: Callable[[str], None]) -> list[Record]:
    """`records` fit to sort, or an `InputError` naming the line at fault.

    With `dedupe`, an item repeating an earlier one is dropped (with a note) instead.
    """
    if not records:
        raise InputError(f"{name}: no items to sort")
    first: dict[str, Record] = {}
    kept: list[Record] = []
    dropped: list[Record] = []
    for record in records:
        earlier = first.get(record.text)
        if earlier is None:
            first[record.text] = record
            kept.append(record)
        elif dedupe:
            dropped.append(record)
        else:
            raise InputError(f"{name}:{record.line}: repeats line {earlier.line} "
                             f"({_preview(record.text)}); remove it or pass --dedupe")
    if dropped:
        lines = ", ".join(str(r.line) for r in dropped[:10]) + (" …" if len(dropped) > 10 else "")
        one = len(dropped) == 1
        note(f"note: dropped {len(dropped)} duplicate {'item' if one else 'items'} of {name} "
             f"({'line' if one else 'lines'} {lines})")
    _check_unique_ids(kept, name)
    return kept


def _check_unique_ids(records: list[Record], name: str) -> None:
    seen: dict[ItemId, int] = {}
    for record in records:
        if record.id in seen:
            raise InputError(f"{name}:{record.line}: id {record.id!r} already used on line "
                             f"{seen[record.id]}; ids must tell the items apart")
        seen[record.id] = record.line


def _read_text(path: str | None, stdin: TextIO | None) -> str:
    if path in (None, "-"):
        return (stdin or sys.stdin).read()
    try:
        data = Path(str(path)).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    # A byte-order mark says the encoding: UTF-16 as Windows' "Unicode" saves it, or UTF-8
    # as Excel and Notepad save it (utf-8-sig drops its mark); else UTF-8.
    utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
    try:
        text = data.decode("utf-16" if utf16 else "utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {path}: it is not {'UTF-16' if utf16 else 'UTF-8'} "
                         f"text (byte {data[exc.start]:#04x} at offset {exc.start}); save it "
                         "as UTF-8") from exc
    return io.StringIO(text, newline=None).read()  # \r\n and \r end lines, as in text mode


def _jsonl_field(text: str, source: Source) -> str:
    """The field holding the texts when none is named: `text`, if the first record has it."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return DEFAULT_COLUMN  # reading it names the line that is not JSON
    if not isinstance(record, dict) or DEFAULT_COLUMN in record:
        return DEFAULT_COLUMN
    fields = ", ".join(map(str, record)) or "none"
    raise InputError(f"{source.name}: a .jsonl input needs --field NAME when its records "
                     f"have no {DEFAULT_COLUMN!r} field (the first one's fields: {fields})")


def _jsonl(text: str, source: Source) -> Iterator[Record]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source.name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise InputError(f"{where}: not a JSON object")
        assert source.field is not None
        item = _text(record, source.field, where)
        others = {key: value for key, value in record.items() if key != source.field}
        yield Record(item, number, _id(record, source.id_field, where, number), others)


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words ("a number", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"


def _text(record: dict[str, Any], field: str, where: str) -> str:
    if field not in record:
        keys = ", ".join(str(key) for key in list(record)[:10]) or "none"
        raise InputError(f"{where}: no field {field!r} (its fields: {keys})")
    value = record[field]
    if not isinstance(value, str):
        raise InputError(f"{where}: field {field!r} holds {_json_kind(value)}, not a string")
    return _usable(value, where)


def _id(record: dict[str, Any], field: str | None, where: str, line: int) -> ItemId:
    if field is None:
        return line
    value = record.get(field)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InputError(f"{where}: id field {field!r} must be a string or a number, "
                         f"got {value!r}")
    return value


def csv_delimiter(text: str, name: str) -> str:
    r"""The cell separator of a table named `name`.

    A tab for `.tsv`; else a comma, unless the header line has none and has semicolons (as
    spreadsheets write CSV in many locales) or tabs.

    Example:
        >>> csv_delimiter("id;text\n1;a, b\n", "essays.csv")
        ';'
    """
    if name.lower().endswith(".tsv"):
        return "\t"
    header = text.lstrip("\ufeff").split("\n", 1)[0]
    if "," in header:
        return ","
    return ";" if ";" in header else "\t" if "\t" in header else ","


def _csv(text: str, source: Source) -> Iterator[Record]:
    delimiter = csv_delimiter(text, source.name)
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    found = reader.fieldnames or []
    names = ", ".join(found) or "none"
    if source.column is None and DEFAULT_COLUMN not in found:
        raise InputError(f"{source.name}: no column {DEFAULT_COLUMN!r}: name the column "
                         f"holding the texts with --column NAME (columns: {names})")
    column = source.column or DEFAULT_COLUMN
    for wanted in filter(None, (column, source.id_column)):
        if wanted not in found:
            raise InputError(f"{source.name}: no column {wanted!r} (columns: {names})")
    end = reader.line_num
    for row in reader:
        line, end = end + 1, reader.line_num  # a quoted cell may span lines: its first one
        where = f"{source.name}:{line}"
        value = row[column]
        if value is None:
            raise InputError(f"{where}: row has no {column!r} value")
        ident: ItemId = line if source.id_column is None else row[source.id_column] or ""
        if ident == "":
            raise InputError(f"{where}: empty id in column {source.id_column!r}")
        # A short row's missing cells read as None (lacking); surplus cells have no name.
        others = {key: cell for key, cell in row.items()
                  if key is not None and key != column and cell is not None}
        yield Record(_usable(value, where), line, ident, others)


def _usable(text: str, where: str) -> str:
    if not text.strip():
        raise InputError(f"{where}: empty text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # JSON escapes can spell a lone surrogate, which no file or prompt can carry.
        raise InputError(f"{where}: the text holds an unpaired surrogate "
                         "(not valid Unicode)") from None
    return text


def _preview(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")
