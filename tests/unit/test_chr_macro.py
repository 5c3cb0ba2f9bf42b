"""bloomery.chr writes a code point into SQL as a number: anything but an integer code point is
refused before any engine's form sees it, and the ISO default is a six-hex-digit escape."""
from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

MACROS = Path(__file__).resolve().parents[2] / "macros"


class _Refused(Exception):
    pass


def _chr(point):
    """bloomery.chr rendered with plain Jinja, dispatching to its default__ (as dbt would on an
    engine without its own form)."""
    returned = []
    env = jinja2.Environment()
    module_holder = {}
    env.globals.update({
        "return": lambda value: returned.append(value) or "",
        "adapter": type("Dispatch", (), {"dispatch": staticmethod(lambda name, package: getattr(module_holder["m"], "default__" + name))}),
        "exceptions": type("Exceptions", (), {"raise_compiler_error": staticmethod(lambda msg: (_ for _ in ()).throw(_Refused(msg)))}),
    })
    module_holder["m"] = env.from_string((MACROS / "rules" / "chr.sql").read_text()).module
    module_holder["m"].chr(point)
    (value,) = returned
    return str(value)


@pytest.mark.parametrize("point,sql", [(0, "U&'\\+000000'"), (65, "U&'\\+000041'"), (0x10FFFF, "U&'\\+10FFFF'")])
def test_a_code_point_is_a_six_digit_escape(point, sql):
    assert _chr(point) == sql


@pytest.mark.parametrize("hostile", ["65') or 1=1 --", "0x41", "65", -1, 0x110000, 65.5, True, None, [65]])
def test_anything_but_a_code_point_is_refused(hostile):
    with pytest.raises(_Refused, match="code point"):
        _chr(hostile)


def test_the_escape_holds_only_hex_digits():
    for point in (0, 9, 10, 255, 0xD7FF, 0xFFFF, 0x10FFFF):
        assert re.fullmatch(r"U&'\\\+[0-9A-F]{6}'", _chr(point))
