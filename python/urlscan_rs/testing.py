"""Testing support: a local emulator of the service.

>>> from urlscan_rs.testing import Emulator
>>> with Emulator(scans=100, scan_duration=5.0) as emu:
...     client = emu.client()
...     sub = client.scan("https://example.com")
...     emu.advance(5)                      # the scan finishes on the emulator clock
...     result = client.wait_for_result(sub.uuid, initial_wait=0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
        """Move the emulator clock forward (scans finish, windows reset)."""
        self._native.advance(float(seconds))

    def now(self) -> float:
        """Emulator time in seconds since the epoch."""
        return self._native.now()

    def stats(self) -> dict[str, int]:
        """Counters: ``submissions`` (scans accepted) and ``requests`` served."""
        return self._native.stats()

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
