"""The inspector from the API and the CLI: a scenario's token is recognised, garbage gets a 400."""
import subprocess

import requests


def test_api_inspects_a_scenario_token_and_refuses_garbage(server):
    minted = requests.post(f"{server.http}/api/tokens/google", json={"scenario": "expired"}, timeout=10).json()
    r = requests.post(f"{server.http}/api/tokens/inspect", json={"token": minted["idToken"], "rawNonce": minted["rawNonce"]}, timeout=10)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["scenario"] == "expired" and report["timeStatus"] == "expired"
    assert report["signature"]["valid"] is True and report["provider"] == "google"
    assert report["nonce"]["matches"] == "hashed"
    assert report["times"]["exp"]["relative"].endswith("ago") and report["times"]["exp"]["iso8601"].endswith("Z")
    for garbage, says in [("nope", "1 part"), (minted["idToken"] + ".", "4 parts")]:
        bad = requests.post(f"{server.http}/api/tokens/inspect", json={"token": garbage}, timeout=10)
        assert bad.status_code == 400 and says in bad.json()["message"], bad.text
    assert requests.post(f"{server.http}/api/tokens/inspect", json={"jwt": "x"}, timeout=10).status_code == 400


def test_cli_inspects_offline_and_through_the_server(server, understudy_bin):
    token = subprocess.run([understudy_bin, "mint", "apple", "--scenario", "alg-none"], capture_output=True, text=True,
                           check=True, timeout=60).stdout.strip()
    offline = subprocess.run([understudy_bin, "inspect", token], capture_output=True, text=True, timeout=60)
    assert offline.returncode == 0 and offline.stdout.startswith("scenario    alg-none"), offline.stdout + offline.stderr
    online = subprocess.run([understudy_bin, "inspect", token, "--server", server.http, "--json"], capture_output=True,
                            text=True, timeout=60)
    assert '"scenario":"alg-none"' in online.stdout
    garbage = subprocess.run([understudy_bin, "inspect", "a.b"], capture_output=True, text=True, timeout=60)
    assert garbage.returncode == 1 and "2 parts" in garbage.stderr
