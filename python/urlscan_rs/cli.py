"""The ``urlscan-rs`` command line (also ``python -m urlscan_rs``).

Usage: ``urlscan-rs [--api-key KEY] [--base-url URL] [--json] [--timeout S] COMMAND ...``

Commands, by what they work on:

* scans: ``scan``, ``result``, ``screenshot``, ``dom``, ``response``,
  ``visibility {set,reset}``, ``bulk``
* search: ``search``, ``similar``, ``phishfeed``, ``hostname``
* account: ``quotas``, ``user``, ``countries``, ``user-agents``,
  ``key {set,show,delete}``
* premium: ``livescan``, ``saved-search``, ``subscription``, ``channel``,
  ``incident``, ``brand``, ``file``, ``datadump`` (one action per method of
  the client's namespace of that name, derived from its typed signature)
* tools: ``listen``, ``emulator``, ``demo``

The API key comes from ``--api-key``, else ``URLSCAN_API_KEY``, else the
system keyring (``urlscan-rs key set``, needs the optional ``keyring``
package); the service address from ``--base-url``, else ``URLSCAN_BASE_URL``.
The global options are also accepted after the command. An argument given as
``-`` (a uuid, URL, query or hash) is read from stdin.

Output is a readable summary or an aligned table (colours only when stdout is a
terminal and ``NO_COLOR`` is unset). With ``--json`` every line is exactly one
JSON object: the wire form of results, submissions, search hits, hostname
records, incidents, notifications and the other models, and a small object for
anything else (``bulk`` gives ``{"url", "ok", "uuid", "submission", "result",
"error"}`` per URL). Progress bars go to stderr, and only when stderr is a
terminal. Errors go to stderr, with what went wrong and what to do about it.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import dataclasses
import difflib
import getpass
import importlib
import io
import itertools
import json
import logging
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeGuard, TypeVar

from . import __version__
from ._artifacts import KINDS as ARTIFACTS
from ._artifacts import save as save_artifacts
from ._client import AsyncClient, Client
from ._keys import KEYRING_INSTALL, KEYRING_SERVICE, KEYRING_SOURCE, KEYRING_USER, stored_key
from ._keys import keyring as _keyring
from ._progress import ProgressBar
from ._refang import as_url
from .errors import (
    APIError,
    AuthenticationError,
    BadRequestError,
    DecodeError,
    GoneError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeout,
    ScanPendingError,
    ScanRefusedError,
    ScanTimeoutError,
    ServerError,
    TransportError,
    UrlscanError,
    ValidationError,
)
from .models import (
    Brand,
    BrandSummary,
    CertificateHit,
    Channel,
    DataDumpFile,
    DomainHit,
    HostnameHit,
    Incident,
    IncidentHit,
    IncidentState,
    LiveScanner,
    Model,
    Notification,
    NotificationHit,
    SavedSearch,
    ScanOutcome,
    ScanResult,
    SearchHit,
    Submission,
    Subscription,
    UserAgentGroup,
    Verdict,
    VisibilityChange,
)

__all__ = [
    "main",
    "build_parser",
    "leaf_commands",
    "endpoints",
    "stub_signatures",
    "api_key_source",
    "exit_code_for",
    "describe_error",
    "notification_line",
    "EXIT_CODES_HELP",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4
EXIT_RATE_LIMITED = 5
EXIT_TRANSPORT = 6
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

# The end of the module docstring too, and of the --help epilog.
EXIT_CODES_HELP = """\
Exit codes:
  0    success
  1    the service answered with an error, or a bulk job had failures
  2    usage or validation error (bad arguments, input rejected before
       sending, unreadable input file or unwritable output file)
  3    not found or gone (no such scan or object, scan not finished yet,
       scan deleted)
  4    authentication or permission (missing or unknown API key, plan or
       key scope does not allow it)
  5    rate limited
  6    transport or timeout (connection, DNS, TLS, request timeout, gave up
       waiting for a scan)
  130  interrupted (Ctrl-C)
  141  stdout was closed early (e.g. piped into head)
"""
__doc__ = __doc__ and f"{__doc__}\n{EXIT_CODES_HELP}"  # None under python -OO

# Searches asking for more hits than this get a progress bar (on a terminal).
SEARCH_PROGRESS_ABOVE = 300


class CliError(Exception):
    """A failure found by the command line itself, with its exit code."""

    code = EXIT_ERROR

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class UsageError(CliError):
    """A problem with the command line itself, found after parsing (exit code 2)."""

    code = EXIT_USAGE


class Interrupted(KeyboardInterrupt):
    """Ctrl-C after some scans were submitted: ``submitted`` holds (uuid, url) pairs."""

    def __init__(self, submitted: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.submitted = list(submitted)


# ------------------------------------------------------------------ errors


def exit_code_for(err: BaseException) -> int:
    """The documented exit code for an exception."""
    if isinstance(err, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(err, CliError):
        return err.code
    if isinstance(err, ValidationError):
        return EXIT_USAGE
    if isinstance(err, (NotFoundError, GoneError)):
        return EXIT_NOT_FOUND
    if isinstance(err, (AuthenticationError, PermissionDeniedError)):
        return EXIT_AUTH
    if isinstance(err, RateLimitError):
        return EXIT_RATE_LIMITED
    if isinstance(err, (TransportError, ScanTimeoutError)):
        return EXIT_TRANSPORT
    return EXIT_ERROR


def _detail(err: APIError) -> str:
    """The service's message, with its description when that adds something."""
    msg = err.message or str(err)
    desc = err.description
    if desc and desc not in msg:
        msg = f"{msg} ({desc})"
    return msg


def _short_error(err: BaseException) -> str:
    """One line: the error class and what the service or the check said."""
    text = _detail(err) if isinstance(err, APIError) else str(err)
    return f"{type(err).__name__}: {text}"


def describe_error(
    err: UrlscanError, *, base_url: str | None = None, key_given: bool = True, timeout: float | None = None
) -> str:
    """What went wrong and what to do about it, for stderr."""
    if isinstance(err, ValidationError):
        return f"invalid input: {err} (nothing was sent)"
    if isinstance(err, ScanPendingError):
        return "the scan has not finished yet; retry or use scan --wait"
    if isinstance(err, NotFoundError):
        return f"not found: {_detail(err)}"
    if isinstance(err, GoneError):
        return f"gone: {_detail(err)}"
    if isinstance(err, AuthenticationError):
        if not key_given:
            return "no API key was given: set URLSCAN_API_KEY or pass --api-key (or store one: urlscan-rs key set)"
        return f"the API key was refused: {_detail(err)}; check URLSCAN_API_KEY, --api-key or `urlscan-rs key show`"
    if isinstance(err, PermissionDeniedError):
        return f"permission denied: {_detail(err)}; use a key whose plan and scopes allow this"
    if isinstance(err, RateLimitError):
        when = ""
        if err.reset_after is not None:
            when = f" in {err.reset_after:.0f}s"
            if err.reset_at is not None:
                when += f" (at {err.reset_at:%H:%M:%S} UTC)"
        what = f" for {err.action!r} ({err.window} window)" if err.action and err.window else ""
        return f"rate limited{what}: {err.message or err}; retry{when}, or see `urlscan-rs quotas`"
    if isinstance(err, ScanRefusedError):
        return f"the service refused to scan the URL: {_detail(err)}"
    if isinstance(err, BadRequestError):
        return f"bad request: {_detail(err)}"
    if isinstance(err, ServerError):
        return f"the service failed (HTTP {err.status}): {_detail(err)}; retry later"
    if isinstance(err, APIError):
        return f"the service answered HTTP {err.status}: {_detail(err)}"
    if isinstance(err, RequestTimeout):
        limit = f" after {timeout:g}s" if timeout else ""
        return f"the request timed out{limit} ({err}); retry, or raise --timeout"
    if isinstance(err, TransportError):
        where = f" {base_url}" if base_url else " the service"
        return f"could not reach{where}: {err}; check --base-url / URLSCAN_BASE_URL and the network"
    if isinstance(err, ScanTimeoutError):
        uuid = getattr(err, "uuid", None)
        waited = getattr(err, "timeout", None)
        after = f" after {waited:g}s" if isinstance(waited, (int, float)) else ""
        later = f"run `urlscan-rs result {uuid}` later" if uuid else "fetch the result later"
        return f"gave up waiting for scan {uuid or ''}{after}; it may still finish: {later}, or raise --wait-timeout"
    if isinstance(err, DecodeError):
        return f"unexpected answer from the service: {err}"
    return str(err)


# ------------------------------------------------------------------ output


def _isatty(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def _colour_ok(stream: TextIO) -> bool:
    return _isatty(stream) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


BOLD, DIM, RED, GREEN, YELLOW, CYAN = "1", "2", "31", "32", "33", "36"

Cell = str | tuple[str, str | None]  # text, or (text, colour code)


class Output:
    """Where a command writes: JSON lines or human text (coloured on a terminal)."""

    def __init__(self, as_json: bool) -> None:
        self.json = as_json
        self.colour = not as_json and _colour_ok(sys.stdout)
        self.stdout_tty = _isatty(sys.stdout)
        self.bar: ProgressBar | None = None

    def progress(self, label: str, total: int | None = None, *, enabled: bool = True) -> ProgressBar:
        """A bar on stderr (drawn only when stderr is a terminal)."""
        self.bar = ProgressBar(label, total, stream=sys.stderr, enabled=enabled and _isatty(sys.stderr))
        return self.bar

    def _before_write(self) -> None:
        if self.bar is not None and self.stdout_tty:
            self.bar.clear()  # the same terminal: do not write over the bar

    def emit(self, obj: Any) -> None:
        """One JSON object on one line."""
        self._before_write()
        sys.stdout.write(json.dumps(obj, default=str, separators=(",", ":")) + "\n")

    def line(self, text: str = "") -> None:
        self._before_write()
        sys.stdout.write(text + "\n")

    def paint(self, text: str, code: str | None) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and code else text

    def block(self, title: str, rows: Sequence[tuple[str, Cell | None]]) -> None:
        """A title and aligned ``label  value`` rows."""
        self.line(self.paint(title, BOLD))
        width = max((len(k) for k, _ in rows), default=0)
        for key, value in rows:
            text, code = (value, None) if not isinstance(value, tuple) else value
            shown = text if text not in (None, "") else "-"
            self.line(f"  {self.paint(key.ljust(width), DIM)}  {self.paint(str(shown), code)}")

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, right: frozenset[int] = frozenset()) -> None:
        """Aligned columns; ``headers`` may be empty for a table without a header line."""
        plain = [[c if isinstance(c, str) else c[0] for c in row] for row in rows]
        ncols = max([len(headers)] + [len(r) for r in plain])
        widths = [0] * ncols
        for texts in [list(headers)] + plain:
            for i, text in enumerate(texts):
                widths[i] = max(widths[i], len(text))

        def fmt(cells: Sequence[Cell], header: bool = False) -> str:
            parts = []
            for i, cell in enumerate(cells):
                text, code = (cell, None) if isinstance(cell, str) else cell
                last = i == len(cells) - 1
                padded = text.rjust(widths[i]) if i in right else (text if last else text.ljust(widths[i]))
                parts.append(self.paint(padded, BOLD if header else code))
            return "  ".join(parts).rstrip()

        if headers:
            self.line(fmt(headers, header=True))
        for row in rows:
            self.line(fmt(row))


def _err(message: str) -> None:
    prefix = "\x1b[31merror:\x1b[0m" if _colour_ok(sys.stderr) else "error:"
    sys.stderr.write(f"urlscan-rs: {prefix} {message}\n")
    sys.stderr.flush()


def _note(message: str) -> None:
    sys.stderr.write(f"urlscan-rs: {message}\n")
    sys.stderr.flush()


class _NoteHandler(logging.Handler):
    """The client's warnings (a wait longer than 5 s for a rate-limit window or a retry) as notes on stderr."""

    def __init__(self, out: Output) -> None:
        super().__init__(logging.WARNING)
        self._out = out

    def emit(self, record: logging.LogRecord) -> None:
        if self._out.bar is not None:
            self._out.bar.clear()  # a note must not land on the bar's line; it is redrawn at its next tick
        _note(record.getMessage())


def _show_waits(out: Output) -> logging.Handler:
    log = logging.getLogger("urlscan_rs")
    handler = _NoteHandler(out)
    log.addHandler(handler)
    log.propagate = False  # shown once, as a note, not again by logging's last resort
    return handler


def _when(t: datetime | None, minutes: bool = False) -> str:
    if t is None:
        return "-"
    return f"{t:%Y-%m-%d %H:%M}" if minutes else f"{t:%Y-%m-%d %H:%M:%S} UTC"


def _clip(text: str | None, width: int) -> str:
    if not text:
        return "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def _verdict(v: Verdict) -> Cell:
    score = "?" if v.score is None else str(v.score)
    if v.malicious is True:
        text, code = f"malicious (score {score})", RED
    elif v.malicious is None:  # unknown is never shown as clean
        text, code = f"no verdict (score {score})", None
    elif v.has_verdicts is False and not v.score:
        text, code = f"no classification (score {score})", None
    else:
        text, code = f"not malicious (score {score})", GREEN
    extra = list(v.categories)
    brands = [b if isinstance(b, str) else (b.name or b.key) for b in v.brands]
    if brands:
        extra.append("brand " + ", ".join(str(b) for b in brands if b))
    if extra:
        text += ": " + "; ".join(extra)
    return (text, code)


