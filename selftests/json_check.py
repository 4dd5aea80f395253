#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""json_check.py SCHEMA DEF [FILE]: validate every JSON value of FILE (or
standard input) against the definition DEF ($defs/DEF) of SCHEMA; values
may follow one another (one per line, or indented). Exit 0 if there was at
least one and all of them are valid; else say why on stderr, exit 1."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    sub = {"$schema": schema.get("$schema"), "$defs": schema["$defs"],
           "$ref": "#/$defs/" + sys.argv[2]}
    validator = jsonschema.Draft202012Validator(sub)
    text = open(sys.argv[3]).read() if len(sys.argv) > 3 else sys.stdin.read()
    dec = json.JSONDecoder()
    i = n = bad = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        try:
            value, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as e:
            print("json_check: not JSON: %s" % e, file=sys.stderr)
            return 1
        n += 1
        for err in validator.iter_errors(value):
            bad += 1
            print("json_check: value %d: %s at %s" %
                  (n, err.message, "/".join(str(p) for p in err.absolute_path)),
                  file=sys.stderr)
    if not n:
        print("json_check: no JSON value", file=sys.stderr)
    return 0 if n and not bad else 1


sys.exit(main())
