"""The sandbox a user's prompt template renders in: Jinja2's, with bounds on work and size.

Jinja2's sandbox keeps a template away from Python's internals but not from exhausting the
machine: two nested `range(100000)` loops run for hours and `{{ 'x' * 10**9 }}` takes
gigabytes. Here every rendering has a budget, and going past it stops the rendering with a
`RenderLimitError` naming the bound:

- steps: each loop iteration and each call (function, method, macro, filter) is one step;
- time: checked at every step;
- nesting: calls inside calls (a macro calling itself);
- size: an operation whose result could be too long is refused before it runs (`*`, `**`,
  format widths, and a call or filter whose two largest arguments multiply past a bound:
  `center(10**9)`, `join` of many items with a long separator; filters and string methods
  whose result is never longer than what they are given are exempt), every string or list
  an operation makes counts towards a total, and the rendered part has its own bound.

Steps and sizes depend only on what the template is given, so a rendering that passes them
once passes them every time with the same values; only the time bound depends on the
machine. `lipsum` and the `random` filter are removed: a prompt that changes from one
rendering to the next could not be checked before the calls.
"""

from __future__ import annotations

import functools
import operator
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sized
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jinja2 import StrictUndefined, Template, nodes, pass_context
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context, Macro
from jinja2.sandbox import SandboxedEnvironment
from jinja2.visitor import NodeTransformer

MAX_STEPS = 100_000  # loop iterations and calls in one rendering
MAX_SECONDS = 2.0  # one rendering of one part, when the template is checked
# A call's rendering of what the check rendered within `MAX_SECONDS`: the same work (steps
# and sizes are the same), with room for a busier machine, so no call fails on time alone.
CALL_SECONDS = 5 * MAX_SECONDS
MAX_DEPTH = 50  # calls inside calls
MAX_VALUE = 1_000_000  # characters (or items) of one value an operation makes
MAX_PRODUCT = 20_000_000  # the two largest arguments of a call, multiplied
MAX_MADE = 10_000_000  # characters (or items) of all the values one rendering makes
MAX_OUTPUT = 1_000_000  # characters of one rendered part (before the texts go in)
MAX_BITS = 100_000  # bits of an integer an operation makes

_SIZED = (str, list, tuple, dict)
# Filters whose result is never longer than what they are given: no product to refuse
# (`truncate(255)` of a long context value is fine).
_SHRINKING_FILTERS = frozenset({
    "abs", "attr", "capitalize", "count", "d", "default", "dictsort", "e", "escape", "first",
    "float", "forceescape", "groupby", "int", "items", "last", "length", "list", "lower",
    "map", "max", "min", "reject", "rejectattr", "reverse", "round", "safe", "select",
    "selectattr", "slice", "sort", "string", "striptags", "title", "trim", "truncate",
    "unique", "upper", "wordcount"})
# Of those, the filters that turn a list or mapping into its text first.
_STRINGIFYING = frozenset({"capitalize", "e", "escape", "forceescape", "lower", "string",
                           "striptags", "title", "trim", "truncate", "upper", "wordcount"})
# String methods whose result may be longer than the string and the arguments together.
_GROWING_METHODS = frozenset({"center", "expandtabs", "format", "format_map", "join",
                              "ljust", "replace", "rjust", "translate", "zfill"})
# printf-style (`%10.3f`) and format-style (`{:>10}`) widths and precisions.
_WIDTHS = re.compile(r"%[-+ #0]*(\d*)(?:\.(\d*))?|\{[^{}]*?:[^{}\d]*(\d*)(?:[,_]?\.(\d*))?")


class RenderLimitError(SecurityError):
    """A template went past one of the rendering's bounds (its message names which)."""


