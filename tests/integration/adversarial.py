"""The red team's shared pieces (issue 37): hostile tokens, one case shape, and the promises each
case is judged against. The test modules test_adversarial_*.py hold the cases.

A `Case` is a small spec tree (entities, relationships, mappings) plus the bronze it reads and where
each bronze row must land. Every case gets names of its own (entity `rtNN...`, a canary table
`main.canary_NN`, a secret environment variable `BLOOMERY_REDTEAM_SECRET_NN`), so that many cases
share ONE dbt build per engine and a broken promise is still attributed to the case that broke it.

The promises (README, docs/quality-rules.md, spec reference section 0):
  - a spec the compiler refuses is refused cleanly: `bloomery check` exits 1, names the file with
    line and column, and prints no traceback and no raw control byte;
  - a spec it accepts builds as data: the case's canary is intact, its secret is nowhere under
    target/ or logs/, its nodes pass, and every bronze row is exactly where its verdict says
    (kept, or in the reject table), none in two places and none in none; bronze itself unchanged.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import secrets as _secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from bloomery.cli import main as bloomery_main

META_COLUMNS = ["_load_id", "_ingested_at", "_source_row_id"]
META_PATHS = ["$._load_id", "$._ingested_at", "$._source_row_id"]
DEDUPE = {"keep": "latest_by", "field": "_ingested_at", "tie_break": ["_load_id"]}
SECRET_PREFIX = "BLOOMERY_REDTEAM_SECRET"
RUN_SECRET = _secrets.token_hex(8)
PASSING = ("success", "pass")
# raw control bytes a terminal acts on: C0 except \n (and \t, which prints as space), DEL, C1
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def secret_var(n: int) -> str:
    return f"{SECRET_PREFIX}_{n:02d}"


def secret_value(n: int) -> str:
    return f"rt-secret-{n:02d}-{RUN_SECRET}"


def canary(n: int) -> str:
    return f"canary_{n:02d}"


# -- the grammar of hostile tokens ------------------------------------------------------------------
def tokens(n: int) -> dict[str, str]:
    """Hostile tokens aimed at case `n`'s own canary and secret."""
    can, var = f"main.{canary(n)}", secret_var(n)
    return {
        "squote": f"x'); drop table {can}; --",
        "dquote": f'x"); drop table {can}; --',
        "backquote": f"x`); drop table {can}; --",
        "backslash": f"x\\'); drop table {can}; -- \\",
        "jinja_expr": "{{ env_var('" + var + "') }}",
        "jinja_stmt": "{% do run_query('drop table " + can + "') %}",
        "jinja_comment": "keep{# hidden #}this",
        "endraw": "{% endraw %}{{ env_var('" + var + "') }}{% raw %}",
        "placeholder": "__bloomery_col_0__",
        "placeholder_mixed": "__BLOOMERY_Col_0__",
        "reserved": "_bloomery_route",
        "reserved_mixed": "_BLOOMERY_route",
        "control": "a\x1b[31mred\x07\x08b",
        "long": "l" * 300,
        "unicode": "naïve_ü_数据_😀_\u202e",
    }


ATOMS = ["'", '"', "`", "\\", "{{", "}}", "{%", "%}", "{#", "#}", "__bloomery_col_0__", "__BLOOMERY_COL_1__",
         "_bloomery_route", "_BLOOMERY_route", "_bloomery_raw", ";", "--", "/*", "*/", "\x1b[2J", "\x07", "\t",
         "ü", "😀", "\u202e", "drop table canary", "$", ".", " "]


# -- cases ---------------------------------------------------------------------------------------------
@dataclass
class Case:
    id: str
    n: int
    entities: dict
    mappings: list
    bronze: dict                      # table -> (columns, rows); rows without the metadata columns
    relationships: list = field(default_factory=list)
    place: dict = field(default_factory=dict)   # entity -> {source_row_id: "keep" | "reject"}
    check: Callable | None = None     # check(project, case, result): more assertions on a build
    must_build: bool = False          # refusing this spec is not an acceptable answer
    allow: tuple = ()                 # node statuses besides pass allowed (e.g. "warn")
    solo: bool = False                # build in a project of its own
    must_refuse: bool = False         # the reference refuses this spec: building it is a finding
    setup: tuple = ()                 # statements run on the warehouse before the build

    def files(self) -> dict[str, dict]:
        out = {"entity_model.yaml": {"spec_version": 1, "entities": self.entities,
                                     **({"relationships": self.relationships} if self.relationships else {})}}
        for i, m in enumerate(self.mappings):
            out[f"mapping_{self.n:02d}_{i}.yaml"] = {"mapping_version": 1, **m}
        return out


