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
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_qualitative_sort.errors import CacheError as CacheError
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

    @classmethod
    def of(cls, first: str, second: str, criteria: str, repetition: int, identity: str, *,
           logprobs: bool, soft: bool) -> CallKeys:
        """The keys of a call; `logprobs`: it asks for them; `soft`: the run's verdicts."""
        plain = CacheKey.of(first, second, criteria, repetition, identity)
        if not logprobs:
            return cls(plain, CacheKey.of(first, second, criteria, repetition,
                                          identity + LOGPROBS_MARK))
        marked = CacheKey.of(first, second, criteria, repetition, identity + LOGPROBS_MARK)
        return cls(marked, plain, needs_probability=soft)

    async def read(self, cache: ComparisonCache) -> ComparisonResult | None:
        """The cached answer of the call, or None: it must be asked."""
        found = await cache.get(self.own)
        if found is not None:
            return found
        found = await cache.get(self.other)
        if found is not None and self.needs_probability and found.probability is None:
            return None  # perhaps asked without log-probabilities: a soft verdict needs them
        return found


class ComparisonCache(ABC):
    """Where answers of earlier calls are kept. Subclass it to store them elsewhere.

    Only answers with a verdict are stored: a failed or verdict-less call is never cached.
    """

    @abstractmethod
    async def get(self, key: CacheKey) -> ComparisonResult | None:
        """The stored answer for `key`, or None."""

    @abstractmethod
    async def set(self, key: CacheKey, result: ComparisonResult) -> None:
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
        self._entries: dict[str, ComparisonResult] = {}

    async def get(self, key: CacheKey) -> ComparisonResult | None:
        """The stored answer for `key`, or None."""
        return self._entries.get(key.digest)

    async def set(self, key: CacheKey, result: ComparisonResult) -> None:
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

    async def get(self, key: CacheKey) -> ComparisonResult | None:
        """The stored answer for `key`, or None."""
        record = self._table.get(key.digest)
        return None if record is None else result_from_record(record, self.path)

    async def set(self, key: CacheKey, result: ComparisonResult) -> None:
        """Store the answer for `key`."""
        self._table.set(key.digest, result_to_record(result))

    def close(self) -> None:
        """Close the database connection."""
        self._table.close()

    async def aclose(self) -> None:
        """Close the database connection."""
        self.close()


def result_to_dict(result: ComparisonResult) -> dict[str, Any]:
    """A JSON-ready dictionary for a `ComparisonResult`."""
    return {
        "winner": result.winner,
        "reasoning": result.reasoning,
        "raw_response": result.raw_response,
        "input_tokens": result.input_tokens,
        "output_tokens": result.output_tokens,
        # Only when there is one: an answer without it is stored exactly as before.
        **({"probability": result.probability} if result.probability is not None else {}),
    }


def result_from_dict(data: Any, source: Path | str) -> ComparisonResult:
    """Rebuild a `ComparisonResult`; a malformed entry is an error naming `source`."""
    try:
        return ComparisonResult(**data)
    except (TypeError, ValueError) as exc:
        raise CacheError(f"corrupt entry in {source}: {exc}") from exc


def result_to_record(result: ComparisonResult) -> str:
    """A JSON text for a `ComparisonResult`."""
    return json.dumps(result_to_dict(result), ensure_ascii=False, default=str)


def result_from_record(record: str, source: Path | str) -> ComparisonResult:
    """Rebuild a `ComparisonResult` from JSON text; malformed text is an error naming `source`."""
    try:
        data = json.loads(record)
    except ValueError as exc:
        raise CacheError(f"corrupt entry in {source}: {exc}") from exc
    return result_from_dict(data, source)


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
