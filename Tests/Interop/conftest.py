"""Starts the built `understudy` binary on free loopback ports for the interop suite.

The binary is taken from $UNDERSTUDY_BIN, else .build/debug/understudy. Each test session gets one
server with a temporary store; it is stopped with SIGTERM at the end (and must exit cleanly).
"""
import os
import pathlib
import threading
import signal
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary() -> str:
    path = os.environ.get("UNDERSTUDY_BIN") or str(ROOT / ".build" / "debug" / "understudy")
    if not os.path.exists(path):
        pytest.exit(f"{path} not found: run `swift build` first or set UNDERSTUDY_BIN", returncode=2)
    return path


class Server:
    def __init__(self, *extra: str):
        self.proc = subprocess.Popen(
            [binary(), "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/",
        )
        self.http = None
        self.smtp = None
        # Blocking reads, with a watchdog that kills a server that never gets ready.
        watchdog = threading.Timer(30, self.proc.kill)
        watchdog.start()
        lines = []
        try:
            for line in self.proc.stdout:
                lines.append(line)
                if " http listening on " in line:
                    self.http = line.rsplit(" ", 1)[1].strip()
                elif " smtp listening on " in line:
                    self.smtp = line.rsplit(" ", 1)[1].strip()
                elif " ready in " in line:
                    break
        finally:
            watchdog.cancel()
        if not (self.http and self.smtp):
            self.proc.kill()
            raise RuntimeError("server did not start:\n" + "".join(lines) + self.proc.stderr.read())

    @property
    def smtp_host_port(self):
        host, port = self.smtp.rsplit(":", 1)
        return host.strip("[]"), int(port)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    assert s.stop() == 0, "understudy did not exit cleanly on SIGTERM"


@pytest.fixture(scope="session")
def understudy_bin():
    return binary()
