"""Swiss's token budget through the sorter: real tokens, refusal before a call, resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_qualitative_sort import (
    InputError,
    MockLLMProvider,
    PermanentProviderError,
    QualitativeSorter,
    RunStoppedError,
    Swiss,
)
from llm_qualitative_sort.providers.questions import RANK_LABELS
from llm_qualitative_sort.testing import FunctionProvider
from llm_qualitative_sort.tournament import settings_from_state
from llm_qualitative_sort.tournament.swiss.tokens import calls_paid_for, estimates
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult

ITEMS = [str(i) for i in range(24)]


class Larger:
    """Prefers the larger number, reporting `tokens` a call; fails for good after `budget`."""

    def __init__(self, tokens: int = 320, budget: int = 10_000) -> None:
        self.tokens, self.budget, self.calls = tokens, budget, 0

    def _paid(self) -> None:
        self.calls += 1
        if self.calls > self.budget:
            raise PermanentProviderError("out of credit")

    def compare(self, a: str, b: str, criteria: str) -> ComparisonResult:
        self._paid()
        return ComparisonResult(winner="A" if int(a) > int(b) else "B", reasoning="",
                                input_tokens=self.tokens - 20, output_tokens=20)

    def rank(self, texts: tuple[str, ...], criteria: str) -> RankingResult:
        self._paid()
        order = sorted(range(len(texts)), key=lambda slot: -int(texts[slot]))
        return RankingResult(tuple((RANK_LABELS[slot],) for slot in order), "",
                             input_tokens=self.tokens - 20, output_tokens=20)

    def judge(self) -> FunctionProvider:
        return FunctionProvider(self.compare, rank=self.rank, model="larger")


def _sorter(judge: FunctionProvider, path: Path | None = None, **settings: object
            ) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", seed=3, checkpointer=path,
                             strategy=Swiss(**settings),  # type: ignore[arg-type]
                             max_concurrent_requests=1)


@pytest.mark.parametrize("group_size", [2, 4])
async def test_a_run_spends_its_reported_tokens_and_stops_before_going_past(
    group_size: int
) -> None:
    larger = Larger(tokens=320)
    result = await _sorter(larger.judge(), budget_tokens=9_600,
                           group_size=group_size).sort(ITEMS)
    stats = result.statistics
    assert stats.input_tokens + stats.output_tokens == 320 * larger.calls <= 9_600
    # Every call the tokens paid for, where the calls budget alone pays for 2·(2·24−1).
    assert larger.calls == 9_600 // 320 == 30


async def test_the_calls_budget_ends_a_run_it_reaches_first_as_without_tokens() -> None:
    capped = await _sorter(Larger().judge(), budget=20, budget_tokens=10**9).sort(ITEMS)
    plain = await _sorter(Larger().judge(), budget=20).sort(ITEMS)
    assert capped.rankings == plain.rankings
    assert [(m.item_a, m.item_b) for m in capped.match_history] == [
        (m.item_a, m.item_b) for m in plain.match_history]


@pytest.mark.parametrize(("settings", "words"), [
    ({"budget_tokens": 2_000}, "12 calls of about 453 tokens each"),
    ({"budget_tokens": 2_000, "group_size": 4}, "6 ranking calls of about 453 tokens each"),
])
async def test_a_budget_too_small_for_one_round_is_refused_before_any_call(
    settings: dict[str, int], words: str, tmp_path: Path
) -> None:
    larger = Larger()
    with pytest.raises(InputError, match="^budget_tokens must pay for one round") as refused:
        await _sorter(larger.judge(), tmp_path / "runs.sqlite3", **settings).sort(ITEMS)
    assert words in str(refused.value) and larger.calls == 0


async def test_a_stopped_run_resumes_as_if_never_stopped(tmp_path: Path) -> None:
    whole = await _sorter(Larger().judge(), budget_tokens=9_600, group_size=3).sort(ITEMS)
    path = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await _sorter(Larger(budget=11).judge(), path, budget_tokens=9_600,
                      group_size=3).sort(ITEMS, run_id="r")
    rest = Larger()
    resumed = await _sorter(rest.judge(), path, budget_tokens=9_600, group_size=3).resume("r")
    assert resumed.rankings == whole.rankings
    assert [c.items for c in resumed.ranking_calls] == [c.items for c in whole.ranking_calls]
    assert rest.calls == 30 - 11  # the journaled calls are not paid again


def test_a_run_stored_without_a_token_budget_reads_as_none() -> None:
    stored = {"settings": {"strategy": "swiss", "budget": 40, "top_k": 3}}
    assert settings_from_state(stored).budget_tokens is None  # type: ignore[attr-defined]
    assert Swiss(budget_tokens=5).stored()["budget_tokens"] == 5


@pytest.mark.parametrize(("group_size", "prepass"), [(2, "pointwise"), (4, None)])
async def test_a_judge_that_reports_no_tokens_is_counted_at_the_dry_runs_estimate(
    group_size: int, prepass: str | None
) -> None:
    texts = [f"{i} " + "x" * (100 + 37 * i) for i in range(30)]
    judge = MockLLMProvider(seed=2, score=lambda text: float(text.split()[0]),
                            pointwise="calibrated")
    swiss = Swiss(budget_tokens=40_000, group_size=group_size,
                  prepass=prepass)  # type: ignore[arg-type]
    sorter = QualitativeSorter(judge, criteria="larger", seed=2, checkpointer=None,
                               strategy=swiss)
    result = await sorter.sort(texts)
    paid = calls_paid_for(40_000, estimates(texts, "larger", group_size), len(texts),
                          group_size, prepass=prepass is not None)
    # The pre-pass's 30 texts at the estimate of one text, then the rounds' calls at theirs.
    assert judge.calls == result.statistics.total_api_calls == paid
