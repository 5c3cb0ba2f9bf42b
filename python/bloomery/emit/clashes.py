"""The generated files by name, refusing two generated nodes or two generated tests of one name.

Separate because every node is named after something in the spec, so a clash is a spec error to
locate (an entity `order__reject` beside `order`, a rule named like an audit), found only once
every file is rendered.
"""
from __future__ import annotations

import yaml

from ..resolve import ProjectIR
from ..errors import EmitError, Location
from ..guardrails.targets import NAME_MAX_BYTES


class _Files(dict):
    """The generated files, by name. Every node bloomery generates is named after something in the
    spec, and dbt needs node names unique in a project: an entity `order__reject` beside an entity
    `order`, an entity named `quality_drift`, or a rule whose test takes an audit's name would
    otherwise overwrite a file here or stop `dbt parse`. Both are refused at compile, located."""

    PACKAGE = "the package's own nodes"

    def __init__(self, project: ProjectIR):
        super().__init__()
        self.project, self.origin = project, {}

    def put(self, name: str, text: str, origin: str = "") -> None:
        node, clash = name.rsplit(".", 1)[0], name if name in self else None
        if clash is not None:
            raise self.project.relocate(EmitError(
                f"`{node}` would be generated twice: for {self.origin[clash] or self.PACKAGE} and for "
                f"{origin or self.PACKAGE}", Location(path=origin or self.origin[clash]),
                "rename the entity or check: names ending in __staged, __staged_rest, __kept, __reject, __ledger, __quality, "
                "__ledger_rest or "
                "__reconcile, and mart_data_quality, quality_quarantine_rate, quality_drift and quality_bronze_columns, are "
                "bloomery's"))
        self[name], self.origin[name] = text, origin

    def refuse_bronze_and_long_names(self, entities: dict) -> None:
        """Every relation bloomery generates: never a bronze relation of the project (bronze and the
        generated relations share the target schema by default, and a model named like its bronze
        replaces it on the first build; the on-run-start check bloomery.assert_bronze_untouched
        covers the schemas), and never longer than the shortest engine limit of a name."""
        relations = {name.rsplit(".", 1)[0]: self.origin[name] for name in self if name.endswith(".sql")}
        for name, entity in entities.items():
            relations.setdefault(name, f"entities.{name}")            # a type 2 entity's snapshot
            # the relations bloomery writes outside dbt's graph: publish_staged's rows not kept, and
            # the ledger's deliveries not kept (macros/route/ledger_rest.sql)
            for suffix in ("__staged_rest", "__ledger_rest"):
                rest = f"{name}{suffix}"
                if rest.lower() in {r.lower() for r in relations}:
                    raise self.project.relocate(EmitError(
                        f"`{rest}` is a relation bloomery writes for the entity `{name}`, and "
                        f"{relations.get(rest) or 'another node'} is generated under that name too",
                        Location(path=relations.get(rest) or f"entities.{name}"),
                        f"rename the entity: names ending in {suffix} are bloomery's"))
                relations[rest] = f"entities.{name}"
        bronze = {s["name"].lower(): s for s in self.project.sources}
        for relation, origin in sorted(relations.items()):
            source = bronze.get(relation.lower())
            if source is not None:
                entity = source["entities"][0]
                raise self.project.relocate(EmitError(
                    f"bronze relation `{source['name']}` (the source of `{entity}`) has the name of the relation "
                    f"`{relation}` bloomery generates ({'for ' + origin if origin else 'the package model'}): in one "
                    "schema, the first build would replace the bronze table with it",
                    Location(path=origin or f"entities.{entity}"),
                    "rename the entity (or check), or land bronze under another name; bloomery generates "
                    "`<entity>`, `<entity>__staged`, `__staged_rest`, `__kept`, `__reject`, `__ledger`, `__ledger_rest`, `__quality`, "
                    "`<check>__reconcile` and the quality marts"))
            if len(relation.encode()) > NAME_MAX_BYTES:
                raise self.project.relocate(EmitError(
                    f"the generated relation `{relation}` is {len(relation.encode())} bytes long; PostgreSQL keeps "
                    f"{NAME_MAX_BYTES} bytes of a name and would cut it (and two cut names can meet)",
                    Location(path=origin), f"shorten the entity (or check) name: with the longest suffix bloomery adds "
                    f"(`__staged_rest`, `__ledger_rest`: 13 bytes) it must fit {NAME_MAX_BYTES} bytes"))

    def refuse_test_name_clashes(self, entities: dict) -> None:
        seen: dict[str, str] = {}
        for file, text in sorted(self.items()):
            if not file.endswith(".yml"):
                continue
            origin = self.origin[file]
            doc = yaml.safe_load(text) or {}
            for node in doc.get("models", []) + doc.get("snapshots", []):
                tests = list(node.get("data_tests") or [])
                for column in node.get("columns") or []:
                    tests += column.get("data_tests") or []
                for test in tests:
                    body = next(iter(test.values())) if isinstance(test, dict) else None
                    name = body.get("name") if isinstance(body, dict) else None
                    if name is None:
                        continue
                    if name in seen:
                        raise self.project.relocate(EmitError(
                            f"two generated tests are named `{name}` (for {seen[name] or self.PACKAGE} and for "
                            f"{origin or self.PACKAGE}): dbt needs test names unique in a project",
                            Location(path=self._path_of(name, origin or seen[name], entities)),
                            "rename the rule or test: `<entity>_<rule>` must not be the name of one of bloomery's "
                            "audits of the entity (conservation, ingestion_metadata, key_unique, source_collision, "
                            "quarantine_rate, drift) or of another test"))
                    seen[name] = origin

    @classmethod
    def _owner_of(cls, test: str, origin: str, entities: dict) -> str:
        """The spec path a test is named after, also for the mart's tests (which carry no origin):
        its rule, else the longest entity name it starts with."""
        if origin.startswith("entities."):
            return cls._path_of(test, origin, entities)
        for name in sorted(entities, key=len, reverse=True):
            if test.startswith(name + "_"):
                return cls._path_of(test, f"entities.{name}", entities)
        return origin

    @staticmethod
    def _path_of(test: str, origin: str, entities: dict) -> str:
        """The spec path of the rule a test is named after, else the entity's."""
        name = origin.removeprefix("entities.")
        for rule in entities[name].rules if name in entities else ():
            if test == f"{name}_{rule.name}":
                return rule.path
        return origin
