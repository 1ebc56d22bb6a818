"""The reports of a run checked against people open with the agreement; others say not."""

from __future__ import annotations

import csv
import io

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, SortResult
from llm_qualitative_sort.reports import from_json_dict, to_csv, to_html, to_json_dict

ITEMS = [str(v) for v in range(0, 60, 3)]
# Several verdicts against the mock's order (it prefers larger numbers): disagreements.
VERDICTS = [(0, 19, "A"), (1, 18, "A"), (2, 3, "B"), (4, 5, "tie"), (6, 16, "B")] * 2


async def _run(**options: object) -> SortResult:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=2,
                               checkpointer=None, **options)  # type: ignore[arg-type]
    return await sorter.sort(ITEMS, human=VERDICTS)


async def test_the_html_report_opens_with_the_sentence_and_lists_disagreements() -> None:
    result = await _run()
    found = result.agreement
    assert found is not None and found.disagreements
    page = to_html(result, {"criteria": "larger"})
    kappa = found.kappa
    assert kappa.value is not None and kappa.low is not None and kappa.high is not None
    sentence = (f"The judge agreed with {found.agreed} of {found.compared} human verdicts, "
                f"κ {kappa.value:.2f} (95 % CI {kappa.low:.2f}–{kappa.high:.2f}).")
    assert sentence in page
    # Before the statistics: the report opens with it.
    assert page.index(sentence) < page.index("Statistics")
    assert f"Where the judge disagreed with people ({len(found.disagreements)})" in page
    assert found.disagreements[0].reason in page
    assert "anchored by people" in page
    japanese = to_html(result, {"criteria": "larger"}, lang="ja")
    assert f"判定者は人の判定{found.compared}件のうち{found.agreed}件と一致しました" in japanese


async def test_a_report_without_labels_says_so_in_one_line() -> None:
    plain = await QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=2,
                                    checkpointer=None).sort(ITEMS)
    page = to_html(plain, {"criteria": "larger"})
    assert page.count("Not checked against people.") == 1
    assert "human" not in to_json_dict(plain) and to_json_dict(plain)["order"] == "judge"
    assert "human_kappa" not in to_csv(plain)


@pytest.mark.parametrize("ranking", [None, "judge"])
async def test_json_and_csv_carry_the_agreement_and_the_order(ranking: str | None) -> None:
    result = await _run(ranking=ranking)
    order = "anchored" if ranking is None else "judge"
    data = to_json_dict(result)
    assert data["order"] == order == result.order
    human = data["human"]
    assert human["labels"] == result.human
    assert result.agreement is not None
    assert human["agreement"]["compared"] == result.agreement.compared
    assert human["agreement"]["kappa"]["value"] == result.agreement.kappa.value
    assert len(human["agreement"]["disagreements"]) == len(result.agreement.disagreements)
    assert ("rank_intervals" in human) == (ranking is None)
    back = from_json_dict(data)
    assert back.order == order and back.human == result.human
    rows = list(csv.DictReader(io.StringIO(to_csv(result))))
    assert {row["order"] for row in rows} == {order}
    assert sum(int(r["human_disagreements"]) for r in rows) == 2 * len(
        result.agreement.disagreements)


async def test_the_anchored_result_reads_its_uncertainty_from_the_anchored_fit() -> None:
    result = await _run()
    order = [item for _, group in result.rankings for item in group]
    assert order == sorted(result.scores, key=lambda item: -result.scores[item])
    top = result.top_k_probability(3)
    assert sum(top.values()) == pytest.approx(3)
    assert max(top, key=lambda item: top[item]) == order[0]


async def test_peoples_length_preference_stands_beside_the_judges() -> None:
    # Texts of growing length; people prefer the longer of every pair they label.
    items = ["x" * (3 + 4 * i) for i in range(12)]
    verdicts = [(a, b, "A" if len(items[a]) > len(items[b]) else "B")
                for a in range(12) for b in range(a + 1, 12)] * 2
    sorter = QualitativeSorter(MockLLMProvider(seed=1, length_preference=0.3),
                               criteria="better", seed=2, checkpointer=None)
    result = await sorter.sort(items, human=verdicts)
    people, judge = result.people_length_preference, result.length_preference
    assert people is not None and people.low > 0  # people's own, from their verdicts
    assert judge is not None  # the judge's, from its own calls though the order is anchored
    page = to_html(result, {"criteria": "better"})
    assert "People, on the pairs they labelled: <b>+" in page
    assert page.index("favoured longer texts") < page.index("People, on the pairs")
    assert to_json_dict(result)["human"]["length_preference"]["beta"] == people.beta
    plain = await QualitativeSorter(MockLLMProvider(seed=1), criteria="better", seed=2,
                                    checkpointer=None).sort(items)
    assert plain.people_length_preference is None
    assert "People, on the pairs" not in to_html(plain, {"criteria": "better"})
