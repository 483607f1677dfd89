"""Real SMTP clients (smtplib, swaks, raw pipelining) and messages built by Python's email package,
read back through the HTTP API; plus durability across SIGKILL with a file store."""
import email.header
import email.message
import email.utils
import os
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import threading
import time
import uuid

import pytest
import requests

from conftest import Server


def unique(name):
    return f"{name}-{uuid.uuid4().hex[:8]}@example.com"


def smtp(server):
    host, port = server.smtp_host_port
    return smtplib.SMTP(host, port, timeout=10)


def otp(server, to, wait=10):
    r = requests.get(f"{server.http}/api/otp", params={"to": to, "wait": wait}, timeout=wait + 10)
    return r


def test_smtplib_plain_send_and_otp(server):
    to = unique("plain")
    with smtp(server) as s:
        s.sendmail("noreply@example.com", [to], f"From: noreply@example.com\r\nTo: {to}\r\n"
                   "Subject: Verify your email\r\n\r\nYour verification code is 730 114.\r\n")
    r = otp(server, to)
    assert r.status_code == 200
    assert r.json()["code"] == "730114"


def test_smtplib_auth_and_ehlo_features(server):
    to = unique("auth")
    with smtp(server) as s:
        code, _ = s.ehlo("client.example")
        assert code == 250
        for feature in ["pipelining", "size", "8bitmime", "smtputf8", "enhancedstatuscodes", "auth", "chunking"]:
            assert s.has_extn(feature), feature
        s.login("anyone", "anything")
        msg = email.message.EmailMessage()
        msg["From"] = "auth@example.com"
        msg["To"] = to
        msg["Subject"] = "Your login code"
        msg.set_content("Enter 55 66 77 to sign in")
        s.send_message(msg)
    assert otp(server, to).json()["code"] == "556677"


def test_raw_pipelined_transaction(server):
    to = unique("pipe")
    host, port = server.smtp_host_port
    with socket.create_connection((host, port), timeout=10) as c:
        f = c.makefile("rb")
        assert f.readline().startswith(b"220")
        c.sendall(b"EHLO pipe\r\n")
        while not f.readline().startswith(b"250 "):
            pass
        body = f"Subject: pipelined\r\nTo: {to}\r\n\r\nOTP: 918273\r\n.\r\n"
        c.sendall(f"MAIL FROM:<p@example.com>\r\nRCPT TO:<{to}>\r\nDATA\r\n".encode())
        replies = [f.readline() for _ in range(3)]
        assert [r[:3] for r in replies] == [b"250", b"250", b"354"]
        c.sendall(body.encode() + b"QUIT\r\n")
        assert f.readline().startswith(b"250 2.0.0")
        assert f.readline().startswith(b"221")
    assert otp(server, to).json()["code"] == "918273"


CHARSETS = [
    ("iso-2022-jp", "認証コード", "認証コードは 482913 です。"),
    ("shift_jis", "確認コードのお知らせ", "確認コード: 482913"),
    ("euc-jp", "ワンタイムパスワード", "ワンタイムパスワードは482913です"),
    ("gb2312", "您的验证码", "您的验证码是482913，5分钟内有效。"),
    ("gbk", "验证码通知", "验证码：482913"),
    ("big5", "驗證碼通知", "您的驗證碼為 482913"),
    ("euc-kr", "인증번호 안내", "인증번호는 [482913] 입니다."),
    ("koi8-r", "Код подтверждения", "Ваш код подтверждения: 482913"),
    ("iso-8859-1", "Código de verificación", "Tu código de verificación es 482913"),
    ("windows-1252", "Bestätigungscode", "Ihr Bestätigungscode lautet 482913"),
    ("utf-8", "Code de vérification", "Votre code de vérification est 482913"),
]


@pytest.mark.parametrize("charset,subject,body", CHARSETS)
def test_email_package_charsets(server, charset, subject, body):
    to = unique("cs")
    msg = email.message.Message()
    msg["From"] = email.utils.formataddr((subject[:4], "sender@example.com"), charset=charset) if charset != "iso-2022-jp" else "sender@example.com"
    msg["To"] = to
    msg["Subject"] = email.header.Header(subject, charset)
    msg.set_payload(body.encode(charset), charset=None)
    msg["MIME-Version"] = "1.0"
    msg["Content-Type"] = f"text/plain; charset={charset}"
    msg["Content-Transfer-Encoding"] = "8bit" if charset != "iso-2022-jp" else "7bit"
    with smtp(server) as s:
        s.sendmail("sender@example.com", [to], msg.as_bytes())
    r = otp(server, to)
    assert r.status_code == 200, r.text
    assert r.json()["code"] == "482913"
    assert r.json()["subject"] == subject
    detail = requests.get(f"{server.http}/api/messages/{r.json()['messageId']}", timeout=10).json()
    assert body in detail["text"]
    # CJK text has no spaces: search a piece of it; other scripts: a whole word, accents and all.
    word = subject.split()[0]
    query = word[:3] if ord(word[0]) > 0x2E80 else word
    search = requests.get(f"{server.http}/api/messages", params={"q": query}, timeout=10).json()
    assert any(m["id"] == r.json()["messageId"] for m in search["messages"])


