"""docs/getting-started.md, followed as a user would, from an empty folder.

The page's blocks are read from the page itself and acted on in order, so the page cannot drift
from what works: a ```yaml or ```python block whose first line is `# <path>` is written to that
path, a ```diff block applies its `-`/`+` lines to the file it names, every line of a ```sh block
is run in the project folder (an `. .venv/bin/activate` is what activating does: PATH and
VIRTUAL_ENV), and a ```text block is the output the command before it must print.

One substitution, because this machine reaches no git host: the published forms (the lines and
blocks that name `<your-org>`) are skipped, and the page's "from a checkout" forms that follow
them run instead, against this checkout placed beside the project as `../bloomery`. pip installs
into a fresh venv from its usual cache and index, with build isolation, as a user's pip does.

What the page says happens is checked after the commands that make it happen: the rows of the
entity and the reject table, the freshness verdict, the plan, the replay.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.getting_started

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "getting-started.md"
PUBLISHED = "<your-org>"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(text)]


def header(body: str) -> str | None:
    first = body.splitlines()[0] if body else ""
    m = re.fullmatch(r"# ([\w./-]+)", first.strip())
    return m.group(1) if m else None


class Shell:
    """The user's terminal: one folder, an environment that `activate` changes."""

    def __init__(self, cwd: Path, tmp: Path):
        self.cwd = cwd
        # the user's own settings stay (pip's index, certificates, proxy); what would point dbt, the
        # suite's projects or Python at the checkout's environment goes
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DBT_", "BLOOMERY_", "VIRTUAL_ENV", "CONDA_"))
               and k not in ("PYTHONPATH", "PYTHONHOME")}
        # `python3` is the interpreter running this test (3.11+), not whatever PATH finds first;
        # the checkout's own .venv is not on PATH: only what the page installs is.
        shim = tmp / "shim"
        shim.mkdir()
        (shim / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        (shim / "python3").chmod(0o755)
        path = [p for p in env.get("PATH", "").split(os.pathsep)
                if p and Path(p).resolve() != Path(sys.executable).parent.resolve()]
        env["PATH"] = os.pathsep.join([str(shim), *path])
        # dbt's usage events, and pip's version check, go to hosts this machine does not reach
        env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        self.env = env

    def run(self, line: str) -> subprocess.CompletedProcess:
        for part in re.split(r"\s+&&\s+", line):
            words = shlex.split(part, comments=True)
            if words[:1] in (["."], ["source"]) and words[1].endswith("bin/activate"):
                venv = (self.cwd / words[1]).parent.parent
                assert (venv / "bin" / "activate").is_file(), f"{part}: no such venv"
                self.env["VIRTUAL_ENV"] = str(venv)
                self.env["PATH"] = f"{venv / 'bin'}{os.pathsep}{self.env['PATH']}"
                result = subprocess.CompletedProcess(part, 0, "", "")
                continue
            result = subprocess.run(["bash", "-c", part], cwd=self.cwd, env=self.env, text=True,
                                    capture_output=True, timeout=900)
            assert result.returncode == 0, \
                f"`{part}` exited {result.returncode}\n--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-6000:]}"
        return result


def query(project: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(project / "shop.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_the_getting_started_page_works_from_an_empty_folder(tmp_path):
    (tmp_path / "bloomery").symlink_to(ROOT, target_is_directory=True)   # a checkout beside it
    project = tmp_path / "shop"
    project.mkdir()
    shell = Shell(project, tmp_path)

    checked: list[str] = []

    def after(line: str, result: subprocess.CompletedProcess, seen: dict[str, int]) -> None:
        """What the page says each step does."""
        words = shlex.split(line, comments=True)
        n = seen[line]
        if words[:2] == ["pip", "install"]:
            assert shell.env.get("VIRTUAL_ENV") == str(project / ".venv"), "pip ran outside the page's venv"
            versions = shell.run("pip list --format json").stdout
            installed = {p["name"].lower(): p["version"] for p in json.loads(versions)}
            # the [duckdb] extra's working set, inside the package's require-dbt-version
            assert installed["dbt-core"].startswith("1.11."), installed["dbt-core"]
            assert installed["dbt-duckdb"].startswith("1.11."), installed["dbt-duckdb"]
            assert "dbt-bloomery" in installed
            for tool in ("bloomery", "dbt"):
                found = shell.run(f"command -v {tool}").stdout.strip()
                assert found == str(project / ".venv" / "bin" / tool), f"{tool} is {found}"
            checked.append("install")
        elif words == ["dbt", "deps"]:
            assert (project / "dbt_packages" / "bloomery" / "dbt_project.yml").is_file()
            checked.append("deps")
        elif words[:2] == ["python", "land_bronze.py"]:
            assert query(project, "select count(*) from main.shop__orders") == [(4,)]
            checked.append("bronze")
        elif words[:2] == ["bloomery", "compile"] and n == 1:
            assert (project / "models" / "bloomery" / ".bloomery" / "compiled_specs.json").is_file()
            checked.append("compile")
        elif words == ["dbt", "build"] and n == 1:
            assert query(project, 'select order_id, status from main."order" order by 1') == \
                [("o-1", "placed"), ("o-2", "shipped")]
            assert query(project, "select key_values->>'order_id', failed_rules, resolved_at "
                                  "from main.order__reject") == [("o-3", ["status_in_enum"], None)]
            run = json.loads((project / "target" / "run_results.json").read_text())
            statuses = {r["unique_id"].split(".")[2]: r["status"] for r in run["results"]}
            assert statuses["order_conservation"] == "pass", statuses
            # the doc says the quarantined row shows as a WARN in dbt's own output
            assert statuses["order_quarantine_rate"] == "warn", statuses
            # three rows judged (o-2's earlier delivery deduplicated), one quarantined
            assert query(project, "select rows_evaluated, rows_quarantined, rows_deduped from main.mart_data_quality "
                                  "where entity = 'order' and rule = '(entity)'") == [(3, 1, 1)]
            checked.append("build")
        elif words == ["dbt", "source", "freshness"]:
            sources = json.loads((project / "target" / "sources.json").read_text())
            assert [(r["unique_id"].split(".")[-1], r["status"]) for r in sources["results"]] == \
                [("shop__orders", "pass")], sources["results"]
            checked.append("freshness")
        elif words[:2] == ["bloomery", "plan"]:
            assert "replay, parents first: order" in result.stdout, result.stdout
            checked.append("plan")
        elif words[:3] == ["dbt", "run-operation", "bloomery.replay"]:
            assert query(project, 'select status from main."order" where order_id = \'o-3\'') == [("cancelled",)]
            checked.append("replay")
        elif words == ["dbt", "build"] and n == 2:
            assert query(project, 'select order_id, status from main."order" order by 1') == \
                [("o-1", "placed"), ("o-2", "shipped"), ("o-3", "cancelled")]
            rejects = query(project, "select key_values->>'order_id', resolved_at is not null from main.order__reject")
            assert rejects == [("o-3", True)], rejects
            checked.append("rebuild")

    text = DOC.read_text(encoding="utf-8")
    skipped: list[str] = []
    seen: dict[str, int] = {}
    last: subprocess.CompletedProcess | None = None
    for lang, body in blocks(text):
        path = header(body)
        if lang in ("yaml", "python") and path:
            if PUBLISHED in body:
                skipped.append(path)
                continue
            target = project / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body.split("\n", 1)[1], encoding="utf-8")
        elif lang == "diff":
            assert path, f"a diff block names its file on its first line:\n{body}"
            target = project / path
            content = target.read_text(encoding="utf-8").splitlines(keepends=True)
            lines = body.splitlines()[1:]
            removed = [l[1:] for l in lines if l.startswith("-")]
            added = [l[1:] for l in lines if l.startswith("+")]
            assert len(removed) == len(added) == 1, "one changed line per diff block"
            at = [i for i, l in enumerate(content) if l.rstrip("\n") == removed[0]]
            assert len(at) == 1, f"{path}: the page's `-` line is not there once: {removed[0]!r}"
            content[at[0]] = added[0] + "\n"
            target.write_text("".join(content), encoding="utf-8")
        elif lang == "sh":
            for line in body.splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if PUBLISHED in line:
                    skipped.append(line)
                    continue
                seen[line] = seen.get(line, 0) + 1
                last = shell.run(line)
                after(line, last, seen)
        elif lang == "text":
            assert last is not None, "a text block shows the output of the command before it"
            assert last.stdout.strip() == body.strip(), \
                f"the page shows\n{body}\nthe command printed\n{last.stdout}"

    # the published install line and packages.yml are the ones the checkout forms stand in for
    assert skipped == ['pip install "dbt-bloomery[duckdb] @ git+https://github.com/<your-org>/bloomery.git"',
                       "packages.yml"], skipped
    # every step the page promises ran, in the page's order
    assert checked == ["install", "deps", "bronze", "compile", "build", "freshness", "plan",
                       "replay", "rebuild"], checked
