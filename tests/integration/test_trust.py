"""Panels, the audit and the uncertainty on real sorts with seeded mocks."""

from __future__ import annotations

import asyncio
import json
import math

import numpy as np
import pytest
from scipy.special import expit

from llm_qualitative_sort import (
    MemoryCache,
    MockLLMProvider,
    PanelProvider,
    QualitativeSorter,
    RunStoppedError,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.errors import PermanentProviderError
from llm_qualitative_sort.reports import from_json_dict, to_json_dict

SD = 3.33
BETA = SD * math.sqrt(6) / math.pi  # the Gumbel mock's logistic scale: exact Bradley–Terry
BONUS = 1.5  # each judge's fixed first-position bonus, in score units (h = ±BONUS / BETA)
ITEMS = [str(i) for i in range(120)]


def _value(text: str) -> float:
    return int(text) / 12  # 120 items over 10 units: many close pairs, many split verdicts


def _biased(seed: int, bonus: float) -> MockLLMProvider:
    return MockLLMProvider(seed=seed, noise="gumbel", score=_value, pair_bias=(bonus, 0.0))


def _sort(provider, items=ITEMS, **options) -> SortResult:
    options.setdefault("checkpointer", None)
    sorter = QualitativeSorter(provider, criteria="larger", seed=1, **options)
    return asyncio.run(sorter.sort(items))


@pytest.fixture(scope="module")
def panel_run() -> tuple[PanelProvider, SortResult]:
    panel = PanelProvider([_biased(1, BONUS), _biased(2, -BONUS)], seed=4)
    return panel, _sort(panel, elimination_count=6, comparison_rounds=4)


def test_opposite_judges_cancel_in_the_panel_and_show_apart(panel_run) -> None:
    panel, result = panel_run
    truth = expit(BONUS / BETA) - 0.5  # the shift a judge with this bonus has, exactly
    first, second = result.statistics.judges
    assert (first.judge, second.judge) == tuple(j.model_identity for j in panel.judges)
    for judge, sign in ((first, 1), (second, -1)):
        bias = judge.position_bias
        assert bias is not None and bias.method == "swapped_pairs" and bias.evidence > 100
        assert abs(bias.shift - sign * truth) < 0.06 and bias.low < sign * truth < bias.high
    overall = result.statistics.position_bias
    assert overall is not None and abs(overall.shift) < 0.04 and overall.low < 0 < overall.high
    assert first.calls + second.calls == result.statistics.total_api_calls


def test_judges_agree_as_often_as_the_mocks_were_built_to(panel_run) -> None:
    _, result = panel_run
    (agreement,) = result.statistics.agreement
    # Every prompt answered by both: P(first-shown wins) is σ(gap/β ± h) for the two judges,
    # independently; expected agreement p₁p₂ + (1−p₁)(1−p₂) summed over those prompts.
    h = BONUS / BETA
    expected = variance = 0.0
    seen: set[tuple[str, str]] = set()
    for match in result.match_history:
        for call in match.rounds:
            shown = (match.item_a, match.item_b) if call.order == "AB" else (
                match.item_b, match.item_a)
            if shown in seen:
                continue
            seen.add(shown)
            gap = (_value(shown[0]) - _value(shown[1])) / BETA
            p1, p2 = expit(gap + h), expit(gap - h)
            agree = p1 * p2 + (1 - p1) * (1 - p2)
            expected, variance = expected + agree, variance + agree * (1 - agree)
    assert agreement.prompts == len(seen) > 500
    assert abs(agreement.agreeing - expected) < 4 * math.sqrt(variance)
    assert agreement.kappa is not None and 0 < agreement.kappa < agreement.share < 1


def test_every_call_names_its_judge_and_both_orders_of_a_pair_share_one(panel_run) -> None:
    panel, result = panel_run
    for match in result.match_history:
        judges = [call.judge for call in match.rounds]
        assert judges[0] == judges[1] and judges[2] == judges[3] and judges[0] != judges[2]
        expected = panel.judge_of(match.item_a, match.item_b, repetition=0).model_identity
        assert judges[0] == expected


def test_cache_keys_are_each_judges_own() -> None:
    one, two = _biased(1, BONUS), _biased(2, -BONUS)
    cache = MemoryCache()
    first = _sort(PanelProvider([one, two]), ITEMS[:40], cache=cache)
    again = _sort(PanelProvider([one, two]), ITEMS[:40], cache=cache)
    assert again.statistics.total_api_calls == 0 and again.rankings == first.rankings
    # Alone, judge one finds only the answers it gave in the panel.
    alone = _sort(one, ITEMS[:40], cache=cache)
    answered_by_one = sum(call.judge == one.model_identity
                          for match in first.match_history for call in match.rounds)
    assert 0 < alone.statistics.cache_hits <= answered_by_one
    assert alone.statistics.total_api_calls > 0  # the rest it had to ask for


class _Broken(MockLLMProvider):
    """A judge whose key was revoked: every call fails for good until `fixed`."""

    fixed = False

    async def compare_call(self, item_a, item_b, criteria, *, repetition):
        if not self.fixed:
            raise PermanentProviderError("401: invalid api key")
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def test_a_failing_judge_stops_the_run_its_calls_wait_for_it(tmp_path) -> None:
    good, bad = MockLLMProvider(seed=1), _Broken(seed=2)
    panel = PanelProvider([good, bad])
    sorter = QualitativeSorter(panel, criteria="larger", seed=1,
                               checkpointer=tmp_path / "runs.sqlite3")
    with pytest.raises(RunStoppedError, match="invalid api key") as stopped:
        asyncio.run(sorter.sort(ITEMS[:30], run_id="r"))
    assert "_Broken" in str(stopped.value)  # names the judge that failed, not the panel
    bad.fixed = True
    result = asyncio.run(sorter.resume("r"))
    for match in result.match_history:  # nothing moved to the judge that kept working
        for call, (order, _) in zip(match.rounds, [("AB", 0), ("BA", 0)], strict=True):
            shown = (match.item_a, match.item_b) if order == "AB" else (match.item_b,
                                                                        match.item_a)
            assert call.judge == panel.judge_of(*shown, repetition=0).model_identity


def test_swiss_single_calls_estimate_the_bias_with_the_model() -> None:
    panel = PanelProvider([_biased(1, BONUS), _biased(2, -BONUS)])
    result = _sort(panel, strategy=Swiss(comparison_rounds=1, budget=600))
    stats = result.statistics
    assert stats.order_consistency is not None and stats.order_consistency.pairs == 0
    assert all(j.position_bias is not None and j.position_bias.method == "model"
               for j in stats.judges)
    shifts = [j.position_bias.shift for j in stats.judges if j.position_bias]
    assert shifts[0] > 0.03 and shifts[1] < -0.03


def test_every_new_number_goes_into_the_json_report_and_back(panel_run) -> None:
    _, result = panel_run
    data = json.loads(json.dumps(to_json_dict(result, {"top_k": 5}), ensure_ascii=False))
    back = from_json_dict(data)
    assert back == result  # the statistics with the whole audit, every call's judge
    assert back.statistics.judges == result.statistics.judges
    assert back.statistics.agreement == result.statistics.agreement
    assert back.scores == result.scores and back.intervals == result.intervals
    assert back.top_k_probability(5) == result.top_k_probability(5)
    standing = data["standings"][0]
    assert set(standing) >= {"score", "interval", "top_k_probability"}
    assert data["uncertainty"]["top_k"] == 5
    assert data["statistics"]["position_bias"]["method"] == "swapped_pairs"


def test_intervals_cover_an_exact_bradley_terry_judge() -> None:
    # A safe claim on a modest simulation (the full study is scripts/trust_coverage.py):
    # 95 % intervals on 60 items × 6 seeds cover the truth at a rate within a wide
    # binomial band around the measured 0.9–0.95 (items share a run, so the band is wide).
    covered = total = 0
    for seed in range(6):
        judge = MockLLMProvider(seed=seed, noise="gumbel", noise_stddev=SD, score=_value)
        items = [str(i) for i in range(0, 120, 2)]
        result = QualitativeSorter(judge, criteria="larger", seed=seed, elimination_count=4,
                                   checkpointer=None)
        result = asyncio.run(result.sort(items))
        truth = np.array([_value(t) / BETA for t in items])
        truth -= truth.mean()
        for item, true in zip(items, truth, strict=True):
            low, high = result.intervals[item]
            covered += low <= true <= high
            total += 1
    assert 0.80 <= covered / total <= 0.995, covered / total


def test_the_default_path_fits_nothing() -> None:
    result = _sort(MockLLMProvider(seed=1), ITEMS[:50])
    rating = result.__dict__["_rating"]
    assert rating._cheap is None and rating._full is None
    assert result.statistics.position_bias is not None  # from the AB/BA pairs alone
    assert result.scores and rating._cheap is not None and rating._full is None
