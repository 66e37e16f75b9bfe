"""Tests of the drumql client against a real server: DRUMQL_URL is its
address; the server has the token DRUMQL_TEST_TOKEN, --max-body 64K, and
the graph and rules of clients/python/test.sh."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import drumql  # noqa: E402

URL = os.environ.get("DRUMQL_URL", "")
TOKEN = os.environ.get("DRUMQL_TEST_TOKEN", "")


@unittest.skipUnless(URL, "DRUMQL_URL is not set (clients/python/test.sh starts a server)")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.db = drumql.Client(URL, token=TOKEN, timeout=30)
        self.anon = drumql.Client(URL, timeout=30)

    def test_health_and_stats(self):
        self.assertEqual(self.db.health(), {"status": "ok"})
        st = self.db.stats()
        self.assertGreater(st["base_facts"], 0)
        self.assertEqual(st["rules"], len(self.db.rules()))

    def test_query(self):
        rows = self.db.query("wife(X, marc_ueda)?")
        self.assertEqual(rows, [{"X": "alice_ortiz", "confidence": 0.2887}])
        self.assertEqual(self.db.query("wife(alice_ortiz, marc_ueda)?"), [{"holds": True, "confidence": 0.2887}])
        self.assertEqual(len(self.db.query("wife(X, Y)?", top=1)), 1)
        self.assertEqual(self.db.query("wife(X, Y)?", min=0.9), [])
        self.assertEqual(self.db.query("wife(X, marc_ueda)?", combine="noisy-or")[0]["X"], "alice_ortiz")

    def test_query_df(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                self.db.query_df("wife(X, Y)?")
            return
        df = self.db.query_df("wife(X, Y)?")
        self.assertEqual(list(df.columns), ["X", "Y", "confidence"])

    def test_explain_and_rules(self):
        p = self.db.explain("wife(alice_ortiz, marc_ueda)")
        self.assertEqual(p["fact"], "wife(alice_ortiz, marc_ueda)")
        self.assertTrue(p["children"][0]["base"])
        rules = self.db.rules(head="wife")
        self.assertEqual([r["rule"] for r in rules], ["0.2887 :: wife(A, B) :- husband(B, A)."])
        self.assertEqual(self.db.rules(head="nothing"), [])

    def test_edit_rules(self):
        up = self.db.add_rules("0.5 :: spouse(X, Y) :- wife(X, Y). % a comment\n0.5 :: spouse(X, Y) :- husband(X, Y).")
        self.assertEqual(up["rules_added"], 2)
        self.assertIn({"X": "marc_ueda", "confidence": 0.5}, self.db.query("spouse(X, alice_ortiz)?"))
        with self.assertRaises(drumql.ConflictError) as c:
            self.db.add_rules(["0.4 :: spouse(X, Y) :- wife(X, Y)."])
        self.assertEqual(c.exception.status, 409)
        up = self.db.remove_rules(["spouse(A, B) :- wife(A, B).", "spouse(A, B) :- husband(A, B)."])
        self.assertEqual(up["rules_removed"], 2)
        with self.assertRaises(drumql.NotFoundError):
            self.db.remove_rules(["spouse(A, B) :- wife(A, B)."])

    def test_edit_facts(self):
        up = self.db.add_facts([("pat", "husband", "quinn")])
        self.assertEqual(up["base_added"], 1)
        self.assertEqual(self.db.query("wife(quinn, X)?"), [{"X": "pat", "confidence": 0.2887}])
        up = self.db.retract_facts([("pat", "husband", "quinn")])
        self.assertEqual(up["base_removed"], 1)
        self.assertEqual(self.db.query("wife(quinn, X)?"), [])

    def test_errors(self):
        with self.assertRaises(drumql.ParseError) as c:
            self.db.query("wife(X, marc_ueda")
        self.assertEqual((c.exception.code, c.exception.line), ("parse", 1))
        self.assertGreater(c.exception.col, 1)
        with self.assertRaises(drumql.ParseError) as c:
            self.db.add_rules(["p(X) :- q(Y)."])
        self.assertEqual(c.exception.file, "add[0]")
        with self.assertRaises(drumql.AuthError) as c:
            self.anon.add_facts([("a", "husband", "b")])
        self.assertEqual(c.exception.status, 401)
        with self.assertRaises(drumql.LimitError) as c:
            self.db.query("wife(X, %s)?" % ("x" * 70000))
        self.assertEqual(c.exception.code, "too_large")
        with self.assertRaises(drumql.NotFoundError):
            self.db.query("wief(X, Y)?")
        with self.assertRaises(drumql.DrumqlError) as c:
            drumql.Client("http://127.0.0.1:9", timeout=5).health()
        self.assertEqual(c.exception.code, "connection")
        with self.assertRaises(ValueError):
            self.db.add_facts([("a", "b")])


class MappingTest(unittest.TestCase):
    """The exception of each code, without a server."""

    def test_codes(self):
        for code, cls in [("parse", drumql.ParseError), ("auth", drumql.AuthError),
                          ("too_large", drumql.LimitError), ("limit", drumql.LimitError),
                          ("memory_limit", drumql.LimitError), ("timeout", drumql.TimeoutError),
                          ("conflict", drumql.ConflictError), ("not_found", drumql.NotFoundError),
                          ("internal", drumql.DrumqlError)]:
            e = drumql.client.error_from(500, ('{"error": "x", "code": "%s", "line": 2, "col": 3}' % code).encode())
            self.assertIs(type(e), cls, code)
            self.assertEqual((e.code, e.line, e.col), (code, 2, 3))
        e = drumql.client.error_from(502, b"<html>bad gateway</html>")
        self.assertIs(type(e), drumql.DrumqlError)
        self.assertEqual(e.status, 502)

    def test_split_rules(self):
        self.assertEqual(drumql.split_rules('a(X) :- b(X). % c.\n/* d. */ 0.5 :: e("x.y") :- f(X), X > 1.5.'),
                         ['a(X) :- b(X).', '0.5 :: e("x.y") :- f(X), X > 1.5.'])


if __name__ == "__main__":
    unittest.main()
