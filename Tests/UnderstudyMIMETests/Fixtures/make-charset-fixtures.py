#!/usr/bin/env python3
"""Regenerates charset-*.eml: one message per charset label, with the sample text in the Subject
(B encoded words split mid-character), the From display name (Q encoded word) and the body
(8bit, or base64 for UTF-16). Expected texts live in CharsetMessageTests.swift."""
import base64, sys

SAMPLES = [
    # (label in the message, python codec, sample text)
    ("utf-8", "utf-8", "Grüße, 你好, привет 👋"),
    ("us-ascii", "ascii", "Hello plain world"),
    ("iso-8859-1", "latin-1", "Grüße aus Köln, café"),
    ("latin1", "latin-1", "Ça marche très bien"),
    ("iso-8859-2", "iso8859-2", "Zażółć gęślą jaźń"),
    ("iso-8859-5", "iso8859-5", "Привет мир"),
    ("iso-8859-7", "iso8859-7", "Καλημέρα κόσμε"),
    ("iso-8859-15", "iso8859-15", "Prix: 100 € œuvre"),
    ("windows-1250", "cp1250", "Příliš žluťoučký kůň"),
    ("windows-1251", "cp1251", "Съешь же ещё этих мягких"),
    ("cp1252", "cp1252", "“Smart quotes” – and € sign"),
    ("windows-1253", "cp1253", "Καλημέρα"),
    ("windows-1254", "cp1254", "Şişli İstanbul ğ"),
    ("windows-1255", "cp1255", "שלום עולם"),
    ("windows-1256", "cp1256", "مرحبا بالعالم"),
    ("windows-1257", "cp1257", "Ąžuolas ėjo"),
    ("gb2312", "gbk", "你好，世界 镕喆"),
    ("gbk", "gbk", "中文邮件测试"),
    ("gb18030", "gb18030", "你好 𠀀 €"),
    ("big5", "big5", "臺灣繁體中文"),
    ("shift_jis", "cp932", "こんにちは世界、カタカナ①"),
    ("x-sjis", "shift_jis", "日本語"),
    ("euc-jp", "euc_jp", "日本語のテキスト"),
    ("iso-2022-jp", "iso2022_jp", "日本語のメール本文"),
    ("euc-kr", "euc_kr", "안녕하세요 세계"),
    ("ks_c_5601-1987", "cp949", "한국어 메일"),
    ("koi8-r", "koi8_r", "Привет, мир"),
    ("utf-16", "utf-16", "Hello 世界"),
]

def q_word(label, data):
    out = ""
    for b in data:
        c = chr(b)
        if c.isalnum() and b < 128:
            out += c
        elif b == 0x20:
            out += "_"
        else:
            out += "=%02X" % b
    return "=?%s?Q?%s?=" % (label, out)

for label, codec, text in SAMPLES:
    data = text.encode(codec)
    half = len(data) // 2 + 1 if len(data) > 2 else len(data)
    w1 = base64.b64encode(data[:half]).decode()
    w2 = base64.b64encode(data[half:]).decode() if data[half:] else ""
    subject = "=?%s?B?%s?=" % (label, w1) + ("\r\n =?%s?B?%s?=" % (label, w2) if w2 else "")
    utf16 = codec.startswith("utf-16")
    body = base64.encodebytes(data) if utf16 else data + b"\r\n"
    if utf16:
        body = body.replace(b"\n", b"\r\n")
    msg = (
        b"From: " + q_word(label, data).encode() + b" <sender@example.com>\r\n"
        b"To: Receiver <rcpt@example.com>\r\n"
        b"Subject: " + subject.encode() + b"\r\n"
        b"MIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=\"" + label.encode() + b"\"\r\n"
        b"Content-Transfer-Encoding: " + (b"base64" if utf16 else b"8bit") + b"\r\n"
        b"\r\n" + body
    )
    with open("charset-%s.eml" % label, "wb") as f:
        f.write(msg)
