"""Round by round: the Top-10 accuracy the fit expects of itself against the measured one.

Plays Swiss + top-10 with `stop_when_settled=True` on "0".."999" at the default budget, but
with the stop switched off (the strategy module's `top_k_settled` replaced by "never"), so
every round's standing is seen to the end of the budget. After each round it prints the
calls used, the phase, the expected share the early stop tests ("expected", see
`tournament/swiss/settle.py`) and the measured Top-10 accuracy of the strengths fitted so
far. Then, per seed: where the stop at 95 % would have come, the Top-10 measured there, and
after how many refinement calls the fit's top 10 first reached, and then kept, its final
accuracy (the traces behind `UNTIL_SETTLED` in `tournament/swiss/refine.py`).

Usage:
    python scripts/settle_trace.py [--seeds 10] [--judge spec|realistic] [--rounds]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.tournament.swiss import strategy
from llm_qualitative_sort.tournament.swiss.evidence import strength_order
from llm_qualitative_sort.tournament.swiss.settle import LEVEL

ITEMS = [str(i) for i in range(1000)]
TRUE_TOP = set(range(990, 1000))
Row = tuple[int, str, float, float]  # calls, phase, expected, measured Top-10


async def trace(judge: str, seed: int) -> list[Row]:
    rows: list[Row] = []
    update = strategy.SwissStrategy.update

    def recording(self: strategy.SwissStrategy, standing: Any, history: Any) -> Any:
        result = update(self, standing, history)
        new = result.standing
        top = strength_order(new["strengths"])[:10]
        rows.append((new["used"], new["phase"], new["expected"],
                     sum(i in TRUE_TOP for i in top) / 10))
        return result

    strategy.SwissStrategy.update = recording  # type: ignore[method-assign]
    strategy.top_k_settled = lambda *args, **kwargs: False  # type: ignore[assignment]
    provider = (MockLLMProvider(seed=seed) if judge == "spec"
                else MockLLMProvider.realistic(seed=seed))
    try:
        await QualitativeSorter(provider, criteria="larger number", seed=seed,
                                strategy=Swiss(comparison_rounds=1, top_k=10,
                                               stop_when_settled=True), checkpointer=None,
                                max_concurrent_requests=1000).sort(ITEMS)
    finally:
        strategy.SwissStrategy.update = update  # type: ignore[method-assign]
    return rows


def summary(seed: int, rows: Sequence[Row]) -> str:
    start = next(calls for calls, phase, *_ in rows if phase == "refine")
    final = rows[-1][3]
    stop = next((r for r in rows if r[2] >= LEVEL), rows[-1])
    first = next(r[0] for r in rows if r[3] >= final)
    kept = next(rows[i][0] for i in range(len(rows)) if all(r[3] >= final for r in rows[i:]))
    return (f"| {seed} | {stop[0]} | {stop[3]:.1f} | {final:.1f} | {first - start} "
            f"| {kept - start} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--judge", choices=["spec", "realistic"], default="spec")
    parser.add_argument("--rounds", action="store_true", help="print every round too")
    args = parser.parse_args()
    lines = ["| seed | calls at the stop | Top-10 there | Top-10 at the budget "
             "| refinement calls to reach it | … to keep it |", "|---|---|---|---|---|---|"]
    for seed in range(args.seeds):
        rows = asyncio.run(trace(args.judge, seed))
        if args.rounds:
            for calls, phase, expected, measured in rows:
                print(f"seed {seed}: {calls} calls, {phase}, expected {expected:.3f}, "
                      f"measured {measured:.1f}")
        lines.append(summary(seed, rows))
        print(lines[-1], flush=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
