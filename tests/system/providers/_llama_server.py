"""llama-cpp-python's OpenAI-compatible server, with its top log-probabilities ranked by numpy.

For each generated token of an answer with `logprobs`, llama-cpp-python 0.3.36 ranks the
whole vocabulary (49,152 tokens for SmolLM2) with Python's `sorted` over (log-prob, token)
pairs to pick the `top_logprobs` alternatives: about 46 ms of CPU a token, half of what a
generated token costs the server. Run as a script (by `_local_model.start`), this starts the
stock server with `sorted` in its engine module replaced by `ranked`, which returns the same
list for that one call and hands every other call to `sorted`: the answers are unchanged.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


def _row_and_range(pairs: object) -> np.ndarray[Any, Any] | None:
    """The row of `zip(row, range(len(row)))`, untouched yet, or None for anything else."""
    if type(pairs) is not zip:
        return None
    _, parts = pairs.__reduce__()
    if len(parts) != 2:
        return None
    values, indices = (part.__reduce__() for part in parts)
    if len(values) != 3 or len(indices) != 3 or values[2] != 0 or indices[2] != 0:
        return None  # not plain iterators, or already partly read
    [row], [span] = values[1], indices[1]
    if not (isinstance(row, np.ndarray) and row.ndim == 1 and row.dtype.kind == "f"
            and isinstance(span, range) and span == range(len(row))):
        return None
    if np.isnan(row).any():  # NaN compares unordered: leave it to `sorted`
        return None
    return row


def ranked(pairs: Iterable[Any], *, key: Callable[[Any], Any] | None = None,
           reverse: bool = False) -> list[Any]:
    """`sorted(pairs, key=key, reverse=reverse)`, by numpy for the engine's ranking of a row.

    For `zip(row, range(len(row)))` with `reverse=True`: the (value, index) pairs by value,
    then index, both descending, the values as the row's own scalars, as `sorted` gives them.
    """
    row = _row_and_range(pairs) if key is None and reverse else None
    if row is None:
        return builtins.sorted(pairs, key=key, reverse=reverse)  # type: ignore[type-var]
    order = np.lexsort((np.arange(len(row)), row))[::-1]
    return list(zip(row[order], order.tolist(), strict=True))


if __name__ == "__main__":
    import llama_cpp.llama as engine
    from llama_cpp.server.__main__ import main

    engine.sorted = ranked  # type: ignore[attr-defined]
    main()