def test_multipart_html_and_attachment(server):
    to = unique("multi")
    msg = email.message.EmailMessage()
    msg["From"] = "Better Auth <auth@example.com>"
    msg["To"] = to
    msg["Subject"] = "Reset your password"
    msg.set_content("Reset your password: https://app.example.com/reset-password/tok123?callbackURL=/")
    msg.add_alternative('<p>Click <a href="https://app.example.com/reset-password/tok123?callbackURL=/">Reset password</a></p>'
                        '<img src="https://t.example.com/open.gif" width="1" height="1">', subtype="html")
    msg.add_attachment(b"%PDF-1.4 test", maintype="application", subtype="pdf", filename="résumé.pdf")
    with smtp(server) as s:
        s.send_message(msg)
    r = requests.get(f"{server.http}/api/links", params={"to": to, "purpose": "reset-password", "wait": 10}, timeout=20)
    assert r.status_code == 200, r.text
    assert r.json()["url"] == "https://app.example.com/reset-password/tok123?callbackURL=/"
    detail = requests.get(f"{server.http}/api/messages/{r.json()['messageId']}", timeout=10).json()
    assert all("open.gif" not in link["url"] for link in detail["links"])
    attachment = next(a for a in detail["attachments"] if a["name"] == "résumé.pdf")
    part = requests.get(f"{server.http}/api/messages/{detail['id']}/parts/{attachment['part']}", timeout=10)
    assert part.content == b"%PDF-1.4 test"


@pytest.mark.skipif(shutil.which("swaks") is None, reason="swaks not installed")
def test_swaks(server):
    to = unique("swaks")
    host, port = server.smtp_host_port
    out = subprocess.run(["swaks", "--to", to, "--server", f"{host}:{port}", "--pipeline",
                          "--header", "Subject: Your one-time passcode", "--body", "Passcode: 246810",
                          "--auth", "PLAIN", "--auth-user", "u", "--auth-password", "p"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert otp(server, to).json()["code"] == "246810"


def test_size_limit_and_bad_sequence(server):
    host, port = server.smtp_host_port
    with smtplib.SMTP(host, port, timeout=10) as s:
        s.ehlo()
        code, _ = s.docmd("RCPT TO:<x@example.com>")
        assert code == 503
        code, _ = s.docmd("MAIL FROM:<a@example.com> SIZE=999999999999")
        assert code == 552
        code, _ = s.docmd("FROB")
        assert code in (500, 502)


def test_sigkill_keeps_every_acknowledged_message():
    """A server killed with SIGKILL during sustained ingest keeps every message it answered 250 for."""
    folder = tempfile.mkdtemp()
    data = os.path.join(folder, "inbox.sqlite")
    server = Server("--data", data, "--mail-max-messages", "100000")
    acknowledged = []
    lock = threading.Lock()
    stop = threading.Event()

    def sender(n):
        host, port = server.smtp_host_port
        try:
            s = smtplib.SMTP(host, port, timeout=10)
            s.ehlo()
            i = 0
            while not stop.is_set():
                s.mail(f"load{n}@example.com")
                s.rcpt("durable@example.com")
                code, reply = s.data(f"Subject: load {n}-{i}\r\n\r\nmessage {n}-{i}\r\n".encode())
                if code == 250:
                    with lock:
                        acknowledged.append(reply.decode().rsplit(" ", 1)[-1])
                i += 1
        except (smtplib.SMTPException, OSError):
            pass  # the server was killed mid-transaction

    threads = [threading.Thread(target=sender, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with lock:
            if len(acknowledged) >= 400:
                break
        time.sleep(0.05)
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(timeout=10)
    stop.set()
    for t in threads:
        t.join(timeout=15)
    with lock:
        ids = list(acknowledged)
    assert len(ids) >= 50, "too few messages were sent before the kill to show anything"

    again = Server("--data", data, "--mail-max-messages", "100000")
    try:
        listed = requests.get(f"{again.http}/api/messages", params={"to": "durable@example.com", "limit": 1}, timeout=10).json()
        assert listed["total"] >= len(ids)
        missing = [i for i in ids if requests.get(f"{again.http}/api/messages/{i}", timeout=10).status_code != 200]
        assert not missing, f"{len(missing)} of {len(ids)} acknowledged messages were lost"
    finally:
        assert again.stop() == 0
        shutil.rmtree(folder, ignore_errors=True)
