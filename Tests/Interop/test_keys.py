"""Key rotation: the endpoints follow at once, and the rotated keys persist with --data for the
server and for the offline commands pointed at the same data."""
import os
import subprocess
import tempfile

import jwt
import requests

from conftest import Server

GOOGLE_AUD = "123456789012-understudyweb.apps.googleusercontent.com"


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)


def test_rotation_is_served_at_once_and_persists_for_offline_mint(understudy_bin):
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "store")
        server = Server("--data", data, "--tokens-rotation-grace", "0")
        try:
            before = requests.get(f"{server.http}/api/keys", timeout=10).json()["google"]
            previous = before[0]["kid"]
            rotated = run(understudy_bin, "keys", "rotate", "google", "--server", server.http)
            assert rotated.returncode == 0, rotated.stderr
            new = rotated.stdout.split("\n")[0].split("\t")[2]
            v3 = [k["kid"] for k in requests.get(f"{server.http}/google/oauth2/v3/certs", timeout=10).json()["keys"]]
            v1 = requests.get(f"{server.http}/google/oauth2/v1/certs", timeout=10).json()
            assert v3[0] == new and previous not in v3 and new in v1 and previous not in v1
            states = {k["kid"]: k["state"] for k in requests.get(f"{server.http}/api/keys", timeout=10).json()["google"]}
            assert states[new] == "active" and states[previous] == "retired"

            # Offline, with the same data: the rotated key signs, and the server's JWKS verifies it.
            offline = run(understudy_bin, "mint", "google", "--data", data)
            assert offline.returncode == 0, offline.stderr
            token = offline.stdout.strip()
            assert jwt.get_unverified_header(token)["kid"] == new
            key = jwt.PyJWKClient(f"{server.http}/google/oauth2/v3/certs").get_signing_key_from_jwt(token)
            jwt.decode(token, key.key, algorithms=["RS256"], audience=GOOGLE_AUD)
            retired = run(understudy_bin, "mint", "google", "--data", data, "--scenario", "signed-with-retired-key").stdout.strip()
            assert jwt.get_unverified_header(retired)["kid"] == previous
            listed = run(understudy_bin, "keys", "list", "--data", data).stdout
            assert f"google\t{new}\tactive" in listed and f"google\t{previous}\tretired" in listed
        finally:
            assert server.stop() == 0
        # Offline, while no server runs, with the same data.
        offline_rotation = run(understudy_bin, "keys", "rotate", "apple", "--data", data, "--tokens-rotation-grace", "0")
        assert offline_rotation.returncode == 0, offline_rotation.stderr
        apple_new = offline_rotation.stdout.split("\n")[0].split("\t")[2]
        # A restarted server serves the rotated sets.
        again = Server("--data", data)
        try:
            v3 = [k["kid"] for k in requests.get(f"{again.http}/google/oauth2/v3/certs", timeout=10).json()["keys"]]
            assert v3[0] == new and previous not in v3
            apple = [k["kid"] for k in requests.get(f"{again.http}/apple/auth/keys", timeout=10).json()["keys"]]
            assert apple_new in apple and len(apple) == 3
        finally:
            assert again.stop() == 0


def test_rotation_keeps_the_previous_key_through_the_grace():
    # Its own server: the session's keeps the key set other tests count.
    server = Server()
    try:
        check_grace(server)
    finally:
        assert server.stop() == 0


def check_grace(server):
    before = requests.get(f"{server.http}/apple/auth/keys", timeout=10).json()["keys"]
    r = requests.post(f"{server.http}/api/keys/apple/rotate", timeout=60)
    assert r.status_code == 200, r.text
    body = r.json()
    kids = [k["kid"] for k in requests.get(f"{server.http}/apple/auth/keys", timeout=10).json()["keys"]]
    assert body["active"] in kids and body["previous"] in kids and len(kids) == len(before) + 1
    token = requests.post(f"{server.http}/api/tokens/apple", json={}, timeout=10).json()["idToken"]
    assert jwt.get_unverified_header(token)["kid"] == body["active"]
    assert requests.post(f"{server.http}/api/keys/azure/rotate", timeout=10).status_code == 404
