"""Pointwise scoring: the scale, the expected label, the inverse question, ranks and the mock."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from llm_qualitative_sort import (
    MockLLMProvider,
    PermanentProviderError,
    Pointwise,
    PointwiseResult,
    QualitativeSorter,
    RunStoppedError,
    Scale,
    SettingTypeError,
    Swiss,
)
from llm_qualitative_sort.rating.scoring import (
    call_score,
    expected_label,
    label_distribution,
)
from llm_qualitative_sort.stores.answers import answer_from_dict, answer_to_dict
from llm_qualitative_sort.tournament.pointwise import score_ranks

ITEMS = [str(n) for n in range(60)]


def test_the_scale_takes_a_range_labels_with_descriptions_or_the_default() -> None:
    assert Scale.parse("0-5").labels == (0, 1, 2, 3, 4, 5)
    assert Scale.parse({"2": "good", "1": "bad"}).entries == ((1, "bad"), (2, "good"))
    assert Scale.parse([[0, "no"], [1, "yes"]]).describe() == "0: no\n1: yes"
    default = Scale.parse(None)
    assert default.labels == (1, 2, 3, 4) and default.default
    assert "Excellent" in default.describe() and "Useless" in default.describe()
    assert "Very far" in default.worded(inverse=True).describe()
    for bad in ("4-1", "1-10", {1: "a", 3: "c"}, {1: "only"}, "x"):
        with pytest.raises(ValueError):
            Scale.parse(bad)


def test_the_expected_label_is_the_softmax_weighted_label() -> None:
    logprobs = {1: -3.0, 2: -1.5, 3: -0.4, 4: -2.0}
    weights = {k: math.exp(v) for k, v in logprobs.items()}
    total = sum(weights.values())
    want = sum(k * w / total for k, w in weights.items())
    assert expected_label(label_distribution(logprobs)) == pytest.approx(want, abs=1e-9)
    # Labels the server did not send count for nothing.
    assert expected_label(label_distribution({3: math.log(0.5), 4: math.log(0.5)})) == 3.5


def test_the_score_is_normalised_and_the_inverse_question_ranks_by_its_complement() -> None:
    scale = Scale.parse("1-4")
    assert call_score(2.5, scale, inverse=False) == pytest.approx(0.5)
    assert call_score(1.0, scale, inverse=False) == 0.0
    assert call_score(4.0, scale, inverse=True) == 0.0
    assert call_score(1.75, scale, inverse=True) == pytest.approx(1 - 0.25)


def test_equal_scores_share_a_rank_and_unscored_items_come_last() -> None:
    assert score_ranks([0.25, 0.75, 0.25, None, 0.75]) == [
        (1, [1, 4]), (3, [0, 2]), (5, [3])]


def test_an_answer_survives_the_form_the_journal_and_cache_keep() -> None:
    answer = PointwiseResult(3, "mostly there", {2: 0.25, 3: 0.75}, {"x": 1}, 5, 2)
    stored = answer_to_dict(answer)
    assert stored["score"]["label"] == 3 and stored["reasoning"] == "mostly there"
    assert answer_from_dict(stored, "cache") == answer
    missing = answer_to_dict(PointwiseResult(None, "no label"))
    assert missing["score"] is None
    read = answer_from_dict(missing, "cache")
    assert isinstance(read, PointwiseResult) and read.label is None


def _answers(judge: MockLLMProvider, inverse: bool = False) -> list[PointwiseResult]:
    judge.check_items(ITEMS)

    async def all_of_them() -> list[PointwiseResult]:
        return [await judge.score_call(t, "larger", scale=Scale.parse(None), inverse=inverse)
                for t in ITEMS]

    return asyncio.run(all_of_them())


def test_the_mock_scores_by_the_same_hidden_values_seeded() -> None:
    first = _answers(MockLLMProvider(seed=4, pointwise="calibrated"))
    assert first == _answers(MockLLMProvider(seed=4, pointwise="calibrated"))
    assert first != _answers(MockLLMProvider(seed=5, pointwise="calibrated"))
    low = [a.expected for a in first[:15]]
    high = [a.expected for a in first[-15:]]
    assert max(x for x in low if x is not None) < min(x for x in high if x is not None)
    # Without a mode: labels alone, as from a server that sends no log-probabilities.
    plain = _answers(MockLLMProvider(seed=4))
    assert all(a.distribution is None and a.label is not None for a in plain)
    assert [a.label for a in plain] == [a.label for a in first]


def test_the_mocks_modes_calibrated_overconfident_lenient() -> None:
    calibrated = _answers(MockLLMProvider(seed=2, pointwise="calibrated"))
    sure = _answers(MockLLMProvider(seed=2, pointwise="overconfident"))
    lenient = _answers(MockLLMProvider(seed=2, pointwise="lenient"))

    def peak(answers: list[PointwiseResult]) -> float:
        return sum(max((a.distribution or {0: 1.0}).values()) for a in answers) / len(answers)

    assert peak(sure) > peak(calibrated) + 0.05
    top = [sum(a.label == 4 for a in answers) for answers in (calibrated, lenient)]
    assert top[1] > len(ITEMS) / 2 > top[0]
    # The inverse question reads the same texts from the other end.
    inverse = _answers(MockLLMProvider(seed=2, pointwise="calibrated"), inverse=True)
    assert sum(a.label == 4 for a in inverse[:15]) > sum(a.label == 4 for a in inverse[-15:])


def test_the_mocks_pairwise_judge_is_unchanged_by_the_pointwise_options() -> None:
    plain, scoring = MockLLMProvider(seed=9), MockLLMProvider(seed=9, pointwise="lenient")
    assert plain.model_identity == "MockLLMProvider:seed=9:sd=3.33:bias=0.0:score=False"

    async def verdicts(judge: MockLLMProvider) -> list[object]:
        return [await judge.compare_call(a, b, "c", repetition=0)
                for a, b in zip(ITEMS, ITEMS[1:], strict=False)]

    assert asyncio.run(verdicts(plain)) == asyncio.run(verdicts(scoring))


def _sorter(judge: MockLLMProvider, path: Path | None = None, **settings: object
            ) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="larger", strategy=Pointwise(**settings), seed=1,
                             checkpointer=str(path) if path else None)


def test_a_pointwise_run_scores_every_item_once_per_repetition_in_one_round() -> None:
    judge = MockLLMProvider(seed=3, pointwise="calibrated")
    result = asyncio.run(_sorter(judge, repetitions=2).sort(ITEMS))
    assert judge.calls == 2 * len(ITEMS) == result.statistics.total_api_calls
    assert result.statistics.rounds == 1 and result.match_history == []
    best = result.rankings[0][1][0]
    assert int(best) >= 45
    scored = {s.item: s for s in result.pointwise}
    assert len(scored[best].calls) == 2 and all(c.reason for c in scored[best].calls)
    assert result.scores[best] == max(result.scores.values())
    assert sum(scored[best].distribution.values()) == pytest.approx(1.0)



def test_the_pointwise_scores_come_best_first_as_the_rankings_list_them() -> None:
    result = asyncio.run(_sorter(MockLLMProvider(seed=3, pointwise="calibrated"),
                                 repetitions=2).sort(ITEMS))
    ranked = [item for _, group in result.rankings for item in group]
    assert [s.item for s in result.pointwise] == ranked != sorted(ranked)
    means = [result.scores[s.item] for s in result.pointwise]
    assert means == sorted(means, reverse=True)

def test_repetitions_separate_items_that_one_label_leaves_tied() -> None:
    once = asyncio.run(_sorter(MockLLMProvider(seed=3)).sort(ITEMS))
    thrice = asyncio.run(_sorter(MockLLMProvider(seed=3), repetitions=3).sort(ITEMS))
    assert len(once.rankings) <= 4  # four labels, no probabilities: four ranks at most
    assert len(thrice.rankings) > len(once.rankings)


def test_the_inverse_question_ranks_by_its_complement() -> None:
    direct = asyncio.run(_sorter(MockLLMProvider(seed=3, pointwise="calibrated")).sort(ITEMS))
    inverse = asyncio.run(_sorter(MockLLMProvider(seed=3, pointwise="calibrated"),
                                  inverse=True).sort(ITEMS))
    top = {item for _, group in inverse.rankings[:10] for item in group}
    assert sum(int(item) >= 40 for item in top) >= 8
    # The calibrated mock reads the same perception from the other end: the labels are
    # reversed, and the complement puts the ranking back exactly.
    expected = {s.item: s.calls[0].expected for s in direct.pointwise}
    assert all(s.calls[0].expected == pytest.approx(5 - expected[s.item])  # type: ignore[operator]
               for s in inverse.pointwise)
    assert direct.rankings == inverse.rankings
    # A lenient judge crowds the direct question's top labels, not the inverse question's.
    lenient = [asyncio.run(_sorter(MockLLMProvider(seed=3, pointwise="lenient"),
                                   inverse=flag).sort(ITEMS)) for flag in (False, True)]
    assert lenient[0].rankings != lenient[1].rankings


def test_a_provider_without_score_call_is_refused_before_any_call() -> None:
    from llm_qualitative_sort import ComparisonResult, LLMProvider

    class PairsOnly(LLMProvider):
        async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
            return ComparisonResult("A", "")

    with pytest.raises(TypeError, match="no score_call"):
        QualitativeSorter(PairsOnly(), criteria="c", strategy="pointwise", checkpointer=None)


class _StopsAfter(MockLLMProvider):
    """The mock, failing for good once it has answered `limit` calls."""

    limit = 25

    async def score_call(self, text: str, criteria: str, *, scale: Scale, inverse: bool = False,
                         repetition: int = 0) -> PointwiseResult:
        if self.calls >= self.limit:
            raise PermanentProviderError("the key ran out")
        return await super().score_call(text, criteria, scale=scale, inverse=inverse,
                                        repetition=repetition)


def test_a_stopped_round_resumes_without_paying_twice(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    flaky = _StopsAfter(seed=3, pointwise="calibrated")
    with pytest.raises(RunStoppedError) as stopped:
        asyncio.run(_sorter(flaky, path, repetitions=2).sort(ITEMS, run_id="r"))
    assert stopped.value.run_id == "r"
    paid_before = flaky.calls
    assert 0 < paid_before < 2 * len(ITEMS)
    judge = MockLLMProvider(seed=3, pointwise="calibrated")
    resumed = asyncio.run(_sorter(judge, path, repetitions=2).resume("r"))
    assert judge.calls == 2 * len(ITEMS) - paid_before
    whole = asyncio.run(_sorter(MockLLMProvider(seed=3, pointwise="calibrated"),
                                repetitions=2).sort(ITEMS))
    assert resumed.rankings == whole.rankings
    assert resumed.statistics.total_api_calls == 2 * len(ITEMS)


@pytest.mark.parametrize(("options", "message"), [
    ({"ties": True}, r"^ties is not a setting of Pointwise; it belongs to "
                     r"strategy=Elimination\(ties=True\) or Swiss\(ties=True\)$"),
    ({"verdicts": "soft"}, r"^verdicts is not a setting of Pointwise; it belongs to "
                           r"strategy=Elimination\(verdicts='soft'\) or "
                           r"Swiss\(verdicts='soft'\)$"),
])
def test_options_of_comparisons_are_refused_for_a_run_that_compares_none(
        options: dict[str, object], message: str) -> None:
    with pytest.raises(SettingTypeError, match=message):
        Pointwise(repetitions=2, **options)  # type: ignore[arg-type]
    with pytest.raises(SettingTypeError, match="is a setting of Elimination and Swiss"):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", strategy="pointwise",
                          checkpointer=None, **options)  # type: ignore[arg-type]
    # The same options stay open to the strategies that compare, a pre-pass included.
    QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=None,
                      strategy=Swiss(prepass="pointwise", **options))  # type: ignore[arg-type]


def test_a_bad_scale_is_named_once() -> None:
    with pytest.raises(ValueError, match=r"^scale needs LOW < HIGH, got '4-1'$"):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="larger",
                          strategy=Pointwise(scale="4-1"), checkpointer=None)


def test_the_html_report_of_a_pointwise_run_counts_texts_not_matches() -> None:
    import re

    from llm_qualitative_sort.reports import to_html

    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               strategy=Pointwise(repetitions=2), checkpointer=None)
    result = asyncio.run(sorter.sort(ITEMS))
    for lang, first, dropped in ((None, "texts scored alone", ("total matches", "draws")),
                                 ("ja", "単独で採点したテキスト", ("対戦数", "引き分け"))):
        page = to_html(result, {"criteria": "larger", "strategy": "pointwise",
                                "repetitions": 2, "scale": "0-5"}, lang=lang)
        cards = re.findall(r'<div class="value">([^<]*)</div><div class="label">([^<]*)<',
                           page)
        assert cards[0] == (str(len(ITEMS)), first)
        assert cards[1][0] == str(2 * len(ITEMS))  # the calls
        assert not any(label in dropped for _, label in cards)
    assert "<b>繰り返し回数</b>" in page and "<b>尺度</b>" in page and "<b>scale</b>" not in page


def test_a_single_calls_interval_is_its_score_to_the_same_digits() -> None:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               strategy=Pointwise(scale="0-3"), checkpointer=None)
    result = asyncio.run(sorter.sort(ITEMS))
    assert any(0 < score < 1 for score in result.scores.values())  # thirds: 0.333333333
    assert all(result.intervals[item] == (result.scores[item],) * 2 for item in ITEMS)
