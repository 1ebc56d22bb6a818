"""The pipelined schedule and judge panels with runs kept in PostgreSQL (a real server)."""

from __future__ import annotations

import psycopg

from llm_qualitative_sort import MockLLMProvider, PanelProvider, QualitativeSorter

ITEMS = [str(n) for n in range(48)]
LEFT = ("SELECT (SELECT count(*) FROM llm_qualitative_sort_journal), "
        "(SELECT count(*) FROM llm_qualitative_sort_pairings)")


class _Counting(MockLLMProvider):
    """The seeded mock, counting the pairings its calls show."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.shown: set[frozenset[str]] = set()

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int = 0):  # type: ignore[no-untyped-def]
        self.shown.add(frozenset((item_a, item_b)))
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


async def test_a_pipelined_run_finishes_and_leaves_no_journal_rows(postgres_dsn: str) -> None:
    judge = _Counting(seed=3)
    sorter = QualitativeSorter(judge, criteria="larger", seed=5, schedule="pipelined",
                               checkpointer=postgres_dsn, max_concurrent_requests=8)
    result = await sorter.sort(ITEMS, run_id="pipelined")
    assert sorted(i for _, group in result.rankings for i in group) == sorted(ITEMS)
    played = {frozenset((m.item_a, m.item_b)) for m in result.match_history}
    assert played == judge.shown  # every pairing that was asked is in the stored history
    assert result.statistics.total_api_calls == judge.calls
    with psycopg.connect(postgres_dsn) as conn:
        assert conn.execute(LEFT).fetchone() == (0, 0)  # settled, then forgotten at the end
    again = await QualitativeSorter(judge, criteria="larger", seed=5, schedule="pipelined",
                                    checkpointer=postgres_dsn).sort(ITEMS, run_id="pipelined")
    assert again.rankings == result.rankings and judge.calls == result.statistics.total_api_calls


async def test_a_panel_on_postgres_keeps_each_calls_judge(postgres_dsn: str) -> None:
    panel = PanelProvider([MockLLMProvider(seed=1), MockLLMProvider(seed=2)], seed=7)
    sorter = QualitativeSorter(panel, criteria="larger", seed=2, checkpointer=postgres_dsn)
    result = await sorter.sort(ITEMS, run_id="panel")
    judges = {call.judge for match in result.match_history for call in match.rounds}
    assert judges == {j.model_identity for j in panel.judges}
    assert [j.calls for j in result.statistics.judges] == [
        sum(call.judge == j.model_identity for m in result.match_history for call in m.rounds)
        for j in panel.judges]
