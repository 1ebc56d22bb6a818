"""Ranking calls through the real OpenAI, Gemini and LangChain clients, live and in batch.

A `Rank` request shows its texts labelled A, B, C… (fenced like a comparison's) and asks
for `{"reasoning", "order"}` through the structured-output ladder. An answer that is not an
order of exactly the labels shown gives `order=None` with the problem, never a guess; it is
asked again `reasks` times first. A run with its own comparison template asks no ranking
call: refused before any request.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from _batch_setup import batch_provider, batch_server
from _fakes import FENCE_LABELLED, FakeJudge, strings
from _setup import KEY, hidden_scores, make_items, make_provider

from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.prompts import PromptSetup, PromptTemplate, using_prompt
from llm_qualitative_sort.providers._answer import RankedAnswer
from llm_qualitative_sort.providers._batch import BatchRequest
from llm_qualitative_sort.providers.questions import Rank, Request
from llm_qualitative_sort.verdicts import RankingResult

TEXTS = ("Essay about rivers.", "Essay about mountains.", "Essay about deserts.",
         "Essay about forests.")
CRITERIA = "which essay argues better"
STRUCTURED = {"openai": ("json_schema", "function_calling", "json_mode"),
              "langchain": ("json_schema", "function_calling", "json_mode"),
              "google": ("json_schema", "function_calling")}


def expected(judge: FakeJudge, texts: tuple[str, ...] = TEXTS) -> tuple[tuple[str, ...], ...]:
    labels = "ABCDEFGH"[: len(texts)]
    best = sorted(labels, key=lambda label: -judge.scores[texts[labels.index(label)]])
    return tuple((label,) for label in best)


@pytest.fixture
def items() -> list[str]:
    return [*make_items(), *TEXTS]


def ask(kind: str, url: str, request: Request, **options: object) -> RankingResult:
    result = asyncio.run(make_provider(kind, url, **options).answer(request))
    assert isinstance(result, RankingResult)
    return result


def test_a_ranking_call_is_asked_with_its_schema_and_read_as_an_order(served) -> None:
    kind, judge, url = served
    result = ask(kind, url, Request(Rank(TEXTS), CRITERIA))
    assert result.order == expected(judge)
    assert result.reasoning.endswith("meets the criterion best.")
    assert (result.input_tokens, result.output_tokens) == (100, 10)
    assert judge.methods() == ["json_schema"]
    prompt = "\n".join(strings(judge.seen[0].body))
    shown = FENCE_LABELLED.findall(prompt)
    assert [(label, text) for label, _, text in shown] == list(zip("ABCD", TEXTS, strict=True))
    assert len({tag for _, tag, _ in shown}) == 1 and KEY not in json.dumps(result.raw_response)
    assert '"order"' in prompt and "exactly once" in prompt


def test_with_ties_a_place_may_hold_several_labels(served) -> None:
    kind, judge, url = served
    judge.rank_order = [["B", "D"], "A", "C"]
    tied = ask(kind, url, Request(Rank(TEXTS), CRITERIA, ties=True))
    assert tied.order == (("B", "D"), ("A",), ("C",))
    forced = ask(kind, url, Request(Rank(TEXTS), CRITERIA), reasks=0)
    assert forced.order is None
    assert "does not allow ties" in forced.raw_response["problem"]


def test_a_server_refusing_structured_output_is_asked_for_plain_text(served) -> None:
    kind, judge, url = served
    judge.reject = set(STRUCTURED[kind])
    result = ask(kind, url, Request(Rank(TEXTS), CRITERIA))
    assert result.order == expected(judge)
    assert judge.methods() == [*STRUCTURED[kind], "text"]
    assert [r["method"] for r in result.raw_response["rejected"]] == list(STRUCTURED[kind])


@pytest.mark.parametrize(("order", "problem"), [
    (["A", "B", "C"], "'D' is missing"),
    (["A", "B", "B", "C", "D"], "'B' is named twice"),
    (["A", "B", "C", "E"], "'E' was not shown"),
    ("A, B, C, D", "does not match the ranking schema"),
])
def test_an_answer_that_is_not_an_order_of_the_labels_shown_gives_none(
    served, order, problem
) -> None:
    kind, judge, url = served
    judge.rank_order = order
    result = ask(kind, url, Request(Rank(TEXTS), CRITERIA), reasks=1)
    assert result.order is None
    assert problem in result.raw_response["problem"]
    assert result.reasoning.startswith("no usable order after 2 answer(s)")
    assert len(judge.seen) == 2 and result.input_tokens == 200


def test_an_answer_that_is_not_json_gives_none(openai_judge) -> None:
    judge, url = openai_judge
    judge.reject = set(STRUCTURED["openai"])
    judge.always = "malformed"  # an answer cut short: '{"reasoning": "A is better because'
    result = ask("openai", url, Request(Rank(TEXTS), CRITERIA), reasks=0)
    assert result.order is None
    assert result.raw_response["problem"] == "the answer is not a JSON order"


def test_a_run_with_its_own_comparison_template_asks_no_ranking_call(served) -> None:
    kind, judge, url = served
    template = PromptTemplate(system="Judge.", user=(
        "{{ criteria }} <<<BEGIN TEXT A {{ tag }}>>>\n{{ item_a }}\n<<<END TEXT A {{ tag }}>>> "
        "<<<BEGIN TEXT B {{ tag }}>>>\n{{ item_b }}\n<<<END TEXT B {{ tag }}>>>"))
    provider = make_provider(kind, url)

    async def asked() -> object:
        with using_prompt(PromptSetup(template)):
            return await provider.answer(Request(Rank(TEXTS), CRITERIA))

    with pytest.raises(PermanentProviderError, match="built-in ranking prompt"):
        asyncio.run(asked())
    assert judge.seen == []


@pytest.mark.parametrize("kind", ["openai", "google"])
@pytest.mark.parametrize("ties", [False, True])
async def test_a_batch_asks_ranking_calls_and_reads_their_orders(kind, ties) -> None:
    texts = make_items(8)
    scores = hidden_scores(texts)
    rank_a, rank_b = Rank(tuple(texts[:4])), Rank(tuple(texts[3:8]))
    requests = [BatchRequest("m0-c0", Request(rank_a, CRITERIA, ties=ties)),
                BatchRequest("m1-c0", Request(rank_b, CRITERIA, ties=ties))]
    with batch_server(kind, scores) as (fake, url):
        client = batch_provider(kind, url).batch_client()
        assert client is not None
        batch_id = await client.submit(requests, "lqs-r1-b1-rank")
        deadline = time.monotonic() + 10
        while (await client.status(batch_id)).phase != "ended":
            assert time.monotonic() < deadline
        asked = {r.request_id: r.request for r in requests}
        outcomes = await client.results(batch_id, list(asked), asked)
    judge = FakeJudge(scores, KEY, "m")
    for request in requests:
        answer = outcomes[request.request_id]
        assert isinstance(answer, RankedAnswer) and answer.problem == ""
        question = request.request.question
        assert isinstance(question, Rank)
        assert answer.order == expected(judge, question.texts)
        assert answer.raw["batch"] == {"id": batch_id, "request": request.request_id}
    sent = [r.body for b in fake.batches.values() for r in b.requests]
    schemas = [json.dumps(body) for body in sent]
    assert all('"Ranking"' in s or '"order"' in s for s in schemas)
    assert all(('"anyOf"' in s) is ties for s in schemas)


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_batch_answer_that_is_not_an_order_gives_none(kind) -> None:
    texts = tuple(make_items(4))
    request = BatchRequest("m0-c0", Request(Rank(texts), CRITERIA))
    with batch_server(kind, hidden_scores(list(texts)), rank_order=["A", "A", "B", "C"]) as (
            _, url):
        client = batch_provider(kind, url).batch_client()
        assert client is not None
        batch_id = await client.submit([request], "lqs-r1-b1-bad")
        while (await client.status(batch_id)).phase != "ended":
            pass
        outcomes = await client.results(batch_id, ["m0-c0"], {"m0-c0": request.request})
    answer = outcomes["m0-c0"]
    assert isinstance(answer, RankedAnswer) and answer.order is None
    assert "'A' is named twice and 'D' is missing" in answer.problem
    assert answer.raw["problem"] == answer.problem
