"""`calibrate`: judges × prompts asked the labelled pairs through ordinary runs, compared."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    InputError,
    MemoryCache,
    MockLLMProvider,
    PermanentProviderError,
    Pointwise,
    PromptTemplate,
    PromptTemplateError,
    RunStoppedError,
    calibrate,
)
from llm_qualitative_sort.judge_choice import choice_html, choice_json, text_table
from llm_qualitative_sort.rating.scale import Scale
from llm_qualitative_sort.testing import FunctionProvider

ITEMS = [str(n) for n in range(3, 400, 7)]  # 57 numbers; people prefer the larger


def _verdicts(count: int = 40, seed: int = 1) -> list[tuple[int, int, str]]:
    rng = random.Random(seed)
    pairs: list[tuple[int, int, str]] = []
    while len(pairs) < count:
        a, b = rng.sample(range(len(ITEMS)), 2)
        if all({a, b} != {x, y} for x, y, _ in pairs):
            pairs.append((a, b, "A" if int(ITEMS[a]) > int(ITEMS[b]) else "B"))
    return pairs


HUMAN = {"verdicts": _verdicts()}


class Counting:
    """Compare functions that count their calls by judge."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def judge(self, name: str, answer: str = "larger") -> FunctionProvider:
        def compare(a: str, b: str, criteria: str) -> str | None:
            self.calls[name] += 1
            if answer == "first":
                return "A"
            if answer == "none":
                return None
            return "A" if int(a) > int(b) else "B"

        return FunctionProvider(compare, model=name)


async def test_a_good_judge_is_recommended_over_one_that_follows_the_position() -> None:
    judges = {"mock": MockLLMProvider(seed=1),
              "first-shown": FunctionProvider(lambda a, b, c: "A", model="first")}
    found = await calibrate(ITEMS, HUMAN, judges=judges, criteria="larger", checkpointer=None,
                            draws=300)
    best, biased = found.trials
    assert found.recommended is best and best.judge == "mock" and not found.unsettled
    assert best.agreement.kappa.value is not None and best.agreement.kappa.value > 0.9
    assert biased.first_shown is not None and biased.first_shown.value == 1.0
    assert best.first_shown is not None and 0.4 < (best.first_shown.value or 0) < 0.6
    assert biased.agreement.kappa.value == pytest.approx(0.0)
    # Every labelled pair once in each order: two calls per pair.
    assert best.calls == biased.calls == 2 * len(HUMAN["verdicts"])
    assert found.pairs == found.verdicts == len(HUMAN["verdicts"]) and found.strategy == "pairwise"


async def test_two_judges_the_labels_cannot_tell_apart_are_said_to_be_unsettled() -> None:
    judges = {"one": MockLLMProvider(seed=1, noise_stddev=60),
              "two": MockLLMProvider(seed=2, noise_stddev=60)}
    found = await calibrate(ITEMS, {"verdicts": _verdicts(12)}, judges=judges,
                            criteria="larger", checkpointer=None, draws=300)
    assert found.recommended is found.trials[0]
    assert found.unsettled == (found.trials[1],)
    assert "not settled: its κ interval overlaps" in text_table(found)


async def test_a_second_calibration_with_one_more_judge_calls_only_that_judge(
        tmp_path: Path) -> None:
    counting = Counting()
    store = str(tmp_path / "runs.sqlite3")
    first = [counting.judge("one"), counting.judge("two")]
    await calibrate(ITEMS, HUMAN, judges=first, criteria="larger", checkpointer=store,
                    draws=50)
    assert counting.calls == {"one": 80, "two": 80}
    again = await calibrate(ITEMS, HUMAN, judges=[*first, counting.judge("three")],
                            criteria="larger", checkpointer=store, draws=50)
    assert counting.calls == {"one": 80, "two": 80, "three": 80}
    # Equal figures keep the judges' order.
    assert [t.judge for t in again.trials] == ["FunctionProvider:one", "FunctionProvider:two",
                                               "FunctionProvider:three"]


async def test_the_cache_alone_spares_calls_already_answered() -> None:
    counting = Counting()
    cache = MemoryCache()
    await calibrate(ITEMS, HUMAN, judges=[counting.judge("one")], criteria="larger",
                    cache=cache, checkpointer=None, draws=50)
    found = await calibrate(ITEMS, HUMAN, judges=[counting.judge("one"), counting.judge("two")],
                            criteria="larger", cache=cache, checkpointer=None, draws=50)
    assert counting.calls == {"one": 80, "two": 80}
    by_judge = {t.judge: t for t in found.trials}
    assert by_judge["FunctionProvider:one"].paid_calls == 0
    assert by_judge["FunctionProvider:one"].calls == 80


