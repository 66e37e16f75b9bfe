"""A client of the HTTP API of `drumql serve`, standard library only.

    import drumql
    db = drumql.Client("http://127.0.0.1:7474", token=None, timeout=30)
    db.query("wife(X, marc_ueda)?", top=3)   # [{"X": "alice_ortiz", "confidence": 0.75}, ...]

Errors are DrumqlError, or one of its subclasses chosen by the stable
`code` of the server's error body: ParseError (with line and col),
AuthError, LimitError, TimeoutError, ConflictError, NotFoundError.
query_df returns a pandas DataFrame when pandas is installed.
"""

from .client import (
    AuthError,
    Client,
    ConflictError,
    DrumqlError,
    LimitError,
    NotFoundError,
    ParseError,
    TimeoutError,
    split_rules,
)

__all__ = [
    "AuthError",
    "Client",
    "ConflictError",
    "DrumqlError",
    "LimitError",
    "NotFoundError",
    "ParseError",
    "TimeoutError",
    "split_rules",
]