def entity(fields: dict, key=("id",), quality=None, quarantine=True, dedupe=True, **extra) -> dict:
    doc = {"grain": "one row per thing", "key": list(key), "fields": fields}
    if dedupe:
        doc["dedupe"] = DEDUPE
    if quarantine:
        doc["quarantine"] = {"retention": "30d"}
    if quality:
        doc["quality"] = quality
    doc.update(extra)
    return doc


def mapping(source: str, target: str, key: dict, fields: dict, unmapped=()) -> dict:
    return {"source": source, "target": target, "key": key, "fields": fields,
            "unmapped": [*META_PATHS, *unmapped]}


def rows_with_meta(rows: list[tuple], load="l1", at="2024-03-01 00:00:00", prefix="s") -> list[tuple]:
    """Each row with `_load_id`, `_ingested_at` and a `_source_row_id` of its own (s1, s2, ...)."""
    return [(*r, load, at, f"{prefix}{i + 1}") for i, r in enumerate(rows)]


def merge(cases: list[Case]) -> dict[str, dict]:
    """One spec tree holding every case (entity names and bronze relations are the cases' own)."""
    model = {"spec_version": 1, "entities": {}, "relationships": []}
    files = {"entity_model.yaml": model}
    for c in cases:
        for name, doc in c.files().items():
            if name == "entity_model.yaml":
                model["entities"].update(doc["entities"])
                model["relationships"] += doc.get("relationships", [])
            else:
                files[name] = doc
    if not model["relationships"]:
        del model["relationships"]
    return files


def write_tree(files: dict[str, dict], folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, doc in files.items():
        # safe_dump writes every control character as a YAML escape
        (folder / name).write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000))
    return folder


# -- the bloomery CLI, in process ---------------------------------------------------------------------
def cli(*argv: str) -> tuple[int, str]:
    """(exit status, stdout + stderr) of `bloomery *argv`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = bloomery_main(list(argv))
    return code, out.getvalue() + err.getvalue()


def assert_inert(text: str, what: str):
    found = sorted({repr(c) for c in CONTROL.findall(text)})
    assert not found, f"{what}: raw control bytes {found} in the terminal text:\n{text[:2000]!r}"


def assert_clean_refusal(code: int, text: str, spec_files=None):
    """exit 1, a located error naming a spec file, no traceback, no internal error, inert text."""
    assert code == 1, f"expected a refusal (exit 1), got exit {code}:\n{text[:3000]}"
    assert "Traceback" not in text and "internal error" not in text, text[:3000]
    located = re.findall(r"([\w.-]+\.ya?ml):(\d+):(\d+): ", text)
    assert located, f"the refusal names no file:line:col:\n{text[:3000]}"
    if spec_files:
        assert {f for f, _, _ in located} <= set(spec_files), (located, spec_files)
    assert_inert(text, "bloomery check")


@dataclass
class Verdict:
    """What the compiler made of one case on its own."""
    check_code: int
    check_text: str
    compile_code: int = -1
    compile_text: str = ""


def judge_spec(case: Case, tmp: Path) -> Verdict:
    specs = write_tree(case.files(), tmp / case.id / "specs")
    code, text = cli("check", "--specs", str(specs))
    v = Verdict(code, text)
    if code == 0:
        v.compile_code, v.compile_text = cli("compile", "--specs", str(specs), "--out", str(tmp / case.id / "out"))
    return v


# -- a build and its promises ----------------------------------------------------------------------------
def set_secrets(cases: list[Case]):
    for c in cases:
        os.environ[secret_var(c.n)] = secret_value(c.n)


def prepare(project, cases: list[Case]):
    """Canaries and bronze for every case, in the project's warehouse."""
    for c in cases:
        project.execute(f"create table main.{canary(c.n)} as select 42 as alive")
        for table, (columns, rows) in c.bronze.items():
            project.write_bronze(table, columns, rows)


def leaks(project, cases: list[Case]) -> dict[int, list[str]]:
    """case number -> files under target/ and logs/ holding its secret value."""
    found: dict[int, list[str]] = {}
    values = {c.n: secret_value(c.n) for c in cases}
    for folder in ("target", "logs"):
        for path in (project.dir / folder).rglob("*"):
            if path.is_file():
                text = path.read_text(errors="replace")
                for n, v in values.items():
                    if v in text:
                        found.setdefault(n, []).append(str(path.relative_to(project.dir)))
    return found


def case_nodes(statuses: dict, case: Case) -> dict:
    pat = re.compile(rf"rt{case.n:02d}(?![0-9])")
    return {k: v for k, v in statuses.items() if pat.search(k)}


def relation_exists(project, name: str) -> bool:
    return bool(project.query("select 1 from information_schema.tables where table_schema = 'main' "
                              f"and table_name = '{name}'"))


