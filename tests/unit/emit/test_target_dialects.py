"""The capability table (python/bloomery/emit/dialects.py) and `bloomery compile --target-dialect`:
what a target can not host is refused at compile time, located, before anything is written."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from bloomery.cli import main
from bloomery.resolve import check_project
from bloomery.emit.dialects import DIALECTS, Dialect, capabilities, check_target
from bloomery.errors import BloomeryErrors, EmitError, UnsupportedByTarget

from spec_trees import VALID

CATALOGUE = VALID.parents[2] / "integration_tests" / "corpus" / "catalogue" / "specs"

# a fourth engine that arrived without a NULL-on-failure cast
NO_CAST = dict(DIALECTS, nocast=Dialect("nocast", "default", {"null_on_failure_cast": None}))


def test_every_shipped_dialect_has_a_null_on_failure_cast():
    for name in DIALECTS:
        if name != "default":
            assert capabilities(name)["null_on_failure_cast"], name
    # ISO SQL has none: default__safe_cast is a compile error naming the engine macro to write
    assert capabilities("default")["null_on_failure_cast"] is None


def test_a_dialect_inherits_what_it_does_not_state():
    assert capabilities("redshift")["null_on_failure_cast"] == "TRY_CAST"       # its own
    assert capabilities("redshift")["flags"] == "comma string"
    assert capabilities("redshift")["snapshots"] is True                          # from postgres <- default
    assert capabilities("databricks")["null_on_failure_cast"] == "TRY_CAST"     # from spark
    assert capabilities("databricks")["rewrites"] == "dml"                        # Delta: its own
    assert capabilities("spark")["rewrites"] == "rebuild"


def test_a_dialect_without_the_cast_refuses_every_quality_entity_and_only_those():
    project = check_project(VALID / "full")
    with pytest.raises(BloomeryErrors) as info:
        check_target(project, "nocast", NO_CAST)
    errors = info.value.collected
    assert all(isinstance(e, UnsupportedByTarget) for e in errors)
    refused = {e.location.path.split(".")[1] for e in errors}
    joined = {n for n, e in project.entities.items() if e.quality or e.dedupe or e.quarantine}
    assert refused == joined == {"customer", "order", "order_item", "shipment"}   # not `product`
    for error in errors:
        project.relocate(error)
        assert error.location.file.endswith("entity_model.yaml") and error.location.line > 0, error
        assert "NULL-on-failure cast" in error.message


def test_a_dedupe_only_entity_is_refused_too():
    # the ingestion-metadata audit of a dedupe entity is itself a NULL-on-failure cast
    entity = SimpleNamespace(quality=False, dedupe={"keep": "latest_by"}, quarantine=None, rules=[], scd="type1")
    project = SimpleNamespace(entities={"price": entity})
    with pytest.raises(BloomeryErrors) as info:
        check_target(project, "nocast", NO_CAST)
    (error,) = info.value.collected
    assert "dedupe" in error.message and error.location.path == "entities.price"
    assert check_target(project, "duckdb")["null_on_failure_cast"] == "TRY_CAST"


def test_an_entity_outside_the_quality_system_fits_anywhere():
    entity = SimpleNamespace(quality=False, dedupe=None, quarantine=None, rules=[], scd="type1")
    assert check_target(SimpleNamespace(entities={"group": entity}), "nocast", NO_CAST)


@pytest.mark.parametrize("dialect,refused", [("duckdb", False), ("trino", False), ("bigquery", False),
                                             ("spark", False), ("snowflake", True), ("redshift", True),
                                             ("databricks", True)])
def test_normalize_rules_need_unicode_normalization(dialect, refused):
    project = check_project(CATALOGUE)
    if not refused:
        check_target(project, dialect)
        return
    with pytest.raises(BloomeryErrors) as info:
        check_target(project, dialect)
    (error,) = info.value.collected
    assert "normalization" in error.message and "name_normalize" in error.message


def test_type2_entities_need_snapshots():
    entity = SimpleNamespace(quality=True, dedupe=None, quarantine={"retention": "1d"}, rules=[], scd="type2")
    with pytest.raises(BloomeryErrors):
        check_target(SimpleNamespace(entities={"price": entity}), "spark")
    check_target(SimpleNamespace(entities={"price": entity}), "databricks")


def test_unknown_dialect():
    with pytest.raises(EmitError, match="unknown target dialect"):
        capabilities("oracle")


def test_cli_refuses_before_writing(tmp_path, capsys):
    out = tmp_path / "models"
    assert main(["compile", "--specs", str(CATALOGUE), "--out", str(out), "--target-dialect", "snowflake"]) == 1
    err = capsys.readouterr().err
    assert "mapping_products.yaml:" in err and "UnsupportedByTarget" in err and "nothing was written" in err
    assert not out.exists() or not any(out.iterdir())
    assert main(["compile", "--specs", str(CATALOGUE), "--out", str(out), "--target-dialect", "spark"]) == 0


def test_the_string_type_is_the_one_the_macros_name():
    """A type 2 snapshot's version key casts to `string_type`, which the YAML picks by target type
    (no adapter there): it must be the text type the engine's `type_names` macro spells, as the
    dispatch falls back (an engine without its own macro uses its parent's)."""
    import re
    macros = VALID.parents[2] / "macros"
    spelled = {}
    for path in macros.rglob("*.sql"):
        for engine, body in re.findall(r"macro (\w+)__type_names\(\) -%}\s*\{\{ return\((\{.*?\})\)", path.read_text(), re.S):
            spelled[engine] = re.search(r"'string': '([^']+)'", body).group(1)
    assert "default" in spelled and "postgres" in spelled
    for name in DIALECTS:
        engine = name
        while engine not in spelled:
            engine = DIALECTS[engine].parent
        assert capabilities(name)["string_type"] == spelled[engine], name
