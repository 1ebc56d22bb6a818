"""The specification's default path, pinned: elimination ranked by wins gives, for the same
seeds, exactly the pairings, verdicts and rankings it gave before the strategy seam existed.

The digests were computed on the code of commit dbd6e8e (before strategies); a change to
pairing, bracket reassignment, match verdicts, ranking or the mock's draws breaks them.
"""

import hashlib
import json

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, SortResult

ITEMS = [str(i) for i in range(150)]
PINNED = {
    (1, 2, 0): "f2a546f56734e729",
    (1, 2, 1): "055be8232a311d48",
    (1, 4, 0): "122e6fc2e09f3265",
    (1, 4, 1): "759e263afc7a1c91",
    (2, 2, 0): "727119217567411c",
    (2, 2, 1): "d817acbee55478f2",
    (2, 4, 0): "4942e81ac1f15163",
    (2, 4, 1): "21a48259ea45b30f",
    (3, 2, 0): "1ee4cc1318690f43",
    (3, 2, 1): "ae39fd7645d329a5",
    (3, 4, 0): "899d23dec8c52bb6",
    (3, 4, 1): "f7de6849b98c3ec7",
}


def fingerprint(result: SortResult) -> str:
    history = [
        [m.item_a, m.item_b, m.winner, m.round_number,
         [[r.order, r.winner, r.cached] for r in m.rounds]]
        for m in result.match_history
    ]
    stats = result.statistics
    data = {
        "rankings": result.rankings,
        "history": history,
        "stats": [stats.total_matches, stats.total_api_calls, stats.draws, stats.rounds],
    }
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("case", "digest"), PINNED.items(), ids=str)
async def test_elimination_by_wins_is_unchanged(case: tuple[int, int, int], digest: str) -> None:
    losses, rounds, seed = case
    sorter = QualitativeSorter(
        MockLLMProvider(seed=seed), criteria="larger", elimination_count=losses,
        comparison_rounds=rounds, seed=seed + 10, checkpointer=None,
    )
    assert fingerprint(await sorter.sort(ITEMS)) == digest
