#!/usr/bin/python3
"""Validates real answers of the real server against docs/openapi.json (OpenAPI 3.1).

Starts headgrader-server (with a keys file made by `headgrader keys add`, on a copy of the
bundled problems), sends requests that reach every documented route, and checks each answer's
status is documented for its route and method and its JSON body matches the documented schema
(JSON Schema 2020-12, with Debian's python3-jsonschema). Also checks that every documented
route and method was exercised, and that the server serves the same document it is built from.

usage: openapi_check.py SERVER_BIN CLI_BIN SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import jsonschema


def main():
    server_bin, cli_bin, source = sys.argv[1:4]
    with open(os.path.join(source, "docs", "openapi.json"), encoding="utf-8") as f:
        doc = json.load(f)
    jsonschema.Draft202012Validator.check_schema(doc["components"]["schemas"]["Grade"])
    work = tempfile.mkdtemp(prefix="headgrader-openapi-")
    try:
        shutil.copytree(os.path.join(source, "problems"), os.path.join(work, "problems"),
                        ignore=shutil.ignore_patterns("schema", "*.md"))
        keys = os.path.join(work, "keys.json")

        def add_key(name, role):
            return subprocess.run([cli_bin, "keys", "add", "--keys", keys, "--name", name,
                                   "--role", role], check=True, capture_output=True,
                                  text=True).stdout.strip()

        staff, lms = add_key("ta", "staff"), add_key("canvas", "lms")
        store = os.path.join(work, "records.db")
        # An LTI tool too (§11), registered with a platform that is never reached.
        subprocess.run([cli_bin, "lti", "keygen", "--out", os.path.join(work, "tool.pem")],
                       check=True, capture_output=True)
        with open(os.path.join(work, "lti.json"), "w", encoding="utf-8") as f:
            json.dump({"base_url": "http://127.0.0.1:1", "private_key": "tool.pem", "kid": "k1",
                       "platforms": [{"issuer": "https://lms.example", "client_id": "c1",
                                      "deployment_ids": ["d1"],
                                      "auth_login_url": "http://127.0.0.1:1/auth",
                                      "auth_token_url": "http://127.0.0.1:1/token",
                                      "keyset_url": "http://127.0.0.1:1/jwks"}]}, f)
        args = [server_bin, "--port", "0", "--address", "127.0.0.1", "--problems",
                os.path.join(work, "problems"), "--keys", keys, "--lti",
                os.path.join(work, "lti.json"), "--lti-allow-http"]
        if os.environ.get("HEADGRADER_OPENAPI_STORE", "1") == "1":
            args += ["--store", "sqlite:" + store]
        server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, cwd=work)
        try:
            line = server.stdout.readline()
            if not line.startswith("listening on http://"):
                sys.exit("server did not start: " + line)
            base = line.split()[-1].strip()
            failures = check_routes(doc, base, staff, lms, work)
        finally:
            server.terminate()
            server.wait(timeout=10)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        for failure in failures:
            print("FAIL", failure)
        sys.exit(1)
    print("every answer matches docs/openapi.json")


def request(base, method, path, key=None, body=None, content_type="application/json"):
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(base + path, data=data, method=method)
    if key:
        req.add_header("Authorization", "Bearer " + key)
    if data is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def template_of(doc, path):
    """The documented path template that a concrete path matches (fixed paths first)."""
    parts = path.split("?")[0].strip("/").split("/")
    best = None
    for template in doc["paths"]:
        t = template.strip("/").split("/")
        if len(t) != len(parts):
            continue
        if all(a == b or (a.startswith("{") and a.endswith("}")) for a, b in zip(t, parts)):
            fixed = sum(1 for a in t if not a.startswith("{"))
            if best is None or fixed > best[0]:
                best = (fixed, template)
    return best[1] if best else None


def schema_for(doc, response):
    if "$ref" in response:
        response = doc["components"]["responses"][response["$ref"].split("/")[-1]]
    content = response.get("content", {})
    for media, value in content.items():
        if media.startswith("application/json"):
            return value["schema"], response
    return None, response


def check_routes(doc, base, staff, lms, work):
    with open(os.path.join(work, "problems", "consonant-anywhere.json"), encoding="utf-8") as f:
        problem = f.read()
    copy = problem.replace('"consonant-anywhere"', '"copy-one"')
    # A draft without its reference: invalid, but previewable and solvable.
    draft = json.dumps({k: v for k, v in json.loads(problem).items() if k != "reference"})
    good = '{"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]], "student": "s1"}'
    soft = '{"W_q": [[1, 1]], "W_k": [[0, 2]], "W_V": [[1, 0], [0, 1]], "student": "s2"}'
    calls = [
        ("GET", "/healthz", None, None),
        ("GET", "/readyz", None, None),
        ("GET", "/metrics", staff, None),
        ("GET", "/metrics", None, None),
        ("GET", "/metrics", lms, None),
        ("GET", "/v1/openapi.json", None, None),
        ("GET", "/v1/problems", None, None),
        ("GET", "/v1/problems/first-position", None, None),
        ("GET", "/v1/problems/no-such", None, None),
        ("POST", "/v1/problems/consonant-anywhere/grade", lms, good),
        ("POST", "/v1/problems/consonant-anywhere/grade", staff, soft),
        ("POST", "/v1/problems/consonant-anywhere/grade", None, good),
        ("POST", "/v1/problems/consonant-anywhere/grade", lms, '{"W_q": [[1]]}'),
        ("GET", "/v1/problems/status", staff, None),
        ("GET", "/v1/problems/status", lms, None),
        ("POST", "/v1/problems/validate", staff, problem),
        ("POST", "/v1/problems/validate", staff, '{"id": "x"}'),
        ("POST", "/v1/problems/validate", staff, draft),
        ("POST", "/v1/problems/solve?seconds=5", staff, draft),
        ("POST", "/v1/problems/solve?seconds=0", staff, draft),
        ("POST", "/v1/problems/solve", staff, '{"id": "x"}'),
        ("POST", "/v1/problems/solve", lms, draft),
        ("PUT", "/v1/problems/copy-one", staff, copy),
        ("PUT", "/v1/problems/copy-one", staff, copy),
        ("PUT", "/v1/problems/copy-one", staff, '{"id": "copy-one"}'),
        ("DELETE", "/v1/problems/copy-one", staff, None),
        ("DELETE", "/v1/problems/copy-one", staff, None),
        ("GET", "/v1/submissions?limit=1", staff, None),
        ("GET", "/v1/submissions.csv", staff, None),
        ("GET", "/v1/students.csv", staff, None),
        ("GET", "/v1/students.csv?problem=consonant-anywhere", staff, None),
        ("GET", "/v1/students.csv?student=x", staff, None),
        ("GET", "/v1/problems/consonant-anywhere/stats", staff, None),
        ("POST", "/v1/problems/consonant-anywhere/regrade?dry_run=true", staff, "{}"),
        ("POST", "/v1/problems/consonant-anywhere/regrade?dry_run=maybe", staff, "{}"),
        ("POST", "/v1/problems/consonant-anywhere/regrade", staff, "{}"),
        ("GET", "/v1/problems/consonant-anywhere/integrity", staff, None),
        ("GET", "/v1/problems/consonant-anywhere/integrity", lms, None),
        ("GET", "/v1/passback", staff, None),
        ("GET", "/v1/passback?status=failed", staff, None),
        ("GET", "/v1/passback?status=sideways", staff, None),
        ("GET", "/v1/passback", lms, None),
        ("POST", "/v1/passback/no-such/retry", staff, ""),
        ("DELETE", "/v1/students/nobody-here", lms, None),
        ("DELETE", "/v1/students/nobody-here", staff, None),
        ("DELETE", "/v1/students/nobody-here", None, None),
        ("GET", "/v1/audit?limit=1", staff, None),
        ("GET", "/v1/audit?limit=0", staff, None),
        ("GET", "/v1/audit", lms, None),
        ("GET", "/.well-known/jwks.json", None, None),
        # Logins and launches that fail their first check: 401 pages.
        ("GET", "/lti/login", None, None),
        ("POST", "/lti/login", None, ("form", "iss=https%3A%2F%2Fother.example")),
        ("POST", "/lti/launch", None, ("form", "id_token=x&state=y")),
    ]
    failures, seen = [], set()
    submission_id = None
    for method, path, key, body in calls:
        content_type = "application/json"
        if isinstance(body, tuple):
            content_type, body = "application/x-www-form-urlencoded", body[1]
        status, headers, raw = request(base, method, path, key, body, content_type)
        failures += check_one(doc, method, path, status, headers, raw, seen)
        if path.endswith("/grade") and status == 200:
            submission_id = json.loads(raw).get("submission_id", submission_id)
    if submission_id:
        status, headers, raw = request(base, "GET", "/v1/submissions/" + submission_id, staff)
        failures += check_one(doc, "GET", "/v1/submissions/" + submission_id, status, headers,
                              raw, seen)
    else:
        failures.append("no grade answer carried a submission_id")
    for template, item in doc["paths"].items():
        for method in item:
            if method in ("get", "post", "put", "delete") and (template, method) not in seen:
                failures.append(f"{method.upper()} {template} was never exercised")
    return failures


def check_one(doc, method, path, status, headers, raw, seen):
    template = template_of(doc, path)
    if template is None:
        return [f"{method} {path}: not documented"]
    operation = doc["paths"][template].get(method.lower())
    if operation is None:
        return [f"{method} {path}: method not documented"]
    seen.add((template, method.lower()))
    response = operation["responses"].get(str(status))
    if response is None:
        return [f"{method} {path}: status {status} not documented ({raw[:200]!r})"]
    schema, response = schema_for(doc, response)
    failures = []
    for header, spec in response.get("headers", {}).items():
        value = next((v for k, v in headers.items() if k.lower() == header.lower()), None)
        if value is None:
            failures.append(f"{method} {path}: {status} without {header}")
    if schema is None:
        return failures
    if "json" not in headers.get("Content-Type", ""):
        return failures + [f"{method} {path}: {status} is not JSON"]
    body = json.loads(raw)
    resolver = jsonschema.RefResolver.from_schema(doc)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    for error in validator.iter_errors(body):
        failures.append(f"{method} {path} {status}: {error.message} at {list(error.path)}")
    if template == "/v1/openapi.json" and status == 200 and body != doc:
        failures.append("GET /v1/openapi.json differs from docs/openapi.json")
    return failures


if __name__ == "__main__":
    main()
