"""LTI 1.3 end to end on the submission record's store (a real SQLite file): a score that survives
kill -9 of the server and reaches the platform once, the best score in the gradebook, the
staff's passback routes, the record naming the launch, and two servers on one store sharing
tokens and single-use values. Run by test_lti_e2e.py.
"""

import json
import os
import re
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse

from lti_e2e_support import CLI, SOURCE, PROBLEM, SOLUTION, WRONG, request, Tool
import platform as fake  # noqa: E402  (tests/lti/platform.py, first on the path: lti_e2e_support)
from lti_launch_e2e import LtiEndToEnd


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
