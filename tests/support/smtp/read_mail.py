#!/usr/bin/python3
"""Prints one .eml file as JSON, read with Python's email package (policy
default: headers decoded), for SmtpServer.cpp's readMail(): an independent
reading of the MIME the mailer wrote."""

import email
import email.policy
import json
import sys

with open(sys.argv[1], "rb") as f:
    message = email.message_from_binary_file(f, policy=email.policy.default)
out = {
    "from": str(message.get("From", "")),
    "to": str(message.get("To", "")),
    "subject": str(message.get("Subject", "")),
    "date": str(message.get("Date", "")),
    "message_id": str(message.get("Message-ID", "")),
    "content_type": message.get_content_type(),
    "text": "",
    "html": "",
    "defects": [str(d) for d in message.defects],
}
for part in message.walk():
    if part.is_multipart():
        continue
    kind = part.get_content_type()
    if kind == "text/plain" and not out["text"]:
        out["text"] = part.get_content()
    elif kind == "text/html" and not out["html"]:
        out["html"] = part.get_content()
print(json.dumps(out))