def assert_built(project, case: Case, result, leaked: dict):
    """The promises on an accepted case after the build."""
    assert project.query(f"select * from main.{canary(case.n)}") == [(42,)], "the canary was dropped"
    assert case.n not in leaked, f"secret of the case leaked into {leaked.get(case.n)}"
    nodes = case_nodes(result.statuses, case)
    # `skipped` follows an error elsewhere (the quality mart reads every entity), `warn` is a
    # quarantine rate over its threshold: neither is the case's doing
    bad = {k: v for k, v in nodes.items()
           if v.split(":")[0] not in (*PASSING, "skipped", "warn", *case.allow)}
    assert not bad, f"nodes of the case did not pass: {bad}"
    # bronze is untouched: every relation still holds what the test wrote
    for table, (columns, rows) in case.bronze.items():
        got = project.query(f'select count(*) from main."{table}"')[0][0]
        assert got == len(rows), f"bronze {table} holds {got} rows, {len(rows)} were written"
    for ent, where in case.place.items():
        assert_placed(project, ent, where)
    if case.check:
        case.check(project, case, result)


def assert_placed(project, ent: str, where: dict):
    """Every bronze row of `where` (source_row_id -> keep | reject) is exactly there."""
    kept = [r for (r,) in project.query(f'select _source_row_id from main."{ent}"')]
    rejected = ([r for (r,) in project.query(f'select _source_row_id from main."{ent}__reject" where resolved_at is null')]
                if relation_exists(project, f"{ent}__reject") else [])
    assert len(kept) == len(set(kept)) and len(rejected) == len(set(rejected)), f"{ent}: a row in a place twice"
    got = {**{s: "keep" for s in kept}, **{s: "reject" for s in rejected}}
    both = set(kept) & set(rejected)
    assert not both, f"{ent}: rows in two places: {both}"
    missing = set(where) - set(got)
    assert not missing, f"{ent}: bronze rows in no place (vanished): {sorted(missing)}"
    wrong = {s: (got[s], want) for s, want in where.items() if got[s] != want}
    assert not wrong, f"{ent}: rows routed elsewhere than their verdict (got, want): {wrong}"
    extra = set(got) - set(where)
    assert not extra, f"{ent}: rows that no bronze row delivered: {extra}"


# -- one build per engine for many cases -------------------------------------------------------------------
@dataclass
class Outcome:
    project: object = None
    result: object = None
    leaked: dict = field(default_factory=dict)
    compile_text: str = ""
    summary_text: str = ""
    summary_json: str = ""


def build_cases(make_project, cases: list[Case], verdicts: dict[str, Verdict]) -> dict[str, Outcome]:
    """Every case the compiler accepted on its own, built together (a `solo` case in a project of its
    own) with real dbt; then `bloomery summary` as text and as JSON, read right after the build."""
    accepted = [c for c in cases if verdicts[c.id].check_code == 0 and verdicts[c.id].compile_code == 0]
    groups = [[c] for c in accepted if c.solo] + [[c for c in accepted if not c.solo]]
    out: dict[str, Outcome] = {}
    for group in (g for g in groups if g):
        project = make_project()
        specs = write_tree(merge(group), project.dir / "specs")
        set_secrets(group)
        prepare(project, group)
        for c in group:
            for sql in c.setup:
                project.execute(sql)
        code, text = cli("compile", "--specs", str(specs), "--out", str(project.dir / "models" / "bloomery"))
        if code != 0:
            for c in group:
                out[c.id] = Outcome(compile_text=f"the cases compiled together: exit {code}\n{text}")
            continue
        result = project.dbt("build", check=False)
        leaked = leaks(project, group)
        with project._invocation():
            s_text = cli("summary", "--project-dir", str(project.dir), "--profiles-dir", str(project.dir),
                         "--target", project.target)[1]
            s_json = cli("summary", "--project-dir", str(project.dir), "--profiles-dir", str(project.dir),
                         "--target", project.target, "--format", "json")[1]
        for c in group:
            out[c.id] = Outcome(project, result, leaked, summary_text=s_text, summary_json=s_json)
    return out


def judge(case: Case, verdict: Verdict, outcome: Outcome | None):
    """The promises, for one case: a clean refusal, or a build as data."""
    if verdict.check_code != 0:
        assert not case.must_build, f"a benign spec was refused:\n{verdict.check_text[:3000]}"
        assert_clean_refusal(verdict.check_code, verdict.check_text, case.files())
        return
    assert not case.must_refuse, \
        f"`bloomery check` accepted a spec the reference refuses: {verdict.check_text.strip()}"
    assert verdict.compile_code == 0, f"`bloomery compile` failed on an accepted spec:\n{verdict.compile_text[:3000]}"
    assert outcome is not None and outcome.project is not None, outcome.compile_text if outcome else "not built"
    if outcome.result.exception is not None and not outcome.result.statuses:
        raise AssertionError(f"dbt crashed on the build: {outcome.result.exception}")
    assert_built(outcome.project, case, outcome.result, outcome.leaked)
