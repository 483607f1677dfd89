"""Starts the built `understudy` binary on free loopback ports for the interop suite.

The binary is taken from $UNDERSTUDY_BIN, else .build/debug/understudy. Each test session gets one
server with a temporary store; it is stopped with SIGTERM at the end (and must exit cleanly).
"""
import json
import os
import pathlib
import signal
import subprocess
import tempfile
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary() -> str:
    path = os.environ.get("UNDERSTUDY_BIN") or str(ROOT / ".build" / "debug" / "understudy")
    if not os.path.exists(path):
        pytest.exit(f"{path} not found: run `swift build` first or set UNDERSTUDY_BIN", returncode=2)
    return path


class Server:
    """`understudy serve` on port 0; the bound addresses come from its --ready-file."""

    def __init__(self, *extra: str, env=None, wrap=()):
        """`wrap` runs the server under another command (`ip netns exec NAME`)."""
        self.ready_dir = tempfile.TemporaryDirectory()
        self.ready_file = pathlib.Path(self.ready_dir.name) / "ready.json"
        # The local CA goes to the user's data directory: a temporary one here.
        data_home = self.data_home = os.path.join(self.ready_dir.name, "data")
        self.proc = subprocess.Popen(
            [*wrap, binary(), "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0",
             *([] if "--https" in extra else ["--https", "127.0.0.1:0"]),
             "--ready-file", str(self.ready_file), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/",
            env={**os.environ, "XDG_DATA_HOME": data_home, **(env or {})},
        )
        # Drained as it comes: the request log writes a line per request, and a full pipe would
        # hold up the server's writes to stderr.
        self._out, self._err = [], []
        self._readers = [threading.Thread(target=lambda f=f, into=into: into.extend(iter(f.readline, "")), daemon=True)
                         for f, into in ((self.proc.stdout, self._out), (self.proc.stderr, self._err))]
        for reader in self._readers:
            reader.start()
        # The file appears once every listener is bound (written atomically); give up after 30 s.
        deadline = time.monotonic() + 30
        while not self.ready_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                self.proc.wait()
                for reader in self._readers:
                    reader.join(timeout=5)
                raise RuntimeError("server did not start:\n" + "".join(self._out) + "".join(self._err))
            time.sleep(0.02)
        self.ready = json.loads(self.ready_file.read_text())
        self.http = "http://" + self.ready["http"]
        self.smtp = self.ready["smtp"]
        self.https = self.ready.get("https")
        self.ca = self.ready.get("ca")

    @property
    def smtp_host_port(self):
        host, port = self.smtp.rsplit(":", 1)
        return host.strip("[]"), int(port)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
            for reader in self._readers:
                reader.join(timeout=5)
            self.stdout, self.stderr = "".join(self._out), "".join(self._err)
            return self.proc.returncode
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        finally:
            self.ready_dir.cleanup()


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    assert s.stop() == 0, "understudy did not exit cleanly on SIGTERM"


@pytest.fixture(scope="session")
def understudy_bin():
    return binary()
