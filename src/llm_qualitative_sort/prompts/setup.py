"""What a run's calls are asked: its template with the run's context and items' fields.

`PromptSetup` is kept with the run (its digest keys the cache and the stored run);
`using_prompt` makes the calls made inside ask it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from llm_qualitative_sort.prompts._comparison import ACTIVE_PROMPT
from llm_qualitative_sort.prompts._score import ACTIVE_SCORE_PROMPT
from llm_qualitative_sort.prompts._source import sha256
from llm_qualitative_sort.prompts.template import PromptTemplate
from llm_qualitative_sort.rating.scoring import Scale


@dataclass(frozen=True)
class PromptSetup:
    """A template with the run's context and its items' fields: what a run's calls are asked.

    `fields` maps each item's text to the fields the template shows of it (empty when it
    shows none).
    """

    template: PromptTemplate
    context: Mapping[str, Any] = field(default_factory=dict)
    fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """sha256 of the template's text, the context and the fields shown (the run's)."""
        parts: list[Any] = [self.template.system, self.template.user, dict(self.context)]
        if self.fields:  # a run without fields keeps the digest it always had
            parts.append({text: dict(shown) for text, shown in self.fields.items()})
        return sha256(parts)

    @property
    def question_digest(self) -> str:
        """sha256 of the template's text and the context: the same for every call."""
        return sha256([self.template.system, self.template.user, dict(self.context)])

    def pair_key(self, first: str, second: str) -> str:
        """The cache-key suffix of showing `first` then `second`: their fields, if any."""
        if not self.fields:
            return ""
        shown = [dict(self.fields.get(first, {})), dict(self.fields.get(second, {}))]
        return f"+fields:{sha256(shown)[:16]}"

    @property
    def is_default(self) -> bool:
        """Whether this asks exactly the default prompt (then nothing is keyed apart).

        The built-in English pointwise prompt is the default of pointwise runs.
        """
        return self.digest in _DEFAULT_DIGESTS

    def messages(self, item_a: str, item_b: str, criteria: str, ties: bool) -> tuple[str, str]:
        """The system and user texts of one call."""
        return self.template.render(item_a, item_b, criteria, context=self.context, ties=ties,
                                    fields_a=self.fields.get(item_a),
                                    fields_b=self.fields.get(item_b))

    def score_messages(self, text: str, criteria: str, scale: Scale, inverse: bool
                       ) -> tuple[str, str]:
        """The system and user texts of one pointwise call."""
        return self.template.render_score(text, criteria, scale, inverse, context=self.context)


@contextmanager
def using_prompt(setup: PromptSetup | None) -> Iterator[None]:
    """Ask the calls made (and tasks started) inside with `setup`; None: the default."""
    active: Callable[[str, str, str, bool], tuple[str, str]] | None = None
    scoring: Callable[[str, str, Scale, bool], tuple[str, str]] | None = None
    if setup is not None and not setup.is_default:
        if setup.template.pointwise:
            scoring = setup.score_messages
        else:
            active = setup.messages
    token = ACTIVE_PROMPT.set(active)
    score_token = ACTIVE_SCORE_PROMPT.set(scoring)
    try:
        yield
    finally:
        ACTIVE_SCORE_PROMPT.reset(score_token)
        ACTIVE_PROMPT.reset(token)


# The default prompt of pairwise runs and of pointwise runs.
_DEFAULT_DIGESTS = frozenset({PromptSetup(PromptTemplate.builtin("en")).digest,
                              PromptSetup(PromptTemplate.builtin("en", kind="pointwise")).digest})
