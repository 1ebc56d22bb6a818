"""A user's own judging prompt: a Jinja2 template with a system part and a user part.

The template is rendered in a bounded sandbox (`_sandbox`), with undefined variables
as errors, and is checked whole before any call (`PromptTemplate.check`). The two texts and
the criterion never pass through Jinja2: the template is rendered with random placeholders
in their place, and the placeholders are then replaced by the fenced texts, so a text
holding `{{ ... }}` is judged as text and cannot reach the template's variables. The items'
fields (`{{ fields_a.KEY }}`) and the call's fence tag are inserted the same way.

A template may show each of these only alone (`{{ text_a }}`): what a filter, a test or a
macro would see of it is a stand-in, not the text. Everything else a template sees (the
context, the scale, whether ties are offered, the question's direction) is known before any
call, so the check renders exactly what the calls will send, but for the values filled in.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import TemplateError, TemplateSyntaxError

from llm_qualitative_sort.errors import PromptTemplateError as PromptTemplateError
from llm_qualitative_sort.prompts._builtin import BUILTIN
from llm_qualitative_sort.prompts._comparison import fence_tag, fenced
from llm_qualitative_sort.prompts._fields import (
    FieldUse,
    field_blocks,
    missing_field,
    placeholders,
)
from llm_qualitative_sort.prompts._names import FILLED_IN, check_names, read_part
from llm_qualitative_sort.prompts._names import SCORE_VARIABLES as SCORE_VARIABLES
from llm_qualitative_sort.prompts._names import VARIABLES as VARIABLES
from llm_qualitative_sort.prompts._sandbox import (
    CALL_SECONDS,
    MAX_SECONDS,
    bounded_render,
    context_view,
)
from llm_qualitative_sort.prompts._score import (
    JA_INVERSE_LABELS,
    JA_LABELS,
    POINTWISE_BUILTIN,
)
from llm_qualitative_sort.prompts._source import (
    compiled,
    inferred_kind,
    placeholder,
    sha256,
    split_sections,
    template_line,
)
from llm_qualitative_sort.rating.scoring import Scale

_FENCES = {"text_a": "TEXT A", "text_b": "TEXT B", "criteria": "CRITERION"}
_SCORE_FENCES = {"text": "TEXT", "criteria": "CRITERION"}


@dataclass(frozen=True)
class PromptTemplate:
    r"""A judging prompt: a system template and a user template (Jinja2).

    Variables: `{{ text_a }}` and `{{ text_b }}` (the two texts, inserted fenced as data;
    both must be shown), `{{ criteria }}` (fenced too), `{{ tag }}` (the fence tag of the
    call), `{{ ties }}` (whether "tie" is a valid answer), `{{ context.KEY }}` (the run's
    context mapping) and `{{ fields_a.KEY }}` / `{{ fields_b.KEY }}` (a field of the item
    shown as A / B, fenced as data like the texts). The judge must still answer with the
    JSON verdict `{"reasoning": ..., "winner": "A" | "B"}` ("tie" too when offered).

    Args:
        system: The system message's template.
        user: The user message's template.
        name: Named in errors, reports and the stored run.
        lines: First line of each part in the file it came from (for error messages).

    Example:
        >>> template = PromptTemplate(system="Judge by {{ context.rubric }}.",
        ...                           user="{{ text_a }}\\n{{ text_b }}\\n{{ criteria }}")
        >>> template.check({"rubric": "accuracy"})
        >>> system, user = template.render("x", "{{ y }}", "c", context={"rubric": "accuracy"})
        >>> system, "{{ y }}" in user
        ('Judge by accuracy.', True)
    """

    system: str
    user: str
    name: str = "custom"
    lines: tuple[int, int] = field(default=(1, 1), compare=False)
    # "pairwise" (two texts) or "pointwise" (one text on a scale); "" infers it: a template
    # that shows `{{ text }}` and neither `{{ text_a }}` nor `{{ text_b }}` is pointwise.
    kind: str = ""

    def __post_init__(self) -> None:
        for name in ("system", "user", "name", "kind"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise PromptTemplateError(f"PromptTemplate {name} must be a str (a Jinja2 "
                                          f"template), got {type(value).__name__}"
                                          if name in ("system", "user") else
                                          f"PromptTemplate {name} must be a str, got "
                                          f"{type(value).__name__}")
        if not self.kind:
            object.__setattr__(self, "kind", inferred_kind(self.system, self.user))
        if self.kind not in ("pairwise", "pointwise"):
            raise PromptTemplateError(f"kind must be 'pairwise' or 'pointwise', got "
                                      f"{self.kind!r}")

    @property
    def pointwise(self) -> bool:
        """Whether this template asks for a label on a scale (one text)."""
        return self.kind == "pointwise"

    @classmethod
    def builtin(cls, lang: str = "en", kind: str = "pairwise") -> PromptTemplate:
        """The built-in prompt in `lang` ("en": the default prompt, byte for byte; "ja").

        `kind="pointwise"`: the built-in pointwise prompt (one text, a labelled scale).
        """
        table = POINTWISE_BUILTIN if kind == "pointwise" else BUILTIN
        if lang not in table:
            raise PromptTemplateError(f"no built-in prompt in {lang!r}; choose from "
                                      f"{sorted(table)}")
        system, user = table[lang]
        suffix = ":pointwise" if kind == "pointwise" else ""
        return cls(system=system, user=user, name=f"builtin:{lang}{suffix}", kind=kind)

    @classmethod
    def from_file(cls, path: str | Path) -> PromptTemplate:
        """A template from a text file with a `---system---` and a `---user---` section.

        Each marker stands alone on its line; a section runs to the next marker or the end
        of the file, without the newline just before the next marker.
        """
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        try:
            parts = split_sections(text)
        except ValueError as exc:
            raise PromptTemplateError(f"prompt template {str(path)!r}: {exc}") from None
        return cls(system=parts["system"][0], user=parts["user"][0], name=str(path),
                   lines=(parts["system"][1], parts["user"][1]))

    @property
    def digest(self) -> str:
        """sha256 of the two parts: names this template's text in cache keys and runs."""
        return sha256([self.system, self.user, *(["pointwise"] if self.pointwise else [])])

    @property
    def field_keys(self) -> frozenset[str]:
        """The item fields the template shows (`fields_a.KEY` or `fields_b.KEY`)."""
        return frozenset(use.key for part in ("system", "user")
                         for use in self._uses(part) if use.key is not None)

    def to_dict(self) -> dict[str, str]:
        """Plain data (a run's state, Studio's input)."""
        kind = {"kind": self.kind} if self.pointwise else {}
        return {"name": self.name, "system": self.system, "user": self.user, **kind}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PromptTemplate:
        """The template `to_dict` gave (`name` and `kind` optional)."""
        return cls(system=str(data["system"]), user=str(data["user"]),
                   name=str(data.get("name", "custom")), kind=str(data.get("kind", "")))

    def check(self, context: Mapping[str, Any] | None = None, scale: Any = None) -> None:
        """Refuse, before any call, a template that cannot render with `context`.

        The check renders what the calls will send: with the run's `context` and, for a
        pointwise template, its `scale` (default 1–4), in each case a call may ask (ties
        offered or not; the direct and the inverse question), with stand-ins for the values
        filled in for each call.

        Raises:
            PromptTemplateError: A syntax error, a variable other than the known ones, a
                `context` key the mapping lacks, any other rendering error (a bound of the
                sandbox reached too), a template that never shows `{{ text_a }}` and
                `{{ text_b }}` as they are, or that filters, tests or captures a value
                filled in for each call (a text, the criterion, the tag, a field). The
                message names the template, its part, the line and the variable.
        """
        context = dict(context or {})
        known = SCORE_VARIABLES if self.pointwise else VARIABLES
        for part in ("system", "user"):
            check_names(getattr(self, part), known, context, partial(self._error, part))
        self._check_shown_alone()
        salt = {"salt": secrets.token_hex(8)}  # as at call time: nothing can forge it
        if self.pointwise:
            run_scale = Scale.parse(scale)
            for inverse in (False, True):
                system, user = self._score_rendered(context, run_scale, inverse, salt,
                                                    MAX_SECONDS)
                if placeholder("text", salt) not in system + user:
                    raise PromptTemplateError(
                        f"prompt template {self.name!r} never shows {{{{ text }}}} as it is "
                        f"(inverse={inverse}): the judge would not see the text")
            return
        rendered = ""
        for ties in (False, True):
            system, user = self._rendered(context, ties, salt, MAX_SECONDS)
            shown = system + user
            rendered += shown
            for name in ("text_a", "text_b"):
                if placeholder(name, salt) not in shown:
                    raise PromptTemplateError(
                        f"prompt template {self.name!r} never shows {{{{ {name} }}}} as it "
                        f"is (ties={ties}): the judge would not see the text")
        for part in ("system", "user"):
            for use in self._uses(part):
                if placeholder(f"{use.side}.{use.key}", salt) not in rendered:
                    raise self._error(part, use.line, f"{use.side}.{use.key} is never shown "
                                      "as it is: a field's value reaches the judge only as "
                                      "fenced data, never through a filter or a test")

    def _check_shown_alone(self) -> None:
        """Refuse a value filled in for each call that the template does more than show."""
        for part in ("system", "user"):
            for name, line, how in read_part(getattr(self, part)).looked_at:
                if name in FILLED_IN:
                    raise PromptTemplateError(
                        f"prompt template {self.name!r} never shows {{{{ {name} }}}} as it "
                        f"is: {part} part, {self._where(part, line)} {how}. The texts, the "
                        "criterion and the fence tag are filled in after rendering, for each "
                        f"call, so a template can only show them alone, as {{{{ {name} }}}}")
                raise self._error(part, line, f"{name} is never shown as it is: a field's "
                                  "value reaches the judge only as fenced data, never through "
                                  f"a filter or a test (this line {how})")

    def check_fields(self, fields: Sequence[Mapping[str, Any]] | None,
                     names: Sequence[str] | None = None) -> None:
        """Refuse, before any call, items that lack a field the template shows.

        `fields` holds each item's fields (None: the items carry none); `names` how messages
        name each item (default `items[i]`).

        Raises:
            PromptTemplateError: The template shows a field and the items carry none, or an
                item lacks it (a None value counts as lacking); the message names the
                template, its part, the line, the key and the first item lacking it.
        """
        for part in ("system", "user"):
            for use in self._uses(part):
                problem = missing_field(use, fields, names)
                if problem is not None:
                    raise self._error(part, use.line, problem)

    def render(self, item_a: str, item_b: str, criteria: str, *,
               context: Mapping[str, Any] | None = None, ties: bool = False,
               fields_a: Mapping[str, Any] | None = None,
               fields_b: Mapping[str, Any] | None = None) -> tuple[str, str]:
        """The system and user texts of one call, with the texts and fields fenced as data."""
        values = {"text_a": item_a, "text_b": item_b, "criteria": criteria}
        blocks = {name: (_FENCES[name], value) for name, value in values.items()}
        blocks.update(field_blocks(self._uses("system") + self._uses("user"),
                                   {"fields_a": fields_a or {}, "fields_b": fields_b or {}}))
        tag = fence_tag(*(value for _, value in blocks.values()))
        salt = {"salt": secrets.token_hex(8)}
        system, user = self._rendered(dict(context or {}), ties, salt, CALL_SECONDS)
        filled = {name: fenced(fence, tag, value) for name, (fence, value) in blocks.items()}
        filled["tag"] = tag
        return _filled(system, salt, filled), _filled(user, salt, filled)

    def _uses(self, part: str) -> tuple[FieldUse, ...]:
        return _parsed_uses(getattr(self, part))

    def render_score(self, text: str, criteria: str, scale: Scale, inverse: bool, *,
                     context: Mapping[str, Any] | None = None) -> tuple[str, str]:
        """The system and user texts of one pointwise call, the text fenced as data."""
        tag = fence_tag(text, criteria)
        salt = {"salt": secrets.token_hex(8)}
        system, user = self._score_rendered(dict(context or {}), scale, inverse, salt,
                                            CALL_SECONDS)
        filled = {name: fenced(_SCORE_FENCES[name], tag, value)
                  for name, value in (("text", text), ("criteria", criteria))}
        filled["tag"] = tag
        return _filled(system, salt, filled), _filled(user, salt, filled)

    def _score_rendered(self, context: dict[str, Any], scale: Scale, inverse: bool,
                        salt: dict[str, str], seconds: float) -> tuple[str, str]:
        worded = scale.worded(inverse)
        if scale.default and self.name.startswith("builtin:ja"):  # the default scale in Japanese
            worded = Scale(JA_INVERSE_LABELS if inverse else JA_LABELS)
        values: dict[str, Any] = {name: placeholder(name, salt)
                                  for name in (*_SCORE_FENCES, "tag")}
        values.update(inverse=inverse, context=context_view(context), scale=worded.describe(),
                      low=worded.low, high=worded.high)
        return (self._render_part("system", values, seconds),
                self._render_part("user", values, seconds))

    def _rendered(self, context: dict[str, Any], ties: bool, salt: dict[str, str],
                  seconds: float) -> tuple[str, str]:
        values: dict[str, Any] = {name: placeholder(name, salt) for name in (*_FENCES, "tag")}
        values.update(ties=ties, context=context_view(context))
        uses = self._uses("system") + self._uses("user")
        values.update(placeholders(uses, lambda name: placeholder(name, salt)))
        system = self._render_part("system", values, seconds)
        return system, self._render_part("user", values, seconds)

    def _render_part(self, part: str, values: dict[str, Any], seconds: float) -> str:
        source = getattr(self, part)
        try:
            return bounded_render(compiled(source), values, seconds)
        except TemplateSyntaxError as exc:
            raise self._error(part, exc.lineno, exc.message or str(exc)) from None
        except RecursionError:
            raise self._error(part, None, "the template nests too deep") from None
        except TemplateError as exc:
            raise self._error(part, template_line(exc), str(exc)) from None
        except Exception as exc:  # noqa: BLE001 (any error of a user's template is named)
            raise self._error(part, template_line(exc),
                              f"{type(exc).__name__}: {exc}") from None

    def _error(self, part: str, line: int | None, what: str) -> PromptTemplateError:
        return PromptTemplateError(f"prompt template {self.name!r}, {part} part, "
                                   f"{self._where(part, line)}: {what}")

    def _where(self, part: str, line: int | None) -> str:
        start = self.lines[0 if part == "system" else 1]
        return f"line {start + line - 1}" if line is not None else "unknown line"


def _filled(rendered: str, salt: dict[str, str], values: Mapping[str, str]) -> str:
    """`rendered` with each placeholder replaced by its value, in one pass.

    One pass: a value put in is never searched again, so a text holding another's
    placeholder (it cannot know the salt anyway) stays as it is.
    """
    pattern = re.escape(placeholder("", salt)[:-1]) + "([^\x00]*)\x00"
    return re.sub(pattern, lambda match: values.get(match[1], match[0]), rendered)


def _parsed_uses(source: str) -> tuple[FieldUse, ...]:
    """The keyed field uses of a part (parsed once per text, not once per call)."""
    try:
        return read_part(source).keyed
    except (TemplateSyntaxError, RecursionError):
        return ()  # reported by `check`, with its line