def _score(v: Verdict) -> Cell:
    text = "-" if v.score is None else str(v.score)
    return (text, RED) if v.malicious is True else text


# ------------------------------------------------------------------ printing models


def _print_result(out: Output, r: ScanResult, base_url: str) -> None:
    if out.json:
        out.emit(r.raw)
        return
    t, p = r.task, r.page
    rows: list[tuple[str, Cell | None]] = [("URL", t.url or p.url)]
    if p.url and p.url != t.url:
        rows.append(("Final URL", p.url))
    ip = p.ip
    if ip and (p.asn or p.asnname):
        ip = f"{ip} ({' '.join(x for x in (p.asn, p.asnname) if x)})"
    country = ", ".join(x for x in (p.country, p.city) if x)
    report = t.report_url or f"{base_url.rstrip('/')}/result/{r.uuid}/"
    rows += [
        ("Domain", p.domain),
        ("IP", ip),
        ("Country", country),
        ("Server", p.server),
        ("Title", p.title),
        ("Verdict", _verdict(r.verdicts.overall)),
        ("Scanned", _when(t.time)),
        ("Report", (report, CYAN)),
    ]
    out.block(f"Scan {r.uuid}", rows)


def _print_submission(out: Output, sub: Submission) -> None:
    if out.json:
        out.emit(sub.raw)
        return
    out.block(
        f"Submitted {sub.url}",
        [
            ("UUID", sub.uuid),
            ("Visibility", sub.visibility),
            ("Country", sub.country),
            ("Report", (sub.result, CYAN) if sub.result else None),
            ("API", sub.api),
        ],
    )
    out.line(out.paint(f"  results are usually ready within 10-30 s: urlscan-rs result {sub.uuid}", DIM))


def _print_incident(out: Output, inc: Incident, title: str = "Incident") -> None:
    if out.json:
        out.emit(inc.raw)
        return
    state = inc.state
    interval = f"{inc.scan_interval}s" if inc.scan_interval is not None else None
    if interval and inc.scan_interval_mode:
        interval += f" ({inc.scan_interval_mode})"
    source = " ".join(x for x in (inc.source_type, inc.source_id) if x)
    out.block(
        f"{title} {inc.id}",
        [
            ("Observable", inc.observable),
            ("State", (state or "-", GREEN if state == "active" else YELLOW)),
            ("Type", inc.type),
            ("Visibility", inc.visibility),
            ("Channels", ", ".join(inc.channels)),
            ("Scan interval", interval),
            ("Observations", None if inc.state_count is None else str(inc.state_count)),
            ("Created", _when(inc.created_at)),
            ("Last scan", _when(inc.scanned_at)),
            ("Expires", _when(inc.expire_at)),
            ("Source", source),
        ],
    )


# ------------------------------------------------------------------ printing any model


def _hit_row(hit: Any) -> list[Cell]:
    """One table row per hit, by the hit's data source."""
    if isinstance(hit, HostnameHit):
        sources = ", ".join(hit.sources or []) or "-"
        return [
            _when(hit.last_seen, minutes=True),
            _clip(hit.hostname, 50),
            hit.domain or "-",
            _when(hit.first_seen, True),
            sources,
        ]
    if isinstance(hit, IncidentHit):
        return [_when(hit.created_at, minutes=True), hit.state or "-", _clip(hit.observable, 50), hit.source_type or "-", hit.id]
    if isinstance(hit, NotificationHit):
        about = hit.subscription_name or hit.subscription_id or hit.observable or hit.incident_id
        return [_when(hit.created_at, minutes=True), hit.type or "-", _clip(about, 40), _count(hit.total), hit.id]
    if isinstance(hit, CertificateHit):
        return [
            _when(hit.last_seen, minutes=True),
            _clip(hit.domain, 40),
            _clip(hit.issuer, 40),
            _when(hit.valid_to, True),
            hit.id,
        ]
    if isinstance(hit, DomainHit):
        return [
            _when(hit.last_seen, minutes=True),
            _clip(hit.domain, 50),
            _count(hit.scan_count),
            hit.ip or "-",
            hit.country or "-",
            _when(hit.first_seen, True),
        ]
    return [
        _when(hit.task.time, minutes=True),
        _clip(hit.page.domain, 50),
        hit.page.ip or "-",
        hit.page.country or "-",
        _score(hit.verdicts),
        hit.id,
    ]


def _count(n: int | None) -> str:
    return "-" if n is None else str(n)


# Table headers per data source, and the right-aligned columns.
HIT_HEADERS: dict[str, tuple[list[str], frozenset[int]]] = {
    "scans": (["TIME (UTC)", "DOMAIN", "IP", "CC", "SCORE", "UUID"], frozenset({4})),
    "hostnames": (["LAST SEEN (UTC)", "HOSTNAME", "DOMAIN", "FIRST SEEN", "SOURCES"], frozenset()),
    "incidents": (["CREATED (UTC)", "STATE", "OBSERVABLE", "SOURCE", "ID"], frozenset()),
    "notifications": (["CREATED (UTC)", "TYPE", "ABOUT", "RESULTS", "ID"], frozenset({3})),
    "certificates": (["LAST SEEN (UTC)", "DOMAIN", "ISSUER", "VALID TO", "ID"], frozenset()),
    "domains": (["LAST SEEN (UTC)", "DOMAIN", "SCANS", "IP", "CC", "FIRST SEEN"], frozenset({2})),
}


