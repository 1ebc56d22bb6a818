"""A cache shared by runs that asked for log-probabilities and runs that did not.

An answer asked without log-probabilities has no probability to give: a run with soft
verdicts asks again for it, where a run with hard verdicts takes it as it is.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

from _fakes import FakeJudge
from _setup import make_provider

from llm_qualitative_sort import QualitativeSorter, Swiss
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.stores import cache as cache_module
from llm_qualitative_sort.stores.cache import FileCache


def _sorted(provider: object, items: list[str], tmp_path: Path, name: str,
            verdicts: str = "hard") -> SortResult:
    sorter = QualitativeSorter(provider, criteria="clarity",  # type: ignore[arg-type]
                               strategy=Swiss(budget=12, verdicts=verdicts), seed=1,
                               checkpointer=tmp_path / f"{name}.sqlite3",
                               cache=FileCache(tmp_path / "cache"))
    return asyncio.run(sorter.sort(items[:6]))


def _calls(result: SortResult) -> list:  # type: ignore[type-arg]
    return [call for match in result.match_history for call in match.rounds]


def test_a_soft_run_asks_again_for_answers_cached_without_logprobs(
    openai_judge: tuple[FakeJudge, str], items: list[str], tmp_path: Path
) -> None:
    judge, url = openai_judge
    judge.logprobs = {"A": math.log(0.7), "B": math.log(0.3)}
    hard = _sorted(make_provider("openai", url, logprobs=False), items, tmp_path, "hard")
    paid = len(judge.seen)
    assert paid == hard.statistics.total_api_calls > 0
    soft = _sorted(make_provider("openai", url), items, tmp_path, "soft", verdicts="soft")
    assert soft.statistics.cache_hits == 0 and len(judge.seen) == 2 * paid
    assert all(call.probability is not None for call in _calls(soft))
    # Both kinds of answer are kept: each run of either kind now takes them from the cache.
    again = _sorted(make_provider("openai", url), items, tmp_path, "again", verdicts="soft")
    assert again.statistics.total_api_calls == 0 and len(judge.seen) == 2 * paid
    assert all(call.probability is not None for call in _calls(again))
    hard_again = _sorted(make_provider("openai", url, logprobs=False), items, tmp_path, "h2")
    assert hard_again.statistics.total_api_calls == 0


def test_a_hard_run_asking_for_logprobs_takes_answers_cached_without_them(
    openai_judge: tuple[FakeJudge, str], items: list[str], tmp_path: Path
) -> None:
    judge, url = openai_judge
    _sorted(make_provider("openai", url, logprobs=False), items, tmp_path, "plain")
    paid = len(judge.seen)
    result = _sorted(make_provider("openai", url), items, tmp_path, "hard")
    assert result.statistics.total_api_calls == 0 and len(judge.seen) == paid


def test_answers_cached_before_the_split_are_read_where_they_are_right(
    openai_judge: tuple[FakeJudge, str], items: list[str], tmp_path: Path, monkeypatch
) -> None:
    # Earlier versions kept every answer under the plain key, asked with log-probabilities
    # or not: an empty mark writes as they did.
    judge, url = openai_judge
    judge.logprobs = {"A": math.log(0.7), "B": math.log(0.3)}
    monkeypatch.setattr(cache_module, "LOGPROBS_MARK", "")
    _sorted(make_provider("openai", url), items, tmp_path, "with", verdicts="soft")
    _sorted(make_provider("openai", url, logprobs=False), items[6:], tmp_path, "without")
    monkeypatch.undo()
    paid = len(judge.seen)
    kept = _sorted(make_provider("openai", url), items, tmp_path, "kept", verdicts="soft")
    assert kept.statistics.total_api_calls == 0 and len(judge.seen) == paid
    asked = _sorted(make_provider("openai", url), items[6:], tmp_path, "asked",
                    verdicts="soft")
    assert asked.statistics.cache_hits == 0 and asked.statistics.total_api_calls > 0
    assert all(call.probability is not None for call in _calls(asked))
