"""Exit codes, the errors the command line raises itself, what an error means for the user,
and where a command writes (JSON lines or aligned, coloured text)."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .. import _native
from .._progress import ProgressBar, _isatty
from ..errors import (
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


# The library's advice on the key, in Python's terms ("check URLSCAN_API_KEY or api_key="): the
# command line gives its own, once (--api-key, URLSCAN_API_KEY, `urlscan-rs key show`).
_KEY_ADVICE = re.compile(r";[^;]*\bapi_key=[^;]*$")


def _detail(err: APIError) -> str:
    """The service's message, with its description when that adds something."""
    msg = _KEY_ADVICE.sub("", err.message or str(err))
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
        unsent = " (nothing was sent)" if (err.message or str(err)).endswith("(not sent)") else ""
        return f"the API key was refused: {_detail(err)}{unsent}; check --api-key, URLSCAN_API_KEY or `urlscan-rs key show`"
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

    def progress(self, label: str, total: int | None = None, *, enabled: bool = True, unit: str | None = None) -> ProgressBar:
        """A bar on stderr (drawn only when stderr is a terminal)."""
        self.bar = ProgressBar(label, total, stream=sys.stderr, enabled=enabled and _isatty(sys.stderr), unit=unit)
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
    sys.stderr.write(f"urlscan-rs: {prefix} {_shown(message)}\n")
    sys.stderr.flush()


def _note(message: str) -> None:
    sys.stderr.write(f"urlscan-rs: {_shown(message)}\n")
    sys.stderr.flush()


def _shown(message: str) -> str:
    """A message as stderr shows it: the URLs in it redacted (a password, a token)."""
    return _native.redact_text(message)


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


def _silence_stdout() -> None:
    """After a broken pipe: send whatever is left to /dev/null so the exit is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
