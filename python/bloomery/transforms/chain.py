"""The 24 transforms: their signatures, and the type-check that lowers a chain to IR steps.

A chain starts at type `string` (every bronze extraction is text). Each step checks its input
type and arguments and yields one dialect-free IR step for the macros to render. Casts are
where a value can fail to convert: in an entity that joined the quality system they become
safe casts, and each one is a coercion point that the implicit `coercible` rule watches.
"""
from __future__ import annotations

import difflib
import re
import zoneinfo
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Callable

from .types import BOOL, DATE, INT, STRING, TIMESTAMP, VARIANT, SpecType, assignable

STR, INT_ARG, NUMBER, LITERAL = "STR", "INT", "NUMBER", "LITERAL"
NULLIFYING = frozenset({"split_part", "regex_extract", "nullif", "json_path"})
MAX_PRECISION = 38


class ChainError(Exception):
    """A chain refused. `unknown`: the name is not a transform (UnknownTransformError);
    `malformed`: the step is not spelled as a step at all (SpecParseError); else TypeCheckError."""

    def __init__(self, index: int | None, message: str, hint: str | None = None, unknown: bool = False,
                 malformed: bool = False):
        super().__init__(message)
        self.index, self.message, self.hint = index, message, hint
        self.unknown, self.malformed = unknown, malformed


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
    lower: Callable           # (input type, args) -> (output type, IR step)


def _type_ir(t: SpecType) -> dict:
    return {"name": t.name, "precision": t.precision, "scale": t.scale} if t.name == "decimal" else {"name": t.name}


def _cast(t: SpecType, **extra) -> tuple[SpecType, dict]:
    return t, {"op": "cast", "type": _type_ir(t), **extra}


def _need(input_type: SpecType, allowed: tuple[str, ...], name: str):
    if input_type.name not in allowed:
        raise ChainError(None, f"`{name}` takes {' or '.join(allowed)}, but the value here is {input_type}",
                         _conversion_hint(input_type, allowed))


def _conversion_hint(input_type: SpecType, allowed) -> str | None:
    if "string" in allowed and input_type.name != "string":
        return "add `to_string` before it"
    if "decimal" in allowed and input_type.name == "string":
        return "add `{to_decimal: [p, s]}` before it"
    if "int" in allowed and input_type.name == "string":
        return "add `to_int` before it"
    if "timestamp" in allowed and input_type.name == "string":
        return "add `{parse_ts: ISO8601}` before it"
    return None


def _literal_digits(text: str) -> tuple[int, int]:
    d = Decimal(text)
    sign, digits, exponent = d.as_tuple()
    scale = max(0, -exponent)
    precision = max(len(digits), scale + 1) if scale else len(digits) + max(0, exponent)
    return max(precision, 1), scale


def _number(value: Any, name: str) -> str:
    text = str(value)
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        raise ChainError(None, f"`{name}` needs a finite decimal number, got {value!r}",
                         "write it like 100 or \"0.5\" (quoted)")
    return text


def _literal_for(t: SpecType, value: Any, name: str):
    """Check at compile time that a literal converts to `t`: a bad literal is a spec error, not a run-time one."""
    if t.name == "string":
        return str(value)
    text = str(value)
    try:
        if t.name == "int":
            int(text)
        elif t.name == "decimal":
            d = Decimal(text)
            if not d.is_finite():
                raise InvalidOperation
            p, s = _literal_digits(text)
            if p - s > t.precision - t.scale:
                raise ChainError(None, f"`{name}` literal {text} does not fit {t}")
        elif t.name == "bool":
            if text.lower() not in ("true", "false", "1", "0"):
                raise InvalidOperation
        elif t.name == "date":
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                raise InvalidOperation
            date.fromisoformat(text)
        elif t.name == "timestamp":
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?", text):
                raise InvalidOperation
            datetime.fromisoformat(text)
    except (ValueError, InvalidOperation):
        raise ChainError(None, f"`{name}` literal {value!r} is not a valid {t}, the type of the value here",
                         f"write a {t} literal, e.g. {_LITERAL_EXAMPLES.get(t.name, '0')!r}") from None
    return text


