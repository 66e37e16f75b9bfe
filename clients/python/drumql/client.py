"""The client of drumql serve's JSON API (see the package's docstring)."""

import builtins
import json
import socket
import urllib.error
import urllib.parse
import urllib.request


class DrumqlError(Exception):
    """An error answered by the server (status and code set) or met on the
    way to it (status 0, code "connection").

    code is the server's stable code: bad_request, parse, auth, not_found,
    method_not_allowed, conflict, too_large, limit, memory_limit, timeout,
    cancelled, internal. line, col and file locate a Datalog error."""

    def __init__(self, message, status=0, code="", line=None, col=None, file=None, body=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.line = line
        self.col = col
        self.file = file
        self.body = body

    def __str__(self):
        where = ""
        if self.line:
            where = "%s:%d:%d: " % (self.file or "", self.line, self.col or 0)
        if self.status:
            return "%s%s (%d %s)" % (where, self.message, self.status, self.code)
        return where + self.message


class ParseError(DrumqlError):
    """Datalog syntax or validation (code parse): line and col say where."""


class AuthError(DrumqlError):
    """A missing or wrong token (code auth)."""


class LimitError(DrumqlError):
    """A limit of the server: the body size, --max-facts or the memory
    limit (codes too_large, limit, memory_limit)."""


class TimeoutError(DrumqlError):  # noqa: A001 (the API's name)
    """The query took longer than the server's --query-timeout (code
    timeout), or the client's own timeout passed."""


class ConflictError(DrumqlError):
    """An added rule is loaded already (code conflict)."""


class NotFoundError(DrumqlError):
    """No such predicate, fact or rule (code not_found), or a fact explain finds
    no proof of (code no_proof)."""


_CLASSES = {
    "parse": ParseError,
    "auth": AuthError,
    "too_large": LimitError,
    "limit": LimitError,
    "memory_limit": LimitError,
    "timeout": TimeoutError,
    "conflict": ConflictError,
    "not_found": NotFoundError,
    "no_proof": NotFoundError,
}


def error_from(status, body):
    """The exception of an error answer: status and its body (bytes)."""
    try:
        e = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        e = None
    if not isinstance(e, dict):
        text = body.decode("utf-8", "replace")[:200]
        return DrumqlError(text or "HTTP %d" % status, status=status, body=body)
    code = e.get("code", "")
    cls = _CLASSES.get(code, DrumqlError)
    return cls(e.get("error", ""), status=status, code=code, line=e.get("line"),
               col=e.get("col"), file=e.get("file"), body=e)


def split_rules(text):
    """Splits a text of rules into statements, each ending with its '.':
    quoted names, comments ('%', '//', '/* */') and decimal points are
    skipped as the dialect reads them; comments are dropped."""
    out, cur, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "%" or text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        cur.append(c)
        i += 1
        if c == "." and not (i < n and text[i].isdigit()):
            stmt = "".join(cur).strip()
            if stmt:
                out.append(stmt)
            cur = []
    rest = "".join(cur).strip()
    if rest:
        out.append(rest)  # the server reports what is missing
    return out


def _texts(rules):
    if isinstance(rules, str):
        return split_rules(rules)
    return list(rules)


def _triples(triples):
    out = []
    for t in triples:
        t = list(t)
        if len(t) != 3:
            raise ValueError("a fact is (subject, relation, object): %r" % (t,))
        out.append([str(x) for x in t])
    return out


class Client:
    """A client of one server: url is its address (http://127.0.0.1:7474),
    token its --token (sent with every request: writes need it, and reads
    when the server has a --read-token), timeout in seconds per request."""

    def __init__(self, url, token=None, timeout=30):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _request(self, method, path, body=None):
        data = None
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raise error_from(e.code, e.read()) from None
        except (socket.timeout, builtins.TimeoutError) as e:
            raise TimeoutError("no answer within %s s (the client's timeout)" % self.timeout,
                               code="timeout") from e
        except urllib.error.URLError as e:
            if isinstance(e.reason, socket.timeout):
                raise TimeoutError("no answer within %s s (the client's timeout)" % self.timeout,
                                   code="timeout") from e
            raise DrumqlError("cannot reach %s: %s" % (self.url, e.reason), code="connection") from e
        return json.loads(raw.decode("utf-8"))

    def health(self):
        """GET /v1/health: {"status": "ok"}."""
        return self._request("GET", "/v1/health")

    def query(self, text, top=None, min=None, combine=None):  # noqa: A002 (the API's name)
        """The answers of a query, best first: a list of dicts, one key per
        variable and "confidence" (a ground query: one dict, {"holds",
        "confidence"})."""
        body = {"query": text}
        if top is not None:
            body["top"] = top
        if min is not None:
            body["min"] = min
        if combine is not None:
            body["combine"] = combine
        out = self._request("POST", "/v1/query", body)
        if isinstance(out, dict):
            return [out]
        return out

    def query_df(self, text, top=None, min=None, combine=None):  # noqa: A002
        """query's answers as a pandas DataFrame (pandas must be
        installed): one column per variable, then confidence."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("query_df needs pandas (pip install pandas); query returns the same rows as dicts") from e
        rows = self.query(text, top=top, min=min, combine=combine)
        if rows and "holds" in rows[0]:
            return pandas.DataFrame(rows)
        columns = _variables(text) + ["confidence"]
        return pandas.DataFrame(rows, columns=columns)

    def explain(self, fact):
        """The best proof of a fact: a tree of dicts (fact, confidence,
        rule, file, line, children)."""
        return self._request("POST", "/v1/explain", {"fact": fact})

    def rules(self, head=None):
        """The loaded rules (of one head predicate), in program order."""
        path = "/v1/rules"
        if head is not None:
            path += "?" + urllib.parse.urlencode({"head": head})
        return self._request("GET", path)

    def add_rules(self, text):
        """Adds rules: a text of rules (split by split_rules) or a list of
        rules, one a string. Returns the update: derived facts added,
        removed and re-weighted."""
        return self._request("POST", "/v1/rules", {"add": _texts(text)})

    def remove_rules(self, texts):
        """Removes loaded rules (matched whatever their weight and variable
        names): a list of rules, or a text of them."""
        return self._request("POST", "/v1/rules", {"remove": _texts(texts)})

    def add_facts(self, triples):
        """Adds base facts, each (subject, relation, object)."""
        return self._request("POST", "/v1/facts", {"add": _triples(triples)})

    def retract_facts(self, triples):
        """Removes base facts, each (subject, relation, object)."""
        return self._request("POST", "/v1/facts", {"remove": _triples(triples)})

    def stats(self):
        """GET /v1/stats: the store's counts, the rules, the files."""
        return self._request("GET", "/v1/stats")


def _variables(text):
    """The named variables of a query atom, in order of first appearance
    (the keys of its answers)."""
    out = []
    open_ = text.find("(")
    close = text.rfind(")")
    if open_ < 0 or close < open_:
        return out
    for arg in _split_args(text[open_ + 1:close]):
        arg = arg.strip()
        if arg and arg != "_" and (arg[0].isupper() or arg[0] == "_") and arg not in out:
            out.append(arg)
    return out


def _split_args(s):
    args, cur, i = [], [], 0
    while i < len(s):
        c = s[i]
        if c == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if c == ",":
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    args.append("".join(cur))
    return args
