"""Batch options, the OpenAI output lines, batch prices and the progress display."""

from __future__ import annotations

import io
import json
import math
import re

import pytest

from llm_qualitative_sort import BatchOptions, OpenAIProvider, ProgressEvent
from llm_qualitative_sort.cli._progress import BarProgress, LineProgress, batch_text
from llm_qualitative_sort.models import EventType
from llm_qualitative_sort.providers._answer import ScoredAnswer
from llm_qualitative_sort.providers._batch import (
    BatchRequest,
    RequestFailure,
    batch_options,
)
from llm_qualitative_sort.providers._batch_google import GeminiBatchClient
from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient
from llm_qualitative_sort.providers.questions import Compare, Request, Score
from llm_qualitative_sort.rating.scoring import Scale, ScoreQuestion
from llm_qualitative_sort.results.from_state import match_from_log, statistics

KEY = "sk-unit-SECRET-0042"


@pytest.mark.parametrize(("options", "message"), [
    ({"poll_interval": 0}, "poll_interval must be > 0"),
    ({"max_poll_interval": float("inf")}, "max_poll_interval must be > 0"),
    ({"poll_backoff": 0.5}, "poll_backoff must be >= 1"),
    ({"discount": 1.0}, r"discount must be in \[0, 1\)"),
    ({"discount": -0.1}, r"discount must be in \[0, 1\)"),
])
def test_bad_options_are_refused(options, message) -> None:
    with pytest.raises(ValueError, match=message):
        BatchOptions(**options)


def test_batch_argument_takes_a_bool_or_options() -> None:
    assert batch_options(False) is None and batch_options(True) == BatchOptions()
    custom = BatchOptions(detach=True)
    assert batch_options(custom) is custom
    with pytest.raises(TypeError, match="batch must be a bool or BatchOptions"):
        batch_options("yes")  # type: ignore[arg-type]


def test_only_batch_mode_gives_a_batch_client_and_the_identity_is_unchanged() -> None:
    live = OpenAIProvider(api_key=KEY)
    batch = OpenAIProvider(api_key=KEY, batch=True)
    assert live.batch_client() is None
    client = batch.batch_client()
    assert isinstance(client, OpenAIBatchClient) and client.reasks == batch.reasks
    assert live.model_identity == batch.model_identity  # same answers: one cache


def client() -> OpenAIBatchClient:
    return OpenAIBatchClient(BatchOptions(), "gpt-5.1", KEY, "http://127.0.0.1:1/v1", 5.0)


# What the output lines below answered: a comparison (`ASKED`) or a score (`SCORED`).
ASKED = {"m3-c1": Request(Compare("x", "y"), "clarity"),
         "m0-c0": Request(Compare("x", "y"), "clarity")}


def output(content: str | None, refusal: str | None = None, status: int = 200) -> str:
    body = {"id": "chatcmpl-1", "model": "gpt-5.1",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content,
                                     "refusal": refusal}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 12}}
    return json.dumps({"id": "x", "custom_id": "m3-c1",
                       "response": {"status_code": status, "body": body}, "error": None})


def test_an_output_line_gives_the_verdict_tokens_and_batch() -> None:
    line = output(json.dumps({"reasoning": f"B is clearer ({KEY})", "winner": "B"}))
    request_id, answer = client()._outcome(line, "batch_9", ASKED)
    assert request_id == "m3-c1" and answer.verdict is not None
    assert answer.verdict.winner == "B" and KEY not in answer.verdict.reasoning
    assert (answer.input_tokens, answer.output_tokens) == (120, 12)
    assert answer.raw["batch"] == {"id": "batch_9", "request": "m3-c1"}
    assert KEY not in json.dumps(answer.raw)


@pytest.mark.parametrize(("line", "problem"), [
    (output("not json"), "the answer is not JSON"),
    (output(json.dumps({"winner": "C", "reasoning": "?"})), "does not match the verdict schema"),
    (output(None, refusal="I can't."), "the model refused: I can't."),
    (output(None), "no parsable verdict"),
    ('{"id": "x", "custom_id": "m3-c1", "response": {"status_code": 2', "not valid JSON"),
])
def test_an_output_line_without_verdict_is_an_answer_with_its_problem(line, problem) -> None:
    request_id, answer = client()._outcome(line, "b", ASKED)
    assert request_id == "m3-c1" and answer.verdict is None and problem in answer.problem


def test_a_line_naming_no_request_is_skipped() -> None:
    assert client()._outcome("garbage", "b", ASKED) is None
    assert client()._outcome(json.dumps({"response": {}}), "b", ASKED) is None


@pytest.mark.parametrize(("error", "status", "retry"), [
    ({"code": "batch_expired", "message": "expired"}, None, True),
    ({"code": "batch_cancelled", "message": "cancelled"}, None, True),
    (None, 500, True),
    (None, 429, True),
    (None, 400, False),
])
def test_error_lines_say_whether_a_later_batch_may_succeed(error, status, retry) -> None:
    response = None if status is None else {"status_code": status, "body": {
        "error": {"message": f"failed with {KEY}", "code": None}}}
    line = json.dumps({"custom_id": "m0-c0", "response": response, "error": error})
    _, failure = client()._outcome(line, "b", ASKED)
    assert isinstance(failure, RequestFailure) and failure.retry is retry
    assert KEY not in failure.reason


def log(batch: bool, cached: bool = False) -> list[object]:
    return ["AB", "A", "r", cached, 1000, 100, *(["batch"] if batch else [])]