_LITERAL_EXAMPLES = {"int": "0", "decimal": "0.00", "bool": "true", "date": "2015-01-01",
                     "timestamp": "2015-01-01T00:00:00"}


def _decimal_arith(name):
    def lower(t: SpecType, args):
        _need(t, ("decimal",), name)
        literal = _number(args[0], name)
        if name == "divide" and Decimal(literal) == 0:
            raise ChainError(None, "`divide` by zero")
        p2, s2 = _literal_digits(literal)
        p, s = t.precision + p2, t.scale + s2
        if p > MAX_PRECISION:
            raise ChainError(None, f"`{name}` by {literal} needs decimal({p},{s}), above the cap of {MAX_PRECISION} digits",
                             "reduce the precision with a `to_decimal` before it")
        out = SpecType("decimal", p, s)
        return out, {"op": name, "literal": literal, "type": _type_ir(out)}
    return lower


def _string_op(op, *names):
    def lower(t: SpecType, args):
        _need(t, ("string",), op)
        return STRING, {"op": op, **dict(zip(names, args))}
    return lower


def _regex_extract(t, args):
    # a pattern the engine cannot compile, or a group it does not have, would abort every run:
    # refused here (Python's `re` stands in for the engines' parsers, which accept less, not more)
    _need(t, ("string",), "regex_extract")
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
    _need(t, ("string", "int", "decimal", "bool"), "to_int")
    if t.name == "int":
        return INT, {"op": "noop"}
    return _cast(INT, via_int=(t.name == "bool"))


def _to_decimal(t, args):
    p, s = args
    if not (1 <= p <= MAX_PRECISION and 0 <= s <= p):
        raise ChainError(None, f"`to_decimal` needs 1 <= p <= 38 and 0 <= s <= p, got [{p}, {s}]")
    _need(t, ("string", "int", "decimal"), "to_decimal")
    return _cast(SpecType("decimal", p, s))


def _to_bool(t, args):
    _need(t, ("string", "int", "bool"), "to_bool")
    if t.name == "int":
        return BOOL, {"op": "int_to_bool"}
    if t.name == "bool":
        return BOOL, {"op": "noop"}
    return _cast(BOOL)


def _to_string(t, args):
    if t.name == "string":
        return STRING, {"op": "noop"}
    return STRING, {"op": "cast", "type": _type_ir(STRING), "marker": False}


def _parse_temporal(out: SpecType, name: str):
    def lower(t, args):
        _need(t, ("string",), name)
        fmt = args[0]
        if fmt.upper() == "ISO8601":
            return _cast(out, iso=True)
        if "%" not in fmt:
            raise ChainError(None, f"`{name}` format {fmt!r} has no % directive",
                             "write ISO8601 or a strftime-style format such as '%d/%m/%Y'")
        _check_format(name, fmt)
        return out, {"op": "parse_format", "format": fmt, "type": _type_ir(out)}
    return lower


# The directives every engine's port reads (PostgreSQL parses the format itself, by a regex built
# per directive), and the separators real formats use: anything else would fail in the warehouse
# at run time, or carry text into SQL that is not a date format.
_FORMAT_DIRECTIVES = set("YmdHMS")
_FORMAT_LITERAL = re.compile(r"[0-9 \-/:.,_]")


def _check_format(name: str, fmt: str):
    seen: set[str] = set()
    chars = iter(fmt)
    for ch in chars:
        if ch == "%":
            d = next(chars, "")
            if d == "%":
                continue
            if d not in _FORMAT_DIRECTIVES or d in seen:
                what = "a lone % at the end" if not d else f"%{d} twice" if d in seen else f"%{d}"
                raise ChainError(None, f"`{name}` format {fmt!r} uses {what}",
                                 "use ISO8601, or the directives %Y %m %d %H %M %S (each at most once) and %%")
            seen.add(d)
        elif not _FORMAT_LITERAL.fullmatch(ch):
            raise ChainError(None, f"`{name}` format {fmt!r} holds {ch!r}, which is not a date separator",
                             "separate the directives with spaces, digits or one of - / : . , _ (a letter is a pattern letter on Spark)")


