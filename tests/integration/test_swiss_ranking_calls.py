"""Swiss with ranking calls (`group_size` 3–8): one call per group, stored, counted, resumed."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy.stats import kendalltau

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    MemoryCache,
    MockLLMProvider,
    PermanentProviderError,
    QualitativeSorter,
    RunStoppedError,
    SettingTypeError,
    Swiss,
)
from llm_qualitative_sort.providers.questions import RANK_LABELS
from llm_qualitative_sort.testing import FunctionProvider
from llm_qualitative_sort.verdicts import RankingResult

ITEMS = [str(i) for i in range(24)]


class Larger:
    """Orders numbers, largest first; fails for good after `budget` calls."""

    def __init__(self, budget: int = 10_000) -> None:
        self.budget, self.calls, self.shown = budget, 0, []

    def __call__(self, texts: tuple[str, ...], criteria: str) -> RankingResult:
        self.calls += 1
        self.shown.append(texts)
        if self.calls > self.budget:
            raise PermanentProviderError("out of credit")
        order = sorted(range(len(texts)), key=lambda slot: -int(texts[slot]))
        return RankingResult(tuple((RANK_LABELS[slot],) for slot in order), "larger first",
                             input_tokens=100, output_tokens=7)


def _sorter(judge: FunctionProvider, path: Path | None = None, **options: object
            ) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", seed=3,
                             strategy=Swiss(group_size=4, budget=30, **options),  # type: ignore[arg-type]
                             checkpointer=path, max_concurrent_requests=1)


async def test_each_group_is_one_ranking_call_counted_once() -> None:
    larger = Larger()
    result = await _sorter(FunctionProvider(rank=larger)).sort(ITEMS)
    stats = result.statistics
    # One call of the budget per group, its tokens once, no match at all.
    assert larger.calls == stats.total_api_calls == len(result.ranking_calls) == 30
    assert stats.input_tokens == 30 * 100 and stats.output_tokens == 30 * 7
    assert stats.total_matches == 0 and result.match_history == []
    assert all(len(call.items) == 4 for call in result.ranking_calls)
    first = result.ranking_calls[0]
    assert first.order == tuple((t,) for t in sorted(first.items, key=lambda t: -int(t)))
    # A perfect judge's orders, five calls per item, rank the items almost right.
    order = [int(t) for _, group in result.rankings for t in group]
    assert kendalltau(order, sorted(order, reverse=True)).statistic > 0.9


async def test_a_judge_that_cannot_rank_is_refused_before_any_call() -> None:
    asked = []
    judge = FunctionProvider(lambda a, b, c: asked.append((a, b)) or "A")
    with pytest.raises(SettingTypeError, match=r"group_size=4: FunctionProvider cannot answer"):
        _sorter(judge)
    assert asked == []


async def test_an_answer_that_is_no_order_is_a_call_without_a_verdict() -> None:
    calls = []

    def half_wrong(texts: tuple[str, ...], criteria: str) -> list[str] | None:
        calls.append(texts)
        if len(calls) % 2:
            return ["A", "A", "B", "C"]  # "A" twice and "D" missing: no order
        return list(RANK_LABELS[: len(texts)])

    result = await _sorter(FunctionProvider(rank=half_wrong)).sort(ITEMS)
    failed = [call for call in result.ranking_calls if call.order is None]
    assert len(failed) == result.statistics.failed_calls == 15
    assert "'A' is named twice" in str(failed[0].problem)
    assert result.statistics.total_api_calls == 30


async def test_ties_in_a_run_without_ties_are_no_order() -> None:
    result = await _sorter(FunctionProvider(
        rank=lambda texts, criteria: [["A", "B"], "C", "D"])).sort(ITEMS)
    assert all(call.order is None for call in result.ranking_calls)
    assert "does not allow ties" in str(result.ranking_calls[0].problem)


async def test_the_cache_keys_a_ranking_call_by_its_texts_in_the_order_shown() -> None:
    cache = MemoryCache()
    larger = Larger()
    judge = FunctionProvider(rank=larger, model="larger")
    first = await QualitativeSorter(judge, criteria="larger", seed=3, cache=cache,
                                    strategy=Swiss(group_size=4, budget=30),
                                    checkpointer=None).sort(ITEMS)
    assert len(cache) == 30 == larger.calls
    again = await QualitativeSorter(judge, criteria="larger", seed=3, cache=cache,
                                    strategy=Swiss(group_size=4, budget=30),
                                    checkpointer=None).sort(ITEMS)
    assert larger.calls == 30 and again.statistics.cache_hits == 30
    assert again.rankings == first.rankings
    # Another group size shows other lists: nothing is taken from the cache.
    other = await QualitativeSorter(judge, criteria="larger", seed=3, cache=cache,
                                    strategy=Swiss(group_size=3, budget=30),
                                    checkpointer=None).sort(ITEMS)
    assert other.statistics.cache_hits == 0


async def test_a_stopped_run_resumes_as_if_never_stopped(tmp_path: Path) -> None:
    whole = await _sorter(FunctionProvider(rank=Larger(), model="larger")).sort(ITEMS)
    path = tmp_path / "runs.sqlite3"
    stopped = Larger(budget=14)  # in the third round of six groups
    with pytest.raises(RunStoppedError):
        await _sorter(FunctionProvider(rank=stopped, model="larger"), path).sort(
            ITEMS, run_id="r")
    rest = Larger()
    resumed = await _sorter(FunctionProvider(rank=rest, model="larger"), path).resume("r")
    assert resumed.rankings == whole.rankings
    assert [c.items for c in resumed.ranking_calls] == [c.items for c in whole.ranking_calls]
    assert rest.calls == 30 - 14  # the journaled calls are not paid again
    assert stopped.shown[:14] == [c.items for c in whole.ranking_calls][:14]


async def test_the_mock_ranks_better_with_groups_of_four_at_equal_calls() -> None:
    items = [str(i) for i in range(120)]
    taus = {}
    for size in (2, 4):
        result = await QualitativeSorter(
            MockLLMProvider(seed=5), criteria="larger", seed=5, checkpointer=None,
            strategy=Swiss(group_size=size, budget=240)).sort(items)
        order = [int(t) for _, group in result.rankings for t in group]
        taus[size] = kendalltau(order, sorted(order, reverse=True)).statistic
        assert result.statistics.total_api_calls == 240
    assert taus[4] > taus[2] + 0.05


async def test_top_k_refinement_and_the_early_stop_work_with_groups() -> None:
    items = [str(i) for i in range(60)]
    result = await QualitativeSorter(
        MockLLMProvider(seed=2, noise_stddev=1.0), criteria="larger", seed=2, checkpointer=None,
        strategy=Swiss(group_size=4, budget=400, top_k=5, stop_when_settled=True)
    ).sort(items)
    top = [t for _, group in result.rankings for t in group][:5]
    assert sorted(top) == sorted(["59", "58", "57", "56", "55"])
    assert result.statistics.early_stop is not None
    assert result.statistics.total_api_calls < 400


async def test_progress_hears_each_ranking_call_and_each_round_of_them() -> None:
    heard = []
    await QualitativeSorter(FunctionProvider(rank=Larger()), criteria="larger", seed=3,
                            strategy=Swiss(group_size=4, budget=12), checkpointer=None,
                            on_progress=heard.append).sort(ITEMS)
    calls = [e for e in heard if e.type == "ranking_call"]
    assert len(calls) == 12 and calls[0].data["input_tokens"] == 100
    assert len(calls[0].data["order"]) == 4 and not calls[0].data["journaled"]
    # Each call counts one toward the progress total, which stays the run's 12.
    assert [e.completed for e in calls] == list(range(1, 13))
    assert {e.total for e in calls} == {12}
    assert [e.message for e in heard if e.type == "round_end"] == [
        "round 1: 6 ranking calls", "round 2: 6 ranking calls"]


def test_the_command_line_plays_ranking_calls_and_reports_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from llm_qualitative_sort.cli import main

    source = tmp_path / "texts.txt"
    source.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    report = tmp_path / "report.json"
    assert main(["sort", str(source), "--criteria", "larger", "--strategy", "swiss",
                 "--group-size", "4", "--budget", "18", "--checkpoint",
                 str(tmp_path / "runs.sqlite3"), "--progress", "none",
                 "--out", str(report)]) == 0
    assert "18 ranking calls in 3 rounds, 18 LLM calls" in capsys.readouterr().err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert len(data["ranking_calls"]) == 18 and data["settings"]["group_size"] == 4
    assert [s["slot"] for s in data["statistics"]["slot_bias"]] == [1, 2, 3, 4]


OWN_TEMPLATE = "---system---\nJudge.\n---user---\n{{ text_a }}\n{{ text_b }}\n"


@pytest.mark.parametrize("template", ["own", "builtin:ja"])
def test_a_run_of_ranking_calls_with_its_own_template_is_refused_before_any_call(
    template: str, tmp_path: Path
) -> None:
    from llm_qualitative_sort import PromptTemplate, PromptTemplateError

    path = tmp_path / "judge.prompt"
    path.write_text(OWN_TEMPLATE, encoding="utf-8")
    prompt = (PromptTemplate.from_file(path) if template == "own"
              else PromptTemplate.builtin("ja"))
    larger = Larger()
    with pytest.raises(PromptTemplateError, match=r"group_size=4: prompt template .* cannot "
                                                  "ask ranking calls"):
        QualitativeSorter(FunctionProvider(rank=larger), criteria="larger", prompt=prompt,
                          strategy=Swiss(group_size=4, budget=30), checkpointer=None)
    assert larger.calls == 0
    # The same template is taken by a pairwise Swiss run, and by the run with the default.
    QualitativeSorter(FunctionProvider(rank=larger), criteria="larger", prompt=prompt,
                      strategy=Swiss(budget=30), checkpointer=None)
    QualitativeSorter(FunctionProvider(rank=larger), criteria="larger",
                      prompt=PromptTemplate.builtin("en"),
                      strategy=Swiss(group_size=4, budget=30), checkpointer=None)


def test_studio_input_of_ranking_calls_with_its_own_template_is_refused() -> None:
    from llm_qualitative_sort import PromptTemplateError
    from llm_qualitative_sort.prompts._run import input_prompt

    state = {"items": ITEMS, "prompt": {"system": "Judge.", "user": "{{ text_a }} {{ text_b }}"}}
    assert input_prompt(state)["prompt"]["system"] == "Judge."
    with pytest.raises(PromptTemplateError, match="group_size=5: prompt template"):
        input_prompt(state, group_size=5)


def test_the_command_line_refuses_ranking_calls_with_its_own_template(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from llm_qualitative_sort.cli import EXIT_USAGE, main

    source = tmp_path / "texts.txt"
    source.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    (tmp_path / "judge.prompt").write_text(OWN_TEMPLATE, encoding="utf-8")
    code = main(["sort", str(source), "--criteria", "larger", "--strategy", "swiss",
                 "--group-size", "4", "--budget", "18", "--checkpoint",
                 str(tmp_path / "runs.sqlite3"), "--progress", "none",
                 "--prompt", str(tmp_path / "judge.prompt")])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE == 2, err
    assert "group_size=4: prompt template" in err and "judge.prompt" in err
    assert "cannot ask ranking calls" in err and "Traceback" not in err
    assert not (tmp_path / "runs.sqlite3").exists()  # nothing stored, nothing asked


@pytest.mark.parametrize("settings", [
    {"strategy": "swiss", "group_size": 3},
    {"strategy": "pointwise"},
    {"strategy": "swiss", "ties": True},
])
async def test_studio_input_a_judge_cannot_answer_is_refused_before_any_call(
    settings: dict[str, object],
) -> None:
    """Studio names the judge in the run's context: ranking calls, scores or ties it cannot
    answer are refused by the entry node, as the sorter refuses them when made."""
    from llm_qualitative_sort.graph import build_graph
    from llm_qualitative_sort.graph.context import TournamentContext

    asked: list[str] = []

    class Pairs(LLMProvider):  # compares two texts, no tie offered (earlier signature)
        async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
            raise AssertionError("no call may be made")

        async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                               repetition: int) -> ComparisonResult:
            asked.append(item_a)
            raise AssertionError("no call may be made")

    judge = Pairs(model="pairs")
    start = {"items": ITEMS, "criteria": "larger", "seed": 1, "settings": settings}
    with pytest.raises(SettingTypeError):
        await build_graph().ainvoke(start, context=TournamentContext(provider=judge))
    assert asked == []
