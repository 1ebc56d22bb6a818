"""One error tree: everything the package raises on purpose derives from `Error`."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import llm_qualitative_sort
from llm_qualitative_sort import errors

PACKAGE = Path(llm_qualitative_sort.__file__).parent
# Exceptions used for control flow inside the package: none reaches a caller.
INTERNAL = {"CallCancelled", "CallsStopped", "Signalled", "OutputClosed"}


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
