"""The transforms: their signatures, and the type-check that lowers a chain to IR steps.

A chain starts at type `string` (every bronze extraction is text). Each step checks its input
type and arguments and yields one dialect-free IR step for the macros to render. Casts are
where a value can fail to convert: in an entity that joined the quality system they become
safe casts, and each one is a coercion point that the implicit `coercible` rule watches.

REGISTRY is the one list of transforms: the reference in docs/spec-keys.md is generated from it
(`reference.py`), and the mapping schema's name lists are checked against it.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from . import decimal_text
from .literals import literal_digits, literal_for
from .rounding import ROUNDED, ROUNDING_KEY, split_rounding
from .steps import ChainError, cast_step, conversion_hint, need, type_ir
from .temporal import lower_to_utc, parse_temporal
from .types import BOOL, DATE, INT, STRING, TIMESTAMP, VARIANT, SpecType, assignable

STR, INT_ARG, NUMBER, LITERAL, OPTIONS = "STR", "INT", "NUMBER", "LITERAL", "OPTIONS"
NULLIFYING = frozenset({"split_part", "regex_extract", "nullif", "json_path"})
MAX_PRECISION = 38


@dataclass
class Lowered:
    steps: list[dict]
    type: SpecType
    nullifying: bool          # some step may turn a value into NULL without a cast failing
    casts: int = 0            # number of coercion points (safe casts when quality is on)
    names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Signature:
    args: tuple               # arg kinds; a trailing "*" kind means variadic
    lower: Callable           # (input type, args[, declared type]) -> (output type, IR step)
    # the reference (docs/spec-keys.md, hints): how it is written and what it does
    example: str = ""         # one step, in YAML
    params: str = "–"         # its arguments, in words
    types: str = ""           # input -> output
    doc: str = ""             # what it does, and what it does with a value it cannot take
    declared: bool = False    # `lower` also takes the field's declared type


def _number(value: Any, name: str) -> str:
    text = str(value)
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        raise ChainError(None, f"`{name}` needs a finite decimal number, got {value!r}",
                         "write it like 100 or \"0.5\" (quoted)")
    return text


def _decimal_arith(name):
    def lower(t: SpecType, args):
        need(t, ("decimal",), name)
        literal = _number(args[0], name)
        if name == "divide" and Decimal(literal) == 0:
            raise ChainError(None, "`divide` by zero")
        p2, s2 = literal_digits(literal)
        p, s = t.precision + p2, t.scale + s2
        if p > MAX_PRECISION:
            raise ChainError(None, f"`{name}` by {literal} needs decimal({p},{s}), above the cap of {MAX_PRECISION} digits",
                             "reduce the precision with a `to_decimal` before it")
        out = SpecType("decimal", p, s)
        return out, {"op": name, "literal": literal, "type": type_ir(out)}
    return lower


def _string_op(op, *names):
    def lower(t: SpecType, args):
        need(t, ("string",), op)
        return STRING, {"op": op, **dict(zip(names, args))}
    return lower


def _regex_extract(t, args):
    # a pattern the engine cannot compile, or a group it does not have, would abort every run:
    # refused here (Python's `re` stands in for the engines' parsers, which accept less, not more)
    need(t, ("string",), "regex_extract")
    pattern, group = args
    try:
        groups = re.compile(pattern).groups
    except re.error as exc:
        raise ChainError(None, f"`regex_extract` pattern {pattern!r} does not compile: {exc}",
                         "escape a literal ( [ { \\ with a backslash") from None
    if not 0 <= group <= groups:
        raise ChainError(None, f"`regex_extract` asks for group {group}, but {pattern!r} has groups 0 to {groups}",
                         "use 0 for the whole match, or add a (...) group to the pattern")
    return STRING, {"op": "regex_extract", "pattern": pattern, "group": group}


def _to_int(t, args):
    need(t, ("string", "int", "decimal", "bool"), "to_int")
    if t.name == "int":
        return INT, {"op": "noop"}
    return cast_step(INT, via_int=(t.name == "bool"))


def _to_decimal(t, args):
    p, s = args
    if not (1 <= p <= MAX_PRECISION and 0 <= s <= p):
        raise ChainError(None, f"`to_decimal` needs 1 <= p <= 38 and 0 <= s <= p, got [{p}, {s}]")
    need(t, ("string", "int", "decimal"), "to_decimal")
    return cast_step(SpecType("decimal", p, s))


def _to_bool(t, args):
    need(t, ("string", "int", "bool"), "to_bool")
    if t.name == "int":
        return BOOL, {"op": "int_to_bool"}
    if t.name == "bool":
        return BOOL, {"op": "noop"}
    return cast_step(BOOL)


def _to_string(t, args):
    if t.name == "string":
        return STRING, {"op": "noop"}
    return STRING, {"op": "cast", "type": type_ir(STRING), "marker": False}


def _coalesce(t, args):
    return t, {"op": "coalesce", "literal": literal_for(t, args[0], "coalesce"), "type": type_ir(t)}


def _nullif(t, args):
    return t, {"op": "nullif", "literal": literal_for(t, args[0], "nullif"), "type": type_ir(t)}


def _json_path(t, args):
    need(t, ("variant", "string"), "json_path")
    if not re.fullmatch(r"\$(\.[A-Za-z_][A-Za-z0-9_]*)+", args[0]):
        raise ChainError(None, f"`json_path` path {args[0]!r} is not of the form $.a.b")
    # `text`: the input is a document still to be parsed, which may not parse (a variant already did)
    return VARIANT, {"op": "json_path", "path": args[0], "text": t.name == "string"}


def _round(t, args):
    d = args[0]
    if d < 0:
        raise ChainError(None, "`round` needs digits >= 0")
    need(t, ("int", "decimal"), "round")
    if t.name == "int":
        return INT, {"op": "round", "digits": d, "type": type_ir(INT)}
    out = SpecType("decimal", max(t.precision - t.scale + d, d, 1), d)
    if out.precision > MAX_PRECISION:
        raise ChainError(None, f"`round` result {out} exceeds {MAX_PRECISION} digits")
    return out, {"op": "round", "digits": d, "type": type_ir(out)}


def _abs(t, args):
    need(t, ("int", "decimal"), "abs")
    return t, {"op": "abs"}


def _enum_map(t, args):
    need(t, ("string",), "enum_map")
    if len(args) < 2 or len(args) % 2:
        raise ChainError(None, "`enum_map` takes pairs: [from, to, from, to, ...]",
                         "give an even number of values, at least two")
    pairs = [[str(args[i]), str(args[i + 1])] for i in range(0, len(args), 2)]
    return STRING, {"op": "enum_map", "pairs": pairs}


def _convert(t, args):
    need(t, ("decimal",), "convert")
    return t, {"op": "convert", "currency": args[0]}


_CAST_FAILS = "A value that does not convert is a coercion failure (`coercible`)."
_LOSSY = ("A value that would lose digits ({what}) is a coercion failure too, unless the step opts into "
          "rounding: `{example}` (a half goes away from zero: {halves}). Trailing zeros lose nothing.")
_NULLS = ("Nullifying: its NULL is on purpose and no coercion failure; a value it passes on that a later cast "
          "cannot take still is.")

REGISTRY: dict[str, Signature] = {
    "trim": Signature((), _string_op("trim"), "trim", types="string → string",
                      doc="Removes leading and trailing spaces."),
    "upper": Signature((), _string_op("upper"), "upper", types="string → string", doc="Upper-cases the text."),
    "lower": Signature((), _string_op("lower"), "lower", types="string → string", doc="Lower-cases the text."),
    "split_part": Signature((STR, INT_ARG), _string_op("split_part", "delimiter", "index"), '{split_part: ["-", 1]}',
                            "delimiter (string), index (integer, from 1)", "string → string",
                            "The index-th part of the text split on the delimiter. " + _NULLS),
    "regex_extract": Signature((STR, INT_ARG), _regex_extract, '{regex_extract: ["^([A-Z]+)", 1]}',
                               "pattern (string), group (integer, 0 = the whole match)", "string → string",
                               "The group's text of the pattern's first match; the pattern must compile and "
                               "have that group. " + _NULLS),
    "strip_prefix": Signature((STR,), _string_op("strip_prefix", "value"), '{strip_prefix: "CUS-"}',
                              "prefix (string)", "string → string", "Removes the prefix when the text starts with it."),
    "strip_suffix": Signature((STR,), _string_op("strip_suffix", "value"), '{strip_suffix: " EUR"}',
                              "suffix (string)", "string → string", "Removes the suffix when the text ends with it."),
    "concat": Signature((STR,), _string_op("concat", "value"), '{concat: "-A"}',
                        "suffix (string)", "string → string", "Appends the text."),
    "enum_map": Signature((STR, "*"), _enum_map, "{enum_map: [sent, shipped, done, completed]}",
                          "pairs from, to, from, to, … (strings, an even number)", "string → string",
                          "Rewrites each `from` spelling to its `to`; other values pass unchanged (judge them "
                          "with `in_enum`)."),
    "to_string": Signature((), _to_string, "to_string", types="any → string", doc="Casts to text."),
    "to_int": Signature((), _to_int, "to_int", types="string, int, decimal, bool → int",
                        doc="Casts to a 64-bit integer; text is read as a decimal number (`12.0` is 12). "
                        + _CAST_FAILS + " " + _LOSSY.format(what="a fraction, `12.7`",
                                                            example="{name: to_int, rounding: half_away_from_zero}",
                                                            halves="12.5 is 13, -12.5 is -13")),
    "to_decimal": Signature((INT_ARG, INT_ARG), _to_decimal, "{to_decimal: [12, 4]}",
                            "precision p, scale s (integers, 1 ≤ p ≤ 38, 0 ≤ s ≤ p)",
                            "string, int, decimal → decimal(p,s)",
                            "Casts to decimal(p,s); the text is `1234.5` (a dot, no group separator: see "
                            "`parse_decimal`). " + _CAST_FAILS + " " + _LOSSY.format(
                                what="`2.962` into decimal(8,1)",
                                example="{to_decimal: [8, 1], rounding: half_away_from_zero}",
                                halves="2.25 is 2.3, -2.25 is -2.3")),
    "to_bool": Signature((), _to_bool, "to_bool", types="string, int, bool → bool",
                         doc="Casts to boolean; an integer is true when it is not 0. " + _CAST_FAILS),
    "parse_ts": Signature((STR,), parse_temporal(TIMESTAMP, "parse_ts"), "{parse_ts: ISO8601}",
                          "format (string): ISO8601, or %Y %m %d %H %M %S with separators", "string → timestamp",
                          "Reads a timestamp (ISO8601: an offset is converted to UTC). " + _CAST_FAILS),
    "parse_date": Signature((STR,), parse_temporal(DATE, "parse_date"), '{parse_date: "%d/%m/%Y"}',
                            "format (string): ISO8601, or %Y %m %d with separators", "string → date",
                            "Reads a date. " + _CAST_FAILS),
    "parse_decimal": Signature((OPTIONS,), decimal_text.lower,
                               decimal_text.EXAMPLE,
                               "options: `decimal` (one character, required), `group` (one character, or `space` "
                               "for any blank; none when left out), `currency` (a symbol or a list)",
                               "string → the field's decimal(p,s)",
                               "Reads a locale-formatted number: `12,50 €` is 12.50, `1.234,50` is 1234.50. "
                               "Groups are three digits; a sign and a currency symbol may come before or after; "
                               "blanks around are ignored. A value that does not match the format, or does not "
                               "fit the field, is a coercion failure (`coercible`), like a failed cast; so is one "
                               "with more fractional digits than the field's scale, unless the step says "
                               "`rounding: half_away_from_zero`. A format that could read a text two ways is "
                               "refused.", declared=True),
    "to_utc": Signature((STR,), lower_to_utc, "{to_utc: Europe/Paris}", "zone (IANA name)", "timestamp → timestamp",
                        "Reads a zoneless wall-clock time in the zone and gives it in UTC."),
    "coalesce": Signature((LITERAL,), _coalesce, '{coalesce: "0"}', "literal (string or integer) of the value's type",
                          "T → T", "Replaces NULL with the literal. After a cast it does not hide a failed one "
                          "(`coercible` is judged at the cast)."),
    "nullif": Signature((LITERAL,), _nullif, '{nullif: "n/a"}', "literal (string or integer) of the value's type",
                        "T → T", "Gives NULL for the literal. " + _NULLS),
    "json_path": Signature((STR,), _json_path, '{json_path: "$.a.b"}', "path (`$.a.b`)", "variant, string → variant",
                           "The JSON value at the path; a text that is not JSON gives NULL. " + _NULLS),
    "multiply": Signature((NUMBER,), _decimal_arith("multiply"), '{multiply: "0.01"}',
                          "factor (integer or quoted decimal)", "decimal(p1,s1) → decimal(p1+p2, s1+s2)",
                          "Multiplies by the literal (p2, s2: its digits); a result over 38 digits is refused. "
                          "A value that outgrows the width is a coercion failure."),
    "divide": Signature((NUMBER,), _decimal_arith("divide"), "{divide: 100}",
                        "divisor (integer or quoted decimal, not 0)", "decimal(p1,s1) → decimal(p1+p2, s1+s2)",
                        "Divides by the literal (inexact on DuckDB). A value that outgrows the width is a "
                        "coercion failure."),
    "round": Signature((INT_ARG,), _round, "{round: 2}", "digits (integer ≥ 0)",
                       "int → int; decimal(p,s) → decimal(max(p−s+d, d, 1), d)", "Rounds to the digits."),
    "abs": Signature((), _abs, "abs", types="int, decimal → the same", doc="The absolute value."),
    "convert": Signature((STR,), _convert, "{convert: EUR}", "currency (string)", "decimal → decimal",
                         "Currency conversion: type-checks, then refused by `bloomery compile` (no dbt target "
                         "here provides rates)."),
}


def normalize_step(step: Any) -> tuple[str, list]:
    """The four spellings of a step -> (name, args). Booleans become 1/0 (v1 behaviour)."""
    if isinstance(step, str):
        name, args = step, []
    elif isinstance(step, dict) and "name" in step and set(step) <= {"name", "args"}:
        name, args = step["name"], step.get("args") or []
    elif isinstance(step, dict) and len(step) == 1:
        (name, args), = step.items()
        args = [] if args is None else args if isinstance(args, list) else [args]
    else:
        raise ChainError(None, f"malformed transform step {step!r}",
                         "write `trim`, `{to_decimal: [12, 4]}` or `{name: x, args: [...]}`", malformed=True)
    if not isinstance(args, list):
        args = [args]
    if not isinstance(name, str) or not all(isinstance(a, (str, int)) or _is_options(a) for a in args):
        raise ChainError(None, f"malformed transform step {step!r}: a step is a name and string or integer "
                         "arguments (or a map of named options)",
                         "write `trim`, `{to_decimal: [12, 4]}` or `{name: x, args: [...]}`", malformed=True)
    return name, [int(a) if isinstance(a, bool) else a for a in args]


def _is_options(arg) -> bool:
    return isinstance(arg, dict) and all(isinstance(k, str) for k in arg)


def _check_args(name: str, sig: Signature, args: list):
    kinds = list(sig.args)
    variadic = bool(kinds) and kinds[-1] == "*"
    if variadic:
        kinds = kinds[:-1]
        expected = [kinds[0]] * len(args) if args else kinds
    else:
        expected = kinds
        if len(args) != len(kinds):
            raise ChainError(None, f"`{name}` takes {len(kinds)} argument(s), got {len(args)}",
                             f"write it as {EXAMPLES[name]}")
    for kind, arg in zip(expected, args):
        ok = {
            STR: isinstance(arg, str),
            INT_ARG: isinstance(arg, int),
            NUMBER: isinstance(arg, (int, str)),
            LITERAL: isinstance(arg, (int, str)),
            OPTIONS: _is_options(arg),
        }[kind]
        if not ok:
            raise ChainError(None, f"`{name}` argument {arg!r} must be {_KIND_WORDS[kind]}",
                             f"write it as {EXAMPLES[name]}")


# How each transform is written, for hints.
EXAMPLES = {name: f"`{sig.example}`" for name, sig in REGISTRY.items()}
_KIND_WORDS = {STR: "a string", INT_ARG: "an integer", NUMBER: "an integer or a quoted decimal",
               LITERAL: "a string or an integer", OPTIONS: "a map of named options"}


def lower_chain(chain: list, declared: SpecType) -> Lowered:
    """Type-check `chain` from string to `declared`. Raises ChainError with the step index."""
    current = STRING
    steps: list[dict] = []
    nullifying = False
    names = []
    for index, raw in enumerate(chain or []):
        try:
            raw, rounding = split_rounding(raw)
            name, args = normalize_step(raw)
            sig = REGISTRY.get(name)
            if sig is None:
                raise unknown_transform(name)
            _check_args(name, sig, args)
            if rounding is not None and name not in ROUNDED:
                raise ChainError(None, f"`{ROUNDING_KEY}:` opts a numeric cast into rounding, but `{name}` is no "
                                 "cast to a number", f"put `{ROUNDING_KEY}:` on the to_int, to_decimal or "
                                 "parse_decimal step that rounds, or drop it")
            before = current
            current, step = sig.lower(current, args, declared) if sig.declared else sig.lower(current, args)
            _mark_source(step, before)
            if rounding is not None and step["op"] != "noop":
                step["round"] = rounding
        except ChainError as exc:
            exc.index = index
            raise
        names.append(name)
        nullifying = nullifying or name in NULLIFYING
        if step["op"] == "convert":
            step["chain_index"] = index  # so a target that refuses it can point at the step
        if step["op"] != "noop":
            steps.append(step)
    if current != declared:
        if not chain or assignable(current, declared):
            _, step = cast_step(declared, final=True)
            _mark_source(step, current)
            if current.name == "bool" and declared.name == "string":
                step["marker"] = False
            steps.append(step)
        else:
            raise ChainError(None, f"the chain produces {current} but the field is declared {declared}",
                             conversion_hint(current, (declared.name,)) or "end the chain with a conversion to the declared type")
    casts = sum(1 for s in steps if _is_coercion_point(s))
    return Lowered(steps, declared, nullifying, casts, names)


def unknown_transform(name: str) -> ChainError:
    """Refusing a name that is not a transform: every known one, and the closest."""
    close = difflib.get_close_matches(name, REGISTRY, n=1) or difflib.get_close_matches(name.lower(), REGISTRY, n=1)
    known = ", ".join(f"`{n}`" for n in sorted(REGISTRY))
    return ChainError(None, f"unknown transform `{name}`; the transforms are {known}",
                      f"did you mean `{close[0]}`?" if close else
                      "write one of them; docs/spec-keys.md (Transforms) gives each one's arguments and an example",
                      unknown=True)


def _mark_source(step: dict, source: SpecType):
    """A cast from a typed value (not bronze text) says so: an engine whose NULL-on-failure cast
    reads text (Postgres' pg_input_is_valid) must not round-trip such a value through text."""
    if step["op"] == "cast" and source.name != "string":
        step["from_type"] = source.name


def can_fail(low: Lowered, json_source: bool) -> bool:
    """Whether a mapped column's value can fail to coerce, where the macros test a failure marker
    (macros/transforms/column_value.sql): a JSON document read from text (`from: "$.col.path"`),
    a cast or a parse, or arithmetic cast back to a width it can outgrow. A column with none of
    these has nothing an implicit `coercible` rule could catch."""
    return json_source or any(_is_coercion_point(s) or s["op"] in ("multiply", "divide", "round") for s in low.steps)


def _is_coercion_point(step: dict) -> bool:
    return (step["op"] == "cast" and step.get("marker", True)) or step["op"] in ("parse_format", "parse_decimal")
