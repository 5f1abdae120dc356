#!/usr/bin/env python3
"""Start-up time of a server: process start to the first 2xx of a URL.

    startup.py --url http://127.0.0.1:PORT/readyz [--runs 5] [--cwd DIR]
               [--log FILE] -- COMMAND...

Starts COMMAND (in --cwd), polls --url every 2 ms on a fresh connection
until it answers 2xx, records the time since the process was started,
stops the process with SIGTERM (SIGKILL after 10 s) and waits for it; --runs
times. Prints one line, key=value (seconds):
    runs=5 median=0.412 min=0.398 max=0.455 each=0.412,0.398,...
Exits non-zero when a start does not become ready within 60 s or the
process exits first. Used by bench/custom-fields.sh (bench/run.sh's
wait_http polls every 0.2 s: too coarse for a start-up time).
"""
import argparse
import http.client
import statistics
import subprocess
import sys
import time
import urllib.parse


def ready(url: urllib.parse.SplitResult) -> bool:
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=1)
    try:
        connection.request("GET", url.path or "/")
        return 200 <= connection.getresponse().status < 300
    except OSError:
        return False
    finally:
        connection.close()


def one_start(command, cwd, url, log) -> float:
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    try:
        while time.monotonic() - started < 60:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with status {process.returncode}")
            if ready(url):
                return time.monotonic() - started
            time.sleep(0.002)
        raise RuntimeError("the server was not ready within 60 s")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cwd", default=None)
    parser.add_argument("--log", default="/dev/null")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.runs < 1:
        parser.error("a command and --runs >= 1 are needed")
    url = urllib.parse.urlsplit(args.url)
    times = []
    with open(args.log, "ab") as log:
        for _ in range(args.runs):
            try:
                times.append(one_start(command, args.cwd, url, log))
            except RuntimeError as error:
                print(f"startup.py: {error}", file=sys.stderr)
                return 1
    print(f"runs={len(times)} median={statistics.median(times):.3f} min={min(times):.3f} "
          f"max={max(times):.3f} each={','.join(f'{t:.3f}' for t in times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
