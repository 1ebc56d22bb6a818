"""Each kind of answer in its stored form: the cache's JSON, a journal row, an earlier carrier."""

from __future__ import annotations

import json

import pytest

from llm_qualitative_sort.errors import CacheError
from llm_qualitative_sort.rating.scoring import PointwiseResult
from llm_qualitative_sort.stores.answers import (
    answer_from_dict,
    answer_from_record,
    answer_to_dict,
    answer_to_record,
    kind_of,
    read_as,
    usable,
)
from llm_qualitative_sort.stores.entries import (
    POINTWISE_SHOWN,
    RANKING_SHOWN,
    CallPlace,
    decode,
    question_kind,
    record,
)
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult

ANSWERS = [
    ComparisonResult("B", "B cites more", {"id": 1}, 12, 3),
    ComparisonResult("A", "soft", {}, 1, 1, probability=0.75),
    ComparisonResult(None, "", {"problem": "not JSON"}, 5, 0),
    PointwiseResult(3, "mostly", {2: 0.25, 3: 0.75}, {"x": 1}, 9, 2),
    PointwiseResult(4, "plain label", None, {}, 9, 2),
    PointwiseResult(None, "no label", None, {"problem": "no label"}, 9, 2),
    RankingResult((("B",), ("A", "C")), "B best", {"order": "B, A=C"}, 20, 4),
    RankingResult(None, "garbled", {"problem": "'A' is named twice"}, 20, 4),
]
SHOWN = {"compare": "ab", "score": "a" + POINTWISE_SHOWN, "rank": "abc" + RANKING_SHOWN}


@pytest.mark.parametrize("answer", ANSWERS, ids=lambda a: f"{kind_of(a)}-{usable(a)}")
def test_every_answer_reads_back_from_the_cache_and_the_journal_as_itself(
    answer: ComparisonResult | PointwiseResult | RankingResult,
) -> None:
    assert answer_from_record(answer_to_record(answer), "cache") == answer
    place = CallPlace("run", 1, 0, 0, "a", "b", SHOWN[kind_of(answer)])
    row = json.loads(json.dumps(record(place, answer, True, {"judge": "j"})))
    assert decode(row, "journal") == (answer, True, {"judge": "j"})
    # The verdict column is None exactly when the call gave nothing usable (the listings
    # count failed calls by it).
    assert (row[3] is None) == (not usable(answer))


def test_a_comparison_is_stored_exactly_as_before() -> None:
    answer = ComparisonResult("A", "why", {"k": [1]}, 3, 4)
    assert answer_to_record(answer) == json.dumps(
        {"winner": "A", "reasoning": "why", "raw_response": {"k": [1]}, "input_tokens": 3,
         "output_tokens": 4}, ensure_ascii=False)
    place = CallPlace("run", 1, 2, 1, "a", "b", "ab")
    assert record(place, answer, False) == [2, 1, "ab", "A", "why", {"k": [1]}, 3, 4, False,
                                            None, None]


def test_scores_and_orders_name_their_kind_and_no_verdict() -> None:
    score = answer_to_dict(ANSWERS[3])
    assert score["score"] == {"label": 3, "distribution": [[2, 0.25], [3, 0.75]]}
    assert "winner" not in score and "winner" not in answer_to_dict(ANSWERS[6])
    assert answer_to_dict(ANSWERS[6])["rank"] == [["B"], ["A", "C"]]


def test_the_question_of_a_place_is_read_from_what_it_shows() -> None:
    assert [question_kind(shown) for shown in SHOWN.values()] == ["compare", "score", "rank"]


CARRIED_SCORE = ComparisonResult("A", "mostly", {"x": 1, "pointwise": {
    "label": 3, "distribution": [[2, 0.25], [3, 0.75]]}}, 9, 2)
CARRIED_ORDER = ComparisonResult("A", "B best", {"order": "B, A=C",
                                                 "ranking": [["B"], ["A", "C"]]}, 20, 4)


def test_an_earlier_carrier_is_read_as_the_answer_it_carried() -> None:
    assert read_as("score", CARRIED_SCORE) == ANSWERS[3]
    assert read_as("rank", CARRIED_ORDER) == ANSWERS[6]
    assert read_as("score", ComparisonResult(None, "no label", {"problem": "no label"}, 9, 2)
                   ) == ANSWERS[5]
    assert read_as("rank", ANSWERS[7]) is ANSWERS[7]  # not a carrier: as it is
    assert read_as("compare", CARRIED_ORDER) is CARRIED_ORDER


@pytest.mark.parametrize(("carrier", "kind", "answer"), [
    (CARRIED_SCORE, "score", ANSWERS[3]), (CARRIED_ORDER, "rank", ANSWERS[6]),
    (ComparisonResult(None, "garbled", {"problem": "'A' is named twice"}, 20, 4), "rank",
     ANSWERS[7]),
])
def test_an_earlier_journal_row_of_a_carrier_reads_back_as_its_answer(
    carrier: ComparisonResult, kind: str, answer: PointwiseResult | RankingResult,
) -> None:
    place = CallPlace("run", 1, 0, 0, "a", "", SHOWN[kind])
    row = json.loads(json.dumps(record(place, carrier, False)))  # as today's rows were
    assert decode(row, "journal")[0] == answer


def test_a_malformed_entry_names_its_source() -> None:
    with pytest.raises(CacheError, match="corrupt entry in here"):
        answer_from_dict({"rank": [["A"], 3], "reasoning": "", "raw_response": {},
                          "input_tokens": 0, "output_tokens": 0}, "here")
    with pytest.raises(CacheError, match="corrupt entry in here"):
        answer_from_record('{"score": {"label": 2}}', "here")


def test_a_providers_subclass_of_an_answer_is_stored_as_its_base() -> None:
    class Verdict(ComparisonResult):
        pass

    answer = Verdict("A", "why", {}, 1, 2)
    assert kind_of(answer) == "compare" and usable(answer)
    assert answer_from_record(answer_to_record(answer), "cache") == ComparisonResult(
        "A", "why", {}, 1, 2)
    place = CallPlace("run", 1, 0, 0, "a", "b", "ab")
    assert record(place, answer, False)[3:8] == ["A", "why", {}, 1, 2]
