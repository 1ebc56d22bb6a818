"""The HANNA judges × prompts put through `calibrate` as pointwise judges.

Data: HANNA (Chhun et al., COLING 2022 and TACL 2024; MIT licence, see
../shared/data/hanna/README.md), the public half: 48 sets of 11 stories, each rated 1–5
on six criteria by three people and by five LLM judges under four evaluation prompts
(EP1–EP4).

Each judge × prompt is replayed as one pointwise judge (`testing.FunctionProvider`
answering each story's stored overall rating on the scale 1–5, as `hanna_study.py` does:
its fraction as a label distribution, values below 1 as 1). A replay judge cannot see
the prompt's text, so the four prompts of a judge are four judges here, each named
"JUDGE EPn". The people's labels are verdicts within each set: on each of a set's 55
pairs, the story with the higher mean overall rating wins, equal means tie (2,640
verdicts). `calibrate(..., strategy=Pointwise(scale="1-5"))` scores the 528 labelled
stories once per judge and compares the verdicts its scores imply with the people's.

Writes docs/benchmarks/judges_vs_people_calibrate.txt (the table) and
docs/benchmarks/judges_vs_people_calibrate.json (the `JudgeChoice` as JSON).

Usage:
    python scripts/hanna_calibrate.py [--data ../shared/data/hanna] [--out docs/benchmarks]
        [--draws 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from hanna_study import CRITERIA, PROMPTS, overall, stored_answer
from llm_qualitative_sort import Pointwise, PointwiseResult, calibrate
from llm_qualitative_sort.judge_choice import JudgeChoice, choice_json
from llm_qualitative_sort.judge_choice.pairs import verdict
from llm_qualitative_sort.rating.scale import Scale
from llm_qualitative_sort.testing import FunctionProvider


def people_verdicts(sets: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """Within each set, every pair of stories: the higher people's mean overall wins."""
    found = []
    for one in sets:
        stories = one["items"]
        for i, x in enumerate(stories):
            for y in stories[i + 1:]:
                found.append((x["id"], y["id"], verdict(round(overall(x["human_mean"]), 9),
                                                        round(overall(y["human_mean"]), 9))))
    return found


def replay_judge(ratings: dict[str, float], name: str) -> FunctionProvider:
    """A pointwise judge that answers each story's stored rating."""
    def score(text: str, criteria: str, scale: Scale) -> PointwiseResult:
        return stored_answer(ratings[text])

    return FunctionProvider(score=score, model=name)


async def study(sets: list[dict[str, Any]], draws: int) -> JudgeChoice:
    stories = [story for one in sets for story in one["items"]]
    judges = {}
    for judge in stories[0]["llm"]:
        for prompt in PROMPTS:
            name = f"{judge} {prompt}"
            ratings = {s["text"]: overall(s["llm"][judge][prompt]) for s in stories}
            judges[name] = replay_judge(ratings, name)
    return await calibrate(
        [s["text"] for s in stories], {"verdicts": people_verdicts(sets)},
        ids=[s["id"] for s in stories], judges=judges, criteria=CRITERIA,
        strategy=Pointwise(scale="1-5"), checkpointer=None, draws=draws)


def table(choice: JudgeChoice) -> str:
    lines = ["| judge | prompt | pairwise agreement | κ (95 % CI) | length preference "
             "(logit per sd, 95 % CI) | calls |", "|---|---|---|---|---|---|"]
    for t in choice.trials:
        judge, prompt = t.judge.rsplit(" ", 1)
        kappa, length = t.agreement.kappa, t.length
        assert kappa.value is not None and length is not None and length.value is not None
        lines.append(f"| {judge} | {prompt} | {t.agreement.agreement:.1%} | {kappa.value:.2f} "
                     f"({kappa.low:.2f}–{kappa.high:.2f}) | {length.value:+.2f} "
                     f"({length.low:+.2f} to {length.high:+.2f}) | {t.calls} |")
    people = choice.people_length
    assert people is not None and people.value is not None
    lines.append(f"| people (their own verdicts) | — | — | — | {people.value:+.2f} "
                 f"({people.low:+.2f} to {people.high:+.2f}) | — |")
    best = choice.recommended
    assert best is not None
    unsettled = ", ".join(t.judge for t in choice.unsettled) or "none"
    lines += ["", f"Recommended: {best.judge}. Not settled against it (κ intervals overlap): "
              f"{unsettled}."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared"
                                              / "data" / "hanna"))
    parser.add_argument("--out", default="docs/benchmarks")
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args()
    sets = [json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(Path(args.data).glob("p*.json"))]
    choice = asyncio.run(study(sets, args.draws))
    out = Path(args.out)
    (out / "judges_vs_people_calibrate.json").write_text(choice_json(choice), encoding="utf-8")
    text = table(choice)
    (out / "judges_vs_people_calibrate.txt").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
