"""Reading an ended batch: final answers, re-asks, re-submissions, refusals."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from llm_qualitative_sort._calls._batch_outcomes import (
    answer_from_dict,
    answer_to_dict,
    collect,
)
from llm_qualitative_sort._calls.base import Call
from llm_qualitative_sort._calls.ranking import ranking_place
from llm_qualitative_sort.prompts._comparison import Verdict
from llm_qualitative_sort.prompts._score import ScoreAnswer
from llm_qualitative_sort.providers._answer import AskedAnswer, RankedAnswer, ScoredAnswer
from llm_qualitative_sort.providers._batch import RequestFailure
from llm_qualitative_sort.rating.scoring import PointwiseResult
from llm_qualitative_sort.stores.batch_journal import BatchJob, JobRequest
from llm_qualitative_sort.stores.entries import CallPlace
from llm_qualitative_sort.verdicts import RankingResult

N = 6
CALLS = [Call(CallPlace("run", 1, i // 2, i % 2, f"x{i}", f"y{i}", f"shown{i}"), 0)
         for i in range(N)]
INDEX = {(c.place.match, c.place.call): i for i, c in enumerate(CALLS)}
JOB = BatchJob(1, "t", "open",
               [JobRequest(f"r{i}", c.place.match, c.place.call, c.place.shown)
                for i, c in enumerate(CALLS)], "b1")


def verdict(winner: str = "A") -> AskedAnswer:
    return AskedAnswer(Verdict(reasoning="clearer", winner=winner), {"batch": {"id": "b1"}},
                       100, 10)


def no_verdict(problem: str = "not JSON") -> AskedAnswer:
    return AskedAnswer(None, {"batch": {"id": "b1"}, "problem": problem}, 100, 10, problem)


def test_each_kind_of_outcome_lands_in_its_place() -> None:
    outcomes = {"r0": verdict("B"), "r1": no_verdict(), "r2": RequestFailure("HTTP 500", True),
                "r3": RequestFailure("HTTP 400: bad", False)}  # r4, r5: missing
    done = collect(JOB, outcomes, INDEX, CALLS, set(range(N)), {}, reasks=1)
    assert [(i, r.winner) for i, r in done.final] == [(0, "B")]
    assert done.final[0][1].raw_response["batch"] == {"id": "b1"}
    assert list(done.kept) == [(0, 1)] and done.kept[(0, 1)]["shown"] == "shown1"
    assert done.failed == [(2, "HTTP 500"), (4, "the batch ended without answering it"),
                           (5, "the batch ended without answering it")]
    assert done.refused == [(3, "HTTP 400: bad")]


def test_a_second_answer_without_verdict_is_final_and_both_are_paid() -> None:
    kept = {(0, 1): [answer_to_dict(no_verdict("first"), "shown1")]}
    done = collect(JOB, {"r1": no_verdict("second")}, INDEX, CALLS, {1}, kept, reasks=1)
    [(index, result)] = done.final
    assert index == 1 and result.winner is None
    assert result.reasoning == "no usable verdict after 2 answer(s): second"
    assert (result.input_tokens, result.output_tokens) == (200, 20)
    assert result.raw_response["answers"] == 2


def test_a_verdict_after_a_reask_counts_the_tokens_of_both() -> None:
    kept = {(0, 1): [answer_to_dict(no_verdict(), "shown1")]}
    [(_, result)] = collect(JOB, {"r1": verdict()}, INDEX, CALLS, {1}, kept, reasks=1).final
    assert result.winner == "A" and result.input_tokens == 200


def test_answers_kept_for_other_texts_are_not_counted() -> None:
    kept = {(0, 1): [answer_to_dict(no_verdict(), "another pairing")]}
    done = collect(JOB, {"r1": no_verdict()}, INDEX, CALLS, {1}, kept, reasks=1)
    assert not done.final and list(done.kept) == [(0, 1)]


def test_calls_already_answered_or_shown_other_texts_are_left_alone() -> None:
    moved = BatchJob(2, "u", "open", [JobRequest("r0", 0, 0, "other texts")], "b2")
    assert collect(moved, {"r0": verdict()}, INDEX, CALLS, {0}, {}, 1).final == []
    assert collect(JOB, {"r0": verdict()}, INDEX, CALLS, set(), {}, 1).final == []


def test_without_reasks_the_first_answer_without_verdict_is_final() -> None:
    [(_, result)] = collect(JOB, {"r1": no_verdict()}, INDEX, CALLS, {1}, {}, reasks=0).final
    assert result.winner is None


def test_a_kept_answer_survives_its_round_trip() -> None:
    answer = no_verdict("cut short")
    again = answer_from_dict(answer_to_dict(answer, "s"))
    assert (again.verdict, again.raw, again.input_tokens, again.problem) == (
        None, answer.raw, 100, "cut short")


OUTCOME = st.one_of(
    st.none(),
    st.sampled_from([verdict(), no_verdict(), RequestFailure("x", True),
                     RequestFailure("y", False)]),
)


@given(st.lists(OUTCOME, min_size=N, max_size=N), st.sets(st.integers(0, N - 1)),
       st.integers(0, 2))
def test_every_unanswered_call_lands_in_exactly_one_place(outcomes, unanswered, reasks) -> None:
    by_id = {f"r{i}": o for i, o in enumerate(outcomes) if o is not None}
    done = collect(JOB, by_id, INDEX, CALLS, set(unanswered), {}, reasks)
    places = ([i for i, _ in done.final] + [INDEX[p] for p in done.kept]
              + [i for i, _ in done.failed] + [i for i, _ in done.refused])
    assert sorted(places) == sorted(unanswered)


def labelled(label: int = 3) -> ScoredAnswer:
    return ScoredAnswer(ScoreAnswer(reason="clear", label=label), {"batch": {"id": "b1"}},
                        100, 10, "", {3: 0.75, 4: 0.25})


def unlabelled(problem: str = "label 7 is not on the scale") -> ScoredAnswer:
    return ScoredAnswer(None, {"batch": {"id": "b1"}, "problem": problem}, 100, 10, problem)


def test_a_pointwise_answer_is_final_as_the_label_the_journal_keeps() -> None:
    done = collect(JOB, {"r0": labelled()}, INDEX, CALLS, {0}, {}, reasks=1)
    ((index, result),) = done.final
    assert isinstance(result, PointwiseResult)
    assert index == 0 and result.label == 3 and result.reason == "clear"
    assert result.distribution == {3: 0.75, 4: 0.25}
    assert result.expected == 3.25


def test_a_pointwise_answer_without_label_is_asked_again_then_a_failed_call() -> None:
    first = collect(JOB, {"r0": unlabelled()}, INDEX, CALLS, {0}, {}, reasks=1)
    assert not first.final and first.kept[(0, 0)]["pointwise"] is True
    kept = {(0, 0): [first.kept[(0, 0)]]}
    assert isinstance(answer_from_dict(kept[(0, 0)][0]), ScoredAnswer)
    second = collect(JOB, {"r0": unlabelled()}, INDEX, CALLS, {0}, kept, reasks=1)
    ((_, result),) = second.final
    assert isinstance(result, PointwiseResult)
    assert result.label is None and result.input_tokens == 200
    assert result.reason.startswith("no usable label after 2 answer(s): label 7")
    again = collect(JOB, {"r0": labelled(4)}, INDEX, CALLS, {0}, kept, reasks=1)
    relabelled = again.final[0][1]
    assert isinstance(relabelled, PointwiseResult) and relabelled.label == 4
    assert relabelled.input_tokens == 200  # the answer without a label was paid too


RANKED = [Call(ranking_place("run", 1, i, ["w", "x", "y", "z"]), 0) for i in range(2)]
RANKED_INDEX = {(c.place.match, c.place.call): i for i, c in enumerate(RANKED)}
RANKED_JOB = BatchJob(1, "t", "open", [JobRequest(f"r{i}", c.place.match, c.place.call,
                                                  c.place.shown, "rank")
                                       for i, c in enumerate(RANKED)], "b1")


def ordered(*order: str) -> RankedAnswer:
    return RankedAnswer(tuple((label,) for label in order), "C first",
                        {"batch": {"id": "b1"}}, 100, 10)


def unordered(problem: str = "'A' is named twice") -> RankedAnswer:
    return RankedAnswer(None, "", {"batch": {"id": "b1"}, "problem": problem}, 100, 10, problem)


def test_an_order_is_final_as_the_order_the_live_path_keeps() -> None:
    done = collect(RANKED_JOB, {"r0": ordered("C", "A", "D", "B")}, RANKED_INDEX, RANKED,
                   {0}, {}, reasks=1)
    ((index, result),) = done.final
    assert isinstance(result, RankingResult)
    assert index == 0 and result.reasoning == "C first"
    assert result.order == (("C",), ("A",), ("D",), ("B",))
    assert result.raw_response["batch"] == {"id": "b1"}


def test_an_answer_without_order_is_asked_again_then_a_call_without_verdict() -> None:
    first = collect(RANKED_JOB, {"r0": unordered()}, RANKED_INDEX, RANKED, {0}, {}, reasks=1)
    assert not first.final and first.kept[(0, 0)]["ranking"] is True
    kept = {(0, 0): [first.kept[(0, 0)]]}
    assert isinstance(answer_from_dict(kept[(0, 0)][0]), RankedAnswer)
    second = collect(RANKED_JOB, {"r0": unordered()}, RANKED_INDEX, RANKED, {0}, kept, 1)
    ((_, result),) = second.final
    assert isinstance(result, RankingResult)
    assert result.order is None and result.input_tokens == 200
    assert "'A' is named twice" in result.raw_response["problem"]
    again = collect(RANKED_JOB, {"r0": ordered("B", "A", "C", "D")}, RANKED_INDEX, RANKED,
                    {0}, kept, reasks=1)
    reordered = again.final[0][1]
    assert isinstance(reordered, RankingResult)
    assert reordered.order == (("B",), ("A",), ("C",), ("D",))
    assert reordered.input_tokens == 200


def test_tied_places_are_no_order_in_a_run_without_ties() -> None:
    tied = RankedAnswer((("A", "B"), ("C",), ("D",)), "A and B alike", {}, 100, 10)
    [(_, strict)] = collect(RANKED_JOB, {"r0": tied}, RANKED_INDEX, RANKED, {0}, {}, 0).final
    assert isinstance(strict, RankingResult) and strict.order is None
    [(_, kept)] = collect(RANKED_JOB, {"r0": tied}, RANKED_INDEX, RANKED, {0}, {}, 0,
                          ties=True).final
    assert isinstance(kept, RankingResult) and kept.order == (("A", "B"), ("C",), ("D",))


def test_an_answer_of_another_kind_than_the_call_asks_is_refused() -> None:
    done = collect(RANKED_JOB, {"r0": verdict()}, RANKED_INDEX, RANKED, {0}, {}, reasks=1)
    assert done.final == [] and done.refused[0][0] == 0
    plain = collect(JOB, {"r0": ordered("A", "B", "C")}, INDEX, CALLS, {0}, {}, reasks=1)
    assert plain.final == [] and plain.refused[0][0] == 0
