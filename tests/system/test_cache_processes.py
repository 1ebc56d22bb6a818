"""The file cache written by several processes at once."""

from __future__ import annotations

from pathlib import Path

import _forked as forked

from llm_qualitative_sort import (
    CacheKey,
    ComparisonResult,
    FileCache,
)


def _writer(directory: str, worker: int) -> None:
    import asyncio

    async def write() -> None:
        cache = FileCache(directory)
        for i in range(150):
            key = CacheKey.of(f"w{worker}", str(i), "k", 0, "m")
            await cache.set(key, ComparisonResult(winner="A", reasoning=f"{worker}-{i}"))

    asyncio.run(write())

async def test_file_cache_is_safe_with_several_processes(tmp_path: Path) -> None:
    context = forked.context
    workers = [context.Process(target=_writer, args=(str(tmp_path), w)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    cache = FileCache(tmp_path)
    for worker in range(4):
        for i in range(150):
            hit = await cache.get(CacheKey.of(f"w{worker}", str(i), "k", 0, "m"))
            assert hit is not None and hit.reasoning == f"{worker}-{i}"
