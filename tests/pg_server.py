"""A throwaway PostgreSQL server for the store's tests, from the installed binaries.

The server refuses to run as root (and CI runs as root): as root it runs as the unprivileged user
``nobody`` (through ``setpriv``), in a temporary folder that user owns, on a unix socket in that folder
and a free port, with trust authentication. :func:`start` returns the server or the reason none could
start (then the tests that need it skip, saying why). ``MEASUREFIRST_PG_BIN`` names another folder of
binaries; the newest ``/usr/lib/postgresql/*/bin`` is the default.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

USER = "mf"


def _bin_dir() -> Path | None:
    env = os.environ.get("MEASUREFIRST_PG_BIN")
    if env:
        return Path(env)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                   if Path(p).parent.name.isdigit() else 0)
    if found:
        return Path(found[-1])
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    folder: Path
    port: int
    bin: Path
    prefix: list[str]

    def url(self, schema: str | None = None, database: str = "postgres") -> str:
        """A URL to the server; with ``schema``, one whose search_path is that schema."""
        query = f"host={quote(str(self.folder))}&port={self.port}"
        if schema:
            query += f"&options={quote(f'-csearch_path={schema}')}"
        return f"postgresql://{USER}@/{database}?{query}"

    def sql(self, statement: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database=database), autocommit=True) as conn:
            conn.execute(statement)

    def fresh_schema(self) -> str:
        """A URL to a new, empty schema of its own."""
        name = "t" + uuid.uuid4().hex[:12]
        self.sql(f"CREATE SCHEMA {name}")
        return self.url(name)

    def stop(self) -> None:
        subprocess.run([*self.prefix, str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate",
                        "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.folder, ignore_errors=True)


def start() -> Server | str:
    """A running server, or the reason none can start."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    bin_dir = _bin_dir()
    if bin_dir is None or not (bin_dir / "initdb").exists():
        return "no PostgreSQL binaries (initdb) found; set MEASUREFIRST_PG_BIN"
    prefix: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="mf-pg-"))
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            return "running as root without setpriv to start the server as an unprivileged user"
        import pwd

        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            return "running as root and no user 'nobody' to start the server as"
        os.chown(folder, nobody.pw_uid, nobody.pw_gid)
        prefix = [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
    env = {**os.environ, "LC_ALL": "C", "HOME": str(folder)}
    port = _free_port()
    steps = [
        [str(bin_dir / "initdb"), "-D", str(folder / "data"), "-A", "trust", "-U", USER, "--no-sync", "-E", "UTF8"],
        [str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-l", str(folder / "log"), "-w", "-t", "60", "-o",
         f"-k {folder} -p {port} -c listen_addresses='' -c fsync=off -c max_connections=60", "start"],
    ]
    for step in steps:
        try:
            done = subprocess.run([*prefix, *step], capture_output=True, text=True, timeout=120, env=env,
                                  cwd=str(folder))
        except (OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(folder, ignore_errors=True)
            return f"cannot run {Path(step[0]).name}: {exc}"
        if done.returncode != 0:
            log = (folder / "log").read_text(errors="replace")[-300:] if (folder / "log").exists() else ""
            shutil.rmtree(folder, ignore_errors=True)
            return f"{Path(step[0]).name} failed: {(done.stderr or done.stdout).strip()[-300:]} {log}".strip()
    return Server(folder, port, bin_dir, prefix)
