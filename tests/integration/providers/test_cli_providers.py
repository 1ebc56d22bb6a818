"""The command line with real clients against the fake OpenAI server: flags, cost, retries."""

from __future__ import annotations

import json

import pytest
from _fakes import FakeJudge
from _setup import KEY

from llm_qualitative_sort.cli import EXIT_OK, main

JUDGES = {
    "openai": ["--provider", "openai", "--model", "gpt-5.1"],
    "langchain": ["--provider", "langchain", "--chat-model", "langchain_openai:ChatOpenAI",
                  "--model", "gpt-5.1", "--chat-model-arg", "temperature=0"],
}


@pytest.mark.parametrize("judge_flags", list(JUDGES.values()), ids=list(JUDGES))
def test_the_cli_judges_with_a_real_client_and_shows_tokens_cost_and_retries(
        capsys, tmp_path, monkeypatch, openai_judge: tuple[FakeJudge, str], items,
        judge_flags) -> None:
    judge, url = openai_judge
    judge.script = ["429", "503"]  # rate-limited (Retry-After: 0), then a server error
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in items[:12]), "utf-8")
    db = tmp_path / "runs.db"
    code = main(["sort", str(source), "--field", "text", "--criteria", "the better essay",
                 *judge_flags, "--base-url", url, "--seed", "1", "--progress", "lines",
                 "--concurrency", "4", "--timeout", "30", "--requests-per-second", "500",
                 "--input-price-per-million", "1.5", "--output-price-per-million", "6",
                 "--checkpoint", str(db), "--out", str(tmp_path / "r.json")])
    out, err = capsys.readouterr()
    assert code == EXIT_OK, err
    assert "retrying (1 so far): " in err and "503" in err
    assert "for the rate limit" in err  # a 429 is a pause, not a retry
    assert "rate limit: 1 request answered 429" in err
    assert "tokens, cost 0.0" in err  # each round's line: calls, tokens and cost so far
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    stats = report["statistics"]
    calls = stats["total_api_calls"]
    assert stats["input_tokens"] == 100 * calls and stats["output_tokens"] == 10 * calls
    assert stats["estimated_cost"] == pytest.approx(calls * (100 * 1.5 + 10 * 6) / 1e6)
    assert f"cost {stats['estimated_cost']:.4f}" in err
    # The key reaches the server but never the stored run.
    assert all(seen.path == "/v1/chat/completions" for seen in judge.seen)
    assert KEY not in "".join(p.read_text("latin-1") for p in tmp_path.glob("runs*"))
