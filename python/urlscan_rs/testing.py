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
import ipaddress
import json
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit

from . import _native
from ._arguments import folder_arg
from ._client import AsyncClient, Client
from .errors import DecodeError, ValidationError
from .events import parse_notification
from .models import Notification

if TYPE_CHECKING:
    from ._native import _EmulatorSettings, _FaultOptions

__all__ = ["Emulator", "Email", "Delivery", "WebhookReceiver", "ReceivedRequest", "result"]

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


def _wait_args(count: object, timeout: object, *, no_limit: bool = False) -> None:
    """What a wait takes: a count of 0 or more, and seconds from 0 to an hour (or None when
    ``no_limit``); else a ValidationError naming the argument."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValidationError(f"count must be an integer of 0 or more, got {count!r:.40}")
    if timeout is None and no_limit:
        return
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout <= 3600:
        limit = "from 0 to 3600 seconds, or None for no limit" if no_limit else "from 0 to 3600 seconds"
        raise ValidationError(f"timeout must be {limit}, got {timeout!r:.40}")


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
    * ``recordings``: a folder a client's ``record_to`` wrote (see
      :mod:`urlscan_rs.recording`): a request matching a recording (method,
      path, query, JSON body; any key) gets the recorded answer, every other
      the emulator's own. The folder is read and checked at start: a file
      that is not a recording, a symbolic link, a missing body file or two
      recordings of one request raise ``urlscan_rs.ValidationError`` naming
      the file.

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
        recordings: str | os.PathLike[str] | None = None,
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
            "recordings": folder_arg(recordings, "recordings"),
        }
        self._native = _native.NativeEmulator(settings)
        self._rules: list[tuple[Callable[[str], bool], Any]] = []
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
        """Counters: ``submissions`` (scans accepted), ``requests`` served,
        ``faults`` (requests a fault of :meth:`inject` affected), ``throttled``
        (the rate limiter's 429s) and ``connections`` (TCP connections accepted).

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
        _wait_args(count, timeout)
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

    # ------------------------------------------------------------ scenarios

    def add_result(self, doc: Mapping[str, Any], *, screenshot: bytes | None = None, dom: str | None = None) -> str:
        """Add a result document, as the service answers ``GET /api/v1/result/{uuid}/`` (a
        real one recorded, or one :func:`result` built), to the emulator's scans; returns
        its uuid (``task.uuid``).

        The scan is then served like the emulator's own: the result endpoint answers the
        document (its ``task.visibility`` and links made this server's), searches find
        it by a hit derived from the document by the rules the emulator's own hits follow
        (the page, lists, stats and verdicts it holds), and events, saved searches and
        incidents act on it as on a scan that just finished. ``screenshot`` (PNG bytes)
        and ``dom`` (HTML) are served as its screenshot and DOM; when not given, the
        emulator's own rendering of ``task.url``. It belongs to :attr:`api_key`'s user (a
        ``private`` one is that user's and team's).

        The document needs ``task.uuid`` (a UUID not yet in the emulator), ``task.url``
        (http or https) and ``task.time`` (ISO 8601); ``task.visibility`` is ``public``
        unless it says ``unlisted`` or ``private``. Anything else it lacks reads as empty.
        What is not such a document is a ``ValidationError`` saying why.

        >>> doc = urlscan_rs.testing.result("https://evil.example/login", malicious=True)
        >>> uuid = emu.add_result(doc)
        >>> emu.client().result(uuid).verdicts.malicious
        True
        """
        text = _document_text(doc, "doc")
        if screenshot is not None and not isinstance(screenshot, (bytes, bytearray, memoryview)):
            raise ValidationError(f"screenshot must be PNG bytes, got {type(screenshot).__name__}")
        if dom is not None and not isinstance(dom, str):
            raise ValidationError(f"dom must be a str of HTML, got {type(dom).__name__}")
        png = None if screenshot is None else bytes(screenshot)
        return self._native.plant(text, png, dom)

    def on_scan(self, match: ScanMatch, result: Mapping[str, Any] | Callable[[str], Mapping[str, Any] | None]) -> None:
        """Make a submission whose URL matches finish as ``result``: a result document (a
        dict, as :meth:`add_result` takes), or a function of the submitted URL returning
        one (or ``None`` for the emulator's own content).

        The scan goes through the normal lifecycle (pending for ``scan_duration``, then
        finished); its ``task.uuid``, ``task.url``, ``task.time`` and ``task.visibility``
        are the submission's, the rest is the document's. ``match`` is:

        * a host, a str without ``/`` (``"evil.example"``): the URL's host or a subdomain
          of it;
        * any other str: a part of the URL (``"/login?"``);
        * a compiled ``re.Pattern``: searched in the URL;
        * a function of the URL returning true or false.

        Rules are tried in the order they were given; the first that matches decides. A
        rule that raises, or a function that returns what is not a result document,
        makes the submission answer 500 with the error in its message, so a test sees it.

        >>> emu.on_scan("evil.example", lambda url: urlscan_rs.testing.result(url, malicious=True))
        >>> sub = client.scan("https://login.evil.example/")
        >>> emu.advance(emu.scan_duration)
        >>> client.result(sub.uuid).verdicts.malicious
        True
        """
        matches = _matcher(match)
        if not (isinstance(result, Mapping) or callable(result)):
            raise ValidationError(
                f"result must be a result document (a dict) or a function of the URL returning one, got {type(result).__name__}"
            )
        if isinstance(result, Mapping):
            _document_text(result, "result")
        self._rules.append((matches, result))
        if len(self._rules) == 1:
            self._native.on_scan(self._choose)

    def _choose(self, url: str) -> str | None:
        """The document (JSON text) the first matching rule gives ``url``, or None."""
        for matches, result in list(self._rules):
            if matches(url):
                doc = result(url) if callable(result) else result
                return None if doc is None else _document_text(doc, "the result for " + url)
        return None

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
        if self._rules:
            # The native side holds the rule, and the rule this emulator.
            self._native.on_scan(None)
            self._rules.clear()
        self._native.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"Emulator(url={self.url!r}, scans={self.scans}, seed={self.seed}, {state})"


ScanMatch = str | re.Pattern[str] | Callable[[str], bool]
"""What :meth:`Emulator.on_scan` matches a submitted URL by."""


def _matcher(match: Any) -> Callable[[str], bool]:
    """A test of a submitted URL (see :meth:`Emulator.on_scan`)."""
    if isinstance(match, re.Pattern):
        pattern = match
        return lambda url: pattern.search(url) is not None
    if isinstance(match, str):
        if not match.strip():
            raise ValidationError("match must not be empty: give a host, a part of the URL, a pattern or a function")
        if "/" in match:
            part = match
            return lambda url: part in url
        host = match.strip().strip(".").lower()
        return lambda url: (h := (urlsplit(url).hostname or "")) == host or h.endswith("." + host)
    if callable(match):
        test = match
        return lambda url: bool(test(url))
    raise ValidationError(
        f"match must be a host, a part of the URL, a re.Pattern or a function of the URL, got {type(match).__name__}"
    )


def _document_text(doc: object, name: str) -> str:
    """A result document as JSON text, or a ValidationError naming ``name``."""
    if not isinstance(doc, Mapping):
        raise ValidationError(f"{name} must be a result document (a dict), got {type(doc).__name__}")
    try:
        return json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        raise ValidationError(f"{name} is not a JSON document: {e}") from None


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
        _wait_args(count, timeout, no_limit=True)
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


# ---------------------------------------------------------------- built results

# The time of a built result when none is given: fixed, so the same call builds the same document.
_RESULT_TIME = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _text_fact(name: str, value: object) -> str | None:
    """A fact given as a str (an address object for ``ip``), or None when unset."""
    if value is None or isinstance(value, str):
        return value
    if name == "ip" and isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        return str(value)
    raise ValidationError(f"{name} must be a str, got {type(value).__name__}: {value!r:.60}")


def _int_fact(name: str, value: object) -> int | None:
    """A fact given as an int (never a bool), or None when unset."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"{name} must be an int, got {type(value).__name__}: {value!r:.60}")
    return int(value)


def _list_fact(name: str, value: object, item: tuple[type, ...], what: str) -> list[Any]:
    """A fact given as a list or tuple (any iterable but a str) of ``item`` values, as a list."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ValidationError(f"{name} must be a list of {what}, got {type(value).__name__}: {value!r:.60}")
    out = list(value)
    for i, v in enumerate(out):
        if not isinstance(v, item):
            raise ValidationError(f"{name}[{i}] must be {what}, got {type(v).__name__}: {v!r:.60}")
    return out


def result(
    url: str,
    *,
    uuid: str | None = None,
    time: datetime | None = None,
    visibility: Literal["public", "unlisted", "private"] = "public",
    malicious: bool | None = None,
    score: int | None = None,
    brands: Sequence[str] | None = None,
    ip: str | None = None,
    asn: str | None = None,
    country: str | None = None,
    title: str | None = None,
    status: int | None = None,
    outcome: Literal["ok", "unreachable", "unresolved", "blocked", "empty", "download"] | None = None,
    downloads: Sequence[str | Mapping[str, Any]] = (),
    tags: Sequence[str] = (),
) -> dict[str, Any]:
    """A complete result document of ``url``, as ``GET /api/v1/result/{uuid}/`` answers it,
    made by the emulator's own generator and given the facts a test states.

    Each fact is applied where the service shows it, so every model field, table column,
    relationship and STIX or MISP export of the document reads it alike. A fact left unset
    (None, or empty for ``downloads``) keeps what the generator makes of the URL (a URL that
    looks like phishing is malicious, ...); with none given the document is the emulator's
    own scan of ``url``.

    * ``malicious``: the verdicts' flag (``verdicts.overall``/``urlscan``, ``stats.malicious``).
      False also drops the brand the URL suggested; True on a URL the generator finds benign
      scores 100 and names no brand (no categories either). ``brands`` with ``malicious=False`` is a ValidationError:
      the service names brands on the pages it found impersonating them.
    * ``score``: the verdicts' score, -100 (legitimate) to 100 (malicious); it does not
      change the flag.
    * ``brands``: the brands the page impersonates, by key (``"paypal"``; a brand's name,
      any case, also does) of the emulator's brand table; the first is the one the page is
      built around (title and content of its kit, ``visible.brandname``). They are the
      verdicts' brands, categories ``["phishing"]``, tags, the label ``visual.brandai``
      and Safe Browsing's match. ``[]``: none.
    * ``ip``, ``asn`` (``"AS64500"``), ``country`` (two letters): the page host's address,
      network and country: ``page``, the remote address and ``asn``/``geoip`` of its
      requests, ``lists``, ``stats.ipStats`` and the ``asn``/``geoip``/``rdns`` processors.
      A given address has no reverse DNS name; a network the emulator does not know is
      named ``AS<n>, <country>``; ``asn`` alone places the page where a known network is.
    * ``title``: ``page.title`` and the DOM's ``<title>``; ``status``: ``page.status`` and
      the page's response status (100 to 599).
    * ``outcome``: how loading the page went: ``"ok"`` (loaded), ``"unreachable"`` (the
      connection was refused, ``net::ERR_CONNECTION_REFUSED``), ``"unresolved"`` (no answer
      at all, as a name that does not resolve), ``"blocked"`` (the browser's policy,
      ``net::ERR_BLOCKED_BY_ADMINISTRATOR``), ``"empty"`` (a 200 of no bytes, nothing else
      loaded), ``"download"`` (the page is a file the browser saved).
      :attr:`~urlscan_rs.models.ScanResult.page_outcome` reads them as ``ok``,
      ``unreachable``, ``unreachable``, ``blocked``, ``empty`` and ``ok``. A page that did
      not load has no ``ip``, ``asn``, ``country``, ``title`` or ``status`` (giving one is a
      ValidationError).
    * ``downloads``: the files the page made the browser download
      (``meta.processors.download``, :meth:`~urlscan_rs.models.ScanResult.downloads`): each a
      file name, or a dict of ``filename``, ``sha256``, ``filesize``, ``mimeType``,
      ``mimeDescription`` and ``url`` (what is left out is made up: the URL beside the
      page's, a hash and size, the type by the name's extension), each completed.
    * ``tags``: ``task.tags`` (at most 10, as the service keeps).

    ``uuid`` defaults to one derived from all the arguments (the same call, the same
    document); ``time`` (naive is UTC) to 2025-01-01T00:00:00Z; links in ``task`` are
    https://urlscan.io's. Every bad value is a :class:`~urlscan_rs.errors.ValidationError`
    naming its keyword (an unknown brand with the close ones, an unknown outcome with the
    known ones).

    >>> doc = result("https://evil.example/login", malicious=True, brands=["paypal"],
    ...              ip="203.0.113.7", asn="AS64500", country="NL", title="Log in")
    >>> scan = urlscan_rs.ScanResult(doc)
    >>> scan.malicious, scan.verdict.brands, scan.page.ip, scan.page.asn, scan.page.title
    (True, ('paypal',), '203.0.113.7', 'AS64500', 'Log in')

    A document built here can be served by an emulator (:meth:`Emulator.add_result`).
    """
    import uuid as _uuid

    if not isinstance(url, str):
        raise ValidationError(f"url must be a str, got {type(url).__name__}: {url!r:.60}")
    if time is None:
        time = _RESULT_TIME
    elif not isinstance(time, datetime):
        raise ValidationError(f"time must be a datetime, got {type(time).__name__}: {time!r:.60}")
    when = time.replace(tzinfo=timezone.utc) if time.tzinfo is None else time
    time_ms = round(when.timestamp() * 1000)
    if not isinstance(visibility, str):
        raise ValidationError(f"visibility must be a str, got {type(visibility).__name__}: {visibility!r:.60}")
    if malicious is not None and not isinstance(malicious, bool):
        raise ValidationError(f"malicious must be True, False or None, got {type(malicious).__name__}: {malicious!r:.60}")
    files: list[Any] = []
    for i, f in enumerate(_list_fact("downloads", downloads, (str, Mapping), "file names or dicts")):
        if isinstance(f, Mapping):
            f = dict(f)
            try:
                json.dumps(f)
            except (TypeError, ValueError) as e:
                raise ValidationError(f"downloads[{i}] must hold str and int values ({e})") from None
        files.append(f)
    facts: dict[str, Any] = {
        "malicious": malicious,
        "score": _int_fact("score", score),
        "brands": None if brands is None else _list_fact("brands", brands, (str,), "brand keys (str)"),
        "ip": _text_fact("ip", ip),
        "asn": _text_fact("asn", asn),
        "country": _text_fact("country", country),
        "title": _text_fact("title", title),
        "status": _int_fact("status", status),
        "outcome": _text_fact("outcome", outcome),
        "downloads": files,
        "tags": _list_fact("tags", tags, (str,), "str"),
    }
    facts_json = json.dumps(facts, sort_keys=True)
    if uuid is None:
        seed = json.dumps([url, time_ms, visibility, facts], sort_keys=True)
        uuid = str(_uuid.uuid5(_uuid.NAMESPACE_URL, "urlscan_rs.testing.result:" + seed))
    elif isinstance(uuid, _uuid.UUID):
        uuid = str(uuid)
    elif not isinstance(uuid, str):
        raise ValidationError(f"uuid must be a str, got {type(uuid).__name__}: {uuid!r:.60}")
    return _native.built_result(url, uuid, time_ms, visibility, facts_json)
