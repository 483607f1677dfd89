"""The web UI in a real browser: headless Chromium, driven over the DevTools protocol.

Loads `/` against the running server, sends mail over SMTP and checks that it appears without a
reload with its code shown, that a <script> in an HTML mail does not run, and that the tokens
page mints a token PyJWT verifies. Screenshots are kept in the test's tmp dir and in
.build/artifacts/web-ui/. Skipped (visibly) where Chromium or websocket-client is missing.
"""
import base64
import json
import pathlib
import shutil
import smtplib
import subprocess
import threading
import time
import urllib.request
import uuid
from email.message import EmailMessage

import jwt
import pytest

try:
    import websocket  # websocket-client
except ImportError:  # pragma: no cover
    websocket = None

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".build" / "artifacts" / "web-ui"

pytestmark = pytest.mark.skipif(CHROMIUM is None or websocket is None,
                                reason="needs Debian's chromium and websocket-client (see .ci/run)")


class Browser:
    """One headless Chromium with one page, spoken to over its DevTools websocket."""

    def __init__(self, profile: pathlib.Path):
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,900", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.monotonic() + 60
        while port is None:
            line = self.proc.stderr.readline()
            if not line:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("chromium did not start")
                continue
            if "DevTools listening on ws://" in line:
                port = int(line.split("ws://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        # Keep draining stderr so Chromium never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events = []
        self.call("Page.enable")
        self.call("Runtime.enable")
        # A sandboxed frame runs in a process of its own: attach to it to read its document.
        self.call("Target.setAutoAttach", autoAttach=True, waitForDebuggerOnStart=False, flatten=True)

    def frame_sessions(self):
        """Sessions attached to child frames (their URL is only known later)."""
        self.call("Runtime.evaluate", expression="1")   # pump pending events
        return [e["params"]["sessionId"] for e in self.events
                if e.get("method") == "Target.attachedToTarget" and e["params"]["targetInfo"].get("type") == "iframe"]

    def document_text(self, session=None):
        root = self.call("DOM.getDocument", session=session, depth=-1, pierce=True)["root"]
        texts = []

        def walk(node):
            if node.get("nodeName") in ("SCRIPT", "STYLE"):
                return   # a script's source is text too, but not rendered
            if node.get("nodeType") == 3:
                texts.append(node.get("nodeValue", ""))
            for child in node.get("children", []) + ([node["contentDocument"]] if "contentDocument" in node else []):
                walk(child)
        walk(root)
        return " ".join(texts)

    def call(self, method, session=None, **params):
        self.next_id += 1
        mine = self.next_id
        request = {"id": mine, "method": method, "params": params}
        if session:
            request["sessionId"] = session
        self.ws.send(json.dumps(request))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=30, what=None):
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError as error:   # the page is still loading
                value, last_error = None, error
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what or expression} (last error: {last_error})")

    def go(self, url):
        self.call("Page.navigate", url=url)

    def screenshot(self, directory: pathlib.Path, name: str):
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        for folder in (directory, ARTIFACTS):
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}.png").write_bytes(data)

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture()
def browser(tmp_path):
    b = Browser(tmp_path / "profile")
    yield b
    b.close()


def send(server, to, subject, text, html=None):
    message = EmailMessage()
    message["From"] = "Acme <noreply@acme.test>"
    message["To"] = to
    message["Subject"] = subject
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    host, port = server.smtp_host_port
    with smtplib.SMTP(host, port, timeout=30) as smtp:
        smtp.send_message(message)


def api(server, path):
    with urllib.request.urlopen(server.http + path, timeout=30) as r:
        return json.load(r)


def rows_with(subject):
    return (f"[...document.querySelectorAll('#messages li')].filter(li => li.textContent.includes({json.dumps(subject)}))")


def test_inbox_shows_mail_live_with_its_code(server, browser, tmp_path):
    to = f"ui-{uuid.uuid4().hex[:8]}@example.com"
    subject = f"Sign in to Acme {uuid.uuid4().hex[:6]}"
    browser.go(server.http + "/")
    browser.wait_for("document.getElementById('live').textContent === 'live' && !!document.getElementById('messages')",
                     what="the inbox with its event stream open")
    assert browser.evaluate(f"{rows_with(subject)}.length") == 0
    send(server, to, subject, "Your verification code is 482913.\nIt expires in 10 minutes.")
    browser.wait_for(f"{rows_with(subject)}.length === 1", what="the message to appear without a reload")
    assert browser.evaluate(f"{rows_with(subject)}[0].querySelector('.code-chip').textContent") == "482913"
    assert browser.evaluate(f"{rows_with(subject)}[0].classList.contains('unread')")
    browser.screenshot(tmp_path, "inbox")

    browser.evaluate(f"{rows_with(subject)}[0].click()")
    browser.wait_for(f"document.getElementById('subject') && document.getElementById('subject').textContent === {json.dumps(subject)}")
    assert browser.evaluate("document.querySelector('#codes .otp').textContent") == "482913"
    assert browser.evaluate("document.querySelector('#text-body mark').textContent") == "482913"
    assert "null" not in browser.evaluate("document.querySelector('main').innerText")
    browser.screenshot(tmp_path, "message")

    # Back in the inbox the message is read, and the search finds it by recipient.
    browser.go(server.http + "/#/")
    browser.wait_for(f"{rows_with(subject)}.length === 1")
    assert not browser.evaluate(f"{rows_with(subject)}[0].classList.contains('unread')")
    browser.evaluate(f"(() => {{ const s = document.getElementById('search'); s.value = 'to:{to}'; s.dispatchEvent(new Event('input')); }})()")
    browser.wait_for(f"document.querySelectorAll('#messages li').length === 1 && {rows_with(subject)}.length === 1",
                     what="the search to narrow the list to one message")


