#!/usr/bin/python3
"""A real SMTP server on loopback for Rapport's tests (aiosmtpd).

  smtp_server.py --port-file F --maildir D [--starttls CERT KEY] [--require-starttls]
                 [--auth USER:PASS] [--delay SECONDS] [--fail-first N]
                 [--reject-rcpt ADDRESS]...

Listens on 127.0.0.1, port chosen by the kernel; the port is written to F
(temporary file + rename) once the server accepts connections. Each message
accepted is stored as D/<sequence>.eml (000001.eml, 000002.eml, ...: the
lexical order is the arrival order) exactly as received after the DATA
dot-unstuffing, next to D/<sequence>.json with the envelope:
{"mail_from", "rcpt_tos", "tls": bool, "auth_user": str|null}. Both are
written to a temporary name and renamed, the .json first, so a reader that
sees the .eml sees a whole message and its envelope.

--starttls CERT KEY   offer STARTTLS with this certificate chain and key (PEM)
--require-starttls    refuse MAIL/RCPT/DATA/AUTH before STARTTLS (530)
--auth USER:PASS      offer AUTH PLAIN and LOGIN (only after STARTTLS) and
                      require it before MAIL
--delay SECONDS       sleep before answering each DATA (a slow server)
--fail-first N        answer the first N DATA commands with 451 (nothing stored)
--reject-rcpt ADDRESS answer RCPT TO:<ADDRESS> with 550 (a permanent refusal);
                      may be repeated

Runs until SIGTERM or SIGINT. Logs one line per event on standard error,
never a message body. Needs Debian's python3-aiosmtpd (run it with
/usr/bin/python3 when another python3 comes first in PATH).
"""

import argparse
import asyncio
import json
import os
import signal
import ssl
import sys

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def log(*parts):
    print("smtp_server:", *parts, file=sys.stderr, flush=True)


def write_atomically(path, data):
    folder, name = os.path.split(path)
    temp = os.path.join(folder, "." + name + ".tmp")
    with open(temp, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)


class Handler:
    def __init__(self, maildir, delay, fail_first, reject_rcpt):
        self.maildir = maildir
        self.reject_rcpt = set(a.lower() for a in reject_rcpt)
        self.delay = delay
        self.fail_left = fail_first
        self.sequence = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.reject_rcpt:
            log("RCPT refused with 550 (--reject-rcpt)")
            return "550 5.1.1 No such user here (test server --reject-rcpt)"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.delay > 0:
            await asyncio.sleep(self.delay)
        if self.fail_left > 0:
            self.fail_left -= 1
            log("DATA refused with 451 (--fail-first),", self.fail_left, "more to refuse")
            return "451 4.3.0 Temporary failure (test server --fail-first)"
        self.sequence += 1
        base = os.path.join(self.maildir, "%06d" % self.sequence)
        auth = session.auth_data
        auth_user = None
        if isinstance(auth, LoginPassword):
            auth_user = auth.login.decode("utf-8", "replace")
        elif isinstance(auth, (bytes, str)):
            auth_user = auth.decode() if isinstance(auth, bytes) else auth
        meta = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": list(envelope.rcpt_tos),
            "tls": session.ssl is not None,
            "auth_user": auth_user,
        }
        write_atomically(base + ".json", json.dumps(meta).encode())
        content = envelope.original_content
        if content is None:
            content = envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        write_atomically(base + ".eml", content)
        log("stored", os.path.basename(base) + ".eml", "tls=%s" % meta["tls"])
        return "250 2.0.0 OK stored as %06d" % self.sequence


class Authenticator:
    def __init__(self, user, password):
        self.user = user.encode()
        self.password = password.encode()

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword) and auth_data.login == self.user
              and auth_data.password == self.password)
        log("AUTH", mechanism, "accepted" if ok else "refused")
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)


def parse_args():
    p = argparse.ArgumentParser(description="Test SMTP server (aiosmtpd) on 127.0.0.1")
    p.add_argument("--port-file", required=True)
    p.add_argument("--maildir", required=True)
    p.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    p.add_argument("--require-starttls", action="store_true")
    p.add_argument("--auth", metavar="USER:PASS")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--fail-first", type=int, default=0)
    p.add_argument("--reject-rcpt", action="append", default=[], metavar="ADDRESS")
    args = p.parse_args()
    if args.require_starttls and not args.starttls:
        p.error("--require-starttls needs --starttls CERT KEY")
    if args.auth and ":" not in args.auth:
        p.error("--auth takes USER:PASS")
    return args


async def main():
    args = parse_args()
    os.makedirs(args.maildir, exist_ok=True)
    tls_context = None
    if args.starttls:
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(args.starttls[0], args.starttls[1])
    authenticator = None
    if args.auth:
        user, password = args.auth.split(":", 1)
        authenticator = Authenticator(user, password)
    handler = Handler(args.maildir, args.delay, args.fail_first, args.reject_rcpt)

    def factory():
        return SMTP(handler,
                    hostname="smtp.test",
                    tls_context=tls_context,
                    require_starttls=args.require_starttls,
                    authenticator=authenticator,
                    auth_required=authenticator is not None,
                    auth_require_tls=True)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(factory, host="127.0.0.1", port=0)
    port = server.sockets[0].getsockname()[1]
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    write_atomically(args.port_file, ("%d\n" % port).encode())
    log("listening on 127.0.0.1:%d" % port)
    await stop.wait()
    server.close()
    await server.wait_closed()
    log("stopped")


if __name__ == "__main__":
    asyncio.run(main())
