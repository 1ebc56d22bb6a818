"""`scripts/hanna_calibrate.py` on real ratings: calibrate's figures are the stored ratings'.

It reads a few sets of HANNA (Chhun et al., COLING 2022 / TACL 2024; MIT) from
`../shared/data/hanna/` next to the repository; without it the test is skipped, unless
`LLM_QUALITATIVE_SORT_REQUIRE_SHARED_DATA=1` asks for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from llm_qualitative_sort.results.agreement import LabelledCall, judge_agreement

REPO = Path(__file__).resolve().parents[2]
REQUIRE_VARIABLE = "LLM_QUALITATIVE_SORT_REQUIRE_SHARED_DATA"


def _script() -> ModuleType:
    sys.path.insert(0, str(REPO / "scripts"))  # it imports hanna_study beside it
    try:
        spec = importlib.util.spec_from_file_location("hanna_calibrate",
                                                      REPO / "scripts/hanna_calibrate.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "scripts"))


def _sets(count: int) -> list[dict[str, Any]]:
    candidates = [REPO.parent / "shared/data/hanna", REPO.parent.parent / "shared/data/hanna"]
    found = next((c for c in candidates if c.is_dir()), None)
    if found is None:
        message = f"HANNA JSON not found in {[str(c) for c in candidates]}"
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(message)
        pytest.skip(message)
    return [json.loads(p.read_text("utf-8")) for p in sorted(found.glob("p*.json"))[:count]]


async def test_replayed_pointwise_judges_agree_with_people_as_their_stored_ratings_do() -> None:
    script = _script()
    sets = _sets(4)
    choice = await script.study(sets, draws=100)
    assert len(choice.trials) == 20 and choice.verdicts == 4 * 55 and choice.items == 44
    people = script.people_verdicts(sets)
    for trial in choice.trials:
        judge, prompt = trial.judge.rsplit(" ", 1)
        rating = {s["id"]: round(script.overall(s["llm"][judge][prompt]), 9)
                  for one in sets for s in one["items"]}
        direct = judge_agreement(
            [LabelledCall(0, 1, winner, script.verdict(max(rating[a], 1), max(rating[b], 1)),
                          True) for a, b, winner in people], draws=10)
        assert (trial.agreement.agreed, trial.agreement.compared) == (direct.agreed,
                                                                      direct.compared)
        assert trial.agreement.kappa.value == pytest.approx(direct.kappa.value)
        assert trial.calls == 44
