import asyncio
from collections import Counter

import pytest

from llm_qualitative_sort import LLMProvider, MockLLMProvider, PanelProvider
from llm_qualitative_sort.providers.panel import leaf_judges


def _panel(seed: int = 0, size: int = 2) -> PanelProvider:
    return PanelProvider([MockLLMProvider(seed=s) for s in range(size)], seed=seed)


def test_both_orders_of_a_repetition_go_to_one_judge_and_the_next_repetition_moves_on() -> None:
    panel = _panel(size=3)
    for pair in [("1", "2"), ("x", "y"), ("吾輩", "猫")]:
        a, b = pair
        judges = [panel.judge_of(a, b, repetition=r) for r in range(3)]
        assert [panel.judge_of(b, a, repetition=r) for r in range(3)] == judges
        assert len(set(map(id, judges))) == 3  # 2·3 calls per match: every judge, both orders
        start = panel.judges.index(judges[0])
        assert judges == [panel.judges[(start + r) % 3] for r in range(3)]


def test_pairs_are_shared_evenly_and_the_seed_decides_who_starts() -> None:
    pairs = [(str(i), str(j)) for i in range(60) for j in range(i + 1, 60)]
    panel = _panel()
    counts = Counter(panel.judge_of(a, b, repetition=0).model_identity for a, b in pairs)
    assert len(counts) == 2 and abs(counts.most_common()[0][1] / len(pairs) - 0.5) < 0.03
    first = [_panel(0).judge_of(a, b, repetition=0).model_identity for a, b in pairs[:40]]
    again = [_panel(0).judge_of(a, b, repetition=0).model_identity for a, b in pairs[:40]]
    other = [_panel(5).judge_of(a, b, repetition=0).model_identity for a, b in pairs[:40]]
    assert first == again and first != other


def test_a_call_is_answered_by_its_judge() -> None:
    panel = _panel()
    judge = panel.judge_of("3", "7", repetition=1)
    assert isinstance(judge, MockLLMProvider)
    answer = asyncio.run(panel.compare_call("3", "7", "larger", repetition=1))
    expected = asyncio.run(judge.compare_call("3", "7", "larger", repetition=1))
    assert answer == expected


def test_judges_must_be_providers_with_distinct_identities() -> None:
    with pytest.raises(ValueError, match="at least one"):
        PanelProvider([])
    with pytest.raises(ValueError, match="share the model identity"):
        PanelProvider([MockLLMProvider(seed=1), MockLLMProvider(seed=1)])
    with pytest.raises(TypeError, match="LLMProvider"):
        PanelProvider([MockLLMProvider(seed=1), "gpt"])  # type: ignore[list-item]


def test_items_are_checked_by_every_judge_and_nested_panels_name_their_leaves() -> None:
    picky = MockLLMProvider(seed=9, score=lambda text: float(text))
    panel = PanelProvider([MockLLMProvider(seed=1), PanelProvider([picky, MockLLMProvider(2)])])
    with pytest.raises(ValueError, match="cannot score"):
        panel.check_items(["1", "not a number"])
    assert [j.model_identity for j in leaf_judges(panel)] == [
        MockLLMProvider(seed=1).model_identity, picky.model_identity,
        MockLLMProvider(seed=2).model_identity]
    assert all(isinstance(panel.judge_of(str(i), "0", repetition=0), MockLLMProvider)
               for i in range(1, 20))


def test_a_single_provider_is_its_own_judge_and_a_panel_prices_only_when_judges_agree() -> None:
    solo = MockLLMProvider(seed=1)
    assert solo.judge_of("a", "b", repetition=3) is solo

    class Priced(MockLLMProvider):
        def __init__(self, seed: int, price: float) -> None:
            super().__init__(seed=seed)
            self.price = price

        def estimate_cost(self, input_tokens: int, output_tokens: int) -> float | None:
            return self.price * (input_tokens + output_tokens)

    assert PanelProvider([Priced(1, 2.0), Priced(2, 2.0)]).estimate_cost(1, 2) == 6.0
    assert PanelProvider([Priced(1, 2.0), Priced(2, 3.0)]).estimate_cost(1, 2) is None
    assert isinstance(PanelProvider([solo]), LLMProvider)
