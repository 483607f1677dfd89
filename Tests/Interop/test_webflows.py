"""Real OAuth clients drive the web sign-in flows: authlib through Google's code flow with PKCE and
nonce from the discovery document, and an Apple form_post flow parsed as a browser would, its code
exchanged with an ES256 client secret made by PyJWT."""
import base64
import hashlib
import html.parser
import json
import os
import pathlib
import shutil
import time
import urllib.parse
import warnings

import jwt
import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
with warnings.catch_warnings():
    # authlib.jose is on its way to joserfc; its OIDC claim checks (CodeIDToken) still use it.
    warnings.simplefilter("ignore")
    from authlib.jose import JsonWebKey
    from authlib.jose import jwt as authlib_jwt
    from authlib.oidc.core import CodeIDToken
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import Server

# The path-routed endpoints are plain HTTP on loopback.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture(scope="module")
def approving():
    """A server that completes authorize at once for the login_hint (the CI path)."""
    s = Server("--auto-approve")
    yield s
    assert s.stop() == 0


class Forms(html.parser.HTMLParser):
    """Every form of a page with the fields a browser would submit (hidden, text, checked radios)."""

    def __init__(self, text):
        super().__init__()
        self.forms = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "method": a.get("method", "get"), "fields": {}})
        elif tag == "input" and self.forms:
            kind = a.get("type", "text")
            if kind == "hidden" or (kind == "radio" and "checked" in a):
                self.forms[-1]["fields"][a["name"]] = a.get("value", "")


def half_hash(value):
    digest = hashlib.sha256(value.encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_authlib_google_code_flow_with_pkce_nonce_refresh_and_revoke(approving):
    discovery = requests.get(f"{approving.http}/google/.well-known/openid-configuration", timeout=10).json()
    client_id = "web-client.apps.googleusercontent.com"
    session = OAuth2Session(client_id, "any-secret", scope="openid email profile", redirect_uri=REDIRECT,
                            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    verifier = generate_token(64)
    nonce = generate_token(20)
    url, state = session.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier, nonce=nonce,
                                                  login_hint="grace@example.com", access_type="offline",
                                                  include_granted_scopes="true")
    r = requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 302, r.text
    token = session.fetch_token(discovery["token_endpoint"], authorization_response=r.headers["Location"],
                                code_verifier=verifier)
    assert token["token_type"] == "Bearer" and "refresh_token" in token

    jwks = JsonWebKey.import_key_set(requests.get(discovery["jwks_uri"], timeout=10).json())
    claims = authlib_jwt.decode(token["id_token"], jwks, claims_cls=CodeIDToken,
                                claims_options={"iss": {"values": [discovery["issuer"]]}},
                                claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]})
    claims.validate()   # signature above; iss, aud, exp, iat, nonce and at_hash here
    assert claims["email"] == "grace@example.com" and claims["azp"] == client_id

    info = session.get(discovery["userinfo_endpoint"], timeout=10)
    assert info.status_code == 200 and info.json()["sub"] == claims["sub"]

    refreshed = session.refresh_token(discovery["token_endpoint"], refresh_token=token["refresh_token"])
    assert refreshed["access_token"] != token["access_token"]
    assert session.get(discovery["userinfo_endpoint"], timeout=10).status_code == 200

    revoked = session.revoke_token(discovery["revocation_endpoint"], token=refreshed["refresh_token"]
                                   if "refresh_token" in refreshed else token["refresh_token"])
    assert revoked.status_code == 200
    after = session.get(discovery["userinfo_endpoint"], timeout=10)
    assert after.status_code == 401 and after.headers["WWW-Authenticate"].startswith("Bearer")


def test_authlib_google_flow_on_the_real_hostnames_through_the_proxy(approving):
    """The same flow as a Python service runs it against the real names: discovery at
    https://accounts.google.com, every request through HTTPS_PROXY, the local CA trusted."""
    proxies = {"https": approving.http}
    discovery = requests.get("https://accounts.google.com/.well-known/openid-configuration", proxies=proxies,
                             verify=approving.ca, timeout=10).json()
    assert discovery["token_endpoint"] == "https://oauth2.googleapis.com/token"
    assert discovery["userinfo_endpoint"] == "https://openidconnect.googleapis.com/v1/userinfo"
    client_id = "proxy-client.apps.googleusercontent.com"
    session = OAuth2Session(client_id, "s", scope="openid email", redirect_uri="https://app.example.com/cb",
                            code_challenge_method="S256")
    session.proxies.update(proxies)
    verifier = generate_token(64)
    url, _ = session.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier,
                                              login_hint="judy@example.com", nonce="n-proxy")
    r = requests.get(url, allow_redirects=False, proxies=proxies, verify=approving.ca, timeout=10)
    assert r.status_code == 302 and r.headers["Location"].startswith("https://app.example.com/cb?")
    token = session.fetch_token(discovery["token_endpoint"], authorization_response=r.headers["Location"],
                                code_verifier=verifier, verify=approving.ca, proxies=proxies)
    jwks = JsonWebKey.import_key_set(requests.get(discovery["jwks_uri"], proxies=proxies, verify=approving.ca, timeout=10).json())
    claims = authlib_jwt.decode(token["id_token"], jwks, claims_cls=CodeIDToken,
                                claims_options={"iss": {"values": ["https://accounts.google.com"]}},
                                claims_params={"nonce": "n-proxy", "client_id": client_id, "access_token": token["access_token"]})
    claims.validate()
    # authlib passes its own verify per request, so the CA goes with each call.
    info = session.get(discovery["userinfo_endpoint"], timeout=10, verify=approving.ca, proxies=proxies)
    assert info.json()["email"] == "judy@example.com"


