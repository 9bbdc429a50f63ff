"""The LTI suite's independent platform (tests/lti/platform.py), run for the browser suite.

A student's attempt limit (API.md §8 --rate-limit) counts gradings that name a student, and the
student page names one only when it was launched from an LMS (§11): the browser test launches
it for real. Usage: lti_platform.py WORKDIR TOOL_BASE_URL. Writes WORKDIR/tool.pem (the tool's
key, 0600) and WORKDIR/lti.json (the server's --lti file), prints one JSON line (the login
URL's parameters), serves until its stdin closes.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lti"))
import platform as fake  # noqa: E402  (tests/lti/platform.py, not the standard module)

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402


def main():
    workdir, base = sys.argv[1], sys.argv[2]
    platform = fake.Platform()
    platform.tool_launch_url = base + "/lti/launch"
    platform.tool_jwks_url = base + "/.well-known/jwks.json"
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    key_path = os.path.join(workdir, "tool.pem")
    with open(os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
        f.write(pem)
    config = {"base_url": base, "private_key": key_path, "kid": "tool-key-1",
              "platforms": [{"issuer": platform.issuer, "client_id": platform.client_id,
                             "deployment_ids": [platform.deployment],
                             "auth_login_url": platform.url + "/auth",
                             "auth_token_url": platform.url + "/token",
                             "keyset_url": platform.url + "/jwks"}]}
    config_path = os.path.join(workdir, "lti.json")
    with open(config_path, "w") as f:
        json.dump(config, f)
    # One learner launched into consonant-anywhere; no gradebook column (no score passback).
    platform.launch_claims["page-student"] = {
        "message_hint": "mh-page",
        "token": lambda p, nonce: p.sign(p.claims(nonce, sub="page-student", lineitem=False))}
    print(json.dumps({"config": config_path, "iss": platform.issuer,
                      "client_id": platform.client_id, "lti_deployment_id": platform.deployment,
                      "login_hint": "page-student", "lti_message_hint": "mh-page"}), flush=True)
    sys.stdin.read()
    platform.close()


if __name__ == "__main__":
    main()
