"""A run with people's labels in batch mode: its labelled pairs go out as one more batch."""

from __future__ import annotations

from pathlib import Path

from _batch_setup import batch_provider, batch_server
from _setup import hidden_scores, make_items

from llm_qualitative_sort import QualitativeSorter, Swiss

ITEMS = make_items(8)
# Indices into ITEMS; a Swiss run of 8 matches (18 calls less 10 kept back for these
# pairs) leaves most of them unplayed.
VERDICTS = [(0, 7, "A"), (1, 6, "B"), (2, 5, "tie"), (3, 4, "A"), (0, 1, "B")]


async def test_labelled_pairs_are_asked_by_batch_and_counted(tmp_path: Path) -> None:
    with batch_server("openai", hidden_scores(ITEMS)) as (fake, url):
        sorter = QualitativeSorter(batch_provider("openai", url), criteria="which is better",
                                   seed=4, strategy=Swiss(budget=18),
                                   checkpointer=tmp_path / "runs.sqlite3")
        result = await sorter.sort(ITEMS, human=VERDICTS)
        batches = [b.requests for b in fake.batches.values()]
    labelled = [m for m in result.match_history if m.round_number == max(
        m.round_number for m in result.match_history)]
    asked = {frozenset((m.item_a, m.item_b)) for m in labelled}
    # The last batch holds the labelled pairs' calls, both orders of each.
    assert sorted(map(sorted, (r.texts for r in batches[-1]))) == sorted(
        sorted((m.item_a, m.item_b)) for m in labelled for _ in range(2))
    assert asked <= {frozenset((ITEMS[a], ITEMS[b])) for a, b, _ in VERDICTS}
    assert all(call.batch for m in labelled for call in m.rounds)
    assert result.statistics.batch_calls == sum(len(b) for b in batches)
    assert result.agreement is not None and result.agreement.compared > 0
    assert result.statistics.total_api_calls <= 18
