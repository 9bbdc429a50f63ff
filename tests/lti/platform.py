"""A fake LTI 1.3 platform (an LMS), written from the specifications, not from our tool's code.

LTI 1.3 Core (OIDC third-party login, id_token claims), LTI Advantage AGS 2.0 (scores,
client-credentials with an RS256 client assertion, RFC 7523) and Deep Linking 2.0. JOSE is
PyJWT with python3-cryptography (Debian's), independent of the tool's OpenSSL code.

Endpoints (all on 127.0.0.1):
  GET  /jwks                    the platform's keyset (rotate() adds a key and signs with it);
                                slow (jwks_delay) or never answering (jwks_hang) on demand
  GET  /auth                    OIDC authorization: checks every parameter the tool sent and
                                answers an auto-post form with id_token and state
  POST /token                   client credentials: verifies the tool's assertion against the
                                tool's JWKS, answers an access token
  POST /lineitems/<n>/scores    records a score (the line item URLs carry a query string);
                                fails on demand (fail_next, fail_status, revoke_tokens)
  POST /deeplink/return         verifies the tool's LtiDeepLinkingResponse and records it
"""

import hashlib
import hmac
import html.parser
import json
import secrets
import socket
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
EXPECTED_AUTH_PARAMS = {"scope", "response_type", "response_mode", "prompt", "client_id",
                        "redirect_uri", "state", "nonce", "login_hint", "lti_message_hint"}


