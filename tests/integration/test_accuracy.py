"""The specification's accuracy study (7.4): 1000 items, noisy mock judge, N = 1 .. 10.

What runs, and why:
- The items are "0" .. "999", the judge `MockLLMProvider(seed=s)` with the specification's
  noise (sd 3.33 on each side), and the sorter is seeded with the same s. Everything is
  seeded, so these numbers are fixed; the assertions use margins that
  `scripts/accuracy_table.py` shows hold on means over 10 seeds, not just these seeds.
- The sweep N = 1 .. 10 runs on seeds 0 and 1 (about 13 s per seed on one core). Over ten
  seeds the per-seed sd of τ-b is 0.003 – 0.008 while neighbouring N differ by 0.006 – 0.17,
  so step-by-step monotonicity is asserted only on a coarse grid (1, 2, 3, 5, 7, 10), whose
  steps are all > 0.02.
- The key comparisons (N=1, 2, 5, 10) add seeds 2, 3, 4: five seeds in all.
- Top vs bottom: the true top 100 are ordered better than the bottom 100 by 0.10 – 0.22 for
  N ≤ 5, but the gap closes as N grows (about 0.01 at N = 10, within one seed's spread), so
  it is asserted at N = 1, 2, 5 only.
- Top-10 accuracy is *not* asserted to beat Top-100: over ten seeds it never did (see
  `scripts/accuracy_table.py`); with sd 3.33 on items 1 apart, membership at the 10th
  place is nearly a coin flip.
Measured: about 45 s on the development machine (2 cores); checkpointer=None keeps it
in memory.
"""

import asyncio
import statistics
from collections.abc import Iterable

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.metrics import kendall_tau, segment_pair_ratio, top_k_accuracy

pytestmark = pytest.mark.slow

N_ITEMS = 1000
TRUTH = [str(i) for i in reversed(range(N_ITEMS))]
SWEEP_SEEDS = (0, 1)
KEY_NS = (1, 2, 5, 10)
KEY_SEEDS = (0, 1, 2, 3, 4)

Scores = dict[tuple[int, int], dict[str, float]]


async def _score(n_losses: int, seed: int) -> dict[str, float]:
    sorter = QualitativeSorter(MockLLMProvider(seed=seed), criteria="larger number",
                               elimination_count=n_losses, seed=seed, checkpointer=None,
                               max_concurrent_requests=1000)
    rankings = (await sorter.sort([str(i) for i in range(N_ITEMS)])).rankings
    return {
        "tau": kendall_tau(rankings, TRUTH),
        "top100": top_k_accuracy(rankings, TRUTH, 100),
        "top_pairs": segment_pair_ratio(rankings, TRUTH, 0, 100),
        "bottom_pairs": segment_pair_ratio(rankings, TRUTH, N_ITEMS - 100, N_ITEMS),
    }


async def _score_all() -> Scores:
    runs = {(n, s) for n in range(1, 11) for s in SWEEP_SEEDS}
    runs |= {(n, s) for n in KEY_NS for s in KEY_SEEDS}
    return {run: await _score(*run) for run in sorted(runs)}


@pytest.fixture(scope="module")
def scores() -> Scores:
    return asyncio.run(_score_all())


def mean(scores: Scores, metric: str, n_losses: int, seeds: Iterable[int]) -> float:
    return statistics.fmean(scores[n_losses, s][metric] for s in seeds)


def test_tau_grows_with_n_over_the_sweep(scores: Scores) -> None:
    grid = [1, 2, 3, 5, 7, 10]
    taus = [mean(scores, "tau", n, SWEEP_SEEDS) for n in grid]
    assert all(later > earlier for earlier, later in zip(taus, taus[1:], strict=False)), taus


def test_double_elimination_beats_single_on_every_seed(scores: Scores) -> None:
    for seed in KEY_SEEDS:
        assert scores[2, seed]["tau"] > scores[1, seed]["tau"] + 0.1, seed
    assert mean(scores, "tau", 2, KEY_SEEDS) > mean(scores, "tau", 1, KEY_SEEDS) + 0.12


def test_tau_keeps_growing_but_the_gains_shrink(scores: Scores) -> None:
    tau = {n: mean(scores, "tau", n, KEY_SEEDS) for n in KEY_NS}
    assert tau[5] > tau[2] + 0.1
    assert tau[10] > tau[5] + 0.03
    # Converging: five more lives past N=5 gain less than half of what the second one did.
    assert tau[10] - tau[5] < (tau[2] - tau[1]) / 2
    assert mean(scores, "top100", 10, KEY_SEEDS) > mean(scores, "top100", 1, KEY_SEEDS) + 0.15


@pytest.mark.parametrize("n_losses", [1, 2, 5])
def test_the_top_100_are_ordered_better_than_the_bottom_100(
    scores: Scores, n_losses: int
) -> None:
    top = mean(scores, "top_pairs", n_losses, KEY_SEEDS)
    bottom = mean(scores, "bottom_pairs", n_losses, KEY_SEEDS)
    assert top > bottom + 0.05, (top, bottom)
