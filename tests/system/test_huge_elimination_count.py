"""Pairing with a huge elimination count, bounded by a process of its own."""

from __future__ import annotations

import sys

import _forked as forked


def test_pairing_with_a_huge_elimination_count_does_not_walk_empty_brackets() -> None:
    """Pairing costs work per player, not per bracket (bounded by the harness: 60 s)."""
    code = (
        "import random\n"
        "from llm_qualitative_sort.tournament import pair_round\n"
        "p = pair_round([0, 5, 10**8, 10**9 - 1], 10**9, random.Random(0))\n"
        "print(len(p.pairs), p.bye)\n"
    )
    done = forked.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "None"]
