"""Reuse of comparisons already paid for: `MemoryCache`, `FileCache` and their base.

A key names one LLM call: the text shown first, the text shown second, the criterion, the
repetition index of the call within its presentation order, and the judge's model
identity. Each field is hashed on its own (SHA-256) and the digests are hashed together, so
no two different calls can share a key whatever characters the texts contain.

The key follows the presentation order, not the match's orientation: a match (x, y) in order
"BA" and a match (y, x) in order "AB" send the same prompt and share a key.

A judge that asks for log-probabilities (`LLMProvider.asks_logprobs`) keeps its answers
under a key of their own (`CallKeys`): an answer asked without them has no probability
to give a soft verdict, and a run with soft verdicts must not take it for one that had
none to give.

A score and a ranking call are cached like comparisons, each under a judge identity that
names its question; each answer is stored in the form of its kind (`stores.answers`).
"""

from __future__ import annotations

import hashlib
import sqlite3
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from llm_qualitative_sort.errors import CacheError as CacheError
from llm_qualitative_sort.stores.answers import (
    CallAnswer,
    Kind,
    answer_from_record,
    answer_to_record,
    read_as,
)
from llm_qualitative_sort.stores.sqlite_files import OneWait, held_lock, is_busy, open_sqlite
from llm_qualitative_sort.verdicts import ComparisonResult


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheKey:
    """Identity of one LLM call. Build it with `CacheKey.of(...)`."""

    first_hash: str
    second_hash: str
    criteria_hash: str
    repetition: int
    model_hash: str

    @classmethod
    def of(
        cls, first: str, second: str, criteria: str, repetition: int, model_identity: str
    ) -> CacheKey:
        """The key of showing `first` then `second` under `criteria` to a model."""
        return cls(_sha(first), _sha(second), _sha(criteria), repetition, _sha(model_identity))

    @property
    def digest(self) -> str:
        """One hex string naming the call."""
        fields = (self.first_hash, self.second_hash, self.criteria_hash)
        tail = (_sha(str(self.repetition)), self.model_hash)
        return _sha("".join(fields + tail))


# Appended to the judge's identity in the key of a call that asked for log-probabilities.
LOGPROBS_MARK = "+logprobs"


@dataclass(frozen=True)
class CallKeys:
    """Where one call's answer is stored (`own`), and where it may be found besides (`other`).

    A call that asks for log-probabilities stores its answer under the key marked with
    `LOGPROBS_MARK`, one that does not under the plain key; each reads the other key too,
    as the same prompt's answer is a verdict either way. Answers cached before the marked
    key existed are all under the plain key, asked with log-probabilities or not: a run
    with soft verdicts takes one from there only when it has its probability, and asks
    again for the others (the new answer is then stored under its marked key).
    """

    own: CacheKey
    other: CacheKey
    # Whether an answer under `other` must carry a probability to be used.
    needs_probability: bool = False
    # The question the call asks: its answers are read back as that kind's.
    kind: Kind = "compare"

    @classmethod
    def of(cls, first: str, second: str, criteria: str, repetition: int, identity: str, *,
           logprobs: bool, soft: bool, kind: Kind = "compare") -> CallKeys:
        """The keys of a call; `logprobs`: it asks for them; `soft`: the run's verdicts."""
        plain = CacheKey.of(first, second, criteria, repetition, identity)
        if not logprobs:
            return cls(plain, CacheKey.of(first, second, criteria, repetition,
                                          identity + LOGPROBS_MARK), kind=kind)
        marked = CacheKey.of(first, second, criteria, repetition, identity + LOGPROBS_MARK)
        return cls(marked, plain, needs_probability=soft, kind=kind)

    async def read(self, cache: ComparisonCache) -> CallAnswer | None:
        """The cached answer of the call, or None: it must be asked."""
        found = await cache.get(self.own)
        if found is None:
            found = await cache.get(self.other)
            # Perhaps asked without log-probabilities: a soft verdict needs them (only a
            # comparison has one).
            if found is not None and self.needs_probability and (
                    type(found) is not ComparisonResult or found.probability is None):
                return None
        if found is None or self.kind == "compare":
            return found
        return read_as(self.kind, found)


