"""Existing mail tests and SDKs, unchanged, against Understudy: Mailpit's own Python client on
/api/v1, and the official Python SDKs of Resend, SendGrid, Postmark and Amazon SES sending through
Understudy's capture of their HTTP APIs. Every message is then found by /api/otp, as a test would.
"""
import email.utils
import os
import smtplib
import subprocess
import sys
import textwrap
import uuid
from email.message import EmailMessage

import pytest
import requests


def otp(server, to):
    r = requests.get(f"{server.http}/api/otp", params={"to": to, "wait": 15}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["code"]


def unique(name):
    return f"{name}-{uuid.uuid4().hex[:8]}@example.com"


def smtp_send(server, to, subject, body, attachment=None):
    message = EmailMessage()
    message["From"] = "Ada Sender <ada@example.com>"
    message["To"] = to
    message["Subject"] = subject
    message["X-Tags"] = "interop"
    # The client's Headers model requires these three, as a delivered mail has them.
    message["Date"] = email.utils.formatdate()
    message["Message-ID"] = email.utils.make_msgid(domain="example.com")
    message["Delivered-To"] = to
    message.set_content(body)
    if attachment:
        message.add_attachment(attachment.encode(), maintype="text", subtype="plain", filename="notes.txt")
    host, port = server.smtp_host_port
    with smtplib.SMTP(host, port, timeout=10) as smtp:
        smtp.send_message(message)


# MARK: Mailpit's client against /api/v1

def test_mailpit_api_client_lists_reads_and_deletes(server):
    from mailpit.client.api import API

    to = unique("mailpit")
    smtp_send(server, to, "Your code is 482913", "Your verification code is 482913.", attachment="attached text")
    api = API(server.http)
    messages = api.get_messages()
    assert messages.total >= 1 and messages.start == 0
    summary = next(m for m in messages.messages if m.to[0].address == to)
    assert summary.subject == "Your code is 482913" and summary.from_.name == "Ada Sender" and summary.attachments == 1

    message = api.get_message(summary.id)
    assert message.id == summary.id and "482913" in message.text
    assert [a.file_name for a in message.attachments] == ["notes.txt"]
    assert api.get_message_attachment(summary.id, message.attachments[0].part_id) == "attached text"
    headers = api.get_message_headers(summary.id)
    assert headers.from_ == ["Ada Sender <ada@example.com>"]
    # Opening a message marks it read, as in Mailpit.
    assert next(m for m in api.get_messages().messages if m.id == summary.id).read is True

    api.delete_messages([summary.id])
    assert all(m.id != summary.id for m in api.get_messages().messages)


def test_mailpit_search_send_tags_and_latest(server):
    to = unique("search")
    sent = requests.post(f"{server.http}/api/v1/send", json={
        "From": {"Email": "app@example.com", "Name": "App"}, "To": [{"Email": to}],
        "Subject": "Sign in", "Text": "Your sign-in code is 771204", "Tags": ["login"],
    }, timeout=10)
    assert sent.status_code == 200, sent.text
    message_id = sent.json()["ID"]
    found = requests.get(f"{server.http}/api/v1/search", params={"query": f'to:{to} tag:login "sign-in code" -is:read'},
                         timeout=10).json()
    assert [m["ID"] for m in found["messages"]] == [message_id] and found["messages_count"] == 1
    latest = requests.get(f"{server.http}/api/v1/message/latest", params={"query": f"to:{to}"}, timeout=10).json()
    assert latest["ID"] == message_id and latest["Codes"] == ["771204"]
    assert requests.put(f"{server.http}/api/v1/tags", json={"Tags": ["done"], "IDs": [message_id]}, timeout=10).text == "ok"
    assert "done" in requests.get(f"{server.http}/api/v1/tags", timeout=10).json()
    assert otp(server, to) == "771204"
    assert requests.delete(f"{server.http}/api/v1/search", params={"query": f"to:{to}"}, timeout=10).status_code == 200
    assert requests.get(f"{server.http}/api/v1/search", params={"query": f"to:{to}"}, timeout=10).json()["messages_count"] == 0
    assert requests.get(f"{server.http}/readyz", timeout=10).status_code == 200


# MARK: provider SDKs

def test_resend_sdk(server):
    import resend

    to = unique("resend")
    resend.api_key = "re_interop_key"
    resend.api_url = f"{server.http}/resend"
    sent = resend.Emails.send({"from": "Acme <onboarding@acme.dev>", "to": [to], "subject": "Verify your email",
                               "html": "<p>Your verification code is <strong>350921</strong></p>"})
    assert len(sent["id"]) == 36
    assert otp(server, to) == "350921"
    batch = resend.Batch.send([{"from": "a@acme.dev", "to": [unique("batch")], "subject": "Code", "text": "Code: 118822"}])
    assert len(batch["data"]) == 1
    with pytest.raises(resend.exceptions.ResendError):
        resend.Emails.send({"from": "a@acme.dev", "to": [to], "html": "<p>no subject</p>"})


def test_sendgrid_sdk(server):
    from sendgrid import SendGridAPIClient
    from sendgrid.helpers.mail import Mail

    to = unique("sendgrid")
    client = SendGridAPIClient(api_key="SG.interop", host=f"{server.http}/sendgrid")
    response = client.send(Mail(from_email="noreply@acme.dev", to_emails=to, subject="Your login code",
                                plain_text_content="Your login code is 640218"))
    assert response.status_code == 202 and response.headers["X-Message-Id"]
    assert otp(server, to) == "640218"


def test_postmarker_through_the_proxy_as_api_postmarkapp_com(server):
    # postmarker joins its root URL with absolute paths, so it reaches the real hostname: through
    # the HTTP port as an HTTPS proxy, with the local CA, as a Python service would.
    to = unique("postmark")
    code = textwrap.dedent(f"""
        from postmarker.core import PostmarkClient
        client = PostmarkClient(server_token="interop-token")
        r = client.emails.send(From="sender@acme.dev", To="{to}", Subject="Reset your password",
                               TextBody="Your password reset code is 902177")
        assert r["ErrorCode"] == 0 and r["Message"] == "OK", r
        print(r["MessageID"])
    """)
    env = {**os.environ, "HTTPS_PROXY": server.http, "https_proxy": server.http, "NO_PROXY": "", "no_proxy": "",
           "REQUESTS_CA_BUNDLE": server.ca}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(out.stdout.strip()) == 36
    assert otp(server, to) == "902177"


def test_boto3_sesv2_simple_and_raw(server):
    import boto3

    client = boto3.client("sesv2", endpoint_url=f"{server.http}/ses", region_name="eu-west-1",
                          aws_access_key_id="AKIDINTEROP", aws_secret_access_key="secret")
    to = unique("ses")
    sent = client.send_email(FromEmailAddress="no-reply@acme.dev", Destination={"ToAddresses": [to]},
                             Content={"Simple": {"Subject": {"Data": "Your code"},
                                                 "Body": {"Text": {"Data": "Your one-time code is 553190"}}}})
    assert sent["MessageId"]
    assert otp(server, to) == "553190"

    raw_to = unique("ses-raw")
    raw = f"From: raw@acme.dev\r\nTo: {raw_to}\r\nSubject: Raw\r\n\r\nYour security code is 284617\r\n".encode()
    assert client.send_email(Content={"Raw": {"Data": raw}})["MessageId"]
    assert otp(server, raw_to) == "284617"

    with pytest.raises(client.exceptions.BadRequestException):
        client.send_email(FromEmailAddress="no-reply@acme.dev", Destination={"ToAddresses": [to]},
                          Content={"Simple": {"Subject": {"Data": "x"}, "Body": {}}})