def test_google_prompt_none_without_a_session_is_login_required(approving):
    r = requests.get(f"{approving.http}/google/o/oauth2/v2/auth", allow_redirects=False, timeout=10, params={
        "client_id": "c", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid", "state": "s", "prompt": "none"})
    assert r.status_code == 302
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(r.headers["Location"]).query)
    assert query["error"] == ["login_required"] and query["state"] == ["s"]


def apple_secret(key, client_id, team="TEAM123456", kid="KEY1234567"):
    now = int(time.time())
    return jwt.encode({"iss": team, "iat": now, "exp": now + 3600, "aud": "https://appleid.apple.com", "sub": client_id},
                      key, algorithm="ES256", headers={"kid": kid})


def apple_sign_in(server, browser, client_id, redirect, email, state, nonce):
    """Authorize, then Continue on the sign-in page as `email`; returns the form_post form."""
    discovery = requests.get(f"{server.http}/apple/.well-known/openid-configuration", timeout=10).json()
    assert "code id_token" in discovery["response_types_supported"]
    page = browser.get(discovery["authorization_endpoint"], timeout=10, params={
        "client_id": client_id, "redirect_uri": redirect, "response_type": "code id_token",
        "response_mode": "form_post", "scope": "name email", "state": state, "nonce": nonce})
    assert page.status_code == 200 and "default-src 'none'" in page.headers["Content-Security-Policy"]
    form = Forms(page.text).forms[0]
    fields = dict(form["fields"], understudy_action="continue", understudy_email=email,
                  understudy_given_name="Heidi", understudy_family_name="Klein")
    action = urllib.parse.urljoin(page.url, form["action"])
    done = browser.post(action, data=fields, timeout=10, allow_redirects=False)
    assert done.status_code == 200, done.text
    posted = Forms(done.text).forms[0]
    assert posted["method"] == "post" and posted["action"] == redirect
    return discovery, posted["fields"]


def test_apple_form_post_flow_with_an_es256_client_secret(server):
    client_id = "com.example.web"
    redirect = "https://app.example.com/auth/apple/callback"
    browser = requests.Session()
    discovery, fields = apple_sign_in(server, browser, client_id, redirect, "heidi@example.com", "st-apple", "nonce-apple")
    assert fields["state"] == "st-apple"
    user = json.loads(fields["user"])
    assert user == {"name": {"firstName": "Heidi", "lastName": "Klein"}, "email": "heidi@example.com"}
    hybrid = jwt.decode(fields["id_token"], options={"verify_signature": False})
    assert hybrid["c_hash"] == half_hash(fields["code"]) and hybrid["nonce"] == "nonce-apple"

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    exchange = {"client_id": client_id, "client_secret": apple_secret(pem, client_id), "code": fields["code"],
                "grant_type": "authorization_code", "redirect_uri": redirect}
    r = requests.post(discovery["token_endpoint"], data=exchange, timeout=10)
    assert r.status_code == 200, r.text
    token = r.json()
    signing_key = jwt.PyJWKClient(discovery["jwks_uri"]).get_signing_key_from_jwt(token["id_token"])
    claims = jwt.decode(token["id_token"], signing_key.key, algorithms=["RS256"], audience=client_id,
                        issuer="https://appleid.apple.com")
    assert claims["email"] == "heidi@example.com" and claims["at_hash"] == half_hash(token["access_token"])
    assert claims["nonce"] == "nonce-apple"

    reused = requests.post(discovery["token_endpoint"], data=exchange, timeout=10)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"

    # The second consent of that identity for that client carries no user.
    _, again = apple_sign_in(server, browser, client_id, redirect, "heidi@example.com", "st-2", "n-2")
    assert "code" in again and "user" not in again

    expired_secret = jwt.encode({"iss": "TEAM123456", "iat": 1, "exp": 2, "aud": "https://appleid.apple.com", "sub": client_id},
                                pem, algorithm="ES256", headers={"kid": "KEY1234567"})
    refused = requests.post(discovery["token_endpoint"], timeout=10, data={
        "client_id": client_id, "client_secret": expired_secret, "grant_type": "refresh_token",
        "refresh_token": token["refresh_token"]})
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_client"

    revoke = requests.post(discovery["revocation_endpoint"], timeout=10, data={
        "client_id": client_id, "client_secret": apple_secret(pem, client_id), "token": token["refresh_token"],
        "token_type_hint": "refresh_token"})
    assert revoke.status_code == 200
    gone = requests.post(discovery["token_endpoint"], timeout=10, data={
        "client_id": client_id, "client_secret": apple_secret(pem, client_id), "grant_type": "refresh_token",
        "refresh_token": token["refresh_token"]})
    assert gone.status_code == 400 and gone.json()["error"] == "invalid_grant"


class RelyingParty:
    """A tiny web app with "Sign in with Apple": /login sets a SameSite=Lax cookie and sends the
    browser to appleid.apple.com; /callback takes Apple's form_post and exchanges the code."""

    def __init__(self, understudy, client_id="com.example.web"):
        import http.server
        import threading
        self.client_id = client_id
        self.received = None
        self.arrived = threading.Event()
        key = ec.generate_private_key(ec.SECP256R1())
        self.pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        rp = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path != "/login":
                    self.send_error(404)
                    return
                query = urllib.parse.urlencode({
                    "client_id": rp.client_id, "redirect_uri": rp.redirect, "response_type": "code id_token",
                    "response_mode": "form_post", "scope": "name email", "state": "rp-state", "nonce": "rp-nonce"})
                self.send_response(302)
                self.send_header("Set-Cookie", "rp_state=rp-state; Path=/; HttpOnly; SameSite=Lax")
                self.send_header("Location", "https://appleid.apple.com/auth/authorize?" + query)
                self.end_headers()

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                fields = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                token = requests.post(f"{understudy.http}/apple/auth/token", timeout=10, data={
                    "client_id": rp.client_id, "client_secret": apple_secret(rp.pem, rp.client_id), "code": fields.get("code", ""),
                    "grant_type": "authorization_code", "redirect_uri": rp.redirect}).json()
                rp.received = {"fields": fields, "cookie": self.headers.get("Cookie"), "token": token}
                email = jwt.decode(token.get("id_token", ""), options={"verify_signature": False}).get("email") if "id_token" in token else None
                body = f"<!DOCTYPE html><title>RP</title><h1>Signed in as {email}</h1>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                rp.arrived.set()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.redirect = self.base + "/callback"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


class DevTools:
    """Chromium over the DevTools protocol: one page, commands answered by id."""

    def __init__(self, ws_url):
        import websocket
        self.ws = websocket.create_connection(ws_url, timeout=30)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}; at {self.evaluate('location.href')}")


