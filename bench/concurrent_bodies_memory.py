#!/usr/bin/env python3
"""Memory under 1 000 simultaneous 1 MiB bodies.

Starts headgrader-server on loopback, opens CLIENTS connections, sends each a grading request
whose body is exactly 1 MiB (the handout solution padded with spaces, the largest body the
server accepts), all at once, and reads every answer. Prints the server's resident memory
before, its peak (VmHWM of /proc/PID/status) and after, and how the answers went. Bounded in
time (--timeout, default 120 s); exits 1 when any client got no 200 answer.

  bench/concurrent_bodies_memory.py [--server PATH] [--clients 1000] [--threads N]
"""
import argparse
import asyncio
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLUTION = b'{"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}'
BODY_BYTES = 1024 * 1024


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


async def one_client(port, request, results, barrier):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as error:
        results.append(f"connect: {error.strerror}")
        return
    await barrier.wait()  # every connection open before any byte is sent
    try:
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"[Cc]ontent-[Ll]ength: *(\d+)", head).group(1))
        await reader.readexactly(length)
        results.append(int(head.split(b" ", 2)[1]))
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
        results.append(f"{type(error).__name__}")
    finally:
        writer.close()


class Barrier:
    def __init__(self, parties):
        self.parties, self.count, self.event = parties, 0, asyncio.Event()

    async def wait(self):
        self.count += 1
        if self.count >= self.parties:
            self.event.set()
        await self.event.wait()


async def run(port, clients, pid):
    body = SOLUTION + b" " * (BODY_BYTES - len(SOLUTION))
    request = (b"POST /v1/problems/consonant-anywhere/grade HTTP/1.1\r\nHost: x\r\n"
               b"Content-Type: application/json\r\nConnection: close\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    results = []
    barrier = Barrier(clients)
    peak_sampled = 0

    async def sample():
        nonlocal peak_sampled
        while True:
            peak_sampled = max(peak_sampled, status_kib(pid, "VmRSS"))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    started = time.monotonic()
    await asyncio.gather(*(one_client(port, request, results, barrier) for _ in range(clients)))
    sampler.cancel()
    return results, time.monotonic() - started, peak_sampled


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.path.join(ROOT, "build/server/headgrader-server"))
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()

    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.clients + 256)), hard))

    server = subprocess.Popen(
        [args.server, "--address", "127.0.0.1", "--port", "0", "--threads", str(args.threads),
         "--problems", os.path.join(ROOT, "problems")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        match = re.match(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not match:
            sys.exit(f"the server did not start: {line!r}")
        port = int(match.group(1))
        before = status_kib(server.pid, "VmRSS")
        results, seconds, sampled = asyncio.run(
            asyncio.wait_for(run(port, args.clients, server.pid), args.timeout))
        time.sleep(1)
        peak = status_kib(server.pid, "VmHWM")
        after = status_kib(server.pid, "VmRSS")
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    counts = {}
    for result in results:
        counts[result] = counts.get(result, 0) + 1
    print(f"{args.clients} clients x {BODY_BYTES} B bodies, server {args.threads} threads, "
          f"{seconds:.1f} s")
    print(f"answers: {counts}")
    print(f"server RSS before: {before} KiB; peak (VmHWM): {peak} KiB "
          f"({peak / 1024:.0f} MiB; sampled {sampled} KiB); after: {after} KiB")
    print(f"peak per client: {(peak - before) / args.clients:.0f} KiB")
    sys.exit(0 if counts.get(200, 0) == args.clients else 1)


if __name__ == "__main__":
    main()
