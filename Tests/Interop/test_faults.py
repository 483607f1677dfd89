"""Endpoint faults switched at run time and from the configuration: what a verifier meets when
Apple's or Google's endpoints misbehave."""
import json
import subprocess
import threading
import time

import jwt
import pytest
import requests

from conftest import Server


@pytest.fixture(autouse=True)
def clear(server):
    yield
    requests.delete(f"{server.http}/api/faults", timeout=10)


def add(server, **fault):
    r = requests.post(f"{server.http}/api/faults", json=fault, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def test_503_with_retry_after_for_the_next_two_requests(server):
    add(server, target="keys", fault="503", provider="apple", count=2, retryAfter=7)
    for _ in range(2):
        r = requests.get(f"{server.http}/apple/auth/keys", timeout=10)
        assert r.status_code == 503 and r.headers["Retry-After"] == "7"
    assert requests.get(f"{server.http}/google/oauth2/v3/certs", timeout=10).status_code == 200
    assert requests.get(f"{server.http}/apple/auth/keys", timeout=10).status_code == 200


def test_empty_and_dropped_key_sets_fail_a_verifier_closed(server):
    token = requests.post(f"{server.http}/api/tokens/google", json={}, timeout=10).json()["idToken"]
    add(server, target="keys", fault="empty-keys", provider="google")
    assert requests.get(f"{server.http}/google/oauth2/v3/certs", timeout=10).json() == {"keys": []}
    assert requests.get(f"{server.http}/google/oauth2/v1/certs", timeout=10).json() == {}
    requests.delete(f"{server.http}/api/faults", timeout=10)
    add(server, target="keys", fault="drop-key")
    kid = jwt.get_unverified_header(token)["kid"]
    kids = [k["kid"] for k in requests.get(f"{server.http}/google/oauth2/v3/certs", timeout=10).json()["keys"]]
    assert kids and kid not in kids
    with pytest.raises(jwt.PyJWKClientError):
        jwt.PyJWKClient(f"{server.http}/google/oauth2/v3/certs").get_signing_key_from_jwt(token)


def test_malformed_discovery_and_a_500_token_endpoint(server):
    add(server, target="discovery", fault="malformed-json")
    r = requests.get(f"{server.http}/apple/.well-known/openid-configuration", timeout=10)
    assert r.status_code == 200 and r.headers["X-Understudy-Fault"] == "malformed-json"
    with pytest.raises(ValueError):
        json.loads(r.text)
    add(server, target="token", fault="500", provider="google", duration=600)
    r = requests.post(f"{server.http}/google/token", data={"grant_type": "authorization_code"}, timeout=10)
    assert r.status_code == 500 and r.json()["error"] == "server_error"
    listed = requests.get(f"{server.http}/api/faults", timeout=10).json()["faults"]
    assert [f["fault"] for f in listed] == ["malformed-json", "500"] and "until" in listed[1]
    assert requests.delete(f"{server.http}/api/faults", timeout=10).json() == {"faults": []}
    assert requests.get(f"{server.http}/apple/.well-known/openid-configuration", timeout=10).json()["issuer"]


def test_bad_faults_are_refused_naming_the_field(server):
    r = requests.post(f"{server.http}/api/faults", json={"target": "keys", "fault": "hang"}, timeout=10)
    assert r.status_code == 400 and r.json()["message"].startswith("seconds")


def test_a_hang_does_not_hold_up_the_loop():
    """One loop thread: if the hang blocked it, /healthz could not answer before the hung request."""
    s = Server("--threads", "1")
    try:
        add(s, target="keys", fault="hang", seconds=3, count=1)
        done = {}

        def hung():
            r = requests.get(f"{s.http}/apple/auth/keys", timeout=60)
            done["keys"] = (time.monotonic(), r.status_code, len(r.json()["keys"]))

        t = threading.Thread(target=hung)
        t.start()
        # The fault is counted when the request arrives: wait until it is, then ask something else.
        deadline = time.monotonic() + 30
        while requests.get(f"{s.http}/api/faults", timeout=10).json()["faults"] and time.monotonic() < deadline:
            time.sleep(0.05)
        health = requests.get(f"{s.http}/healthz", timeout=10)
        answered = time.monotonic()
        t.join(60)
        assert health.status_code == 200
        assert "keys" in done and done["keys"][1] == 200 and done["keys"][2] >= 1, "the hung request is answered normally after"
        assert answered < done["keys"][0], "the loop answered while the other request hung"
    finally:
        assert s.stop() == 0


def test_faults_from_the_configuration_and_the_cli(understudy_bin):
    s = Server("--faults", json.dumps([{"target": "keys", "fault": "500", "count": 1}]))
    try:
        assert requests.get(f"{s.http}/apple/auth/keys", timeout=10).status_code == 500
        assert requests.get(f"{s.http}/apple/auth/keys", timeout=10).status_code == 200
        run = lambda *a: subprocess.run([understudy_bin, "fault", *a, "--server", s.http], capture_output=True, text=True, timeout=60)
        added = run("add", "keys", "503", "--provider", "google", "--count", "1")
        assert added.returncode == 0 and "keys\t503\tgoogle\tremaining 1" in added.stdout, added.stderr
        assert "503" in run("list").stdout
        assert run("clear").returncode == 0 and run("list").stdout == "no faults in force\n"
        bad = run("add", "keys", "404")
        assert bad.returncode == 64 and "fault must be one of" in bad.stderr
    finally:
        assert s.stop() == 0


def test_the_real_host_paths_meet_the_same_faults(server):
    add(server, target="keys", fault="503", provider="google", count=1)
    r = requests.get(f"{server.http}/oauth2/v1/certs", headers={"Host": "www.googleapis.com"}, timeout=10)
    assert r.status_code == 503 and r.headers["X-Understudy-Fault"] == "503"
    again = requests.get(f"{server.http}/oauth2/v1/certs", headers={"Host": "www.googleapis.com"}, timeout=10)
    assert again.status_code == 200 and again.json()