def _noun(cls: type) -> str:
    """``SavedSearch`` -> ``saved search``."""
    name = cls.__name__
    return "".join(" " + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _text(value: Any) -> str | None:
    """A field's value as one short line (None when empty)."""
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return _when(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Model):
        fields = type(value).fields()
        for name in ("name", "key", "uuid", "id"):
            if name in fields and getattr(value, name, None):
                return str(getattr(value, name))
        return None
    if isinstance(value, (list, tuple)):
        parts = [t for t in (_text(v) for v in value) if t]
        return ", ".join(parts) or None
    if isinstance(value, dict):
        text = json.dumps(value, default=str, separators=(",", ":"))
        return text if len(text) <= 100 else f"{len(value)} entries (see --json)"
    return str(value)


def _model_block(out: Output, m: Model, title: str, skip: str | None = "id") -> None:
    """A title and the fields that have a value."""
    rows: list[tuple[str, Cell | None]] = []
    for name in type(m).fields():
        if name in ("id", skip):
            continue
        text = _text(getattr(m, name, None))
        if text is not None:
            rows.append((name.replace("_", " ").capitalize(), text))
    out.block(title, rows)


def _cells(*values: Any) -> list[Cell]:
    return [_text(v) or "-" for v in values]


# Table columns for lists of models: headers, and the rows of one item.
_TABLES: dict[type, tuple[list[str], Callable[[Any], list[list[Cell]]]]] = {
    LiveScanner: (["ID", "COUNTRY", "CITY", "ONLINE", "NAME"], lambda s: [_cells(s.id, s.country, s.city, s.online, s.name)]),
    SavedSearch: (["ID", "DATASOURCE", "NAME", "QUERY"], lambda s: [_cells(s.id, s.datasource, s.name, s.query)]),
    Subscription: (
        ["ID", "NAME", "FREQUENCY", "ACTIVE", "SEARCHES"],
        lambda s: [_cells(s.id, s.name, s.frequency, s.is_active, s.search_ids)],
    ),
    Channel: (
        ["ID", "TYPE", "NAME", "ACTIVE", "SENDS TO"],
        lambda c: [_cells(c.id, c.type, c.name, c.is_active, c.webhook_url or c.email_addresses)],
    ),
    Brand: (["KEY", "NAME", "VERTICAL", "COUNTRY"], lambda b: [_cells(b.key, b.name, b.vertical, b.country)]),
    BrandSummary: (
        ["BRAND", "NAME", "TOTAL", "LATEST (UTC)", "LATEST SCAN"],
        lambda b: [_cells(b.brand.key, b.brand.name, b.total, *((b.hits[0].task.time, b.hits[0].id) if b.hits else ()))],
    ),
    DataDumpFile: (["PATH", "SIZE", "TIME (UTC)"], lambda f: [_cells(f.path, f.size, f.timestamp)]),
    UserAgentGroup: (["GROUP", "USER AGENT"], lambda g: [[g.group or "-", ua] for ua in g.useragents]),
    SearchHit: (HIT_HEADERS["scans"][0], lambda h: [_hit_row(h)]),
}


def _print_states(out: Output, states: Sequence[IncidentState]) -> None:
    rows: list[list[Cell]] = []
    for st in states:
        # The wire values as text: most keys are known only from the emulator, and one odd
        # value must not cost the whole table.
        seen = st.state.raw if isinstance(st.state.raw, dict) else {}
        mal = seen.get("malicious")
        rows.append(
            [
                _when(st.time_start, minutes=True),
                _when(st.time_end, minutes=True),
                str(seen.get("status") or "-"),
                ("yes", RED) if mal is True else ("no" if mal is False else "-"),
                str(seen.get("country") or "-"),
                str(seen.get("ip") or "-"),
                _clip(str(seen.get("title") or ""), 40),
                str(seen.get("scanId") or "-"),
                st.id,
            ]
        )
    out.table(["START (UTC)", "END", "STATUS", "MALICIOUS", "CC", "IP", "TITLE", "SCAN", "ID"], rows)


def _print_models(out: Output, items: Sequence[Any], empty: str) -> None:
    """A list of models: one JSON line each, or a table."""
    if out.json:
        for item in items:
            out.emit(item.to_dict())
        return
    if not items:
        out.line(empty)
        return
    if isinstance(items[0], IncidentState):
        _print_states(out, items)
        return
    spec = _TABLES.get(type(items[0]))
    if spec is None:
        for item in items:
            _model_block(out, item, f"{_noun(type(item)).capitalize()} {getattr(item, 'id', '') or ''}".rstrip())
        return
    headers, rows_of = spec
    right = HIT_HEADERS["scans"][1] if isinstance(items[0], SearchHit) else frozenset()
    out.table(headers, [row for item in items for row in rows_of(item)], right=right)


# ------------------------------------------------------------------ input


def _stdin_lines(args: argparse.Namespace, what: str) -> list[str]:
    """The non-blank lines of stdin (read once per command); # starts a comment line."""
    if vars(args).get("_stdin_read"):
        raise UsageError("only one argument can be read from stdin (-)")
    vars(args)["_stdin_read"] = True
    if _isatty(sys.stdin):
        _note(f"reading the {what} from stdin (end with Ctrl-D)")
    lines = (line.strip() for line in sys.stdin.read().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _arg(args: argparse.Namespace, value: str, what: str) -> str:
    """An argument, or the one value on stdin when it is ``-``."""
    if value != "-":
        return value
    values = _stdin_lines(args, what)
    if len(values) != 1:
        got = "nothing" if not values else f"{len(values)} lines"
        raise UsageError(f"expected one {what} on stdin (for -), got {got}")
    return values[0]


def _args(args: argparse.Namespace, values: Sequence[str], what: str) -> list[str]:
    """Arguments where each ``-`` stands for every line of stdin."""
    out: list[str] = []
    for value in values:
        if value == "-":
            lines = _stdin_lines(args, f"{what}s, one per line")
            if not lines:
                raise UsageError(f"expected {what}s on stdin (for -), got nothing")
            out.extend(lines)
        else:
            out.append(value)
    return out


def _query(args: argparse.Namespace, value: str | None) -> str | None:
    """A query argument; ``-`` reads the whole of stdin."""
    if value != "-":
        return value
    if vars(args).get("_stdin_read"):
        raise UsageError("only one argument can be read from stdin (-)")
    vars(args)["_stdin_read"] = True
    return sys.stdin.read().strip()


def _write_bytes(out: Output, data: bytes, target: str, *, label: str, record: dict[str, Any], kind: str = "") -> None:
    """Write bytes to a file (or stdout for ``-``, never to a terminal) and say where."""
    if target == "-":
        if out.stdout_tty:
            raise UsageError("refusing to write binary data to a terminal; redirect stdout (-o - > FILE) or use -o FILE")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    path = Path(target)
    try:
        path.write_bytes(data)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from e
    if out.json:
        out.emit({**record, "file": str(path), "bytes": len(data)})
    else:
        out.line(f"Saved {label} to {path} ({len(data):,} bytes{', ' + kind if kind else ''})")


# ------------------------------------------------------------------ the API key


def _require_keyring() -> Any:
    kr = _keyring()
    if kr is None:
        raise UsageError(f"keeping the key in the system keyring needs the keyring package: {KEYRING_INSTALL}")
    return kr


def api_key_source(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The API key and where it came from: --api-key, then $URLSCAN_API_KEY, then the system keyring."""
    cached = vars(args).get("_api_key")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    key: str | None = getattr(args, "api_key", None)
    source: str | None = "--api-key" if key else None
    if not key:
        key, source = stored_key()
    vars(args)["_api_key"] = (key, source)
    return key, source


def _mask(key: str) -> str:
    return key[:4] + "..." + key[-4:] if len(key) > 12 else "*" * len(key)


def cmd_key_set(args: argparse.Namespace, out: Output) -> int:
    if args.key not in (None, "-"):
        raise UsageError("give the key on stdin or at the prompt, not as an argument (it would stay in the shell history)")
    kr = _require_keyring()
    if args.key == "-" or not _isatty(sys.stdin):
        text = sys.stdin.readline()
    else:
        try:
            text = getpass.getpass("urlscan.io API key (not shown): ")
        except EOFError:
            text = ""
    key = text.strip()
    if not key:
        raise UsageError("no key was given")
    if any(c.isspace() for c in key):
        raise UsageError("an API key has no spaces")
    try:
        kr.set_password(KEYRING_SERVICE, KEYRING_USER, key)
    except Exception as e:
        raise UsageError(f"cannot store the key in the system keyring: {e}; set URLSCAN_API_KEY instead") from None
    if out.json:
        out.emit({"stored": _mask(key), "service": KEYRING_SERVICE, "user": KEYRING_USER})
    else:
        out.line(f"Stored the API key {_mask(key)} in {KEYRING_SOURCE}")
    if os.environ.get("URLSCAN_API_KEY") or args.api_key:
        _note("note: --api-key and URLSCAN_API_KEY take precedence over the keyring")
    return EXIT_OK


def cmd_key_show(args: argparse.Namespace, out: Output) -> int:
    key, source = api_key_source(args)
    if not key:
        if _keyring() is None:
            raise UsageError(
                f"no API key: pass --api-key, set URLSCAN_API_KEY, or {KEYRING_INSTALL} and run `urlscan-rs key set`"
            )
        raise CliError(
            "no API key: none in --api-key, URLSCAN_API_KEY or the system keyring; run `urlscan-rs key set`", EXIT_NOT_FOUND
        )
    shown = key if args.reveal else _mask(key)
    if out.json:
        out.emit({"key": shown, "source": source, "masked": not args.reveal})
    else:
        out.line(f"{shown}  (from {source})")
    return EXIT_OK


def cmd_key_delete(args: argparse.Namespace, out: Output) -> int:
    kr = _require_keyring()
    errors = importlib.import_module("keyring.errors")
    try:
        kr.delete_password(KEYRING_SERVICE, KEYRING_USER)
    except errors.PasswordDeleteError:
        raise CliError("no API key is stored in the system keyring", EXIT_NOT_FOUND) from None
    except Exception as e:
        raise UsageError(f"cannot use the system keyring: {e}") from None
    if out.json:
        out.emit({"deleted": True, "service": KEYRING_SERVICE, "user": KEYRING_USER})
    else:
        out.line(f"Deleted the API key from {KEYRING_SOURCE}")
    return EXIT_OK


# ------------------------------------------------------------------ commands


def _client(args: argparse.Namespace) -> Client:
    # Transient failures are retried; a spent quota surfaces at once (exit code 5) instead of waiting.
    key, _ = api_key_source(args)
    return Client(key, base_url=args.base_url, timeout=args.timeout, max_retries=3, fail_fast=True)


def _async_client(args: argparse.Namespace) -> AsyncClient:
    key, _ = api_key_source(args)
    return AsyncClient(key, base_url=args.base_url, timeout=args.timeout, max_retries=3, fail_fast=True)


def _describe(args: argparse.Namespace, err: UrlscanError) -> str:
    key, _ = api_key_source(args)
    base_url = getattr(args, "base_url", None) or os.environ.get("URLSCAN_BASE_URL") or "https://urlscan.io"
    return describe_error(err, base_url=base_url, key_given=bool(key), timeout=getattr(args, "timeout", None))


def _scan_options(args: argparse.Namespace) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if args.visibility:
        opts["visibility"] = args.visibility
    if args.tag:
        opts["tags"] = list(args.tag)
    if args.country:
        opts["country"] = args.country
    if args.referer:
        opts["referer"] = args.referer
    if args.user_agent:
        opts["custom_agent"] = args.user_agent
    return opts


def _wait_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"timeout": args.wait_timeout, "initial_wait": args.initial_wait, "interval": args.interval}


def cmd_scan(args: argparse.Namespace, out: Output) -> int:
    url = _arg(args, args.url, "URL")
    if args.output and not args.wait:
        raise UsageError("-o saves the finished scan's files: add --wait")
    with _client(args) as c:
        sub = c.scan(url, refang=args.refang, **_scan_options(args))
        if not args.wait:
            _print_submission(out, sub)
            if args.open:
                _open_report(sub.result or f"{c.base_url.rstrip('/')}/result/{sub.uuid}/")
            return EXIT_OK
        try:
            # Named before the wait starts, and Ctrl-C from here on names it again, so that the scan
            # can be found if the wait is cut short.
            _note(f"submitted {sub.uuid} {sub.url or url}; waiting for the result (up to {args.wait_timeout:g}s)")
            bar = out.progress(f"scan {sub.uuid[:8]}: waiting")
            with bar.ticking():
                result = c.wait_for_result(sub.uuid, **_wait_options(args))
        except KeyboardInterrupt:
            raise Interrupted([(sub.uuid, sub.url or url)]) from None
        if args.output:
            saved = save_artifacts(c, result.uuid, args.output, tuple(ARTIFACTS), result)
            _note("saved " + ", ".join(str(p) for p in saved.values()))
        _print_result(out, result, c.base_url)
        if args.open:
            _open_report(result.task.report_url or f"{c.base_url.rstrip('/')}/result/{result.uuid}/")
    return EXIT_OK


def _open_report(url: str) -> None:
    """The report page in the user's browser (``BROWSER`` picks it, as for Python's webbrowser)."""
    import webbrowser

    if not webbrowser.open(url):
        _note(f"no browser to open {url} in")


def _each(args: argparse.Namespace, items: Sequence[str], run: Callable[[str], None]) -> int:
    """Run for every item; with several, a failure is reported and the next one runs.
    The exit code is that of the first failure."""
    if len(items) == 1:
        run(items[0])
        return EXIT_OK
    code = EXIT_OK
    for item in items:
        try:
            run(item)
        except UrlscanError as e:
            _err(f"{item}: {_describe(args, e)}")
            code = code or exit_code_for(e)
    return code


def cmd_result(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    with _client(args) as c:
        if args.wait:
            return _each(args, uuids, lambda u: _print_result(out, c.wait_for_result(u, **_wait_options(args)), c.base_url))
        if len(uuids) == 1:
            _print_result(out, c.result(uuids[0]), c.base_url)
            return EXIT_OK
        code = EXIT_OK
        for uuid, r in zip(uuids, c.results(uuids), strict=True):
            if isinstance(r, UrlscanError):
                _err(f"{uuid}: {_describe(args, r)}")
                code = code or exit_code_for(r)
            else:
                _print_result(out, r, c.base_url)
        return code


def cmd_screenshot(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    target: str | None = args.output
    into_dir = target is not None and target != "-" and Path(target).is_dir()
    if target is not None and not into_dir and len(uuids) > 1:
        raise UsageError("-o FILE takes one uuid; give a directory to save several")
    with _client(args) as c:

        def save(uuid: str) -> None:
            png = c.screenshot(uuid)
            path = target if target is not None and not into_dir else str(Path(target or ".") / f"{uuid}.png")
            _write_bytes(out, png, path, label=f"the screenshot of {uuid}", record={"uuid": uuid}, kind="PNG")

        return _each(args, uuids, save)


def cmd_save(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    what = [w.strip() for w in args.what.split(",") if w.strip()]
    with _client(args) as c:

        def one(uuid: str) -> None:
            saved = c.save(uuid, args.output, what=what)
            if out.json:
                out.emit({"uuid": uuid, **{k: str(p) for k, p in saved.items()}})
            else:
                out.line("  ".join(str(p) for p in saved.values()))

        return _each(args, uuids, one)


def cmd_dom(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    with _client(args) as c:

        def show(uuid: str) -> None:
            dom = c.dom(uuid)
            if out.json:
                out.emit({"uuid": uuid, "dom": dom})
                return
            if len(uuids) > 1:
                out.line(out.paint(f"==> {uuid} <==", BOLD))
            out.line(dom[:-1] if dom.endswith("\n") else dom)

        return _each(args, uuids, show)


def _paging(args: argparse.Namespace) -> dict[str, Any]:
    """limit and size of a search-like command (--all: no limit)."""
    limit: int | None = None if args.all else args.limit
    return {"limit": limit, "size": args.size if limit is None else min(args.size, limit)}


def _export_search(args: argparse.Namespace, out: Output, it: Any, fmt: str, dest: str | None) -> int:
    """--format / -o: the hits streamed to a file (or stdout) as JSON lines, CSV or Parquet."""
    limit: int | None = None if args.all else args.limit
    with out.progress("export", limit, enabled=limit is None or limit > SEARCH_PROGRESS_ABOVE) as bar:
        if fmt == "parquet":
            if not dest or dest == "-":
                raise UsageError("--format parquet needs -o FILE (Parquet is not written to a terminal)")
            rows = it.to_parquet(dest, progress=lambda n: bar.update(n, limit))
        elif fmt == "csv":
            rows = it.to_csv(dest or "-", progress=lambda n: bar.update(n, limit))
        else:
            rows = _write_jsonl(it, dest, lambda hit: hit.raw, lambda n: bar.update(n, limit))
    if dest and dest != "-":
        _note(f"{rows:,} hits written to {dest} ({fmt})")
    return EXIT_OK


def _write_jsonl(items: Any, dest: str | None, wire: Callable[[Any], Any], done: Callable[[int], object]) -> int:
    """Each item's wire form as one JSON line, to `dest` (None or -: stdout); the lines written."""
    rows = 0
    sink = sys.stdout if not dest or dest == "-" else open(dest, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for item in items:
            sink.write(json.dumps(wire(item), separators=(",", ":"), ensure_ascii=False) + "\n")
            rows += 1
            done(rows)
    finally:
        if sink is not sys.stdout:
            sink.close()
    return rows


def _print_search(args: argparse.Namespace, out: Output, it: Any, datasource: str, what: str) -> int:
    """Walk a search iterator: JSON lines as hits arrive, or a table, a count line and the cursor to resume from."""
    fmt, dest = getattr(args, "format", None), getattr(args, "output", None)
    if (fmt is not None or dest is not None) and not args.count:
        return _export_search(args, out, it, fmt or "jsonl", dest)
    if args.count:
        total = it.count()
        more = bool(it.has_more)
        if out.json:
            out.emit({"total": total, "has_more": more})
        else:
            out.line(f"{total}{'+' if more else ''}")
        return EXIT_OK
    limit: int | None = None if args.all else args.limit
    hits = []
    n = 0
    with out.progress("search", limit, enabled=limit is None or limit > SEARCH_PROGRESS_ABOVE) as bar:
        for n, hit in enumerate(it, 1):
            if out.json:
                out.emit(hit.raw)
            else:
                hits.append(hit)
            total = it.total
            shown = limit if limit is not None else total
            bar.update(n, None if shown is None else max(min(shown, total if total is not None else shown), n))
    if out.json:
        return EXIT_OK
    total, more = it.total, it.has_more
    if not hits:
        out.line(f"No hits for {what}.")
        return EXIT_OK
    headers, right = HIT_HEADERS[datasource]
    out.table(headers, [_hit_row(h) for h in hits], right=right)
    resumed = bool(getattr(args, "search_after", None))
    cut = limit is not None and n >= limit and (resumed or total is None or bool(more) or total > n)
    of = f" of {total:,}{'+' if more else ''}" if total is not None and not resumed else ""
    hint = "; raise --limit or use --all to see more" if cut else ""
    out.line(out.paint(f"{n:,}{of} hits{hint}", DIM))
    cursor = it.search_after
    if cut and cursor and hasattr(args, "search_after"):
        _note(f"to resume after the last hit: --search-after {shlex.quote(cursor)}")
    return EXIT_OK


def cmd_search(args: argparse.Namespace, out: Output) -> int:
    if args.fields:
        # The fields this key may search: the service lists them with the user (limits.queryableFields).
        with _client(args) as c:
            limits = c.user().limits or {}
        fields = limits.get("queryableFields") if isinstance(limits, dict) else None
        if not isinstance(fields, list):
            raise CliError("the service did not list the queryable fields of this key")
        if out.json:
            out.emit({"fields": fields})
        else:
            for f in fields:
                out.line(str(f))
        return EXIT_OK
    if args.query is None:
        raise UsageError("search needs a QUERY ('' for everything), or --fields")
    query = _query(args, args.query) or ""
    datasource: str = args.datasource
    with _client(args) as c:
        it = c.search(
            query,
            **_paging(args),
            search_after=args.search_after,
            datasource=None if datasource == "scans" else datasource,
            collapse=args.collapse,
            parallel=args.parallel,
        )
        return _print_search(args, out, it, datasource, repr(query))


def cmd_similar(args: argparse.Namespace, out: Output) -> int:
    uuid = _arg(args, args.uuid, "uuid")
    with _client(args) as c:
        it = c.similar(uuid, q=_query(args, args.query), **_paging(args), search_after=args.search_after)
        return _print_search(args, out, it, "scans", f"pages similar to {uuid}")


def cmd_phishfeed(args: argparse.Namespace, out: Output) -> int:
    query = _query(args, args.query)
    with _client(args) as c:
        it = c.phishfeed(query, **_paging(args))
        return _print_search(args, out, it, "scans", "the phishing feed" + (f" ({query!r})" if query else ""))


def cmd_datadump_download(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c, out.progress("download") as bar:
        path = c.datadumps.download(args.path, args.output, progress=lambda done, total: bar.update(done, total or None))
    size = path.stat().st_size
    if out.json:
        out.emit({"path": str(path), "bytes": size})
    else:
        out.line(str(path))
    return EXIT_OK


def cmd_datadump_sync(args: argparse.Namespace, out: Output) -> int:
    types = tuple(args.types or ("search", "api"))
    with _client(args) as c, out.progress("sync") as bar:
        report = c.datadumps.sync(args.dir, window=args.window, types=types, days=args.days, progress=bar.update)
    if out.json:
        out.emit({"downloaded": report.downloaded, "skipped": len(report.skipped), "failed": dict(report.failed)})
    else:
        for path in report.downloaded:
            out.line(path)
        for path, why in report.failed:
            _err(f"{path}: {why}")
        out.line(out.paint(str(report), DIM))
    return EXIT_ERROR if report.failed else EXIT_OK


def cmd_saved_search_get(args: argparse.Namespace, out: Output) -> int:
    # The service has no endpoint for one saved search: it is found in the list (one request).
    with _client(args) as c:
        found = next((x for x in c.saved_searches.list() if x.id == args.search_id), None)
    if found is None:
        raise NotFoundError(f"no saved search {args.search_id!r} among yours", status=404)
    if out.json:
        out.emit(found.to_dict())
    else:
        _model_block(out, found, f"Saved search {found.id}", skip="id")
    return EXIT_OK


def cmd_datadump_read(args: argparse.Namespace, out: Output) -> int:
    from . import datadumps

    f = datadumps.read(args.file, type=args.type)
    dest = args.output
    if args.format == "parquet":
        if not dest or dest == "-":
            raise UsageError("--format parquet needs -o FILE (Parquet is not written to a terminal)")
        rows = f.to_parquet(dest)
    elif args.format == "csv":
        rows = f.to_csv(dest or "-")
    else:

        def wire(item: Any) -> Any:
            return {"uuid": item[0], "bytes": len(item[1])} if isinstance(item, tuple) else item.raw

        rows = _write_jsonl(f, dest, wire, lambda n: None)
    if dest and dest != "-":
        _note(f"{rows:,} items written to {dest} ({args.format})")
    return EXIT_OK


def _read_urls(source: str) -> list[str]:
    if source == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(source).read_text(encoding="utf-8-sig")
        except OSError as e:
            raise UsageError(f"cannot read {source}: {e.strerror or e}") from e
        except UnicodeDecodeError as e:
            raise UsageError(f"cannot read {source}: not UTF-8 text ({e.reason})") from e
    urls = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            urls.append(line)
    return urls


async def _poll(
    ac: AsyncClient, gate: asyncio.Semaphore, uuid: str, timeout: float, initial_wait: float, interval: float
) -> ScanResult:
    """Wait for a scan like ``wait_for_result``; each poll takes a slot of the gate, the pauses do not."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await asyncio.sleep(min(initial_wait, timeout))
    while True:
        try:
            async with gate:
                return await ac.result(uuid)
        except ScanPendingError:
            pass
        if loop.time() + interval > deadline:
            raise ScanTimeoutError(f"scan {uuid} did not finish within {timeout:g} seconds", uuid=uuid, timeout=timeout)
        await asyncio.sleep(interval)


async def _bulk(
    args: argparse.Namespace, urls: list[str], wait: bool, bar: Any, submitted: list[tuple[str, str]]
) -> list[ScanOutcome]:
    """Submit (and wait for) every URL, at most --concurrency requests in flight; ``submitted`` grows as scans are accepted."""
    opts = _scan_options(args)
    async with _async_client(args) as ac:
        # Options, concurrency and wait settings are checked up front (an empty batch sends nothing).
        await ac.bulk_scan([], wait=wait, concurrency=args.concurrency, **_wait_options(args), **opts)
        gate = asyncio.Semaphore(args.concurrency)
        done = 0

        async def one(url: str) -> ScanOutcome:
            nonlocal done
            sub: Submission | None = None
            result: ScanResult | None = None
            error: UrlscanError | None = None
            try:
                async with gate:
                    sub = await ac.scan(url, **opts)
                submitted.append((sub.uuid, url))
                if wait:
                    result = await _poll(ac, gate, sub.uuid, args.wait_timeout, args.initial_wait, args.interval)
            except UrlscanError as e:
                error = e
            done += 1
            bar.update(done, len(urls))
            return ScanOutcome(url, sub, result, error)

        return list(await asyncio.gather(*(one(u) for u in urls)))


def cmd_bulk(args: argparse.Namespace, out: Output) -> int:
    urls = _read_urls(args.file)
    if not args.no_refang:
        urls = [as_url(u) for u in urls]
    if not urls:
        _note(f"no URLs in {'stdin' if args.file == '-' else args.file} (blank lines and # comments are skipped)")
        return EXIT_OK
    wait = not args.no_wait
    submitted: list[tuple[str, str]] = []
    with out.progress("scanning" if wait else "submitting", len(urls)) as bar:
        try:
            outcomes = asyncio.run(_bulk(args, urls, wait, bar, submitted))
        except KeyboardInterrupt:
            raise Interrupted(submitted) from None
    failed = sum(1 for o in outcomes if not o.ok)
    if out.json:
        for o in outcomes:
            e = o.error
            out.emit(
                {
                    "url": o.url,
                    "ok": o.ok,
                    "uuid": o.submission.uuid if o.submission is not None else None,
                    "submission": o.submission.raw if o.submission is not None else None,
                    "result": o.result.raw if o.result is not None else None,
                    "error": None
                    if e is None
                    else {
                        "type": type(e).__name__,
                        "message": str(e),
                        "status": getattr(e, "status", None),
                        "exit_code": exit_code_for(e),
                    },
                }
            )
    else:
        rows: list[list[Cell]] = []
        for o in outcomes:
            if o.error is not None:
                rows.append([("failed", RED), o.url, "-", _short_error(o.error)])
            elif o.result is not None:
                rows.append([("ok", GREEN), o.url, o.result.uuid, _verdict(o.result.verdicts.overall)])
            else:
                sub = o.submission
                rows.append([("submitted", GREEN), o.url, sub.uuid if sub else "-", (sub.visibility or "-") if sub else "-"])
        out.table([], rows)
    if failed:
        _note(f"{failed} of {len(outcomes)} URLs failed")
    return EXIT_ERROR if failed else EXIT_OK


def cmd_request(args: argparse.Namespace, out: Output) -> int:
    params: dict[str, list[str]] = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param takes KEY=VALUE, got {item!r}")
        params.setdefault(key, []).append(value)
    body: Any = None
    if args.data is not None:
        text = sys.stdin.read() if args.data == "-" else args.data
        try:
            body = json.loads(text)
        except json.JSONDecodeError as e:
            raise UsageError(f"--data is not JSON: {e}") from e
    with _client(args) as c:
        answer = c.request(args.method, _arg(args, args.path, "path"), params=params or None, json=body)
    if isinstance(answer, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(answer)
    elif out.json:
        out.emit(answer)
    else:
        out.line(json.dumps(answer, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_quotas(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c:
        q = c.quotas()
    if out.json:
        out.emit(q.raw)
        return EXIT_OK
    windows = ("minute", "hour", "day")
    rows: list[list[Cell]] = []
    for action, per_window in sorted((q.limits or {}).items()):
        if not isinstance(per_window, dict):
            continue
        cells: list[Cell] = [action]
        for w in windows:
            v = per_window.get(w)
            if not isinstance(v, dict):
                cells.append("-")
                continue
            used, lim, left = v.get("used"), v.get("limit"), v.get("remaining")
            text = f"{used}/{lim}"
            cells.append((text, RED) if left == 0 else text)
        rows.append(cells)
    scope = ", ".join(f"{k} {v}" for k, v in (("scope", q.scope), ("source", q.source)) if v)
    out.line(out.paint(f"Quotas used/limit{f' ({scope})' if scope else ''}", BOLD))
    out.table(["ACTION", "MINUTE", "HOUR", "DAY"], rows, right=frozenset({1, 2, 3}))
    return EXIT_OK


def cmd_hostname(args: argparse.Namespace, out: Output) -> int:
    limit: int = args.limit
    name = _arg(args, args.name, "hostname")
    with _client(args) as c:
        # The API's own `limit` is the batch size per request (10..10000).
        it = c.hostnames.history(name, limit=min(max(limit, 10), 10000), page_state=args.page_state)
        records = []
        for rec in itertools.islice(it, limit):
            if out.json:
                out.emit(rec.raw)
            else:
                records.append(rec)
    if out.json:
        return EXIT_OK
    if not records:
        out.line(f"No history for {name}.")
        return EXIT_OK
    rows: list[list[Cell]] = []
    for r in records:
        data = r.data if isinstance(r.data, dict) else {}
        rows.append(
            [
                str(r.seen_on) if r.seen_on else "-",
                r.source or "-",
                r.sub_id or "-",
                _when(r.first_seen, minutes=True),
                _when(r.last_seen, minutes=True),
                str(data.get("url") or ""),
            ]
        )
    out.table(["SEEN ON", "SOURCE", "RECORD", "FIRST SEEN", "LAST SEEN", "URL"], rows)
    return EXIT_OK


# ------------------------------------------------------------------ commands derived from the client's signatures
#
# Every method of the premium namespaces (and the client methods listed in
# CLIENT_COMMANDS) becomes one command: positional parameters become
# positional arguments, keyword parameters become --options (kebab-case flags
# for the snake_case keywords; list parameters repeatable, under their
# singular name too; bools as --x/--no-x; Literal types as choices). The types
# are read from the typed stubs shipped with the package (_client.pyi,
# _namespaces.pyi), so a new keyword there is a new option here. Which
# combinations are valid is left to the client: it refuses bad input before
# sending anything (exit code 2).


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of a client method, as its typed stub declares it."""

    name: str
    kind: str  # "str", "int", "float", "bool", "day" (a date) or "header" (a dict of HTTP headers)
    choices: tuple[str, ...] | None = None
    many: bool = False
    required: bool = False


@dataclasses.dataclass(frozen=True)
class Signature:
    positional: tuple[Param, ...]
    options: tuple[Param, ...]
    returns: str
    any_fields: bool = False  # takes **fields (the fields of ``create``)


def _literal(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return tuple(str(e.value) for e in elts if isinstance(e, ast.Constant))
    return None


def _union(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    return [node]


def _is_list(node: ast.expr) -> TypeGuard[ast.Subscript]:
    return isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("_List", "list")


def _param(name: str, annotation: ast.expr | None, required: bool, aliases: dict[str, tuple[str, ...]]) -> Param:
    members = [m for m in _union(annotation) if not (isinstance(m, ast.Constant) and m.value is None)] if annotation else []
    # "X | _List[X]" (one value or a list of them): the command line takes one.
    texts = {ast.unparse(m) for m in members}
    members = [m for m in members if not (_is_list(m) and ast.unparse(m.slice) in texts)]
    many = False
    if len(members) == 1 and _is_list(members[0]):
        many = True
        members = _union(members[0].slice)
    texts = {ast.unparse(m) for m in members}
    choices = None
    if len(members) == 1:
        m = members[0]
        choices = _literal(m) or (aliases.get(m.id) if isinstance(m, ast.Name) else None)
    if "_dt.date" in texts:
        kind = "day"
    elif any(t.startswith("dict[") for t in texts):
        kind, many = "header", True
    elif len(texts) == 1 and texts <= {"int", "float", "bool"}:
        kind = texts.pop()
    else:
        kind = "str"
    return Param(name, kind, choices, many, required)


def _signature(f: ast.FunctionDef, aliases: dict[str, tuple[str, ...]]) -> Signature:
    a = f.args
    pos = (a.posonlyargs + a.args)[1:]  # without self
    first_default = len(pos) - len(a.defaults)
    return Signature(
        positional=tuple(_param(x.arg, x.annotation, i < first_default, aliases) for i, x in enumerate(pos)),
        options=tuple(_param(x.arg, x.annotation, d is None, aliases) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)),
        returns=ast.unparse(f.returns) if f.returns else "None",
        any_fields=a.kwarg is not None,
    )


_STUBS: dict[str, dict[str, dict[str, Signature]]] = {}


def stub_signatures(filename: str) -> dict[str, dict[str, Signature]]:
    """Class name -> public method -> signature, read from a typed stub of this package (once)."""
    if filename not in _STUBS:
        _STUBS[filename] = _read_stub(filename)
    return _STUBS[filename]


def _read_stub(filename: str) -> dict[str, dict[str, Signature]]:
    tree = ast.parse(Path(__file__).with_name(filename).read_text(encoding="utf-8"))
    aliases: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            choices = _literal(node.value)
            if choices:
                aliases[node.targets[0].id] = choices
    classes: dict[str, dict[str, Signature]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {
                f.name: _signature(f, aliases)
                for f in node.body
                if isinstance(f, ast.FunctionDef)
                and not f.name.startswith("_")
                and not any(isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list)
            }  # of overloads, the last (the most general) one
    return classes


# Command group -> (client attribute, class in _namespaces.pyi, help). Hostnames
# have the hand-written `hostname` command.
NAMESPACE_GROUPS: dict[str, tuple[str, str, str]] = {
    "livescan": ("livescan", "LiveScan", "live scans from chosen scanners; results stay temporary until stored (premium)"),
    "saved-search": ("saved_searches", "SavedSearches", "saved searches (premium)"),
    "subscription": ("subscriptions", "Subscriptions", "subscriptions: notifications for saved searches (premium)"),
    "channel": ("channels", "Channels", "notification channels: webhooks and e-mail (premium)"),
    "incident": ("incidents", "Incidents", "incidents: an observable scanned again and again (premium)"),
    "brand": ("brands", "Brands", "brands tracked for phishing (premium)"),
    "file": ("files", "Files", "files that scans downloaded (premium)"),
    "datadump": ("datadumps", "DataDumps", "bulk data dumps (premium)"),
}

# Namespace methods whose commands are written by hand (they do more than print an answer).
HAND_WRITTEN = {("datadumps", "download"), ("datadumps", "sync")}

# Client methods with one derived command each (the others have hand-written commands).
CLIENT_COMMANDS: dict[tuple[str, ...], str] = {
    ("user",): "user",
    ("response",): "response",
    ("visibility", "set"): "set_visibility",
    ("visibility", "reset"): "reset_visibility",
    ("countries",): "available_countries",
    ("user-agents",): "user_agents",
}

ENDPOINT_HELP: dict[str, str] = {
    "user": "show the account: user, team, products, features and limits",
    "response": "print a recorded response body by its SHA-256 hash",
    "set_visibility": "change a scan's visibility, or delete the scan (deleted)",
    "reset_visibility": "restore a scan's original visibility",
    "available_countries": "list the countries scans can be run from",
    "user_agents": "list the user agents scans can use",
    "livescan.scanners": "list the live scanners",
    "livescan.task": "task a live scan; prints its uuid at once",
    "livescan.scan": "run a live scan; prints its uuid once it has finished",
    "livescan.resource": "fetch a live scan's result, screenshot, dom, response or download",
    "livescan.store": "store a temporary live scan as a permanent snapshot",
    "livescan.purge": "delete a temporary live scan",
    "saved_searches.list": "list the saved searches",
    "saved_searches.create": "create a saved search",
    "saved_searches.update": "change a saved search (only the options given)",
    "saved_searches.delete": "delete a saved search",
    "saved_searches.results": "print the hits of a saved search, newest first",
    "subscriptions.list": "list the subscriptions",
    "subscriptions.create": "subscribe to saved searches",
    "subscriptions.update": "change a subscription (only the options given)",
    "subscriptions.delete": "delete a subscription",
    "subscriptions.results": "print the hits of a subscription",
    "channels.list": "list the notification channels",
    "channels.create": "create a notification channel",
    "channels.get": "show a notification channel",
    "channels.update": "change a notification channel (only the options given)",
    "incidents.create": "start tracking an observable",
    "incidents.get": "show an incident",
    "incidents.update": "change an incident (only the options given)",
    "incidents.close": "close an incident",
    "incidents.restart": "restart a closed incident",
    "incidents.copy": "copy an incident without its history (prints the new one)",
    "incidents.fork": "copy an incident with its observations (prints the new one)",
    "incidents.watchable_attributes": "list the attributes an incident can watch",
    "incidents.states": "list an incident's observations",
    "brands.available": "list the brands tracked for phishing",
    "brands.detected": "list the brands with detected phishing pages",
    "files.download": "download a file (unpacked from its ZIP and checked against the hash)",
    "files.download_zip": "download a file's password-protected ZIP as served",
    "datadumps.list": "list the data-dump files of a time window, file type and day",
    "datadumps.link": "print the temporary download address of a data-dump file",
}

FIELD_HELP: dict[str, str] = {
    "uuid": "scan uuid",
    "sha256": "SHA-256 hash",
    "url": "URL to scan",
    "observable": "hostname, domain, IP or URL",
    "scanner_id": "live scanner id (see `livescan scanners`)",
    "scan_id": "live scan uuid",
    "resource_type": "what to fetch",
    "resource_id": "scan uuid, or SHA-256 hash for response and download",
    "search_id": "saved search id",
    "subscription_id": "subscription id",
    "channel_id": "channel id",
    "incident_id": "incident id",
    "datasource": "data source",
    "time_window": "length of one file",
    "file_type": "kind of data",
    "date": "day: YYYY-MM-DD, YYYYMMDD, today or yesterday",
    "path": "file path from `datadump list`",
    "visibility": "visibility",
    "page_timeout": "page load timeout",
    "capture_delay": "delay before capturing",
    "extra_headers": "HTTP header 'Name: value'",
    "enable_features": "feature to enable",
    "disable_features": "feature to disable",
    "name": "name",
    "query": "search query",
    "description": "short description",
    "long_description": "long description",
    "permissions": "permission",
    "tlp": "traffic light protocol",
    "user_tags": "tag for matching items, prefixed by its scope (pro., public., private., team.)",
    "size": "hits to fetch",
    "search_after": "cursor: the sort values of the last hit, comma separated",
    "search_ids": "saved search id",
    "frequency": "how often notifications are sent",
    "email_addresses": "recipient e-mail address",
    "is_active": "whether it is active",
    "ignore_time": "whether to ignore time constraints",
    "week_days": "day on which alerts are generated",
    "channel_ids": "channel id",
    "incident_channel_ids": "channel id for incidents",
    "incident_profile_id": "incident profile id",
    "incident_visibility": "visibility of the incidents created",
    "incident_creation_mode": "when incidents are created",
    "incident_watch_keys": "what an incident watches",
    "type": "channel type",
    "webhook_url": "address receiving notifications",
    "utc_time": "HH:MM (UTC) at which daily e-mails are sent",
    "is_default": "whether it is the default channel",
    "channels": "channel id to notify",
    "scan_interval": "seconds between scans",
    "scan_interval_mode": "manual or automatic interval changes",
    "watched_attributes": "attribute to watch",
    "user_agents": "user agent to scan with",
    "user_agents_per_interval": "user agents used per interval",
    "countries": "country to scan from (ISO 3166-1 code)",
    "countries_per_interval": "countries used per interval",
    "stop_delay_suspended": "close this long after the observable was suspended",
    "stop_delay_inactive": "close this long after the observable became inactive",
    "stop_delay_malicious": "close this long after the observable became malicious",
    "scan_interval_after_suspended": "scan interval once suspended",
    "scan_interval_after_malicious": "scan interval once malicious",
    "incident_profile": "incident profile id",
    "expire_after": "seconds until the incident closes by itself",
    "extra_path": "path appended to a hostname observable, starting with /",
    "password": "ZIP password (default: urlscan!)",
}

# Past-tense titles of what a method did; and the JSON key of a plain (non-model) answer.
_VERBS = {
    "create": "created",
    "update": "updated",
    "close": "closed",
    "restart": "restarted",
    "copy": "copied into",
    "fork": "forked into",
    "store": "stored",
    "purge": "purged",
    "set_visibility": "changed",
    "reset_visibility": "reset",
}
_VALUE_KEYS = {
    "response": "response",
    "available_countries": "countries",
    "livescan.task": "uuid",
    "livescan.scan": "uuid",
    "livescan.resource": "content",
    "incidents.watchable_attributes": "attributes",
    "datadumps.link": "url",
}


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """A command made from one client method."""

    path: tuple[str, ...]  # e.g. ("incident", "create")
    attr: str  # the client's namespace attribute ("" for the client itself)
    method: str
    sig: Signature

    @property
    def key(self) -> str:
        return f"{self.attr}.{self.method}" if self.attr else self.method


def endpoints() -> list[Endpoint]:
    """Every derived command, from the typed stubs."""
    client = stub_signatures("_client.pyi")["Client"]
    found = [Endpoint(path, "", method, client[method]) for path, method in CLIENT_COMMANDS.items()]
    spaces = stub_signatures("_namespaces.pyi")
    for group, (attr, cls, _) in NAMESPACE_GROUPS.items():
        methods = spaces[cls]
        for name, sig in methods.items():
            if (attr, name) in HAND_WRITTEN:
                continue
            if sig.any_fields:  # update(id, **fields): the keyword fields of create, none required
                given = {p.name for p in sig.positional}
                fields = tuple(dataclasses.replace(p, required=False) for p in methods["create"].options if p.name not in given)
                sig = dataclasses.replace(sig, options=fields)
            found.append(Endpoint((group, name.replace("_", "-")), attr, name, sig))
    return found


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _singular(name: str) -> str:
    if name.endswith("sses"):
        return name[:-2]
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") else name


def _day(text: str) -> date | str:
    """YYYY-MM-DD, today or yesterday as a date; anything else is left to the client to check."""
    today = datetime.now(timezone.utc).date()
    word = text.strip().lower()
    if word in ("today", "yesterday"):
        return today - timedelta(days=1 if word == "yesterday" else 0)
    if len(text) == 10:
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    return text


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()


_CONVERTERS: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "day": _day, "header": _header, "str": str}


def _param_help(p: Param, *, stdin: bool = False, positional: bool = False) -> str:
    parts = [FIELD_HELP.get(p.name, p.name.replace("_", " "))]
    if p.choices and not p.many and not p.kind == "bool" and positional:
        parts.append("one of: " + ", ".join(p.choices))
    if p.many:
        parts.append("repeatable")
    if stdin:
        parts.append("- reads it from stdin")
    return "; ".join(parts)


def _add_endpoint_arguments(sp: argparse.ArgumentParser, ep: Endpoint) -> None:
    for p in ep.sig.positional:
        stdin = p.kind == "str" and not p.choices
        sp.add_argument(
            f"p_{p.name}",
            metavar=p.name.upper(),
            type=_CONVERTERS[p.kind],
            choices=p.choices,
            help=_param_help(p, stdin=stdin, positional=True),
        )
    for p in ep.sig.options:
        flags = [f"--{_kebab(p.name)}"]
        if p.many and _singular(p.name) != p.name:
            flags.insert(0, f"--{_kebab(_singular(p.name))}")
        kw: dict[str, Any] = {"dest": f"o_{p.name}", "help": _param_help(p)}
        if p.required:
            kw["required"] = True
        if p.kind == "bool":
            sp.add_argument(*flags, action=argparse.BooleanOptionalAction, default=None, **kw)
            continue
        kw["type"] = _CONVERTERS[p.kind]
        if p.choices:
            kw["choices"] = p.choices
        else:
            kw["metavar"] = {"int": "N", "float": "N", "header": "'NAME: VALUE'"}.get(p.kind, _singular(p.name).upper())
        sp.add_argument(*flags, action="append" if p.many else "store", **kw)
    if "bytes" in ep.sig.returns:
        sp.add_argument(
            "-o",
            "--output",
            metavar="FILE",
            help="file to write, or - for stdout (default: named after the id, in the current directory)",
        )


def _default_file(ep: Endpoint, positional: Sequence[Any]) -> str:
    ident = str(positional[-1])
    if ep.method == "download_zip":
        return ident + ".zip"
    if ep.method == "resource" and positional[1] == "screenshot":
        return ident + ".png"
    return ident


def _endpoint_command(ep: Endpoint) -> Callable[[argparse.Namespace, Output], int]:
    def run(args: argparse.Namespace, out: Output) -> int:
        positional: list[Any] = []
        for p in ep.sig.positional:
            value = getattr(args, f"p_{p.name}")
            if p.kind == "str" and not p.choices:
                value = _arg(args, value, FIELD_HELP.get(p.name, p.name))
            positional.append(value)
        options: dict[str, Any] = {}
        for p in ep.sig.options:
            value = getattr(args, f"o_{p.name}")
            if value is not None:  # only what was given (None would clear a nullable field)
                options[p.name] = dict(value) if p.kind == "header" else list(value) if p.many else value
        with _client(args) as c:
            target = getattr(c, ep.attr) if ep.attr else c
            try:
                value = getattr(target, ep.method)(*positional, **options)
            except ValidationError as e:
                raise _with_flags(e, ep) from None
            _show(args, out, ep, positional, value, c.base_url)
        return EXIT_OK

    return run


def _with_flags(err: ValidationError, ep: Endpoint) -> ValidationError:
    """The client names keywords (user_tags); name the command's options too (--user-tag)."""
    words = set(re.findall(r"[a-z_]+", str(err)))
    flags = [f"--{_kebab(_singular(p.name) if p.many else p.name)}" for p in ep.sig.options if p.name in words]
    return ValidationError(f"{err} [option {', '.join(flags)}]") if flags else err


def _title(*words: str) -> str:
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:]


def _show(args: argparse.Namespace, out: Output, ep: Endpoint, positional: Sequence[Any], value: Any, base_url: str) -> None:
    """Print what a derived command returned, by its type."""
    verb = _VERBS.get(ep.method, "")
    ident = str(positional[0]) if positional else ""
    output: str | None = getattr(args, "output", None)
    if value is None:  # deleted
        if out.json:
            out.emit({"id": ident, "deleted": True})
        else:
            out.line(f"Deleted {ep.path[0].replace('-', ' ')} {ident}")
    elif isinstance(value, (bytes, str)) and (isinstance(value, bytes) or output):
        data = value if isinstance(value, bytes) else value.encode("utf-8")
        target = output or _default_file(ep, positional)
        named = dict(zip((p.name for p in ep.sig.positional), positional, strict=True))
        what = {"download": "the file", "download-zip": "the ZIP of"}.get(ep.path[-1], f"the {named.get('resource_type')} of")
        _write_bytes(out, data, target, label=f"{what} {positional[-1]}", record={"id": str(positional[-1])})
    elif isinstance(value, list) and (value and not isinstance(value[0], Model) or "[str]" in ep.sig.returns):
        if out.json:
            out.emit({_VALUE_KEYS.get(ep.key, "values"): value})
        else:
            for v in value:
                out.line(str(v))
    elif isinstance(value, list):
        _print_models(out, value, "Nothing found.")
    elif isinstance(value, ScanResult):
        _print_result(out, value, base_url)
    elif isinstance(value, Incident):
        _print_incident(out, value, _title(verb, "incident"))
    elif isinstance(value, Model):
        if out.json:
            out.emit(value.to_dict())
            return
        fields = type(value).fields()
        name = next((f for f in ("id", "uuid", "username") if f in fields), None)
        shown = str(getattr(value, name) or "") if name else ""
        noun = "visibility of scan" if isinstance(value, VisibilityChange) else _noun(type(value))
        _model_block(out, value, _title(verb, noun, shown), skip=name)
    elif isinstance(value, dict):
        if out.json:
            out.emit(value)
        else:
            out.block(
                _title(verb, ep.path[0].replace("-", " "), " ".join(str(p) for p in positional)),
                [(k, _text(v)) for k, v in value.items()],
            )
    elif out.json:
        out.emit({_VALUE_KEYS.get(ep.key, "value"): value})
    else:
        text = str(value)
        out.line(text[:-1] if text.endswith("\n") else text)


# ------------------------------------------------------------------ listen


def _hit_summary(hit: Any) -> str:
    if isinstance(hit, HostnameHit):
        return hit.hostname or "-"
    if isinstance(hit, SearchHit):
        return " ".join(x for x in (hit.page.domain, hit.task.url or hit.page.url) if x) or hit.id or "-"
    return "-"


def notification_line(n: Notification) -> str:
    """A one-line summary: time, type, subscription or incident, results, the first result."""
    if n.type == "incident":
        about = f"{n.observable or '-'} (incident {n.incident_id or '-'})"
        changed = ", ".join(str(c.get("attribute")) for c in n.changes or [] if isinstance(c, dict))
        if changed:
            about += f" changed: {changed}"
    else:
        name = n.subscription_name or n.subscription_id or "-"
        about = name + (f" ({n.frequency})" if n.frequency else "")
    results = n.results or []
    total = n.total if n.total is not None else len(results)
    first = f"  first: {_hit_summary(results[0])}" if results else ""
    return f"{_when(n.created_at)}  {n.type}  {about}  {total} result{'s' if total != 1 else ''}{first}"


def completion_script(shell: str) -> str:
    """A bash (or zsh, through bashcompinit) completion script made from the parser:
    command words, then each command's options."""
    parser = build_parser()
    nexts: dict[str, set[str]] = {"": {o for a in parser._actions for o in a.option_strings}}
    opts: dict[str, list[str]] = {}
    for path, p in leaf_commands(parser).items():
        for i in range(len(path)):
            nexts.setdefault(" ".join(path[:i]), set()).add(path[i])
        opts[" ".join(path)] = sorted(o for a in p._actions for o in a.option_strings if o.startswith("--"))
    # Global options whose value is the next word (skipped when finding the command).
    valued = sorted(o for a in parser._actions for o in a.option_strings if a.nargs != 0 and o.startswith("--"))
    cases = [f'    "{k}") words="{" ".join(sorted(v))}";;' for k, v in sorted(nexts.items())]
    cases += [f'    "{k}") words="{" ".join(v)}";;' for k, v in sorted(opts.items()) if k not in nexts]
    known = "|".join(f'"{k}"' for k in sorted(set(nexts) | set(opts)) if k)
    script = f"""# urlscan-rs completion ({shell}): eval "$(urlscan-rs completion {shell})"
_urlscan_rs() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" path="" w i words=""
  for ((i=1; i<COMP_CWORD; i++)); do
    w="${{COMP_WORDS[i]}}"
    case "$w" in {"|".join(valued)}) ((i++)); continue;; -*) continue;; esac
    case "$path${{path:+ }}$w" in {known}) path="$path${{path:+ }}$w";; *) break;; esac
  done
  case "$path" in
{chr(10).join(cases)}
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}}
complete -F _urlscan_rs urlscan-rs
"""
    if shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    return script


def cmd_completion(args: argparse.Namespace, out: Output) -> int:
    out.line(completion_script(args.shell).rstrip("\n"))
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace, out: Output) -> int:
    from .mcp_server import server

    try:
        app = server(_async_client(args))
    except ImportError as e:  # the mcp package missing, or of the 1.x line
        raise UsageError(str(e)) from None
    app.run("stdio")
    return EXIT_OK


# Attempts to forward one notification, and the pause before each retry (seconds).
FORWARD_ATTEMPTS = 3
FORWARD_PAUSE = 1.0


def _forward(url: str, n: Notification) -> bool:
    """POST a received notification's body to `url` as the service would; a few
    tries for a 5xx or a refused connection, then a note on stderr."""
    import urllib.error
    import urllib.request

    body = json.dumps(n.raw).encode()
    why = ""
    for attempt in range(1, FORWARD_ATTEMPTS + 1):
        req = urllib.request.Request(url, data=body, method="POST")
        req.add_header("Content-Type", "application/json")
        req.add_header("X-Urlscan-Notification-Id", n.id)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                r.read()
                return True
        except urllib.error.HTTPError as e:
            why = f"HTTP {e.code}"
            if e.code < 500:
                break
        except (urllib.error.URLError, OSError) as e:
            why = str(getattr(e, "reason", e))
        if attempt < FORWARD_ATTEMPTS:
            time.sleep(FORWARD_PAUSE * attempt)
    _note(f"notification {n.id} not forwarded to {url}: {why}")
    return False


def cmd_listen(args: argparse.Namespace, out: Output) -> int:
    from .testing import WebhookReceiver

    try:
        hook = WebhookReceiver(args.host, args.port)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    count: int | None = args.count
    shown = 0
    with hook:
        _note(f"listening on {hook.url} (POST notifications there; Ctrl-C to stop)")
        try:
            while count is None or shown < count:
                try:
                    received = hook.wait(shown + 1, timeout=0.5)
                except TimeoutError:
                    continue
                for n in received[shown:]:
                    if out.json:
                        out.emit(n.raw)
                    else:
                        out.line(notification_line(n))
                    sys.stdout.flush()
                    if args.forward_to:
                        _forward(args.forward_to, n)
                    shown += 1
                    if count is not None and shown >= count:
                        break
        except KeyboardInterrupt:
            pass
    return EXIT_OK


# ------------------------------------------------------------------ emulator

# Seconds `emulator --background` waits for the emulator to accept connections.
EMULATOR_START_TIMEOUT = 30.0


def _exports(url: str, key: str, pid: int | None = None) -> list[str]:
    lines = [f"export URLSCAN_BASE_URL={shlex.quote(url)}", f"export URLSCAN_API_KEY={shlex.quote(key)}"]
    if pid is not None:
        lines.append(f"export URLSCAN_EMULATOR_PID={pid}")
    return lines


def cmd_emulator(args: argparse.Namespace, out: Output) -> int:
    if args.stop:
        return _emulator_stop(args, out)
    if args.background:
        return _emulator_background(args, out)
    from .testing import Emulator

    try:
        emu = Emulator(
            scans=args.scans,
            seed=args.seed,
            scan_duration=args.scan_duration,
            latency=args.latency,
            host=args.host,
            port=args.port,
        )
    except ValidationError as e:
        raise UsageError(str(e)) from None
    except RuntimeError as e:
        raise UsageError(f"{e} ({args.host}:{args.port}); pick another --port, or 0 for a free one") from None
    try:
        if out.json:
            out.emit({"URLSCAN_BASE_URL": emu.url, "URLSCAN_API_KEY": emu.api_key, "keys": emu.keys, "pid": os.getpid()})
        else:
            for line in _exports(emu.url, emu.api_key):
                out.line(line)
            for kind, key in emu.keys.items():
                out.line(f"# {kind} key: {key}")
            out.line("# serving until interrupted (Ctrl-C)")
        sys.stdout.flush()
    except BrokenPipeError:
        # e.g. `urlscan-rs emulator | head -2`: the reader has what it needs; keep serving.
        _silence_stdout()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        emu.stop()
    return EXIT_OK


def _log_tail(log: Any, path: str | None) -> str:
    try:
        if path:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        else:
            log.seek(0)
            text = log.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].removeprefix("urlscan-rs: ").removeprefix("error: ") if lines else ""


def _accepts(url: str, deadline: float) -> bool:
    parts = urllib.parse.urlsplit(url)
    while True:
        try:
            with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=1.0):
                return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def _emulator_background(args: argparse.Namespace, out: Output) -> int:
    """Start the emulator in a detached process, print how to reach it, and return at once."""
    argv = [sys.executable, "-m", "urlscan_rs.cli", "emulator", "--json", "--host", args.host, "--port", str(args.port)]
    argv += ["--scans", str(args.scans), "--seed", str(args.seed)]
    argv += ["--latency", repr(args.latency), "--scan-duration", repr(args.scan_duration)]
    try:
        log: Any = open(args.log, "ab") if args.log else tempfile.TemporaryFile()  # noqa: SIM115
    except OSError as e:
        raise UsageError(f"cannot write {args.log}: {e.strerror or e}") from None
    detach: dict[str, Any]
    if os.name == "nt":
        detach = {
            "creationflags": getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        }
    else:
        detach = {"start_new_session": True}  # Ctrl-C in the shell and the shell's exit leave it running
    with log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, **detach)
        assert proc.stdout is not None
        first: list[bytes] = []
        reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        deadline = time.monotonic() + EMULATOR_START_TIMEOUT
        reader.join(EMULATOR_START_TIMEOUT)
        info: dict[str, Any] = {}
        try:
            info = json.loads(first[0]) if first and first[0] else {}
        except ValueError:
            pass
        url, key = info.get("URLSCAN_BASE_URL"), info.get("URLSCAN_API_KEY")
        if not (url and key and _accepts(str(url), deadline)):
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
            why = _log_tail(log, args.log) or f"no address within {EMULATOR_START_TIMEOUT:g}s"
            raise CliError(f"the emulator did not start: {why}", EXIT_USAGE if proc.returncode == EXIT_USAGE else EXIT_ERROR)
        proc.stdout.close()  # the emulator writes nothing more there
    if out.json:
        out.emit({"URLSCAN_BASE_URL": url, "URLSCAN_API_KEY": key, "URLSCAN_EMULATOR_PID": proc.pid, "keys": info.get("keys")})
    else:
        for line in _exports(str(url), str(key), proc.pid):
            out.line(line)
        out.line(f'# stop it with: kill {proc.pid}   (or: eval "$(urlscan-rs emulator --stop)")')
    sys.stdout.flush()
    return EXIT_OK


