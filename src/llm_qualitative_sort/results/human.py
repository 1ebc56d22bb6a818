"""People's verdicts on the items, checked before a run uses them: no LLM call.

Two kinds of label, in any mix:

- a pairwise verdict: two items and "A" (the first is better), "B" (the second is) or
  "tie"; a pair may be labelled several times (by several people, say);
- a score per item, on any numeric scale (higher is better); one score per item.

`check_human` takes them as Python data, `read_human` from a CSV or JSONL file; both
refuse anything doubtful with an `InputError` that names the entry (or the file and line)
and why. `HumanLabels.digest` identifies a set of labels whatever their order, and
`human_strengths` gives the people's order of the items.

The sorter does not take these labels yet: they are the checked input a run will use.

Example:
    >>> labels = check_human({"verdicts": [("x", "y", "A"), ("y", "z", "tie")]},
    ...                      ["text x", "text y", "text z"], ids=["x", "y", "z"])
    >>> [(v.a, v.b, v.winner) for v in labels.verdicts]
    [(0, 1, 'A'), (1, 2, 'tie')]
    >>> [round(float(s), 2) for s in human_strengths(labels, 3)]
    [0.84, -0.55, -0.28]
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import operator
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.errors import InputError, SettingTypeError

Winner = Literal["A", "B", "tie"]

# Case and surrounding spaces are forgiven: spreadsheets and hand-typed files write "a",
# "Tie" or " B" for the same verdict, and none of these can be mistaken for another.
_WINNERS: dict[str, Winner] = {"a": "A", "b": "B", "tie": "tie"}
# The share of a verdict won by its first item, as the Bradley–Terry fit counts it.
_SHARE = {"A": 1.0, "B": 0.0, "tie": 0.5}
_VERDICT_KEYS = frozenset({"a", "b", "winner"})
_SCORE_KEYS = frozenset({"id", "score"})
_SUFFIXES = (".csv", ".jsonl", ".ndjson")


@dataclass(frozen=True)
class HumanVerdict:
    """One person's verdict on a pair of items.

    Attributes:
        a: The pair's first item (an index into the run's items).
        b: Its second item.
        winner: "A" when `a` is better, "B" when `b` is, "tie" when they are equally good.
        line: The line of the file it was read from; None for labels given as data.
    """

    a: int
    b: int
    winner: Winner
    line: int | None = None


@dataclass(frozen=True)
class HumanScore:
    """One person's score for an item (higher is better, on any scale).

    Attributes:
        item: The item (an index into the run's items).
        score: Its score, a finite number.
        line: The line of the file it was read from; None for labels given as data.
    """

    item: int
    score: float
    line: int | None = None


@dataclass(frozen=True)
class HumanLabels:
    """The people's verdicts and scores for one run, checked.

    Attributes:
        verdicts: The pairwise verdicts, several per pair allowed.
        scores: The scores, at most one per item.

    Example:
        >>> one = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(2, 1, "tie")))
        >>> other = HumanLabels((HumanVerdict(1, 2, "tie"), HumanVerdict(1, 0, "B", line=7)))
        >>> one.digest() == other.digest()
        True
    """

    verdicts: tuple[HumanVerdict, ...] = ()
    scores: tuple[HumanScore, ...] = ()

    def digest(self) -> str:
        """A sha256 (hex) of the labels that does not depend on how they were given.

        The verdicts are a multiset: their order, the order of a pair's two items (`(a, b,
        "A")` is `(b, a, "B")`) and the lines they came from do not change the digest; a
        verdict given twice counts twice. The scores are taken by item.

        Returns:
            64 hexadecimal characters.
        """
        verdicts = sorted(_oriented(v) for v in self.verdicts)
        # `+ 0.0` makes -0.0 and 0.0 one score; JSON writes a float as its shortest repr.
        scores = sorted((s.item, s.score + 0.0) for s in self.scores)
        text = json.dumps({"scores": scores, "verdicts": verdicts}, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _oriented(verdict: HumanVerdict) -> tuple[int, int, str]:
    if verdict.a < verdict.b:
        return verdict.a, verdict.b, verdict.winner
    flipped = {"A": "B", "B": "A", "tie": "tie"}[verdict.winner]
    return verdict.b, verdict.a, flipped


def check_human(labels: HumanLabels | Mapping[str, object], items: Sequence[object],
                ids: Sequence[Hashable] | None = None) -> HumanLabels:
    """People's labels given as Python data, checked against the run's items.

    Args:
        labels: A `HumanLabels`, or a mapping with the keys "verdicts" and/or "scores".
            Verdicts are `(a, b, winner)` tuples or mappings with the keys a, b and
            winner; scores are `{item: score}` or `(item, score)` pairs. An item is an
            index into `items`, or its id when `ids` is given. A winner is "A", "B" or
            "tie", in any case.
        items: The run's items (only their number is used).
        ids: The items' ids, in the order of `items`; None to name items by index.

    Returns:
        The labels with items as indices and winners spelled "A", "B" or "tie".

    Raises:
        InputError: An unknown id or an index out of range, an item against itself, an
            unknown winner, a score that is not finite, two scores for one item, or no
            label at all; the message names the entry.
        SettingTypeError: A value of the wrong type (a bool as an index or a score).

    Example:
        >>> check_human({"scores": {0: 2.5, 1: 4}}, ["first", "second"]).scores
        (HumanScore(item=0, score=2.5, line=None), HumanScore(item=1, score=4.0, line=None))
    """
    items_of = _Items(len(items), ids)
    if isinstance(labels, HumanLabels):
        by_index = _Items(len(items))
        verdicts = [_verdict_of(f"human labels, verdict {k}", (v.a, v.b, v.winner), by_index,
                                v.line) for k, v in enumerate(labels.verdicts, 1)]
        scores = [_score_of(f"human labels, score {k}", s.item, s.score, by_index, s.line)
                  for k, s in enumerate(labels.scores, 1)]
        return _whole(verdicts, scores, "human labels", by_index)
    if not isinstance(labels, Mapping):
        raise SettingTypeError("human labels must be a HumanLabels or a mapping with the keys "
                               f"'verdicts' and/or 'scores', got {type(labels).__name__}")
    unknown = sorted(map(str, set(labels) - {"verdicts", "scores"}))
    if unknown:
        raise InputError(f"human labels: unknown key(s) {', '.join(unknown)}; "
                         "the keys are 'verdicts' and 'scores'")
    verdicts = [_verdict_entry(f"verdict {k}", entry, items_of)
                for k, entry in enumerate(_listed(labels.get("verdicts", ()), "verdicts"), 1)]
    scores = [_score_of(f"human labels, score {k} ({item!r})", item, score, items_of)
              for k, (item, score) in enumerate(_score_pairs(labels.get("scores", ())), 1)]
    return _whole(verdicts, scores, "human labels", items_of)


def _listed(value: object, name: str) -> list[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise SettingTypeError(f"human labels: {name} must be a list, got {value!r}")
    return list(value)


def _score_pairs(value: object) -> list[tuple[object, object]]:
    if isinstance(value, Mapping):
        return list(value.items())
    pairs = []
    for k, entry in enumerate(_listed(value, "scores"), 1):
        if isinstance(entry, str | bytes) or not isinstance(entry, Sequence) or len(entry) != 2:
            raise InputError(f"human labels, score {k}: expected an (item, score) pair, "
                             f"got {entry!r}")
        pairs.append((entry[0], entry[1]))
    return pairs


def _verdict_entry(where: str, entry: object, items: _Items) -> HumanVerdict:
    if isinstance(entry, Mapping):
        if set(entry) != _VERDICT_KEYS:
            raise InputError(f"human labels, {where}: expected the keys a, b and winner, "
                             f"got {sorted(map(str, entry))}")
        values: object = (entry["a"], entry["b"], entry["winner"])
    else:
        values = entry
    if isinstance(values, str | bytes) or not isinstance(values, Sequence) or len(values) != 3:
        raise InputError(f"human labels, {where}: expected (a, b, winner), got {entry!r}")
    return _verdict_of(f"human labels, {where} {tuple(values)!r}", tuple(values), items)


def _whole(verdicts: list[HumanVerdict], scores: list[HumanScore], source: str,
           items: _Items) -> HumanLabels:
    if not verdicts and not scores:
        raise InputError(f"{source}: no verdict and no score; give at least one")
    seen: dict[int, HumanScore] = {}
    for score in scores:
        if score.item in seen:
            raise InputError(f"{source}: {items.name(score.item)} has two scores "
                             f"({_at(seen[score.item].line)}{seen[score.item].score!r} and "
                             f"{_at(score.line)}{score.score!r}); give one score per item")
        seen[score.item] = score
    return HumanLabels(tuple(verdicts), tuple(scores))


def _at(line: int | None) -> str:
    return "" if line is None else f"line {line}: "


class _Items:
    """Turns a label's item (an index, or an id when ids are given) into an index."""

    def __init__(self, n: int, ids: Sequence[Hashable] | None = None) -> None:
        self.n = n
        self.index: dict[Hashable, int] | None = None
        self.ids = list(ids or ())
        if ids is not None:
            if len(ids) != n:
                raise InputError(f"human labels: {len(ids)} ids given for {n} items")
            self.index = {}
            for i, item_id in enumerate(ids):
                if item_id in self.index:
                    raise InputError(f"human labels: the id {item_id!r} is given twice")
                self.index[item_id] = i

    def name(self, i: int) -> str:
        """The item in the user's terms: its id when ids are given, else its index."""
        return f"item {i}" if self.index is None else f"the item of id {self.ids[i]!r}"

    def __call__(self, value: object, where: str) -> int:
        if isinstance(value, bool):
            raise SettingTypeError(f"{where}: {value!r} is a bool, not an item")
        if self.index is not None:
            found = self.index.get(value) if isinstance(value, Hashable) else None
            if found is None:
                raise InputError(f"{where}: unknown item id {value!r}")
            return found
        try:
            i = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            raise SettingTypeError(f"{where}: an item is an index (an int) when no ids are "
                                   f"given, got {value!r}") from None
        if not 0 <= i < self.n:
            raise InputError(f"{where}: item index {i} is out of range 0..{self.n - 1}")
        return i


def _verdict_of(where: str, values: Sequence[object], items: _Items,
                line: int | None = None) -> HumanVerdict:
    a, b = items(values[0], where), items(values[1], where)
    if a == b:
        raise InputError(f"{where}: an item against itself ({values[0]!r})")
    winner = values[2]
    key = winner.strip().lower() if isinstance(winner, str) else None
    if key not in _WINNERS:
        raise InputError(f"{where}: winner {winner!r} is not 'A', 'B' or 'tie'")
    return HumanVerdict(a, b, _WINNERS[key], line)


def _score_of(where: str, item: object, score: object, items: _Items,
              line: int | None = None) -> HumanScore:
    index = items(item, where)
    if isinstance(score, bool) or not isinstance(score, int | float | np.number):
        raise SettingTypeError(f"{where}: score {score!r} is not a number")
    try:
        value = float(score)
    except OverflowError:  # an int too large for a float
        value = math.inf
    if not math.isfinite(value):
        raise InputError(f"{where}: score {score!r} is not a finite number")
    return HumanScore(index, value, line)


def read_human(path: str | Path, ids: Sequence[Hashable]) -> HumanLabels:
    """People's labels read from a CSV or JSONL file, items named by their ids.

    A CSV file (`.csv`) holds one kind of label, said by its header: `a,b,winner` for
    verdicts, `id,score` for scores (columns in any order). A JSONL file (`.jsonl` or
    `.ndjson`) holds one object per line, `{"a": …, "b": …, "winner": …}` or
    `{"id": …, "score": …}`, both kinds mixed if need be; blank lines are skipped. The file
    is UTF-8, with or without a byte-order mark.

    Args:
        path: The file.
        ids: The run's item ids, in the order of its items.

    Returns:
        The labels, each with the line it was read from.

    Raises:
        InputError: A file that cannot be read, or any refusal of `check_human`; the
            message names the file and the line.
    """
    path = Path(path)
    items = _Items(len(ids), ids)
    if path.suffix.lower() not in _SUFFIXES:
        raise InputError(f"human labels file {str(path)!r}: its name must end in "
                         f"{', '.join(_SUFFIXES)} to say its format")
    text = _text(path)
    reader = _read_csv if path.suffix.lower() == ".csv" else _read_jsonl
    name = f"human labels file {str(path)!r}"
    verdicts, scores = reader(text, items, name)
    return _whole(verdicts, scores, name, items)


def _text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"human labels file {str(path)!r} cannot be read: "
                         f"{error.strerror or error}") from None
    try:  # utf-8-sig: Excel and Notepad start a UTF-8 file with a byte-order mark
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"human labels file {str(path)!r}, line {line}: not UTF-8 "
                         f"(byte {data[error.start]:#04x})") from None


_Read = tuple[list[HumanVerdict], list[HumanScore]]


def _read_csv(text: str, items: _Items, name: str) -> _Read:
    # strict: an unclosed quote is refused, not read as one long field to the file's end.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    verdicts: list[HumanVerdict] = []
    scores: list[HumanScore] = []
    header: list[str] | None = None
    start = 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = _csv_header(row, f"{name}, line {line}")
                continue
            if len(row) != len(header):
                raise InputError(f"{name}, line {line}: {len(row)} fields, the header has "
                                 f"{len(header)}")
            _add(dict(zip(header, row, strict=True)), line, items, name, verdicts, scores)
    except csv.Error as error:
        raise InputError(f"{name}, line {start}: not valid CSV ({error})") from None
    return verdicts, scores


def _csv_header(row: list[str], where: str) -> list[str]:
    header = [cell.strip().lower() for cell in row]
    if set(header) in (_VERDICT_KEYS, _SCORE_KEYS) and len(set(header)) == len(header):
        return header
    raise InputError(f"{where}: the header must be a,b,winner (verdicts) or id,score "
                     f"(scores), got {','.join(row)!r}")


def _read_jsonl(text: str, items: _Items, name: str) -> _Read:
    verdicts: list[HumanVerdict] = []
    scores: list[HumanScore] = []
    # Split on "\n" only: str.splitlines also splits on U+2028 and other characters that a
    # JSON string may hold raw, and would number lines unlike an editor.
    for line, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InputError(f"{name}, line {line}: not valid JSON ({error.msg})") from None
        if not isinstance(entry, dict) or set(entry) not in (_VERDICT_KEYS, _SCORE_KEYS):
            raise InputError(f"{name}, line {line}: expected an object with the keys a, b, "
                             f"winner (a verdict) or id, score (a score), got {raw.strip()!r}")
        _add(entry, line, items, name, verdicts, scores)
    return verdicts, scores


def _add(entry: Mapping[str, object], line: int, items: _Items, name: str,
         verdicts: list[HumanVerdict], scores: list[HumanScore]) -> None:
    where = f"{name}, line {line}"
    if "winner" in entry:
        values = [_file_id(entry["a"]), _file_id(entry["b"]), entry["winner"]]
        verdicts.append(_verdict_of(where, values, items, line))
    else:
        scores.append(_score_of(where, _file_id(entry["id"]), _file_score(entry["score"]),
                                items, line))


def _file_id(value: object) -> object:
    # A file names items by id; a JSON number is read as the id written in digits.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _file_score(value: object) -> object:
    if not isinstance(value, str):
        return value
    try:
        return float(value.strip())
    except ValueError:
        return value


def human_strengths(labels: HumanLabels, n: int) -> np.ndarray:
    """The people's order of the items: one number per item, higher is better.

    With pairwise verdicts, the Bradley–Terry log-strengths fitted to them (a tie counts
    half a win, no first-position term), centred on mean 0 over the items in a verdict.
    With scores only, the scores. Verdicts take precedence when both are given: a score
    scale and a log-strength cannot be put on one axis without a further assumption.

    Args:
        labels: Checked labels (from `check_human` or `read_human`).
        n: The number of items in the run.

    Returns:
        A float array of length `n`; NaN for an item without a label of the kind used.

    Raises:
        InputError: A label names an item outside 0..n−1.

    Example:
        >>> labels = HumanLabels(scores=(HumanScore(2, 7.5),))
        >>> human_strengths(labels, 3).tolist()
        [nan, nan, 7.5]
    """
    named = [i for v in labels.verdicts for i in (v.a, v.b)] + [s.item for s in labels.scores]
    outside = [i for i in named if not 0 <= i < n]
    if outside:
        raise InputError(f"human labels name item {outside[0]}, outside 0..{n - 1}")
    out = np.full(n, np.nan)
    if not labels.verdicts:
        for score in labels.scores:
            out[score.item] = score.score
        return out
    # Fitted over the labelled items only, so that unlabelled ones neither move the centre
    # nor get a made-up strength.
    labelled = sorted(set(named[:2 * len(labels.verdicts)]))
    place = {item: k for k, item in enumerate(labelled)}
    fit = fit_bradley_terry(len(labelled), [place[v.a] for v in labels.verdicts],
                            [place[v.b] for v in labels.verdicts],
                            [_SHARE[v.winner] for v in labels.verdicts],
                            position=False, uncertainty=False)
    out[labelled] = fit.strengths
    return out