def test_a_script_in_html_mail_does_not_run(server, browser, tmp_path):
    to = f"ui-{uuid.uuid4().hex[:8]}@example.com"
    subject = f"Scripted mail {uuid.uuid4().hex[:6]}"
    html = ("<html><body><p>Your code is <b>730158</b></p><p id='marker'>rendered-body</p>"
            "<script>document.getElementById('marker').textContent = 'SCRIPT-RAN';"
            "fetch('/api/messages', {method: 'DELETE'}); top.location = '/#/pwned';</script>"
            "<img src='x' onerror=\"fetch('/api/messages', {method: 'DELETE'})\">"
            "<img src='http://192.0.2.1/tracker.png' alt='remote'></body></html>")
    send(server, to, subject, "Your code is 730158", html)
    found = api(server, f"/api/messages?to={to}")
    assert found["total"] == 1
    message_id = found["messages"][0]["id"]

    browser.go(f"{server.http}/#/m/{message_id}")
    browser.wait_for("!!document.getElementById('mail-frame')", what="the sandboxed HTML frame")
    assert browser.evaluate("document.getElementById('mail-frame').getAttribute('sandbox')") == ""
    assert browser.evaluate("document.querySelector('#codes .otp').textContent") == "730158"

    # Wait until the frame's document is there and rendered, then read it through DevTools
    # (the page itself cannot: the frame has an opaque origin).
    def frame_text():
        texts = [browser.document_text()]
        for session in browser.frame_sessions():
            try:
                texts.append(browser.document_text(session))
            except RuntimeError:
                pass   # detached meanwhile
        return " ".join(texts)

    deadline = time.monotonic() + 30
    while "rendered-body" not in frame_text() and "SCRIPT-RAN" not in frame_text():
        assert time.monotonic() < deadline, "the HTML part never rendered in the frame"
        time.sleep(0.2)
    time.sleep(1)   # give a script that would run every chance to
    text = frame_text()
    assert "rendered-body" in text and "SCRIPT-RAN" not in text
    assert browser.evaluate("location.hash") == f"#/m/{message_id}"
    assert api(server, f"/api/messages?to={to}")["total"] == 1, "a script in the mail deleted the inbox"
    browser.screenshot(tmp_path, "html-mail-sandboxed")

    # The part is served inert: sandbox CSP, remote images off unless asked.
    with urllib.request.urlopen(f"{server.http}/api/messages/{message_id}/parts/2?view=1&frame=1", timeout=30) as r:
        csp = r.headers["Content-Security-Policy"]
        assert csp.startswith("sandbox") and "img-src" not in csp and "frame-ancestors 'self'" in csp


def test_mint_form_yields_a_token_pyjwt_verifies(server, browser, tmp_path):
    browser.go(server.http + "/#/tokens")
    browser.wait_for("!!document.getElementById('mint')", what="the mint form")
    browser.evaluate("""(() => {
        document.getElementById('provider').value = 'google';
        document.getElementById('email').value = 'carol@example.com';
        document.getElementById('aud').value = 'ui-test-client';
        document.getElementById('nonce').value = 'n-ui';
        document.getElementById('mint-submit').click();
    })()""")
    token = browser.wait_for("document.getElementById('minted-token') && document.getElementById('minted-token').value",
                             what="the minted token")
    key = jwt.PyJWKClient(f"{server.http}/google/oauth2/v3/certs").get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience="ui-test-client", issuer="https://accounts.google.com")
    assert claims["email"] == "carol@example.com" and claims["nonce"] == "n-ui"
    assert json.loads(browser.evaluate("document.getElementById('minted-claims').textContent"))["email"] == "carol@example.com"
    browser.screenshot(tmp_path, "tokens")

    # The decoder shows any pasted JWT's claims.
    browser.evaluate(f"(() => {{ const t = document.getElementById('jwt-input'); t.value = {json.dumps(token)}; t.dispatchEvent(new Event('input')); }})()")
    decoded = browser.wait_for("document.getElementById('jwt-claims') && document.getElementById('jwt-claims').textContent")
    assert json.loads(decoded)["aud"] == "ui-test-client"


def test_start_page_names_the_addresses(server, browser, tmp_path):
    browser.go(server.http + "/#/start")
    text = browser.wait_for("document.querySelector('main h1') && document.querySelector('main').textContent")
    assert server.smtp in text and "/apple/auth/keys" in text and "/google/oauth2/v3/certs" in text
    browser.screenshot(tmp_path, "start")
