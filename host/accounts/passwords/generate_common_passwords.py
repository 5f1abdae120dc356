#!/usr/bin/env python3
"""Writes the C++ source of Rapport's list of common passwords.

    generate_common_passwords.py FREQUENCY_LISTS_PY OUTPUT_CPP

FREQUENCY_LISTS_PY is zxcvbn's frequency_lists.py (Debian: python3-zxcvbn,
/usr/lib/python3/dist-packages/zxcvbn/frequency_lists.py). Its
FREQUENCY_LISTS['passwords'] holds 30,000 passwords, most common first
(Xato's corpus, as shipped by zxcvbn under the MIT licence). The file is read
as data (ast), never imported or executed, so any Python 3 can
run this script whatever its module path.

Only entries a new password could equal are kept: 8 to 128 characters (the
length rule of decisions §3 refuses the others first). They are lower-cased
(ASCII, as rapport::toLower does), de-duplicated and sorted bytewise, so the
server finds a password by binary search on its lower-cased form.
"""

import ast
import os
import sys

MIN_LENGTH = 8
MAX_LENGTH = 128


def literal_list(node, path):
    """The list a node spells: a list literal, a string, or "a,b".split(",")."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "split" and len(node.args) == 1 and not node.keywords:
        text = ast.literal_eval(node.func.value)
        separator = ast.literal_eval(node.args[0])
        if isinstance(text, str) and isinstance(separator, str):
            return text.split(separator)
    value = ast.literal_eval(node)
    if isinstance(value, str):
        return value.split(",")
    if isinstance(value, list):
        return value
    raise SystemExit(f"{path}: FREQUENCY_LISTS['passwords'] has an unexpected shape")


def read_passwords(path):
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), filename=path)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "FREQUENCY_LISTS"
                and isinstance(node.value, ast.Dict)):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and key.value == "passwords":
                    return literal_list(value, path)
    raise SystemExit(f"{path}: no FREQUENCY_LISTS['passwords'] found")


def ascii_lower(text):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def c_literal(text):
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in "\\\"":
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7f and ch != "?":  # '?' avoids trigraph look-alikes
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    source, output = sys.argv[1], sys.argv[2]
    raw = read_passwords(source)
    if len(raw) < 10000:
        raise SystemExit(f"{source}: only {len(raw)} passwords; expected zxcvbn's 30,000")
    kept = sorted({ascii_lower(p) for p in raw if MIN_LENGTH <= len(p) <= MAX_LENGTH},
                  key=lambda p: p.encode("utf-8"))
    lines = [
        "// Generated at build time by host/accounts/passwords/generate_common_passwords.py",
        f"// from zxcvbn's frequency_lists.py: {len(raw)} passwords, {len(kept)} kept",
        f"// ({MIN_LENGTH} to {MAX_LENGTH} characters, lower-cased, sorted). Do not edit.",
        "#include <string_view>",
        "",
        '#include "accounts/passwords/CommonPasswordList.h"',
        "",
        "namespace rapport::host::accounts::passwords::generated {",
        "",
        "using namespace std::string_view_literals;",
        "",
        f"const std::string_view kCommonPasswords[{len(kept)}] = {{",
    ]
    lines += [f"    {c_literal(p)}sv," for p in kept]
    lines += [
        "};",
        f"const std::size_t kCommonPasswordCount = {len(kept)};",
        "",
        "}  // namespace rapport::host::accounts::passwords::generated",
        "",
    ]
    temporary = output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
    os.replace(temporary, output)


if __name__ == "__main__":
    main()
