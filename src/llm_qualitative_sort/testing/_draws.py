"""Keyed generators: the test judges' draws depend on what they are keyed on, never on order.

Every draw of the mock and of the replay judge comes from its own generator, seeded from
the judge's seed and from what the draw depends on (a call's texts, their order and its
repetition; an unordered pair; an item), so answers never depend on concurrency or
completion order, and one more kind of draw leaves the draws of the others where they were.
"""

from __future__ import annotations

import hashlib
import random


def digest(*parts: str | int) -> bytes:
    """A key for the parts; no choice of texts can make two different part lists collide."""
    # Each field is hashed on its own and the digests concatenated: no delimiter to collide on.
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(str(part).encode("utf-8")).digest())
    return h.digest()


def keyed_rng(*parts: str | int) -> random.Random:
    """A generator seeded from the parts, independent of every other key."""
    return random.Random(int.from_bytes(digest(*parts), "big"))


class KeyedDraws:
    """`keyed_rng(seed, ...)` for the many calls of one mock, at a fraction of the cost.

    Each part's digest is computed once (texts recur in call after call), and one generator
    is re-seeded instead of a new one built per call. Re-seeding resets every bit of its
    state, so the draws are exactly `keyed_rng`'s; the generator is shared, so draw from it
    before the next `rng` call (the mock draws everything before its first `await`).

    Example:
        >>> KeyedDraws(7).rng("a", "b", 0).random() == keyed_rng(7, "a", "b", 0).random()
        True
    """

    # Digests kept at most; beyond it they are forgotten (a mock judging unbounded texts).
    KEPT = 1 << 16

    def __init__(self, seed: int) -> None:
        self._seed = _part_digest(seed)
        self._parts: dict[str | int, bytes] = {}
        self._rng = random.Random()

    def rng(self, *parts: str | int) -> random.Random:
        """The generator `keyed_rng(seed, *parts)` would give (shared: draw before reuse)."""
        known = self._parts
        if len(known) > self.KEPT:
            known.clear()
        joined = [self._seed]
        for part in parts:
            found = known.get(part)
            if found is None:
                found = known[part] = _part_digest(part)
            joined.append(found)
        self._rng.seed(int.from_bytes(hashlib.sha256(b"".join(joined)).digest(), "big"))
        return self._rng


def _part_digest(part: str | int) -> bytes:
    return hashlib.sha256(str(part).encode("utf-8")).digest()