@dataclass
class _Budget:
    deadline: float
    seconds: float
    steps: int = 0
    made: int = 0
    depth: int = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise RenderLimitError(f"the template takes more than {MAX_STEPS:,} steps (loop "
                                   "iterations and calls) to render")
        if time.monotonic() > self.deadline:
            raise RenderLimitError(f"the template takes more than {self.seconds:g} s to "
                                   "render")

    def make(self, value: Any) -> Any:
        if isinstance(value, _SIZED):
            size = len(value)
            if size > MAX_VALUE:
                raise RenderLimitError(f"the template makes a value of {size:,} characters "
                                       f"or items (at most {MAX_VALUE:,})")
            self.made += size
            if self.made > MAX_MADE:
                raise RenderLimitError(f"the template makes more than {MAX_MADE:,} characters "
                                       "or items in all while rendering")
        return value


# The budget of the rendering under way (None outside one: nothing is counted).
_BUDGET: ContextVar[_Budget | None] = ContextVar("llm_qualitative_sort_render_budget",
                                                 default=None)


def _step() -> _Budget | None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.step()
    return budget


def _size(value: Any) -> int:
    """How much `value` weighs in a product: its text's length, or an integer's size."""
    if isinstance(value, (list, tuple, dict)):
        return _shown_size(value, MAX_PRODUCT)
    if isinstance(value, Sized):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value)
    return 1


def _shown_size(value: Any, limit: int) -> int:
    """About how long `value` is once shown as text, counted until past `limit`.

    A list holding one long string a thousand times is short, but its text is a thousand
    long strings: showing, joining or summing it would make them all.
    """
    total, visits, pending = 0, 0, [value]
    while pending and total <= limit:
        item = pending.pop()
        visits += 1
        if visits > MAX_VALUE:  # a list holding itself, or millions of small items
            return limit + 1
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += 2
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 2
            pending.extend(item)
        else:
            total += 4
    return total


def _refuse_shown(what: str, value: Any, limit: int) -> None:
    """Refuse to turn a list or mapping into a text longer than `limit`."""
    if isinstance(value, (list, tuple, dict)) and _shown_size(value, limit) > limit:
        raise RenderLimitError(f"{what} is refused: the list or mapping would make a text of "
                               f"more than {limit:,} characters")


def _refuse_product(what: str, values: list[Any]) -> None:
    """Refuse a call whose two largest arguments multiply past `MAX_PRODUCT`.

    Padding, repeating and joining make results as long as such a product; refusing it before
    the call keeps a single call from taking gigabytes.
    """
    sizes = sorted((_size(value) for value in values), reverse=True)[:2]
    if sizes and sizes[0] > MAX_PRODUCT or len(sizes) == 2 and sizes[0] * sizes[1] > MAX_PRODUCT:
        shown = " and ".join(f"{size:,}" for size in sizes)
        raise RenderLimitError(f"{what} is refused: its arguments' sizes ({shown}) could make "
                               f"a value of more than {MAX_PRODUCT:,} characters")


def _refuse_widths(text: str) -> None:
    """Refuse a format string asking for a width or precision past `MAX_VALUE`."""
    for match in _WIDTHS.finditer(text):
        for number in match.groups():
            if number and (len(number) > 7 or int(number) > MAX_VALUE):
                raise RenderLimitError(f"a format width or precision of {number} is refused "
                                       f"(at most {MAX_VALUE:,})")


def _refuse_binop(symbol: str, left: Any, right: Any) -> None:
    ints = [v for v in (left, right) if isinstance(v, int) and not isinstance(v, bool)]
    if symbol == "**" and len(ints) == 2 and right > 0:
        bits = max(left.bit_length(), 1) * right
        if bits > MAX_BITS:
            raise RenderLimitError(f"{left} ** {right} is refused: a number of about {bits:,} "
                                   f"bits (at most {MAX_BITS:,})")
    elif symbol == "*" and len(ints) == 2:
        bits = left.bit_length() + right.bit_length()
        if bits > MAX_BITS:
            raise RenderLimitError(f"a product of about {bits:,} bits is refused (at most "
                                   f"{MAX_BITS:,})")
    elif symbol == "*" and len(ints) == 1:
        sequence = right if ints[0] is left else left
        if isinstance(sequence, _SIZED) and len(sequence) * ints[0] > MAX_VALUE:
            raise RenderLimitError(f"repeating a value of length {len(sequence):,} "
                                   f"{ints[0]:,} times is refused (at most {MAX_VALUE:,} "
                                   "characters or items)")
    elif symbol == "%" and isinstance(left, str):
        _refuse_widths(left)
        _refuse_product("the % formatting", [left, *(right if isinstance(right, tuple)
                                                     else (right,))])


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "*": operator.mul, "**": operator.pow, "%": operator.mod, "+": operator.add}


