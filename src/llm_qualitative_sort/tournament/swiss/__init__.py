"""Swiss rounds on Bradley–Terry strengths: pairing, top-K refinement, early stop, strategy."""

from llm_qualitative_sort.tournament.swiss.strategy import Swiss, default_budget

__all__ = ["Swiss", "default_budget"]
