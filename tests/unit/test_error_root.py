"""One error root (issue 21): every exception class bloomery defines is a BloomeryError, so a
caller (the CLI, an editor integration, a test) catches bloomery's refusals with one `except`
and nothing else by accident. Found by walking the package, so a new module's class is checked
without anyone listing it here."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import bloomery
from bloomery.errors import BloomeryError, Refusal


def _exception_classes():
    for info in pkgutil.walk_packages(bloomery.__path__, "bloomery."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == info.name:
                yield cls


def test_every_exception_bloomery_defines_is_under_the_root():
    classes = list(_exception_classes())
    # the walk reaches the modules whose refusals were outside the root before
    names = {c.__name__ for c in classes}
    assert {"ChainError", "ExpressionError", "PortableRegexError", "DbtQueryError", "TypeCheckError"} <= names
    assert [c.__qualname__ for c in classes if not issubclass(c, BloomeryError)] == []


def test_a_refusal_reads_as_its_message_alone():
    # the compiler puts the location in front of it; a refusal must not bring one of its own
    assert str(Refusal("`to_int` takes string", "add `to_string` before it")) == "`to_int` takes string"
