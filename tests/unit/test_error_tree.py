"""One error tree: everything the package raises on purpose derives from `Error`."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import llm_qualitative_sort
from llm_qualitative_sort import errors

PACKAGE = Path(llm_qualitative_sort.__file__).parent
# Exceptions used for control flow inside the package: none reaches a caller.
# RenderLimitError is the sandbox's: rendering turns every error into a PromptTemplateError.
INTERNAL = {"CallCancelled", "CallsStopped", "Signalled", "OutputClosed", "RenderLimitError"}


def exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module in pkgutil.walk_packages([str(PACKAGE)], "llm_qualitative_sort."):
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__.startswith("llm_qualitative_sort")):
                found[name] = value
    return found


def test_every_exception_class_of_the_package_derives_from_error() -> None:
    classes = exception_classes()
    assert {"ProviderError", "RunStoppedError", "StorageError", "CacheError",
            "PromptTemplateError", "InvalidAnswerError", "MissingExtra"} <= set(classes)
    outside = sorted(name for name, cls in classes.items()
                     if name not in INTERNAL and not issubclass(cls, errors.Error))
    assert outside == []


def test_every_public_exception_is_exported_and_documented_in_the_tree() -> None:
    public = [name for name in llm_qualitative_sort.__all__
              if inspect.isclass(getattr(llm_qualitative_sort, name))
              and issubclass(getattr(llm_qualitative_sort, name), BaseException)]
    assert "Error" in public
    tree = errors.__doc__ or ""
    missing = [name for name in public if name not in tree]
    assert missing == []


def test_one_name_per_kind_of_fault() -> None:
    names = [node.name for path in PACKAGE.rglob("*.py")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ClassDef) and node.name.endswith("Error")]
    assert sorted(set(names)) == sorted(names), "an error class is defined twice"
    assert "StoreError" not in names  # a store that cannot be read is a StorageError


def test_the_builtin_bases_keep_earlier_handlers_working() -> None:
    assert issubclass(errors.InputError, ValueError)
    assert issubclass(errors.SettingTypeError, TypeError)
    assert issubclass(errors.StorageError, ValueError)
    assert issubclass(errors.CacheError, RuntimeError)
    assert issubclass(errors.RunStoppedError, RuntimeError)
    assert issubclass(errors.MissingExtra, ImportError)


def _refusals() -> list[tuple[str, object]]:
    import asyncio

    import llm_qualitative_sort as lqs
    from llm_qualitative_sort import metrics
    from llm_qualitative_sort.bradley_terry import fit_bradley_terry

    mock = lqs.MockLLMProvider(seed=0)

    def sorter(**options: object) -> lqs.QualitativeSorter:
        options.setdefault("checkpointer", None)
        return lqs.QualitativeSorter(mock, **options)  # type: ignore[arg-type]

    return [
        ("empty criteria", lambda: sorter(criteria=" ")),
        ("criteria of the wrong type", lambda: sorter(criteria=3)),
        ("a moved setting", lambda: sorter(criteria="c", budget=3)),
        ("a bad budget", lambda: lqs.Swiss(budget=-1)),
        ("an unknown field", lambda: lqs.Elimination(losses=2)),
        ("a bad seed", lambda: sorter(criteria="c", seed=2**80)),
        ("a bad scale", lambda: lqs.Scale.parse("1-12")),
        ("a bad provider knob", lambda: lqs.OpenAIProvider(api_key="k", timeout=-1)),
        ("a bad template", lambda: sorter(
            criteria="c", prompt=lqs.PromptTemplate(system="s", user="{{ text_a "))),
        ("duplicate items", lambda: asyncio.run(sorter(criteria="c").sort(["a", "a"]))),
        ("an unknown run", lambda: asyncio.run(sorter(criteria="c").resume("nope"))),
        ("a bad fit input", lambda: fit_bradley_terry(2, [0], [0], [1.0])),
        ("a bad metric input", lambda: metrics.kendall_tau([(1, ["a"])], ["a"])),
        ("a checkpoint of another database", lambda: sorter(criteria="c",
                                                             checkpointer="mysql://x")),
    ]


@pytest.mark.parametrize(("what", "refuse"), _refusals(), ids=[w for w, _ in _refusals()])
def test_except_error_catches_every_refusal(what: str, refuse: object) -> None:
    with pytest.raises(llm_qualitative_sort.Error):
        refuse()  # type: ignore[operator]
