"""The audit against two small verifiers written here: a correct one, and one that skips the expiry
and audience checks. The audit must pass the first and name exactly those failures in the second."""
import hashlib
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET

import jwt
import pytest

AUD = {"apple": "com.example.app", "google": "123456789012-understudyweb.apps.googleusercontent.com"}
ISS = {"apple": ["https://appleid.apple.com"], "google": ["https://accounts.google.com", "accounts.google.com"]}
KEYS = {"apple": "/apple/auth/keys", "google": "/google/oauth2/v3/certs"}

VERIFIER = r'''
import hashlib, sys, jwt
def verify(jwks_url, provider, token, raw_nonce, lax):
    aud = {"apple": "com.example.app", "google": "123456789012-understudyweb.apps.googleusercontent.com"}[provider]
    iss = {"apple": ["https://appleid.apple.com"], "google": ["https://accounts.google.com", "accounts.google.com"]}[provider]
    key = jwt.PyJWKClient(jwks_url, cache_jwk_set=False).get_signing_key_from_jwt(token)
    options = {"require": ["exp", "iat", "iss", "sub"]}
    if lax:
        options.update(verify_exp=False, verify_aud=False)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=None if lax else aud, issuer=iss, leeway=0, options=options)
    if claims.get("nonce") != hashlib.sha256(raw_nonce.encode()).hexdigest():
        raise ValueError("nonce")
    return claims
if __name__ == "__main__":
    try:
        verify(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], False)
    except Exception:
        sys.exit(1)
'''


@pytest.fixture(scope="module")
def verifier_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("verifier") / "verifier.py"
    path.write_text(VERIFIER)
    namespace = {}
    exec(compile(VERIFIER, str(path), "exec"), namespace)
    return str(path), namespace["verify"]


@pytest.fixture
def verifiers(server, verifier_module):
    """Two verifiers on one loopback port: /correct and /lax, taking {"idToken", "nonce", "provider"}."""
    _, verify = verifier_module

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            provider = body["provider"]
            try:
                verify(server.http + KEYS[provider], provider, body["idToken"], body["nonce"], self.path == "/lax")
                status = 200
            except Exception:
                status = 401
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def audit(binary, server, provider, url, *extra):
    body = '{"idToken": "{{token}}", "nonce": "{{rawNonce}}", "provider": "%s"}' % provider
    return subprocess.run([binary, "audit", "--provider", provider, "--url", url, "--body", body,
                           "--header", "Content-Type: application/json", "--server", server.http, *extra],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_the_correct_verifier_passes(server, verifiers, understudy_bin, provider):
    r = audit(understudy_bin, server, provider, verifiers + "/correct", "--json")
    report = json.loads(r.stdout)
    failed = [row["scenario"] for row in report["results"] if row["result"] == "FAIL"]
    assert r.returncode == 0 and failed == [], r.stdout
    assert {row["scenario"] for row in report["results"] if row["result"] == "pass"} >= {"valid", "expired", "alg-none"}


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_the_lax_verifier_fails_exactly_on_expiry_and_audience(server, verifiers, understudy_bin, provider):
    with tempfile.TemporaryDirectory() as folder:
        junit = os.path.join(folder, "audit.xml")
        r = audit(understudy_bin, server, provider, verifiers + "/lax", "--junit", junit)
        assert r.returncode == 1, r.stdout + r.stderr
        failed = {line.split()[0] for line in r.stdout.splitlines() if line.rstrip().endswith("FAIL")}
        assert failed == {"expired", "expired-by-one-second", "wrong-audience"}, r.stdout
        suite = ET.parse(junit).getroot()
        assert {case.get("name") for case in suite if case.find("failure") is not None} == failed
        assert suite.get("failures") == "3"


def test_audit_through_a_command(server, verifier_module, understudy_bin):
    path, _ = verifier_module
    command = f"{sys.executable} {path} {server.http}{KEYS['apple']} apple {{{{token}}}} {{{{rawNonce}}}}"
    r = subprocess.run([understudy_bin, "audit", "--provider", "apple", "--command", command, "--server", server.http,
                        "--only", "valid", "--only", "expired", "--only", "hs256-key-confusion"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 of 3 passed" in r.stdout
    usage = subprocess.run([understudy_bin, "audit", "--provider", "apple", "--url", "http://127.0.0.1:1/{{tok}}"],
                           capture_output=True, text=True, timeout=60)
    assert usage.returncode == 64 and "{{tok}} is not a placeholder" in usage.stderr


def test_a_profile_judges_the_depends_rows(server, verifiers, understudy_bin):
    plain = audit(understudy_bin, server, "apple", verifiers + "/correct", "--only", "clock-skew-30s", "--json")
    assert json.loads(plain.stdout)["results"][0]["result"] == "info" and plain.returncode == 0
    judged = audit(understudy_bin, server, "apple", verifiers + "/correct", "--only", "clock-skew-30s", "--only", "account-apple-issuer",
                   "--profile", "supabase", "--json")
    rows = {row["scenario"]: row for row in json.loads(judged.stdout)["results"]}
    # Supabase accepts both; this verifier (PyJWT, strict) rejects both: the audit says so.
    assert rows["clock-skew-30s"]["expected"] == "accept" and rows["clock-skew-30s"]["result"] == "FAIL"
    assert rows["account-apple-issuer"]["result"] == "FAIL" and judged.returncode == 1
