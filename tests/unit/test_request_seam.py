"""The built-in clients answer requests: live ones through `answer`, batch ones per request.

The LangChain, OpenAI and Gemini judges implement `answer(request)` and declare what they
answer; a batch reads each request's own question from its `Request` (no question or tie
setting on the shared client), and its record in the batch journal names that question, so
that a resumed run reads the answer as asked. Records written before they named it read as
their round's question.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    Error,
    GoogleProvider,
    LangChainProvider,
    LLMProvider,
    OpenAIProvider,
    QualitativeSorter,
    Swiss,
)
from llm_qualitative_sort._calls import Call, CallSettings
from llm_qualitative_sort._calls._batch_requests import (
    asked,
    call_request,
    job_request,
    recorded_request,
)
from llm_qualitative_sort.providers._batch import BatchClient, BatchOptions, BatchRequest
from llm_qualitative_sort.providers._batch_google import GeminiBatchClient
from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient
from llm_qualitative_sort.providers.questions import Compare, Rank, Request, Score
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale, ScoreQuestion
from llm_qualitative_sort.stores.batch_journal import (
    BatchJob,
    BatchJournal,
    JobRequest,
    requests_from,
    requests_text,
)
from llm_qualitative_sort.stores.entries import CallPlace
from llm_qualitative_sort.stores.journal import Journal
from llm_qualitative_sort.testing.mock import MockLLMProvider
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult

SCALE = Scale.parse(None)


def _fake(*answers: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(a) for a in answers]))


@pytest.mark.parametrize("judge", [
    OpenAIProvider(api_key="sk-x"), GoogleProvider(api_key="g-x"),
    LangChainProvider(_fake(), model="fake", methods=["text"]),
], ids=["openai", "google", "langchain"])
def test_the_built_in_clients_answer_requests_and_declare_every_question(judge) -> None:
    assert type(judge).answer is not LLMProvider.answer
    assert type(judge).answers is not LLMProvider.answers
    for ties in (False, True):
        assert judge.answers(Compare, ties=ties) and judge.answers(Rank, ties=ties)
    assert judge.answers(Score)


def test_a_langchain_judge_answers_each_request_as_its_question() -> None:
    tie = '{"reasoning": "alike", "winner": "tie"}'
    label = '{"reason": "fine", "label": 3}'
    order = '{"reasoning": "C best", "order": ["C", "A", "B"]}'
    judge = LangChainProvider(_fake(tie, tie, label, order), model="fake", methods=["text"],
                              reasks=0)

    async def answers() -> list[object]:
        return [await judge.answer(Request(Compare("a", "b"), "c", ties=True)),
                await judge.answer(Request(Compare("a", "b"), "c")),
                await judge.answer(Request(Score("a", SCALE), "c")),
                await judge.answer(Request(Rank(("a", "b", "c")), "c"))]

    offered, forced, scored, ranked = asyncio.run(answers())
    assert isinstance(offered, ComparisonResult) and offered.winner == "tie"
    assert isinstance(forced, ComparisonResult) and forced.winner is None
    assert isinstance(scored, PointwiseResult) and scored.label == 3
    assert isinstance(ranked, RankingResult) and ranked.order == (("C",), ("A",), ("B",))


def test_a_batch_client_keeps_no_round_wide_question() -> None:
    client = OpenAIBatchClient(BatchOptions(), "gpt-5.1", "sk-x", "http://127.0.0.1:1/v1", 5.0)
    assert not hasattr(client, "ties") and not hasattr(client, "question")
    assert not any(name in vars(BatchClient) for name in ("ties", "question"))


def _schema_names(line: dict) -> str:
    return line["body"]["response_format"]["json_schema"]["name"]


def test_one_batch_sends_each_request_with_its_own_question() -> None:
    openai = OpenAIBatchClient(BatchOptions(), "gpt-5.1", "sk-x", "http://127.0.0.1:1/v1", 5.0)
    gemini = GeminiBatchClient(BatchOptions(), "gemini-3.0", "k", "http://127.0.0.1:1",
                               "v1beta", 5.0)
    requests = [Request(Compare("x", "y"), "c"), Request(Compare("x", "y"), "c", ties=True),
                Request(Score("x", SCALE, inverse=True), "c"),
                Request(Rank(("x", "y", "z")), "c", ties=True)]
    lines = [openai._line(BatchRequest(f"r{i}", r)) for i, r in enumerate(requests)]
    assert [_schema_names(line) for line in lines] == ["Verdict", "Verdict", "Score", "Ranking"]
    winners = [line["body"]["response_format"]["json_schema"]["schema"]["properties"]
               ["winner"]["enum"] for line in lines[:2]]
    assert winners == [["A", "B"], ["A", "B", "tie"]]
    assert "how far" in lines[2]["body"]["messages"][0]["content"]
    assert "<<<BEGIN TEXT C" in lines[3]["body"]["messages"][1]["content"]
    schemas = [gemini._request(BatchRequest(f"r{i}", r))["config"]["response_json_schema"]
               for i, r in enumerate(requests)]
    assert [s["title"] for s in schemas] == ["Verdict", "Verdict", "Score", "Ranking"]


def test_a_batch_answer_is_read_as_its_request_asked() -> None:
    client = OpenAIBatchClient(BatchOptions(), "gpt-5.1", "sk-x", "http://127.0.0.1:1/v1", 5.0)
    tie = json.dumps({"reasoning": "alike", "winner": "tie"})
    assert client.answer(Request(Compare("x", "y"), "c", ties=True), tie, {}, (1, 1)).verdict
    assert client.answer(Request(Compare("x", "y"), "c"), tie, {}, (1, 1)).verdict is None
    order = json.dumps({"reasoning": "z first", "order": ["C", "A", "B"]})
    ranked = client.answer(Request(Rank(("x", "y", "z")), "c"), order, {}, (1, 1))
    assert ranked.order == (("C",), ("A",), ("B",))


CALL = Call(CallPlace("run", 2, 3, 1, "first", "second", "shown"), 0)


def _settings(**options) -> CallSettings:
    return CallSettings(provider=MockLLMProvider(seed=1), criteria="c", cache=None,
                        journal=None, retry=RetryPolicy(),  # type: ignore[arg-type]
                        max_concurrent_requests=1, **options)


def test_a_batch_record_names_the_question_of_its_request() -> None:
    ties = call_request(CALL, _settings(rules=Swiss(ties=True)))
    assert ties == Request(Compare("first", "second"), "c", 0, ties=True)
    assert job_request(CALL, ties) == JobRequest("m3-c1", 3, 1, "shown", "compare+ties")
    scored = call_request(CALL, _settings(question=ScoreQuestion(SCALE, inverse=True)))
    assert scored.question == Score("first", SCALE, inverse=True)
    assert asked(scored) == "score+inverse"
    assert asked(Request(Rank(("a", "b", "c")), "c")) == "rank"


def test_a_record_is_read_as_the_question_it_names_and_an_old_one_as_its_round() -> None:
    plain = _settings()
    old = JobRequest("m3-c1", 3, 1, "shown")
    assert recorded_request(old, CALL, plain) == call_request(CALL, plain)
    named = JobRequest("m3-c1", 3, 1, "shown", "compare+ties")
    with_ties = _settings(rules=Swiss(ties=True))
    assert recorded_request(named, CALL, plain) == call_request(CALL, with_ties)
    other = JobRequest("m3-c1", 3, 1, "shown", "score")
    assert recorded_request(other, CALL, plain) is None  # never read as a comparison


def test_old_batch_records_stay_readable(tmp_path) -> None:
    # A record as written before requests named their question: four fields a request.
    assert requests_from('[["m0-c0", 0, 0, "s00"]]') == [JobRequest("m0-c0", 0, 0, "s00")]
    named = [JobRequest("m0-c0", 0, 0, "s00", "compare+ties"), JobRequest("m0-c1", 0, 1, "s")]
    assert requests_from(requests_text(named)) == named
    journal = Journal(tmp_path / "runs.journal.sqlite3")
    store = BatchJournal(journal, "run", 1)
    store.save(BatchJob(1, "tag", "open", named, "b1"))
    store._conn.execute("UPDATE batch_jobs SET requests = ?",
                        ('[["m0-c0", 0, 0, "s00"], ["m0-c1", 0, 1, "s"]]',))
    assert [r.asked for r in store.jobs()[0].requests] == ["", ""]
    store.close()
    journal.close()


class _Orders(LLMProvider):
    """A provider written against the per-question methods only: no `answer` of its own."""

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        return ComparisonResult("A" if len(item_a) >= len(item_b) else "B", "longer")

    async def rank_call(self, texts, criteria, *, repetition, ties=False) -> RankingResult:
        labels = "ABCDEFGH"[: len(texts)]
        ranked = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        return RankingResult(tuple((labels[i],) for i in ranked), "longer first")


def test_a_provider_with_rank_call_answers_ranking_calls_through_the_default_answer() -> None:
    judge = _Orders(model="len")
    assert judge.answers(Rank) and judge.answers(Compare) and not judge.answers(Score)
    answer = asyncio.run(judge.answer(Request(Rank(("aa", "a", "aaa")), "longer", 0)))
    assert isinstance(answer, RankingResult) and answer.order == (("C",), ("A",), ("B",))
    sorter = QualitativeSorter(judge, criteria="longer", strategy=Swiss(group_size=3), seed=0,
                               checkpointer=None)
    result = asyncio.run(sorter.sort(["a" * n for n in range(1, 10)]))
    assert [group for _, group in result.rankings][:3] == [["a" * 9], ["a" * 8], ["a" * 7]]
    assert result.ranking_calls and all(call.order for call in result.ranking_calls)


def test_a_provider_without_rank_call_is_refused_ranking_calls_before_any_call() -> None:
    class Pairs(LLMProvider):
        async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
            raise AssertionError("no call may be made")

    assert not Pairs().answers(Rank)
    with pytest.raises(Error, match="cannot answer a ranking call"):
        QualitativeSorter(Pairs(), criteria="c", strategy=Swiss(group_size=3), checkpointer=None)
