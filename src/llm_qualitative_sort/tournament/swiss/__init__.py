"""Swiss rounds on Bradley–Terry strengths: settings, pairing, refinement, early stop, strategy."""

from llm_qualitative_sort.tournament.swiss.settings import Swiss
from llm_qualitative_sort.tournament.swiss.strategy import SwissStrategy, default_budget

__all__ = ["Swiss", "SwissStrategy", "default_budget"]