def _emulator_stop(args: argparse.Namespace, out: Output) -> int:
    text = args.pid or os.environ.get("URLSCAN_EMULATOR_PID")
    if not text:
        raise UsageError("no emulator to stop: URLSCAN_EMULATOR_PID is not set (emulator --background sets it); or pass --pid")
    try:
        pid = int(text)
    except ValueError:
        raise UsageError(f"not a process id: {text!r}") from None
    gone = CliError(f"no emulator runs as process {pid} (stopped already?)", EXIT_NOT_FOUND)
    if Path("/proc/self/cmdline").exists():  # where processes can be inspected, stop only an emulator
        try:
            argv = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
        except OSError:
            raise gone from None
        if not (any(b"urlscan" in a for a in argv) and b"emulator" in argv):
            raise UsageError(f"process {pid} is not a urlscan-rs emulator; not stopping it")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        raise gone from None
    except PermissionError:
        raise CliError(f"not allowed to stop process {pid}") from None
    if out.json:
        out.emit({"stopped": pid})
    else:
        out.line("unset URLSCAN_BASE_URL URLSCAN_API_KEY URLSCAN_EMULATOR_PID")
        out.line(f"# stopped the emulator (process {pid})")
    return EXIT_OK


# ------------------------------------------------------------------ demo


