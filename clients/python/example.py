#!/usr/bin/env python3
"""The quick start's question through drumql serve, from Python.

    bin/drumql serve families.dl examples/families/expert.dl &
    python3 clients/python/example.py [URL]

Asks who Marc Ueda's wife is, prints the best answers and the proof of the
first, the wife rules, and what adding a fact derives (then removes it).
DRUMQL_TOKEN is the server's --token, if it has one.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import drumql  # noqa: E402


def main():
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:7474"
    db = drumql.Client(url, token=os.environ.get("DRUMQL_TOKEN"))
    answers = db.query("wife(X, marc_ueda)?", top=3)
    for a in answers:
        print("%-14s %s" % (a["X"], a["confidence"]))
    if answers:
        proof = db.explain("wife(%s, marc_ueda)" % answers[0]["X"])
        print("proof:", proof["fact"], proof.get("rule", "(a base fact)"))
    for r in db.rules(head="wife")[:5]:
        print("rule:", r["rule"])
    try:
        update = db.add_facts([("marc_ueda", "husband", "zoe_example")])
        print("adding a fact derived %d facts" % update["added"])
        db.retract_facts([("marc_ueda", "husband", "zoe_example")])
    except drumql.AuthError:
        print("the server wants a token for edits: set DRUMQL_TOKEN")
    try:
        db.query("wife(X, marc_ueda")
    except drumql.ParseError as e:
        print("a syntax error at line %s, column %s: %s" % (e.line, e.col, e.message))


if __name__ == "__main__":
    main()
