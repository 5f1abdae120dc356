#!/usr/bin/env python3
"""Slow clients for bench/run.sh's slowloris scenario (issue 10).

Holds CONNECTIONS connections to 127.0.0.1:PORT from SOURCE (127.0.0.2 by
default, so the per-connection check of lib/served.sh, which counts
127.0.0.1 only, leaves them out). Each sends the start of a request head,
"GET PATH HTTP/1.1\\r\\nHost: bench\\r\\n", then one more header line every
INTERVAL seconds, and never ends the head. Whatever the server does (a 408
at server.header_timeout, a 503, a close) is counted, and the connection is
opened again, as a real slowloris client would: the server always has
CONNECTIONS slow clients.

Prints "SLOWLORIS ready ..." once every connection has sent its first
bytes, and on SIGTERM or SIGINT one summary line:
  SLOWLORIS connections=200 opened=412 open=200 answered=212 statuses=408:212
  closed=0 resets=0 refused=0 lines=1180 seconds=31.2
"""

import argparse
import asyncio
import collections
import signal
import sys
import time


class Counters:
    def __init__(self):
        self.opened = 0
        self.open = 0
        self.answered = 0
        self.statuses = collections.Counter()
        self.closed = 0  # closed by the server without a word
        self.resets = 0
        self.refused = 0  # connect failed
        self.lines = 0  # header lines sent after the first bytes


async def slow_client(number, args, counters, started):
    head = f"GET {args.path} HTTP/1.1\r\nHost: bench\r\n".encode()
    first = True
    while True:
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", args.port, local_addr=(args.source, 0))
        except OSError:
            counters.refused += 1
            await asyncio.sleep(0.2)
            continue
        counters.opened += 1
        counters.open += 1
        try:
            writer.write(head)
            await writer.drain()
            if first:
                first = False
                started.release()
            line = 0
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(4096), args.interval)
                except asyncio.TimeoutError:
                    line += 1
                    writer.write(f"X-Slow-{number}: {line}\r\n".encode())
                    await writer.drain()
                    counters.lines += 1
                    continue
                if data.startswith(b"HTTP/"):
                    counters.answered += 1
                    counters.statuses[data.split(b" ", 2)[1].decode(errors="replace")] += 1
                else:
                    counters.closed += 1
                break
        except OSError:  # reset, broken pipe
            counters.resets += 1
        finally:
            counters.open -= 1
            writer.close()


async def main(args):
    counters = Counters()
    started = asyncio.Semaphore(0)
    begun = time.monotonic()
    tasks = [asyncio.create_task(slow_client(n, args, counters, started))
             for n in range(args.connections)]
    for _ in range(args.connections):
        await started.acquire()
    print(f"SLOWLORIS ready connections={args.connections} interval={args.interval}", flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for task in tasks:
        task.cancel()
    statuses = ",".join(f"{k}:{v}" for k, v in sorted(counters.statuses.items())) or "-"
    print(f"SLOWLORIS connections={args.connections} opened={counters.opened} "
          f"open={counters.open} answered={counters.answered} statuses={statuses} "
          f"closed={counters.closed} resets={counters.resets} refused={counters.refused} "
          f"lines={counters.lines} seconds={time.monotonic() - begun:.1f}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--interval", type=float, default=3.0,
                        help="seconds between header lines (below server.header_timeout)")
    parser.add_argument("--path", default="/v1/versions")
    parser.add_argument("--source", default="127.0.0.2", help="local address to connect from")
    try:
        asyncio.run(main(parser.parse_args()))
    except KeyboardInterrupt:
        sys.exit(130)
