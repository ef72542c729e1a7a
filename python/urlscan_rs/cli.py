"""The ``urlscan-rs`` command line (also ``python -m urlscan_rs``).

Usage: ``urlscan-rs [--api-key KEY] [--base-url URL] [--json] [--timeout S] COMMAND ...``

Commands: ``scan``, ``result``, ``screenshot``, ``dom``, ``search``, ``bulk``,
``quotas``, ``hostname``, ``incident {create,get,close,restart,states}``,
``listen``, ``emulator`` and ``demo``. The key and the service address default to
``URLSCAN_API_KEY`` and ``URLSCAN_BASE_URL``; the global options are also
accepted after the command.

Output is a readable summary or an aligned table (colours only when stdout is a
terminal and ``NO_COLOR`` is unset). With ``--json`` every line is exactly one
JSON object: the wire form of results, submissions, search hits, hostname
records, incidents and notifications, and a small object for anything else (``bulk`` gives
``{"url", "ok", "uuid", "submission", "result", "error"}`` per URL). Progress
bars go to stderr, and only when stderr is a terminal. Errors go to stderr,
with what went wrong and what to do about it.

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

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from ._client import Client
from ._progress import ProgressBar
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
    CertificateHit,
    HostnameHit,
    Incident,
    IncidentHit,
    Notification,
    NotificationHit,
    ScanResult,
    SearchHit,
    Submission,
    Verdict,
)

__all__ = ["main", "build_parser", "exit_code_for", "describe_error", "notification_line", "EXIT_CODES_HELP"]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4
EXIT_RATE_LIMITED = 5
EXIT_TRANSPORT = 6
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

# Kept word for word in the module docstring (a test checks both agree).
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

# Searches asking for more hits than this get a progress bar (on a terminal).
SEARCH_PROGRESS_ABOVE = 300


class UsageError(Exception):
    """A problem with the command line itself, found after parsing (exit code 2)."""


# ------------------------------------------------------------------ errors


def exit_code_for(err: BaseException) -> int:
    """The documented exit code for an exception."""
    if isinstance(err, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(err, (ValidationError, UsageError)):
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
            return "no API key was given: set URLSCAN_API_KEY or pass --api-key"
        return f"the API key was refused: {_detail(err)}; check URLSCAN_API_KEY or --api-key"
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


# ------------------------------------------------------------------ commands


def _client(args: argparse.Namespace) -> Client:
    # Transient failures are retried; a spent quota surfaces at once (exit code 5) instead of waiting.
    return Client(args.api_key, base_url=args.base_url, timeout=args.timeout, max_retries=3, fail_fast=True)


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


def cmd_scan(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c:
        sub = c.scan(args.url, **_scan_options(args))
        if not args.wait:
            _print_submission(out, sub)
            return EXIT_OK
        label = f"scan {sub.uuid[:8]}: waiting (up to {args.wait_timeout:g}s)"
        with out.progress(label).ticking():
            result = c.wait_for_result(
                sub.uuid, timeout=args.wait_timeout, initial_wait=args.initial_wait, interval=args.interval
            )
        _print_result(out, result, c.base_url)
    return EXIT_OK


def cmd_result(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c:
        _print_result(out, c.result(args.uuid), c.base_url)
    return EXIT_OK


def cmd_screenshot(args: argparse.Namespace, out: Output) -> int:
    to_stdout = args.output == "-"
    if to_stdout and out.stdout_tty:
        raise UsageError("refusing to write PNG bytes to a terminal; redirect stdout (-o - > file.png) or use -o FILE")
    with _client(args) as c:
        png = c.screenshot(args.uuid)
    if to_stdout:
        sys.stdout.flush()
        sys.stdout.buffer.write(png)
        sys.stdout.buffer.flush()
        return EXIT_OK
    path = Path(args.output)
    try:
        path.write_bytes(png)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from e
    if out.json:
        out.emit({"uuid": args.uuid, "file": str(path), "bytes": len(png)})
    else:
        out.line(f"Saved the screenshot of {args.uuid} to {path} ({len(png):,} bytes, PNG)")
    return EXIT_OK


def cmd_dom(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c:
        dom = c.dom(args.uuid)
    if out.json:
        out.emit({"uuid": args.uuid, "dom": dom})
    else:
        out.line(dom[:-1] if dom.endswith("\n") else dom)
    return EXIT_OK


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
}


def cmd_search(args: argparse.Namespace, out: Output) -> int:
    limit: int = args.limit
    datasource: str = args.datasource
    with _client(args) as c:
        it = c.search(
            args.query, limit=limit, size=min(args.size, limit), datasource=None if datasource == "scans" else datasource
        )
        hits = []
        with out.progress("search", limit, enabled=limit > SEARCH_PROGRESS_ABOVE) as bar:
            for n, hit in enumerate(it, 1):
                if out.json:
                    out.emit(hit.raw)
                else:
                    hits.append(hit)
                total = it.total
                bar.update(n, limit if total is None else max(min(limit, total), n))
    if out.json:
        return EXIT_OK
    total, more = it.total, it.has_more
    if not hits:
        out.line(f"No hits for {args.query!r}.")
        return EXIT_OK
    headers, right = HIT_HEADERS[datasource]
    out.table(headers, [_hit_row(h) for h in hits], right=right)
    of = f" of {total:,}{'+' if more else ''}" if total is not None else ""
    hint = "; raise --limit to see more" if total is not None and (more or total > len(hits)) else ""
    out.line(out.paint(f"{len(hits):,}{of} hits{hint}", DIM))
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


def cmd_bulk(args: argparse.Namespace, out: Output) -> int:
    urls = _read_urls(args.file)
    if not urls:
        _note(f"no URLs in {'stdin' if args.file == '-' else args.file} (blank lines and # comments are skipped)")
        return EXIT_OK
    wait = not args.no_wait
    with _client(args) as c:
        with out.progress("scanning" if wait else "submitting", len(urls)) as bar:
            outcomes = c.bulk_scan(
                urls,
                wait=wait,
                concurrency=args.concurrency,
                progress=bar.update if bar.enabled else False,
                timeout=args.wait_timeout,
                initial_wait=args.initial_wait,
                interval=args.interval,
                **_scan_options(args),
            )
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
    with _client(args) as c:
        # The API's own `limit` is the batch size per request (10..10000).
        it = c.hostnames.history(args.name, limit=min(max(limit, 10), 10000))
        records = []
        for rec in itertools.islice(it, limit):
            if out.json:
                out.emit(rec.raw)
            else:
                records.append(rec)
    if out.json:
        return EXIT_OK
    if not records:
        out.line(f"No history for {args.name}.")
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


def cmd_incident_create(args: argparse.Namespace, out: Output) -> int:
    opts: dict[str, Any] = {}
    if args.scan_interval is not None:
        opts["scan_interval"] = args.scan_interval
    if args.expire_after is not None:
        opts["expire_after"] = args.expire_after
    if args.country:
        opts["countries"] = list(args.country)
    if args.extra_path is not None:
        opts["extra_path"] = args.extra_path
    with _client(args) as c:
        inc = c.incidents.create(args.observable, visibility=args.visibility, channels=list(args.channel), **opts)
    _print_incident(out, inc, "Created incident")
    return EXIT_OK


def _incident_action(name: str, title: str) -> Callable[[argparse.Namespace, Output], int]:
    def run(args: argparse.Namespace, out: Output) -> int:
        with _client(args) as c:
            inc = getattr(c.incidents, name)(args.id)
        _print_incident(out, inc, title)
        return EXIT_OK

    return run


def cmd_incident_states(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c:
        states = c.incidents.states(args.id)
    if out.json:
        for st in states:
            out.emit(st.raw)
        return EXIT_OK
    if not states:
        out.line(f"No observations of incident {args.id} yet.")
        return EXIT_OK
    rows: list[list[Cell]] = []
    for st in states:
        s = st.state if isinstance(st.state, dict) else {}
        mal = s.get("malicious")
        rows.append(
            [
                _when(st.time_start, minutes=True),
                _when(st.time_end, minutes=True),
                str(s.get("status") or "-"),
                ("yes", RED) if mal else ("no" if mal is False else "-"),
                str(s.get("country") or "-"),
                str(s.get("ip") or "-"),
                _clip(str(s.get("title") or ""), 40),
                st.id,
            ]
        )
    out.table(["START (UTC)", "END", "STATUS", "MALICIOUS", "CC", "IP", "TITLE", "ID"], rows)
    return EXIT_OK


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
                    shown += 1
                    if count is not None and shown >= count:
                        break
        except KeyboardInterrupt:
            pass
    return EXIT_OK


def cmd_emulator(args: argparse.Namespace, out: Output) -> int:
    from .testing import Emulator

    emu = Emulator(scans=args.scans, seed=args.seed, scan_duration=args.scan_duration, latency=args.latency, port=args.port)
    try:
        if out.json:
            out.emit({"URLSCAN_BASE_URL": emu.url, "URLSCAN_API_KEY": emu.api_key, "keys": emu.keys})
            sys.stdout.flush()
        else:
            print(f"URLSCAN_BASE_URL={emu.url}")
            print(f"URLSCAN_API_KEY={emu.api_key}")
            for kind, key in emu.keys.items():
                print(f"# {kind} key: {key}")
            print("# serving until interrupted (Ctrl-C)", flush=True)
    except BrokenPipeError:
        # e.g. `urlscan-rs emulator | head -2`: the reader has what it needs; keep serving.
        _silence_stdout()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        emu.stop()
    return EXIT_OK


def cmd_demo(args: argparse.Namespace, out: Output) -> int:
    from .testing import Emulator

    started = time.monotonic()
    print("Starting the built-in emulator of the urlscan.io service ...")
    with Emulator(scans=500, scan_duration=args.scan_duration, seed=0) as emu, emu.client() as client:
        print(f"  listening on {emu.url}\n")
        user = client.user()
        print(f"Signed in as {user.username} (team {user.team.name if user.team else None}), products {user.products}\n")
        urls = [
            "https://www.example.com/",
            "https://login.paypal.com.account-verify.example.net/signin",
            "https://news.ycombinator.com/",
        ]
        print(f"Submitting {len(urls)} scans and waiting for them (scans take {args.scan_duration:g}s here) ...")
        outcomes = client.bulk_scan(urls, initial_wait=args.scan_duration, interval=0.5, timeout=60)
        for o in outcomes:
            if o.error is not None:
                print(f"  {o.url}: {type(o.error).__name__}: {o.error}")
                continue
            r = o.result
            assert r is not None
            ov = r.verdicts.overall
            print(
                f"  {r.uuid}  {r.page.domain:<45} ip={r.page.ip:<15} country={r.page.country}  "
                f"score={ov.score:>4} malicious={ov.malicious}"
            )
        print()
        first = outcomes[0].result
        if first is not None:
            print("A typed result:", first)
            print("  task.time      ", first.task.time.isoformat() if first.task.time else None)
            print("  page.server    ", first.page.server)
            print("  lists.domains  ", first.lists.domains[:5])
            print("  requests       ", len(first.data.get("requests", [])) if isinstance(first.data, dict) else 0)
            png = client.screenshot(first.uuid)
            print(f"  screenshot      {len(png)} bytes PNG\n")
        it = client.search("date:>now-7d AND NOT page.country:us", size=5, limit=5)
        print(f"Search 'date:>now-7d AND NOT page.country:us' ({it.count()} hits in all); the newest five:")
        for hit in it:
            when = f"{hit.task.time:%Y-%m-%d %H:%M}" if hit.task.time else "-"
            print(f"  {when}  {hit.page.domain or '-':<40} {hit.page.country}  {hit.page.ip}")
        q = client.quotas()
        print(f"\nQuota left today: {q.remaining('public')} public scans, {q.remaining('search')} searches")
    print(f"\nDone in {time.monotonic() - started:.1f}s. Next: see README.md for sync, async, search and bulk examples.")
    return EXIT_OK


# ------------------------------------------------------------------ parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
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

    group.add_argument("--api-key", metavar="KEY", default=d(None), help="API key (default: $URLSCAN_API_KEY)")
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


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(
        prog="urlscan-rs",
        description="A fast client for the urlscan.io API, with a local emulator of the service.",
        epilog=EXIT_CODES_HELP,
        formatter_class=raw,
    )
    p.add_argument("--version", action="version", version=f"urlscan-rs {__version__}")
    _add_global_options(p, suppress=False)
    common = argparse.ArgumentParser(add_help=False)
    _add_global_options(common, suppress=True)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def api_command(
        name: str, help: str, func: Callable[[argparse.Namespace, Output], int], **kw: Any
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=kw.pop("description", help), parents=[common], formatter_class=raw, **kw)
        sp.set_defaults(func=func)
        return sp

    s = api_command(
        "scan",
        "submit a URL for scanning",
        cmd_scan,
        description="Submit a URL; with --wait, wait for the scan and print its result.",
    )
    s.add_argument("url")
    s.add_argument("--wait", action="store_true", help="wait for the scan to finish and print the result")
    _add_scan_options(s)
    _add_wait_options(s)

    r = api_command("result", "print a scan's result", cmd_result)
    r.add_argument("uuid")

    sh = api_command("screenshot", "save a scan's screenshot (PNG)", cmd_screenshot)
    sh.add_argument("uuid")
    sh.add_argument("-o", "--output", metavar="FILE", required=True, help="file to write, or - for stdout")

    dm = api_command("dom", "print a scan's DOM", cmd_dom)
    dm.add_argument("uuid")

    q = api_command(
        "search",
        "search historical scans (or another data source)",
        cmd_search,
        description=(
            "Search scans with the Elasticsearch query-string syntax, e.g. 'page.domain:example.com AND date:>now-7d';\n"
            "--datasource searches hostnames, incidents, notifications or certificates instead (premium)."
        ),
    )
    q.add_argument("query", help="the query ('' for everything)")
    q.add_argument(
        "--datasource",
        choices=list(HIT_HEADERS),
        default="scans",
        help="what to search (default: scans)",
    )
    q.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="at most N hits (default: 100)")
    q.add_argument("--size", type=_positive_int, default=100, metavar="N", help="hits per request (default: 100)")

    b = api_command(
        "bulk",
        "scan many URLs from a file",
        cmd_bulk,
        description=(
            "Scan the URLs of FILE (one per line; blank lines and # comments skipped; - reads stdin) and print one line\n"
            "per URL in input order, with the error for failed ones. Exits 0 only if every URL succeeded, else 1."
        ),
    )
    b.add_argument("file", metavar="FILE")
    b.add_argument("--concurrency", type=_positive_int, default=8, metavar="N", help="scans in flight (default: 8)")
    b.add_argument("--no-wait", action="store_true", help="only submit; do not wait for the results")
    _add_scan_options(b)
    _add_wait_options(b)

    api_command("quotas", "show the rate limits and what is used", cmd_quotas)

    h = api_command("hostname", "show a hostname's history (premium)", cmd_hostname)
    h.add_argument("name", metavar="NAME")
    h.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="at most N records (default: 100)")

    inc = sub.add_parser("incident", help="create and manage incidents (premium)", description="Incidents (premium).")
    isub = inc.add_subparsers(dest="incident_command", required=True, metavar="ACTION")

    def incident_command(name: str, help: str, func: Callable[[argparse.Namespace, Output], int]) -> argparse.ArgumentParser:
        sp = isub.add_parser(name, help=help, description=help, parents=[common])
        sp.set_defaults(func=func)
        return sp

    ic = incident_command("create", "start tracking an observable", cmd_incident_create)
    ic.add_argument("observable", metavar="OBSERVABLE", help="hostname, domain, IP or URL")
    ic.add_argument("--visibility", choices=["unlisted", "private"], required=True)
    ic.add_argument(
        "--channel", action="append", required=True, metavar="ID", help="notification channel id (repeat for several)"
    )
    ic.add_argument("--scan-interval", type=_positive_int, metavar="SECONDS", help="seconds between scans")
    ic.add_argument("--expire-after", type=_positive_int, metavar="SECONDS", help="close the incident after")
    ic.add_argument("--country", action="append", metavar="CC", help="country to scan from (repeatable)")
    ic.add_argument("--extra-path", metavar="PATH", help="path appended to the observable, starting with /")
    for name, help, title in (
        ("get", "show an incident", "Incident"),
        ("close", "close an incident", "Closed incident"),
        ("restart", "restart a closed incident", "Restarted incident"),
    ):
        incident_command(name, help, _incident_action(name, title)).add_argument("id", metavar="ID")
    incident_command("states", "list an incident's observations", cmd_incident_states).add_argument("id", metavar="ID")

    ls = sub.add_parser(
        "listen",
        help="receive webhook notifications and print them",
        description=(
            "Serve a webhook endpoint and print each notification POSTed to it (de-duplicated by id):\n"
            "a one-line summary, or the payload as one JSON line with --json. Give the address printed\n"
            "on stderr as a webhook channel's URL. Stops after --count notifications, or on Ctrl-C (exit 0)."
        ),
        formatter_class=raw,
    )
    ls.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    ls.add_argument("--port", type=int, default=8080, help="port to listen on (default: 8080; 0 picks a free one)")
    ls.add_argument("--count", type=_positive_int, metavar="N", help="stop after N notifications")
    ls.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per line")
    ls.set_defaults(func=cmd_listen)

    e = sub.add_parser(
        "emulator",
        help="serve the local emulator of the service",
        description="Serve the emulator; the first two lines are URLSCAN_BASE_URL=... and URLSCAN_API_KEY=...",
    )
    e.add_argument("--port", type=int, default=8000)
    e.add_argument("--scans", type=int, default=1000)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--latency", type=_seconds, default=0.0, metavar="SECONDS")
    e.add_argument("--scan-duration", type=_seconds, default=10.0, metavar="SECONDS")
    e.set_defaults(func=cmd_emulator)

    d = sub.add_parser("demo", help="a tour against the built-in emulator", description="A tour against the built-in emulator.")
    d.add_argument("--scan-duration", type=_seconds, default=3.0, metavar="SECONDS")
    d.set_defaults(func=cmd_demo)
    return p


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version and usage errors (argparse printed them)
        return _exit_status(e.code)
    out = Output(args.json)
    try:
        code = int(args.func(args, out))
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except UsageError as e:
        _err(str(e))
        return EXIT_USAGE
    except UrlscanError as e:
        key_given = bool(getattr(args, "api_key", None) or os.environ.get("URLSCAN_API_KEY"))
        base_url = getattr(args, "base_url", None) or os.environ.get("URLSCAN_BASE_URL") or "https://urlscan.io"
        _err(describe_error(e, base_url=base_url, key_given=key_given, timeout=getattr(args, "timeout", None)))
        return exit_code_for(e)
    finally:
        if out.bar is not None:
            out.bar.close()


if __name__ == "__main__":
    raise SystemExit(main())
