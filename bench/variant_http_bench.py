"""Writes the bodies bench/variant_http_bench.sh POSTs: the handout's solution of
consonant-anywhere as written (base.json, one body) and, for each of N students, that solution
written in the student's coordinates (variant.json, one body a line, with "student"), each
student's variant read from GET /v1/problems/consonant-anywhere?student=S, and the solution as
written with each "student" for consonant-anywhere-plain, the problem without `variants`
(student.json). The transformation
is computed here from the variant id alone (API.md §15: "f" π, "s" the feature_scales indices,
"o" σ), not by the server's code: W' = W M⁻¹ for W_q and W_k, Σ W_V M⁻¹ for W_V, where M = S·P
has M[i][π(i)] = s_i, so column i of W M⁻¹ is column π(i) of W divided by s_i, and row j of
Σ W is row σ(j) of W. Each body is checked to pass before it is used.
Usage: variant_http_bench.py URL KEY N SCALES_JSON OUT_DIR"""
import http.client
import json
import sys
import urllib.parse

url, key, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[5]
scales = json.loads(sys.argv[4])
target = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(target.hostname, target.port)
headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
handout = {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}


def call(method, path, body=None):
    connection.request(method, path, body, headers)
    response = connection.getresponse()
    answer = json.loads(response.read())
    if response.status != 200:
        sys.exit("%s %s: HTTP %d %s" % (method, path, response.status, answer))
    return answer


def parts(variant_id, n_e, n_v):
    features, row_scale, outputs = list(range(n_e)), [1.0] * n_e, list(range(n_v))
    for part in variant_id.split("-") if variant_id else []:
        numbers = [int(x) for x in part[1:].split(".")]
        if part[0] == "f":
            features = numbers
        elif part[0] == "s":
            row_scale = [float(scales[k]) for k in numbers]
        elif part[0] == "o":
            outputs = numbers
    return features, row_scale, outputs


def to_student(head, variant_id):
    n_e, n_v = len(head["W_q"][0]), len(head["W_V"])
    features, row_scale, outputs = parts(variant_id, n_e, n_v)

    def columns(m):
        return [[row[features[i]] / row_scale[i] for i in range(n_e)] for row in m]

    W_V = columns(head["W_V"])
    return {"W_q": columns(head["W_q"]), "W_k": columns(head["W_k"]),
            "W_V": [W_V[outputs[j]] for j in range(n_v)]}


with open(out + "/base.json", "w") as f:
    f.write(json.dumps(handout))
assert call("POST", "/v1/problems/consonant-anywhere/grade", json.dumps(handout))["passed"]
variants = set()
with open(out + "/variant.json", "w") as f, open(out + "/student.json", "w") as plain:
    for s in range(n):
        student = "student-%d" % s
        view = call("GET", "/v1/problems/consonant-anywhere?student=" + student)
        body = dict(to_student(handout, view["variant"]), student=student)
        answer = call("POST", "/v1/problems/consonant-anywhere/grade", json.dumps(body))
        if not answer["passed"] or answer.get("variant") != view["variant"]:
            sys.exit("%s's transformed solution did not pass on %s: %s" % (student, view["variant"], answer))
        variants.add(view["variant"])
        f.write(json.dumps(body) + "\n")
        body = dict(handout, student=student)
        assert call("POST", "/v1/problems/consonant-anywhere-plain/grade", json.dumps(body))["passed"]
        plain.write(json.dumps(body) + "\n")
print("%d students, %d different variants" % (n, len(variants)))
