"""`parse_decimal`: a locale-formatted number read into the field's decimal type. The format becomes one anchored
pattern, written here once for every engine (classes, `{m,n}`, `|`, capturing groups only: RE2,
POSIX ARE/ERE and Java read it alike), and a list of texts to remove from a value that matched;
the decimal separator then becomes '.', and the text is cast like any other. A value that does
not match is a coercion failure; so is one the cast refuses (too many integer digits).

    blanks* ( sign? N | sign? C blanks* N | C blanks* sign N | sign? N blanks* C ) blanks*
    N = ( d{1,3} (G d{3})+ | d+ ) (D d+)?        (without a group separator: d+ (D d+)?)

Blanks are the space, U+00A0 and U+202F; a blank group separator stands for any of the three.
"""
from __future__ import annotations

import difflib
import re
from decimal import Decimal

from .steps import ChainError, need, type_ir

EXAMPLE = '{parse_decimal: {decimal: ",", group: ".", currency: ["€", "EUR"]}}'
_BLANKS = (" ", "\u00a0", "\u202f")
_BLANK = "[" + "".join(_BLANKS) + "]"
_DECIMAL_OPTIONS = ("decimal", "group", "currency")


def _regex_char(ch: str) -> str:
    """`ch` as a literal in every engine's regex: a class where that is enough (no backslash to
    travel through each dialect's string literals), an escape where a class would not be."""
    if ch in "[]\\^":
        return "\\" + ch
    if ch in ".$|()*+?{}":
        return "[" + ch + "]"
    return ch


def _separator(options: dict, key: str) -> str | None:
    value = options.get(key)
    if value is None:
        return None
    if key == "group" and value == "space":
        return " "
    if value == "":
        # spec text is read without its surrounding blanks: `" "` arrives empty
        raise ChainError(None, f"`parse_decimal` {key} separator is empty (a quoted blank is read as empty)",
                         "write `group: space` for a blank (any of space, U+00A0, U+202F), or leave `group` out "
                         "when values have none" if key == "group" else 'write one character, e.g. `decimal: ","`')
    if not isinstance(value, str):
        raise ChainError(None, f"`parse_decimal` option `{key}` is {value!r}: it is one character",
                         f'write it quoted, e.g. `{key}: ","`')
    if len(value) != 1:
        raise ChainError(None, f"`parse_decimal` {key} separator {value!r} is not one character",
                         f'write one character, e.g. `{key}: ","`' + (", or `group: space` for a blank" if key == "group" else ""))
    if value.isdigit():
        raise ChainError(None, f"`parse_decimal` {key} separator {value!r} is a digit",
                         "separators are punctuation such as , . ' (or `group: space`)")
    if value in "+-":
        raise ChainError(None, f"`parse_decimal` {key} separator {value!r} is a sign",
                         "separators are punctuation such as , . ' (or `group: space`)")
    if value.isalpha():
        raise ChainError(None, f"`parse_decimal` {key} separator {value!r} is a letter",
                         "separators are punctuation such as , . ' (or `group: space`)")
    if value.isspace() and (key == "decimal" or value not in _BLANKS):
        raise ChainError(None, f"`parse_decimal` {key} separator {value!r} is a blank"
                         + (", which surrounds values" if key == "decimal" else " other than a space, U+00A0 or U+202F"),
                         "write the decimal separator as , or ." if key == "decimal" else "write `group: space` (it stands for every blank)")
    return value


def _currencies(options: dict, separators: set[str]) -> list[str]:
    value = options.get("currency")
    if value is None:
        return []
    symbols = [value] if isinstance(value, str) else value
    if not isinstance(symbols, list) or not all(isinstance(c, str) for c in symbols):
        raise ChainError(None, f"`parse_decimal` option `currency` is {value!r}",
                         'write a symbol or a list of them: `currency: ["€", "EUR"]`')
    if not symbols:
        raise ChainError(None, "`parse_decimal` currency lists no symbol: give at least one, or leave `currency` out",
                         'write e.g. `currency: ["€", "EUR"]`')
    for c in symbols:
        problem = ("is empty" if not c else
                   "holds a digit" if any(ch.isdigit() for ch in c) else
                   "holds a sign" if any(ch in "+-" for ch in c) else
                   "holds a blank" if any(ch.isspace() for ch in c) else
                   "is made of the separators only" if set(c) <= separators else None)
        if problem:
            raise ChainError(None, f"`parse_decimal` currency symbol {c!r} {problem}: a value could read two ways",
                             "a currency symbol has no digit, sign or blank and is not made of the separators "
                             "(€, EUR, Fr. and kr. are fine)")
    if len(set(symbols)) != len(symbols):
        raise ChainError(None, "`parse_decimal` currency names a symbol twice", "list each symbol once")
    # longest first: a symbol inside another (`$` in `US$`) never splits it
    return sorted(symbols, key=lambda c: (-len(c), c))


