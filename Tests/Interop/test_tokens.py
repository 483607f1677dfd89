"""Real verifiers accept Understudy's tokens with the exact aud and issuer, and reject other audiences."""
import subprocess

import google.auth.transport.requests
import jwt
import pytest
import requests
from google.auth import exceptions as google_exceptions
from google.oauth2 import id_token as google_id_token

APPLE_AUD = "com.example.app"
GOOGLE_AUD = "123456789012-understudyweb.apps.googleusercontent.com"


def mint(server, provider, **body):
    r = requests.post(f"{server.http}/api/tokens/{provider}", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["idToken"]


def test_pyjwt_jwks_client_accepts_apple_tokens(server):
    token = mint(server, "apple", aud=APPLE_AUD, email="alice@example.com", nonce="n-123")
    client = jwt.PyJWKClient(f"{server.http}/apple/auth/keys")
    key = client.get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=APPLE_AUD,
                        issuer="https://appleid.apple.com")
    assert claims["email"] == "alice@example.com"
    assert claims["nonce"] == "n-123"
    assert claims["email_verified"] == "true"


def test_pyjwt_rejects_another_audience(server):
    token = mint(server, "apple", aud=APPLE_AUD)
    key = jwt.PyJWKClient(f"{server.http}/apple/auth/keys").get_signing_key_from_jwt(token)
    with pytest.raises(jwt.InvalidAudienceError):
        jwt.decode(token, key.key, algorithms=["RS256"], audience="com.someone.else",
                   issuer="https://appleid.apple.com")


def test_pyjwt_rejects_wrong_issuer(server):
    token = mint(server, "apple", aud=APPLE_AUD, claims={"iss": "https://account.apple.com"})
    key = jwt.PyJWKClient(f"{server.http}/apple/auth/keys").get_signing_key_from_jwt(token)
    with pytest.raises(jwt.InvalidIssuerError):
        jwt.decode(token, key.key, algorithms=["RS256"], audience=APPLE_AUD, issuer="https://appleid.apple.com")


@pytest.mark.parametrize("certs", ["v1", "v3"])
def test_google_auth_accepts_google_tokens(server, certs):
    token = mint(server, "google", email="alice@example.com")
    request = google.auth.transport.requests.Request()
    claims = google_id_token.verify_token(token, request, audience=GOOGLE_AUD,
                                          certs_url=f"{server.http}/google/oauth2/{certs}/certs")
    assert claims["iss"] == "https://accounts.google.com"
    assert claims["aud"] == GOOGLE_AUD
    assert claims["email"] == "alice@example.com"
    assert claims["email_verified"] is True
    assert len(claims["sub"]) == 21


@pytest.mark.parametrize("certs", ["v1", "v3"])
def test_google_auth_rejects_another_audience(server, certs):
    token = mint(server, "google", aud="someone-else.apps.googleusercontent.com")
    request = google.auth.transport.requests.Request()
    with pytest.raises((ValueError, google_exceptions.GoogleAuthError, jwt.InvalidAudienceError)):
        google_id_token.verify_token(token, request, audience=GOOGLE_AUD,
                                     certs_url=f"{server.http}/google/oauth2/{certs}/certs")


def test_google_android_token_has_web_audience(server):
    token = mint(server, "google", platform="android")
    request = google.auth.transport.requests.Request()
    claims = google_id_token.verify_token(token, request, audience=GOOGLE_AUD,
                                          certs_url=f"{server.http}/google/oauth2/v1/certs")
    assert claims["azp"] == "123456789012-understudyandroid.apps.googleusercontent.com"


def test_google_certs_caching_headers(server):
    r = requests.get(f"{server.http}/google/oauth2/v1/certs", timeout=10)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json; charset=UTF-8"
    assert r.headers["Cache-Control"].startswith("public, max-age=")
    assert "Expires" in r.headers
    assert all(v.startswith("-----BEGIN CERTIFICATE-----") for v in r.json().values())


def test_tokeninfo(server):
    token = mint(server, "google", email="bob@example.com")
    r = requests.get(f"{server.http}/google/tokeninfo", params={"id_token": token}, timeout=10)
    assert r.status_code == 200
    body = r.json()
    assert body["email"] == "bob@example.com"
    assert body["email_verified"] == "true"
    assert isinstance(body["iat"], str)
    bad = requests.get(f"{server.http}/google/tokeninfo", params={"id_token": token[:-4] + "AAAA"}, timeout=10)
    assert bad.status_code == 400
    assert bad.json()["error"] == "invalid_token"


def test_discovery_documents(server):
    apple = requests.get(f"{server.http}/apple/.well-known/openid-configuration", timeout=10).json()
    assert apple["issuer"] == "https://appleid.apple.com"
    assert apple["jwks_uri"] == f"{server.http}/apple/auth/keys"
    google = requests.get(f"{server.http}/google/.well-known/openid-configuration", timeout=10).json()
    assert google["jwks_uri"] == f"{server.http}/google/oauth2/v3/certs"


def test_cli_mint_offline_verifies_against_the_server_keys(server, understudy_bin):
    out = subprocess.run([understudy_bin, "mint", "apple", "--aud", "com.cli.app", "--email", "cli@example.com",
                          "--raw-nonce", "raw"], capture_output=True, text=True, timeout=60, cwd="/")
    assert out.returncode == 0, out.stderr
    token = out.stdout.strip()
    key = jwt.PyJWKClient(f"{server.http}/apple/auth/keys").get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience="com.cli.app", issuer="https://appleid.apple.com")
    import hashlib
    assert claims["nonce"] == hashlib.sha256(b"raw").hexdigest()


def test_errors_are_json_problems(server):
    r = requests.post(f"{server.http}/api/tokens/apple", json={"ttl": "soon"}, timeout=10)
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_request"
    assert "ttl" in r.json()["message"]
    r = requests.get(f"{server.http}/nowhere", timeout=10)
    assert r.status_code == 404
    assert set(r.json()) == {"error", "message"}
