"""The accuracy claims scripts (checked by `.ci/run` at full size) work, and can fail."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def accuracy() -> ModuleType:
    return _load("accuracy_claims")


@pytest.fixture(scope="module")
def strategy() -> ModuleType:
    return _load("strategy_claims")


def test_accuracy_claims_run_small_and_report_every_claim(accuracy: ModuleType,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    status = accuracy.main(["--items", "30"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1].rstrip(":") for line in lines] == [
        claim.__name__ for claim in accuracy.CLAIMS]
    assert status == (1 if any(line.startswith("FAILS") for line in lines) else 0)


def test_accuracy_claims_fail_on_a_ranking_that_does_not_improve(accuracy: ModuleType) -> None:
    flat = {"tau": 0.5, "top100": 0.5, "top_pairs": 0.5, "bottom_pairs": 0.5}
    runs = {(n, s): dict(flat) for n in accuracy.SWEEP for s in accuracy.KEY_SEEDS}
    assert all(line.startswith("FAILS") for line in accuracy.check(runs))


def test_accuracy_claims_hold_on_a_ranking_that_improves_as_claimed(accuracy: ModuleType) -> None:
    def scores(n: int) -> dict[str, float]:
        tau = {1: 0.3, 2: 0.6, 3: 0.65, 5: 0.75, 7: 0.8, 10: 0.85}.get(n, 0.7)
        return {"tau": tau, "top100": 0.4 + tau / 2, "top_pairs": 0.9, "bottom_pairs": 0.7}

    runs = {(n, s): scores(n) for n in accuracy.SWEEP for s in accuracy.KEY_SEEDS}
    assert all(line.startswith("holds") for line in accuracy.check(runs))


def test_strategy_claims_spend_equal_calls_at_a_small_size(strategy: ModuleType) -> None:
    runs = asyncio.run(strategy.run_all(40, seeds=(0,)))
    strategy.swiss_spends_exactly_the_calls_elimination_made(runs)
    assert len(strategy.check(runs)) == len(strategy.CLAIMS)


def test_strategy_claims_fail_when_swiss_is_no_better(strategy: ModuleType) -> None:
    same = {"tau": 0.5, "top10": 0.5, "calls": 100.0}
    runs = {(judge, play, seed): dict(same) for judge in strategy.JUDGES
            for play in strategy.PLAYS for seed in strategy.SEEDS}
    lines = strategy.check(runs)
    assert lines[0].startswith("holds")  # equal calls
    assert all(line.startswith("FAILS") for line in lines[1:])
