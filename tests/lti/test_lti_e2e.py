"""End to end against the real headgrader-server and the fake platform (platform.py).

  /usr/bin/python3 tests/lti/test_lti_e2e.py BUILD_DIR [TEST...]

Runs every part: lti_launch_e2e.py (login -> platform auth -> launch -> page -> grading ->
exactly one score at the platform, also when the platform fails first; key rotation, the
deep-linking round trip, each attack refused with its check named in the page and in the
server's log, never the token; HTTPS platforms), lti_record_e2e.py (the same on the submission
record's store, a real SQLite file: a score that survives kill -9 of the server and reaches the
platform once, the staff's passback routes, the record naming the launch, two servers on one
store sharing tokens and single-use values) and lti_slow_platforms_e2e.py (slow or silent
platforms hold up nothing else). Their shared helpers are lti_e2e_support.py's.
"""

import sys
import unittest

from lti_launch_e2e import LtiEndToEnd, LtiOverHttps
from lti_record_e2e import LtiWithTheRecord
from lti_slow_platforms_e2e import LtiBesideSlowPlatforms

# Every part's test cases, which unittest.main finds in this module.
__all__ = ["LtiEndToEnd", "LtiOverHttps", "LtiWithTheRecord", "LtiBesideSlowPlatforms"]

if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[2:])  # then, optionally, tests to run