class ContextView(dict[str, Any]):
    """The run's context as a template sees it: `context.KEY` is the key, even `items`.

    Jinja2 looks attributes up before keys, so `{{ context.items }}` would show the dict's
    method; a user's key must mean the user's value.
    """


def context_view(value: Any) -> Any:
    """`value` (plain JSON data) with every mapping in it a `ContextView`."""
    if isinstance(value, Mapping):
        return ContextView({key: context_view(item) for key, item in value.items()})
    if isinstance(value, list):
        return [context_view(item) for item in value]
    return value


class BoundedSandbox(SandboxedEnvironment):
    """Jinja2's sandbox, with every rendering's work and sizes bounded (see the module)."""

    intercepted_binops = frozenset(_BINOPS)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """Refuse a `*`, `**` or `%` whose result would be too large, then apply it."""
        _refuse_binop(operator, left, right)
        result = _BINOPS[operator](left, right)
        budget = _BUDGET.get()
        return result if budget is None else budget.make(result)

    def call(__self, __context: Context, __obj: Any,  # noqa: N805 (Jinja2's own signature)
             *args: Any, **kwargs: Any) -> Any:
        """Count the call as a step and a level of nesting; refuse one too large."""
        budget = _step()
        owner = getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", "a function")
        # A macro's own work is counted inside it; most string methods only shorten.
        if not isinstance(__obj, Macro) and not (isinstance(owner, str)
                                                 and name not in _GROWING_METHODS):
            args = _listed(args)
            values = [*args, *kwargs.values(), *([owner] if isinstance(owner, _SIZED) else [])]
            _refuse_product(f"the call of {name}", values)
        if budget is None:
            return super().call(__context, __obj, *args, **kwargs)
        budget.depth += 1
        try:
            if budget.depth > MAX_DEPTH:
                raise RenderLimitError(f"calls nest more than {MAX_DEPTH} deep (a macro that "
                                       "calls itself without end?)")
            return budget.make(super().call(__context, __obj, *args, **kwargs))
        finally:
            budget.depth -= 1

    def getattr(self, obj: Any, attribute: str) -> Any:
        """A context key before an attribute of the same name (see `ContextView`)."""
        if isinstance(obj, ContextView) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        """A slice is a new value: it counts towards the rendering's total."""
        value = super().getitem(obj, argument)
        budget = _BUDGET.get()
        return budget.make(value) if budget is not None and isinstance(argument, slice) else value

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """`str.format` is refused a width or a product past the bound, as `%` is."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text: str = value.__self__
        _refuse_widths(text)

        def bounded(*args: Any, **kwargs: Any) -> str:
            values = [*args, *kwargs.values()]
            if len(values) == 1 and isinstance(values[0], Mapping):  # format_map
                values = list(values[0].values())
            _refuse_product("the call of format", [text, *values])
            return wrapped(*args, **kwargs)

        return bounded


def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` as a filter whose call counts as a step and is refused when too large."""
    passes = getattr(function, "jinja_pass_arg", None) is not None

    @functools.wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        budget = _step()
        if name not in _SHRINKING_FILTERS:
            args = _listed(args)
        value, rest = (args[1], args[2:]) if passes else (args[0], args[1:])
        if name == "format" and isinstance(value, str):
            _refuse_widths(value)
            _refuse_product("the filter 'format'", [value, *rest, *kwargs.values()])
        elif name not in _SHRINKING_FILTERS:
            _refuse_product(f"the filter {name!r}", [value, *rest, *kwargs.values()])
        elif name in _STRINGIFYING:
            _refuse_shown(f"the filter {name!r}", value, MAX_VALUE)
        result = function(*args, **kwargs)
        return result if budget is None else budget.make(result)

    return bounded


