"""Unmodified clients reaching Understudy as appleid.apple.com and the googleapis hosts.

Three ways in, as a real stack would use them: the HTTP port as an HTTPS proxy (CONNECT) plus the
local CA; the HTTPS port with the name resolved to it (curl --resolve, Node's lookup, a network
namespace whose /etc/hosts maps the real names); and, for clients that take a URL, the URL itself.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import requests

from conftest import Server

WEB_CLIENT = "123456789012-understudyweb.apps.googleusercontent.com"


def mint(server, provider, **fields):
    r = requests.post(f"{server.http}/api/tokens/{provider}", json=fields, timeout=10)
    r.raise_for_status()
    return r.json()["idToken"]


def proxy_env(server, **extra):
    """What a Python or Go service needs: the proxy and the CA, nothing else."""
    return {**os.environ, "HTTPS_PROXY": server.http, "https_proxy": server.http, "NO_PROXY": "",
            "no_proxy": "", **extra}


def run_python(code, env):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.strip()


def test_google_auth_verifies_with_its_default_certs_url_through_the_proxy(server):
    token = mint(server, "google", email="proxy@example.com", aud=WEB_CLIENT)
    out = run_python(f"""
        from google.oauth2 import id_token
        from google.auth.transport import requests
        claims = id_token.verify_oauth2_token({token!r}, requests.Request(), {WEB_CLIENT!r})
        print(claims["email"])
    """, proxy_env(server, REQUESTS_CA_BUNDLE=server.ca))
    assert out == "proxy@example.com"


def test_pyjwt_fetches_apples_real_keys_url_through_the_proxy(server):
    token = mint(server, "apple", email="jwks@example.com", aud="com.example.app")
    out = run_python(f"""
        import jwt
        client = jwt.PyJWKClient("https://appleid.apple.com/auth/keys")
        key = client.get_signing_key_from_jwt({token!r})
        claims = jwt.decode({token!r}, key.key, algorithms=["RS256"], audience="com.example.app",
                            issuer="https://appleid.apple.com")
        print(claims["email"])
    """, proxy_env(server, SSL_CERT_FILE=server.ca))
    assert out == "jwks@example.com"


def test_the_proxy_refuses_other_hosts_and_says_why(server):
    with pytest.raises(requests.exceptions.ProxyError) as refused:
        requests.get("https://example.com/", proxies={"https": server.http}, timeout=10)
    assert "403" in str(refused.value)
    # The refusal's body names the reason; read it with a raw CONNECT.
    import socket
    host, port = server.http.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 403")
    problem = json.loads(body)
    assert problem["error"] == "offline_by_design" and "example.com:443" in problem["message"]


def test_curl_resolves_the_real_name_to_the_https_port(server):
    if not shutil.which("curl"):
        pytest.skip("curl is not installed")
    port = server.https.rsplit(":", 1)[1]
    out = subprocess.run(["curl", "-sS", "--fail", "--resolve", f"appleid.apple.com:{port}:127.0.0.1",
                          "--cacert", server.ca, f"https://appleid.apple.com:{port}/auth/keys"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["keys"]) == 3


def test_node_https_get_with_the_ca_in_node_extra_ca_certs(server):
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    port = server.https.rsplit(":", 1)[1]
    script = textwrap.dedent(f"""
        const https = require("https");
        const lookup = (host, options, callback) => options && options.all
            ? callback(null, [{{address: "127.0.0.1", family: 4}}]) : callback(null, "127.0.0.1", 4);
        https.get({{host: "www.googleapis.com", port: {port}, path: "/oauth2/v1/certs", lookup}}, (res) => {{
            let body = "";
            res.on("data", (d) => body += d);
            res.on("end", () => {{ console.log(res.statusCode, Object.keys(JSON.parse(body)).length); }});
        }}).on("error", (e) => {{ console.error(e.message); process.exit(1); }});
    """)
    out = subprocess.run(["node", "-e", script], env={**os.environ, "NODE_EXTRA_CA_CERTS": server.ca},
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["200", "2"]


@pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed (Debian's golang-go)")
def test_go_net_http_discovers_apple_through_the_proxy(server, tmp_path):
    program = tmp_path / "discover.go"
    program.write_text(textwrap.dedent("""
        package main

        import (
            "encoding/json"
            "fmt"
            "net/http"
            "os"
        )

        func get(url string, into any) {
            res, err := http.Get(url)
            if err != nil { fmt.Println(err); os.Exit(1) }
            defer res.Body.Close()
            if res.StatusCode != 200 { fmt.Println(url, res.Status); os.Exit(1) }
            if err := json.NewDecoder(res.Body).Decode(into); err != nil { fmt.Println(err); os.Exit(1) }
        }

        func main() {
            var discovery struct{ Issuer string `json:"issuer"`; JWKS string `json:"jwks_uri"` }
            get("https://appleid.apple.com/.well-known/openid-configuration", &discovery)
            var keys struct{ Keys []map[string]any `json:"keys"` }
            get(discovery.JWKS, &keys)
            fmt.Println(discovery.Issuer, discovery.JWKS, len(keys.Keys))
        }
    """))
    env = proxy_env(server, SSL_CERT_FILE=server.ca, GOCACHE=str(tmp_path / "cache"), GOFLAGS="-mod=mod",
                    GOPROXY="off", GO111MODULE="off")
    out = subprocess.run(["go", "run", str(program)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == ["https://appleid.apple.com", "https://appleid.apple.com/auth/keys", "3"]


def test_python_ssl_verifies_the_leaf_and_the_versions_allowed(server):
    import socket
    import ssl
    host, port = server.https.rsplit(":", 1)
    for version, accepted in [(ssl.TLSVersion.TLSv1_3, True), (ssl.TLSVersion.TLSv1_2, True)]:
        context = ssl.create_default_context(cafile=server.ca)
        context.minimum_version = context.maximum_version = version
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="oauth2.googleapis.com") as tls:
                assert tls.version() == {ssl.TLSVersion.TLSv1_3: "TLSv1.3", ssl.TLSVersion.TLSv1_2: "TLSv1.2"}[version]
                names = [v for k, v in tls.getpeercert()["subjectAltName"] if k == "DNS"]
                assert names == ["oauth2.googleapis.com"]
    # A client that does not trust the CA fails verification.
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        with pytest.raises(ssl.SSLCertVerificationError):
            ssl.create_default_context().wrap_socket(raw, server_hostname="appleid.apple.com")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
@pytest.mark.parametrize("flag,accepted", [("-tls1_3", True), ("-tls1_2", True), ("-tls1_1", False)])
def test_openssl_s_client_handshakes_with_tls_1_3_and_1_2_and_is_refused_1_1(server, flag, accepted):
    out = subprocess.run(["openssl", "s_client", "-connect", server.https, "-servername", "appleid.apple.com",
                          "-CAfile", server.ca, "-verify_return_error", flag],
                         input="", capture_output=True, text=True, timeout=30)
    if accepted:
        assert out.returncode == 0, out.stdout + out.stderr
        assert "Verify return code: 0 (ok)" in out.stdout
    else:
        assert out.returncode != 0
        assert "alert protocol version" in out.stdout + out.stderr


def namespaces_available():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["ip", "netns", "add", "understudy-probe"], capture_output=True)
    if probe.returncode != 0:
        return False
    subprocess.run(["ip", "netns", "delete", "understudy-probe"], capture_output=True)
    return True


@pytest.mark.skipif(not namespaces_available(), reason="network namespaces cannot be made here (needs root and iproute2)")
def test_an_unmodified_client_in_a_namespace_whose_hosts_file_names_understudy(tmp_path):
    """The /etc/hosts approach, without touching this machine's /etc/hosts: a network namespace
    of its own, whose hosts file (`ip netns exec` mounts /etc/netns/<name>/hosts over /etc/hosts)
    maps the real names to its loopback, where Understudy listens on port 443."""
    name = f"understudy-{os.getpid()}"
    etc = f"/etc/netns/{name}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        os.makedirs(etc, exist_ok=True)
        with open(f"{etc}/hosts", "w") as hosts:
            hosts.write("127.0.0.1 localhost appleid.apple.com www.googleapis.com accounts.google.com\n")
        subprocess.run(["ip", "netns", "exec", name, "ip", "link", "set", "lo", "up"], check=True)
        server = Server("--https", "127.0.0.1:443", wrap=["ip", "netns", "exec", name])
        try:
            out = subprocess.run(["ip", "netns", "exec", name, sys.executable, "-c", textwrap.dedent(f"""
                import requests
                keys = requests.get("https://appleid.apple.com/auth/keys", verify={server.ca!r}, timeout=10).json()
                print(len(keys["keys"]))
            """)], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stdout + out.stderr
            assert out.stdout.strip() == "3"
        finally:
            assert server.stop() == 0
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)
        shutil.rmtree(etc, ignore_errors=True)


def test_a_thousand_abandoned_half_handshakes_leave_no_descriptor_behind(server):
    """Clients that send half a ClientHello and go away: afterwards the server still answers
    HTTPS, with the descriptors it had before (counted in /proc for the server process)."""
    import socket
    import ssl
    import time
    pid = server.proc.pid
    host, port = server.https.rsplit(":", 1)

    def descriptors():
        return len(os.listdir(f"/proc/{pid}/fd"))

    def answers():
        context = ssl.create_default_context(cafile=server.ca)
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="appleid.apple.com") as tls:
                tls.sendall(b"GET /auth/keys HTTP/1.1\r\nHost: appleid.apple.com\r\nConnection: close\r\n\r\n")
                return tls.recv(12)

    assert answers() == b"HTTP/1.1 200"
    time.sleep(0.2)  # the server's side of that connection closes
    before = descriptors()
    half_hello = bytes.fromhex("16030100f8010000f40303") + os.urandom(32)  # a ClientHello cut short
    for _ in range(10):
        batch = []
        for _ in range(100):
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(half_hello)
            batch.append(s)
        for s in batch:
            s.close()
    deadline = time.monotonic() + 30
    while descriptors() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert descriptors() <= before
    assert answers() == b"HTTP/1.1 200"


def test_smtplib_starttls_verifies_the_certificate_and_delivers(server):
    import smtplib
    import ssl
    host, port = server.smtp_host_port
    context = ssl.create_default_context(cafile=server.ca)
    with smtplib.SMTP("localhost", port, timeout=10) as smtp:
        smtp.ehlo()
        assert smtp.has_extn("starttls")
        smtp.starttls(context=context)
        smtp.ehlo()
        assert not smtp.has_extn("starttls")  # offered only before TLS
        smtp.sendmail("app@example.com", ["tls@example.com"], "Subject: over TLS\r\n\r\nYour code is 731905\r\n")
    code = requests.get(f"{server.http}/api/otp", params={"to": "tls@example.com", "wait": 10}, timeout=20).json()
    assert code["code"] == "731905"
    # A client that does not trust the CA refuses the certificate.
    with smtplib.SMTP("localhost", port, timeout=10) as smtp:
        with pytest.raises(ssl.SSLCertVerificationError):
            smtp.starttls(context=ssl.create_default_context())


def test_smtp_ssl_on_the_implicit_tls_port_and_require_tls(tmp_path):
    import smtplib
    import ssl
    s = Server("--smtps", "127.0.0.1:0", "--mail-require-tls", "true")
    try:
        context = ssl.create_default_context(cafile=s.ca)
        host, port = s.ready["smtps"].rsplit(":", 1)
        with smtplib.SMTP_SSL("localhost", int(port), context=context, timeout=10) as smtp:
            smtp.sendmail("app@example.com", ["smtps@example.com"], "Subject: implicit\r\n\r\nCode: 550134\r\n")
        answer = requests.get(f"{s.http}/api/otp", params={"to": "smtps@example.com", "wait": 10}, timeout=20).json()
        assert answer["code"] == "550134"
        # On the plain port, mail before STARTTLS is refused with 530.
        plain_host, plain_port = s.smtp_host_port
        with smtplib.SMTP(plain_host, plain_port, timeout=10) as smtp:
            smtp.ehlo()
            code, message = smtp.mail("app@example.com")
            assert code == 530 and b"STARTTLS" in message
    finally:
        assert s.stop() == 0