def b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class FormParser(html.parser.HTMLParser):
    """The action and hidden fields of the forms in a page."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action"), "fields": {}})
        elif tag == "input" and self.forms and attrs.get("type") == "hidden":
            self.forms[-1]["fields"][attrs["name"]] = attrs.get("value", "")


def parse_forms(page):
    parser = FormParser()
    parser.feed(page)
    return parser.forms


def self_signed_certificate(directory, name):
    """A key and a self-signed certificate for DNS name `name`, as PEM files; returns paths."""
    import datetime
    import os
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.utcnow()
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path = os.path.join(directory, name + ".crt")
    key_path = os.path.join(directory, name + ".key")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


class SilentHost:
    """A host that accepts connections and never answers (a line item's host gone wrong)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.url = "http://127.0.0.1:%d" % self.socket.getsockname()[1]
        self.held = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(connection)
            self.accepted += 1

    def close(self):
        self.socket.close()
        for connection in self.held:
            connection.close()


class Platform:
    def __init__(self, client_id="tool-client", deployment="dep-1", tls=None):
        """tls: (certificate path, key path) to serve HTTPS on https://localhost:PORT."""
        self.client_id = client_id
        self.deployment = deployment
        self.keys = []  # (kid, private key); the last signs
        self.rotate()
        self.lock = threading.Lock()
        self.errors = []  # what the platform refused, and why
        self.scores = []  # accepted scores: (path with query, body)
        self.score_attempts = []  # every score post: (status answered, body)
        self.fail_next = 0  # answer the next N score posts 503
        self.fail_status = None  # answer every score post with this status
        self.tokens = set()
        self.token_requests = 0
        self.jwks_fetches = 0
        self.jwks_delay = 0  # seconds /jwks waits before answering (a slow platform)
        self.jwks_hang = False  # /jwks never answers (until close())
        self.closing = threading.Event()
        self.used_jtis = set()
        self.deep_link_responses = []
        self.launch_claims = {}  # login_hint -> claims to send (set by the test)
        self.tool_jwks_url = None
        self.tool_launch_url = None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = "http://127.0.0.1:%d" % self.server.server_port
        if tls:
            import ssl
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.url = "https://localhost:%d" % self.server.server_port
        self.issuer = self.url  # platforms use their base URL as issuer
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()

    # --- keys -----------------------------------------------------------------------------
    def rotate(self):
        kid = "platform-key-%d" % (len(self.keys) + 1)
        self.keys.append((kid, rsa.generate_private_key(public_exponent=65537, key_size=2048)))
        return kid

    def jwks(self):
        keys = []
        for kid, key in self.keys[-2:]:  # the current key and the one before
            jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
            jwk.update({"kid": kid, "alg": "RS256", "use": "sig"})
            keys.append(jwk)
        return {"keys": keys}

    def public_pem(self):
        from cryptography.hazmat.primitives import serialization
        return self.keys[-1][1].public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def sign(self, claims, key=None, kid=None, headers=None):
        kid = kid or self.keys[-1][0]
        key = key or self.keys[-1][1]
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid, **(headers or {})})

    # --- id_tokens --------------------------------------------------------------------------
    def claims(self, nonce, sub="student-1", problem="consonant-anywhere", lineitem=True,
               message_type="LtiResourceLinkRequest", **extra):
        now = int(time.time())
        claims = {
            "iss": self.issuer, "aud": self.client_id, "sub": sub, "iat": now, "exp": now + 300,
            "nonce": nonce, "name": "Ada Lovelace", "given_name": "Ada", "family_name": "Lovelace",
            CLAIM + "deployment_id": self.deployment,
            CLAIM + "version": "1.3.0",
            CLAIM + "message_type": message_type,
            CLAIM + "target_link_uri": self.tool_launch_url,
            CLAIM + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
            CLAIM + "context": {"id": "course-42", "title": "Attention 101"},
            CLAIM + "resource_link": {"id": "link-" + problem},
        }
        if message_type == "LtiResourceLinkRequest":
            claims[CLAIM + "custom"] = {"problem": problem}
            if lineitem:
                claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = {
                    "scope": [SCORE_SCOPE, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"],
                    "lineitems": self.url + "/lineitems?course=42",
                    # Moodle-style: the line item URL has a query string.
                    "lineitem": self.url + "/lineitems/7/lineitem?type_id=3",
                }
        claims.update(extra)
        return claims

    # --- HTTP -------------------------------------------------------------------------------
    def _refuse(self, handler, why):
        with self.lock:
            self.errors.append(why)
        handler.answer(400, "text/plain", why)

    def _auth(self, handler, query):
        params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        names = set(urllib.parse.parse_qs(query, keep_blank_values=True))
        expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
                    "prompt": "none", "client_id": self.client_id,
                    "redirect_uri": self.tool_launch_url}
        for name, value in expected.items():
            if params.get(name) != value:
                return self._refuse(handler, "auth: %s is %r, not %r" % (name, params.get(name), value))
        if names - EXPECTED_AUTH_PARAMS:
            return self._refuse(handler, "auth: unexpected parameters %s" % sorted(names - EXPECTED_AUTH_PARAMS))
        for name in ("state", "nonce", "login_hint"):
            if not params.get(name):
                return self._refuse(handler, "auth: no " + name)
        hint = params["login_hint"]
        make = self.launch_claims.get(hint)
        if make is None:
            return self._refuse(handler, "auth: unknown login_hint " + hint)
        if params.get("lti_message_hint") != make.get("message_hint"):
            return self._refuse(handler, "auth: lti_message_hint not passed through")
        id_token = make["token"](self, params["nonce"])
        page = ('<form method="post" action="%s"><input type="hidden" name="id_token" value="%s">'
                '<input type="hidden" name="state" value="%s"></form>'
                % (self.tool_launch_url, id_token, params["state"]))
        handler.answer(200, "text/html", page)

    def _tool_key(self, kid):
        with urllib.request.urlopen(self.tool_jwks_url) as response:
            for jwk in json.load(response)["keys"]:
                if jwk["kid"] == kid:
                    return RSAAlgorithm.from_jwk(json.dumps(jwk))
        raise ValueError("the tool's JWKS has no key " + kid)

    def _verify_tool_jwt(self, token, audience, issuer):
        header = jwt.get_unverified_header(token)
        if header.get("alg") != "RS256":
            raise ValueError("the tool signed with " + str(header.get("alg")))
        return jwt.decode(token, self._tool_key(header["kid"]), algorithms=["RS256"],
                          audience=audience, issuer=issuer,
                          options={"require": ["exp", "iat", "iss", "aud"]})

    def _token(self, handler, body):
        form = dict(urllib.parse.parse_qsl(body))
        with self.lock:
            self.token_requests += 1
        if form.get("grant_type") != "client_credentials":
            return self._refuse(handler, "token: grant_type is not client_credentials")
        if form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            return self._refuse(handler, "token: wrong client_assertion_type")
        if SCORE_SCOPE not in form.get("scope", "").split():
            return self._refuse(handler, "token: the score scope was not asked for")
        try:
            claims = self._verify_tool_jwt(form.get("client_assertion", ""), self.url + "/token",
                                           self.client_id)
        except Exception as error:  # noqa: BLE001 - any failure is a refusal
            return self._refuse(handler, "token: assertion refused: %s" % error)
        if claims.get("sub") != self.client_id or not claims.get("jti"):
            return self._refuse(handler, "token: sub or jti wrong")
        if claims["exp"] - claims["iat"] > 300:
            return self._refuse(handler, "token: the assertion lives too long")
        with self.lock:
            if claims["jti"] in self.used_jtis:
                return self._refuse(handler, "token: jti reused")
            self.used_jtis.add(claims["jti"])
            token = secrets.token_urlsafe(24)
            self.tokens.add(token)
        handler.answer(200, "application/json", json.dumps(
            {"access_token": token, "token_type": "Bearer", "expires_in": 3600,
             "scope": SCORE_SCOPE}))

    def _score(self, handler, path, body):
        auth = handler.headers.get("Authorization", "")
        with self.lock:
            known = auth.startswith("Bearer ") and auth[7:] in self.tokens
        if not known:
            with self.lock:
                self.score_attempts.append((401, body))
            return handler.answer(401, "application/json", "{}")
        if handler.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
            return self._refuse(handler, "score: Content-Type is " + str(handler.headers.get("Content-Type")))
        with self.lock:
            if self.fail_next > 0:
                self.fail_next -= 1
                self.score_attempts.append((503, body))
                return handler.answer(503, "text/plain", "down")
            if self.fail_status:
                self.score_attempts.append((self.fail_status, body))
                return handler.answer(self.fail_status, "text/plain", "refused")
            self.score_attempts.append((200, body))
            self.scores.append((path, json.loads(body)))
        handler.answer(200, "application/json", "{}")

    def _deep_link_return(self, handler, body):
        form = dict(urllib.parse.parse_qsl(body))
        try:
            claims = self._verify_tool_jwt(form.get("JWT", ""), self.issuer, self.client_id)
        except Exception as error:  # noqa: BLE001
            return self._refuse(handler, "deep link: refused: %s" % error)
        with self.lock:
            self.deep_link_responses.append(claims)
        handler.answer(200, "text/html", "<p>linked</p>")

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, content_type, body):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                path, _, query = self.path.partition("?")
                if path == "/jwks":
                    with platform.lock:
                        platform.jwks_fetches += 1
                    if platform.jwks_hang:
                        platform.closing.wait()
                        return
                    if platform.jwks_delay:
                        time.sleep(platform.jwks_delay)
                    return self.answer(200, "application/json", json.dumps(platform.jwks()))
                if path == "/auth":
                    return platform._auth(self, query)
                self.answer(404, "text/plain", "no")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length).decode()
                path = self.path.partition("?")[0]
                if path == "/token":
                    return platform._token(self, body)
                if path.startswith("/lineitems/") and path.endswith("/scores"):
                    return platform._score(self, self.path, body)
                if path == "/deeplink/return":
                    return platform._deep_link_return(self, body)
                self.answer(404, "text/plain", "no")

        return Handler


def hs256_with_public_key(platform, claims):
    """The algorithm-confusion attack: HS256 keyed with the platform's public key (PEM)."""
    header = {"alg": "HS256", "typ": "JWT", "kid": platform.keys[-1][0]}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    mac = hmac.new(platform.public_pem(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


def alg_none(platform, claims):
    header = {"alg": "none", "typ": "JWT", "kid": platform.keys[-1][0]}
    return b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode()) + "."
