"""Every shell example in README.md, run as written against a running server, with `understudy`
installed on PATH by the README's install step (Tests/Scripts/install.sh).

The examples name the default ports (7080, 7025, 7443); the test's server listens on port 0, so those
are rewritten to its ports, UNDERSTUDY_HTTP/UNDERSTUDY_SMTP tell the commands where it is, and
XDG_DATA_HOME points them at the server's local CA. Lines that
run `swift` (build, run the server, run the tests) are what CI itself does and are skipped here; the
install line runs with `-c debug` so it reuses the build under test instead of a release build.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, Server

README = ROOT / "README.md"


def readme_commands():
    """The commands of the README's ```sh blocks, backslash continuations joined, comments kept."""
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", README.read_text(), re.S | re.M):
        pending = ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            command = (pending + line).strip()
            pending = ""
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


def test_the_readme_has_examples():
    commands = readme_commands()
    assert any(c.startswith("understudy mint ") for c in commands)
    assert any(c.startswith("understudy otp ") for c in commands)
    assert any(c.startswith("Tests/Scripts/install.sh") for c in commands)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The README's install step, into a fresh directory that is then put on PATH."""
    if shutil.which("swift") is None:
        pytest.skip("swift is not on PATH: the install step builds with it")
    bin_dir = tmp_path_factory.mktemp("bin")
    out = subprocess.run([str(ROOT / "Tests/Scripts/install.sh"), "-c", "debug", str(bin_dir)],
                         capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (bin_dir / "understudy").exists()
    assert f"installed {bin_dir}/understudy (understudy " in out.stdout
    assert "is not on PATH" in out.stderr  # a temporary directory is not, and the script says so
    return bin_dir


def test_install_refuses_an_unknown_configuration(tmp_path):
    out = subprocess.run([str(ROOT / "Tests/Scripts/install.sh"), "-c", "fast", str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 64 and "release or debug" in out.stderr
    assert not (tmp_path / "understudy").exists()


def test_every_readme_example_runs_as_written(installed):
    server = Server()
    try:
        http, smtp = server.ready["http"], server.ready["smtp"]
        https_port = server.ready["https"].rsplit(":", 1)[1]
        # The commands find the server's local CA where it made it (its data directory).
        env = {**os.environ, "PATH": f"{installed}:{os.environ['PATH']}",
               "UNDERSTUDY_HTTP": http, "UNDERSTUDY_SMTP": smtp, "XDG_DATA_HOME": server.data_home}
        ran = 0
        for command in readme_commands():
            if command.startswith("swift "):
                continue
            if command.startswith("Tests/Scripts/install.sh"):
                continue  # done by the fixture
            runnable = (command.replace("localhost:7080", http).replace("127.0.0.1:7080", http)
                        .replace("127.0.0.1:7025", smtp).replace(":7443", ":" + https_port))
            out = subprocess.run(["bash", "-c", "set -o pipefail; " + runnable], env=env, cwd=ROOT,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, f"{command}\nexit {out.returncode}\n{out.stdout}{out.stderr}"
            assert out.stdout.strip(), f"{command} printed nothing\n{out.stderr}"
            if command.startswith("curl "):
                answer = json.loads(out.stdout)
                assert "error" not in answer, f"{command}: {answer}"
            # "# prints 123456" in the README is checked, not just believed.
            said = re.search(r"# prints (\d+)\s*$", command)
            if said:
                assert out.stdout.strip() == said.group(1), f"{command}: {out.stdout}"
            ran += 1
        assert ran >= 10
    finally:
        assert server.stop() == 0
