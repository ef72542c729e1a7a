"""Testing support: a local emulator of the service, and a webhook receiver.

>>> from urlscan_rs.testing import Emulator
>>> with Emulator(scans=100, scan_duration=5.0) as emu:
...     client = emu.client()
...     sub = client.scan("https://example.com")
...     emu.advance(5)                      # the scan finishes on the emulator clock
...     result = client.wait_for_result(sub.uuid, initial_wait=0)

Faults can be scripted to test how code copes with a misbehaving service:

>>> with Emulator(scans=20) as emu:
...     emu.inject("status", status=503, count=2, path="/api/v1/search")
...     hits = list(emu.client(max_retries=3).search("page.domain:example.com", limit=5))
...     assert emu.stats()["faults"] == 2

Notifications the emulator sends reach a :class:`WebhookReceiver` (a webhook
channel's URL); e-mails and every webhook attempt are kept in
:attr:`Emulator.outbox` and :attr:`Emulator.deliveries`.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from . import _native
from ._client import AsyncClient, Client
from .errors import DecodeError, ValidationError
from .events import parse_notification
from .models import Notification

if TYPE_CHECKING:
    from ._native import _EmulatorSettings, _FaultOptions

__all__ = ["Emulator", "Email", "Delivery", "WebhookReceiver", "ReceivedRequest"]

LatencySpec = float | Mapping[str, float]
RateLimitSpec = Mapping[str, Mapping[str, int | None]]


_S = TypeVar("_S", bound="_Serving")


class _Serving:
    """Something that serves from construction until :meth:`close`: also
    :meth:`stop`, and the end of a ``with`` block."""

    def close(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        """Stop serving (same as :meth:`close`)."""
        self.close()

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _listen_host(host: object) -> None:
    """A host to listen on: an address, or a name that resolves (else a ValidationError saying so)."""
    if not isinstance(host, str):
        raise ValidationError(f"host must be a str (an address such as 127.0.0.1), got {type(host).__name__}")
    if "\x00" in host:
        raise ValidationError(f"host {host!r} holds a NUL character: give an address such as 127.0.0.1")
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError) as e:
        raise ValidationError(f"host {host!r} is not an address or a name this machine resolves ({e})") from None


def _listen_port(port: object) -> None:
    """A port to listen on: 0 (any free one) to 65535 (else a ValidationError saying so)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValidationError(f"port must be an integer from 0 (a free port) to 65535, got {port!r}")


