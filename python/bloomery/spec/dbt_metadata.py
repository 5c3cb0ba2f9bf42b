"""dbt's own metadata grammar: the `meta`, `tests`/`data_tests` an entity or field passes through.

Decides what bloomery accepts in the dbt-facing metadata of a spec (keys dbt would run as Jinja,
test names and config keys dbt understands, non-finite numbers) and the plain form it is passed
to dbt in. A spec-level grammar the JSON Schema cannot say, so it sits with the spec readers.
"""
from __future__ import annotations

import re
from decimal import Decimal

from .yaml_source import format_path as _fmt


# -- dbt metadata passed through to the generated YAML (extension keys) -------------------------
# dbt's own grammar of a test's name (`package.test`) and the keys a test entry holds besides its
# arguments (dbt's TestBuilder.CONFIG_ARGS go into `config:`)
_DBT_TEST_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$")
_DBT_TEST_LABEL = re.compile(r"^[A-Za-z0-9_]+$")
DBT_TEST_CONFIG = ("severity", "tags", "enabled", "where", "limit", "warn_if", "error_if", "fail_calc",
                   "store_failures", "store_failures_as", "meta", "database", "schema", "alias")
_JINJA_OPENER = re.compile(r"\{[{%#]")

# -- SQL in a user's test: refused unless the project says the key carries SQL -------------------
# The project-level key of the entity model that lists them (docs/extending-models.md)
SQL_KEYS = "sql_test_keys"
# dbt writes these test configs into the test's query as they stand: `where` filters the model in
# a subquery, `fail_calc` is the select list, `warn_if`/`error_if` follow it in a comparison
# (dbt's test materialization)
SQL_TEST_CONFIG = ("where", "fail_calc", "warn_if", "error_if")


def _holds_text(value) -> bool:
    if isinstance(value, dict):
        return any(_holds_text(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_text(v) for v in value)
    return isinstance(value, str)


def _argument_is_data(test: str, key: str, value, arguments: dict) -> bool:
    """Whether a test argument reaches the test's SQL only as data. Numbers, booleans and nulls
    do. Text does only where the test is known to quote it: dbt's `accepted_values` writes each
    value between single quotes unescaped, so a value holding a quote or a backslash (an escape on
    some engines) ends the string, and with `quote: false` every value is SQL. Any other test's
    text (`relationships`' `to` and `field`, dbt_utils `expression_is_true`'s `expression`, a
    custom generic test's arguments) is the test's to write into SQL as it likes."""
    if not _holds_text(value):
        return True
    # dbt tests `{% if quote %}`: any false value of `quote` (false, 0, null, an empty list) writes
    # the values bare
    if test == "accepted_values" and key == "values" and bool(arguments.get("quote", True)):
        return isinstance(value, list) and not any(isinstance(v, str) and ("'" in v or "\\" in v) for v in value)
    return False


def sql_carriers(entry, path: tuple) -> list[tuple[tuple, str, str]]:
    """(path, key, why) of every value of a user's test entry that reaches SQL as it stands: a
    config dbt writes into the test's query, or an argument the test may (see _argument_is_data).
    An entry _test_problems refuses for its shape yields nothing here."""
    if not isinstance(entry, dict) or len(entry) != 1:
        return []
    (name, args), = entry.items()
    if not isinstance(name, str) or not isinstance(args, dict):
        return []
    here = path + (name,)
    placed = []   # (key, value, its path, is it a test config)
    for key, value in args.items():
        if key in ("name", "description", "column_name", "model"):
            continue
        if key in ("config", "arguments") and isinstance(value, dict):
            placed += [(k, v, here + (key, k), key == "config") for k, v in value.items()]
        else:
            placed.append((key, value, here + (key,), key in DBT_TEST_CONFIG))
    arguments = {k: v for k, v, _, config in placed if not config}
    out = []
    for key, value, where, config in placed:
        if config and key in SQL_TEST_CONFIG and _holds_text(value):
            out.append((where, key, f"dbt writes a test's `{key}` into the test's query as it stands"))
        elif not config and not _argument_is_data(name, key, value, arguments):
            out.append((where, key, f"test `{name}` writes its argument `{key}` into SQL"
                                    + (" between quotes it does not escape" if name == "accepted_values" else "")))
    return out


# dbt writes a test's stored failures to the relation these name: one named like a bronze or a
# generated relation would be replaced by the failures (dbt's test materialization drops it first)
RELATION_TEST_CONFIG = ("database", "schema", "alias")


def relation_configs(entry, path: tuple) -> list[tuple[tuple, str]]:
    """(path, key) of every test config of an entry that names a relation (RELATION_TEST_CONFIG)."""
    if not isinstance(entry, dict) or len(entry) != 1:
        return []
    (name, args), = entry.items()
    if not isinstance(args, dict):
        return []
    found = [(path + (name, k), k) for k in RELATION_TEST_CONFIG if k in args]
    if isinstance(args.get("config"), dict):
        found += [(path + (name, "config", k), k) for k in RELATION_TEST_CONFIG if k in args["config"]]
    return found


def limit_problems(entry, path: tuple) -> list[tuple[tuple, str]]:
    """(path, shown value) of a test's `limit` that is not a row count: dbt writes it into the
    test's query after `limit` as it stands."""
    if not isinstance(entry, dict) or len(entry) != 1:
        return []
    (name, args), = entry.items()
    if not isinstance(args, dict):
        return []
    found = [(path + (name, "limit"), args["limit"])] if "limit" in args else []
    if isinstance(args.get("config"), dict) and "limit" in args["config"]:
        found.append((path + (name, "config", "limit"), args["config"]["limit"]))
    return [(p, _show(v)) for p, v in found if isinstance(v, bool) or not isinstance(v, int) or v < 0]


def _meta_problems(value, path: tuple) -> list[tuple[tuple, str]]:
    """Where a meta (or test argument) value holds what no YAML dbt reads can carry as data: a key
    that is not a plain string or holds a Jinja opener, a number that is not finite."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str) or not k:
                out.append((path, f"key {k!r} of `{_fmt(path)}` is not a name"))
            elif _JINJA_OPENER.search(k):
                out.append((path + (k,), f"key `{k}` holds `{_JINJA_OPENER.search(k).group()}`, which dbt would run "
                                         "as Jinja: a name in a spec is data, never code"))
            else:
                out += _meta_problems(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _meta_problems(v, path + (i,))
    elif isinstance(value, (Decimal, float)) and not Decimal(str(value)).is_finite():
        out.append((path, f"`{_fmt(path)}` is not a finite number"))
    return out


def _test_problems(entry, path: tuple) -> list[tuple[tuple, str, str]]:
    """A user's dbt test entry, as dbt's YAML takes it: a test name, or {name: args} (args: the
    test's arguments, optionally under `arguments:`, and `config`, `name`, `description`)."""
    example = "write `not_null`, or `accepted_values: {values: [a, b]}`"
    if isinstance(entry, str):
        if not _DBT_TEST_NAME.match(entry):
            return [(path, f"`{entry}` is not a dbt test name", "a test name is `name` or `package.name`: "
                                                                "letters, digits and underscores")]
        return []
    if len(entry) != 1:
        return [(path, f"a test entry holds {len(entry)} keys ({', '.join(map(str, entry))}); it is one "
                       "`test_name: arguments` pair", "write each test as its own list item")]
    (name, args), = entry.items()
    if not isinstance(name, str) or not _DBT_TEST_NAME.match(name):
        return [(path + (name,), f"`{name}` is not a dbt test name", "a test name is `name` or `package.name`: "
                                                                    "letters, digits and underscores")]
    if args is None:
        return []
    if not isinstance(args, dict):
        return [(path + (name,), f"the arguments of test `{name}` must be a map, got {_show(args)}", example)]
    out = []
    here = path + (name,)
    for key in ("column_name", "model"):
        if key in args:
            out.append((here + (key,), f"`{key}` is set by dbt for a test on a generated model",
                        "drop it: a test under a field gets that column, a test under the entity the model"))
    for key in ("arguments", "config"):
        if key in args and not isinstance(args[key], dict):
            out.append((here + (key,), f"`{key}` of test `{name}` must be a map, got {_show(args[key])}",
                        f"write `{key}: {{...}}`"))
    if "name" in args and not (isinstance(args["name"], str) and _DBT_TEST_LABEL.match(args["name"])):
        out.append((here + ("name",), f"test name {_show(args['name'])} is not a plain name (it becomes a dbt node "
                                      "and a file name)", "letters, digits and underscores only"))
    if "description" in args and not isinstance(args["description"], str):
        out.append((here + ("description",), "a test's `description` must be text", "quote it"))
    arguments = args.get("arguments") if isinstance(args.get("arguments"), dict) else {}
    for key in args:
        if key in arguments:
            out.append((here + (key,), f"`{key}` is given both beside and under `arguments:`", "keep one"))
    for key, value in args.items():
        if key in ("name", "description"):
            continue
        out += [(p, m, "write the value as text, numbers, booleans, lists and maps") for p, m in
                _meta_problems(value, here + (key,))]
    return out


def _plain(value):
    """A spec value as YAML can write it: Decimals become numbers (text when a float would change them)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return float(value) if Decimal(repr(float(value))) == value else str(value)
    return value


def _dbt_test(entry) -> dict:
    """A user's test entry in one shape: {test, arguments, config, name?, description?}."""
    if isinstance(entry, str):
        return {"test": entry, "arguments": {}, "config": {}}
    (name, args), = entry.items()
    args = dict(args or {})
    out = {"test": name, "arguments": _plain(dict(args.pop("arguments", None) or {})),
           "config": _plain(dict(args.pop("config", None) or {}))}
    for key in ("name", "description"):
        if key in args:
            out[key] = args.pop(key)
    for key, value in args.items():
        (out["config"] if key in DBT_TEST_CONFIG else out["arguments"])[key] = _plain(value)
    return out


def _dbt_metadata(spec: dict) -> dict:
    """An entity's or field's dbt metadata for the generated YAML (extension keys)."""
    meta = _plain(dict(spec.get("meta") or {}))
    if spec.get("owner"):
        meta["owner"] = spec["owner"]
    return {"description": spec.get("description"), "meta": meta, "tags": list(spec.get("tags") or []),
            "tests": [_dbt_test(t) for t in (spec.get("tests") or spec.get("data_tests") or [])]}


# ----------------------------------------------------------------------------------------------


def _show(value) -> str:
    if isinstance(value, Decimal):
        return str(value)
    return repr(value)