def _listed(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`args` with each iterator made a list, so that its length is known before the call.

    A filter's result (`map`, `select`) is an iterator; joining one with a long separator
    must be sized like joining a list.
    """
    return tuple(list(arg) if isinstance(arg, Iterator) else arg for arg in args)


@pass_context
def _shown(context: Context, value: Any) -> str:
    """An output of the template: counted like any value made."""
    _refuse_shown("showing it", value, MAX_OUTPUT)
    text = str(value)
    budget = _BUDGET.get()
    return text if budget is None else budget.make(text)


@pass_context
def _counted(context: Context, iterable: Any) -> Iterator[Any]:
    """A loop's items, each one step."""
    for item in iterable:
        _step()
        yield item


@pass_context
def _joined(context: Context, parts: list[Any]) -> str:
    """`a ~ b`: refused before joining when too long."""
    texts = [str(part) for part in parts]
    size = sum(len(text) for text in texts)
    if size > MAX_VALUE:
        raise RenderLimitError(f"joining with ~ would make a value of {size:,} characters "
                               f"(at most {MAX_VALUE:,})")
    budget = _BUDGET.get()
    return "".join(texts) if budget is None else budget.make("".join(texts))


class _Bounds(NodeTransformer):
    """Routes every loop, output and `~` of a template through the budget's filters.

    The filters take the context, so Jinja2 never folds them into constants at compile time
    (a loop repeating constant text must count too).
    """

    def visit_For(self, node: nodes.For) -> nodes.Node:  # noqa: N802 (visitor protocol)
        self.generic_visit(node)
        node.iter = _filtered(node.iter, "_counted")
        return node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:  # noqa: N802
        self.generic_visit(node)
        node.nodes = [_filtered(child, "_shown") for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:  # noqa: N802
        self.generic_visit(node)
        return _filtered(nodes.List(node.nodes, lineno=node.lineno), "_joined")


def _filtered(node: nodes.Node, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


def _environment() -> BoundedSandbox:
    # Undefined variables are errors; nothing is escaped (the output is a prompt, not HTML).
    env = BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=True,
                         autoescape=False)
    del env.globals["lipsum"]
    filters = {name: _bounded_filter(name, function) for name, function in env.filters.items()
               if name != "random"}
    filters.update(_shown=_shown, _counted=_counted, _joined=_joined)
    env.filters = filters
    return env


ENV = _environment()


def bounded_template(source: str) -> Template:
    """`source` compiled with its loops, outputs and `~` counted (see `_Bounds`)."""
    tree = _Bounds().visit(ENV.parse(source))
    return ENV.template_class.from_code(ENV, ENV.compile(tree), ENV.make_globals(None), None)


def bounded_render(template: Template, values: dict[str, Any],
                   seconds: float = MAX_SECONDS) -> str:
    """`template` rendered with `values` within the bounds (`seconds` of time).

    Raises:
        RenderLimitError: A bound was reached (the message names it).
    """
    token = _BUDGET.set(_Budget(deadline=time.monotonic() + seconds, seconds=seconds))
    pieces: list[str] = []
    size = 0
    try:
        for piece in template.generate(values):
            size += len(piece)
            if size > MAX_OUTPUT:
                raise RenderLimitError(f"the template renders more than {MAX_OUTPUT:,} "
                                       "characters")
            pieces.append(piece)
    finally:
        _BUDGET.reset(token)
    return "".join(pieces)