async def test_calls_without_a_verdict_count_for_nothing_but_are_shown() -> None:
    counting = Counting()
    found = await calibrate(ITEMS, HUMAN, judges=[counting.judge("mute", "none")],
                            criteria="larger", checkpointer=None, draws=50)
    (trial,) = found.trials
    assert trial.agreement.compared == 0 and trial.agreement.no_verdict == 80
    assert trial.agreement.kappa.value is None and trial.first_shown is None
    assert found.recommended is None
    assert "no recommendation" in text_table(found)


async def test_each_prompt_is_a_row_of_its_own() -> None:
    short = PromptTemplate(system="Judge.", user="{{ criteria }}\n{{ text_a }}\n{{ text_b }}",
                           name="short")
    found = await calibrate(ITEMS, HUMAN, judges=[MockLLMProvider(seed=1)],
                            prompts=[None, short], criteria="larger", checkpointer=None,
                            draws=50)
    assert sorted(t.prompt for t in found.trials) == ["default", "short"]
    assert len({t.run_id for t in found.trials}) == 2


async def test_pointwise_judges_score_each_labelled_text_once() -> None:
    scored: list[str] = []

    def score(text: str, criteria: str, scale: Scale) -> int:
        scored.append(text)
        return 1 + min(int(text) // 100, 3)

    found = await calibrate(ITEMS, HUMAN, judges=[FunctionProvider(score=score, model="s")],
                            criteria="larger", strategy="pointwise", checkpointer=None,
                            draws=50)
    (trial,) = found.trials
    labelled = {ITEMS[i] for a, b, _ in HUMAN["verdicts"] for i in (a, b)}
    assert sorted(scored) == sorted(labelled) and trial.calls == len(labelled)
    assert found.strategy == "pointwise" and trial.first_shown is None
    # Equal labels tie, which people never gave: agreement below 1, κ above chance.
    assert trial.agreement.compared == len(HUMAN["verdicts"])
    assert 0.3 < (trial.agreement.kappa.value or 0) < 1
    assert trial.length is not None and (trial.length.value or 0) > 0


async def test_bad_input_is_refused_before_any_call() -> None:
    counting = Counting()
    judges = [counting.judge("one"), counting.judge("two")]
    with pytest.raises(InputError, match=r"human labels, verdict 1 .*item index 99 is out of"):
        await calibrate(ITEMS, {"verdicts": [(0, 99, "A")]}, judges=judges, criteria="c",
                        checkpointer=None)
    with pytest.raises(InputError, match="strategy must be 'pairwise', 'pointwise'"):
        await calibrate(ITEMS, HUMAN, judges=judges, criteria="c", strategy="swiss",
                        checkpointer=None)
    with pytest.raises(InputError, match="two judges are named 'FunctionProvider:one'"):
        await calibrate(ITEMS, HUMAN, judges=[judges[0], counting.judge("one")], criteria="c",
                        checkpointer=None)
    broken = PromptTemplate(system="s", user="{{ text_a }} {{ text_b }} {{ nothing.there }}",
                            name="broken")
    with pytest.raises(PromptTemplateError):
        await calibrate(ITEMS, HUMAN, judges=judges, prompts=[None, broken], criteria="c",
                        checkpointer=None)
    assert not counting.calls


async def test_labels_from_a_file_name_items_by_id(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps({"a": f"n{a}", "b": f"n{b}", "winner": w})
                              for a, b, w in HUMAN["verdicts"]), encoding="utf-8")
    ids = [f"n{k}" for k in range(len(ITEMS))]
    found = await calibrate(ITEMS, path, ids=ids, judges=[MockLLMProvider(seed=1)],
                            criteria="larger", checkpointer=None, draws=50)
    assert found.verdicts == len(HUMAN["verdicts"])
    path.write_text('{"a": "n1", "b": "zz", "winner": "A"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"labels.jsonl', line 1: unknown item id 'zz'"):
        await calibrate(ITEMS, path, ids=ids, judges=[MockLLMProvider(seed=1)],
                        criteria="larger", checkpointer=None)


async def test_the_choice_writes_as_json_and_as_an_escaped_page_in_two_languages() -> None:
    judges = {"<b>mock</b>": MockLLMProvider(seed=1),
              "first": FunctionProvider(lambda a, b, c: ComparisonResult("A", "first"),
                                        model="first")}
    found = await calibrate(ITEMS, HUMAN, judges=judges, criteria="larger", checkpointer=None,
                            draws=50)
    data = json.loads(choice_json(found))
    assert data["recommended"] == {"judge": "<b>mock</b>", "prompt": "default"}
    assert [row["judge"] for row in data["trials"]] == ["<b>mock</b>", "first"]
    assert data["trials"][1]["first_shown"]["value"] == 1.0
    page = choice_html(found)
    assert "&lt;b&gt;mock&lt;/b&gt;" in page and "<b>mock</b>" not in page
    assert "<script" not in page and "Choosing a judge and a prompt" in page
    assert "審査モデルとプロンプトの選択" in choice_html(found, "ja")
    with pytest.raises(ValueError, match="lang must be one of 'en', 'ja'"):
        text_table(found, "fr")


async def test_pointwise_settings_choose_the_scale() -> None:
    found = await calibrate(ITEMS, HUMAN, judges=[FunctionProvider(
        score=lambda text, criteria, scale: 0 if int(text) < 200 else 5, model="s")],
        criteria="larger", strategy=Pointwise(scale="0-5"), checkpointer=None, draws=50)
    assert found.trials[0].agreement.compared == len(HUMAN["verdicts"])


async def test_a_mock_with_a_position_bias_shows_it_and_a_plain_mock_does_not() -> None:
    judges = {"leaning": MockLLMProvider(seed=1, position_bias=0.4),
              "plain": MockLLMProvider(seed=1)}
    found = await calibrate(ITEMS, {"verdicts": _verdicts(120)}, judges=judges,
                            criteria="larger", checkpointer=None, draws=500)
    by_judge = {t.judge: t for t in found.trials}
    leaning, plain = by_judge["leaning"].first_shown, by_judge["plain"].first_shown
    assert leaning is not None and plain is not None
    assert leaning.low is not None and leaning.low > 0.55  # 0.5 + 0.4 / 2 expected
    assert plain.low is not None and plain.high is not None and plain.low <= 0.5 <= plain.high
    assert found.recommended is by_judge["plain"]


def _padded() -> tuple[list[str], list[tuple[int, int, str]]]:
    """Numbers padded to random lengths; people prefer the larger number, whatever its length."""
    rng = random.Random(4)
    texts = [f"{n} " + "x" * rng.randrange(1, 300) for n in range(60)]
    verdicts = []
    for _ in range(150):
        a, b = rng.sample(range(60), 2)
        verdicts.append((a, b, "A" if a > b else "B"))
    return texts, verdicts


async def test_a_judge_that_prefers_longer_texts_shows_it_beside_the_people() -> None:
    texts, verdicts = _padded()
    judges = {"longer": FunctionProvider(lambda a, b, c: "A" if len(a) > len(b) else "B",
                                         model="longer"),
              "value": FunctionProvider(
                  lambda a, b, c: "A" if int(a.split()[0]) > int(b.split()[0]) else "B",
                  model="value")}
    found = await calibrate(texts, {"verdicts": verdicts}, judges=judges, criteria="larger",
                            checkpointer=None, draws=200)
    by_judge = {t.judge: t for t in found.trials}
    longer, value, people = by_judge["longer"].length, by_judge["value"].length, \
        found.people_length
    assert longer is not None and value is not None and people is not None
    assert longer.low is not None and people.high is not None and value.high is not None
    assert longer.low > 2 and longer.low > people.high and longer.low > value.high
    assert found.recommended is by_judge["value"]


async def test_a_stopped_calibration_goes_on_where_it_stopped(tmp_path: Path) -> None:
    store = str(tmp_path / "runs.sqlite3")
    asked: list[tuple[str, str]] = []
    broken = {"now": True}

    def compare(a: str, b: str, criteria: str) -> str:
        if broken["now"] and len(asked) >= 30:
            raise PermanentProviderError("the key was revoked")
        asked.append((a, b))
        return "A" if int(a) > int(b) else "B"

    judge = FunctionProvider(compare, model="flaky")
    with pytest.raises(RunStoppedError, match="the key was revoked"):
        await calibrate(ITEMS, HUMAN, judges=[judge], criteria="larger", checkpointer=store,
                        max_concurrent_requests=1, draws=50)
    broken["now"] = False
    found = await calibrate(ITEMS, HUMAN, judges=[judge], criteria="larger",
                            checkpointer=store, max_concurrent_requests=1, draws=50)
    assert len(asked) == len(set(asked)) == 80  # nothing asked twice
    assert found.trials[0].calls == 80 and found.trials[0].agreement.agreement == 1.0
