"""The stack's PostgreSQL part (backend/deploy/stack.py): a cluster under the stack dir,
started and stopped with pg_ctl."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from backend.deploy.processes import StackError, alive, terminate_group

DATABASE = "ragscope"


class Postgres:
    """A cluster in `home`/data on 127.0.0.1:`port` (TCP only, trust for local users), run
    by pg_ctl as the current user, or as `postgres` when that is root (the server refuses
    root), like .ci/run."""

    def __init__(self, home: Path, port: int, log: Path):
        self.home, self.port, self.log = home, port, log
        self.data = home / "data"
        self.bin = pg_bin()

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c", shlex.join(cmd)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and res.returncode != 0:
            raise StackError(f"{args[0]} failed: {(res.stdout + res.stderr).strip()[-800:]}")
        return res

    def start(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.home, "postgres")
            parent = self.home.parent  # the stack dir: postgres may pass through, not list
            parent.chmod(parent.stat().st_mode | 0o001)
            if not postgres_can_enter(self.home, "-w"):
                raise StackError(f"the postgres user cannot write {self.home}: choose a --dir "
                                 "whose parent folders others may enter (chmod o+x)")
        if not (self.data / "PG_VERSION").exists():
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                      "-E", "UTF8", "--locale=C.UTF-8")
        self._link_log()
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.home / "server.log"),
                      "-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k ''", "-w",
                      "-t", "60", "start")
            self._create_database()
        except BaseException:
            self.stop()  # not yet in stack.json: nobody else would stop it
            raise

    def _create_database(self) -> None:
        have = self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                         "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'")
        if have.stdout.strip() != "1":
            self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                      DATABASE)

    def _link_log(self) -> None:
        """The server's log (owned by postgres) is also the stack's postgres.log."""
        if self.log.is_symlink() or self.log.exists():
            self.log.unlink()
        self.log.symlink_to(self.home / "server.log")

    def pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> bool:
        pid = self.pid()
        if not pid or not alive(pid):
            return False
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
        terminate_group(pid)  # when pg_ctl could not stop it
        return True

    @staticmethod
    def answers(port: int) -> tuple[bool, str]:
        import psycopg

        try:
            with psycopg.connect(host="127.0.0.1", port=port, user="postgres",
                                 dbname=DATABASE, connect_timeout=2) as c:
                return c.execute("SELECT 1").fetchone() == (1,), ""
        except psycopg.Error as exc:
            return False, str(exc).strip().splitlines()[0][:200]


def postgres_can_enter(path: Path, test: str = "-x") -> bool:
    probe = subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c",
                            f"test {test} {shlex.quote(str(path))}"], capture_output=True)
    return probe.returncode == 0


def pg_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    if found:
        return found[-1].parent
    which = shutil.which("initdb")
    if which:
        return Path(which).parent
    raise StackError("PostgreSQL's initdb/pg_ctl not found (/usr/lib/postgresql/*/bin): "
                     "apt-get install postgresql")
