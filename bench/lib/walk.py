#!/usr/bin/env python3
"""A cursor walk of one list (decisions §13), for bench/run.sh --scale.

    walk.py URL TOKEN PATH [--records N] [--limit 100]

GETs PATH (a list, with its filter and sort) with limit=LIMIT, then each
meta.next_cursor in turn, on one keep-alive connection, until N records were
read (--records) or the list ends. Prints one line:

    WALK pages=P records=R distinct=D seconds=S cursor=C last_id=I

C is the URL-encoded meta.next_cursor after the last page read ("-" at the
end of the list): with --records N, the cursor that sits at record N. D counts
distinct ids (a cursor that skipped back would repeat one). Exits non-zero on
any answer but 200.
"""
import argparse
import http.client
import json
import sys
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("path")
    parser.add_argument("--records", type=int, default=0)
    parser.add_argument("--limit", type=int, default=100)
    args = parser.parse_args()

    target = urllib.parse.urlsplit(args.url)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    headers = {"Authorization": "Bearer " + args.token}
    separator = "&" if "?" in args.path else "?"
    first = args.path + separator + "limit=" + str(args.limit)
    path, cursor, last_id = first, None, "-"
    pages = records = 0
    seen = set()
    started = time.monotonic()
    while True:
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        body = answer.read()
        if answer.status != 200:
            sys.stderr.write(f"walk.py: GET {path} answered {answer.status}: {body[:300]!r}\n")
            return 1
        document = json.loads(body)
        items = document["data"]
        pages += 1
        records += len(items)
        for item in items:
            seen.add(item["id"])
        if items:
            last_id = items[-1]["id"]
        cursor = document["meta"].get("next_cursor")
        if cursor is None or (args.records and records >= args.records):
            break
        path = first + "&cursor=" + urllib.parse.quote(cursor, safe="")
    seconds = time.monotonic() - started
    encoded = urllib.parse.quote(cursor, safe="") if cursor else "-"
    print(f"WALK pages={pages} records={records} distinct={len(seen)} seconds={seconds:.2f} "
          f"cursor={encoded} last_id={last_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