class Emulator(_Serving):
    """A real HTTP server on 127.0.0.1 that behaves like the service.

    * ``scans``: historical public scans pre-loaded (deterministic per
      ``seed``), from 0 to 100,000. Each takes about 20 KiB of memory and
      0.2 ms of a core to build: 100,000 take about 2 GiB and 20 s on two
      cores.
    * ``scan_duration``: seconds of emulator time from submission to a
      finished scan, from 0 to 1,000,000,000 (about 31 years: never, in a test).
    * ``seed``: the seed of the generated data and keys, an integer from 0 to
      2**64 - 1.
    * ``latency``: seconds (wall clock, from 0 to 3600) added before each
      answer, or a dict from endpoint group ("scan", "result", "search",
      "screenshot", "dom", "responses", "default") to seconds.
    * ``rate_limits``: per action ("public", "unlisted", "private",
      "retrieve", "search", "livescan") a dict of window ("minute", "hour",
      "day", or a number of seconds such as "10s") to a limit, an integer of
      0 or more (None for unlimited), e.g. ``{"search": {"minute": 30}}``.
    * ``host`` and ``port``: where to listen; ``port`` from 0 (a free port)
      to 65535.
    * ``result_size``: ``(min, max)`` bytes, with ``min <= max`` and
      ``0 < max <= 268435456`` (256 MiB, the client's default
      ``max_body_bytes``); result documents are grown (more
      ``data.requests`` entries, copies of the page's own requests) to a size
      drawn per scan from this range, deterministically; each round of
      copies is on hosts of its own (``r<n>.<host>``), listed in
      ``lists.urls``, ``lists.domains`` and ``lists.ips``, as a big real page
      loads from many domains. A document is built
      for each answer at about 8 times its size in memory (256 MiB: about
      2 GiB and 7 s). ``None`` (the default) keeps their natural size of tens
      of kilobytes.
    * ``title_size``: characters of every page's title (``page.title`` of
      results), a hostile page's million-character title; ``None`` (the
      default) keeps each page's own title.
    * ``compact_json``: answer JSON on one line; the service (and the emulator
      by default) indents it by two spaces. For measuring a client on both.
    * ``webhook_timeout``: seconds (wall clock, more than 0 and at most 3600)
      one webhook delivery attempt may take before it counts as failed and
      is retried.
    * ``body_timeout``: seconds (wall clock, more than 0 and at most 3600) a
      client may take to send a request's body once its headers are in;
      after that the emulator answers 408 and closes the connection, so a
      body that stops halfway does not hold a connection open. (Request
      headers have their own limit of 120 s, idle keep-alive time included.)

    A setting out of its range (a bool is not a number; neither is NaN), a
    latency group or rate-limit action that does not exist (the message
    suggests the one meant), raises ``urlscan_rs.ValidationError`` (a
    ``ValueError``) naming the setting; a value of the wrong type, a
    ``TypeError``.

    Emulator time runs with the wall clock plus whatever :meth:`advance` added.
    ``keys`` holds an API key of each kind: ``premium`` (also ``api_key``),
    ``team`` (same team as premium), ``readonly`` (premium, without the
    readwrite scope), ``free`` and ``other`` (a premium user of another team).
    """

    def __init__(
        self,
        scans: int = 1000,
        scan_duration: float = 10.0,
        seed: int = 0,
        latency: LatencySpec = 0.0,
        *,
        rate_limits: RateLimitSpec | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        result_size: tuple[int, int] | None = None,
        title_size: int | None = None,
        compact_json: bool = False,
        webhook_timeout: float = 5.0,
        body_timeout: float = 30.0,
    ) -> None:
        # Numbers go to the native side as given: it checks every one (a bool
        # or a string is refused there, not turned into a number here). The
        # shapes checked here are the host and the rate limits' dicts.
        _listen_host(host)
        if rate_limits is not None and not isinstance(rate_limits, Mapping):
            raise TypeError(
                f"rate_limits must be a dict of action to {{window: limit}}, e.g. {{'search': {{'minute': 30}}}}, "
                f"got {type(rate_limits).__name__}"
            )
        for action, windows in (rate_limits or {}).items():
            if not isinstance(windows, Mapping):
                raise TypeError(f"rate_limits[{action!r}] must be a dict of window to limit, got {type(windows).__name__}")
        if isinstance(latency, Mapping):
            groups = {str(k): v for k, v in latency.items()}
            default = groups.pop("default", 0.0)
        else:
            groups, default = {}, latency
        size: tuple[int, int] | None = None
        if result_size is not None:
            try:
                lo, hi = result_size
            except (TypeError, ValueError):
                raise ValidationError(f"result_size must be (min, max) bytes, got {result_size!r}") from None
            size = (lo, hi)
        settings: _EmulatorSettings = {
            "scans": scans,
            "seed": seed,
            "scan_duration": scan_duration,
            "latency": default,
            "latency_groups": groups,
            "rate_limits": {k: dict(v) for k, v in (rate_limits or {}).items()},
            "host": host,
            "port": port,
            "result_size": size,
            "title_size": title_size,
            "compact_json": compact_json,
            "webhook_timeout": webhook_timeout,
            "body_timeout": body_timeout,
        }
        self._native = _native.NativeEmulator(settings)
        self.scans = scans
        """Historical scans pre-loaded at start."""
        self.seed = seed
        """The seed of the generated data."""
        self.scan_duration = scan_duration
        """Seconds of emulator time from submission to a finished scan."""

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:41234`` (also :attr:`base_url`)."""
        return self._native.url

    @property
    def base_url(self) -> str:
        """The base URL, as ``Client(base_url=...)`` and ``--base-url`` name it (same as :attr:`url`)."""
        return self._native.url

    @property
    def api_key(self) -> str:
        """A premium key with the readwrite scope."""
        return self._native.api_key

    @property
    def keys(self) -> dict[str, str]:
        """A key of each kind: premium, team, readonly, free, other."""
        return self._native.keys

    @property
    def running(self) -> bool:
        """True until :meth:`stop`."""
        return self._native.running

    def advance(self, seconds: float) -> None:
        """Move the emulator clock forward (scans finish, windows reset) by
        ``seconds``, 0 or more; the clock stops at the end of the year 9999
        (a move past it raises ``urlscan_rs.ValidationError``).

        Clients of this emulator in this process forget the rate-limit windows they
        were pacing by, so a spent window is over for them too (clients of other
        servers keep theirs)."""
        self._native.advance(seconds)
        _native._server_clock_moved(self.url)

    def now(self) -> float:
        """Emulator time in seconds since the epoch."""
        return self._native.now()

    def stats(self) -> dict[str, int]:
        """Counters: ``submissions`` (scans accepted), ``requests`` served and
        ``faults`` (requests a fault of :meth:`inject` affected).

        A submission answered by a fault that skips the handler ("status",
        "rate_limit", "reset", ...) is not in ``submissions``; one that was
        only delayed or damaged ("stall", "slow", "truncate") is.
        """
        return self._native.stats()

    def inject(
        self,
        kind: Literal["status", "rate_limit", "reset", "stall", "slow", "truncate", "malformed", "html_error", "redirect"],
        *,
        count: int | None = 1,
        path: str | None = None,
        method: str | None = None,
        status: int | None = None,
        seconds: float | None = None,
        every: int | None = None,
        probability: float | None = None,
        location: str | None = None,
        seed: int | None = None,
    ) -> None:
        """Queue a fault: the emulator misbehaves on the requests it matches.

        A fault matches requests whose path starts with ``path`` (None: any
        path; the client sends paths like ``/api/v1/search/`` and
        ``/api/v1/result/<uuid>/``) and whose method is ``method`` (None: any).
        Of the matching requests it affects every one, or every ``every``-th,
        or a pseudo-random fraction ``probability`` (drawn from ``seed``,
        default 0, so a run repeats exactly), until it has affected ``count`` of them (None: until
        :meth:`clear_faults`). Faults are tried in the order they were
        queued; the first that affects a request applies, the others do not
        see it.

        Kinds, and what goes over the wire:

        * ``"status"``: ``status`` (default 500) with the service's JSON error
          envelope; the handler does not run. With ``seconds``, also
          ``Retry-After: <seconds>``.
        * ``"rate_limit"``: 429 with the JSON envelope, ``X-Rate-Limit-*``
          headers (the request's action, window ``minute``, its limit,
          remaining 0, reset and reset-after ``seconds``, default 1) and
          ``Retry-After``; the handler does not run.
        * ``"reset"``: the connection is closed with no answer at all.
        * ``"stall"``: waits ``seconds`` (real time), then answers normally.
        * ``"slow"``: answers normally, the body spread over ``seconds``.
        * ``"truncate"``: the normal status and headers with the Content-Length
          of the full body, then half of the body, then the connection closes.
        * ``"malformed"``: 200 ``application/json`` with ``{"results": [``.
        * ``"html_error"``: ``status`` (default 502) with a proxy's HTML error
          page (and ``Retry-After`` with ``seconds``).
        * ``"redirect"``: ``status`` (default 302) to ``location``.

        Bad options raise ``urlscan_rs.ValidationError`` (a ``ValueError``)
        naming the option, e.g. an unknown ``kind`` (with the one most likely
        meant), a bool where a number goes, or a number out of its range
        (``count`` and ``every`` from 1, ``seconds`` from 0 to 86400,
        ``probability`` from 0 to 1, ``seed`` from 0 to 2**64 - 1).
        """
        options: _FaultOptions = {
            "count": count,
            "path": path,
            "method": method,
            "status": status,
            "seconds": seconds,
            "every": every,
            "probability": probability,
            "location": location,
            "seed": seed,
        }
        self._native.faults(kind, options)

    def clear_faults(self) -> None:
        """Drop every queued fault (``stats()["faults"]`` keeps its count)."""
        self._native.faults(clear=True)

    def faults_remaining(self) -> int:
        """How many more requests the queued faults will affect; a fault
        without a ``count`` counts as one. 0 once every fault is spent."""
        return self._native.faults()

    @property
    def outbox(self) -> list[Email]:
        """E-mails sent so far (channels of type email and subscriptions'
        own addresses), oldest first. Nothing leaves the emulator: they are kept here."""
        return [Email._from_wire(d) for d in self._native.outbox()]

    @property
    def deliveries(self) -> list[Delivery]:
        """Every webhook attempt so far, oldest first (a retried notification
        has one entry per attempt, all with the same notification id)."""
        return [Delivery._from_wire(d) for d in self._native.deliveries()]

    def wait_deliveries(self, count: int = 1, timeout: float = 10.0) -> list[Delivery]:
        """Block until at least ``count`` webhook attempts are recorded, and return
        them all; raise ``TimeoutError`` after ``timeout`` (wall-clock) seconds.

        An attempt is recorded once its answer is back, a moment after the
        receiver has the request: read ``deliveries`` through this after
        ``WebhookReceiver.wait()``."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.deliveries
            if len(got) >= count:
                return got
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{len(got)} webhook attempts recorded in {timeout:g} s; waited for {count}")
            time.sleep(0.005)

    @property
    def notifications(self) -> list[Notification]:
        """Every notification created so far, oldest first, whatever its target."""
        return [Notification(d) for d in self._native.notifications()]

    def client(self, key: str | None = None, **kwargs: Any) -> Client:
        """A ``Client`` for this emulator; ``key`` is a key kind or a key (default: premium)."""
        return Client(self._key(key), base_url=self.url, **kwargs)

    def async_client(self, key: str | None = None, **kwargs: Any) -> AsyncClient:
        """An ``AsyncClient`` for this emulator."""
        return AsyncClient(self._key(key), base_url=self.url, **kwargs)

    def _key(self, key: str | None) -> str:
        if key is None:
            return self.api_key
        return self.keys.get(key, key)

    def close(self) -> None:
        """Stop serving (also ``stop()``, and the end of a ``with`` block)."""
        self._native.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"Emulator(url={self.url!r}, scans={self.scans}, seed={self.seed}, {state})"


# ---------------------------------------------------------------- events


def _at(v: Any) -> datetime:
    """An emulator timestamp (ISO 8601, UTC) as an aware datetime."""
    if not isinstance(v, str):
        raise DecodeError(f"expected an ISO 8601 time, got {v!r}")
    d = datetime.fromisoformat(v.replace("Z", "+00:00"))
    return d.replace(tzinfo=timezone.utc) if d.tzinfo is None else d.astimezone(timezone.utc)


def _notification(v: Any) -> Notification:
    return Notification(v if isinstance(v, dict) else {})


@dataclasses.dataclass(frozen=True)
class Email:
    """An e-mail in :attr:`Emulator.outbox`: who it went to and the notification it carries."""

    to: list[str]
    """The recipients."""
    subject: str
    """The subject line."""
    notification: Notification
    """The notification the e-mail carries."""
    at: datetime
    """When it was sent (emulator time, UTC)."""
    raw: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    """The e-mail as the emulator reported it."""

    @classmethod
    def _from_wire(cls, d: dict[str, Any]) -> Email:
        to = d.get("to")
        return cls(
            to=[str(x) for x in to] if isinstance(to, list) else [],
            subject=str(d.get("subject") or ""),
            notification=_notification(d.get("notification")),
            at=_at(d.get("at")),
            raw=d,
        )


@dataclasses.dataclass(frozen=True)
class Delivery:
    """One webhook attempt in :attr:`Emulator.deliveries`: the HTTP ``status``
    answered (None when there was no answer) or the ``error`` (refused
    connection, timeout, ...), and the 1-based ``attempt`` number."""

    url: str
    """The webhook URL posted to."""
    status: int | None
    """The HTTP status answered (None when there was no answer)."""
    error: str | None
    """Why there was no answer (refused connection, timeout, ...), or None."""
    attempt: int
    """The attempt number, from 1."""
    notification: Notification
    """The notification posted."""
    at: datetime
    """When the attempt was made (emulator time, UTC)."""
    raw: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    """The attempt as the emulator reported it."""

    @property
    def ok(self) -> bool:
        """True when the receiver answered 2xx."""
        return self.status is not None and 200 <= self.status < 300

    @classmethod
    def _from_wire(cls, d: dict[str, Any]) -> Delivery:
        status = d.get("status")
        error = d.get("error")
        return cls(
            url=str(d.get("url") or ""),
            status=status if isinstance(status, int) and not isinstance(status, bool) else None,
            error=error if isinstance(error, str) else None,
            attempt=int(d.get("attempt") or 0),
            notification=_notification(d.get("notification")),
            at=_at(d.get("at")),
            raw=d,
        )


@dataclasses.dataclass(frozen=True)
class ReceivedRequest:
    """A POST that reached a :class:`WebhookReceiver`, and the status it was answered with."""

    method: str
    """The HTTP method (always POST)."""
    path: str
    """The request path."""
    headers: dict[str, str]
    """The request headers."""
    body: bytes
    """The request body."""
    received_at: datetime
    """When it arrived (wall clock, UTC)."""
    status: int
    """The status it was answered with."""

    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


class WebhookReceiver(_Serving):
    """A webhook endpoint on loopback that collects notifications.

    >>> with WebhookReceiver() as hook:
    ...     channel = client.channels.create(type="webhook", name="hook", webhook_url=hook.url)
    ...     ...                                  # something that notifies
    ...     [n] = hook.wait(count=1, timeout=10)

    It serves HTTP on ``host`` (default 127.0.0.1) and ``port`` (default 0: a
    free port) from a daemon thread, from construction until :meth:`close` (or
    the end of the ``with`` block). Every POST, to any path, is kept in
    :attr:`requests` in arrival order, with the status it was answered with:

    * the first ``fail_first`` POSTs: 503 (to exercise the sender's retries);
    * a body that is not a notification (see :func:`urlscan_rs.parse_notification`): 400;
    * otherwise ``status`` (default 200) with ``{"ok": true}``.

    :attr:`notifications` holds the notifications answered with a 2xx,
    de-duplicated by ``id`` (a retried delivery carries the same id): the first
    arrival of each id is kept, in arrival order. Other methods than POST are
    answered 405 and not kept. Safe to use from any thread. ``host`` and
    ``port`` are those bound (the port chosen when 0 was given).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, fail_first: int = 0, status: int = 200) -> None:
        if isinstance(fail_first, bool) or not isinstance(fail_first, int) or fail_first < 0:
            raise ValidationError(f"fail_first must be a whole number, 0 or more, got {fail_first!r}")
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            raise ValidationError(f"status must be an HTTP status (100..599), got {status!r}")
        _listen_host(host)
        _listen_port(port)
        self._cond = threading.Condition()
        self._requests: list[ReceivedRequest] = []
        self._notifications: list[Notification] = []
        self._seen: set[str] = set()
        self._fail_left = fail_first
        self._status = status
        self._server = _Server((host, port), self)
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()
        self._closed = False
        bound = self._server.server_address
        self.host, self.port = str(bound[0]), int(bound[1])

    @property
    def url(self) -> str:
        """The address to give as a channel's ``webhook_url``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/webhook"

    @property
    def requests(self) -> list[ReceivedRequest]:
        """Every POST received, in arrival order (retries and bad bodies included)."""
        with self._cond:
            return list(self._requests)

    @property
    def notifications(self) -> list[Notification]:
        """The notifications accepted (answered 2xx), one per id, first arrival kept."""
        with self._cond:
            return list(self._notifications)

    def wait(self, count: int = 1, timeout: float | None = 10.0) -> list[Notification]:
        """Block until at least ``count`` distinct notifications arrived, and return
        them all; raise ``TimeoutError`` after ``timeout`` seconds (None: no limit)."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._notifications) >= count, timeout):
                got = len(self._notifications)
                raise TimeoutError(
                    f"{self.url} received {got} notification{'s' if got != 1 else ''} "
                    f"({len(self._requests)} requests) in {timeout:g} s; waited for {count}"
                )
            return list(self._notifications)

    def clear(self) -> None:
        """Forget what was received (the de-duplication starts afresh too)."""
        with self._cond:
            self._requests.clear()
            self._notifications.clear()
            self._seen.clear()

    def _receive(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        """Record a POST; returns the status to answer with."""
        with self._cond:
            note: Notification | None = None
            if self._fail_left > 0:
                self._fail_left -= 1
                status = 503
            else:
                try:
                    note = parse_notification(body)
                except DecodeError:
                    status = 400
                else:
                    status = self._status
            at = datetime.now(timezone.utc)
            self._requests.append(ReceivedRequest(method, path, headers, body, at, status))
            if note is not None and 200 <= status < 300 and note.id not in self._seen:
                self._seen.add(note.id)
                self._notifications.append(note)
            self._cond.notify_all()
            return status

    def close(self) -> None:
        """Stop serving (what was received stays readable)."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __repr__(self) -> str:
        with self._cond:
            n, r = len(self._notifications), len(self._requests)
        return f"WebhookReceiver(url={self.url!r}, notifications={n}, requests={r})"


# Bodies larger than this are refused (413) and not kept.
_MAX_BODY = 64 * 1024 * 1024


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Many deliveries may connect at once (the default backlog of 5 resets some).
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], receiver: WebhookReceiver) -> None:
        self.receiver = receiver
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "urlscan-rs-webhook"
    server: _Server

    def do_POST(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_BODY:
            self._answer(413 if length > _MAX_BODY else 400, {"ok": False, "error": "bad Content-Length"})
            return
        body = self.rfile.read(length) if length else b""
        headers = dict(self.headers.items())
        status = self.server.receiver._receive("POST", self.path, headers, body)
        if 200 <= status < 300:
            self._answer(status, {"ok": True})
        elif status == 400:
            self._answer(status, {"ok": False, "error": "not a notification"})
        else:
            self._answer(status, {"ok": False})

    def _refuse(self) -> None:
        self._answer(405, {"ok": False, "error": "POST only"})

    do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = _refuse

    def _answer(self, status: int, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass
