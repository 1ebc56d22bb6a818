"""Judges for tests and experiments: no network, no API key, the same engine as a real run.

- `FunctionProvider`: a judge made from plain functions, for a user's own tests (as httpx's
  `MockTransport` and pydantic-ai's `FunctionModel` serve theirs).
- `MockLLMProvider`: the seeded simulated judge (a latent score per text and Gaussian
  noise; position bias, refusals and other flaws as options).
- `ReplayProvider`, `ReplayTopic`, `load_replay_topic`: a judge that replays stored human
  votes, for measuring strategies on real judgements.

Example:
    >>> import asyncio
    >>> from llm_qualitative_sort import QualitativeSorter
    >>> from llm_qualitative_sort.testing import FunctionProvider
    >>> judge = FunctionProvider(lambda a, b, criteria: "A" if len(a) >= len(b) else "B")
    >>> sorter = QualitativeSorter(judge, criteria="longer", seed=0, checkpointer=None)
    >>> asyncio.run(sorter.sort(["aa", "a", "aaa"])).rankings[0]
    (1, ['aaa'])
"""

from llm_qualitative_sort.testing.function import FunctionProvider
from llm_qualitative_sort.testing.mock import MockLLMProvider
from llm_qualitative_sort.testing.replay import ReplayProvider, ReplayTopic, load_replay_topic

__all__ = [
    "FunctionProvider",
    "MockLLMProvider",
    "ReplayProvider",
    "ReplayTopic",
    "load_replay_topic",
]
