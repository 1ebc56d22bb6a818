"""What the judge is asked: the built-in prompts, a user's own templates, and their checks.

A comparison's prompt fences the two texts and the criterion and asks for a verdict of a
fixed schema (`_comparison`); a pointwise call's prompt asks for a label of the run's scale
(`_score`, `_score_messages`). A user's `PromptTemplate` renders in a bounded Jinja2 sandbox
(`_sandbox`), from a source read and digested once (`_source`), with the names and item
fields it may use checked before any call (`_names`, `_fields`); `PromptSetup` is a run's
template with its context and fields, and `_run` builds and checks it from a sorter's
arguments or a stored run.

Example:
    >>> from llm_qualitative_sort.prompts import PromptTemplate
    >>> PromptTemplate.builtin("en").name
    'builtin:en'
"""

from llm_qualitative_sort.prompts.setup import PromptSetup, using_prompt
from llm_qualitative_sort.prompts.template import (
    SCORE_VARIABLES,
    VARIABLES,
    PromptTemplate,
    PromptTemplateError,
)

__all__ = [
    "PromptSetup",
    "PromptTemplate",
    "PromptTemplateError",
    "SCORE_VARIABLES",
    "VARIABLES",
    "using_prompt",
]
