"""dbt metadata in the specs (extension keys `description`, `meta`, `owner`, `tags`, `tests` /
`data_tests` on an entity and its fields) reaches dbt's manifest on the right nodes, the user's
tests run with the audits (one that should fail does), spec text stays data, and the per-entity
tag `bloomery_<entity>` selects exactly the entity's nodes and the quality mart, so
`dbt build -s tag:bloomery_<entity>` after a change gives the entity a full build gives."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml

from .harness import DuckProject

# dbt_artifacts: the tests read target/manifest.json
pytestmark = [pytest.mark.duckdb, pytest.mark.dbt_artifacts]

META = ["$._load_id", "$._ingested_at", "$._source_row_id"]
DEDUPE = {"keep": "latest_by", "field": "_ingested_at", "tie_break": ["_load_id"]}
SECRET_VAR = "BLOOMERY_METADATA_SECRET"
SECRET = "metadata-secret-that-must-not-leak"
JINJA = "{{ env_var('" + SECRET_VAR + "') }}{% do run_query('drop table main.canary') %}{# c #}"
QUOTES = "it's \"dq\" `bq` back\\slash ''"
CALL = "env_var('" + SECRET_VAR + "')"
SQL_TEXT = "'" + JINJA.replace("'", "''") + "'"          # JINJA as a SQL string literal
JINJA_UNQUOTED = '{{ env_var("' + SECRET_VAR + '") }}{% do run_query("drop table main.canary") %}'


def tree(statuses=("open", "paid")) -> dict:
    return {
        "entity_model.yaml": {
            "spec_version": 1,
            "entities": {
                "invoice": {
                    "grain": "one row per invoice",
                    "description": "Invoices issued to customers.",
                    "owner": "billing-team@example.com",
                    "meta": {"tier": 1, "contains_pii": False, "sla": {"hours": 24}},
                    "tags": ["finance"],
                    "key": ["invoice_id"],
                    "fields": {
                        "invoice_id": {"type": "string", "description": "Invoice number.",
                                       "tests": ["not_null", "unique"]},
                        "status": {"type": "string", "description": "Where the invoice is.",
                                   "meta": {"glossary": "invoice-status"}, "tags": ["lifecycle"],
                                   "data_tests": [{"accepted_values": {"values": ["open"],
                                                                       "name": "invoice_status_only_open"}}]},
                        "amount": {"type": "decimal(12,2)", "owner": "finance-ops",
                                   "tests": [{"not_null": {"config": {"severity": "warn"}}}]},
                    },
                    "dedupe": DEDUPE,
                    "quarantine": {"retention": "30d"},
                    "tests": [{"dbt_expectations_free_check": {"arguments": {"min_rows": 1}}}],
                },
                "vendor": {"grain": "one row per vendor", "key": ["vendor_id"],
                           "fields": {"vendor_id": {"type": "string"}, "name": {"type": "string"}}},
            },
        },
        "mapping_invoices.yaml": {
            "mapping_version": 1, "source": "bill__invoices", "target": "invoice",
            "key": {"invoice_id": {"from": "$.invoice_id", "transform": ["trim"]}},
            "fields": {
                "status": {"from": "$.status", "transform": ["lower"],
                           "quality": [{"rule": "in_set", "values": list(statuses), "on_fail": "quarantine"}]},
                "amount": {"from": "$.amount", "transform": [{"to_decimal": [12, 2]}]},
            },
            "unmapped": META,
        },
        "mapping_vendors.yaml": {
            "mapping_version": 1, "source": "bill__vendors", "target": "vendor",
            "key": {"vendor_id": {"from": "$.vendor_id"}},
            "fields": {"name": {"from": "$.name"}},
        },
    }


# a model-level generic test of the user's own, in their project's macros (tests/generic)
MIN_ROWS_TEST = """{% test dbt_expectations_free_check(model, min_rows) %}
select 1 as too_few from (select count(*) as n from {{ model }}) c where c.n < {{ min_rows }}
{% endtest %}
"""
# a generic test that writes its argument into SQL as data and fails unless it is the text the
# test wrote into main.expected_texts (row `index`)
TEXT_TEST = """{% test same_text(model, column_name, value, index) %}
select 1 as differs from main.expected_texts
where id = {{ index }} and t is distinct from {{ bloomery.string_literal(value) }}
union all select 1 where not exists (select 1 from main.expected_texts where id = {{ index }})
{% endtest %}
"""

INVOICE_COLUMNS = ["invoice_id", "status", "amount", "_load_id", "_ingested_at", "_source_row_id"]
LOAD1 = [("i1", "open", "10.00", "l1", "2024-03-01 00:00:00", "s1"),
         ("i2", "paid", "20.00", "l1", "2024-03-01 00:00:00", "s2"),
         ("i3", "void", "5.00", "l1", "2024-03-01 00:00:00", "s3")]
LOAD2 = [("i4", "void", "7.00", "l2", "2024-03-02 00:00:00", "s4"),
         ("i2", "paid", "21.00", "l2", "2024-03-02 00:00:00", "s2b")]


def write_specs(project, specs: dict):
    folder = project.dir / "specs"
    shutil.rmtree(folder)
    folder.mkdir()
    for name, doc in specs.items():
        (folder / name).write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=False, width=10_000))


def make_project(tmp_path, specs: dict) -> DuckProject:
    project = DuckProject(tmp_path)
    write_specs(project, specs)
    generic = project.dir / "macros" / "user_tests.sql"
    generic.write_text(MIN_ROWS_TEST + TEXT_TEST)
    project.write_bronze("bill__invoices", INVOICE_COLUMNS, LOAD1)
    project.write_bronze("bill__vendors", ["vendor_id", "name"], [("v1", "Acme")])
    assert project.compile() == 0
    return project


def manifest(project) -> dict:
    return json.loads((project.dir / "target" / "manifest.json").read_text())


def node(m: dict, resource: str, name: str) -> dict:
    found = [n for n in m["nodes"].values() if n["resource_type"] == resource and n["name"] == name]
    assert len(found) == 1, (resource, name, [n["name"] for n in m["nodes"].values() if n["resource_type"] == resource])
    return found[0]


def attached_tests(m: dict, model: str) -> dict[str, dict]:
    """Test name -> node, for every test attached to `model`."""
    return {n["name"]: n for n in m["nodes"].values()
            if n["resource_type"] == "test" and n.get("attached_node") == f"model.bloomery_integration_tests.{model}"}


def test_metadata_and_user_tests_reach_the_manifest_and_run(tmp_path):
    project = make_project(tmp_path, tree())
    project.dbt("docs", "generate")
    m = manifest(project)
    invoice = node(m, "model", "invoice")
    assert invoice["description"].startswith("Invoices issued to customers.\n\none row per invoice.")
    assert invoice["meta"] == {"tier": 1, "contains_pii": False, "sla": {"hours": 24},
                               "owner": "billing-team@example.com"}
    assert invoice["config"]["meta"]["owner"] == "billing-team@example.com"
    assert set(invoice["tags"]) == {"bloomery", "bloomery_invoice", "finance"}
    columns = invoice["columns"]
    assert columns["invoice_id"]["description"] == "Invoice number. [string (key)]"
    assert columns["status"]["description"] == "Where the invoice is. [string]"
    assert columns["status"]["meta"] == {"glossary": "invoice-status"}
    assert columns["status"]["tags"] == ["lifecycle"] or "lifecycle" in columns["status"]["config"].get("tags", [])
    assert columns["amount"]["meta"] == {"owner": "finance-ops"}
    assert columns["amount"]["description"] == "decimal"
    # every model of the entity carries the entity's tag, the user's tags and meta
    for name in ("invoice__staged", "invoice__reject", "invoice__ledger"):
        other = node(m, "model", name)
        assert {"bloomery", "bloomery_invoice", "finance"} <= set(other["tags"]), (name, other["tags"])
        assert other["meta"]["owner"] == "billing-team@example.com"
    vendor = node(m, "model", "vendor")
    assert set(vendor["tags"]) == {"bloomery", "bloomery_vendor"} and vendor["meta"] == {}
    # the user's tests are on the right node and column, next to the audits, with the entity's tags
    tests = attached_tests(m, "invoice")
    by_column = {(t["test_metadata"]["name"], t.get("column_name")): t for t in tests.values()}
    assert {("not_null", "invoice_id"), ("unique", "invoice_id"), ("accepted_values", "status"),
            ("not_null", "amount"), ("dbt_expectations_free_check", None)} <= set(by_column)
    assert "invoice_status_only_open" in tests
    assert by_column[("not_null", "amount")]["config"]["severity"] == "warn"
    assert by_column[("dbt_expectations_free_check", None)]["test_metadata"]["kwargs"]["min_rows"] == 1
    for t in tests.values():
        assert {"bloomery", "bloomery_invoice", "finance"} <= set(t["tags"]), (t["name"], t["tags"])
    assert "lifecycle" in tests["invoice_status_only_open"]["tags"]   # dbt gives a column's tags to its tests
    # the generated models' SQL carries no documentation: a description edit changes no model
    assert "Invoices issued" not in (project.dir / "models" / "bloomery" / "invoice.sql").read_text()

    # dbt build runs them: `status` only `open` fails on i2 (paid), the others pass
    result = project.dbt("build", check=False)
    statuses = result.statuses
    assert statuses["invoice_status_only_open"] == "fail"
    assert not result.success
    for name, t in tests.items():
        if name != "invoice_status_only_open":
            assert statuses[name] in ("pass", "warn"), (name, statuses[name])
    # a failing user test on the entity stops nothing upstream: the entity is published
    assert statuses["invoice"] == "success"
    assert sorted(r[0] for r in project.query("select invoice_id from main.invoice")) == ["i1", "i2"]


def tag_selection(project, selector: str, *flags: str) -> set[str]:
    result = project.dbt("ls", "-s", selector, *flags, "--resource-type", "all", "--output", "name", "--quiet")
    return set(result.result)


CAUTIOUS = ("--indirect-selection", "cautious")


def invoice_state(project) -> dict:
    return {
        "kept": sorted(project.query("select invoice_id, status, cast(amount as varchar), _source_row_id, "
                                     "_quality_flags from main.invoice")),
        "rejected": sorted(project.query("select _source_row_id, failed_rules, resolved_at is null "
                                         "from main.invoice__reject")),
        "ledger": sorted(project.query("select _source_row_id, route from main.invoice__ledger")),
    }


def test_the_entity_tag_selects_the_entity_and_the_mart_and_rebuilds_it_as_a_full_build(tmp_path):
    specs = tree()
    # no failing user test here: this one is about what the selector rebuilds
    specs["entity_model.yaml"]["entities"]["invoice"]["fields"]["status"].pop("data_tests")
    project = make_project(tmp_path / "a", specs)
    selected = tag_selection(project, "tag:bloomery_invoice")
    expected = {"invoice__staged", "invoice", "invoice__reject", "invoice__ledger",     # the entity's models
                "invoice__quality",                                                     # its counts (issue 41)
                "mart_data_quality", "quality_quarantine_rate",                         # the quality mart
                "invoice_ingestion_metadata", "invoice_conservation",                   # its audits
                "not_null_invoice_invoice_id", "unique_invoice_invoice_id",             # the user's tests
                "not_null_invoice_amount", "dbt_expectations_free_check_invoice_1"}
    # the drift view over the mart's history, and the entity's drift test that reads it (issue 24;
    # one node for every measure since issue 39; on `invoice__quality` since issue 41)
    expected |= {"quality_drift", "invoice_drift"}
    # the snapshot of the bronze columns (issue 24), whose changes each entity's drift test reports
    # (one node since issue 39): vendor has no drift measures, so its drift test is declared on the
    # snapshot, and dbt's eager indirect selection also takes it
    expected |= {"quality_bronze_columns", "vendor_drift"}
    # a quarantine-rate test of the entity on the mart's rate view, where the project declares one
    assert selected - {"invoice_quarantine_rate"} == expected
    # invoice's drift test reads the snapshot too: eager indirect selection takes a test when any
    # model it reads is selected
    assert tag_selection(project, "tag:bloomery_vendor") == {"vendor__staged", "vendor", "vendor_key_unique",
                                                             "quality_bronze_columns", "vendor_drift", "invoice_drift"}
    # the selector the docs give: with dbt's cautious indirect selection (a test is taken when every
    # model it reads is), one entity's nodes and the project nodes it needs, no other entity's test
    assert tag_selection(project, "tag:bloomery_invoice", *CAUTIOUS) == expected - {"vendor_drift"} | (
        selected & {"invoice_quarantine_rate"})
    assert tag_selection(project, "tag:bloomery_vendor", *CAUTIOUS) == {"vendor__staged", "vendor", "vendor_key_unique",
                                                                        "quality_bronze_columns", "vendor_drift"}
    # `dbt build -s invoice` is not the entity: it rebuilds it from the staged table of the last run
    assert "invoice__staged" not in tag_selection(project, "invoice")
    project.dbt("build")

    # a bronze load and a spec change (the set widened: `void` is kept now), then the selector alone
    project.write_bronze("bill__invoices", INVOICE_COLUMNS, LOAD2, append=True)
    widened = tree(statuses=("open", "paid", "void"))
    widened["entity_model.yaml"]["entities"]["invoice"]["fields"]["status"].pop("data_tests")
    write_specs(project, widened)
    assert project.compile() == 0
    result = project.dbt("build", "-s", "tag:bloomery_invoice", *CAUTIOUS)
    # nothing of vendor's is rebuilt or tested
    assert {n for n in result.statuses if n.startswith("vendor")} == set()
    assert {"invoice__staged", "invoice", "invoice__reject", "invoice__ledger", "mart_data_quality"} <= set(result.statuses)
    after_selector = invoice_state(project)
    runs = project.query("select count(distinct run_id) from main.mart_data_quality where entity = 'invoice'")
    assert runs == [(2,)], "the mart took a snapshot of the selector's run"

    # the same bronze and spec in one full build of a fresh project
    fresh = make_project(tmp_path / "b", widened)
    fresh.write_bronze("bill__invoices", INVOICE_COLUMNS, LOAD2, append=True)
    fresh.dbt("build")
    full = invoice_state(fresh)
    # i3 was diverted by the first build and stays held until replay (design.md); the fresh build
    # never diverted it. Everything else agrees.
    assert after_selector["kept"] == [r for r in full["kept"] if r[3] != "s3"]
    assert [r for r in after_selector["ledger"] if r[0] != "s3"] == [r for r in full["ledger"] if r[0] != "s3"]
    assert ("s4", "keep") in after_selector["ledger"] and ("s2b", "keep") in after_selector["ledger"]


def test_spec_text_in_metadata_is_data(tmp_path, monkeypatch):
    """Descriptions, meta, owner and test arguments holding Jinja, quotes or a bare env_var() call
    reach the manifest as written, and dbt runs none of it."""
    specs = tree()
    invoice = specs["entity_model.yaml"]["entities"]["invoice"]
    invoice["description"] = JINJA
    invoice["owner"] = QUOTES
    invoice["meta"] = {"jinja": JINJA, "call": CALL, "list": [JINJA, QUOTES]}
    invoice["fields"]["status"] = {
        "type": "string", "description": JINJA, "meta": {"call": CALL},
        "tests": [{"same_text": {"name": f"status_text_{i}", "description": JINJA,
                                 "config": {"meta": {"x": JINJA}},
                                 "value": payload, "index": i}}
                  for i, payload in enumerate((JINJA, QUOTES, CALL))] + [
            # the other positions dbt renders: a SQL-carrying config the project opted in to (Jinja
            # inside its SQL string literal) and the values of dbt's accepted_values
            {"not_null": {"name": "status_where_text", "where": "status <> " + SQL_TEXT}},
            {"accepted_values": {"name": "status_values_text", "values": ["open", "paid", JINJA_UNQUOTED]}}]}
    # `same_text` writes its `value` into SQL, and `where` is SQL: this spec key carries SQL
    specs["entity_model.yaml"] = {"sql_test_keys": ["value", "where"], **specs["entity_model.yaml"]}
    monkeypatch.setenv(SECRET_VAR, SECRET)
    project = make_project(tmp_path, specs)
    project.execute("create table main.canary as select 42 as alive")
    with project.connect() as con:
        con.execute("create table main.expected_texts (id int, t varchar)")
        con.executemany("insert into main.expected_texts values (?, ?)", list(enumerate((JINJA, QUOTES, CALL))))
    result = project.dbt("build")
    assert all(s in ("success", "pass", "warn") for s in result.statuses.values()), result.statuses
    assert project.query("select * from main.canary") == [(42,)]
    project.dbt("docs", "generate")
    m = manifest(project)
    model = node(m, "model", "invoice")
    assert model["description"].startswith(JINJA + "\n\n")
    assert model["meta"] == {"jinja": JINJA, "call": CALL, "list": [JINJA, QUOTES], "owner": QUOTES}
    assert model["columns"]["status"]["description"] == JINJA + " [string]"
    assert model["columns"]["status"]["meta"] == {"call": CALL}
    tests = attached_tests(m, "invoice")
    for i, payload in enumerate((JINJA, QUOTES, CALL)):
        t = tests[f"status_text_{i}"]
        assert result.statuses[t["name"]] == "pass"   # the test compared the value it got with the text
        assert t["description"] == JINJA and t["config"]["meta"] == {"x": JINJA}
    assert tests["status_where_text"]["config"]["where"] == "status <> " + SQL_TEXT
    # the manifest keeps a test's arguments unrendered: the query dbt ran holds the value as text
    (compiled,) = (project.dir / "target" / "compiled").rglob("status_values_text.sql")
    assert "'" + JINJA_UNQUOTED + "'" in compiled.read_text()
    assert result.statuses["status_where_text"] == result.statuses["status_values_text"] == "pass"
    for folder in ("target", "logs"):
        for path in (project.dir / folder).rglob("*"):
            if path.is_file():
                assert SECRET not in path.read_text(errors="replace"), path


def test_a_singular_test_runs_on_a_generated_model_and_a_second_yaml_entry_is_refused(tmp_path):
    """What docs/extending-models.md says: a singular test in tests/ reads the generated model and
    is selected with the entity's tag; a schema.yml entry of one's own for a generated model is not."""
    specs = tree()
    specs["entity_model.yaml"]["entities"]["invoice"]["fields"]["status"].pop("data_tests")
    project = make_project(tmp_path, specs)
    (project.dir / "tests").mkdir(exist_ok=True)
    (project.dir / "tests" / "invoice_no_void.sql").write_text(
        "{{ config(tags=['bloomery_invoice']) }}\nselect invoice_id from {{ ref('invoice') }} where status = 'void'\n")
    (project.dir / "tests" / "invoice_has_paid.sql").write_text(
        "select 1 as none_paid where not exists (select 1 from {{ ref('invoice') }} where status = 'paid')\n"
        "union all select 1 from {{ ref('invoice') }} where status = 'paid' and amount < 100 and invoice_id = 'i2'\n")
    assert {"invoice_no_void", "invoice_has_paid"} <= tag_selection(project, "tag:bloomery_invoice")
    result = project.dbt("build", "-s", "tag:bloomery_invoice", check=False)
    assert result.statuses["invoice_no_void"] == "pass"      # i3 (void) was quarantined, never published
    assert result.statuses["invoice_has_paid"] == "fail"     # i2 is paid with 20.00: the test sees the data
    (project.dir / "models" / "my_tests.yml").write_text(
        "version: 2\nmodels:\n  - name: invoice\n    description: mine\n")
    refused = project.dbt("parse", check=False)
    assert not refused.success
    assert "invoice" in str(refused.exception)
