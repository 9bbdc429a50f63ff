"""Grades N heads of consonant-anywhere, each for its own student, through
POST /v1/problems/consonant-anywhere/grade (bench/integrity_bench.sh's records): N - 300 random
heads (the first of them also sent literally by 100 more students and with W_q doubled and W_k
halved by 100 more), and the handout's solution by 100 students. Four kept-alive connections.
Usage: integrity_bench.py URL STAFF_KEY N"""
import http.client
import json
import random
import sys
import threading
import urllib.parse

url, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(39)


def value():
    return round(rng.uniform(-5, 5), 3)


def random_head():
    return {"W_q": [[value(), value()]], "W_k": [[value(), value()]],
            "W_V": [[value(), value()], [value(), value()]]}


copied = random_head()
scaled = {"W_q": [[2 * v for v in copied["W_q"][0]]],
          "W_k": [[v / 2 for v in copied["W_k"][0]]], "W_V": copied["W_V"]}
handout = {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}
heads = [copied] + [copied] * 100 + [scaled] * 100 + [handout] * 100
heads += [random_head() for _ in range(n - len(heads))]
bodies = [json.dumps(dict(head, student="s%05d" % i)).encode() for i, head in enumerate(heads)]

target = urllib.parse.urlsplit(url)
failures = []


def send(part):
    connection = http.client.HTTPConnection(target.hostname, target.port)
    headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
    for body in bodies[part::4]:
        connection.request("POST", "/v1/problems/consonant-anywhere/grade", body, headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            failures.append(response.status)


threads = [threading.Thread(target=send, args=(part,)) for part in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
if failures:
    sys.exit("%d gradings refused, e.g. HTTP %d" % (len(failures), failures[0]))
