"""The binary's process-level contract: the ready file, diagnostics on stderr in one format,
distinct exit statuses, and `send` standing in for sendmail."""
import json
import re
import subprocess

import requests

from conftest import Server, binary

LINE = re.compile(r"^understudy: (info|warning|error): \S")
# The request log's lines (logfmt), beside the diagnostics on stderr.
REQUEST = re.compile(r"^time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z kind=(http|https|smtp|log) ")


def test_ready_file_and_every_diagnostic_on_stderr():
    server = Server()
    ready_file = server.ready_file
    assert set(server.ready) == {"http", "smtp", "https", "ca", "pid"}
    assert server.ready["pid"] == server.proc.pid
    assert re.fullmatch(r"127\.0\.0\.1:\d+", server.ready["http"]) and not server.ready["http"].endswith(":0")
    assert requests.get(f"{server.http}/healthz", timeout=10).json() == {"status": "ok"}
    assert server.stop() == 0
    assert server.stdout == ""
    lines = server.stderr.splitlines()
    assert all(LINE.match(line) or REQUEST.match(line) for line in lines), server.stderr
    assert any(REQUEST.match(line) and "path=/healthz status=200" in line for line in lines), server.stderr
    assert any(f"http listening on {server.http}" in line for line in lines)
    assert any(re.search(r": ready in \d+ ms \(understudy \d", line) for line in lines)
    assert any("SIGTERM, shutting down" in line for line in lines)
    assert not ready_file.exists()


def test_exit_statuses():
    run = lambda *args: subprocess.run([binary(), *args], capture_output=True, text=True, timeout=60,
                                       stdin=subprocess.DEVNULL)
    gone = run("otp", "--to", "a@example.com", "--server", "http://127.0.0.1:1")
    assert gone.returncode == 69 and LINE.match(gone.stderr) and gone.stdout == ""
    usage = run("mint", "apple", "--kid", "nope")
    assert usage.returncode == 64 and "kid nope" in usage.stderr
    assert run("--public-u-r-l", "x").returncode == 64


def test_send_reads_a_message_from_stdin_like_sendmail(server):
    message = "From: app@example.com\nTo: piped@example.com\nSubject: Piped\n\nYour code is 424242\n"
    out = subprocess.run([binary(), "send", "-t", "-oi", "-f", "bounce@example.com", "--smtp", server.smtp],
                         input=message, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    r = requests.get(f"{server.http}/api/otp", params={"to": "piped@example.com"}, timeout=10)
    assert r.json()["code"] == "424242"
    assert r.json()["messageId"] == out.stdout.strip()


def test_provider_errors_have_error_description(server):
    r = requests.get(f"{server.http}/google/oauth2/v9/certs", timeout=10)
    assert r.status_code == 404 and set(r.json()) == {"error", "error_description"}
    r = requests.get(f"{server.http}/google/tokeninfo", params={"id_token": "x"}, timeout=10)
    assert r.json() == {"error": "invalid_token", "error_description": "Invalid Value"}
