"""LTI 1.3 end to end, the launch: login -> platform auth -> launch -> page -> grading -> exactly
one score at the platform (also when the platform fails first), key rotation, the deep-linking
round trip, and each attack refused with its check named in the page and in the server's log
(and never the token); platform URLs over HTTPS. Run by test_lti_e2e.py.
"""

import json
import os
import re
import tempfile
import time
import unittest
import urllib.parse

from lti_e2e_support import PROBLEM, SOLUTION, WRONG, TRUSTED, request, header, Tool
import platform as fake  # noqa: E402  (tests/lti/platform.py, first on the path: lti_e2e_support)


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