def test_batch_calls_are_counted_and_priced_at_the_discount() -> None:
    match = match_from_log(["x", "y"], [0, 1, "A", [log(True), log(False), log(True, True)]], 1)
    assert [c.batch for c in match.rounds] == [True, False, True]
    stats = statistics([match], 1, 0.0, lambda i, o: i * 1e-3 + o * 1e-2, batch_discount=0.5)
    assert (stats.total_api_calls, stats.batch_calls, stats.cache_hits) == (2, 1, 1)
    assert stats.estimated_cost == pytest.approx(2.0 + 2.0 * 0.5)
    assert statistics([match], 1, 0.0, None).estimated_cost is None


def batch_event(state: str, answered: int | None) -> ProgressEvent:
    return ProgressEvent(EventType.BATCH, "m", answered or 0, 40, {
        "round": 2, "batch_id": "b7", "state": state, "requests": 40, "answered": answered})


def test_the_bar_shows_batches_in_its_postfix_and_lines_print_state_changes() -> None:
    assert batch_text(batch_event("in_progress", 10)) == "round 2: batch in_progress, 10/40 done"
    assert batch_text(batch_event("JOB_STATE_RUNNING", None)) == (
        "round 2: batch JOB_STATE_RUNNING, 40 requests")
    stream = io.StringIO()
    bar = BarProgress(stream, None)
    bar(ProgressEvent(EventType.MATCH_END, "m", 3, 30))
    bar(batch_event("in_progress", 10))
    assert (bar._bar.n, bar._bar.total) == (3, 30)  # the bar still counts matches
    assert "batch in_progress, 10/40 done" in stream.getvalue()
    bar.close()
    lines = io.StringIO()
    printer = LineProgress(lines, None)
    for state, answered in [("validating", 0), ("in_progress", 5), ("in_progress", 9),
                            ("completed", 40)]:
        printer(batch_event(state, answered))
    assert lines.getvalue().count("\n") == 3


QUESTION = ScoreQuestion(Scale.parse(None))


def scored(text: str, question: ScoreQuestion = QUESTION) -> BatchRequest:
    return BatchRequest("m2-c0", Request(Score(text, question.scale, question.inverse),
                                         "clarity"))


SCORED = {"m3-c1": scored("x").request}


def test_a_pointwise_line_shows_one_text_and_asks_for_a_label_of_the_scale() -> None:
    line = client()._line(scored("the only text"))
    body = line["body"]
    assert line["custom_id"] == "m2-c0" and body["logprobs"] is True
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "Score" and schema["strict"] is True
    assert schema["schema"]["properties"]["label"]["enum"] == [1, 2, 3, 4]
    system, user = (m["content"] for m in body["messages"])
    # No pair fence ("TEXT A <tag>"): the random tag itself may start with an A.
    assert "4: Excellent" in system and "the only text" in user
    assert not re.search(r"TEXT A [0-9A-F]{12}", user)
    inverse = scored("t", ScoreQuestion(QUESTION.scale, inverse=True))
    assert "how far" in client()._line(inverse)["body"]["messages"][0]["content"]


@pytest.mark.parametrize("request_", [
    BatchRequest("r", Request(Compare("first", "second"), "clarity")), scored("alone")])
def test_gemini_requests_carry_their_system_instruction_as_plain_text(request_) -> None:
    gemini = GeminiBatchClient(BatchOptions(), "gemini-3.0", KEY, "http://127.0.0.1:1",
                               "v1beta", 5.0)
    config = gemini._request(request_)["config"]
    # google-genai sends a str subclass (langchain's TextAccessor) as an empty instruction.
    assert type(config["system_instruction"]) is str and "judge" in config["system_instruction"]


def scored_line(content: str, logprobs: dict[str, float] | None = None) -> str:
    line = json.loads(output(content))
    if logprobs:
        head = content[:content.index('"label": ') + len('"label": ')]
        label = content[len(head):].rstrip("}")
        line["response"]["body"]["choices"][0]["logprobs"] = {"content": [
            {"token": head, "logprob": 0.0, "top_logprobs": []},
            {"token": label, "logprob": logprobs[label],
             "top_logprobs": [{"token": k, "logprob": z} for k, z in logprobs.items()]},
            {"token": "}", "logprob": 0.0, "top_logprobs": []}]}
    return json.dumps(line)


def test_a_pointwise_output_line_gives_the_label_and_its_distribution() -> None:
    scorer = client()
    z = {"2": math.log(0.2), "3": math.log(0.6), "4": math.log(0.2)}
    line = scored_line(json.dumps({"reason": f"clear ({KEY})", "label": 3}), z)
    request_id, answer = scorer._outcome(line, "batch_9", SCORED)
    assert request_id == "m3-c1" and isinstance(answer, ScoredAnswer)
    assert answer.answer is not None and answer.answer.label == 3
    assert answer.distribution == pytest.approx({2: 0.2, 3: 0.6, 4: 0.2})
    assert answer.raw["label_logprobs"]["3"] == pytest.approx(math.log(0.6))
    assert answer.raw["batch"] == {"id": "batch_9", "request": "m3-c1"}
    assert KEY not in answer.answer.reason and KEY not in json.dumps(answer.raw)


@pytest.mark.parametrize(("content", "problem"), [
    (json.dumps({"reason": "?", "label": 7}), "label 7 is not on the scale"),
    (json.dumps({"reasoning": "?", "winner": "A"}), "does not match the score schema"),
    ("not json", "the answer is not JSON"),
])
def test_a_pointwise_output_line_without_a_label_of_the_scale_has_its_problem(
    content, problem
) -> None:
    _, answer = client()._outcome(output(content), "b", SCORED)
    assert isinstance(answer, ScoredAnswer) and answer.answer is None
    assert problem in answer.problem and answer.distribution is None
