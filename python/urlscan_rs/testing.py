"""Testing support: a local emulator of the service.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from . import _native
from ._client import AsyncClient, Client

__all__ = ["Emulator"]

LatencySpec = float | Mapping[str, float]
RateLimitSpec = Mapping[str, Mapping[str, int | None]]


class Emulator:
    """A real HTTP server on 127.0.0.1 that behaves like the service.

    * ``scans``: historical public scans pre-loaded (deterministic per ``seed``).
    * ``scan_duration``: seconds of emulator time from submission to a finished scan.
    * ``latency``: seconds added before each answer, or a dict from endpoint
      group ("scan", "result", "search", "screenshot", "dom", "responses",
      "default") to seconds.
    * ``rate_limits``: per action ("public", "unlisted", "private", "retrieve",
      "search", ...) a dict of window ("minute", "hour", "day") to a limit
      (None for unlimited), e.g. ``{"search": {"minute": 30}}``.
    * ``result_size``: ``(min, max)`` bytes; result documents are grown (more
      ``data.requests`` entries, copies of the page's own requests) to a size
      drawn per scan from this range, deterministically. ``None`` (the
      default) keeps their natural size of tens of kilobytes.

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
    ) -> None:
        if isinstance(latency, Mapping):
            groups = {str(k): float(v) for k, v in latency.items()}
            default = groups.pop("default", 0.0)
        else:
            groups, default = {}, float(latency)
        self._native = _native.NativeEmulator(
            scans=scans,
            seed=seed,
            scan_duration=scan_duration,
            latency=default,
            latency_groups=groups,
            rate_limits={k: dict(v) for k, v in (rate_limits or {}).items()},
            host=host,
            port=port,
            result_size=None if result_size is None else (int(result_size[0]), int(result_size[1])),
        )
        self.scans = scans
        self.seed = seed
        self.scan_duration = scan_duration

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:41234``."""
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
        return self._native.running

    def advance(self, seconds: float) -> None:
        """Move the emulator clock forward (scans finish, windows reset).

        Clients in this process forget the rate-limit windows they were pacing by,
        so a spent window is over for them too."""
        self._native.advance(float(seconds))
        _native._server_clock_moved()

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

        Bad options raise ``urlscan_rs.ValidationError`` (a ``ValueError``).
        """
        self._native.faults(
            kind,
            count=count,
            path=path,
            method=method,
            status=status,
            seconds=None if seconds is None else float(seconds),
            every=every,
            probability=None if probability is None else float(probability),
            location=location,
            seed=seed,
        )

    def clear_faults(self) -> None:
        """Drop every queued fault (``stats()["faults"]`` keeps its count)."""
        self._native.faults(clear=True)

    def faults_remaining(self) -> int:
        """How many more requests the queued faults will affect; a fault
        without a ``count`` counts as one. 0 once every fault is spent."""
        return self._native.faults()

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

    def stop(self) -> None:
        self._native.stop()

    close = stop

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"Emulator(url={self.url!r}, scans={self.scans}, seed={self.seed}, {state})"
