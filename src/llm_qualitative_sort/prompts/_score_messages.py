"""The messages of one pointwise call: the run's pointwise template, or the built-in one."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from llm_qualitative_sort.prompts._score import ACTIVE_SCORE_PROMPT
from llm_qualitative_sort.prompts.template import PromptTemplate
from llm_qualitative_sort.rating.scoring import Scale

DEFAULT_SCORE_PROMPT = PromptTemplate.builtin("en", kind="pointwise")


def build_score_messages(text: str, criteria: str, scale: Scale, inverse: bool
                         ) -> list[BaseMessage]:
    """The system and user messages of one pointwise call.

    Example:
        >>> messages = build_score_messages("a text", "clarity", Scale.parse(None), False)
        >>> "4: Excellent" in messages[0].text, "<<<BEGIN TEXT" in messages[1].text
        (True, True)
    """
    custom = ACTIVE_SCORE_PROMPT.get()
    if custom is not None:
        system, user = custom(text, criteria, scale, inverse)
    else:
        system, user = DEFAULT_SCORE_PROMPT.render_score(text, criteria, scale, inverse)
    return [SystemMessage(system), HumanMessage(user)]