def artifact_dir(tmp_path):
    """Screenshots are kept under .build/interop-artifacts (and in pytest's tmp_path)."""
    root = pathlib.Path(__file__).resolve().parents[2] / ".build" / "interop-artifacts"
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_headless_chromium_signs_in_through_the_page_and_the_cross_site_form_post(server, tmp_path):
    import subprocess
    rp = RelyingParty(server)
    profile = tmp_path / "profile"
    https_port = server.https.rsplit(":", 1)[1]
    browser = subprocess.Popen([
        "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
        f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=900,1100",
        f"--host-resolver-rules=MAP appleid.apple.com 127.0.0.1:{https_port}", "--ignore-certificate-errors",
        "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            assert browser.poll() is None and time.monotonic() < deadline, "chromium did not start"
            time.sleep(0.1)
        port = port_file.read_text().split("\n")[0]
        pages = requests.get(f"http://127.0.0.1:{port}/json/list", timeout=10).json()
        tools = DevTools(next(p for p in pages if p["type"] == "page")["webSocketDebuggerUrl"])
        tools.call("Page.enable")
        tools.call("Page.navigate", url=rp.base + "/login")
        tools.wait_for("location.host === 'appleid.apple.com' && document.readyState === 'complete' && !!document.querySelector('button[value=continue]')")
        shot = base64.b64decode(tools.call("Page.captureScreenshot", format="png")["data"])
        assert shot[:8] == b"\x89PNG\r\n\x1a\n"
        (tmp_path / "sign-in-page.png").write_bytes(shot)
        (artifact_dir(tmp_path) / "sign-in-page.png").write_bytes(shot)
        assert "Choose a test identity" in tools.evaluate("document.body.innerText")
        # DevTools evaluation is not bound by the page's CSP; the page itself runs no script.
        tools.evaluate("document.querySelector('input[name=understudy_email]').value = 'ivan@example.com';"
                       "document.querySelector('input[name=understudy_given_name]').value = 'Ivan';"
                       "document.querySelector('button[value=continue]').click(); true")
        assert rp.arrived.wait(30), "the form_post never reached the relying party"
        tools.wait_for("document.body && document.body.innerText.includes('Signed in as')")
        assert "Signed in as ivan@example.com" in tools.evaluate("document.body.innerText")
        received = rp.received
        assert received["fields"]["state"] == "rp-state"
        assert json.loads(received["fields"]["user"])["email"] == "ivan@example.com"
        assert "access_token" in received["token"], received["token"]
        # Apple's form_post is a cross-site POST: the relying party's SameSite=Lax cookie stays
        # behind, as it does against the real appleid.apple.com (better-auth #5243).
        assert "rp_state" not in (received["cookie"] or "")
    finally:
        browser.terminate()
        try:
            browser.wait(15)
        except subprocess.TimeoutExpired:
            browser.kill()
        rp.close()
