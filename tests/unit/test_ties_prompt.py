"""The prompt, schema and answer checks with and without a tie on offer."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from llm_qualitative_sort.models import ComparisonResult, InvalidAnswerError, answer_problem
from llm_qualitative_sort.prompts._comparison import (
    build_messages,
    parse_text_verdict,
    verdict_schema,
)
from llm_qualitative_sort.providers._batch import BatchOptions, BatchRequest
from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient
from llm_qualitative_sort.providers.langchain import LangChainProvider
from llm_qualitative_sort.providers.questions import Compare, Request

# sha256 of [system text, user text with the fence tag as "TAG", schema] for
# build_messages("one", "two", "crit"), recorded on main before ties existed (8abcaf1).
FORCED_CHOICE = "3a2bf43c3ecf3bbe22c74c309685c184ee688ecb7a89003a37352b463b93c908"


def _digest(ties: bool) -> str:
    system, user = build_messages("one", "two", "crit", ties=ties)
    tag = re.findall(r"The fence tag is (\w+)\.", user.text)[-1]
    text = json.dumps([system.text, user.text.replace(tag, "TAG"), verdict_schema(ties)],
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def test_without_ties_the_prompt_and_schema_are_exactly_as_before() -> None:
    assert _digest(ties=False) == FORCED_CHOICE


def test_with_ties_the_prompt_and_schema_offer_a_tie() -> None:
    assert _digest(ties=True) != FORCED_CHOICE
    system, user = build_messages("one", "two", "crit", ties=True)
    assert '"tie"' in system.text and "You must choose A or B" not in system.text
    assert '"A", "B" or "tie"' in user.text
    assert verdict_schema(True)["properties"]["winner"]["enum"] == ["A", "B", "tie"]
    assert verdict_schema(False)["properties"]["winner"]["enum"] == ["A", "B"]


def test_a_text_answer_may_say_tie_only_when_offered() -> None:
    text = '{"reasoning": "equal", "winner": "tie"}'
    assert parse_text_verdict(text) is None
    verdict = parse_text_verdict(text, ties=True)
    assert verdict is not None and verdict.winner == "tie"


def test_a_comparison_result_may_say_tie_but_nothing_else_new() -> None:
    assert answer_problem(ComparisonResult("tie", "equal")) == ""
    with pytest.raises(InvalidAnswerError, match='"tie"'):
        ComparisonResult("TIE", "equal")  # type: ignore[arg-type]


def _chat(answer: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(answer)] * 4))


def test_a_langchain_judge_answers_tie_only_when_the_call_offers_one() -> None:
    answer = '{"reasoning": "equally good", "winner": "tie"}'
    offered = LangChainProvider(_chat(answer), model="fake", methods=["text"], reasks=0)
    result = asyncio.run(offered.compare_call("a", "b", "c", repetition=0, ties=True))
    assert result.winner == "tie"
    forced = LangChainProvider(_chat(answer), model="fake", methods=["text"], reasks=0)
    result = asyncio.run(forced.compare_call("a", "b", "c", repetition=0))
    assert result.winner is None and "not a JSON verdict" in result.raw_response["problem"]


def test_a_batch_offers_a_tie_when_the_run_does() -> None:
    client = OpenAIBatchClient(BatchOptions(), "gpt-5.1", "sk-x", "http://127.0.0.1:1/v1", 5.0)
    plain = Request(Compare("one", "two"), "crit")
    with_ties = Request(Compare("one", "two"), "crit", ties=True)
    forced = client._line(BatchRequest("m0-c0", plain))
    offered = client._line(BatchRequest("m0-c0", with_ties))
    schema = offered["body"]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["winner"]["enum"] == ["A", "B", "tie"]
    assert 'or "tie"' in offered["body"]["messages"][-1]["content"]
    assert "tie" not in json.dumps(forced["body"]["messages"])
    tie = json.dumps({"reasoning": "equal", "winner": "tie"})
    assert client.answer(with_ties, tie, {}, (1, 1)).verdict is not None
    refused = client.answer(plain, tie, {}, (1, 1))
    assert refused.verdict is None and "verdict schema" in refused.problem