def cmd_demo(args: argparse.Namespace, out: Output) -> int:
    from .testing import Emulator

    def say(text: str = "") -> None:
        if not out.json:
            out.line(text)
            sys.stdout.flush()

    started = time.monotonic()
    say("Starting the built-in emulator of the urlscan.io service ...")
    with Emulator(scans=500, scan_duration=args.scan_duration, seed=0) as emu, emu.client() as client:
        say(f"  listening on {emu.url}\n")
        user = client.user()
        if out.json:
            out.emit({"step": "user", "emulator": emu.url, "user": user.to_dict()})
        say(f"Signed in as {user.username} (team {user.team.name if user.team else None}), products {user.products}\n")
        urls = [
            "https://www.example.com/",
            "https://login.paypal.com.account-verify.example.net/signin",
            "https://news.ycombinator.com/",
        ]
        say(f"Submitting {len(urls)} scans and waiting for them (scans take {args.scan_duration:g}s here) ...")
        outcomes = client.bulk_scan(urls, initial_wait=args.scan_duration, interval=0.5, timeout=60)
        for o in outcomes:
            r = o.result
            if out.json:
                ov = r.verdicts.overall if r is not None else None
                error = None if o.error is None else f"{type(o.error).__name__}: {o.error}"
                out.emit(
                    {
                        "step": "scan",
                        "url": o.url,
                        "uuid": r.uuid if r else None,
                        "domain": r.page.domain if r else None,
                        "score": ov.score if ov else None,
                        "malicious": ov.malicious if ov else None,
                        "error": error,
                    }
                )
                continue
            if o.error is not None:
                say(f"  {o.url}: {type(o.error).__name__}: {o.error}")
                continue
            assert r is not None
            ov = r.verdicts.overall
            say(
                f"  {r.uuid}  {r.page.domain:<45} ip={r.page.ip:<15} country={r.page.country}  "
                f"score={ov.score:>4} malicious={ov.malicious}"
            )
        say()
        first = outcomes[0].result
        if first is not None and not out.json:
            say(f"A typed result: {first!r}")
            say(f"  task.time       {first.task.time.isoformat() if first.task.time else None}")
            say(f"  page.server     {first.page.server}")
            say(f"  lists.domains   {first.lists.domains[:5]}")
            say(f"  requests        {len(first.data.get('requests', [])) if isinstance(first.data, dict) else 0}")
            png = client.screenshot(first.uuid)
            say(f"  screenshot      {len(png)} bytes PNG\n")
        query = "date:>now-7d AND NOT page.country:us"
        it = client.search(query, size=5, limit=5)
        total = it.count()
        hits = list(it)
        if out.json:
            out.emit({"step": "search", "query": query, "total": total, "hits": [h.id for h in hits]})
        say(f"Search {query!r} ({total} hits in all); the newest five:")
        for hit in hits:
            when = f"{hit.task.time:%Y-%m-%d %H:%M}" if hit.task.time else "-"
            say(f"  {when}  {hit.page.domain or '-':<40} {hit.page.country}  {hit.page.ip}")
        q = client.quotas()
        if out.json:
            out.emit({"step": "quotas", "public": q.remaining("public"), "search": q.remaining("search")})
        say(f"\nQuota left today: {q.remaining('public')} public scans, {q.remaining('search')} searches")
    say(f"\nDone in {time.monotonic() - started:.1f}s. Next: see README.md for sync, async, search and bulk examples.")
    return EXIT_OK


