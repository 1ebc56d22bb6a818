"""`calibrate`: every judge × prompt asked the labelled pairs, and the figures that compare them.

Each judge × prompt is one ordinary run of the sorter over the labelled texts: pairwise,
the `labelled` strategy (exactly the labelled pairs, each in both presentation orders, one
round); pointwise, the `pointwise` strategy (each labelled text scored alone). So every
call goes through the run machinery — the cache, the journal, retries, rate pacing and
batch mode — and each run is stored under an id derived from what it asks (the criterion,
the judge, the prompt, the settings and the texts). A second calibration with the same
store finds the finished runs and calls no judge for them; with the same cache, no call
already answered is paid again. Adding a judge pays only for the new judge.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.judge_choice.figures import (
    Ranked,
    first_shown_share,
    length_logit,
    ordered,
    unsettled_with,
)
from llm_qualitative_sort.judge_choice.pairs import LabelledPairs, labelled_pairs, verdict
from llm_qualitative_sort.judge_choice.result import JudgeChoice, JudgeTrial
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.prompts.template import PromptTemplate
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.rating.covariates import length_feature
from llm_qualitative_sort.results.agreement import DRAWS, LEVEL, LabelledCall, judge_agreement
from llm_qualitative_sort.results.human import HumanLabels, check_human, read_human
from llm_qualitative_sort.running.arguments import DEFAULT_CHECKPOINTER, Checkpointer
from llm_qualitative_sort.running.setup import ProgressCallback
from llm_qualitative_sort.sorter import QualitativeSorter
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.tournament.labelled import Labelled
from llm_qualitative_sort.tournament.pointwise import Pointwise
from llm_qualitative_sort.tournament.settings import StrategySettings

DEFAULT_PROMPT = "default"


async def calibrate(
    items: Sequence[str],
    human: HumanLabels | Mapping[str, Any] | str | Path,
    *,
    judges: Sequence[LLMProvider] | Mapping[str, LLMProvider],
    criteria: str,
    prompts: Sequence[PromptTemplate | None] | Mapping[str, PromptTemplate | None] | None = None,
    strategy: str | Pointwise = "pairwise",
    ids: Sequence[Hashable] | None = None,
    ties: bool = False,
    cache: ComparisonCache | None = None,
    checkpointer: Checkpointer = DEFAULT_CHECKPOINTER,
    seed: int = 0,
    max_concurrent_requests: int = 10,
    on_progress: ProgressCallback | None = None,
    level: float = LEVEL,
    draws: int = DRAWS,
) -> JudgeChoice:
    """Ask every judge under every prompt the pairs people labelled, and compare them.

    Args:
        items: The texts (each once).
        human: The people's labels: a `HumanLabels`, the mapping `check_human` takes, or a
            CSV or JSONL file (`read_human`) naming items by `ids`.
        judges: The judges, named by their `model_identity`, or a mapping of name to judge.
        criteria: What "better" means, as for a run.
        prompts: The prompts to try (None in a list: the built-in prompt), named by their
            `name`, or a mapping of name to prompt. None: the built-in prompt only.
        strategy: "pairwise" (each labelled pair asked in both presentation orders) or
            "pointwise" (each labelled text scored alone; a pair's verdict is the higher
            score), or `Pointwise(...)` settings for the scale.
        ids: The items' ids, as the labels name them (default: for a file, "0", "1", …
            by position; for data, the indices).
        ties: Pairwise: let the judges answer that two texts are equally good.
        cache: Where answers are reused across runs and calibrations.
        checkpointer: Where the runs are stored, as for `QualitativeSorter`.
        seed: The runs' seed.
        max_concurrent_requests: Calls in flight at most, per run.
        on_progress: Called with every run's progress events.
        level: The intervals' coverage.
        draws: Bootstrap draws per interval.

    Returns:
        The rows best first and the recommended judge × prompt.

    Raises:
        InputError: Bad labels (naming the entry, or the file and line), no judge, two
            judges or prompts of one name, an unknown strategy, or any setting a run
            refuses; all before any call.
        RunStoppedError: A run stopped (a failed provider, say); calibrate again to go on
            where it stopped.

    Example:
        >>> import asyncio
        >>> from llm_qualitative_sort.testing import FunctionProvider
        >>> longer = FunctionProvider(lambda a, b, c: "A" if len(a) > len(b) else "B",
        ...                           model="longer")
        >>> found = asyncio.run(calibrate(
        ...     ["a", "bb", "ccc"], {"verdicts": [(2, 0, "A"), (1, 0, "A"), (1, 2, "B")]},
        ...     judges=[longer], criteria="longer", checkpointer=None, draws=100))
        >>> found.recommended.judge, found.recommended.agreement.agreement
        ('FunctionProvider:longer', 1.0)
    """
    texts = _texts(items)
    labels = _labels(human, texts, ids)
    asked = labelled_pairs(labels, texts)
    chosen = _strategy(strategy, asked, ties)
    subset = [texts[i] for i in asked.items]
    runs = []
    # Every sorter is made before any run starts, so that a refused judge, prompt or
    # setting stops the calibration before the first paid call.
    for judge_name, judge in _named_judges(judges).items():
        for prompt_name, prompt in _named_prompts(prompts).items():
            sorter = QualitativeSorter(judge, criteria=criteria, strategy=chosen, prompt=prompt,
                                       cache=cache, checkpointer=checkpointer, seed=seed,
                                       max_concurrent_requests=max_concurrent_requests,
                                       on_progress=on_progress)
            runs.append((judge_name, prompt_name, sorter,
                         _run_id(criteria, judge, prompt, chosen, subset)))
    lengths = length_feature(subset)
    trials = []
    for judge_name, prompt_name, sorter, run_id in runs:
        result = await sorter.sort(subset, run_id)
        trials.append(_trial(judge_name, prompt_name, result, asked, subset, lengths,
                             level, draws, seed))
    return _choice(trials, asked, chosen, lengths, level)


def _texts(items: Sequence[str]) -> list[str]:
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise SettingTypeError(f"items must be a sequence of texts, got {type(items).__name__}")
    texts = list(items)
    for k, text in enumerate(texts):
        if not isinstance(text, str):
            raise SettingTypeError(f"items[{k}] must be a str, got {type(text).__name__}")
    return texts


def _labels(human: HumanLabels | Mapping[str, Any] | str | Path, texts: list[str],
            ids: Sequence[Hashable] | None) -> HumanLabels:
    if isinstance(human, str | Path):
        return read_human(human, [str(i) for i in range(len(texts))] if ids is None else ids)
    return check_human(human, texts, ids)


def _strategy(strategy: str | Pointwise, asked: LabelledPairs, ties: bool) -> StrategySettings:
    if isinstance(strategy, Pointwise):
        chosen: StrategySettings = strategy
    elif strategy == "pointwise":
        chosen = Pointwise()
    elif strategy == "pairwise":
        chosen = Labelled(pairs=asked.pairs, ties=ties)
    else:
        raise InputError(f"strategy must be 'pairwise', 'pointwise' or Pointwise(...) "
                         f"settings, got {strategy!r}")
    if ties and isinstance(chosen, Pointwise):
        raise InputError("ties=True asks pairwise calls to allow a tie; a pointwise call "
                         "scores one text (two equal scores are a tie already)")
    return chosen


def _named_judges(judges: Sequence[LLMProvider] | Mapping[str, LLMProvider]
                  ) -> dict[str, LLMProvider]:
    if isinstance(judges, Mapping):
        named = dict(judges)
    else:
        named = {}
        for judge in judges:
            if not isinstance(judge, LLMProvider):
                raise SettingTypeError(f"judges must be LLMProviders, got {type(judge).__name__}")
            if judge.model_identity in named:
                raise InputError(f"judges: two judges are named {judge.model_identity!r}; "
                                 "give a mapping of distinct names to judges")
            named[judge.model_identity] = judge
    if not named:
        raise InputError("judges: give at least one judge")
    return named


def _named_prompts(prompts: Sequence[PromptTemplate | None] | Mapping[str, PromptTemplate | None]
                   | None) -> dict[str, PromptTemplate | None]:
    if prompts is None:
        return {DEFAULT_PROMPT: None}
    if isinstance(prompts, Mapping):
        named = dict(prompts)
    else:
        named = {}
        for prompt in prompts:
            name = DEFAULT_PROMPT if prompt is None else prompt.name
            if name in named:
                raise InputError(f"prompts: two prompts are named {name!r}; give a mapping "
                                 "of distinct names to prompts")
            named[name] = prompt
    if not named:
        raise InputError("prompts: give at least one prompt (None for the built-in one)")
    return named


def _run_id(criteria: str, judge: LLMProvider, prompt: PromptTemplate | None,
            settings: StrategySettings, texts: list[str]) -> str:
    asked = [criteria, judge.model_identity, prompt.digest if prompt else "",
             settings.stored(), hashlib.sha256("\0".join(texts).encode()).hexdigest()]
    digest = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()
    return f"calibrate-{digest[:20]}"


def _trial(judge: str, prompt: str, result: SortResult, asked: LabelledPairs,
           texts: list[str], lengths: np.ndarray, level: float, draws: int,
           seed: int) -> JudgeTrial:
    if result.pointwise:
        calls, first, gaps, won = _scored_calls(result, asked, texts, lengths)
        made = len(result.pointwise)
    else:
        calls, first, gaps, won = _compared_calls(result, asked, texts, lengths)
        made = sum(len(match.rounds) for match in result.match_history)
    stats = result.statistics
    paid = stats.total_api_calls
    tokens = (stats.input_tokens + stats.output_tokens) / paid if paid else None
    cost = stats.estimated_cost / paid if paid and stats.estimated_cost is not None else None
    return JudgeTrial(
        judge=judge, prompt=prompt,
        agreement=judge_agreement(calls, level=level, draws=draws, seed=seed),
        first_shown=first_shown_share(first, level=level, draws=draws, seed=seed)
        if not result.pointwise else None,
        length=length_logit(gaps, won, level=level), calls=made, paid_calls=paid,
        tokens_per_call=tokens, cost_per_call=cost, run_id=result.run_id)


_Calls = tuple[list[LabelledCall], list[tuple[object, bool]], list[float], list[bool]]


def _compared_calls(result: SortResult, asked: LabelledPairs, texts: list[str],
                    lengths: np.ndarray) -> _Calls:
    index = {text: k for k, text in enumerate(texts)}
    people: dict[tuple[int, int], list[str]] = {}
    for a, b, winner in asked.verdicts:
        people.setdefault((a, b), []).append(winner)
    calls: list[LabelledCall] = []
    first: list[tuple[object, bool]] = []
    gaps: list[float] = []
    won: list[bool] = []
    for match in result.match_history:
        a, b = index[match.item_a], index[match.item_b]
        for call in match.rounds:
            a_first = call.order == "AB"
            calls += [LabelledCall(a, b, winner, call.winner, a_first, call.reasoning)
                      for winner in people.get((a, b), [])]
            if call.winner in ("A", "B"):
                shown = (a, b) if a_first else (b, a)
                first.append(((a, b), (call.winner == "A") == a_first))
                gaps.append(float(lengths[shown[0]] - lengths[shown[1]]))
                won.append(first[-1][1])
    return calls, first, gaps, won


def _scored_calls(result: SortResult, asked: LabelledPairs, texts: list[str],
                  lengths: np.ndarray) -> _Calls:
    scores = {found.item: found.score for found in result.pointwise}
    calls, gaps, won = [], [], []
    for a, b, winner in asked.verdicts:
        x, y = scores.get(texts[a]), scores.get(texts[b])
        judged = None if x is None or y is None else verdict(x, y)
        calls.append(LabelledCall(a, b, winner, judged, True))
        if judged in ("A", "B"):
            gaps.append(float(lengths[a] - lengths[b]))
            won.append(judged == "A")
    return calls, [], gaps, won


def _choice(trials: list[JudgeTrial], asked: LabelledPairs, chosen: StrategySettings,
            lengths: np.ndarray, level: float) -> JudgeChoice:
    ranked = [Ranked(t.agreement.kappa, t.agreement.agreement, t.cost_per_call) for t in trials]
    order = ordered(ranked)
    rows = [trials[k] for k in order]
    best = rows[0] if rows and rows[0].agreement.kappa.value is not None else None
    unsettled: list[JudgeTrial] = []
    if best is not None:
        rest = [ranked[k] for k in order[1:]]
        unsettled = [rows[1 + k] for k in unsettled_with(ranked[order[0]], rest)]
    decided = [(a, b, w) for a, b, w in asked.verdicts if w != "tie"]
    people = length_logit([float(lengths[a] - lengths[b]) for a, b, _ in decided],
                          [w == "A" for _, _, w in decided], level=level)
    return JudgeChoice(
        trials=tuple(rows), recommended=best, unsettled=tuple(unsettled),
        strategy="pointwise" if isinstance(chosen, Pointwise) else "pairwise",
        items=len(asked.items), pairs=len(asked.pairs), verdicts=len(asked.verdicts),
        people_length=people, level=level)
