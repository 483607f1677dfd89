#!/usr/bin/env python3
"""Understudy's benchmark: each figure next to its reference, measured in the same run.

    swift build -c release --product understudy
    python3 Tests/Bench/bench.py [--only jwks,tls,mint,startup,smtp,otp,store,flows] [--seconds 10]

Needs Debian's nginx-light, wrk and postfix (smtp-source / smtp-sink) and openssl; it installs none.
The flows section compares with `oidc-provider-mock` (PyPI), found on PATH or in .build/interop-venv.
Machines here are noisy: Understudy and its reference take turns, each rate is the median of --runs
runs, and a ratio is the median of the paired runs' ratios (with their range).
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


def report(name, value, unit, reference=None, ref_value=None, target=None, ratios=None):
    """`ratios`, when given, are per-pair ratios of interleaved runs: the reported ratio is their
    median (steadier than a ratio of medians when the machine's speed drifts between runs)."""
    line = {"name": name, "value": value, "unit": unit}
    text = f"{name:<44} {value:>12,.1f} {unit}"
    if ref_value:
        ratio = statistics.median(ratios) if ratios else value / ref_value
        line.update(reference=reference, reference_value=ref_value, ratio=ratio)
        text += f"   vs {reference} {ref_value:,.1f} -> {ratio:.2f}x"
        if ratios:
            line["ratios"] = ratios
            text += f" (median of {len(ratios)} paired runs, {min(ratios):.2f}-{max(ratios):.2f})"
    if target:
        text += f"   (target {target})"
        line["target"] = target
    RESULTS.append(line)
    print(text, flush=True)


class Understudy:
    # One local CA for every server of the run, made by the first.
    data_home = tempfile.mkdtemp(prefix="understudy-bench-")

    def __init__(self, binary, *extra, env=None, quiet=True):
        """`quiet`: no request log, as nginx runs here with `access_log off`."""
        self.http_port = free_port()
        self.smtp_port = free_port()
        self.https_port = free_port()
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([binary, "serve", "--http", f"127.0.0.1:{self.http_port}",
                                      "--smtp", f"127.0.0.1:{self.smtp_port}", "--https", f"127.0.0.1:{self.https_port}",
                                      *(["--quiet"] if quiet else []), *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env={**os.environ, "XDG_DATA_HOME": self.data_home, **(env or {})})
        self.url = f"http://127.0.0.1:{self.http_port}"
        self.https_url = f"https://127.0.0.1:{self.https_port}"
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


def cpu_seconds(pid):
    """User plus system CPU time a process has used so far."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    # nginx's workers run as nobody: they must be able to read the folder and the file.
    os.chmod(workdir, 0o755)
    os.chmod(body_path, 0o644)
    proc = subprocess.Popen(["nginx", "-c", str(conf), "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/keys", timeout=1):
                return proc, f"http://127.0.0.1:{port}/keys"
        except OSError:
            time.sleep(0.02)
    proc.terminate()  # SIGTERM: the master stops its workers too
    proc.wait()
    raise RuntimeError("nginx did not start: " + (workdir / "error.log").read_text()[-500:])


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
                   "nginx (same bytes)", statistics.median(theirs), ">= 0.7x nginx",
                   ratios=[o / t for o, t in zip(ours, theirs)])
        finally:
            nginx.terminate()
            nginx.wait()
    finally:
        server.stop()
    # The cost of the request log: the same load with a line per request (stderr to /dev/null).
    logged = Understudy(binary, "--apple-shuffle-keys", "false", quiet=False)
    quiet = Understudy(binary, "--apple-shuffle-keys", "false")
    try:
        on, off = [], []
        for _ in range(args.runs):
            on.append(wrk(logged.url + "/apple/auth/keys", args.seconds))
            off.append(wrk(quiet.url + "/apple/auth/keys", args.seconds))
        report("JWKS GET with the request log on", statistics.median(on), "req/s", "--quiet",
               statistics.median(off), ratios=[a / b for a, b in zip(on, off)])
    finally:
        logged.stop()
        quiet.stop()


def start_nginx_tls(body_path: pathlib.Path, workdir: pathlib.Path):
    """nginx serving the same bytes over TLS 1.2/1.3 with the same kind of certificate as
    Understudy's (ECDSA P-256), session tickets and cache off as in Understudy."""
    key, cert = workdir / "nginx-tls.key", workdir / "nginx-tls.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    os.chmod(key, 0o644)
    port = free_port()
    conf = workdir / "nginx-tls.conf"
    conf.write_text(f"""
worker_processes 2;
pid {workdir}/nginx-tls.pid;
error_log {workdir}/error-tls.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    default_type application/json;
    server {{
        listen 127.0.0.1:{port} ssl reuseport;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_tickets off;
        ssl_session_cache off;
        location = /keys {{ alias {body_path}; }}
    }}
}}
""")
    os.chmod(workdir, 0o755)
    os.chmod(body_path, 0o644)
    proc = subprocess.Popen(["nginx", "-c", str(conf), "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    import ssl
    unverified = ssl._create_unverified_context()
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/keys", timeout=1, context=unverified):
                return proc, f"https://127.0.0.1:{port}/keys"
        except OSError:
            time.sleep(0.02)
    proc.terminate()
    proc.wait()
    raise RuntimeError("nginx (TLS) did not start: " + (workdir / "error-tls.log").read_text()[-500:])


def bench_tls(binary, args, workdir):
    """JWKS over HTTPS: keep-alive GETs, and one request per new TLS connection (a full handshake
    each: ECDHE plus an ECDSA P-256 signature), each next to nginx serving the same bytes."""
    server = Understudy(binary, "--apple-shuffle-keys", "false")
    try:
        body = urllib.request.urlopen(server.url + "/apple/auth/keys").read()
        path = workdir / "keys-tls.json"
        path.write_bytes(body)
        nginx, nginx_url = start_nginx_tls(path, workdir)
        ours_url = server.https_url + "/apple/auth/keys"
        close = workdir / "close.lua"
        close.write_text('wrk.headers["Connection"] = "close"\n')
        try:
            for label, connections, script, target in (
                    ("HTTPS JWKS GET, keep-alive, 64 connections", 64, None, ">= 0.8x nginx"),
                    ("new TLS connections, one request each", 16, str(close), ">= 0.8x nginx")):
                ours, theirs = [], []
                for _ in range(args.runs):
                    ours.append(wrk(ours_url, args.seconds, connections=connections, script=script))
                    theirs.append(wrk(nginx_url, args.seconds, connections=connections, script=script))
                report(label, statistics.median(ours), "req/s", "nginx TLS (same bytes, P-256)", statistics.median(theirs),
                       target, ratios=[o / t for o, t in zip(ours, theirs)])
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
    ours, theirs = [], []
    try:
        for _ in range(args.runs):  # alternating, so each pair sees the same machine
            ours.append(wrk(server.url + "/api/tokens/apple", args.seconds, connections=16, script=str(script)))
            theirs.append(openssl_sign_rate(args.seconds))
    finally:
        server.stop()
    report("RS256 mint over HTTP (POST /api/tokens/apple)", statistics.median(ours), "tokens/s",
           "openssl speed -multi 2 rsa2048 sign", statistics.median(theirs), ">= 0.75x openssl",
           ratios=[o / t for o, t in zip(ours, theirs)])


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


def smtp_source(port, messages, sessions=8, size=4096, recipient="load@example.com", reuse=True):
    """postfix's smtp-source as the load: `sessions` connections in parallel; with `reuse`, each sends
    message after message (-d), otherwise one connection per message (smtp-source's default, and how
    most auth services send: Django, nodemailer and GoTrue open a connection per email). Returns
    messages per second."""
    t0 = time.monotonic()
    done = subprocess.run(["smtp-source", *(["-d"] if reuse else []), "-s", str(sessions), "-m", str(messages),
                           "-l", str(size), "-f", "sender@example.com", "-t", recipient, f"127.0.0.1:{port}"],
                          timeout=600, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"smtp-source failed: {done.stderr.strip()[-500:]}")
    return messages / (time.monotonic() - t0)


def bench_smtp(binary, args, workdir):
    """Understudy and smtp-sink take turns under the same smtp-source load, so each pair of runs
    sees about the same machine; the ratio reported is the median of the pairs' ratios. Measured
    twice: 8 sessions that each send message after message, and 8 sessions of one message each."""
    messages = args.messages
    sink_port = free_port()
    for reuse, label in ((True, "8 sessions reused (-d)"), (False, "8 at a time, 1 msg/session")):
        ours, theirs = [], []
        our_cpu, their_cpu = [], []  # server CPU per message, us: steadier than rates on a noisy machine
        for run in range(args.runs):
            data = workdir / f"ingest-{int(reuse)}-{run}.sqlite"
            server = Understudy(binary, "--data", str(data), "--mail-max-messages", str(messages * 2))
            try:
                before = cpu_seconds(server.proc.pid)
                t0 = time.monotonic()
                smtp_source(server.smtp_port, messages, reuse=reuse)
                # The 250 comes once a message is in the log; the API answers once everything
                # answered for is indexed too, so the rate counts until then.
                stored = json.load(urllib.request.urlopen(server.url + "/api/messages?limit=1"))["total"]
                ours.append(messages / (time.monotonic() - t0))
                our_cpu.append((cpu_seconds(server.proc.pid) - before) * 1e6 / messages)
                if stored != messages:
                    raise RuntimeError(f"stored {stored} of {messages} messages")
            finally:
                server.stop()
            sink = subprocess.Popen(["smtp-sink", "-u", "nobody", f"127.0.0.1:{sink_port}", "256"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.3)
            try:
                before = cpu_seconds(sink.pid)
                theirs.append(smtp_source(sink_port, messages, reuse=reuse))
                their_cpu.append((cpu_seconds(sink.pid) - before) * 1e6 / messages)
            finally:
                sink.terminate()
                sink.wait()
        report(f"SMTP ingest 4 KiB, {label}", statistics.median(ours), "msg/s",
               "postfix smtp-sink (stores nothing)", statistics.median(theirs),
               ">= 3000/s and >= 0.5x smtp-sink", ratios=[o / t for o, t in zip(ours, theirs)])
        report("  server CPU per message", statistics.median(our_cpu), "us", "smtp-sink", statistics.median(their_cpu),
               ratios=[o / t for o, t in zip(our_cpu, their_cpu)])


def send_raw(port, to, body):
    """One SMTP transaction on a raw socket; returns the monotonic time the final dot was sent."""
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # or Nagle holds the final dot back ~40 ms
        f = c.makefile("rb")
        f.readline()
        c.sendall(f"EHLO bench\r\nMAIL FROM:<b@example.com>\r\nRCPT TO:<{to}>\r\nDATA\r\n".encode())
        while not f.readline().startswith(b"354"):
            pass
        c.sendall(f"Subject: Your code\r\nTo: {to}\r\n\r\n{body}\r\n".encode())
        t = time.monotonic()
        c.sendall(b".\r\n")
        f.readline()
        c.sendall(b"QUIT\r\n")
        return t


def bench_otp(binary, args, workdir):
    import http.client
    import threading
    server = Understudy(binary)
    latencies = []
    try:
        for i in range(args.otp_rounds):
            to = f"otp{i}@example.com"
            result = {}

            def waiter():
                conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
                conn.request("GET", f"/api/otp?to={to}&wait=20")
                response = conn.getresponse()
                response.read()
                result["t"] = time.monotonic()
                result["status"] = response.status

            thread = threading.Thread(target=waiter)
            thread.start()
            time.sleep(0.02)  # let the waiter register
            sent = send_raw(server.smtp_port, to, f"Your verification code is {100000 + i}")
            thread.join(timeout=30)
            if result.get("status") != 200:
                raise RuntimeError(f"waiter got {result}")
            latencies.append((result["t"] - sent) * 1000)
    finally:
        server.stop()
    latencies.sort()
    p50 = latencies[len(latencies) // 2]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    report(f"end of DATA -> waiting /api/otp answers, p50 ({len(latencies)} rounds)", p50, "ms")
    report(f"end of DATA -> waiting /api/otp answers, p99", p99, "ms", target="p99 < 5 ms")


def bench_store(binary, args, workdir):
    import http.client
    count = args.store_messages
    data = workdir / "big.sqlite"
    server = Understudy(binary, "--data", str(data), "--mail-max-messages", str(count * 2))
    try:
        t0 = time.monotonic()
        # 100 recipients, so a listing by recipient selects 1% of the store.
        per = count // 100
        for r in range(100):
            smtp_source(server.smtp_port, per, size=2048, recipient=f"user{r}@example.com")
        stored = json.load(urllib.request.urlopen(server.url + "/api/messages?limit=1"))["total"]  # waits for the index
        ingest = count / (time.monotonic() - t0)
        if stored != count:
            raise RuntimeError(f"stored {stored} of {count} messages")
        report(f"ingest while filling to {count:,} messages", ingest, "msg/s")
        conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)

        def timed(path):
            samples = []
            for i in range(200):
                t = time.monotonic()
                conn.request("GET", path(i))
                response = conn.getresponse()
                body = response.read()
                if response.status != 200:
                    raise RuntimeError(f"{path(i)}: {response.status} {body[:200]}")
                samples.append((time.monotonic() - t) * 1000)
            return statistics.median(samples)

        report(f"list by recipient at {count:,} (p50)", timed(lambda i: f"/api/messages?to=user{i % 100}@example.com&limit=50"),
               "ms", target="p50 < 10 ms")
        # smtp-source bodies are "La De Da" lines: search for a header word only some messages carry.
        report(f"full-text search at {count:,} (p50)", timed(lambda i: f"/api/messages?q=user{i % 100}&limit=50"),
               "ms", target="p50 < 10 ms")
        report(f"RSS with {count:,} stored", server.rss_kib() / 1024, "MB", target="< 150 MB")
    finally:
        server.stop()


def flow_worker(kind, port, seconds, counts):
    """One keep-alive client doing whole code flows (authorize with auto-approve -> token ->
    userinfo) for `seconds`; puts how many it completed."""
    import http.client
    import urllib.parse
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    redirect = "http://127.0.0.1:9/cb"
    done = 0
    end = time.monotonic() + seconds

    def call(method, target, body=None, headers=None):
        conn.request(method, target, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        return r.status, r.getheader("Location"), data

    while time.monotonic() < end:
        params = {"client_id": "bench", "redirect_uri": redirect, "response_type": "code", "scope": "openid email",
                  "state": "s", "nonce": "n"}
        if kind == "understudy":
            params["login_hint"] = "bench@example.com"
            status, location, _ = call("GET", "/google/o/oauth2/v2/auth?" + urllib.parse.urlencode(params))
            token_path, userinfo_path = "/google/token", "/google/v1/userinfo"
        else:
            status, location, _ = call("POST", "/oauth2/authorize?" + urllib.parse.urlencode(params), body="sub=bench",
                                       headers={"Content-Type": "application/x-www-form-urlencoded"})
            token_path, userinfo_path = "/oauth2/token", "/userinfo"
        assert status == 302, (kind, status)
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                       "client_id": "bench", "client_secret": "secret"})
        status, _, body = call("POST", token_path, body=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200, (kind, status, body[:200])
        access = json.loads(body)["access_token"]
        status, _, _ = call("GET", userinfo_path, headers={"Authorization": "Bearer " + access})
        assert status == 200, (kind, status)
        done += 1
    counts.put(done)


def flow_rate(kind, port, pid, seconds, clients=4):
    """Flows per second over `clients` keep-alive connections, and the server's CPU per flow (us)."""
    import multiprocessing
    counts = multiprocessing.Queue()
    cpu0 = cpu_seconds(pid)
    t0 = time.monotonic()
    workers = [multiprocessing.Process(target=flow_worker, args=(kind, port, seconds, counts)) for _ in range(clients)]
    for w in workers:
        w.start()
    total = sum(counts.get(timeout=seconds + 60) for _ in workers)
    for w in workers:
        w.join(timeout=30)
    elapsed = time.monotonic() - t0
    cpu = cpu_seconds(pid) - cpu0
    return total / elapsed, cpu / max(total, 1) * 1e6


def start_oidc_provider_mock():
    exe = shutil.which("oidc-provider-mock") or str(ROOT / ".build" / "interop-venv" / "bin" / "oidc-provider-mock")
    if not os.path.exists(exe):
        return None, None
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/openid-configuration", timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("oidc-provider-mock did not start")


def bench_flows(binary, args, workdir):
    """Whole authorization-code flows per second, next to oidc-provider-mock on the same cores."""
    server = Understudy(binary, "--auto-approve")
    mock, mock_port = start_oidc_provider_mock()
    ours, theirs, our_cpu, their_cpu = [], [], [], []
    try:
        flow_rate("understudy", server.http_port, server.proc.pid, 1)   # warm-up
        for _ in range(args.runs):
            rate, cpu = flow_rate("understudy", server.http_port, server.proc.pid, args.seconds)
            ours.append(rate)
            our_cpu.append(cpu)
            if mock:
                rate, cpu = flow_rate("mock", mock_port, mock.pid, args.seconds)
                theirs.append(rate)
                their_cpu.append(cpu)
    finally:
        server.stop()
        if mock:
            mock.terminate()
            mock.wait()
    if not mock:
        print("oidc-provider-mock not found (pip install oidc-provider-mock): reporting Understudy alone", flush=True)
    report("code flows (authorize -> token -> userinfo)", statistics.median(ours), "flows/s",
           "oidc-provider-mock" if mock else None, statistics.median(theirs) if theirs else None, ">= 10x oidc-provider-mock",
           ratios=[o / t for o, t in zip(ours, theirs)] if theirs else None)
    sign = 2 / openssl_sign_rate(2) * 1e6
    report("server CPU per flow", statistics.median(our_cpu), "us",
           "oidc-provider-mock" if mock else None, statistics.median(their_cpu) if their_cpu else None)
    report("RSA-2048 sign (openssl speed), for scale", sign, "us")


SECTIONS = {"jwks": bench_jwks, "tls": bench_tls, "mint": bench_mint, "startup": bench_startup, "smtp": bench_smtp, "otp": bench_otp,
            "store": bench_store, "flows": bench_flows}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "understudy"))
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--messages", type=int, default=20000, help="messages per SMTP ingest run")
    parser.add_argument("--otp-rounds", type=int, default=300)
    parser.add_argument("--store-messages", type=int, default=100000)
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
