"""Reading the report's rows through dbt, so any adapter the project builds on works.

The project is parsed once; every query is then a `dbt show --inline ... --limit -1` on that
manifest, in-process, with the project's own profile and target. Queries are written with
`ref()` and the package's dispatching macros, so dbt resolves relations and dialect. dbt writes
its artifacts and log into a target path of ours (a temporary folder unless --target-path is
given), never over the project's own `target/` (its run_results.json stays the last build's).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..errors import BloomeryError


class DbtQueryError(BloomeryError):
    """dbt could not parse the project or run a query; its text is dbt's own messages."""

    stage = "dbt"

    def __init__(self, what: str, messages: list[str]):
        self.what, self.messages = what, messages
        detail = "\n".join(f"  {line}" for m in messages for line in m.strip().splitlines() if line.strip())
        super().__init__(what + (":\n" + detail if detail else ""))

    def __str__(self) -> str:
        return Exception.__str__(self)


class DbtSession:
    """One dbt project, parsed once, queried many times."""

    def __init__(self, project_dir: Path, profiles_dir: Path | None = None, target: str | None = None,
                 target_path: Path | None = None):
        try:
            from dbt.cli.main import dbtRunner  # noqa: F401
        except ImportError:
            raise DbtQueryError("bloomery report reads the warehouse through dbt, which is not installed here",
                                ["install dbt-core and your adapter with your engine's extra, e.g. pip install 'dbt-bloomery[duckdb]' (or [postgres], [spark])"]) from None
        self.project_dir = Path(project_dir)
        self._tmp = None
        if target_path is None:
            self._tmp = tempfile.mkdtemp(prefix="bloomery-report-")
            target_path = Path(self._tmp)
            self._seed_partial_parse(target_path)
        self.target_path = Path(target_path)
        self.args = ["--project-dir", str(self.project_dir), "--target-path", str(self.target_path),
                     "--log-path", str(self.target_path / "logs"), "--log-level", "none"]
        if profiles_dir is not None:
            self.args += ["--profiles-dir", str(profiles_dir)]
        if target:
            self.args += ["--target", target]
        self.manifest = None
        self._messages: list[str] = []

    def _seed_partial_parse(self, target_path: Path):
        """Start from the project's own partial-parse state when it has one: dbt checks that it
        matches (project, profile, vars, versions) and parses in full when it does not."""
        configured = None
        try:
            import yaml
            doc = yaml.safe_load((self.project_dir / "dbt_project.yml").read_text(encoding="utf-8")) or {}
            configured = doc.get("target-path") if isinstance(doc, dict) else None
        except (OSError, ValueError, ImportError, yaml.YAMLError):
            pass
        folder = os.environ.get("DBT_TARGET_PATH") or (configured if isinstance(configured, str) else None) or "target"
        state = (self.project_dir / folder / "partial_parse.msgpack")
        if state.is_file():
            shutil.copyfile(state, target_path / state.name)

    def close(self):
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- dbt ---------------------------------------------------------------------------------
    def _listen(self, event):
        if event.info.level == "error" and event.info.name != "MainEncounteredError":
            self._messages.append(event.info.msg)

    def _invoke(self, args: list[str], what: str):
        from dbt.cli.main import dbtRunner
        self._messages = []
        try:
            res = dbtRunner(manifest=self.manifest, callbacks=[self._listen]).invoke([*args, *self.args])
        except BaseException as exc:  # dbt raises for a few setup problems instead of reporting them
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise DbtQueryError(what, [*self._messages, f"{type(exc).__name__}: {exc}"]) from None
        if not res.success:
            messages = list(self._messages)
            for r in getattr(res.result, "results", None) or []:
                if str(getattr(r, "status", "")) == "error" and r.message and r.message not in messages:
                    messages.append(r.message)
            if res.exception is not None and not messages:
                messages.append(str(res.exception))
            raise DbtQueryError(what, messages)
        return res.result

    def parse(self):
        self.manifest = self._invoke(["parse"], f"dbt could not parse the project in {self.project_dir}")
        return self.manifest

    def node(self, name: str):
        """The model or snapshot called `name`, or None."""
        for node in self.manifest.nodes.values():
            if str(node.resource_type) in ("model", "snapshot", "NodeType.Model", "NodeType.Snapshot") \
                    and node.name == name:
                return node
        return None

    def rows(self, sql: str, what: str) -> list[dict]:
        """The rows of one query (Jinja allowed: ref(), the package's macros), as dicts."""
        if self.manifest is None:
            self.parse()
        # A query that failed to compile leaves its node behind, and the next one would clash with it.
        for uid in [u for u in self.manifest.nodes if u.startswith("sql_operation.") and u.endswith(".inline_query")]:
            del self.manifest.nodes[uid]
        result = self._invoke(["show", "--inline", sql, "--limit", "-1"], what)
        table = result.results[0].agate_table
        return [dict(zip(table.column_names, row)) for row in table.rows]
