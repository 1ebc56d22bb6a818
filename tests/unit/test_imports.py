"""The modules import each other in layers, without circles (read from their source).

That every module also imports on its own, cold, in a fresh interpreter is checked in
`tests/system/test_cold_imports.py`.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from _suite import PACKAGE_ROOT as ROOT
from _suite import package_modules as _modules


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _explained(lines: list[str], node: ast.stmt) -> bool:
    """Whether a comment says why this import waits: on its line or just above its block."""
    if "#" in lines[node.lineno - 1]:
        return True
    row = node.lineno - 2
    while row >= 0 and lines[row].strip().startswith(("from ", "import ", "#")):
        if lines[row].strip().startswith("#"):
            return True
        row -= 1
    return False


def _imports(path: Path) -> Iterator[tuple[ast.stmt, str | None]]:
    """The imports that run when the module is imported: (import, module it is in).

    Imports inside a function count too, unless a comment says why they wait; those under
    `if TYPE_CHECKING:` never run.
    """
    lines = path.read_text().splitlines()

    def walk(node: ast.AST, function: bool) -> Iterator[tuple[ast.stmt, str | None]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                yield from (pair for item in child.orelse for pair in walk(item, function))
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                if not (function and _explained(lines, child)):
                    yield child, None
            else:
                inside = function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                yield from walk(child, inside)

    yield from walk(ast.parse(path.read_text()), False)


def _type_only_imports(path: Path) -> Iterator[ast.stmt]:
    """The imports under `if TYPE_CHECKING:`, which only the type checker follows."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (item for item in node.body
                        if isinstance(item, (ast.Import, ast.ImportFrom)))


def _targets(module: str, node: ast.stmt, known: set[str], packages: bool = True) -> set[str]:
    """The package's modules that an import loads, its packages' `__init__`s included.

    Without `packages`, only the modules the import names (what a type checker reads).
    """
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        base = node.module or ""
        if node.level:
            package = module.split(".")[: len(module.split(".")) - node.level + (
                1 if (ROOT.parent / Path(*module.split("."))).is_dir() else 0)]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                 for alias in node.names]
    if not packages:
        return {name for name in names if name in known and name != module}
    loaded = set()
    for name in names:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            # Importing a module runs its own packages' __init__ first, never in a circle.
            if prefix in known and not module.startswith(prefix + ".") and prefix != module:
                loaded.add(prefix)
    return loaded


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    # Deep enough for the package's import chains; given back after, since other tests
    # (a JSON file nested too deep to read) depend on the interpreter's own limit.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_the_package_has_no_import_circles() -> None:
    modules = _modules()
    known = set(modules)
    graph = {module: set[str]() for module in modules}
    for module, path in modules.items():
        for node, _ in _imports(path):
            graph[module] |= _targets(module, node, known)
    circles = _circles(graph)
    assert not circles, "modules that import each other:\n" + "\n".join(
        "  " + ", ".join(circle) + "\n    " + "; ".join(
            f"{a} -> {b}" for a in circle for b in sorted(graph[a]) if b in circle)
        for circle in circles)


def test_no_circles_even_through_type_only_imports() -> None:
    """A module that needs its importer's types for its own signatures belongs with it.

    The imports under `if TYPE_CHECKING:` count here, each joining the modules it names
    (the packages' `__init__`s it would run do not matter to it): such a circle does not fail
    at import time, but it ties two modules into one.
    """
    modules = _modules()
    known = set(modules)
    graph = {module: set[str]() for module in modules}
    for module, path in modules.items():
        for node, _ in _imports(path):
            graph[module] |= _targets(module, node, known, packages=False)
        for node in _type_only_imports(path):
            graph[module] |= _targets(module, node, known, packages=False)
    circles = _circles(graph)
    assert not circles, "modules that import each other, for types at least:\n" + "\n".join(
        "  " + ", ".join(circle) for circle in circles)


def test_no_module_imports_another_modules_private_names() -> None:
    """A name another module needs is not `_private`; one that only its module needs stays there.

    Modules once split from one module imported its private names back; none does now.
    """
    modules = _modules()
    taken = []
    for module, path in modules.items():
        for node, _ in _imports(path):
            if not isinstance(node, ast.ImportFrom):
                continue
            (target,) = _targets(module, node, set(modules), packages=False) or {""}
            if not target:  # not ours
                continue
            # `from package import _module` names a module, not a private name.
            taken += [f"{module} takes {target}.{alias.name}" for alias in node.names
                      if alias.name.startswith("_") and f"{target}.{alias.name}" not in modules
                      and not target.endswith(f".{alias.name}")]
    assert not taken, "\n".join(taken)


def _room(module: str) -> str | None:
    """The room of a module: its top-level module or sub-package (None: the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_rooms_import_one_way() -> None:
    """The top-level modules and sub-packages import each other in layers, arrows included.

    Every import counts here, however it waits: at the top of a module, inside a function, or
    under `if TYPE_CHECKING:`. Two rooms that reach each other by any of them are one
    concept cut in two, or a type or function that lives a floor too high.
    """
    modules = _modules()
    known = set(modules)
    rooms = {room for module in modules if (room := _room(module)) is not None}
    graph = {room: set[str]() for room in rooms}
    arrows: dict[tuple[str, str], set[str]] = {}
    # The front door reaches every room, so a room that imports from it hides its arrows.
    front_door = []
    for module, path in modules.items():
        source = _room(module)
        if source is None:  # the package's front door re-exports every room
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(module, node, known, packages=False):
                room = _room(target)
                if room is None:
                    front_door.append(f"{module}:{node.lineno}")
                if room is None or room == source:
                    continue
                graph[source].add(room)
                arrows.setdefault((source, room), set()).add(f"{module} -> {target}")
    assert not front_door, f"imports from the package itself: {front_door}"
    circles = _circles(graph)
    assert not circles, "rooms that import each other:\n" + "\n".join(
        "  " + ", ".join(circle) + "".join(
            f"\n    {line}" for a in circle for b in sorted(graph[a]) if b in circle
            for line in sorted(arrows[(a, b)]))
        for circle in circles)
