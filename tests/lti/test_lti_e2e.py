"""End to end against the real headgrader-server and the fake platform (platform.py).

  /usr/bin/python3 tests/lti/test_lti_e2e.py BUILD_DIR

login -> platform auth -> launch -> page -> grading -> exactly one score at the platform (also
when the platform fails first), key rotation, the deep-linking round trip, and each attack
refused with its check named in the page and in the server's log (and never the token).
LtiWithTheRecord: the same on the submission record's store (a real SQLite file): a score that
survives kill -9 of the server and reaches the platform once, the staff's passback routes, the
record naming the launch, and two servers on one store sharing tokens and single-use values.
"""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import platform as fake  # noqa: E402  (tests/lti/platform.py, not the standard module)

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
SERVER = os.path.join(BUILD, "server", "headgrader-server")
CLI = os.path.join(BUILD, "cli", "headgrader")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBLEM = "consonant-anywhere"
SOLUTION = '{"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}'  # the handout's
WRONG = '{"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]]}'


TRUSTED = {}  # the TLS context for https:// URLs of the test platforms


def request(url, method="GET", body=None, headers=None):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=30,
                                                 context=TRUSTED["context"])
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    target = parts.path + ("?" + parts.query if parts.query else "")
    connection.request(method, target, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read().decode()
    connection.close()
    return response.status, response.getheaders(), data


def header(headers, name):
    return [value for key, value in headers if key.lower() == name.lower()]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Tool:
    """The real server as an LTI tool registered with `platform`."""

    def __init__(self, platform, workdir, env=None, extra=(), port=None, backoff_ms=200,
                 store=None, problems=None):
        self.port = port or free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        key = os.path.join(workdir, "tool.pem")
        if not os.path.exists(key):
            out = subprocess.run([CLI, "lti", "keygen", "--out", key], capture_output=True, text=True)
            assert out.returncode == 0, out.stderr
            assert oct(os.stat(key).st_mode & 0o777) == "0o600"
        config = {"base_url": self.base, "private_key": "tool.pem", "kid": "tool-key-1",
                  "platforms": [{"issuer": platform.issuer, "client_id": platform.client_id,
                                 "deployment_ids": [platform.deployment],
                                 "auth_login_url": platform.url + "/auth",
                                 "auth_token_url": platform.url + "/token",
                                 "keyset_url": platform.url + "/jwks"}]}
        path = os.path.join(workdir, "lti.json")
        with open(path, "w") as f:
            json.dump(config, f)
        platform.tool_launch_url = self.base + "/lti/launch"
        platform.tool_jwks_url = self.base + "/.well-known/jwks.json"
        self.log = []
        self.process = subprocess.Popen(
            [SERVER, "--problems", problems or os.path.join(SOURCE, "problems"),
             "--address", "127.0.0.1",
             "--port", str(self.port), "--threads", "2", "--lti", path, "--lti-allow-http",
             "--lti-keyset-refetch-ms", "0", "--lti-backoff-ms", str(backoff_ms),
             "--store", "sqlite:" + (store or os.path.join(workdir, "record.db"))] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.process.stdout.readline()
        assert "listening on" in line, line + self.process.stderr.read()
        threading.Thread(target=self._read_log, daemon=True).start()

    def _read_log(self):
        for line in self.process.stderr:
            self.log.append(line)

    def kill(self):
        """kill -9: nothing is flushed or finished."""
        self.process.kill()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()

    def refusals(self):
        found = []
        for line in self.log:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if "refused" in entry:
                found.append(entry["refused"])
        return found


class LtiEndToEnd(unittest.TestCase):
    hints = 0  # login hints handed out, across the classes that borrow login()

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="hg-lti-")
        cls.platform = fake.Platform()
        cls.tool = Tool(cls.platform, cls.workdir)
        cls.hints = 0

    @classmethod
    def tearDownClass(cls):
        cls.tool.stop()
        cls.platform.close()

    # --- the browser's part ---------------------------------------------------------------
    def login(self, token=None, message_hint="mh-1", **claims):
        """/lti/login -> the platform's /auth. Returns (form fields the platform posts, cookie)."""
        LtiEndToEnd.hints += 1
        hint = "user-%d" % self.hints
        self.platform.launch_claims[hint] = {
            "message_hint": message_hint,
            "token": token or (lambda p, nonce: p.sign(p.claims(nonce, **claims)))}
        query = urllib.parse.urlencode({
            "iss": self.platform.issuer, "login_hint": hint, "lti_message_hint": message_hint,
            "target_link_uri": self.tool.base + "/lti/launch",
            "client_id": self.platform.client_id, "lti_deployment_id": self.platform.deployment})
        status, headers, _ = request(self.tool.base + "/lti/login?" + query)
        self.assertEqual(status, 302)
        location = header(headers, "Location")[0]
        self.assertTrue(location.startswith(self.platform.url + "/auth?"), location)
        cookie = header(headers, "Set-Cookie")[0]
        self.assertIn("HttpOnly", cookie)
        status, _, page = request(location)
        self.assertEqual(status, 200, self.platform.errors[-1:])
        form = fake.parse_forms(page)[0]
        self.assertEqual(form["action"], self.tool.base + "/lti/launch")
        return form["fields"], cookie.split(";")[0]

    def post_launch(self, fields, cookie=None):
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if cookie:
            headers["Cookie"] = cookie
        return request(self.tool.base + "/lti/launch", "POST", urllib.parse.urlencode(fields),
                       headers)

    def launch(self, **claims):
        fields, cookie = self.login(**claims)
        status, self.last_launch_headers, page = self.post_launch(fields, cookie)
        self.assertEqual(status, 200, page)
        token = re.search(r'<meta name="headgrader-token" content="([^"]+)">', page).group(1)
        return token, page

    def grade(self, token, body=SOLUTION, problem=PROBLEM):
        return request(self.tool.base + "/v1/problems/%s/grade" % problem, "POST", body,
                       {"Content-Type": "application/json", "Authorization": "Bearer " + token})

    def wait_for(self, condition, seconds=15):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if condition():
                return True
            time.sleep(0.05)
        return False

    def assert_refused(self, answer, status, check):
        got_status, _, page = answer
        self.assertEqual(got_status, status, page)
        self.assertIn('<code id="lti-check">%s</code>' % check, page)
        self.assertIn("instructor", page)
        self.assertTrue(self.wait_for(lambda: check in self.tool.refusals(), 5), self.tool.log[-3:])

    # --- the happy path -----------------------------------------------------------------
    def test_launch_grade_and_exactly_one_score_even_when_the_platform_fails_first(self):
        self.platform.fail_next = 2
        token, page = self.launch(sub="happy-student")
        self.assertIn("Ada Lovelace", page)
        self.assertIn('<meta name="headgrader-problem" content="%s">' % PROBLEM, page)
        # It is the student page of §10 itself, under the page's Content-Security-Policy.
        self.assertIn('<script type="module" src="/static/app.js"></script>', page)
        self.assertIn('id="signed-in"', page)
        self.assertIn("script-src 'self'", header(self.last_launch_headers, "Content-Security-Policy")[0])
        status, _, answer = self.grade(token)
        self.assertEqual(status, 200, answer)
        self.assertEqual(json.loads(answer)["score"], 1.0)
        mine = lambda: [s for s in self.platform.scores if s[1]["userId"] == "happy-student"]
        self.assertTrue(self.wait_for(lambda: len(mine()) == 1), self.platform.score_attempts)
        time.sleep(1.0)  # nothing more arrives
        self.assertEqual(len(mine()), 1)
        path, score = mine()[0]
        self.assertEqual(path, "/lineitems/7/lineitem/scores?type_id=3")
        self.assertEqual(score["scoreGiven"], 1.0)
        self.assertEqual(score["scoreMaximum"], 1)
        self.assertEqual(score["activityProgress"], "Completed")
        self.assertEqual(score["gradingProgress"], "FullyGraded")
        # The two failed attempts sent the same timestamp as the one taken.
        attempts = [json.loads(b) for s, b in self.platform.score_attempts
                    if json.loads(b)["userId"] == "happy-student"]
        self.assertEqual(len(attempts), 3)
        self.assertEqual({a["timestamp"] for a in attempts}, {score["timestamp"]})
        for line in self.tool.log:
            self.assertNotIn(token, line)

    def test_a_failing_grading_sends_its_own_score(self):
        token, _ = self.launch(sub="weak-student")
        status, _, answer = self.grade(token, WRONG)
        self.assertEqual(status, 200, answer)
        expected = json.loads(answer)["score"]
        self.assertLess(expected, 1.0)
        mine = lambda: [s for s in self.platform.scores if s[1]["userId"] == "weak-student"]
        self.assertTrue(self.wait_for(lambda: len(mine()) == 1))
        self.assertEqual(mine()[0][1]["scoreGiven"], expected)

    def test_a_revoked_access_token_is_renewed_once(self):
        token, _ = self.launch(sub="revoked-student")
        self.platform.tokens.clear()
        self.assertEqual(self.grade(token)[0], 200)
        mine = lambda: [s for s in self.platform.scores if s[1]["userId"] == "revoked-student"]
        self.assertTrue(self.wait_for(lambda: len(mine()) == 1), self.platform.errors)

    def test_a_score_refused_with_a_4xx_is_marked_failed_and_not_retried(self):
        token, _ = self.launch(sub="refused-student")
        self.platform.fail_status = 400
        try:
            self.assertEqual(self.grade(token)[0], 200)
            self.assertTrue(self.wait_for(lambda: any(
                "failed: the scores endpoint answered 400" in line for line in self.tool.log)))
            time.sleep(1.0)  # well past the first back-off: no second attempt
            attempts = [s for s, b in self.platform.score_attempts
                        if json.loads(b)["userId"] == "refused-student"]
            self.assertEqual(attempts, [400])
        finally:
            self.platform.fail_status = None

    def test_key_rotation_is_followed(self):
        self.launch(sub="before-rotation")
        fetches = self.platform.jwks_fetches
        self.platform.rotate()
        self.launch(sub="after-rotation")
        self.assertEqual(self.platform.jwks_fetches, fetches + 1)

    def test_deep_linking_round_trip(self):
        settings = {"deep_link_return_url": self.platform.url + "/deeplink/return",
                    "accept_types": ["ltiResourceLink"], "data": "opaque-42"}
        fields, cookie = self.login(
            message_type="LtiDeepLinkingRequest",
            **{"https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": settings})
        status, _, page = self.post_launch(fields, cookie)
        self.assertEqual(status, 200, page)
        choices = {f["fields"]["problem"]: f for f in fake.parse_forms(page)}
        self.assertIn(PROBLEM, choices)
        choice = choices[PROBLEM]
        status, _, page = request(self.tool.base + choice["action"], "POST",
                                  urllib.parse.urlencode(choice["fields"]),
                                  {"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(status, 200, page)
        back = fake.parse_forms(page)[0]
        self.assertEqual(back["action"], settings["deep_link_return_url"])
        status, _, _ = request(back["action"], "POST", urllib.parse.urlencode(back["fields"]),
                               {"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(status, 200, self.platform.errors[-1:])
        claims = self.platform.deep_link_responses[-1]
        self.assertEqual(claims[fake.CLAIM + "message_type"], "LtiDeepLinkingResponse")
        self.assertEqual(claims[fake.CLAIM + "deployment_id"], self.platform.deployment)
        self.assertEqual(claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"], "opaque-42")
        item = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"][0]
        self.assertEqual(item["type"], "ltiResourceLink")
        self.assertEqual(item["custom"], {"problem": PROBLEM})
        self.assertEqual(item["lineItem"]["scoreMaximum"], 1)
        # The choice is single use: posting it again is refused.
        status, _, _ = request(self.tool.base + choice["action"], "POST",
                               urllib.parse.urlencode(choice["fields"]),
                               {"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(status, 401)

    def test_the_tools_jwks(self):
        status, headers, body = request(self.tool.base + "/.well-known/jwks.json")
        self.assertEqual(status, 200)
        (key,) = json.loads(body)["keys"]
        self.assertEqual(list(key), ["kty", "alg", "use", "kid", "n", "e"])
        self.assertEqual((key["kty"], key["alg"], key["use"], key["kid"]),
                         ("RSA", "RS256", "sig", "tool-key-1"))

    def test_a_launch_without_the_state_cookie_still_works(self):
        # An LMS iframe that blocks third-party cookies: the signed single-use state suffices.
        fields, _ = self.login(sub="no-cookie")
        self.assertEqual(self.post_launch(fields, cookie=None)[0], 200)

    # --- attacks ------------------------------------------------------------------------
    def test_forged_signature(self):
        from cryptography.hazmat.primitives.asymmetric import rsa
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        fields, cookie = self.login(token=lambda p, n: p.sign(p.claims(n), key=other))
        self.assert_refused(self.post_launch(fields, cookie), 401, "signature")

    def test_alg_none(self):
        fields, cookie = self.login(token=lambda p, n: fake.alg_none(p, p.claims(n)))
        self.assert_refused(self.post_launch(fields, cookie), 401, "alg")

    def test_hs256_keyed_with_the_public_key(self):
        fields, cookie = self.login(token=lambda p, n: fake.hs256_with_public_key(p, p.claims(n)))
        self.assert_refused(self.post_launch(fields, cookie), 401, "alg")

    def test_expired(self):
        def expired(p, nonce):
            claims = p.claims(nonce)
            claims["iat"], claims["exp"] = int(time.time()) - 600, int(time.time()) - 120
            return p.sign(claims)
        fields, cookie = self.login(token=expired)
        self.assert_refused(self.post_launch(fields, cookie), 401, "exp")

    def test_wrong_audience(self):
        fields, cookie = self.login(aud="some-other-tool")
        self.assert_refused(self.post_launch(fields, cookie), 401, "aud")

    def test_replayed_id_token(self):
        fields, cookie = self.login()
        self.assertEqual(self.post_launch(fields, cookie)[0], 200)
        # The same post again: its state is used up.
        self.assert_refused(self.post_launch(fields, cookie), 401, "state")
        # The old id_token with a fresh login's state: the nonce is not that login's.
        fresh, fresh_cookie = self.login()
        self.assert_refused(
            self.post_launch({"id_token": fields["id_token"], "state": fresh["state"]}, fresh_cookie),
            401, "nonce")

    def test_wrong_state(self):
        fields, cookie = self.login()
        forged = dict(fields, state=fields["state"][:-2] + "AA")
        self.assert_refused(self.post_launch(forged, None), 401, "state")
        # A genuine state, but not the one this browser's cookie holds.
        other, _ = self.login()
        name = cookie.split("=")[0]
        self.assert_refused(self.post_launch(fields, name + "=" + other["state"]), 401, "state")

    def test_unknown_deployment(self):
        fields, cookie = self.login(**{fake.CLAIM + "deployment_id": "dep-unknown"})
        self.assert_refused(self.post_launch(fields, cookie), 403, "deployment_id")

    def test_student_token_for_another_problem(self):
        token, _ = self.launch(sub="one-problem-student")
        status, headers, body = self.grade(token, problem="first-position")
        self.assertEqual(status, 403, body)
        self.assertEqual(json.loads(body)["error"]["code"], "forbidden")
        status, headers, body = self.grade("not-a-token")
        self.assertEqual(status, 401)
        self.assertEqual(header(headers, "WWW-Authenticate"), ["Bearer"])


    def test_an_anonymous_body_cannot_name_a_launched_student(self):
        # Open grading (no --keys): anyone may grade, but a launched student's identity
        # (ISSUER#sub) is the launch's to grant, never a body's.
        token, _ = self.launch(sub="victim-student")
        self.assertEqual(self.grade(token)[0], 200)
        victim = self.platform.issuer + "#victim-student"
        for student in (victim, victim.upper().replace("#VICTIM-STUDENT", "#victim-student"),
                        "https://lms.example.edu#42", "http://elsewhere#x"):
            body = json.dumps(dict(json.loads(SOLUTION), student=student))
            status, _, answer = request(self.tool.base + "/v1/problems/%s/grade" % PROBLEM,
                                        "POST", body, {"Content-Type": "application/json"})
            self.assertEqual(status, 403, (student, answer))
            error = json.loads(answer)["error"]
            self.assertEqual((error["code"], error["field"]), ("forbidden", "student"), answer)
            self.assertIn("launch", error["message"])
        # Any other name is the caller's to choose, as before.
        body = json.dumps(dict(json.loads(SOLUTION), student="ada#1 from http://x"))
        status, _, answer = request(self.tool.base + "/v1/problems/%s/grade" % PROBLEM, "POST",
                                    body, {"Content-Type": "application/json"})
        self.assertEqual(status, 200, answer)


class LtiOverHttps(unittest.TestCase):
    """Platform URLs over HTTPS: the tool verifies the certificate and the host name."""

    def test_a_trusted_certificate_for_the_host_passes_and_another_name_fails(self):
        import ssl
        workdir = tempfile.mkdtemp(prefix="hg-lti-tls-")
        good = fake.self_signed_certificate(workdir, "localhost")
        wrong = fake.self_signed_certificate(workdir, "wrong.example")
        bundle = os.path.join(workdir, "trusted.pem")
        with open(bundle, "w") as out:
            for path in (good[0], wrong[0]):
                with open(path) as certificate:
                    out.write(certificate.read())
        context = ssl.create_default_context(cafile=bundle)
        context.check_hostname = False  # the browser's side is not under test here
        TRUSTED["context"] = context
        env = dict(os.environ, SSL_CERT_FILE=bundle)
        for cert, works in ((good, True), (wrong, False)):
            platform = fake.Platform(tls=cert)
            tool = Tool(platform, tempfile.mkdtemp(prefix="hg-lti-tls-", dir=workdir), env=env)
            try:
                case = LtiEndToEnd(methodName="test_the_tools_jwks")
                case.platform, case.tool = platform, tool
                fields, cookie = case.login(sub="tls-student")
                status, _, page = case.post_launch(fields, cookie)
                if works:
                    self.assertEqual(status, 200, page)
                    self.assertEqual(platform.jwks_fetches, 1)
                else:
                    self.assertEqual(status, 401, page)
                    self.assertIn('<code id="lti-check">keyset</code>', page)
                    self.assertEqual(platform.jwks_fetches, 0)
            finally:
                tool.stop()
                platform.close()


class LtiWithTheRecord(unittest.TestCase):
    """The tool on the submission record's store, with a staff key (API.md §7, §8, §11)."""

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="hg-lti-record-")
        cls.keys = os.path.join(cls.workdir, "keys")
        out = subprocess.run([CLI, "keys", "add", "--keys", cls.keys, "--name", "ta", "--role",
                              "staff"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        cls.staff = out.stdout.strip()
        out = subprocess.run([CLI, "keys", "add", "--keys", cls.keys, "--name", "lms", "--role",
                              "lms"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        cls.lms = out.stdout.strip()
        cls.platform = fake.Platform()
        # The bundled problems and one whose gradebook keeps the latest score.
        cls.problems = os.path.join(cls.workdir, "problems")
        os.mkdir(cls.problems)
        with open(os.path.join(SOURCE, "problems", PROBLEM + ".json")) as f:
            problem = json.load(f)
        for name in os.listdir(os.path.join(SOURCE, "problems")):
            if name.endswith(".json"):
                with open(os.path.join(SOURCE, "problems", name)) as f, \
                        open(os.path.join(cls.problems, name), "w") as out:
                    out.write(f.read())
        problem.update({"id": "consonant-latest", "passback": "latest"})
        with open(os.path.join(cls.problems, "consonant-latest.json"), "w") as out:
            json.dump(problem, out)
        # A back-off long enough that kill -9 comes between two attempts, never during one.
        cls.tool = Tool(cls.platform, cls.workdir, extra=["--keys", cls.keys], backoff_ms=3000,
                        problems=cls.problems)

    @classmethod
    def tearDownClass(cls):
        cls.tool.stop()
        cls.platform.close()

    def setUp(self):
        # The launch helpers of LtiEndToEnd, on this class's tool.
        self.case = LtiEndToEnd(methodName="test_the_tools_jwks")
        self.case.platform, self.case.tool = self.platform, self.tool

    def staff_get(self, path, tool=None):
        status, _, body = request((tool or self.tool).base + path,
                                  headers={"Authorization": "Bearer " + self.staff})
        return status, body

    def passback_of(self, submission_id):
        status, body = self.staff_get("/v1/passback")
        self.assertEqual(status, 200, body)
        return [item for item in json.loads(body)["passback"]
                if item["submission_id"] == submission_id]

    def scores_of(self, sub):
        return [s for s in self.platform.scores if s[1]["userId"] == sub]

    def test_a_score_survives_kill_9_and_reaches_the_lms_exactly_once(self):
        self.platform.fail_status = 503  # the LMS is down
        try:
            token, _ = self.case.launch(sub="crash-student")
            status, _, answer = self.case.grade(token)
            self.assertEqual(status, 200, answer)
            submission = json.loads(answer)["submission_id"]
            attempted = lambda: [b for s, b in self.platform.score_attempts
                                 if json.loads(b)["userId"] == "crash-student"]
            self.assertTrue(self.case.wait_for(lambda: len(attempted()) == 1))
            self.assertTrue(self.case.wait_for(
                lambda: self.passback_of(submission)[0]["attempts"] == 1))
            self.tool.kill()
        finally:
            self.platform.fail_status = None
        self.assertEqual(self.scores_of("crash-student"), [])
        # The same store, the same address: the queued score is still there and goes out.
        type(self).tool = Tool(self.platform, self.workdir, extra=["--keys", self.keys],
                               port=self.tool.port, backoff_ms=3000, problems=self.problems)
        self.case.tool = self.tool
        self.assertTrue(self.case.wait_for(lambda: len(self.scores_of("crash-student")) == 1, 20))
        time.sleep(1.0)  # nothing more arrives
        self.assertEqual(len(self.scores_of("crash-student")), 1)
        (item,) = self.passback_of(submission)
        self.assertEqual((item["status"], item["attempts"], item["last_status"]), ("sent", 2, 200))
        self.assertEqual(self.scores_of("crash-student")[0][1]["scoreGiven"], 1.0)

    def test_the_record_names_the_student_and_the_launch(self):
        token, _ = self.case.launch(sub="recorded-student")
        status, _, answer = self.case.grade(token, WRONG)
        self.assertEqual(status, 200, answer)
        submission = json.loads(answer)["submission_id"]
        status, body = self.staff_get("/v1/submissions/" + submission)
        self.assertEqual(status, 200, body)
        record = json.loads(body)
        self.assertEqual(record["student"], self.platform.issuer + "#recorded-student")
        self.assertEqual(record["lms"], {"context": "course-42",
                                         "resource_link": "link-" + PROBLEM})
        self.assertEqual(record["score"], json.loads(answer)["score"])

    def test_the_gradebook_gets_the_best_score_unless_the_problem_says_latest(self):
        wrong = None
        for sub, problem in (("best-student", PROBLEM), ("latest-student", "consonant-latest")):
            token, _ = self.case.launch(sub=sub, problem=problem)
            status, _, answer = self.case.grade(token, SOLUTION, problem)
            self.assertEqual((status, json.loads(answer)["score"]), (200, 1.0), answer)
            self.assertTrue(self.case.wait_for(lambda: len(self.scores_of(sub)) == 1))
            status, _, answer = self.case.grade(token, WRONG, problem)
            self.assertEqual(status, 200, answer)
            wrong = json.loads(answer)["score"]
            self.assertLess(wrong, 1.0)
            self.assertTrue(self.case.wait_for(lambda: len(self.scores_of(sub)) == 2))
            sent = [score["scoreGiven"] for _, score in self.scores_of(sub)]
            # "best" (the default) sends the best so far again; "latest" sends what came.
            self.assertEqual(sent, [1.0, 1.0] if problem == PROBLEM else [1.0, wrong], sub)

    def test_overlapping_gradings_never_leave_the_gradebook_below_the_best(self):
        # A passing grading and failing ones of one student sent at once (a double click, two
        # tabs, a deadline rush) commit in some order; the platform keeps the score with the
        # latest timestamp (AGS), and that one must be the best committed: 1.0. Six students
        # with six gradings each, so that a failing grading stamped after the passing one
        # (which, read before the passing one committed, would send its own score) is all but
        # certain in some round; equal timestamps would leave the platform's choice open.
        students = []
        for n in range(6):
            sub = "overlap-student-%d" % n
            students.append((sub, self.case.launch(sub=sub)[0]))
        answers = {}

        def grade(sub, token, body, i):
            answers[(sub, i)] = self.case.grade(token, body)

        threads = [threading.Thread(target=grade, args=(sub, token, body, i))
                   for sub, token in students
                   for i, body in enumerate([SOLUTION] + [WRONG] * 5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for which, (status, _, answer) in answers.items():
            self.assertEqual(status, 200, (which, answer))
        for sub, _ in students:
            self.assertTrue(self.case.wait_for(lambda sub=sub: len(self.scores_of(sub)) == 6, 30),
                            sub)
            sent = [score for _, score in self.scores_of(sub)]
            stamps = [score["timestamp"] for score in sent]
            self.assertEqual(len(set(stamps)), len(stamps), (sub, stamps))
            latest = max(sent, key=lambda score: score["timestamp"])
            self.assertEqual(latest["scoreGiven"], 1.0, (sub, sent))

    def test_staff_see_a_refused_score_and_send_it_again_once(self):
        token, _ = self.case.launch(sub="retried-student")
        self.platform.fail_status = 400
        try:
            status, _, answer = self.case.grade(token)
            self.assertEqual(status, 200, answer)
            submission = json.loads(answer)["submission_id"]
            self.assertTrue(self.case.wait_for(
                lambda: [i["status"] for i in self.passback_of(submission)] == ["failed"]))
        finally:
            self.platform.fail_status = None
        (item,) = self.passback_of(submission)
        self.assertEqual((item["attempts"], item["last_status"]), (1, 400))
        status, body = self.staff_get("/v1/passback?status=failed")
        self.assertIn(item["id"], [i["id"] for i in json.loads(body)["passback"]])
        self.assertEqual(self.staff_get("/v1/passback?status=sideways")[0], 400)
        # The query is decoded as a form (the same decoder as every route's): "fail%65d" is
        # "failed"; a broken escape or a status given twice is refused, not guessed.
        status, body = self.staff_get("/v1/passback?status=fail%65d")
        self.assertIn(item["id"], [i["id"] for i in json.loads(body)["passback"]])
        self.assertEqual(self.staff_get("/v1/passback?status=%zz")[0], 400)
        self.assertEqual(self.staff_get("/v1/passback?status=sent&status=failed")[0], 400)
        retry = self.tool.base + "/v1/passback/%s/retry" % urllib.parse.quote(item["id"])
        # Students and anonymous callers may not.
        self.assertEqual(request(retry, "POST", "", {"Authorization": "Bearer " + token})[0], 403)
        self.assertEqual(request(retry, "POST", "")[0], 401)
        status, _, body = request(retry, "POST", "", {"Authorization": "Bearer " + self.staff})
        self.assertEqual(status, 202, body)
        self.assertEqual(json.loads(body), {"id": item["id"], "status": "pending"})
        self.assertTrue(self.case.wait_for(lambda: len(self.scores_of("retried-student")) == 1))
        self.assertTrue(self.case.wait_for(
            lambda: self.passback_of(submission)[0]["status"] == "sent"))
        # Sent is final: a second retry finds no failed score.
        status, _, body = request(retry, "POST", "", {"Authorization": "Bearer " + self.staff})
        self.assertEqual(status, 404, body)
        time.sleep(0.5)
        self.assertEqual(len(self.scores_of("retried-student")), 1)

    def test_no_key_can_grade_as_a_launched_student_nor_spend_their_attempts(self):
        token, _ = self.case.launch(sub="keyed-victim")
        self.assertEqual(self.case.grade(token)[0], 200)
        victim = self.platform.issuer + "#keyed-victim"
        query = "/v1/submissions?student=" + urllib.parse.quote(victim, safe="")
        status, body = self.staff_get(query)
        self.assertEqual(status, 200, body)
        before = len(json.loads(body)["submissions"])
        self.assertEqual(before, 1)
        for key in (self.lms, self.staff):
            body = json.dumps(dict(json.loads(SOLUTION), student=victim))
            status, _, answer = request(self.tool.base + "/v1/problems/%s/grade" % PROBLEM, "POST",
                                        body, {"Content-Type": "application/json",
                                               "Authorization": "Bearer " + key})
            self.assertEqual(status, 403, answer)
            error = json.loads(answer)["error"]
            self.assertEqual((error["code"], error["field"]), ("forbidden", "student"), answer)
        status, body = self.staff_get(query)
        self.assertEqual(len(json.loads(body)["submissions"]), before, body)

    def test_two_servers_on_one_store_share_tokens_and_single_use_values(self):
        launch_url = self.platform.tool_launch_url
        other = Tool(self.platform, tempfile.mkdtemp(prefix="hg-lti-other-", dir=self.workdir),
                     extra=["--keys", self.keys], store=os.path.join(self.workdir, "record.db"),
                     problems=self.problems)
        self.platform.tool_launch_url = launch_url  # launches still go to the first server
        try:
            fields, cookie = self.case.login(sub="shared-student")
            status, _, page = self.case.post_launch(fields, cookie)
            self.assertEqual(status, 200, page)
            token = re.search(r'<meta name="headgrader-token" content="([^"]+)">', page).group(1)
            # The token works on the other server; the same launch posted there is a replay.
            status, _, answer = request(other.base + "/v1/problems/%s/grade" % PROBLEM, "POST",
                                        SOLUTION, {"Content-Type": "application/json",
                                                   "Authorization": "Bearer " + token})
            self.assertEqual(status, 200, answer)
            headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
            status, _, page = request(other.base + "/lti/launch", "POST",
                                      urllib.parse.urlencode(fields), headers)
            self.assertEqual(status, 401, page)
            self.assertIn('<code id="lti-check">state</code>', page)
            # Its score is queued once, whichever server sends it.
            self.assertTrue(self.case.wait_for(lambda: len(self.scores_of("shared-student")) == 1))
            time.sleep(1.0)
            self.assertEqual(len(self.scores_of("shared-student")), 1)
        finally:
            other.stop()


class LtiBesideSlowPlatforms(unittest.TestCase):
    """A platform whose keyset is slow or never answers, a line-item host that accepts and never
    answers: the rest of the service goes on. Each is timed against a baseline of the same run."""

    AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"

    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="hg-lti-slow-")
        keys = os.path.join(self.workdir, "keys")
        out = subprocess.run([CLI, "keys", "add", "--keys", keys, "--name", "lms", "--role",
                              "lms"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.lms = out.stdout.strip()
        self.platform = fake.Platform()
        self.tool = Tool(self.platform, self.workdir, extra=["--keys", keys])
        self.case = LtiEndToEnd(methodName="test_the_tools_jwks")
        self.case.platform, self.case.tool = self.platform, self.tool

    def tearDown(self):
        self.tool.kill()  # a send to a silent host may still be waiting for its answer
        self.platform.close()

    def slowest_other_request(self):
        """The slowest of /healthz and an lms key's grading, three of each."""
        slowest = 0.0
        for _ in range(3):
            for path, method, body, headers in (
                    ("/healthz", "GET", None, {}),
                    ("/v1/problems/%s/grade" % PROBLEM, "POST",
                     json.dumps(dict(json.loads(SOLUTION), student="lms-student")),
                     {"Content-Type": "application/json", "Authorization": "Bearer " + self.lms})):
                start = time.monotonic()
                status, _, answer = request(self.tool.base + path, method, body, headers)
                slowest = max(slowest, time.monotonic() - start)
                self.assertEqual(status, 200, answer)
        return slowest

    def forged_launches(self, count):
        """`count` launches, each after its own login, with a kid the platform never had:
        anyone can send these. Returns the threads and their answers."""
        answers = []
        posts = []
        for _ in range(count):
            fields, cookie = self.case.login(
                token=lambda p, n: p.sign(p.claims(n), kid="made-up-kid"))
            posts.append((fields, cookie))
        threads = [threading.Thread(
            target=lambda f=f, c=c: answers.append(self.case.post_launch(f, c)), daemon=True)
            for f, c in posts]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # both are waiting for the keyset
        return threads, answers

    def test_a_slow_or_hanging_keyset_holds_up_nothing_else(self):
        self.case.launch(sub="before-the-slow-keyset")  # the keyset is known
        baseline = self.slowest_other_request()
        bound = max(1.0, 10 * baseline)
        # A keyset that answers in 3 s: two launches with a made-up kid ask for it again.
        self.platform.jwks_delay = 3
        fetches = self.platform.jwks_fetches
        threads, answers = self.forged_launches(2)
        meanwhile = self.slowest_other_request()
        self.assertLess(meanwhile, bound, "baseline %.3f s" % baseline)
        for thread in threads:
            thread.join(20)
        self.assertEqual([status for status, _, _ in answers], [401, 401], answers)
        for _, _, page in answers:
            self.assertIn('<code id="lti-check">kid</code>', page)
        # The two waited for one fetch, not one each.
        self.assertEqual(self.platform.jwks_fetches, fetches + 1)
        # A keyset that never answers: refused once the fetch's deadline has passed.
        self.platform.jwks_delay = 0
        self.platform.jwks_hang = True
        threads, answers = self.forged_launches(2)
        meanwhile = self.slowest_other_request()
        self.assertLess(meanwhile, bound, "baseline %.3f s" % baseline)
        for thread in threads:
            thread.join(30)
        self.assertEqual([status for status, _, _ in answers], [401, 401], answers)
        for _, _, page in answers:
            self.assertIn('<code id="lti-check">keyset</code>', page)

    def test_a_classroom_behind_one_address_launches_at_once(self):
        # Launches whose key is held need no fetch: they are not queued with the long work,
        # whose per-address bound would refuse a class behind one NAT address.
        self.case.launch(sub="first-of-the-class")
        posts = [self.case.login(sub="classmate-%d" % i) for i in range(8)]
        answers = []
        threads = [threading.Thread(target=lambda f=f, c=c: answers.append(
            self.case.post_launch(f, c))) for f, c in posts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual([status for status, _, _ in answers], [200] * 8, answers)

    def test_a_silent_line_item_host_holds_back_only_its_own_scores(self):
        silent = fake.SilentHost()
        try:
            token, _ = self.case.launch(sub="silent-host-student", **{self.AGS: {
                "scope": [fake.SCORE_SCOPE], "lineitem": silent.url + "/lineitems/9/lineitem"}})
            for _ in range(4):
                self.assertEqual(self.case.grade(token)[0], 200)
            self.assertTrue(self.case.wait_for(lambda: silent.accepted >= 1))
            token, _ = self.case.launch(sub="healthy-host-student")
            start = time.monotonic()
            self.assertEqual(self.case.grade(token)[0], 200)
            mine = lambda: [s for s in self.platform.scores
                            if s[1]["userId"] == "healthy-host-student"]
            self.assertTrue(self.case.wait_for(lambda: len(mine()) == 1, 60))
            # Four scores for the silent host take 4 x 10 s one after the other.
            self.assertLess(time.monotonic() - start, 5.0)
        finally:
            silent.close()


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[2:])  # then, optionally, tests to run