def lower(t, args, declared):
    need(t, ("string",), "parse_decimal")
    options = args[0]
    unknown = [k for k in options if k not in _DECIMAL_OPTIONS]
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), _DECIMAL_OPTIONS, n=1)
        raise ChainError(None, f"`parse_decimal` has no option `{unknown[0]}`; its options are decimal, group, currency",
                         f"did you mean `{close[0]}`?" if close else f"write it as {EXAMPLE}")
    if "decimal" not in options:
        raise ChainError(None, "`parse_decimal` needs its `decimal` separator",
                         f"write it as {EXAMPLE}")
    decimal = _separator(options, "decimal")
    group = _separator(options, "group")
    if group is not None and (group == decimal):
        raise ChainError(None, f"`parse_decimal` format is ambiguous: decimal and group separator are both {decimal!r}, "
                         f"so `1{decimal}234` could read 1234 or 1.234", "the decimal and group separators must differ, "
                         'e.g. `{decimal: ",", group: "."}`; leave `group` out when values have none')
    currency = _currencies(options, {decimal} | ({group} if group else set()))
    if declared.name != "decimal":
        raise ChainError(None, f"`parse_decimal` reads a number into the field's decimal type, but the field is declared {declared}",
                         "declare the field decimal(p,s): the parse reads into that width")
    digits = "[0-9]"
    g = None if group is None else (_BLANK if group in _BLANKS else _regex_char(group))
    integer = f"{digits}+" if g is None else f"({digits}{{1,3}}({g}{digits}{{3}})+|{digits}+)"
    number = f"{integer}({_regex_char(decimal)}{digits}+)?"
    sign = "[+-]"
    if currency:
        c = "(" + "|".join("".join(_regex_char(ch) for ch in sym) for sym in currency) + ")"
        body = (f"({sign}?{number}|{sign}?{c}{_BLANK}*{number}|{c}{_BLANK}*{sign}{number}"
                f"|{sign}?{number}{_BLANK}*{c})")
    else:
        body = f"{sign}?{number}"
    pattern = f"^{_BLANK}*{body}{_BLANK}*$"
    # what a value that matched is cleared of, in order: the currency, blanks, a plus sign, the
    # group separator (a blank one went with the blanks); then the decimal separator becomes '.'
    remove = currency + list(_BLANKS) + ["+"] + ([group] if group and group not in _BLANKS else [])
    sample = f"-1{group or ''}234{decimal}50" + (f" {currency[-1]}" if currency else "")
    # a matched value with a non-zero digit past the field's scale would be rounded by the cast:
    # a coercion failure unless the step opts into rounding (the macro then skips this test)
    past = f"{digits}{{{declared.scale}}}" if declared.scale else ""
    excess = f"{_regex_char(decimal)}{past}{digits}*[1-9]"
    return declared, {"op": "parse_decimal", "pattern": pattern, "remove": remove, "decimal": decimal,
                      "excess": excess, "sample": sample, "type": type_ir(declared)}


def parse_decimal_value(text: str | None, step: dict) -> Decimal | None:
    """What a `parse_decimal` step makes of `text`, as the SQL does: None where the value is a
    coercion failure (or NULL). The reference the engines are tested against."""
    if text is None or not re.fullmatch(step["pattern"], text):
        return None
    original = text
    for part in step["remove"]:
        text = text.replace(part, "")
    value = Decimal(text.replace(step["decimal"], "."))
    t = step["type"]
    if "round" not in step and re.search(step["excess"], original):
        return None
    value = value.quantize(Decimal(1).scaleb(-t["scale"]), rounding="ROUND_HALF_UP")
    return value if len(value.as_tuple().digits) - t["scale"] <= t["precision"] - t["scale"] else None
