"""Every scenario's token meets PyJWT as a correct verifier configures it: each must-reject token is
rejected with the exception that names its fault, each must-accept token is accepted."""
import hashlib
import subprocess

import jwt
import pytest
import requests

AUD = {"apple": "com.example.app", "google": "123456789012-understudyweb.apps.googleusercontent.com"}
ISS = {"apple": ["https://appleid.apple.com"], "google": ["https://accounts.google.com", "accounts.google.com"]}
KEYS = {"apple": "/apple/auth/keys", "google": "/google/oauth2/v3/certs"}


class NonceMismatch(Exception):
    """The application's own check: PyJWT does not look at nonces."""


def verify(server, provider, token, raw_nonce):
    """PyJWT configured the way a correct verifier is: RS256 pinned, key by kid from the JWKS, exact
    audience and issuer, no leeway, and the nonce compared with the hex SHA-256 of the raw nonce."""
    key = jwt.PyJWKClient(server.http + KEYS[provider], cache_jwk_set=False).get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=AUD[provider], issuer=ISS[provider],
                        leeway=0, options={"require": ["exp", "iat", "iss", "aud", "sub"]})
    if claims.get("nonce") != hashlib.sha256(raw_nonce.encode()).hexdigest():
        raise NonceMismatch(claims.get("nonce"))
    return claims


# The exception each must-reject scenario meets: exactly this class, not a relative.
REJECTED_WITH = {
    "expired": jwt.ExpiredSignatureError,
    "expired-by-one-second": jwt.ExpiredSignatureError,
    "not-yet-valid": jwt.ImmatureSignatureError,
    "wrong-audience": jwt.InvalidAudienceError,
    "wrong-issuer": jwt.InvalidIssuerError,
    "bad-signature": jwt.InvalidSignatureError,
    "unknown-kid": jwt.PyJWKClientError,
    "alg-none": jwt.InvalidAlgorithmError,
    "hs256-key-confusion": jwt.InvalidAlgorithmError,
    "signed-with-retired-key": jwt.PyJWKClientError,
    "nonce-mismatch": NonceMismatch,
    "malformed": jwt.DecodeError,
    "malformed-base64": jwt.DecodeError,
    "malformed-header": jwt.DecodeError,
    "malformed-trailing-dot": jwt.DecodeError,
}


def catalogue(server, provider):
    r = requests.get(f"{server.http}/api/scenarios", params={"provider": provider}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["scenarios"]


def mint(server, provider, scenario):
    r = requests.post(f"{server.http}/api/tokens/{provider}", json={"scenario": scenario}, timeout=30)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["scenario"]["name"] == scenario
    return body


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_pyjwt_rejects_every_must_reject_scenario_with_its_exception(server, provider):
    rows = [s for s in catalogue(server, provider) if s["expected"] == "reject"]
    assert rows, "the catalogue has must-reject scenarios"
    for row in rows:
        name = row["name"]
        assert name in REJECTED_WITH, f"{name} is must-reject but this test does not say which exception meets it"
        body = mint(server, provider, name)
        with pytest.raises(Exception) as caught:
            verify(server, provider, body["idToken"], body["rawNonce"])
        assert type(caught.value) is REJECTED_WITH[name], f"{name}: {type(caught.value).__name__}: {caught.value}"


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_pyjwt_accepts_every_must_accept_scenario(server, provider):
    rows = [s for s in catalogue(server, provider) if s["expected"] == "accept"]
    assert "valid" in [r["name"] for r in rows]
    for row in rows:
        body = mint(server, provider, row["name"])
        claims = verify(server, provider, body["idToken"], body["rawNonce"])
        assert claims == body["claims"], row["name"]


def test_the_catalogue_lists_every_scenario_with_a_verdict(server):
    r = requests.get(f"{server.http}/api/scenarios", timeout=10)
    rows = r.json()["scenarios"]
    assert len(rows) >= 32
    for row in rows:
        assert row["expected"] in ("accept", "reject", "depends")
        assert row["description"] and row["reason"] and row["providers"]
        if row["expected"] == "depends":
            assert set(row["profiles"]) == {"better-auth", "supabase", "allauth", "google-auth", "jose-default"} or \
                row["providers"] == ["apple"]
    bad = requests.get(f"{server.http}/api/scenarios", params={"profile": "nope", "provider": "apple"}, timeout=10)
    assert bad.status_code == 400 and "supabase" in bad.json()["message"]


def test_cli_mints_a_scenario_offline_that_pyjwt_rejects(server, understudy_bin):
    token = subprocess.run([understudy_bin, "mint", "apple", "--scenario", "expired"], capture_output=True, text=True,
                           check=True, timeout=60).stdout.strip()
    key = jwt.PyJWKClient(server.http + KEYS["apple"]).get_signing_key_from_jwt(token)
    with pytest.raises(jwt.ExpiredSignatureError):
        jwt.decode(token, key.key, algorithms=["RS256"], audience=AUD["apple"], issuer=ISS["apple"])
    listing = subprocess.run([understudy_bin, "scenarios", "--provider", "google", "--profile", "supabase"],
                             capture_output=True, text=True, check=True, timeout=60).stdout
    assert "schemeless-google-issuer" in listing and "account-apple-issuer" not in listing
