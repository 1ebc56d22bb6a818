"""The dry run's estimate says why a run may play fewer matches, per strategy."""

import asyncio
import io
from pathlib import Path

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.cli._dry_run import estimate, print_estimate
from llm_qualitative_sort.cli._rounds import simulated_rounds
from llm_qualitative_sort.tournament import Elimination, StrategySettings, Swiss


def _matches_line(settings: StrategySettings) -> str:
    out = io.StringIO()
    print_estimate(estimate(40, settings), None, out)
    return out.getvalue().splitlines()[1]


def test_elimination_may_play_fewer_matches_through_draws() -> None:
    assert _matches_line(Elimination()) == "matches: 78 … 79 (fewer when matches are drawn)"


def test_swiss_plays_its_budget_or_stops_when_the_top_is_settled() -> None:
    assert _matches_line(Swiss(comparison_rounds=1)) == "matches: 158 … 158"
    settled = Swiss(comparison_rounds=1, top_k=5, stop_when_settled=True)
    assert _matches_line(settled) == (
        "matches: 0 … 158 (fewer if the top K are settled before the budget is spent)")


def test_the_tokens_per_call_are_the_estimate_the_pacing_uses() -> None:
    from llm_qualitative_sort.providers._tokens import call_tokens, mean_call_tokens

    texts = ["a" * 400, "b" * 800]
    out = io.StringIO()
    plan = estimate(40, Swiss(comparison_rounds=1))
    print_estimate(plan, None, out, tokens_per_call=mean_call_tokens(texts, "clarity"))
    expected = call_tokens("x" * 600, "y" * 600, "clarity")
    assert f"tokens per call: about {expected} " in out.getvalue()
    assert f"about {expected * plan.max_calls:,} for {plan.max_calls:,} calls)" in out.getvalue()


@pytest.mark.parametrize(("n_items", "budget"), [(2, None), (8, 40), (20, 100)])
def test_the_simulated_rounds_of_a_pre_pass_are_those_a_run_plays(
    n_items: int, budget: int | None
) -> None:
    # A pre-pass spends one call per text whatever the calls per match (here 2).
    settings = Swiss(budget=budget, prepass="pointwise", comparison_rounds=2)
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=3,
                               strategy=settings)
    result = asyncio.run(sorter.sort([str(i) for i in range(n_items)]))
    assert simulated_rounds(settings, n_items) == result.statistics.rounds


@pytest.mark.parametrize(("group_size", "flags"), [(2, []), (4, ["--group-size", "4"])])
def test_the_dry_run_says_what_a_token_budget_pays_for_and_the_tokens_per_text(
    group_size: int, flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm_qualitative_sort.cli import main
    from llm_qualitative_sort.tournament.swiss.tokens import estimates

    texts = [f"{i} " + "x" * (200 + 10 * i) for i in range(40)]
    (tmp_path / "a.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    each = estimates(texts, "longer", group_size).group
    main(["sort", str(tmp_path / "a.txt"), "--criteria", "longer", "--strategy", "swiss",
          "--budget-tokens", str(60 * each + 5), "--dry-run", *flags])
    out = capsys.readouterr().out
    assert f"tokens per call: about {each} (from the texts' mean length;" in out
    assert "budget_tokens pays for about 60 calls\n" in out
    assert f"tokens per text: about {each * 60 // 40:,}\n" in out
    # The rounds a run of those 60 calls plays (20 pairs or 10 groups a round).
    assert f"rounds: about {3 if group_size == 2 else 6} " in out


def test_the_dry_run_refuses_a_token_budget_too_small_for_one_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm_qualitative_sort.cli import main

    (tmp_path / "a.txt").write_text("".join(f"{i}\n" for i in range(40)), encoding="utf-8")
    code = main(["sort", str(tmp_path / "a.txt"), "--criteria", "larger", "--strategy",
                 "swiss", "--budget-tokens", "1000", "--dry-run"])
    assert code == 2
    assert ("budget_tokens must pay for one round: 20 calls of about 453 tokens each "
            "(estimated from the texts' mean length): about 9060, got 1000"
            in capsys.readouterr().err)
