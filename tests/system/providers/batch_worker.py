"""A batch-mode sort in its own process, for the kill-and-resume tests.

Usage: python batch_worker.py CONFIG_JSON — the result goes to the output file as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from llm_qualitative_sort import (
    BatchOptions,
    GoogleProvider,
    OpenAIProvider,
    QualitativeSorter,
    Swiss,
)


async def main(config: dict[str, Any]) -> None:
    options = BatchOptions(poll_interval=0.005, max_poll_interval=0.02)
    kind = OpenAIProvider if config["kind"] == "openai" else GoogleProvider
    provider = kind(api_key=config["key"], base_url=config["url"], batch=options)
    strategy: Any = config.get("strategy")
    if config.get("prepass_budget"):  # a Swiss run with a pointwise pre-pass
        strategy = Swiss(budget=config["prepass_budget"], prepass="pointwise")
    sorter = QualitativeSorter(provider, criteria="which essay argues better", seed=4,
                               checkpointer=config["checkpoint"],
                               **({"strategy": strategy} if strategy else {}))
    if config.get("resume"):
        result = await sorter.resume(config["run_id"])
    else:
        result = await sorter.sort(config["items"], run_id=config["run_id"])
    calls = [[m.item_a, m.item_b, m.winner, [[c.order, c.winner] for c in m.rounds]]
             for m in result.match_history]
    with open(config["out"], "w", encoding="utf-8") as out:
        scores = [[s.item, s.score, [c.label for c in s.calls]] for s in result.pointwise]
        prepass = [[s.item, s.score, [c.label for c in s.calls]] for s in result.prepass]
        json.dump({"rankings": result.rankings, "calls": calls, "scores": scores,
                   "prepass": prepass,
                   "rounds": result.statistics.rounds,
                   "paid": result.statistics.total_api_calls}, out)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(main(json.load(f)))
