"""Ten runs started at once by five worker processes on one PostgreSQL database: every run
finishes, each is played by exactly one worker, and no call is paid twice."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

import _forked as forked

from llm_qualitative_sort import ComparisonResult, MockLLMProvider, QualitativeSorter

WORKER = Path(__file__).with_name("pg_worker.py")
RUNS = {f"run-{k}": [str((i * 7 + k) % 101) for i in range(20)] for k in range(10)}
SETTINGS = {"mock_seed": 11, "seed": 5, "latency": 0.005, "concurrency": 5}


class CountingMock(MockLLMProvider):
    def __init__(self, run_id: str, calls: Counter[str], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.run_id, self.counted = run_id, calls

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int) -> ComparisonResult:
        self.counted[f"{self.run_id}|{item_a}|{item_b}|{repetition}"] += 1
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


async def _references(calls: Counter[str]) -> dict[str, tuple[list[list[object]], int]]:
    found = {}
    for run_id, items in RUNS.items():
        provider = CountingMock(run_id, calls, seed=SETTINGS["mock_seed"])
        sorter = QualitativeSorter(provider, criteria="the larger number", seed=SETTINGS["seed"],
                                   checkpointer=None)
        result = await sorter.sort(items, run_id=run_id)
        found[run_id] = (json.loads(json.dumps(result.rankings)), provider.calls)
    return found


def test_five_workers_finish_ten_runs_each_exactly_once(tmp_path: Path, postgres_dsn: str
                                                        ) -> None:
    log = tmp_path / "calls"
    workers = []
    for number in range(5):
        config = dict(SETTINGS, dsn=postgres_dsn, runs=RUNS, call_log=str(log),
                      out=str(tmp_path / f"out-{number}.json"))
        path = tmp_path / f"worker-{number}.json"
        path.write_text(json.dumps(config))
        workers.append(forked.start([sys.executable, str(WORKER), str(path)]))
    assert [worker.wait(timeout=300) for worker in workers] == [0] * 5

    expected: Counter[str] = Counter()  # a rematch may show the same texts again
    references = asyncio.run(_references(expected))
    outputs = [json.loads((tmp_path / f"out-{n}.json").read_text()) for n in range(5)]
    lines = [line.split("|") for line in log.read_text().splitlines()]
    calls = Counter("|".join(line[1:]) for line in lines)
    for run_id, (rankings, paid) in references.items():
        assert all(output[run_id]["rankings"] == rankings for output in outputs), run_id
        players = [n for n, output in enumerate(outputs) if output[run_id]["paid"]]
        assert len(players) == 1, (run_id, players)  # played by one worker
        assert outputs[players[0]][run_id]["paid"] == paid  # start to end, nothing missing
        assert len({line[0] for line in lines if line[1] == run_id}) == 1
    assert calls == expected  # every call paid once, as in an uninterrupted run