# An IANA zone name: what every engine's time-zone conversion takes (checked against this
# machine's zone database when it has one, so a misspelt zone is refused here, not in the warehouse)
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")


def _to_utc(t, args):
    _need(t, ("timestamp",), "to_utc")
    zone = args[0]
    known = zoneinfo.available_timezones()
    if not _ZONE.fullmatch(zone) or (known and zone not in known and zone != "UTC"):
        close = difflib.get_close_matches(zone, sorted(known), n=1) if known else []
        raise ChainError(None, f"`to_utc` zone {zone!r} is not a time-zone name",
                         f"did you mean {close[0]!r}?" if close else "write an IANA zone such as Europe/Paris")
    return TIMESTAMP, {"op": "to_utc", "zone": args[0]}


def _coalesce(t, args):
    return t, {"op": "coalesce", "literal": _literal_for(t, args[0], "coalesce"), "type": _type_ir(t)}


def _nullif(t, args):
    return t, {"op": "nullif", "literal": _literal_for(t, args[0], "nullif"), "type": _type_ir(t)}


def _json_path(t, args):
    _need(t, ("variant", "string"), "json_path")
    if not re.fullmatch(r"\$(\.[A-Za-z_][A-Za-z0-9_]*)+", args[0]):
        raise ChainError(None, f"`json_path` path {args[0]!r} is not of the form $.a.b")
    # `text`: the input is a document still to be parsed, which may not parse (a variant already did)
    return VARIANT, {"op": "json_path", "path": args[0], "text": t.name == "string"}


def _round(t, args):
    d = args[0]
    if d < 0:
        raise ChainError(None, "`round` needs digits >= 0")
    _need(t, ("int", "decimal"), "round")
    if t.name == "int":
        return INT, {"op": "round", "digits": d, "type": _type_ir(INT)}
    out = SpecType("decimal", max(t.precision - t.scale + d, d, 1), d)
    if out.precision > MAX_PRECISION:
        raise ChainError(None, f"`round` result {out} exceeds {MAX_PRECISION} digits")
    return out, {"op": "round", "digits": d, "type": _type_ir(out)}


def _abs(t, args):
    _need(t, ("int", "decimal"), "abs")
    return t, {"op": "abs"}


def _enum_map(t, args):
    _need(t, ("string",), "enum_map")
    if len(args) < 2 or len(args) % 2:
        raise ChainError(None, "`enum_map` takes pairs: [from, to, from, to, ...]",
                         "give an even number of values, at least two")
    pairs = [[str(args[i]), str(args[i + 1])] for i in range(0, len(args), 2)]
    return STRING, {"op": "enum_map", "pairs": pairs}


def _convert(t, args):
    _need(t, ("decimal",), "convert")
    return t, {"op": "convert", "currency": args[0]}


REGISTRY: dict[str, Signature] = {
    "trim": Signature((), _string_op("trim")),
    "upper": Signature((), _string_op("upper")),
    "lower": Signature((), _string_op("lower")),
    "split_part": Signature((STR, INT_ARG), _string_op("split_part", "delimiter", "index")),
    "regex_extract": Signature((STR, INT_ARG), _regex_extract),
    "strip_prefix": Signature((STR,), _string_op("strip_prefix", "value")),
    "strip_suffix": Signature((STR,), _string_op("strip_suffix", "value")),
    "concat": Signature((STR,), _string_op("concat", "value")),
    "enum_map": Signature((STR, "*"), _enum_map),
    "to_string": Signature((), _to_string),
    "to_int": Signature((), _to_int),
    "to_decimal": Signature((INT_ARG, INT_ARG), _to_decimal),
    "to_bool": Signature((), _to_bool),
    "parse_ts": Signature((STR,), _parse_temporal(TIMESTAMP, "parse_ts")),
    "parse_date": Signature((STR,), _parse_temporal(DATE, "parse_date")),
    "to_utc": Signature((STR,), _to_utc),
    "coalesce": Signature((LITERAL,), _coalesce),
    "nullif": Signature((LITERAL,), _nullif),
    "json_path": Signature((STR,), _json_path),
    "multiply": Signature((NUMBER,), _decimal_arith("multiply")),
    "divide": Signature((NUMBER,), _decimal_arith("divide")),
    "round": Signature((INT_ARG,), _round),
    "abs": Signature((), _abs),
    "convert": Signature((STR,), _convert),
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
    if not isinstance(name, str) or not all(isinstance(a, (str, int)) for a in args):
        raise ChainError(None, f"malformed transform step {step!r}: a step is a name and string or integer "
                         "arguments", "write `trim`, `{to_decimal: [12, 4]}` or `{name: x, args: [...]}`",
                         malformed=True)
    return name, [int(a) if isinstance(a, bool) else a for a in args]


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
        }[kind]
        if not ok:
            raise ChainError(None, f"`{name}` argument {arg!r} must be {_KIND_WORDS[kind]}",
                             f"write it as {EXAMPLES[name]}")


