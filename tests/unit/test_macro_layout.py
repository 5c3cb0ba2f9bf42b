"""The layout of the dbt macros: one public macro a file (outside macros/adapters/), named after
it, so a reader (and a user overriding `bloomery.<name>`) finds a macro by its file name. Private
`_helpers` and the macro's own adapter implementations (`default__x`, `duckdb__x`, ...) may sit
beside it, but not an engine's: every engine's implementations (`duckdb__x`, `postgres__x`, ...)
live under macros/adapters/<engine>/, one file per concept, so an engine's differences are read in
one folder. Those files are grouped by engine instead, and stay short enough to read."""
from __future__ import annotations

import re
from pathlib import Path

MACROS = Path(__file__).resolve().parents[2] / "macros"
ADAPTERS = MACROS / "adapters"
ADAPTER_FILE_MAX_LINES = 200

# dispatch prefixes: `default__` plus every engine an implementation may be written for
IMPLEMENTATION_PREFIXES = ("default", "duckdb", "postgres", "redshift", "snowflake", "bigquery",
                           "spark", "databricks", "trino", "athena", "fabric", "sqlserver")

# the engines the package has a port for: their implementations live under macros/adapters/
ENGINE_PREFIXES = ("duckdb", "postgres", "spark", "databricks", "bigquery", "snowflake", "trino", "redshift")