# ------------------------------------------------------------------ parser


_KEYLIKE = re.compile(r"[A-Za-z0-9_-]+")


class _Parser(argparse.ArgumentParser):
    """Unknown options are reported by the (sub)command they were given to, with its usage and
    the closest known option; an invalid choice names the closest valid one."""

    _given: Sequence[str] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        ns, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns, extras

    def _typo_hint(self) -> str:
        """'; did you mean --x?' for the first unknown option given to this parser."""
        known = [s for action in self._actions for s in action.option_strings]
        for arg in self._given:
            if arg == "--":
                break
            flag = arg.split("=", 1)[0]
            if flag.startswith("--") and not any(k.startswith(flag) for k in known):
                close = difflib.get_close_matches(flag, known, n=1, cutoff=0.6)
                if close:
                    return f"; did you mean {close[0]}?"
        return ""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as e:
            choices = [str(c) for c in action.choices or ()]
            close = difflib.get_close_matches(str(value), choices, n=1)
            if close and "did you mean" not in str(e):
                raise argparse.ArgumentError(action, f"{e.message}; did you mean {close[0]!r}?") from None
            raise

    def _hidden(self, message: str) -> str:
        """`message` without any value given that could be an API key: the value of an option
        whose name starts like --api-key (misspelt ones too), and any long token of key
        characters that is not an option (a key given where argparse expected something else)."""
        secret: set[str] = set()
        given = list(self._given)
        for i, arg in enumerate(given):
            flag, eq, value = arg.partition("=")
            if flag.lower().lstrip("-").startswith(("api", "key")) and flag.startswith("--"):
                if eq:
                    secret.add(value)
                elif i + 1 < len(given):
                    secret.add(given[i + 1])
            # Not an option's name: those are the parser's, never a key.
            if len(arg) >= 16 and not arg.startswith("-") and _KEYLIKE.fullmatch(arg):
                secret.add(arg)
        for value in sorted((v for v in secret if v), key=len, reverse=True):
            message = message.replace(value, "<hidden: could be an API key>")
        return message

    def error(self, message: str) -> NoReturn:
        if message.startswith(("unrecognized arguments", "the following arguments are required")):
            message += self._typo_hint()
        message = self._hidden(message)
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


