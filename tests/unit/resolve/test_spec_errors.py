"""One broken thing per spec tree, and the named error it must produce (spec reference, section 5).

Every case starts from a valid tree under tests/fixtures/valid/, changes one thing by editing
the YAML text, and asserts that compiling it yields exactly one error: of exactly the expected
class, in the expected file, on the line where the broken thing is, at the expected spec path.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from bloomery import errors as E
from bloomery.resolve import Disposition
from spec_trees import Tree

# shop tree
SE, SC, SO, SI = "entity_model.yaml", "mapping_customers.yaml", "mapping_orders.yaml", "mapping_order_items.yaml"
# full tree
FE, FC, FO, FI = "entity_model.yaml", "mapping_customers.yaml", "mapping_orders.yaml", "mapping_order_items.yaml"
FS, FPE, FPU, FCAT = "mapping_shipments.yaml", "mapping_products_eu.yaml", "mapping_products_us.yaml", "catalog.yaml"

CUSTOMERS = "mapping[crm__customers->customer]"
ORDERS = "mapping[shop__orders->order]"
ITEMS = "mapping[shop__order_items->order_item]"
EMAIL_REGEX = r"'^[^@ ]+@[^@ ]+\.[a-z]{2,}$', on_fail: flag}"
EXPR = 'expr: "discount <= unit_price * quantity"'
FULL_RECONCILE = 'right: "sum(order_item.line_amount) by order_id"'


@dataclass
class Case:
    error: type
    edits: list            # ("edit", file, old, new) | ("append", file, text) | ("write", file, text)
    file: str              # where the error must point ...
    needle: str            # ... on the line holding this text (after the edits)
    path: str              # ... at this spec path
    base: str = "shop"
    occurrence: int = 1    # which line holding the needle, when it is on several
    says: str = ""         # ... with a message holding this text, when it matters which
    hint: str = ""         # ... and a hint holding this text, when the remedy is the point


def edit(file, old, new):
    return ("edit", file, old, new)


def append(file, text):
    return ("append", file, text)


def write(file, text):
    return ("write", file, text)


def shop(error, edits, file, needle, path, occurrence=1):
    return Case(error, edits, file, needle, path, "shop", occurrence)


def full(error, edits, file, needle, path, occurrence=1, hint=""):
    return Case(error, edits, file, needle, path, "full", occurrence, hint=hint)


def jinja(base, edits, file, needle, path):
    """A name holding a Jinja opener: refused where it is written, saying why (spec strings are data)."""
    return Case(E.SpecParseError, edits, file, needle, path, base, says="which dbt would run as Jinja")


ORDER_Q = "{retention: 90d}\n    quality:\n      - {rule: referential"
DEDUPE_CUSTOMER = "{keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n    quarantine:\n      retention"


def regex(new):
    return [edit(SC, EMAIL_REGEX, f"{new}, on_fail: flag}}")]


def country_rule(rule):
    """Replace the length rule on customer.country (shop) with `rule`."""
    return [edit(SC, "{rule: length, min: 2, max: 2, on_fail: quarantine}", rule)]


def expression(expr):
    return [edit(SE, EXPR, f"expr: {expr}")]


Q_COUNTRY = "fields.country.quality[0]"

CASES: dict[str, Case] = {
    # -- SpecParseError: YAML, documents -----------------------------------------------------
    "yaml syntax": shop(E.SpecParseError, [edit(SC, "target: customer", "target: [customer")],
                        SC, "target: [customer", ""),  # the unclosed bracket, not where the parser noticed
    "duplicate key": shop(E.SpecParseError, [edit(SC, "target: customer\n", "target: customer\ntarget: customer\n")],
                          SC, "target: customer", "target", occurrence=2),
    "unknown top-level key": shop(E.SpecParseError, [edit(SC, "target: customer\n", "target: customer\ntargte: x\n")],
                                  SC, "targte", "targte"),
    "unknown rule key": shop(E.SpecParseError, [edit(SO, "{rule: not_null, on_fail: quarantine}",
                                                     "{rule: not_null, on_fail: quarantine, severity: high}")],
                             SO, "severity", "fields.ordered_at.quality[0].severity"),
    "unknown entity key": shop(E.SpecParseError, [edit(SE, "    grants: {select: [analyst]}\n",
                                                       "    grants: {select: [analyst]}\n    steward: crm\n")],
                               SE, "steward: crm", "entities.customer.steward"),
    # -- SpecParseError: dbt metadata (extension keys) ---------------------------------------
    "tag with quotes": shop(E.SpecParseError, [edit(SE, "    grants: {select: [analyst]}\n",
                                                    "    grants: {select: [analyst]}\n    tags: [\"it's\"]\n")],
                            SE, "tags: [", "entities.customer.tags[0]"),
    "tests and data_tests": shop(E.SpecParseError, [edit(SE, "    grants: {select: [analyst]}\n",
                                                         "    grants: {select: [analyst]}\n    tests: [unique]\n"
                                                         "    data_tests: [not_null]\n")],
                                 SE, "data_tests:", "entities.customer.data_tests"),
    "owner and meta.owner": shop(E.SpecParseError, [edit(SE, "    grants: {select: [analyst]}\n",
                                                         "    grants: {select: [analyst]}\n    owner: crm\n"
                                                         "    meta: {owner: sales}\n")],
                                 SE, "meta: {owner", "entities.customer.meta.owner"),
    "meta is not a map": shop(E.SpecParseError, [edit(SE, "    grants: {select: [analyst]}\n",
                                                      "    grants: {select: [analyst]}\n    meta: [crm]\n")],
                              SE, "meta: [crm]", "entities.customer.meta"),
    "description is not text": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                             "country: {type: string, description: [a]}")],
                                    SE, "description: [a]", "entities.customer.fields.country.description"),
    "dbt test name": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                  "country: {type: string, tests: [\"not null\"]}")],
                          SE, "tests: [", "entities.customer.fields.country.tests[0]"),
    "dbt test entry with two tests": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                                  "country: {type: string, tests: [{unique: {}, not_null: {}}]}")],
                                          SE, "tests: [", "entities.customer.fields.country.tests[0]"),
    "dbt test arguments not a map": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                                 "country: {type: string, tests: [{accepted_values: [de]}]}")],
                                         SE, "tests: [", "entities.customer.fields.country.tests[0].accepted_values"),
    "dbt test sets column_name": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                              "country: {type: string, tests: [{unique: {column_name: x}}]}")],
                                      SE, "tests: [", "entities.customer.fields.country.tests[0].unique.column_name"),
    # issue 37: SQL reaches a test only through a key the project lists under `sql_test_keys`
    "dbt test where carries SQL": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                               "country: {type: string, tests: [{not_null: {config: {where: \"1=1\"}}}]}")],
                                       SE, "tests: [", "entities.customer.fields.country.tests[0].not_null.config.where"),
    "dbt test warn_if beside the arguments": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                                         "country: {type: string, tests: [{unique: {warn_if: \">1\"}}]}")],
                                                  SE, "tests: [", "entities.customer.fields.country.tests[0].unique.warn_if"),
    "custom test text argument": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                              "country: {type: string, tests: [{mine: {arguments: {expr: \"x > 0\"}}}]}")],
                                      SE, "tests: [", "entities.customer.fields.country.tests[0].mine.arguments.expr"),
    "accepted_values value with a quote": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                                       "country: {type: string, tests: [{accepted_values: {values: [\"d'e\"]}}]}")],
                                               SE, "tests: [", "entities.customer.fields.country.tests[0].accepted_values.values"),
    "accepted_values unquoted": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                             "country: {type: string, tests: [{accepted_values: {values: [de], quote: false}}]}")],
                                     SE, "tests: [", "entities.customer.fields.country.tests[0].accepted_values.values"),
    "opted-in key does not cover another": shop(E.SpecParseError, [
        edit(SE, "spec_version: 1\n", "spec_version: 1\nsql_test_keys: [where, field]\n"),
        edit(SE, "country: {type: string}", "country: {type: string, tests: [{relationships: {to: \"ref('x')\", field: id, where: \"1=1\"}}]}")],
        SE, "tests: [", "entities.customer.fields.country.tests[0].relationships.to"),
    "dbt test limit is not a count": shop(E.SpecParseError, [edit(SE, "country: {type: string}",
                                                                  "country: {type: string, tests: [{not_null: {limit: \"1; drop\"}}]}")],
                                          SE, "tests: [", "entities.customer.fields.country.tests[0].not_null.limit"),
    "meta key with a Jinja opener": jinja("shop", [edit(SE, "    grants: {select: [analyst]}\n",
                                                         "    grants: {select: [analyst]}\n    meta: {\"{{ k }}\": 1}\n")],
                                           SE, "meta: {", "entities.customer.meta.{{ k }}"),
    "no version key": shop(E.SpecParseError, [edit(SC, "mapping_version: 1\n", "")], SC, "source: crm__customers", ""),
    "several version keys": shop(E.SpecParseError, [edit(SC, "mapping_version: 1\n", "mapping_version: 1\ncatalog_version: 1\n")],
                                 SC, "mapping_version: 1", ""),
    "version is 2": shop(E.SpecParseError, [edit(SC, "mapping_version: 1", "mapping_version: 2")],
                         SC, "mapping_version: 2", "mapping_version"),
    "version is a string": shop(E.SpecParseError, [edit(SC, "mapping_version: 1", "mapping_version: '1'")],
                                SC, "mapping_version", "mapping_version"),
    "marts document": shop(E.SpecParseError, [write("marts.yaml", "# marts\nmarts_version: 1\nmarts: {}\n")],
                           "marts.yaml", "marts_version", "marts_version"),
    "metrics document": shop(E.SpecParseError, [write("metrics.yaml", "metrics_version: 1\nmetrics: []\n")],
                             "metrics.yaml", "metrics_version", "metrics_version"),
    "steps document": shop(E.SpecParseError, [write("steps.yml", "steps_version: 1\n")],
                           "steps.yml", "steps_version", "steps_version"),
    "second entity model": shop(E.SpecParseError, [write("zz_model.yaml", "spec_version: 1\nentities: {}\n")],
                                "zz_model.yaml", "spec_version", "spec_version"),
    "YAML tag": shop(E.SpecParseError, [edit(SC, "target: customer", "target: !!python/name:os.system customer")],
                     SC, "target: !!python", "target"),
    "invalid unquoted date": shop(E.SpecParseError, [edit(SO, 'min: "2015-01-01T00:00:00"', "min: 2015-02-30")],
                                  SO, "2015-02-30", "fields.ordered_at.quality[1].min"),
    # -- SpecParseError: grammars ----------------------------------------------------------
    "type grammar": shop(E.SpecParseError, [edit(SE, "country: {type: string}", "country: {type: strng}")],
                         SE, "strng", "entities.customer.fields.country.type"),
    "decimal scale above precision": shop(E.SpecParseError, [edit(SE, 'discount: {type: "decimal(12,4)"}',
                                                                  'discount: {type: "decimal(2,4)"}')],
                                          SE, "decimal(2,4)", "entities.order_item.fields.discount.type"),
    "source path grammar": shop(E.SpecParseError, [edit(SC, 'from: "$.country"', 'from: "country"')],
                                SC, 'from: "country"', "fields.country.from"),
    "entity name grammar": shop(E.SpecParseError, [edit(SE, "  customer:\n", "  Customer:\n")],
                                SE, "Customer:", "entities.Customer"),
    "rule name grammar": shop(E.SpecParseError, [edit(SE, "name: discount_not_exceeding_gross", "name: Discount-Gross")],
                              SE, "Discount-Gross", "entities.order_item.quality[0].name"),
    "reconcile name grammar": full(E.SpecParseError, [edit(FE, "name: order_total_matches_items", "name: Order Totals")],
                                   FE, "Order Totals", "reconcile[0].name"),
    "retention grammar": shop(E.SpecParseError, [edit(SE, "retention: 30d", "retention: 30y")],
                              SE, "30y", "entities.customer.quarantine.retention"),
    # quarantine-rate thresholds (extension): a percent with its sign, 0 to 100, two decimals at most
    "warn_above grammar": Case(E.SpecParseError, [edit(SE, "retention: 30d\n", "retention: 30d\n      warn_above: 150%\n")],
                               SE, "150%", "entities.customer.quarantine.warn_above", hint="`1%`"),
    "warn_above with three decimals": Case(E.SpecParseError, [edit(SE, ORDER_Q, ORDER_Q.replace("90d", "90d, warn_above: 0.125%"))],
                                           SE, "0.125%", "entities.order.quarantine.warn_above"),
    "error_above as a bare number": Case(E.SpecParseError, [edit(SE, ORDER_Q, ORDER_Q.replace("90d", "90d, error_above: 0.1"))],
                                         SE, "0.1}", "entities.order.quarantine.error_above", hint='"1%"'),
    "error_above below warn_above": Case(E.SpecParseError,
                                         [edit(SE, ORDER_Q, ORDER_Q.replace("90d", "90d, warn_above: 5%, error_above: 2.5%"))],
                                         SE, "2.5%", "entities.order.quarantine.error_above",
                                         says="below warn_above", hint="at least warn_above"),
    # drift settings (extension): min_history at most window, sensitivity in hundredths, the grammar
    "drift min_history above window": Case(E.SpecParseError,
                                           [edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {window: 5, min_history: 6}"))],
                                           SE, "min_history: 6", "entities.order.drift.min_history",
                                           says="more than window", hint="at most window"),
    "drift min_history above the default window": Case(E.SpecParseError,
                                                       [edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {min_history: 20}"))],
                                                       SE, "min_history: 20", "entities.order.drift.min_history"),
    "drift sensitivity with three decimals": Case(E.SpecParseError,
                                                  [edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {sensitivity: 2.125}"))],
                                                  SE, "2.125", "entities.order.drift.sensitivity", hint="hundredths"),
    "drift window too small": Case(E.SpecParseError,
                                   [edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {window: 2}"))],
                                   SE, "window: 2", "entities.order.drift.window"),
    "drift severity": Case(E.SpecParseError,
                           [edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {severity: fatal}"))],
                           SE, "fatal", "entities.order.drift.severity"),
    "drift min_change as a bare number": Case(E.SpecParseError,
                                              [edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {min_change: 0.5}"))],
                                              SE, "0.5}", "entities.order.drift.min_change", hint='"1%"'),
    "freshness grammar": shop(E.SpecParseError, [edit(SO, "warn_after: 6h", "warn_after: 6 hours")],
                              SO, "6 hours", "freshness.warn_after"),
    # error_after below warn_after would make the warning unreachable; equal is accepted (test below)
    "freshness error_after shorter than warn_after": shop(E.GuardrailError,
                                                          [edit(SO, "warn_after: 6h, error_after: 24h", "warn_after: 6h, error_after: 300m")],
                                                          SO, "error_after: 300m", "mapping[shop__orders->order].freshness.error_after"),
    "codepoint grammar": full(E.SpecParseError, [edit(FC, '"U+200B"', '"U+200b"')],
                              FC, "U+200b", "fields.nickname.quality[1].forbid[1]"),
    "reserved field name": shop(E.SpecParseError, [edit(SE, "country: {type: string}", "_source: {type: string}")],
                                SE, "_source", "entities.customer.fields._source"),
    "reserved rule name": shop(E.SpecParseError, [edit(SE, "name: discount_not_exceeding_gross", "name: _quality_ok")],
                               SE, "_quality_ok", "entities.order_item.quality[0].name"),
    "range without bound": shop(E.SpecParseError, [edit(SI, "{rule: range, min: 1, on_fail: quarantine}",
                                                        "{rule: range, on_fail: quarantine}")],
                                SI, "{rule: range, on_fail: quarantine}", "fields.quantity.quality[0]"),
    "range bound nan": shop(E.SpecParseError, [edit(SI, "{rule: range, min: 1,", "{rule: range, min: .nan,")],
                            SI, ".nan", "fields.quantity.quality[0].min"),
    "range bound inf": shop(E.SpecParseError, [edit(SI, "{rule: range, min: 1,", "{rule: range, min: -.inf,")],
                            SI, ".inf", "fields.quantity.quality[0].min"),
    "range bound exponent": shop(E.SpecParseError, [edit(SI, "{rule: range, min: 1,", "{rule: range, min: 1.0e+3,")],
                                 SI, "1.0e+3", "fields.quantity.quality[0].min"),
    "range bound exponent text": shop(E.SpecParseError, [edit(SI, "{rule: range, min: 1,", "{rule: range, min: 1e3,")],
                                      SI, "1e3", "fields.quantity.quality[0].min"),
    "range bound not ISO": shop(E.SpecParseError, [edit(SO, 'min: "2015-01-01T00:00:00"', 'min: "01/01/2015"')],
                                SO, "01/01/2015", "fields.ordered_at.quality[1].min"),
    "range bound impossible date": shop(E.SpecParseError, [edit(SO, 'min: "2015-01-01T00:00:00"', 'min: "2015-02-30T00:00:00"')],
                                        SO, "2015-02-30", "fields.ordered_at.quality[1].min"),
    "range min above max": shop(E.SpecParseError, [edit(SI, "{rule: range, min: 1,", "{rule: range, min: 10, max: 5,")],
                                SI, "min: 10, max: 5", "fields.quantity.quality[0]"),
    "length without bound": shop(E.SpecParseError, country_rule("{rule: length, on_fail: quarantine}"),
                                 SC, "{rule: length, on_fail", Q_COUNTRY),
    "length below zero": shop(E.SpecParseError, [edit(SC, "min: 2, max: 2", "min: -1, max: 2")],
                              SC, "min: -1", Q_COUNTRY + ".min"),
    "length min above max": shop(E.SpecParseError, [edit(SC, "min: 2, max: 2", "min: 3, max: 2")],
                                 SC, "min: 3, max: 2", Q_COUNTRY),
    "regex outside subset": shop(E.SpecParseError, regex("'^(?=a)[a-z]+$'"), SC, "(?=a)", "fields.email.quality[0].regex"),
    "regex unanchored": shop(E.SpecParseError, regex("'[a-z]+@[a-z]+'"), SC, "'[a-z]+@[a-z]+'", "fields.email.quality[0].regex"),
    "regex nested repetition": shop(E.SpecParseError, regex("'^(?:a+)+$'"), SC, "(?:a+)+", "fields.email.quality[0].regex"),
    "regex invalid": shop(E.SpecParseError, regex("'^[a-$'"), SC, "'^[a-$'", "fields.email.quality[0].regex"),
    "empty in_set": shop(E.SpecParseError, country_rule("{rule: in_set, values: [], on_fail: quarantine}"),
                         SC, "values: []", Q_COUNTRY + ".values"),
    "charset allow and forbid": shop(E.SpecParseError,
                                     country_rule("{rule: charset, allow: ['U+0041'], forbid: ['U+0042'], on_fail: flag}"),
                                     SC, "rule: charset", Q_COUNTRY),
    "charset neither side": shop(E.SpecParseError, country_rule("{rule: charset, on_fail: flag}"),
                                 SC, "rule: charset", Q_COUNTRY),
    "normalize form not nfc": shop(E.SpecParseError, country_rule("{rule: normalize, form: nfd, on_fail: flag}"),
                                   SC, "form: nfd", Q_COUNTRY + ".form"),
    "bad on_fail": shop(E.SpecParseError, [edit(SC, "max: 2, on_fail: quarantine", "max: 2, on_fail: drop")],
                        SC, "on_fail: drop", Q_COUNTRY + ".on_fail"),
    "on_fail missing": shop(E.SpecParseError, [edit(SC, "max: 2, on_fail: quarantine", "max: 2")],
                            SC, "min: 2, max: 2}", Q_COUNTRY),
    "bad on_missing": shop(E.SpecParseError, [edit(SE, "on_missing: quarantine", "on_missing: fail")],
                           SE, "on_missing: fail", "entities.order.quality[0].on_missing"),
    "on_fail repair": shop(E.SpecParseError, [edit(SC, "max: 2, on_fail: quarantine", "max: 2, on_fail: repair")],
                           SC, "on_fail: repair", Q_COUNTRY + ".on_fail"),
    "repair block": shop(E.SpecParseError, [edit(SC, "max: 2, on_fail: quarantine", "max: 2, on_fail: flag, repair: {via: fix@1}")],
                         SC, "repair:", Q_COUNTRY + ".repair"),
    "expression on_fail repair": shop(E.SpecParseError, [edit(SE, "quantity\", on_fail: flag}", "quantity\", on_fail: repair}")],
                                      SE, "on_fail: repair", "entities.order_item.quality[0].on_fail"),
    "unquoted float tolerance": full(E.SpecParseError, [edit(FE, 'tolerance: "0.01"', "tolerance: 0.01")],
                                     FE, "tolerance: 0.01", "reconcile[0].tolerance"),
    "negative tolerance": full(E.SpecParseError, [edit(FE, 'tolerance: "0.01"', 'tolerance: "-0.01"')],
                               FE, '"-0.01"', "reconcile[0].tolerance"),
    "reconcile on_fail quarantine": full(E.SpecParseError, [edit(FE, "tolerance: 0, on_fail: flag", "tolerance: 0, on_fail: quarantine")],
                                         FE, "on_fail: quarantine}", "reconcile[1].on_fail"),
    "coverage on_fail quarantine": full(E.SpecParseError, [edit(FE, "item_of_order, on_fail: flag", "item_of_order, on_fail: quarantine")],
                                        FE, "item_of_order, on_fail: quarantine", "coverage[0].on_fail"),
    "coverage min zero": full(E.SpecParseError, [edit(FE, "min: 2, on_fail: fail", "min: 0, on_fail: fail")],
                              FE, "min: 0, on_fail: fail", "coverage[1].min"),
    "empty relationship via": shop(E.SpecParseError, [edit(SE, "via: {order_id: order_id}", "via: {}")],
                                   SE, "via: {}", "relationships[1].via"),
    "empty entity key": shop(E.SpecParseError, [edit(SE, "key: [customer_id]", "key: []")],
                             SE, "key: []", "entities.customer.key"),
    "repeated entity key": shop(E.SpecParseError, [edit(SE, "key: [order_id, line_no]", "key: [order_id, order_id]")],
                                SE, "key: [order_id, order_id]", "entities.order_item.key"),
    "keep not latest_by": shop(E.SpecParseError, [edit(SE, "{keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n    quarantine:\n      retention",
                                                       "{keep: earliest_by, field: _ingested_at, tie_break: [_load_id]}\n    quarantine:\n      retention")],
                               SE, "earliest_by", "entities.customer.dedupe.keep"),
    "step with two names": shop(E.SpecParseError, [edit(SC, "transform: [trim, lower]", "transform: [{trim: [], lower: []}]")],
                                SC, "{trim: [], lower: []}", "fields.email.transform[0]"),
    "step that is a number": shop(E.SpecParseError, [edit(SC, "transform: [trim, lower]", "transform: [trim, 42]")],
                                  SC, "[trim, 42]", "fields.email.transform[1]"),
    "named step with a typo": shop(E.SpecParseError, [edit(SC, "transform: [trim, lower]", "transform: [{name: trim, arg: []}]")],
                                   SC, "arg: []", "fields.email.transform[0].arg"),
    "float transform argument": shop(E.SpecParseError, [edit(SC, "transform: [trim, lower]", "transform: [trim, {concat: 0.5}]")],
                                     SC, "concat: 0.5", "fields.email.transform[1].concat"),
    "step link": shop(E.SpecParseError, [edit(SC, "transform: [trim, lower]", "transform: [trim, {step: clean@1}]")],
                      SC, "step: clean@1", "fields.email.transform[1]"),
    "recipe field": shop(E.SpecParseError, [edit(SC, '    from: "$.email"\n', "    recipe: email_from_parts\n")],
                         SC, "recipe:", "fields.email.recipe"),
    # -- SpecParseError: names are data, never code (issue 18) ---------------------------------
    "relationship name with {{": jinja("shop", [edit(SE, "{name: item_of_order,", '{name: "{{ x }}",')],
                                       SE, "{{ x }}", "relationships[1].name"),
    "relationship name with {%": jinja("shop", [edit(SE, "{name: item_of_order,", '{name: "{% x %}",')],
                                       SE, "{% x %}", "relationships[1].name"),
    "relationship name with a quote": shop(E.SpecParseError, [edit(SE, "{name: item_of_order,", "{name: 'item\"of',")],
                                           SE, "item\"of", "relationships[1].name"),
    "relationship name with a space": shop(E.SpecParseError, [edit(SE, "{name: item_of_order,", "{name: item of order,")],
                                           SE, "item of order", "relationships[1].name"),
    "jinja in relationship from": jinja("shop", [edit(SE, "from: order_item, to: order", 'from: "{{ e }}", to: order')],
                                        SE, "{{ e }}", "relationships[1].from"),
    "jinja in relationship via column": jinja("shop", [edit(SE, "via: {order_id: order_id}", 'via: {"{{ a }}": order_id}')],
                                              SE, "{{ a }}", "relationships[1].via.{{ a }}"),
    "jinja in relationship via target": jinja("shop", [edit(SE, "via: {order_id: order_id}", 'via: {order_id: "{# b #}"}')],
                                              SE, "{# b #}", "relationships[1].via.order_id"),
    "jinja in entity name": jinja("shop", [edit(SE, "  customer:\n", '  "{{ customer }}":\n')],
                                  SE, "{{ customer }}", "entities.{{ customer }}"),
    "jinja in field name": jinja("shop", [edit(SE, "country: {type: string}", '"{# c #}": {type: string}')],
                                 SE, "{# c #}", "entities.customer.fields.{# c #}"),
    "jinja in entity key": jinja("shop", [edit(SE, "key: [customer_id]", 'key: ["{{ k }}"]')],
                                 SE, "{{ k }}", "entities.customer.key[0]"),
    "jinja in renamed_from": jinja("shop", [edit(SE, "country: {type: string}", 'country: {type: string, renamed_from: "{% r %}"}')],
                                   SE, "{% r %}", "entities.customer.fields.country.renamed_from"),
    "jinja in dedupe field": jinja("shop", [edit(SE, DEDUPE_CUSTOMER, DEDUPE_CUSTOMER.replace("field: _ingested_at", 'field: "{{ f }}"'))],
                                   SE, "{{ f }}", "entities.customer.dedupe.field"),
    "jinja in dedupe tie_break": jinja("shop", [edit(SE, DEDUPE_CUSTOMER, DEDUPE_CUSTOMER.replace("[_load_id]", '["{{ t }}"]'))],
                                       SE, "{{ t }}", "entities.customer.dedupe.tie_break[0]"),
    "jinja in grants role": jinja("shop", [edit(SE, "    grants: {select: [analyst]}\n", '    grants: {select: ["{{ role }}"]}\n')],
                                  SE, "{{ role }}", "entities.customer.grants.select[0]"),
    "jinja in expression rule name": jinja("shop", [edit(SE, "name: discount_not_exceeding_gross", 'name: "{% n %}"')],
                                           SE, "{% n %}", "entities.order_item.quality[0].name"),
    "jinja in referential via": jinja("shop", [edit(SE, "via: order_of_customer, on_missing", 'via: "{{ v }}", on_missing')],
                                      SE, "{{ v }}", "entities.order.quality[0].via"),
    "jinja in mapping source": jinja("shop", [edit(SC, "source: crm__customers", 'source: "{{ s }}"')],
                                     SC, "{{ s }}", "source"),
    "jinja in mapping target": jinja("shop", [edit(SC, "target: customer", 'target: "{{ t }}"')],
                                     SC, "{{ t }}", "target"),
    "jinja in mapping key name": jinja("shop", [edit(SC, 'customer_id: {from: "$.id"', '"{{ k }}": {from: "$.id"')],
                                       SC, "{{ k }}", "key.{{ k }}"),
    "jinja in mapping field name": jinja("shop", [edit(SC, "  country:\n", '  "{# f #}":\n')],
                                         SC, "{# f #}", "fields.{# f #}"),
    "jinja in partition_by": jinja("full", [edit(FE, 'partition_by: ["days(ordered_at)"]', 'partition_by: ["days({{x}})"]')],
                                   FE, "{{x}}", "entities.order.partition_by[0]"),
    "jinja in canonical": jinja("full", [edit(FE, "canonical: credit_limit", 'canonical: "{{ c }}"')],
                                FE, "{{ c }}", "entities.customer.fields.credit_limit.canonical"),
    "jinja in reconcile name": jinja("full", [edit(FE, "name: order_total_matches_items", 'name: "{{ r }}"')],
                                     FE, "{{ r }}", "reconcile[0].name"),
    "jinja in coverage name": jinja("full", [edit(FE, "name: every_order_has_items", 'name: "{% c %}"')],
                                    FE, "{% c %}", "coverage[0].name"),
    "jinja in coverage relationship": jinja("full", [edit(FE, "relationship: item_of_order, on_fail: flag",
                                                          'relationship: "{{ r }}", on_fail: flag')],
                                            FE, "{{ r }}", "coverage[0].relationship"),
    "jinja in catalog vertical": jinja("full", [edit(FCAT, "vertical: retail", 'vertical: "{{ v }}"')],
                                       FCAT, "{{ v }}", "vertical"),
    "jinja in catalog field name": jinja("full", [edit(FCAT, "  order_total:\n", '  "{{ n }}":\n')],
                                         FCAT, "{{ n }}", "canonical_fields.{{ n }}"),
    "jinja in catalog field entity": jinja("full", [edit(FCAT, "    entity: order\n", '    entity: "{# e #}"\n')],
                                           FCAT, "{# e #}", "canonical_fields.order_total.entity"),
    "jinja in catalog recipe id": jinja("full", [edit(FCAT, "    currency: EUR\n  credit_limit:",
                                                      '    currency: EUR\n    recipes: [{id: "{{ i }}", requires: [net]}]\n  credit_limit:')],
                                        FCAT, "{{ i }}", "canonical_fields.order_total.recipes[0].id"),
    "jinja in catalog recipe requires": jinja("full", [edit(FCAT, "    currency: EUR\n  credit_limit:",
                                                            '    currency: EUR\n    recipes: [{id: gross, requires: ["{% q %}"]}]\n  credit_limit:')],
                                              FCAT, "{% q %}", "canonical_fields.order_total.recipes[0].requires[0]"),
    "jinja in date dimension name": jinja("full", [edit(FCAT, "name: dim_date", 'name: "{{ d }}"')],
                                          FCAT, "{{ d }}", "date_dimension.name"),
    # -- UnknownTransformError -------------------------------------------------------------
    "unknown transform": shop(E.UnknownTransformError, [edit(SC, "transform: [trim, lower]", "transform: [trim, lowr]")],
                              SC, "lowr", f"{CUSTOMERS}.fields.email.transform[1]"),
    "unknown transform, named spelling": shop(E.UnknownTransformError,
                                              [edit(SC, "transform: [trim, lower]", "transform: [{name: strip, args: []}]")],
                                              SC, "name: strip", f"{CUSTOMERS}.fields.email.transform[0]"),
    # -- TypeCheckError ------------------------------------------------------------------------
    "transform arity": shop(E.TypeCheckError, [edit(SC, "transform: [trim, lower]", "transform: [trim, {lower: x}]")],
                            SC, "{lower: x}", f"{CUSTOMERS}.fields.email.transform[1]"),
    "transform argument kind": shop(E.TypeCheckError, [edit(SI, "transform: [{to_decimal: [12, 4]}]\n    quality",
                                                            "transform: [{to_decimal: [12, four]}]\n    quality")],
                                    SI, "four", f"{ITEMS}.fields.unit_price.transform[0]"),
    "transform input domain": shop(E.TypeCheckError, [edit(SC, "transform: [{parse_date: ISO8601}]",
                                                           "transform: [{parse_date: ISO8601}, upper]")],
                                   SC, "parse_date: ISO8601}, upper", f"{CUSTOMERS}.fields.signed_up_on.transform[1]"),
    "regex_extract pattern that does not compile": full(E.TypeCheckError, [edit(FO, "{regex_extract: ['^([a-z]+)', 1]}", "{regex_extract: ['^([a-z]+', 1]}")],
                                                        FO, "regex_extract", "mapping[shop__orders->order].fields.channel.transform[0]"),
    "regex_extract group the pattern lacks": full(E.TypeCheckError, [edit(FO, "{regex_extract: ['^([a-z]+)', 1]}", "{regex_extract: ['^([a-z]+)', 2]}")],
                                                  FO, "regex_extract", "mapping[shop__orders->order].fields.channel.transform[0]"),
    "terminal type not assignable": shop(E.TypeCheckError, [edit(SC, "transform: [upper]", "transform: [upper, to_int]")],
                                         SC, "[upper, to_int]", f"{CUSTOMERS}.fields.country.transform"),
    "decimal narrowing not assignable": full(E.TypeCheckError, [edit(FE, 'line_amount: {type: "decimal(14,2)"}',
                                                                     'line_amount: {type: "decimal(14,1)"}')],
                                             FI, "transform: [{to_decimal: [10, 2]}, {multiply", f"{ITEMS}.fields.line_amount.transform"),
    "precision cap in a chain": shop(E.TypeCheckError, [edit(SI, "transform: [{to_decimal: [12, 4]}]\n    quality",
                                                             "transform: [{to_decimal: [12, 4]}, {multiply: '12345678901234567890123456.5'}]\n    quality")],
                                     SI, "multiply", f"{ITEMS}.fields.unit_price.transform[1]"),
    "precision cap in a type": shop(E.TypeCheckError, [edit(SE, 'discount: {type: "decimal(12,4)"}', 'discount: {type: "decimal(40,4)"}')],
                                    SE, "decimal(40,4)", "entities.order_item.fields.discount.type"),
    "literal that does not fit the type": full(E.TypeCheckError, [edit(FO, '[{coalesce: "0"}, to_int]', '[to_int, {coalesce: "none"}]')],
                                               FO, "coalesce", f"{ORDERS}.fields.item_count.transform[1]"),
    "rule on a column of the wrong type": shop(E.TypeCheckError, [edit(SI, "{rule: range, min: 1, on_fail: quarantine}",
                                                                       "{rule: length, max: 3, on_fail: quarantine}")],
                                               SI, "rule: length", f"{ITEMS}.fields.quantity.quality[0]"),
    "range bound of the wrong kind": shop(E.TypeCheckError, [edit(SO, 'min: "2015-01-01T00:00:00"', "min: 2015")],
                                          SO, "min: 2015", f"{ORDERS}.fields.ordered_at.quality[1].min"),
    # -- MissingReference ----------------------------------------------------------------------
    "mapping target unknown": shop(E.MissingReference, [edit(SC, "target: customer", "target: custmer")],
                                   SC, "target: custmer", "mapping[crm__customers->custmer].target"),
    "mapping field unknown": shop(E.MissingReference, [edit(SC, "  country:\n    from", "  contry:\n    from")],
                                  SC, "contry", f"{CUSTOMERS}.fields.contry"),
    "mapping key column unknown": shop(E.MissingReference, [edit(SC, "key:\n", "key:\n  region: {from: \"$.region\"}\n")],
                                       SC, "region:", f"{CUSTOMERS}.key.region"),
    "canonical link unknown": full(E.MissingReference, [edit(FE, "canonical: credit_limit", "canonical: credit_limt")],
                                   FE, "credit_limt", "entities.customer.fields.credit_limit.canonical"),
    "canonical link without catalog": shop(E.MissingReference, [edit(SE, "country: {type: string}",
                                                                     "country: {type: string, canonical: country}")],
                                           SE, "canonical: country", "entities.customer.fields.country.canonical"),
    "relationship entity unknown": full(E.MissingReference, [edit(FE, "from: shipment, to: order", "from: shipment, to: ordr")],
                                        FE, "to: ordr", "relationships[2].to"),
    "relationship column unknown": full(E.MissingReference, [edit(FE, "from: shipment, to: order, via: {order_id: order_id}",
                                                                  "from: shipment, to: order, via: {order_id: order_ref}")],
                                        FE, "order_ref", "relationships[2].via.order_id"),
    "entity key not a field": shop(E.MissingReference, [edit(SE, "key: [order_id, line_no]", "key: [order_id, line_number]")],
                                   SE, "line_number", "entities.order_item.key[1]"),
    # -- ResolutionError -----------------------------------------------------------------------
    "key column not under key": shop(E.ResolutionError, [edit(SC, 'key:\n  customer_id: {from: "$.id", transform: [trim]}\n', "key: {}\n")],
                                     SC, "key: {}", f"{CUSTOMERS}.key"),
    "field under key and fields": shop(E.ResolutionError, [edit(SC, "fields:\n", 'fields:\n  customer_id: {from: "$.id"}\n')],
                                       SC, '  customer_id: {from: "$.id"}', f"{CUSTOMERS}.fields.customer_id"),
    "two mappings of one entity on one source": shop(E.ResolutionError, [write("mapping_customers_again.yaml",
                                                                               "mapping_version: 1\nsource: crm__customers\ntarget: customer\n"
                                                                               "key:\n  customer_id: {from: \"$.id\"}\n")],
                                                     "mapping_customers_again.yaml", "source:", f"{CUSTOMERS}.source"),
    "merged entity misses a required field": full(E.ResolutionError, [edit(FPU, 'fields:\n  title: {from: "$.item.name"}\n', "fields: {}\n")],
                                                  FPU, "fields: {}", "mapping[pim__products_us->product].fields"),
    # -- QuarantineRetentionMissing / Dedupe* / IngestionMetadataMissing -------------------------
    "retention missing": shop(E.QuarantineRetentionMissing, [edit(SE, '    quarantine:\n      retention: 30d\n      redact: ["$.notes"]', "")],
                              SE, "  customer:", "entities.customer"),
    "retention missing for an expression": full(E.QuarantineRetentionMissing,
                                                [edit(FE, "      - {rule: referential, via: item_of_order, on_missing: unknown_member}",
                                                      "      - {rule: referential, via: item_of_order, on_missing: unknown_member}\n"
                                                      "      - {rule: expression, name: has_price, expr: unit_price > 0, on_fail: quarantine}"),
                                                 edit(FE, "    quarantine: {retention: 90d}\n", "")],
                                                FE, "  order_item:", "entities.order_item"),
    # a merged entity may carry dedupe and quarantine (issue 20), but every mapping must carry the metadata
    "merged mapping without ingestion metadata": shop(E.IngestionMetadataMissing, [write(
        "mapping_customers_b2b.yaml", "mapping_version: 1\nsource: erp__accounts\ntarget: customer\n"
                                      "key:\n  customer_id: {from: \"$.account\"}\nunmapped: [\"$._load_id\"]\n")],
        "mapping_customers_b2b.yaml", "unmapped:", "mapping[erp__accounts->customer].unmapped"),
    "tie_break missing": shop(E.DedupeTieBreakMissing, [edit(SE, "{keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n    quarantine:\n      retention",
                                                             "{keep: latest_by, field: _ingested_at}\n    quarantine:\n      retention")],
                              SE, "dedupe: {keep: latest_by, field: _ingested_at}", "entities.customer.dedupe"),
    "coercible weaker than fail on a dedupe column": full(E.DedupeDispositionConflict,
                                                          [edit(FO, "{rule: coercible, on_fail: fail}", "{rule: coercible, on_fail: flag}")],
                                                          FO, "{rule: coercible, on_fail: flag}",
                                                          f"{ORDERS}.fields.ordered_at.quality[0].on_fail"),
    "ingestion metadata missing": shop(E.IngestionMetadataMissing, [edit(SC, ', "$._source_row_id"]', "]")],
                                       SC, "unmapped:", f"{CUSTOMERS}.unmapped"),
    # -- RedactionConflict ---------------------------------------------------------------------
    "redact a column the mapping reads": shop(E.RedactionConflict, [edit(SE, 'redact: ["$.notes"]', 'redact: ["$.notes", "$.email"]')],
                                              SE, "redact:", "entities.customer.quarantine.redact[1]"),
    "redact a column the mapping reads, spelled in other case": shop(E.RedactionConflict, [edit(SE, 'redact: ["$.notes"]', 'redact: ["$.notes", "$.EMail"]')],
                                                                     SE, "redact:", "entities.customer.quarantine.redact[1]"),
    "redact ingestion metadata": shop(E.RedactionConflict, [edit(SE, 'redact: ["$.notes"]', 'redact: ["$._load_id"]')],
                                      SE, "redact:", "entities.customer.quarantine.redact[0]"),
    # -- AssertLoweringError -------------------------------------------------------------------
    "assert ill-typed bound": full(E.AssertLoweringError, [edit(FE, "assert: {min: 0, max: 5}", 'assert: {min: 0, max: "2020-01-01"}')],
                                   FE, 'max: "2020-01-01"', "entities.customer.fields.tier.assert.max"),
    "assert enum of the wrong type": full(E.AssertLoweringError, [edit(FE, "enum: [FR, DE, GB]", "enum: [FR, DE, 44]")],
                                          FE, "enum: [FR, DE, 44]", "entities.customer.fields.country.assert.enum"),
    "assert regex on a non-string": full(E.AssertLoweringError, [edit(FE, "assert: {min: 0, max: 5}", "assert: {regex: '^[0-5]$'}")],
                                         FE, "regex: '^[0-5]$'", "entities.customer.fields.tier.assert.regex"),
    "assert on an unmapped field": full(E.AssertLoweringError, [edit(FE, "      coupon: {type: string}\n",
                                                                     "      coupon: {type: string}\n      note: {type: string, assert: {not_null: true}}\n")],
                                        FE, "note:", "entities.order.fields.note.assert"),
    # -- GuardrailError ------------------------------------------------------------------------
    "pattern too large to transport": shop(E.GuardrailError, regex("'^" + "[a-z]{250}" * 21 + "$'"),
                                           SC, "[a-z]{250}[a-z]{250}", f"{CUSTOMERS}.fields.email.quality[0].regex"),
    "dedupe column unknown": shop(E.GuardrailError, [edit(SE, "{keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n    quarantine: {retention: 90d}\n    quality:\n      - {rule: expression",
                                                          "{keep: latest_by, field: _ingested_at, tie_break: [_loadid]}\n    quarantine: {retention: 90d}\n    quality:\n      - {rule: expression")],
                                  SE, "_loadid", "entities.order_item.dedupe.tie_break[0]"),
    "fields differing only in case": shop(E.GuardrailError, [edit(SE, "      country: {type: string}\n", "      country: {type: string}\n      Country: {type: string}\n")],
                                          SE, "Country:", "entities.customer.fields.Country"),
    "partition column unknown": shop(E.GuardrailError, [edit(SE, "    grain: one row per order\n", "    grain: one row per order\n    partition_by: [days(orderd_at)]\n")],
                                     SE, "days(orderd_at)", "entities.order.partition_by[0]"),
    "time bucket of a string column": shop(E.GuardrailError, [edit(SE, "    grain: one row per order\n", "    grain: one row per order\n    partition_by: [days(status)]\n")],
                                           SE, "days(status)", "entities.order.partition_by[0]"),
    "hour bucket of a date column": shop(E.GuardrailError, [edit(SE, "    grain: one row per customer account\n", "    grain: one row per customer account\n    partition_by: [hours(signed_up_on)]\n")],
                                         SE, "hours(signed_up_on)", "entities.customer.partition_by[0]"),
    "type 2 entity with a composite key": shop(E.GuardrailError, [edit(SE, "    grain: one row per line on an order\n", "    grain: one row per line on an order\n    scd: type2\n")],
                                               SE, "key: [order_id, line_no]", "entities.order_item.key"),
    "referential via unknown": shop(E.GuardrailError, [edit(SE, "via: order_of_customer, on_missing", "via: order_of_custmer, on_missing")],
                                    SE, "order_of_custmer", "entities.order.quality[0].via"),
    "referential via from another entity": shop(E.GuardrailError, [edit(SE, "via: item_of_order, on_missing", "via: order_of_customer, on_missing")],
                                                SE, "via: order_of_customer, on_missing: unknown_member", "entities.order_item.quality[1].via"),
    "referential via self-referencing": full(E.GuardrailError,
                                             [edit(FE, "\nreconcile:\n", "\n  - {name: order_of_order, from: order, to: order, via: {coupon: order_id}, cardinality: many_to_one}\nreconcile:\n"),
                                              edit(FE, "via: order_of_customer, on_missing: quarantine}",
                                                   "via: order_of_customer, on_missing: quarantine}\n      - {rule: referential, via: order_of_order, on_missing: flag}")],
                                             FE, "via: order_of_order, on_missing", "entities.order.quality[3].via",
                                             hint="use a coverage or reconcile check"),
    "referential via duplicated": full(E.GuardrailError, [edit(FE, "via: order_of_customer, on_missing: quarantine}",
                                                               "via: order_of_customer, on_missing: quarantine}\n      - {rule: referential, via: order_of_customer, on_missing: flag}")],
                                       FE, "via: order_of_customer, on_missing: flag", "entities.order.quality[3].via"),
    "referential to an unmapped entity": full(E.GuardrailError,
                                              [edit(FE, "\nreconcile:\n", "\n  - {name: order_of_warehouse, from: order, to: warehouse, via: {channel: code}, cardinality: many_to_one}\nreconcile:\n"),
                                               edit(FE, "  product:      ", "  warehouse:\n    grain: one row per warehouse\n    key: [code]\n    fields: {code: {type: string}}\n  product:      "),
                                               edit(FE, "via: order_of_customer, on_missing: quarantine}",
                                                    "via: order_of_customer, on_missing: quarantine}\n      - {rule: referential, via: order_of_warehouse, on_missing: flag}")],
                                              FE, "via: order_of_warehouse, on_missing", "entities.order.quality[3].via"),
    "unknown_member on a composite key": full(E.GuardrailError,
                                              [edit(FE, "from: shipment, to: order, via: {order_id: order_id}", "from: shipment, to: order, via: {order_id: order_id, carrier: channel}"),
                                               edit(FE, "via: shipment_of_order, on_missing: flag", "via: shipment_of_order, on_missing: unknown_member")],
                                              FE, "via: shipment_of_order, on_missing: unknown_member",
                                              "entities.shipment.quality[0].on_missing"),
    "unknown_member on a non-string key": full(E.GuardrailError,
                                               [edit(FE, "\nreconcile:\n", "\n  - {name: lines_of_order, from: order_item, to: order, via: {line_no: item_count}, cardinality: many_to_one}\nreconcile:\n"),
                                                edit(FE, "via: item_of_order, on_missing: unknown_member}",
                                                     "via: item_of_order, on_missing: unknown_member}\n      - {rule: referential, via: lines_of_order, on_missing: unknown_member}")],
                                               FE, "via: lines_of_order, on_missing", "entities.order_item.quality[1].on_missing"),
    "authored name equals a generated name": shop(E.GuardrailError, [edit(SE, "name: discount_not_exceeding_gross", "name: sku_pattern")],
                                                  SE, "name: sku_pattern", "entities.order_item.quality[0].name"),
    "two expression rules with one name": full(E.GuardrailError, [edit(FE, "name: total_not_negative", "name: shipped_after_ordered")],
                                               FE, 'shipped_after_ordered, expr: "total', "entities.order.quality[1].name"),
    "expression unparseable": shop(E.GuardrailError, expression('"discount <= (unit_price"'), SE, "(unit_price", "entities.order_item.quality[0].expr"),
    "expression multi-statement": shop(E.GuardrailError, expression('"discount > 0; DROP TABLE x"'), SE, "DROP TABLE", "entities.order_item.quality[0].expr"),
    "expression not boolean": shop(E.GuardrailError, expression('"discount + 1"'), SE, '"discount + 1"', "entities.order_item.quality[0].expr"),
    "expression with a subquery": shop(E.GuardrailError, expression('"discount < (SELECT max(x) FROM t)"'), SE, "SELECT max", "entities.order_item.quality[0].expr"),
    "expression with a qualified column": shop(E.GuardrailError, expression('"o.discount > 0"'), SE, "o.discount", "entities.order_item.quality[0].expr"),
    "expression with an unknown column": shop(E.GuardrailError, expression('"discount <= unit_prise * quantity"'), SE, "unit_prise", "entities.order_item.quality[0].expr"),
    "in_enum without enum_map": shop(E.GuardrailError, country_rule("{rule: in_enum, on_fail: quarantine}"), SC, "rule: in_enum", f"{CUSTOMERS}.{Q_COUNTRY}"),
    "in_enum after an unsafe step": shop(E.GuardrailError, [edit(SO, "shipped, done, completed, completed, completed]}",
                                                                 "shipped, done, completed, completed, completed]}\n      - upper")],
                                         SO, "rule: in_enum", f"{ORDERS}.fields.status.quality[0]"),
    "charset codepoint beyond U+10FFFF": full(E.GuardrailError, [edit(FC, '"U+200B"', '"U+110000"')],
                                              FC, "U+110000", f"{CUSTOMERS}.fields.nickname.quality[1].forbid[1]"),
    "charset range backwards": full(E.GuardrailError, [edit(FC, '"U+00C0-U+00FF"', '"U+00FF-U+00C0"')],
                                    FC, "U+00FF-U+00C0", f"{CUSTOMERS}.fields.nickname.quality[2].allow[1]"),
    "charset surrogate": full(E.GuardrailError, [edit(FC, '"U+200B"', '"U+DC00"')],
                              FC, "U+DC00", f"{CUSTOMERS}.fields.nickname.quality[1].forbid[1]"),
    "charset too large": full(E.GuardrailError, [edit(FC, '"U+00C0-U+00FF"', '"U+00C0-U+04FF"')],
                              FC, "U+00C0-U+04FF", f"{CUSTOMERS}.fields.nickname.quality[2].allow[1]"),
    "charset too large in all": full(E.GuardrailError, [edit(FC, '"U+00C0-U+00FF"', '"U+0100-U+04FF", "U+0500-U+08FF"')],
                                     FC, "U+0500-U+08FF", f"{CUSTOMERS}.fields.nickname.quality[2].allow"),
    "reconcile side grammar": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_item.line_amount)"')],
                                   FE, 'right: "sum(order_item.line_amount)"', "reconcile[0].right"),
    "reconcile aggregate unknown": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "total(order_item.line_amount) by order_id"')],
                                        FE, "total(order_item", "reconcile[0].right"),
    "reconcile entity unknown": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_items.line_amount) by order_id"')],
                                     FE, "order_items.line_amount", "reconcile[0].right"),
    "reconcile entity unmapped": full(E.GuardrailError, [edit(FE, "  product:      ", "  ledger:\n    grain: one row per booking\n    key: [order_id]\n"
                                                              "    fields: {order_id: {type: string}, amount: {type: \"decimal(18,2)\"}}\n  product:      "),
                                                         edit(FE, FULL_RECONCILE, 'right: "ledger.amount"')],
                                      FE, 'right: "ledger.amount"', "reconcile[0].right"),
    "reconcile entity merged": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(product.list_price) by sku"')],
                                    FE, "product.list_price", "reconcile[0].right"),
    "reconcile column unknown": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_item.amount) by order_id"')],
                                     FE, "order_item.amount", "reconcile[0].right"),
    "reconcile column not numeric": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_item.sku) by order_id"')],
                                         FE, "order_item.sku", "reconcile[0].right"),
    "reconcile by column unknown": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_item.line_amount) by order_ref"')],
                                        FE, "by order_ref", "reconcile[0].right"),
    "reconcile repeated by": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_item.line_amount) by order_id, order_id"')],
                                  FE, "by order_id, order_id", "reconcile[0].right"),
    "reconcile key mismatch": full(E.GuardrailError, [edit(FE, FULL_RECONCILE, 'right: "sum(order_item.line_amount) by order_id, sku"')],
                                   FE, "  - {name: order_total_matches_items", "reconcile[0]"),
    "reconcile duplicate name": full(E.GuardrailError, [edit(FE, "name: item_count_matches_lines", "name: order_total_matches_items")],
                                     FE, 'left: "max(order.item_count)', "reconcile[1].name", occurrence=1),
    "coverage duplicate name": full(E.GuardrailError, [edit(FE, "name: every_customer_ordered_twice", "name: every_order_has_items")],
                                    FE, "relationship: order_of_customer, min: 2", "coverage[1].name"),
    "coverage relationship unknown": full(E.GuardrailError, [edit(FE, "relationship: item_of_order", "relationship: items_of_order")],
                                          FE, "items_of_order", "coverage[0].relationship"),
    "coverage side unmapped": full(E.GuardrailError, [edit(FE, "\nreconcile:\n", "\n  - {name: order_of_warehouse, from: order, to: warehouse, via: {channel: code}, cardinality: many_to_one}\nreconcile:\n"),
                                                      edit(FE, "  product:      ", "  warehouse:\n    grain: one row per warehouse\n    key: [code]\n    fields: {code: {type: string}}\n  product:      "),
                                                      edit(FE, "relationship: item_of_order", "relationship: order_of_warehouse")],
                                   FE, "relationship: order_of_warehouse, on_fail", "coverage[0].relationship"),
    "relationship name repeated": full(E.GuardrailError, [edit(FE, "\nreconcile:\n", "\n  - {name: item_of_order, from: shipment, to: order, via: {order_id: order_id}, cardinality: one_to_one}\nreconcile:\n")],
                                       FE, "{name: item_of_order, from: shipment", "relationships[3].name"),
    # -- FreshnessWithoutIngestionMetadata / ClassificationUngranted ------------------------------
    "freshness without ingestion metadata": full(E.FreshnessWithoutIngestionMetadata,
                                                 [edit(FPE, "target: product\n", "target: product\nfreshness: {error_after: 2d}\n")],
                                                 FPE, "freshness:", "mapping[pim__products_eu->product].freshness"),
    "classified column without grants": shop(E.ClassificationUngranted, [edit(SE, "    grants: {select: [analyst]}\n", "")],
                                             SE, "classification: pii", "entities.customer.fields.email.classification"),
}


def _apply(tree: Tree, edits):
    for op, *args in edits:
        getattr(tree, op)(*args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_broken_thing_one_located_error(name, tmp_path):
    case = CASES[name]
    tree = Tree.copy(case.base, tmp_path)
    _apply(tree, case.edits)
    errors = tree.errors()
    assert [type(e).__name__ for e in errors] == [case.error.__name__], "\n".join(map(str, errors))
    (error,) = errors
    loc = error.location
    assert (loc.file, loc.line, loc.path) == (
        tree.display(case.file), tree.line_of(case.file, case.needle, case.occurrence), case.path), str(error)
    assert error.message and error.hint, f"every refusal says what is wrong and what to do: {error}"
    assert case.says in error.message, str(error)
    assert case.hint in error.hint, str(error)


def test_every_error_class_of_section_5_has_a_case():
    covered = {c.error for c in CASES.values()}
    expected = {E.SpecParseError, E.UnknownTransformError, E.TypeCheckError, E.MissingReference, E.ResolutionError,
                E.QuarantineRetentionMissing, E.DedupeTieBreakMissing, E.DedupeDispositionConflict,
                E.IngestionMetadataMissing, E.RedactionConflict, E.AssertLoweringError, E.GuardrailError,
                E.FreshnessWithoutIngestionMetadata, E.ClassificationUngranted}
    assert expected <= covered  # UnsupportedByTarget is raised at emit: see test_emit_refusals.py


def test_hints_name_the_closest_valid_name(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SC, "transform: [trim, lower]", "transform: [trim, lowr]")
    tree.edit(SE, "via: order_of_customer, on_missing", "via: order_of_custmer, on_missing")
    hints = sorted(e.hint for e in tree.errors())
    assert hints == ["did you mean `lower`?"]  # the typecheck stage stops before guardrails run
    tree.edit(SC, "transform: [trim, lowr]", "transform: [trim, lower]")
    assert [e.hint for e in tree.errors()] == ["did you mean `order_of_customer`?"]


def test_errors_of_one_stage_are_batched_and_sorted(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SO, "warn_after: 6h", "warn_after: 6 hours")
    tree.edit(SC, "target: customer\n", "target: customer\ntargte: x\n")
    tree.edit(SE, "retention: 30d", "retention: 30y")
    errors = tree.errors()
    assert len(errors) == 3
    assert [(e.location.file, e.location.line) for e in errors] == sorted((e.location.file, e.location.line) for e in errors)


def test_freshness_error_after_equal_to_warn_after_is_accepted(tmp_path):
    """Equal thresholds (in any units) are a policy: the source goes from pass straight to error."""
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SO, "warn_after: 6h, error_after: 24h", "warn_after: 1440m, error_after: 1d")
    assert tree.errors() == []


def test_quarantine_thresholds_are_accepted_and_computed(tmp_path):
    """Equal thresholds are accepted (from pass straight to error); the IR carries basis points."""
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SE, ORDER_Q, ORDER_Q.replace("90d", "90d, warn_above: 0.5%, error_above: 0.50%"))
    tree.edit(SE, "retention: 30d\n", "retention: 30d\n      error_above: 100%\n")
    entities = tree.check().entities
    thresholds = {n: (entities[n].quarantine.warn_above_bp, entities[n].quarantine.error_above_bp)
                  for n in ("order", "customer", "order_item")}
    assert thresholds == {"order": (50, 50), "customer": (0, 10000), "order_item": (0, None)}


def test_drift_settings_are_accepted_and_computed(tmp_path):
    """Defaults that do not judge a first week; the IR carries numbers (hundredths, basis points)."""
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SE, ORDER_Q, ORDER_Q.replace("90d}", "90d}\n    drift: {window: 30, min_history: 30, sensitivity: 4.25, "
                                                   "min_change: 20%, severity: error}"))
    entities = tree.check().entities
    assert entities["order"].drift == {"window": 30, "min_history": 30, "sensitivity_x100": 425,
                                          "min_change_bp": 2000, "severity": "error"}
    assert entities["customer"].drift == {"window": 14, "min_history": 7, "sensitivity_x100": 300,
                                             "min_change_bp": 5000, "severity": "warn"}


def test_no_entity_model(tmp_path):
    tree = Tree.copy("shop", tmp_path).remove(SE)
    (error,) = tree.errors()
    assert isinstance(error, E.SpecParseError) and "no entity model" in error.message
    assert error.location.file == str(tree.root)


def test_missing_specs_folder(tmp_path):
    tree = Tree(tmp_path / "nowhere")
    (error,) = tree.errors()
    assert isinstance(error, E.SpecParseError) and error.location.file == str(tmp_path / "nowhere")


def test_file_that_is_not_utf8(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    (tree.root / SC).write_bytes(b"mapping_version: 1\nsource: crm\xff\n")
    (error,) = tree.errors()
    assert isinstance(error, E.SpecParseError)
    assert (error.location.file, error.location.line) == (tree.display(SC), 2)


def test_referential_rules_may_form_a_cycle(tmp_path):
    """Not an error: emit cuts the cycle where it reaches its first member by name."""
    tree = Tree.copy("full", tmp_path)
    tree.edit(FE, "\nreconcile:\n", "\n  - {name: customer_of_order, from: customer, to: order, "
                                     "via: {customer_id: customer_id}, cardinality: one_to_many}\nreconcile:\n")
    tree.edit(FE, "    grants: {select: [analyst]}\n",
              "    grants: {select: [analyst]}\n    quality: [{rule: referential, via: customer_of_order, on_missing: flag}]\n")
    project = tree.check()
    parents = {n: {r.parent for r in e.rules if r.kind == "referential"} for n, e in project.entities.items()}
    assert "order" in parents["customer"] and "customer" in parents["order"]


def test_a_redaction_drops_every_spelling_of_its_column(tmp_path):
    """DuckDB reads `$.Notes` and `$.notes` as one column: redacting one drops both from `raw`."""
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SC, '"$.notes"', '"$.Notes"')
    raw = tree.check().entities["customer"].mappings[0].raw_columns
    assert "Notes" not in raw and "notes" not in raw


B2B = ("mapping_version: 1\nsource: erp__accounts\ntarget: customer\nkey:\n  customer_id: {from: \"$.account\"}\n"
       "fields:\n  country: {from: \"$.land\", transform: [trim, upper], quality: [{rule: length, max: 3, on_fail: flag}]}\n\n  signed_up_on: {from: \"$.since\"}\n"
       "unmapped: [\"$._load_id\", \"$._ingested_at\", \"$._source_row_id\"]\n")


def test_a_merged_entity_may_carry_dedupe_quarantine_and_quality(tmp_path):
    """Issue 20 (product page: one reject table per entity, each row records its mapping): a second
    mapping of the deduplicated, quarantining `customer` is accepted, and a field rule judges the
    rows of the mappings that declare it."""
    tree = Tree.copy("shop", tmp_path).write("mapping_customers_b2b.yaml", B2B)
    customer = tree.check().entities["customer"]
    both = ["crm__customers->customer", "erp__accounts->customer"]
    assert [m.name for m in customer.mappings] == both
    assert customer.dedupe and customer.quarantine
    rules = {r.name: r for r in customer.rules}
    # the same rule on a column both mappings map (here the implicit coercible of a cast) is one
    # rule, judging both; a key read as text has no cast, so no coercible rule
    assert rules["signed_up_on_coercible"].mappings == tuple(both)
    assert "customer_id_coercible" not in rules
    assert rules["country_length"].mappings == ("crm__customers->customer",)
    assert rules["country_length_max"].mappings == ("erp__accounts->customer",)
    assert all(r.mappings is None for r in customer.rules if r.kind == "referential")


def test_a_merged_entity_may_carry_field_quality(tmp_path):
    tree = Tree.copy("full", tmp_path)
    tree.edit(FPU, 'title: {from: "$.item.name"}', 'title: {from: "$.item.name", quality: [{rule: not_null, on_fail: flag}]}')
    assert [type(e) for e in tree.errors()] == [E.QuarantineRetentionMissing]   # the implicit coercible rules quarantine
    tree.edit(FE, "      list_price: {type: \"decimal(12,2)\"}\n", "      list_price: {type: \"decimal(12,2)\"}\n    quarantine: {retention: 30d}\n")
    for mapping in (FPU, FPE):
        tree.append(mapping, 'unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]\n')
    product = tree.check().entities["product"]
    assert product.quality and len(product.mappings) == 2
    (rule,) = [r for r in product.rules if r.kind == "not_null"]
    assert rule.mappings == ("pim__products_us->product",) and rule.disposition is Disposition.FLAG


def test_a_bare_off_read_as_false_says_what_yaml_did(tmp_path):
    # `severity: off` reaches the schema as the boolean false (YAML 1.1): the error names it
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SE, "    grants: {select: [analyst]}\n", "    grants: {select: [analyst]}\n    drift: {severity: off}\n")
    [error] = tree.errors()
    assert type(error) is E.SpecParseError and error.location.path == "entities.customer.drift.severity"
    assert error.location.file.endswith(SE) and error.location.line == 18
    assert "got the boolean false: YAML reads a bare off, no, on or yes as true or false" in error.message
    assert error.hint == "write one of: warn, error, ignore"
