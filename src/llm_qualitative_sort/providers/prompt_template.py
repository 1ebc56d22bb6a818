"""A user's own judging prompt: a Jinja2 template with a system part and a user part.

The template is rendered in a sandbox, with undefined variables as errors, and is checked
whole before any call (`PromptTemplate.check`). The two texts and the criterion never pass
through Jinja2: the template is rendered with random placeholders in their place, and the
placeholders are then replaced by the fenced texts, so a text holding `{{ ... }}` is judged
as text and cannot reach the template's variables. The items' fields (`{{ fields_a.KEY }}`)
are inserted the same way.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import SandboxedEnvironment

from llm_qualitative_sort.providers._prompt import ACTIVE_PROMPT, fence_tag, fenced
from llm_qualitative_sort.providers._prompt_builtin import BUILTIN
from llm_qualitative_sort.providers._prompt_fields import (
    FieldUse,
    field_blocks,
    field_uses,
    missing_field,
    placeholders,
)
from llm_qualitative_sort.providers._prompt_source import (
    context_keys,
    sha256,
    split_sections,
    template_line,
)

# What a template may name: the fenced texts and criterion, the fence tag, whether a tie is
# on offer, the run's context mapping, and the fields of the items shown as A and B.
VARIABLES = frozenset({"text_a", "text_b", "criteria", "tag", "ties", "context", "fields_a",
                       "fields_b"})
_FENCES = {"text_a": "TEXT A", "text_b": "TEXT B", "criteria": "CRITERION"}
_ENV = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True,
                            autoescape=False)


class PromptTemplateError(ValueError):
    """A template that cannot be used, named with its part, line and variable."""


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

    @classmethod
    def builtin(cls, lang: str = "en") -> PromptTemplate:
        """The built-in prompt in `lang` ("en": the default prompt, byte for byte; "ja")."""
        if lang not in BUILTIN:
            raise PromptTemplateError(f"no built-in prompt in {lang!r}; choose from "
                                      f"{sorted(BUILTIN)}")
        system, user = BUILTIN[lang]
        return cls(system=system, user=user, name=f"builtin:{lang}")

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
        return sha256([self.system, self.user])

    @property
    def field_keys(self) -> frozenset[str]:
        """The item fields the template shows (`fields_a.KEY` or `fields_b.KEY`)."""
        return frozenset(use.key for part in ("system", "user")
                         for use in self._uses(part) if use.key is not None)

    def to_dict(self) -> dict[str, str]:
        """Plain data (a run's state, Studio's input)."""
        return {"name": self.name, "system": self.system, "user": self.user}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PromptTemplate:
        """The template `to_dict` gave (`name` optional)."""
        return cls(system=str(data["system"]), user=str(data["user"]),
                   name=str(data.get("name", "custom")))

    def check(self, context: Mapping[str, Any] | None = None) -> None:
        """Refuse, before any call, a template that cannot render with `context`.

        Raises:
            PromptTemplateError: A syntax error, a variable other than the known ones, a
                `context` key the mapping lacks, any other rendering error, or a template
                that never shows `{{ text_a }}` and `{{ text_b }}` as they are, or a field
                only tested or transformed. The message names the template, its part, the
                line and the variable.
        """
        context = dict(context or {})
        for part in ("system", "user"):
            self._check_names(part, context)
        rendered = ""
        for ties in (False, True):
            system, user = self._rendered(context, ties, {})
            shown = system + user
            rendered += shown
            for name in ("text_a", "text_b"):
                if _placeholder(name, {}) not in shown:
                    raise PromptTemplateError(
                        f"prompt template {self.name!r} never shows {{{{ {name} }}}} as it "
                        f"is (ties={ties}): the judge would not see the text")
        for part in ("system", "user"):
            for use in self._uses(part):
                if _placeholder(f"{use.side}.{use.key}", {}) not in rendered:
                    raise self._error(part, use.line, f"{use.side}.{use.key} is never shown "
                                      "as it is: a field's value reaches the judge only as "
                                      "fenced data, never through a filter or a test")

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
        system, user = self._rendered(dict(context or {}), ties, salt, tag)
        for name, (fence, value) in blocks.items():
            block = fenced(fence, tag, value)
            system = system.replace(_placeholder(name, salt), block)
            user = user.replace(_placeholder(name, salt), block)
        return system, user

    def _uses(self, part: str) -> list[FieldUse]:
        return _parsed_uses(getattr(self, part))

    def _rendered(self, context: dict[str, Any], ties: bool, salt: dict[str, str],
                  tag: str = "TAG") -> tuple[str, str]:
        values: dict[str, Any] = {name: _placeholder(name, salt) for name in _FENCES}
        values.update(tag=tag, ties=ties, context=context)
        uses = self._uses("system") + self._uses("user")
        values.update(placeholders(uses, lambda name: _placeholder(name, salt)))
        system = self._render_part("system", values)
        return system, self._render_part("user", values)

    def _render_part(self, part: str, values: dict[str, Any]) -> str:
        source = getattr(self, part)
        try:
            return _ENV.from_string(source).render(values)
        except TemplateSyntaxError as exc:
            raise self._error(part, exc.lineno, exc.message or str(exc)) from None
        except TemplateError as exc:
            raise self._error(part, template_line(exc), str(exc)) from None

    def _check_names(self, part: str, context: dict[str, Any]) -> None:
        source = getattr(self, part)
        try:
            tree = _ENV.parse(source)
        except TemplateSyntaxError as exc:
            raise self._error(part, exc.lineno, exc.message or str(exc)) from None
        unknown = sorted(meta.find_undeclared_variables(tree) - VARIABLES)
        for node in tree.find_all(nodes.Name):
            if node.name in unknown:
                raise self._error(part, node.lineno, f"unknown variable {node.name!r} "
                                  f"(known: {', '.join(sorted(VARIABLES))})")
        for line, key in context_keys(tree):
            if key not in context:
                raise self._error(part, line, f"context has no key {key!r} "
                                  f"(given: {sorted(context) or 'none'})")
        for use in field_uses(tree):
            if use.key is None:
                raise self._error(part, use.line, f"{use.side} is shown only by key: "
                                  f"{{{{ {use.side}.KEY }}}}, each field fenced as data")

    def _error(self, part: str, line: int | None, what: str) -> PromptTemplateError:
        start = self.lines[0 if part == "system" else 1]
        where = f"line {start + line - 1}" if line is not None else "unknown line"
        return PromptTemplateError(f"prompt template {self.name!r}, {part} part, {where}: "
                                   f"{what}")


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
        """Whether this asks exactly the default prompt (then nothing is keyed apart)."""
        return self.digest == PromptSetup(PromptTemplate.builtin("en")).digest

    def messages(self, item_a: str, item_b: str, criteria: str, ties: bool) -> tuple[str, str]:
        """The system and user texts of one call."""
        return self.template.render(item_a, item_b, criteria, context=self.context, ties=ties,
                                    fields_a=self.fields.get(item_a),
                                    fields_b=self.fields.get(item_b))


@contextmanager
def using_prompt(setup: PromptSetup | None) -> Iterator[None]:
    """Ask the calls made (and tasks started) inside with `setup`; None: the default."""
    active: Callable[[str, str, str, bool], tuple[str, str]] | None = None
    if setup is not None and not setup.is_default:
        active = setup.messages
    token = ACTIVE_PROMPT.set(active)
    try:
        yield
    finally:
        ACTIVE_PROMPT.reset(token)


@lru_cache(maxsize=64)
def _parsed_uses(source: str) -> list[FieldUse]:
    """The keyed field uses of a part (parsed once per text, not once per call)."""
    try:
        return [use for use in field_uses(_ENV.parse(source)) if use.key is not None]
    except TemplateSyntaxError:
        return []  # reported by `check`, with its line


def _placeholder(name: str, salt: dict[str, str]) -> str:
    # Random per call, so no template or context value can collide with it by chance.
    return f"\x00{salt.get('salt', 'check')}:{name}\x00"