class ComparisonCache(ABC):
    """Where answers of earlier calls are kept. Subclass it to store them elsewhere.

    Only answers with a verdict, a label or an order are stored: a failed call, or one
    that gave none, is never cached. An answer is a `ComparisonResult`, a
    `rating.scoring.PointwiseResult` or a `RankingResult`, as its call asked
    (`stores.answers.answer_to_record` and `answer_from_record` store each as JSON text).
    """

    @abstractmethod
    async def get(self, key: CacheKey) -> CallAnswer | None:
        """The stored answer for `key`, or None."""

    @abstractmethod
    async def set(self, key: CacheKey, result: CallAnswer) -> None:
        """Store the answer for `key`."""

    async def aclose(self) -> None:  # noqa: B027 - nothing to release by default
        """Release what the cache holds open (files, connections); nothing by default."""


class MemoryCache(ComparisonCache):
    """A cache that lives as long as the object.

    Example:
        >>> cache = MemoryCache()
        >>> len(cache)
        0
    """

    def __init__(self) -> None:
        self._entries: dict[str, CallAnswer] = {}

    async def get(self, key: CacheKey) -> CallAnswer | None:
        """The stored answer for `key`, or None."""
        return self._entries.get(key.digest)

    async def set(self, key: CacheKey, result: CallAnswer) -> None:
        """Store the answer for `key`."""
        self._entries[key.digest] = result

    def __len__(self) -> int:
        return len(self._entries)


class FileCache(ComparisonCache):
    """A cache in a directory, kept across processes.

    The answers live in one SQLite database (`comparisons.sqlite3`) inside `directory`.
    SQLite makes every write atomic and lets several processes share the file (a writer
    waits for the lock), so the cache is never left half-written, even by a killed process.

    Args:
        directory: Where to keep the cache; created if missing.

    Raises:
        CacheError: `directory` or the database in it cannot be used (named in the message).

    Example:
        >>> import tempfile
        >>> cache = FileCache(tempfile.mkdtemp())
        >>> cache.path.name
        'comparisons.sqlite3'
    """

    def __init__(self, directory: str | Path) -> None:
        root = Path(directory)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cannot use {root} as a cache directory: {exc}") from exc
        self.path = root / "comparisons.sqlite3"
        self._table = SqliteTable(self.path, "comparisons")

    async def get(self, key: CacheKey) -> CallAnswer | None:
        """The stored answer for `key`, or None."""
        record = self._table.get(key.digest)
        return None if record is None else answer_from_record(record, self.path)

    async def set(self, key: CacheKey, result: CallAnswer) -> None:
        """Store the answer for `key`."""
        self._table.set(key.digest, answer_to_record(result))

    def close(self) -> None:
        """Close the database connection."""
        self._table.close()

    async def aclose(self) -> None:
        """Close the database connection."""
        self.close()


class SqliteTable:
    """A key/value table in an SQLite file (see `open_sqlite`), written through on `set`.

    A write that waited the whole busy timeout for another process's lock in vain raises,
    naming that; later writes wait no more (`OneWait`: each wait blocks the event loop, and
    every call in flight writes).
    """

    def __init__(self, path: Path, table: str) -> None:
        self.path = path
        self._table = table
        schema = f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        self._conn = open_sqlite(path, schema, "a comparison store", CacheError)
        self._one_wait = OneWait()

    def get(self, key: str) -> str | None:
        """The value stored under `key`, or None."""
        try:
            row = self._conn.execute(
                f"SELECT value FROM {self._table} WHERE key = ?", (key,)
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise CacheError(f"cannot read {self.path}: {exc}") from exc
        return None if row is None else str(row[0])

    def set(self, key: str, value: str) -> None:
        """Store `value` under `key` and commit."""
        try:
            with self._one_wait.write(self._conn):
                self._conn.execute(
                    f"INSERT OR REPLACE INTO {self._table} (key, value) VALUES (?, ?)",
                    (key, value),
                )
        except sqlite3.DatabaseError as exc:
            if is_busy(exc):
                why = held_lock(self._one_wait.seconds)
                raise CacheError(f"cannot write {self.path}: {why}, then resume this run"
                                 ) from exc
            raise CacheError(f"cannot write {self.path}: {exc}") from exc

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