_N = TypeVar("_N", int, float)


def _number(text: str, kind: Callable[[str], _N], expected: str) -> _N:
    """`text` read by `kind` (int or float), or an argparse error saying what was expected."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None


def _parallel(text: str) -> int | str:
    return "auto" if text == "auto" else _positive_int(text)


def _positive_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    value = _number(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {value}")
    return value


def _http_url(text: str) -> str:
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(f"must be an http:// or https:// URL, got {text!r}")
    return text


def _seconds(text: str) -> float:
    value = _number(text, float, "seconds")
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text}")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def _add_global_options(p: argparse.ArgumentParser, *, suppress: bool) -> None:
    """The connection and output options; on sub-commands they only override when given."""
    group = p.add_argument_group("global options" + (" (also accepted before the command)" if suppress else ""))

    def d(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    group.add_argument(
        "--api-key", metavar="KEY", default=d(None), help="API key (default: $URLSCAN_API_KEY, else the system keyring)"
    )
    group.add_argument(
        "--base-url", metavar="URL", default=d(None), help="service address (default: $URLSCAN_BASE_URL or https://urlscan.io)"
    )
    group.add_argument("--json", action="store_true", default=d(False), help="print one JSON object per line")
    group.add_argument(
        "--timeout", metavar="SECONDS", type=_positive_seconds, default=d(30.0), help="timeout of each request (default: 30)"
    )


def _add_scan_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--visibility", choices=["public", "unlisted", "private"], help="default: the account's setting")
    p.add_argument("--tag", action="append", metavar="TAG", help="a tag for the scan (repeatable, at most 10)")
    p.add_argument("--country", metavar="CC", help="two-letter country to scan from")
    p.add_argument("--referer", metavar="URL", help="Referer header to send")
    p.add_argument("--user-agent", metavar="UA", help="User-Agent to scan with")


def _add_wait_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--wait-timeout", metavar="SECONDS", type=_positive_seconds, default=120.0, help="give up waiting after (default: 120)"
    )
    p.add_argument(
        "--initial-wait", metavar="SECONDS", type=_seconds, default=10.0, help="wait before the first poll (default: 10)"
    )
    p.add_argument("--interval", metavar="SECONDS", type=_positive_seconds, default=2.0, help="between polls (default: 2)")


def _add_paging_options(p: argparse.ArgumentParser, *, cursor: bool = True) -> None:
    how_many = p.add_mutually_exclusive_group()
    how_many.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="at most N hits (default: 100)")
    how_many.add_argument("--all", action="store_true", help="every hit (no limit)")
    how_many.add_argument("--count", action="store_true", help="print only the number of hits (one request of size 0)")
    p.add_argument("--size", type=_positive_int, default=100, metavar="N", help="hits per request (default: 100)")
    p.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet"),
        help="write the hits as JSON lines (as the service sent them), CSV or Parquet (the flat schema's columns; "
        "see urlscan_rs.schema), streamed as pages come",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout (Parquet needs one)")
    if cursor:
        p.add_argument(
            "--search-after",
            metavar="CURSOR",
            help="resume after this cursor (an earlier search prints it on stderr when it stops at --limit)",
        )


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    p = _Parser(
        prog="urlscan-rs",
        description=(
            "A fast client for the urlscan.io API, with a local emulator of the service.\n\n"
            "An argument given as - (a uuid, URL, query or hash) is read from stdin."
        ),
        epilog=EXIT_CODES_HELP,
        formatter_class=raw,
    )
    p.add_argument("--version", action="version", version=f"urlscan-rs {__version__}")
    _add_global_options(p, suppress=False)
    common = _Parser(add_help=False)
    _add_global_options(common, suppress=True)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    groups: dict[str, Any] = {}

    def group(name: str, help: str) -> Any:
        """A command with actions (incident create, key set, ...)."""
        if name not in groups:
            g = sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".", formatter_class=raw)
            groups[name] = g.add_subparsers(dest=f"{name}_action", required=True, metavar="ACTION")
        return groups[name]

    def command(
        path: Sequence[str], help: str, func: Callable[[argparse.Namespace, Output], int], *, api: bool = True, **kw: Any
    ) -> argparse.ArgumentParser:
        where = sub if len(path) == 1 else groups[path[0]]
        parents = [common] if api else []
        description = kw.pop("description", help[:1].upper() + help[1:] + ".")
        sp: argparse.ArgumentParser = where.add_parser(
            path[-1], help=help, description=description, parents=parents, formatter_class=raw, **kw
        )
        sp.set_defaults(func=func)
        return sp

    derived = {ep.path: ep for ep in endpoints()}

    def derive(*path: str) -> None:
        """The command made from a client method (see endpoints())."""
        ep = derived.pop(path)
        _add_endpoint_arguments(command(ep.path, ENDPOINT_HELP.get(ep.key, ep.key), _endpoint_command(ep)), ep)

    # -- scans
    s = command(
        ["scan"],
        "submit a URL for scanning",
        cmd_scan,
        description="Submit a URL (- reads it from stdin); with --wait, wait for the scan and print its result.",
    )
    s.add_argument("url", metavar="URL")
    s.add_argument("--wait", action="store_true", help="wait for the scan to finish and print the result")
    s.add_argument("--refang", action="store_true", help="undo defanging first (hxxps://evil[.]example)")
    s.add_argument("--open", action="store_true", help="open the report page in a browser (after the result with --wait)")
    s.add_argument(
        "-o", "--output", metavar="DIR", help="with --wait, save UUID.json, UUID.png and UUID.html in DIR (created if missing)"
    )
    _add_scan_options(s)
    _add_wait_options(s)

    def per_scan(
        name: str, help: str, func: Callable[[argparse.Namespace, Output], int], description: str
    ) -> argparse.ArgumentParser:
        """A command that takes one or more scan uuids."""
        sp = command([name], help, func, description=description)
        sp.add_argument("uuid", metavar="UUID", nargs="+")
        return sp

    r = per_scan(
        "result", "print a scan's result", cmd_result, "Print the result of each scan (- reads uuids from stdin, one per line)."
    )
    r.add_argument("--wait", action="store_true", help="wait for scans that have not finished yet")
    _add_wait_options(r)

    sh = per_scan(
        "screenshot",
        "save a scan's screenshot (PNG)",
        cmd_screenshot,
        "Save the screenshot of each scan as UUID.png in the current directory, or in -o (- reads uuids from stdin).",
    )
    sh.add_argument("-o", "--output", metavar="FILE", help="file to write, a directory, or - for stdout (default: UUID.png here)")

    per_scan("dom", "print a scan's DOM", cmd_dom, "Print the DOM of each scan (- reads uuids from stdin).")
    sv = per_scan(
        "save",
        "save a scan's result, screenshot and DOM",
        cmd_save,
        "Save UUID.json (the result as served), UUID.png and UUID.html of each scan in a folder\n(- reads uuids from stdin).",
    )
    sv.add_argument("-o", "--output", metavar="DIR", default=".", help="folder to save in (default: here; created if missing)")
    sv.add_argument("--what", default="json,png,dom", metavar="KINDS", help="some of json,png,dom (default: all three)")
    derive("response")

    b = command(
        ["bulk"],
        "scan many URLs from a file",
        cmd_bulk,
        description=(
            "Scan the URLs of FILE (one per line; blank lines and # comments skipped; - reads stdin) and print one line\n"
            "per URL in input order, with the error for failed ones. Exits 0 only if every URL succeeded, else 1.\n"
            "Ctrl-C lists the scans submitted so far."
        ),
    )
    b.add_argument("file", metavar="FILE")
    b.add_argument("--concurrency", type=_positive_int, default=8, metavar="N", help="requests in flight (default: 8)")
    b.add_argument("--no-wait", action="store_true", help="only submit; do not wait for the results")
    b.add_argument(
        "--no-refang",
        action="store_true",
        help="send each line as written (by default defanging is undone and a bare domain or IP is scanned as http://)",
    )
    _add_scan_options(b)
    _add_wait_options(b)

    group("visibility", "change a scan's visibility")
    derive("visibility", "set")
    derive("visibility", "reset")

    # -- search
    q = command(
        ["search"],
        "search historical scans (or another data source)",
        cmd_search,
        description=(
            "Search scans with the Elasticsearch query-string syntax, e.g. 'page.domain:example.com AND date:>now-7d'\n"
            "(- reads the query from stdin); --datasource searches hostnames, incidents, notifications, certificates\n"
            "or domains instead (premium). When it stops at --limit, the cursor to resume from is printed on stderr."
        ),
    )
    q.add_argument("query", metavar="QUERY", nargs="?", help="the query ('' for everything)")
    q.add_argument("--fields", action="store_true", help="list the fields this key may search, instead of searching")
    q.add_argument("--datasource", choices=list(HIT_HEADERS), default="scans", help="what to search (default: scans)")
    _add_paging_options(q)
    q.add_argument("--collapse", metavar="FIELD", help="one hit per value of FIELD")
    q.add_argument(
        "--parallel",
        type=_parallel,
        metavar="N|auto",
        help="walk a large export as N shards of the query at once, or 'auto' (8 when pages are slow); default: one walk",
    )

    si = command(["similar"], "find pages that look like a scan's (premium)", cmd_similar)
    si.add_argument("uuid", metavar="UUID", help="scan uuid (- reads it from stdin)")
    si.add_argument("--query", metavar="QUERY", help="only hits matching this query too")
    _add_paging_options(si)

    pf = command(["phishfeed"], "read the phishing feed (premium)", cmd_phishfeed)
    pf.add_argument("query", metavar="QUERY", nargs="?", help="only hits matching this query (- reads it from stdin)")
    _add_paging_options(pf, cursor=False)

    h = command(["hostname"], "show a hostname's history (premium)", cmd_hostname)
    h.add_argument("name", metavar="NAME", help="hostname (- reads it from stdin)")
    h.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="at most N records (default: 100)")
    h.add_argument("--page-state", metavar="STATE", help="resume from this page state")

    rq = command(
        ["request"],
        "call any endpoint by its path (one this command line has no command for yet)",
        cmd_request,
        description=(
            "Call an endpoint by its path below the base URL, with the API key, retries and rate-limit pacing of every\n"
            "command, and print the JSON answer (bytes as they come for an answer that is not JSON).\n"
            "Example: urlscan-rs request GET /api/v1/search/ --param q=domain:example.com --param size=5"
        ),
    )
    rq.add_argument("method", metavar="METHOD", choices=["GET", "POST", "PUT", "PATCH", "DELETE"], type=str.upper)
    rq.add_argument("path", metavar="PATH", help="e.g. /api/v1/quotas (- reads it from stdin)")
    rq.add_argument("-p", "--param", action="append", metavar="KEY=VALUE", help="a query parameter (repeatable)")
    rq.add_argument("-d", "--data", metavar="JSON", help="the JSON body (- reads it from stdin)")

    # -- account
    command(["quotas"], "show the rate limits and what is used", cmd_quotas)
    derive("user")
    derive("countries")
    derive("user-agents")
    group("key", "keep the API key in the system keyring")
    ks = command(
        ["key", "set"],
        "store the API key in the system keyring",
        cmd_key_set,
        description=(
            "Store the API key in the system keyring (service urlscan-rs, user api-key). The key is read at a prompt,\n"
            "or from stdin with - or when stdin is not a terminal: echo KEY | urlscan-rs key set -\n"
            f"Needs the keyring package: {KEYRING_INSTALL}"
        ),
    )
    ks.add_argument("key", metavar="-", nargs="?", help="read the key from stdin")
    kw = command(
        ["key", "show"],
        "show the API key in use and where it comes from",
        cmd_key_show,
        description="Show the API key the other commands use (masked) and where it comes from:\n"
        "--api-key, else $URLSCAN_API_KEY, else the system keyring.",
    )
    kw.add_argument("--reveal", action="store_true", help="print the whole key")
    command(["key", "delete"], "remove the API key from the system keyring", cmd_key_delete)

    # -- commands derived from the client's methods
    for name, (_, _, help) in NAMESPACE_GROUPS.items():
        group(name, help)
    for path in list(derived):
        derive(*path)
    dd = command(
        ["datadump", "download"],
        "download a data-dump file (resumed if the connection drops; checked against its listed size)",
        cmd_datadump_download,
    )
    dd.add_argument("path", help=FIELD_HELP["path"])
    dd.add_argument("-o", "--output", metavar="DIR", default=".", help="folder (or file name) to write to (default: here)")
    ds = command(
        ["datadump", "sync"],
        "download every data-dump file of the last days that a folder does not hold yet (safe to run from cron)",
        cmd_datadump_sync,
    )
    ds.add_argument("dir", help="the folder to keep current (its state is in .urlscan-datadumps.sqlite3 there)")
    ds.add_argument("--window", choices=("days", "hours", "minutes"), default="hours", help="length of one file (default: hours)")
    ds.add_argument(
        "--type",
        dest="types",
        action="append",
        choices=("search", "api", "screenshots", "dom"),
        help="kind of data, repeatable (default: search and api)",
    )
    ds.add_argument("--days", type=_positive_int, default=7, metavar="N", help="the last N days, today included (default: 7)")
    sg = command(
        ["saved-search", "get"],
        "one of your saved searches",
        cmd_saved_search_get,
        description="Print one saved search by its id (found in the list of yours: the service has no endpoint for one).",
    )
    sg.add_argument("search_id", metavar="ID")

    dr = command(
        ["datadump", "read"],
        "print or convert a data-dump file (search and api: hits or results; screenshots and dom: files)",
        cmd_datadump_read,
        api=False,
    )
    dr.add_argument("file", help="a data-dump file as downloaded (.gz)")
    dr.add_argument("--type", choices=("search", "api", "screenshots", "dom"), help="what it holds (default: from its path)")
    dr.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet"),
        default="jsonl",
        help="jsonl: the items as served (screenshots and dom: uuid and size); csv, parquet: the flat schema (default: jsonl)",
    )
    dr.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout (Parquet needs one)")

    # -- tools
    ls = command(
        ["listen"],
        "receive webhook notifications and print them",
        cmd_listen,
        api=False,
        description=(
            "Serve a webhook endpoint and print each notification POSTed to it (de-duplicated by id):\n"
            "a one-line summary, or the payload as one JSON line with --json. Give the address printed\n"
            "on stderr as a webhook channel's URL. Stops after --count notifications, or on Ctrl-C (exit 0)."
        ),
    )
    ls.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    ls.add_argument("--port", type=_port, default=8080, help="port to listen on (default: 8080; 0 picks a free one)")
    ls.add_argument("--count", type=_positive_int, metavar="N", help="stop after N notifications (default: run until Ctrl-C)")
    ls.add_argument(
        "--forward-to",
        metavar="URL",
        type=_http_url,
        help="also POST each notification to URL (a local app; tried 3 times, failures on stderr)",
    )
    ls.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per line")

    cp = command(
        ["completion"],
        "print a shell completion script",
        cmd_completion,
        api=False,
        description='Print a completion script for bash or zsh: eval "$(urlscan-rs completion bash)" in ~/.bashrc\n'
        '(zsh: eval "$(urlscan-rs completion zsh)" in ~/.zshrc).',
    )
    cp.add_argument("shell", choices=("bash", "zsh"))

    command(
        ["mcp"],
        "serve the API to assistants (Model Context Protocol over stdio)",
        cmd_mcp,
        description=(
            "A Model Context Protocol server on stdin/stdout with tools to scan, read results and their\n"
            "indicators, search scans and data sources, and read quotas, through this client (its pacing\n"
            'and errors). Needs the mcp package: pip install "urlscan-rs[mcp]". Register it with an MCP\n'
            'client as {"command": "urlscan-rs", "args": ["mcp"]} with URLSCAN_API_KEY in its environment.'
        ),
    )

    e = command(
        ["emulator"],
        "serve the local emulator of the service",
        cmd_emulator,
        api=False,
        description=(
            "Serve the local emulator of the service. It prints `export URLSCAN_BASE_URL=...` and\n"
            "`export URLSCAN_API_KEY=...` first (then the other keys as comments) and serves until Ctrl-C.\n"
            "With --background it starts in a process of its own and returns at once, so that\n"
            '  eval "$(urlscan-rs emulator --background)"\n'
            'sets up the shell (URLSCAN_EMULATOR_PID too); `eval "$(urlscan-rs emulator --stop)"` stops it.'
        ),
    )
    e.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    e.add_argument("--port", type=_port, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    e.add_argument("--scans", type=int, default=1000, metavar="N", help="historical scans to pre-load (default: 1000)")
    e.add_argument("--seed", type=int, default=0, help="seed of the generated data (default: 0)")
    e.add_argument("--latency", type=_seconds, default=0.0, metavar="SECONDS", help="added before each answer (default: 0)")
    e.add_argument(
        "--scan-duration",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="from submission to a finished scan (default: 10)",
    )
    e.add_argument(
        "--background",
        action="store_true",
        help="start it in a detached process, print the export lines and its pid, and return (default: serve here)",
    )
    e.add_argument(
        "--log", metavar="FILE", help="with --background: append the emulator's messages to FILE (default: discard them)"
    )
    e.add_argument(
        "--stop",
        action="store_true",
        help="stop the emulator started with --background and print the unset line (default: start one)",
    )
    e.add_argument("--pid", metavar="PID", help="with --stop: the emulator's process (default: $URLSCAN_EMULATOR_PID)")
    e.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per line")

    d = command(["demo"], "a tour against the built-in emulator", cmd_demo, api=False)
    d.add_argument("--scan-duration", type=_seconds, default=3.0, metavar="SECONDS", help="how long scans take (default: 3)")
    d.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per step")
    # Every command that prints (JSON with --json) can write it to a file instead; the commands
    # that write files of their own (screenshots, downloads, exports) keep their -o, and the
    # servers (emulator, listen) and the demo print for a person watching.
    for path, leaf in leaf_commands(p).items():
        if "-o" not in leaf._option_string_actions and path[0] not in ("emulator", "listen", "demo", "mcp", "completion"):
            leaf.add_argument("-o", "--output", dest="output_file", metavar="FILE", help="write the output to FILE, not stdout")
    return p


def leaf_commands(parser: argparse.ArgumentParser | None = None) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command that runs something (``("incident", "create")``, ``("scan",)``, ...) and its parser."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found[path] = p
            return
        for action in subs:
            for name, child in action.choices.items():
                walk(child, (*path, name))

    walk(parser or build_parser(), ())
    return found


# ------------------------------------------------------------------ main


def _silence_stdout() -> None:
    """After a broken pipe: send whatever is left to /dev/null so the exit is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _exit_status(code: object) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    return EXIT_USAGE


