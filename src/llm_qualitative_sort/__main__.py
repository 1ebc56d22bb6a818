"""`python -m llm_qualitative_sort`: sort a small demo set on the mock judge."""

from __future__ import annotations

import asyncio

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, default_checkpoint_path


async def _demo() -> None:
    items = [str(n) for n in range(0, 100, 7)]
    sorter = QualitativeSorter(MockLLMProvider(seed=7), criteria="the larger number", seed=7)
    result = await sorter.sort(items)
    for rank, group in result.rankings:
        print(f"{rank:>3}. {', '.join(group)}")
    stats = result.statistics
    print(f"{stats.total_matches} matches, {stats.total_api_calls} calls; run {result.run_id}")
    print(f"checkpoint: {default_checkpoint_path()}")


if __name__ == "__main__":
    asyncio.run(_demo())
