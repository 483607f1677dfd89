"""Apple server-to-server notifications reach an app on loopback, signed so PyJWT verifies them
against Understudy's Apple JWKS, from the API and from the CLI."""
import http.server
import json
import subprocess
import threading

import jwt
import pytest
import requests


@pytest.fixture
def app():
    """A tiny app endpoint that records what it is sent and answers 200 (or 400 for /refuse)."""
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], json.loads(body)))
            status = 400 if self.path == "/refuse" else 200
            answer = b'{"ok": false}' if status == 400 else b'{"ok": true}'
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()


def verify(server, payload):
    key = jwt.PyJWKClient(f"{server.http}/apple/auth/keys").get_signing_key_from_jwt(payload)
    claims = jwt.decode(payload, key.key, algorithms=["RS256"], audience="com.example.app", issuer="https://appleid.apple.com")
    return claims, json.loads(claims["events"])


def test_api_delivers_a_signed_notification_and_reports_the_answer(server, app):
    url, received = app
    r = requests.post(f"{server.http}/api/apple/notifications",
                      json={"type": "email-disabled", "email": "alice@example.com", "url": url + "/apple/notify"}, timeout=30)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["status"] == 200 and report["body"] == '{"ok": true}'
    path, content_type, body = received[0]
    assert path == "/apple/notify" and content_type == "application/json" and set(body) == {"payload"}
    claims, events = verify(server, body["payload"])
    assert {"iss", "aud", "iat", "jti", "events"} <= set(claims)
    assert events["type"] == "email-disabled" and events["email"] == "alice@example.com"
    assert events["is_private_email"] == "false" and isinstance(events["event_time"], int)
    bad = requests.post(f"{server.http}/api/apple/notifications", json={"type": "nope", "url": url}, timeout=10)
    assert bad.status_code == 400 and bad.json()["message"].startswith("type")
    gone = requests.post(f"{server.http}/api/apple/notifications",
                         json={"type": "account-delete", "sub": "s", "url": "http://127.0.0.1:1/"}, timeout=30)
    assert gone.status_code == 502


def test_cli_sends_consent_revoked_and_exits_1_when_the_app_refuses(server, app, understudy_bin):
    url, received = app
    ok = subprocess.run([understudy_bin, "notify", "apple", "--type", "consent-revoked", "--email", "bob@example.com",
                         "--url", url + "/n"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.startswith("200"), ok.stderr
    claims, events = verify(server, received[0][2]["payload"])
    assert events["type"] == "consent-revoked" and "email" not in events and events["sub"]
    refused = subprocess.run([understudy_bin, "notify", "apple", "--type", "account-delete", "--sub", "000001.x.0001",
                              "--url", url + "/refuse", "--server", server.http], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and refused.stdout.startswith("400")
    usage = subprocess.run([understudy_bin, "notify", "apple", "--type", "account-delete", "--url", url],
                           capture_output=True, text=True, timeout=60)
    assert usage.returncode == 64 and "--email or sub is required" in usage.stderr


def test_an_app_claiming_a_huge_body_is_an_error_not_a_hang(understudy_bin):
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def answer():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\nx")
        conn.close()

    threading.Thread(target=answer, daemon=True).start()
    port = listener.getsockname()[1]
    r = subprocess.run([understudy_bin, "notify", "apple", "--type", "account-delete", "--sub", "s",
                        "--url", f"http://127.0.0.1:{port}/n"], capture_output=True, text=True, timeout=60)
    listener.close()
    assert r.returncode != 0 and "over 64 MiB" in r.stderr, r.stderr
