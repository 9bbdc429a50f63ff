"""LTI 1.3 end to end beside slow platforms: a keyset that is slow or never answers, a line-item
host that accepts and never answers; the rest of the service goes on. Run by test_lti_e2e.py.
"""

import json
import os
import subprocess
import tempfile
import threading
import time
import unittest

from lti_e2e_support import CLI, PROBLEM, SOLUTION, request, Tool
import platform as fake  # noqa: E402  (tests/lti/platform.py, first on the path: lti_e2e_support)
from lti_launch_e2e import LtiEndToEnd


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
