#!/usr/bin/env python3
"""Understudy's benchmark: each figure next to its reference, measured in the same run.

    swift build -c release --product understudy
    python3 Tests/Bench/bench.py [--only jwks,mint,startup,smtp,otp,store] [--seconds 10]

Needs Debian's nginx-light, wrk and postfix (smtp-source / smtp-sink) and openssl; it installs none.
Machines here are noisy: each rate is the median of --runs runs, and the report gives ratios.
Everything binds loopback and every load is bounded in time.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def report(name, value, unit, reference=None, ref_value=None, target=None):
    line = {"name": name, "value": value, "unit": unit}
    text = f"{name:<44} {value:>12,.1f} {unit}"
    if ref_value:
        ratio = value / ref_value
        line.update(reference=reference, reference_value=ref_value, ratio=ratio)
        text += f"   vs {reference} {ref_value:,.1f} -> {ratio:.2f}x"
    if target:
        text += f"   (target {target})"
        line["target"] = target
    RESULTS.append(line)
    print(text, flush=True)


class Understudy:
    def __init__(self, binary, *extra, env=None):
        self.http_port = free_port()
        self.smtp_port = free_port()
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([binary, "serve", "--http", f"127.0.0.1:{self.http_port}",
                                      "--smtp", f"127.0.0.1:{self.smtp_port}", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env={**os.environ, **(env or {})})
        self.url = f"http://127.0.0.1:{self.http_port}"
        self.ready_seconds = wait_healthy(self.url, self.t0)

    def rss_kib(self) -> int:
        status = pathlib.Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wait_healthy(url, t0, timeout=20.0):
    while time.monotonic() - t0 < timeout:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                if r.status == 200:
                    return time.monotonic() - t0
        except OSError:
            time.sleep(0.001)
    raise RuntimeError(f"{url} did not become healthy")


def wrk(url, seconds, connections=64, threads=2, script=None):
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script:
        cmd += ["-s", script]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=seconds + 30).stdout
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"wrk saw errors against {url}:\n{out}")
    return float(m.group(1))


def start_nginx(body_path: pathlib.Path, workdir: pathlib.Path):
    port = free_port()
    conf = workdir / "nginx.conf"
    conf.write_text(f"""
worker_processes 2;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    default_type application/json;
    server {{
        listen 127.0.0.1:{port} reuseport;
        location = /keys {{ alias {body_path}; }}
    }}
}}
""")
    proc = subprocess.Popen(["nginx", "-c", str(conf), "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/keys", timeout=1):
                return proc, f"http://127.0.0.1:{port}/keys"
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise RuntimeError("nginx did not start")


def bench_jwks(binary, args, workdir):
    server = Understudy(binary, "--apple-shuffle-keys", "false")
    try:
        url = server.url + "/apple/auth/keys"
        body = urllib.request.urlopen(url).read()
        path = workdir / "keys.json"
        path.write_bytes(body)
        nginx, nginx_url = start_nginx(path, workdir)
        try:
            ours, theirs = [], []
            for _ in range(args.runs):
                ours.append(wrk(url, args.seconds))
                theirs.append(wrk(nginx_url, args.seconds))
            report("JWKS GET, keep-alive, 64 connections", statistics.median(ours), "req/s",
                   "nginx (same bytes)", statistics.median(theirs), ">= 0.7x nginx")
        finally:
            nginx.terminate()
            nginx.wait()
    finally:
        server.stop()


def openssl_sign_rate(seconds):
    out = subprocess.run(["openssl", "speed", "-multi", "2", "-seconds", str(seconds), "rsa2048"],
                         capture_output=True, text=True, timeout=seconds * 4 + 60).stdout
    # "+F2:2:2048:0.000689:0.000021" -> sign time per op (s) summed over processes, or the table row.
    for line in out.splitlines():
        m = re.match(r"rsa 2048 bits\s+([\d.]+)s\s+([\d.]+)s\s+([\d.]+)\s+([\d.]+)", line.strip())
        if m:
            return float(m.group(3))
    raise RuntimeError("could not read openssl speed output:\n" + out)


def bench_mint(binary, args, workdir):
    server = Understudy(binary)
    script = workdir / "mint.lua"
    script.write_text('wrk.method = "POST"\n'
                      'wrk.headers["Content-Type"] = "application/json"\n'
                      'wrk.body = \'{"aud": "com.example.app", "email": "alice@example.com", "nonce": "n"}\'\n')
    try:
        ours = [wrk(server.url + "/api/tokens/apple", args.seconds, connections=16, script=str(script)) for _ in range(args.runs)]
    finally:
        server.stop()
    theirs = [openssl_sign_rate(args.seconds) for _ in range(args.runs)]
    report("RS256 mint over HTTP (POST /api/tokens/apple)", statistics.median(ours), "tokens/s",
           "openssl speed -multi 2 rsa2048 sign", statistics.median(theirs), ">= 0.75x openssl")


def bench_startup(binary, args, workdir):
    times, rss = [], []
    for _ in range(max(5, args.runs * 3)):
        server = Understudy(binary)
        times.append(server.ready_seconds * 1000)
        time.sleep(0.3)
        rss.append(server.rss_kib() / 1024)
        server.stop()
    report("start to ready (spawn -> /healthz 200)", statistics.median(times), "ms", target="< 100 ms")
    report("idle RSS", statistics.median(rss), "MB", target="< 20 MB")


SECTIONS = {"jwks": bench_jwks, "mint": bench_mint, "startup": bench_startup}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "understudy"))
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: run `swift build -c release --product understudy` first")
    for tool in ["wrk", "nginx", "openssl"]:
        if not shutil.which(tool):
            sys.exit(f"{tool} not found: apt-get install wrk nginx-light postfix openssl")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only.split(","):
            SECTIONS[name](args.binary, args, pathlib.Path(tmp))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(RESULTS, indent=2))


if __name__ == "__main__":
    main()
