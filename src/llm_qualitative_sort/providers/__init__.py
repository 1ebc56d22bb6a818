"""LLM providers: the interface, the seeded mock, and the real clients."""

from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.mock import MockLLMProvider

__all__ = ["LLMProvider", "MockLLMProvider"]