# How each transform is written, for hints.
EXAMPLES = {
    "trim": "`trim`", "upper": "`upper`", "lower": "`lower`", "to_string": "`to_string`", "to_int": "`to_int`",
    "to_bool": "`to_bool`", "abs": "`abs`", "split_part": "`{split_part: [\"-\", 1]}`",
    "regex_extract": "`{regex_extract: [\"^([A-Z]+)\", 1]}`", "strip_prefix": "`{strip_prefix: \"CUS-\"}`",
    "strip_suffix": "`{strip_suffix: \" EUR\"}`", "concat": "`{concat: \"-A\"}`",
    "enum_map": "`{enum_map: [from, to, from, to]}`", "to_decimal": "`{to_decimal: [12, 4]}`",
    "parse_ts": "`{parse_ts: ISO8601}`", "parse_date": "`{parse_date: \"%d/%m/%Y\"}`",
    "to_utc": "`{to_utc: Europe/Paris}`", "coalesce": "`{coalesce: \"0\"}`", "nullif": "`{nullif: \"n/a\"}`",
    "json_path": "`{json_path: \"$.a.b\"}`", "multiply": "`{multiply: \"0.01\"}`", "divide": "`{divide: 100}`",
    "round": "`{round: 2}`", "convert": "`{convert: EUR}`",
}
_KIND_WORDS = {STR: "a string", INT_ARG: "an integer", NUMBER: "an integer or a quoted decimal",
               LITERAL: "a string or an integer"}


def lower_chain(chain: list, declared: SpecType) -> Lowered:
    """Type-check `chain` from string to `declared`. Raises ChainError with the step index."""
    current = STRING
    steps: list[dict] = []
    nullifying = False
    names = []
    for index, raw in enumerate(chain or []):
        try:
            name, args = normalize_step(raw)
            sig = REGISTRY.get(name)
            if sig is None:
                close = difflib.get_close_matches(name, REGISTRY, n=1)
                raise ChainError(index, f"unknown transform `{name}`",
                                 f"did you mean `{close[0]}`?" if close else None, unknown=True)
            _check_args(name, sig, args)
            before = current
            current, step = sig.lower(current, args)
            _mark_source(step, before)
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
            _, step = _cast(declared, final=True)
            _mark_source(step, current)
            if current.name == "bool" and declared.name == "string":
                step["marker"] = False
            steps.append(step)
        else:
            raise ChainError(None, f"the chain produces {current} but the field is declared {declared}",
                             _conversion_hint(current, (declared.name,)) or "end the chain with a conversion to the declared type")
    casts = sum(1 for s in steps if _is_coercion_point(s))
    return Lowered(steps, declared, nullifying, casts, names)


def _mark_source(step: dict, source: SpecType):
    """A cast from a typed value (not bronze text) says so: an engine whose NULL-on-failure cast
    reads text (Postgres' pg_input_is_valid) must not round-trip such a value through text."""
    if step["op"] == "cast" and source.name != "string":
        step["from_type"] = source.name


def _is_coercion_point(step: dict) -> bool:
    return (step["op"] == "cast" and step.get("marker", True)) or step["op"] == "parse_format"