_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_MACRO = re.compile(r"\{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def macro_names(text: str) -> list[str]:
    """The names of the macros a file defines (Jinja comments, which may quote one, stripped)."""
    return _MACRO.findall(_COMMENT.sub("", text))


def is_public(name: str) -> bool:
    if name.startswith("_"):
        return False
    prefix, sep, _ = name.partition("__")
    return not (sep and prefix in IMPLEMENTATION_PREFIXES)


def public_macros(text: str) -> list[str]:
    return [name for name in macro_names(text) if is_public(name)]


def is_engine_implementation(name: str) -> bool:
    prefix, sep, _ = name.partition("__")
    return bool(sep) and prefix in ENGINE_PREFIXES


def _layout_files(macros: Path = MACROS):
    adapters = macros / "adapters"
    return sorted(p for p in macros.rglob("*.sql") if adapters not in p.parents)


def engine_implementations_outside_adapters(macros: Path = MACROS) -> dict[str, list[str]]:
    """{file: [engine-prefixed macros it defines]} for the files outside macros/adapters/."""
    found = {}
    for path in _layout_files(macros):
        engine = [n for n in macro_names(path.read_text(encoding="utf-8")) if is_engine_implementation(n)]
        if engine:
            found[str(path.relative_to(macros))] = engine
    return found


def test_the_rule_reads_macro_files_as_meant():
    text = """{#- {% macro commented_out(x) %} -#}
{% macro flag_list(items) -%}{{ return(adapter.dispatch('flag_list', 'bloomery')(items)) }}{%- endmacro %}
{% macro default__flag_list(items) -%}x{%- endmacro %}
{%- macro spark__flag_list(items) -%}x{%- endmacro %}
{% macro _helper(a) -%}x{%- endmacro %}
{% macro flags_empty() -%}x{%- endmacro %}"""
    assert public_macros(text) == ["flag_list", "flags_empty"]
    assert [n for n in macro_names(text) if is_engine_implementation(n)] == ["spark__flag_list"]


def test_the_macro_tree_is_where_the_test_looks():
    assert len(_layout_files()) > 50
    assert ADAPTERS.is_dir()


def test_each_macro_file_outside_adapters_holds_at_most_one_public_macro():
    crowded = {}
    for path in _layout_files():
        public = public_macros(path.read_text(encoding="utf-8"))
        if len(public) > 1:
            crowded[str(path.relative_to(MACROS))] = public
    assert crowded == {}, "one public macro a file: move the others to a file named after them"


def test_a_file_with_one_public_macro_is_named_after_it():
    misnamed = {}
    for path in _layout_files():
        public = public_macros(path.read_text(encoding="utf-8"))
        if public and public != [path.stem]:
            misnamed[str(path.relative_to(MACROS))] = public
    assert misnamed == {}


def test_adapter_files_stay_short():
    long_files = {}
    for path in sorted(ADAPTERS.rglob("*.sql")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > ADAPTER_FILE_MAX_LINES:
            long_files[str(path.relative_to(MACROS))] = lines
    assert long_files == {}, f"adapter files over {ADAPTER_FILE_MAX_LINES} lines"


def test_engine_implementations_live_under_adapters():
    assert engine_implementations_outside_adapters() == {}, \
        "move each engine's implementation to macros/adapters/<engine>/<concept>.sql"


# ---- default__ is ISO SQL (issue 21): an engine's spelling lives under macros/adapters/<engine>/

# dbt's dispatch order: an adapter's own prefix, then its declared parent's, then default__
DISPATCH_PARENT = {"redshift": "postgres", "databricks": "spark"}

# functions no ISO SQL:2016 text has, that a default once borrowed from DuckDB or PostgreSQL
NON_STANDARD_CALLS = ("try_cast(", "strptime", "chr(", "regexp_matches(", "regexp_extract(",
                      "list_", "lambda", "json_extract", "json_keys(", "json_each(", "json_group_object(",
                      "nfc_normalize(", "sha256(", "split_part(", "date_trunc(", "array_to_string(", "= any(")

_DEFAULT = re.compile(r"\{%-?\s*macro\s+default__([a-z0-9_]+)\s*\((.*?)\{%-?\s*endmacro", re.DOTALL)
_QUOTED = re.compile(r'"[^"]*"')
# the package's macros a default calls, by name (`no_portable_form`, the raise, stays readable)
_PACKAGE_CALL = re.compile(r"bloomery\.(?!no_portable_form\()[A-Za-z0-9_]+\(")

# defaults that raise, and the engines whose own caller never reaches them
NEVER_CALLED = {"iso_timestamp_group": {"duckdb", "postgres"}}  # their own text_to_timestamp reads the fields


def default_macros(macros: Path = MACROS) -> dict[str, str]:
    """{name: body} of every default__ implementation outside macros/adapters/ (Jinja comments,
    double-quoted texts (the compile errors' messages) and the names of the package's own macros
    it calls, stripped)."""
    out = {}
    for path in _layout_files(macros):
        for name, body in _DEFAULT.findall(_COMMENT.sub("", path.read_text(encoding="utf-8"))):
            out[name] = _PACKAGE_CALL.sub("bloomery.call(", _QUOTED.sub('""', body))
    return out


def engine_macros(macros: Path = MACROS) -> dict[str, set[str]]:
    """{engine: names it implements} under macros/adapters/<engine>/."""
    found = {e: set() for e in ENGINE_PREFIXES}
    for path in sorted((macros / "adapters").rglob("*.sql")):
        for name in macro_names(path.read_text(encoding="utf-8")):
            prefix, sep, rest = name.partition("__")
            if sep and prefix in found:
                found[prefix].add(rest)
    return found


def test_default_implementations_are_not_an_engine_s_dialect():
    borrowed = {name: [c for c in NON_STANDARD_CALLS if c in body.lower()]
                for name, body in default_macros().items()}
    assert {n: c for n, c in borrowed.items() if c} == {}, \
        "default__ is ISO SQL: move the engine's form to macros/adapters/<engine>/ as <engine>__<name>"


def test_every_engine_implements_what_has_no_portable_default():
    defaults = default_macros()
    assert "safe_cast" in defaults and "bloomery.no_portable_form(" in defaults["safe_cast"]
    engines = engine_macros()
    missing = {}
    for name, body in defaults.items():
        if not body.strip().split("-%}", 1)[-1].strip().startswith("{{ bloomery.no_portable_form("):
            continue
        for engine in sorted(set(ENGINE_PREFIXES) - NEVER_CALLED.get(name, set())):
            chain = [engine] + ([DISPATCH_PARENT[engine]] if engine in DISPATCH_PARENT else [])
            if not any(name in engines[e] for e in chain):
                missing.setdefault(name, []).append(engine)
    assert missing == {}, "an engine would reach a default__ that raises"
