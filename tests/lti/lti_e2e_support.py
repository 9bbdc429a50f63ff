"""What the LTI end-to-end tests share: the real server and CLI of a build (BUILD_DIR, the
first argument), the problem and the two submissions they grade, plain HTTP(S) requests, and
Tool, the real server run as an LTI tool registered with a platform of platform.py.

The build directory is read from sys.argv when this is imported: the runner is
test_lti_e2e.py BUILD_DIR, which runs every part (lti_launch_e2e.py, lti_record_e2e.py,
lti_slow_platforms_e2e.py).
"""

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.parse

# The parts import tests/lti/platform.py as `platform` (not the standard module) after this.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

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
