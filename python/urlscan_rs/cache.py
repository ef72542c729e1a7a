"""The result cache: finished results, screenshots and DOMs kept on disk and served without a request.

A finished scan never changes, so once fetched its result, screenshot and DOM can be served
from disk: ``Client(cache="~/.cache/urlscan")`` (or a :class:`Cache` shared by several clients)
turns every later ``result``, ``results``, ``screenshot``, ``dom``, ``save`` and the reuse of
:meth:`~urlscan_rs.Client.lookup_or_scan` into a read of a local file, which spends no
``retrieve`` quota. Search pages are kept only when ``search_ttl`` is given.

The store is one SQLite file (``urlscan-cache.sqlite3`` in the folder), compiled into the package
(nothing to install), opened in WAL mode with a busy timeout, so several processes (a pool of
workers, a notebook and a playbook) share one cache safely. SQLite was chosen over a file per
entry because it keeps the size bound, the recency order and the per-scan eviction exact across
processes in one transaction.

Example::

    from urlscan_rs import Cache, Client

    cache = Cache("~/.cache/urlscan", max_bytes=2 << 30)
    with Client(cache=cache) as client:
        client.result(uuid)        # fetched and kept
        client.result(uuid)        # served from disk
        print(cache.stats())       # {"hits": 1, "misses": 1, "saved": {"retrieve": 1}, ...}
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import _native
from .errors import ValidationError

__all__ = ["Cache", "DEFAULT_MAX_BYTES", "FILE_NAME"]

DEFAULT_MAX_BYTES = 1 << 30
"""The default bound on the bodies kept: 1 GiB."""
FILE_NAME = "urlscan-cache.sqlite3"
"""The SQLite file inside the cache's folder."""
_MAX_MAX_BYTES = (1 << 63) - 1


class Cache:
    """A result cache on disk, shared by the clients given it and by every process that opens
    the same folder.

    Parameters:
        path: The folder (created if missing; ``~`` is expanded).
        max_bytes: The bound on the bodies kept (default 1 GiB). Past it, the least recently
            used entries go; a body larger than the bound is not kept.
        search_ttl: Seconds a search page (``search``, ``similar``, ``phishfeed``) is kept;
            None (the default) keeps none, as new scans are indexed every second.

    What is kept and when it goes:

    - a result, screenshot or DOM is kept once a request for it answers 200 (a pending scan's
      404 is not kept) and is served from then on without a request;
    - a 410 (the scan was deleted) or a change of its visibility through any client with this
      cache drops every entry of that scan; a scan deleted elsewhere is served until then, or
      until :meth:`evict`;
    - entries are scoped by digests of the service's address (without any credentials in it)
      and of the API key: clients of another key or server read none of them, and neither is
      written to the file;
    - only a body that is what its request promises is kept: a result whose ``task.uuid`` is the
      scan asked for, a PNG, a non-empty DOM, one whole JSON object for a search page. Each entry
      keeps a checksum; one that fails it, or no longer passes that check, is dropped, fetched
      again and counted in ``stats()["damaged"]``;
    - its files (the database and SQLite's ``-wal`` and ``-shm``) follow no symbolic link and
      are made readable by their owner alone (an existing file readable by others is made so,
      or refused naming it); a file that is another program's database is refused, never changed;
    - once the cache is open, a failure to read or write it (a full disk, a lock held too long)
      is logged and counted in ``stats()["errors"]``, and the request goes to the service.

    Raises:
        ValidationError: ``max_bytes`` not 1 to 2**63-1, or ``search_ttl`` not a positive number
            of seconds up to ten years.
        OSError: The folder cannot be made, or the file there is a link, not a regular file,
            not a cache, or held locked by another process for over 10 s (the message names
            it).
    """

    __slots__ = ("_native",)

    def __init__(
        self, path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES, search_ttl: float | None = None
    ) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not 1 <= max_bytes <= _MAX_MAX_BYTES:
            raise ValidationError(f"cache max_bytes must be a whole number of bytes, 1 to 2**63-1; got {max_bytes!r}")
        if search_ttl is not None and (isinstance(search_ttl, bool) or not isinstance(search_ttl, (int, float))):
            raise ValidationError(f"cache search_ttl must be a number of seconds or None; got {search_ttl!r}")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a folder (str or os.PathLike), got {type(path).__name__}")
        if not os.fspath(path).strip():
            # Path("") is the current folder: a cache there is no one's intent.
            raise ValidationError("cache path must name a folder, got an empty string")
        self._native = _native.NativeCache(Path(path).expanduser(), max_bytes=max_bytes, search_ttl=search_ttl)

    @property
    def path(self) -> Path:
        """The folder."""
        return self._native.path

    @property
    def max_bytes(self) -> int:
        """The bound on the bodies kept, in bytes."""
        return self._native.max_bytes

    @property
    def search_ttl(self) -> float | None:
        """Seconds a search page is kept (None: search pages are not kept)."""
        return self._native.search_ttl

    def stats(self) -> dict[str, Any]:
        """What this cache object did since it was made, and what the file holds.

        ``hits`` (answers served from disk), ``misses`` (answers fetched that it may keep),
        ``stored``, ``evicted``, ``errors``, ``damaged`` (entries dropped and fetched again
        because they failed their checksum or check), ``bytes_served``, ``saved`` (requests not sent, by
        the rate-limit action they would have counted against, e.g. ``{"retrieve": 12}``), and
        the file's ``entries`` and ``bytes`` (every process's).
        """
        return self._native.stats()

    def evict(self, uuid: str) -> int:
        """Drop every entry of scan ``uuid`` (one deleted elsewhere); how many there were."""
        return self._native.evict(uuid)

    def clear(self) -> int:
        """Drop every entry; how many there were."""
        return self._native.clear()

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its settings on the other side (its counters start afresh there).
        return (_rebuild, (str(self.path), self.max_bytes, self.search_ttl))

    def __repr__(self) -> str:
        ttl = "" if self.search_ttl is None else f", search_ttl={self.search_ttl!r}"
        return f"Cache({str(self.path)!r}, max_bytes={self.max_bytes}{ttl})"


def _rebuild(path: str, max_bytes: int, search_ttl: float | None) -> Cache:
    return Cache(path, max_bytes=max_bytes, search_ttl=search_ttl)
