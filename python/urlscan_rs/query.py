"""Search queries built safely: values quoted for the search syntax, and a small
builder whose output the service's parser accepts.

The search syntax is Elasticsearch's ``query_string``: a value with a space,
``/``, ``:``, a quote or another special character must be quoted or escaped,
or the query means something else or is refused (400). :func:`quote` does it,
and :class:`Q` builds whole queries from parts, each value quoted::

    >>> from urlscan_rs.query import Q, quote
    >>> quote("https://evil.example/a b")
    '"https://evil.example/a b"'
    >>> str(Q.domain("x.com") & Q.date(">now-7d") | ~Q.ip("1.2.3.4"))
    '(domain:x.com AND date:>now-7d) OR (NOT ip:1.2.3.4)'

A :class:`Q` is a ``str``, so it goes wherever a query does:
``client.search(Q.hash(sha256))``.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["Q", "quote"]

# A value that stays a plain term: none of the syntax's special characters, no wildcard
# (a value is literal), no leading operator, not a keyword.
_TERM = re.compile(r'[^\s+\-!():^\[\]"{}~\\/*?&|<>=][^\s!():^\[\]"{}~\\/*?&|]*')
_KEYWORDS = frozenset({"AND", "OR", "NOT", "TO"})
# Field names as the service takes them (no wildcards: it refuses them).
_FIELD = re.compile(r"[A-Za-z0-9_@][A-Za-z0-9_@.\-]*")
# A comparison's value left as written after `>`: `now-7d`, `2026-11-20`, `100`, `-1.5`.
_CMP_WORD = re.compile(r"[A-Za-z0-9_.+\-]+")
_RANGE_WORD = re.compile(r'[^\s\[\]{}"\\]+')
_CMP = re.compile(r"(>=|<=|>|<)(.*)", re.S)

Value = str | int | float | _dt.date


def _text(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat(timespec="milliseconds") + "Z"
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    raise TypeError(f"a query value is a str, number, date or datetime, got {type(value).__name__}")


def quote(value: Value) -> str:
    """``value`` as one literal value of the search syntax: as it is when it is a
    plain term, else a quoted phrase with ``"`` and ``\\`` escaped.

    >>> quote("example.com"), quote('say "hi"'), quote("a/b:c")
    ('example.com', '"say \\\\"hi\\\\""', '"a/b:c"')
    """
    s = _text(value)
    return s if _TERM.fullmatch(s) and s not in _KEYWORDS else _phrase(s)


def _host(value: str) -> str:
    """A domain given as a URL or with a trailing dot or slash, as the bare host name."""
    v = value.strip()
    if "://" in v:
        v = urlsplit(v).hostname or v
    return v.rstrip("/").rstrip(".")


def _hosts(value: str | Iterable[str]) -> str | list[str]:
    return _host(value) if isinstance(value, str) else [_host(v) for v in value]


class Q(str):
    """A search query (a ``str``), combined with ``&`` (AND), ``|`` (OR) and ``~``
    (NOT); parts of another operator are put in parentheses, so the query means
    what the Python expression does."""

    __slots__ = ()

    # -- parts

    @classmethod
    def field(cls, name: str, value: Value | Iterable[Value]) -> Q:
        """``name:value``, the value quoted; several values are any of them
        (``name:(a OR b)``)."""
        _name(name)
        if isinstance(value, (str, int, float, _dt.date)):
            return _Atom(f"{name}:{quote(value)}")
        values = [quote(v) for v in value]
        if not values:
            raise ValueError(f"no value given for {name}")
        return _Atom(f"{name}:{values[0]}" if len(values) == 1 else f"{name}:({' OR '.join(values)})")

    @classmethod
    def text(cls, value: Value) -> Q:
        """A value searched in every default field."""
        return _Atom(quote(value))

    @classmethod
    def domain(cls, value: str | Iterable[str]) -> Q:
        """Scans that touched the domain or a subdomain of it (``domain:``); a URL or a
        trailing ``/`` or ``.`` is reduced to the host name."""
        return cls.field("domain", _hosts(value))

    @classmethod
    def page_domain(cls, value: str | Iterable[str]) -> Q:
        """Scans whose final page is on the domain (``page.domain:``)."""
        return cls.field("page.domain", _hosts(value))

    @classmethod
    def ip(cls, value: str | Iterable[str]) -> Q:
        """Scans that contacted the IP address (``ip:``)."""
        return cls.field("ip", value)

    @classmethod
    def asn(cls, value: str | int | Iterable[str | int]) -> Q:
        """Scans that contacted the network (``asn:AS15169``; a number gets its ``AS``)."""

        def one(v: str | int) -> str:
            return f"AS{v}" if isinstance(v, int) or str(v).isdigit() else str(v)

        return cls.field("asn", one(value) if isinstance(value, (str, int)) else [one(v) for v in value])

    @classmethod
    def country(cls, value: str | Iterable[str]) -> Q:
        """Scans whose page was served from the country (``page.country:``, ISO code)."""
        return cls.field("page.country", value)

    @classmethod
    def url(cls, value: str | Iterable[str]) -> Q:
        """Scans of exactly this submitted URL (``task.url:``)."""
        return cls.field("task.url", value)

    @classmethod
    def page_url(cls, value: str | Iterable[str]) -> Q:
        """Scans whose final page is exactly this URL (``page.url:``)."""
        return cls.field("page.url", value)

    @classmethod
    def hash(cls, value: str | Iterable[str]) -> Q:
        """Scans that loaded a resource of this SHA-256 (``hash:``)."""
        return cls.field("hash", value)

    @classmethod
    def tag(cls, value: str | Iterable[str]) -> Q:
        """Scans tagged so (``task.tags:``)."""
        return cls.field("task.tags", value)

    @classmethod
    def server(cls, value: str | Iterable[str]) -> Q:
        """Scans whose page's server header is this (``page.server:``)."""
        return cls.field("page.server", value)

    @classmethod
    def page_title(cls, value: str) -> Q:
        """Scans whose page title holds these words (``page.title:``)."""
        return cls.field("page.title", value)

    @classmethod
    def range(
        cls,
        name: str,
        *,
        gt: Value | None = None,
        gte: Value | None = None,
        lt: Value | None = None,
        lte: Value | None = None,
    ) -> Q:
        """``name`` compared with one bound (``stats.uniqIPs:>10``) or between two
        (``date:[2026-11-01 TO 2026-11-20}``)."""
        if gt is not None and gte is not None or lt is not None and lte is not None:
            raise ValueError("give at most one lower bound (gt or gte) and one upper bound (lt or lte)")
        low = ("{", gt) if gt is not None else ("[", gte) if gte is not None else None
        high = ("}", lt) if lt is not None else ("]", lte) if lte is not None else None
        if low is None and high is None:
            raise ValueError(f"no bound given for {name}")
        if low is not None and high is not None:
            return _Atom(f"{_name(name)}:{low[0]}{_bound(low[1])} TO {_bound(high[1])}{high[0]}")
        if low is not None:
            return cls.compare(name, ">" if low[0] == "{" else ">=", low[1])
        assert high is not None
        return cls.compare(name, "<" if high[0] == "}" else "<=", high[1])

    @classmethod
    def compare(cls, name: str, op: str, value: Value) -> Q:
        """``name`` compared with a value: ``op`` is ``>``, ``>=``, ``<`` or ``<=``."""
        if op not in (">", ">=", "<", "<="):
            raise ValueError(f"op must be >, >=, < or <=, got {op!r}")
        s = _text(value)
        if _CMP_WORD.fullmatch(s):
            return _Atom(f"{_name(name)}:{op}{s}")
        # `:` or `/` would end the value or start a regex after `>`: an open range takes any bound.
        low, high = {">": ("{", None), ">=": ("[", None), "<": (None, "}"), "<=": (None, "]")}[op]
        if low is not None:
            return _Atom(f"{_name(name)}:{low}{_bound(s)} TO *]")
        return _Atom(f"{_name(name)}:[* TO {_bound(s)}{high}")

    @classmethod
    def date(cls, spec: str | _dt.date | None = None, **bounds: Value | None) -> Q:
        """The scan's date: ``Q.date(">now-7d")``, ``Q.date(">=2026-11-01")``, a day
        (``Q.date(datetime.date(2026, 11, 20))``) or bounds
        (``Q.date(gte=start, lt=end)``, as :meth:`range`)."""
        if spec is None:
            return cls.range("date", **bounds)
        if bounds:
            raise ValueError("give a spec or bounds, not both")
        if isinstance(spec, str):
            m = _CMP.fullmatch(spec.strip())
            if m is not None:
                return cls.compare("date", m.group(1), m.group(2))
        return cls.field("date", spec)

    # -- combining

    def __and__(self, other: object) -> Q:
        if not isinstance(other, Q):
            return NotImplemented
        return _And(f"{self._as(_And)} AND {other._as(_And)}")

    def __or__(self, other: object) -> Q:
        if not isinstance(other, Q):
            return NotImplemented
        return _Or(f"{self._as(_Or)} OR {other._as(_Or)}")

    def __invert__(self) -> Q:
        return _Not(f"NOT {self._as(_Not)}")

    def _as(self, parent: type[Q]) -> str:
        """This query as a part of a `parent` operator: in parentheses unless it binds as one.

        A NOT under an OR is put in parentheses too: written bare (``a OR NOT b``),
        Lucene's parser makes it a clause every match must satisfy (``a AND NOT b``);
        alone in its group it matches everything but ``b``."""
        if isinstance(self, _Atom) or type(self) is parent or (isinstance(self, _Not) and parent is not _Or):
            return str(self)
        return f"({self})"

    def __repr__(self) -> str:
        return f"Q({str(self)!r})"


def _name(name: str) -> str:
    if not isinstance(name, str) or not _FIELD.fullmatch(name):
        raise ValueError(f"not a search field name: {name!r} (letters, digits, _, @, . and -; no wildcards)")
    return name


def _phrase(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bound(v: Value) -> str:
    """A range bound: as it is when the range syntax allows, else a phrase."""
    s = _text(v)
    return s if _RANGE_WORD.fullmatch(s) and s not in ("TO", "*") else _phrase(s)


class _Atom(Q):
    __slots__ = ()


class _And(Q):
    __slots__ = ()


class _Or(Q):
    __slots__ = ()


class _Not(Q):
    __slots__ = ()
