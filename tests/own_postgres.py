"""A PostgreSQL server of a test's own: initdb in a temporary folder, on a free loopback
port, that the test may stop, start and restart as an operator would (``pg_ctl``), or
pause and resume (SIGSTOP, SIGCONT) as a stalled host would; also the run's, when none
answers on ``BELOTE_TEST_POSTGRES`` (tests/tiers.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.services import free_port

# Seconds pg_ctl may take to start or stop the server; a hang fails the test.
PG_CTL_WAIT = 30


def _bindir() -> Path:
    """Where the server's programs are: pg_config says, also when they are not on PATH."""
    found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                           check=True, timeout=10)
    return Path(found.stdout.strip())


class OwnPostgres:
    """One cluster in ``folder``; as root its programs run as the ``postgres`` user, since
    PostgreSQL refuses to run as root."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._bin = _bindir()

    def _run(self, program: str, *args: str) -> None:
        command = [str(self._bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=PG_CTL_WAIT + 10)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 "
                   f"-c unix_socket_directories={self.folder} -c fsync=off")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"),
                  "-o", options, "-w", "-t", str(PG_CTL_WAIT), "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", str(PG_CTL_WAIT),
                  "stop")

    def processes(self) -> list[int]:
        """The server's processes: the postmaster (its pid file names it) and its children,
        one per connection and its helpers."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
        return [postmaster, *map(int, children)]

    def pause(self) -> None:
        """Stop every process of the server (the postmaster first, so that it forks no
        more): connections stay open and nothing answers, as on a stalled host."""
        for pid in self.processes():
            os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        for pid in self.processes():
            os.kill(pid, signal.SIGCONT)


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """A started server, stopped (immediately) and removed on exit.  Its folder is made
    here, not under pytest's (which the ``postgres`` user may not enter)."""
    folder = Path(tempfile.mkdtemp(prefix="belote-pg-"))
    server = OwnPostgres(folder)
    server.init()
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(OSError):  # a paused server would not stop
            server.resume()
        with contextlib.suppress(subprocess.CalledProcessError):  # stopped by the test
            server.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)