def _interrupted(e: KeyboardInterrupt) -> str:
    submitted: list[tuple[str, str]] = getattr(e, "submitted", [])
    if not submitted:
        return "interrupted"
    if len(submitted) == 1:
        uuid, url = submitted[0]
        return f"interrupted; submitted: {uuid} {url} (it may still finish: urlscan-rs result {uuid})"
    lines = "".join(f"\n  {uuid} {url}" for uuid, url in submitted)
    return f"interrupted; submitted {len(submitted)} scans (they may still finish: urlscan-rs result UUID):{lines}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version and usage errors (argparse printed them)
        return _exit_status(e.code)
    target = getattr(args, "output_file", None)
    if target and target != "-":
        try:
            redirected = open(target, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as e:
            _err(f"cannot write {target}: {e.strerror or e}")
            return EXIT_USAGE
        with redirected, contextlib.redirect_stdout(redirected):
            return _run(args)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    out = Output(args.json)
    notes = _show_waits(out)
    try:
        code = int(args.func(args, out))
        sys.stdout.flush()
        return code
    except KeyboardInterrupt as e:
        if out.bar is not None:
            out.bar.close()  # the message must not land on the bar's line
        _err(_interrupted(e))
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except CliError as e:
        _err(str(e))
        return e.code
    except UrlscanError as e:
        _err(_describe(args, e))
        return exit_code_for(e)
    finally:
        logging.getLogger("urlscan_rs").removeHandler(notes)
        logging.getLogger("urlscan_rs").propagate = True
        if out.bar is not None:
            out.bar.close()


if __name__ == "__main__":
    raise SystemExit(main())
