"""Client and AsyncClient.

Both classes share one definition per endpoint: each method forwards to the
native core, which blocks (``Client``, with the GIL released) or returns an
awaitable (``AsyncClient``) depending on how it was built. Typed signatures
for each class are in ``_client.pyi``.
"""

from __future__ import annotations

import inspect
import os
import urllib.parse
from collections.abc import Iterable, Mapping, Sized
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypedDict

from . import _artifacts, _native, _refang
from . import _progress as _progress_bars
from ._arguments import explained, folder_arg
from ._keys import KEYRING_SOURCE, stored_key
from ._namespaces import (
    _N,
    NAMESPACES,
    Brands,
    Channels,
    DataDumps,
    Feeds,
    Files,
    Hostnames,
    Incidents,
    LiveScan,
    SavedSearches,
    Subscriptions,
    _call_endpoint,
    _Native,
    _PagedIterator,
)
from ._tables import ResultList, Tabular
from .cache import Cache
from .errors import TransportError, ValidationError
from .hooks import EventHooks
from .recording import RecordHook
from .schema import Schema, of_datasource

if TYPE_CHECKING:
    from ._native import _Settings, _WaitOptions

_P = ParamSpec("_P")

__all__ = ["Client", "AsyncClient", "SearchIterator", "ScanOptions", "ClientOptions"]


class SearchIterator(_PagedIterator, Tabular):
    """Lazily walks search pages (``search_after`` from the last hit's ``sort``).

    Iterate with ``for`` (``Client``) or ``async for`` (``AsyncClient``).
    ``total``, ``has_more`` and ``search_after`` are known once the first page
    is read; ``search_after`` is the cursor after the last hit handed out, so a
    new search with it resumes exactly there. ``count()`` asks for the total
    only (a ``size=0`` request).

    The stubs type the iterator of a ``Client`` as ``SyncSearchIterator[Hit]``
    and that of an ``AsyncClient`` as ``AsyncSearchIterator[Hit]`` (where
    ``count()`` returns an awaitable), ``Hit`` being the model of the hits.

    Tables: ``to_arrow()``, ``to_polars()``, ``to_pandas()``,
    ``to_parquet(path)`` and the Arrow PyCapsule stream (``pyarrow.table(it)``,
    ``polars.DataFrame(it)``, duckdb) read the rest of the walk into columns
    of the data source's schema (:mod:`urlscan_rs.schema`), natively.
    """

    __slots__ = ("_kind", "_datasource", "_after")

    def __init__(self, cursor: Any, limit: int | None, kind: str = "search", datasource: str | None = None) -> None:
        super().__init__(cursor)
        self._set_limit(limit)
        self._kind = kind
        self._datasource = datasource
        self._after: str | None = None

    # -- state

    @property
    def total(self) -> int | None:
        """Hits matching the query: exact up to 10,000, then a floor (see ``has_more``)."""
        return self._cursor.total  # type: ignore[no-any-return]

    @property
    def has_more(self) -> bool | None:
        """True when more than 10,000 hits match (``total`` is then a floor)."""
        return self._cursor.has_more  # type: ignore[no-any-return]

    @property
    def search_after(self) -> str | None:
        """The cursor to resume from: after the last hit handed out."""
        if self._after is not None:
            return self._after
        sort = getattr(self._last, "sort", None)
        if sort:
            return ",".join(str(v) for v in sort)
        return self._cursor.search_after if not self._buffered else None

    @property
    def fetched(self) -> int:
        """Hits handed out so far."""
        return self._handed_out

    def count(self) -> Any:
        """The number of matching hits (an int, or an awaitable with AsyncClient).

        One request to the search's endpoint (e.g. GET /api/v1/search/) asking
        for the total only (``size=0``).
        """
        if self._cursor.is_async:
            return self._acount()
        return self._cursor.count()

    async def _acount(self) -> int:
        return await self._cursor.count()  # type: ignore[no-any-return]

    # Iteration: the walk over pages is _PagedIterator's, each hit handed out
    # by the native base (no decoding then; the cursor is read from the last
    # hit on demand).

    def to_records(self) -> list[dict[str, Any]]:
        """Read the remaining hits into flat dicts of the data source's table columns, as
        ``to_arrow()`` would give them (a sync iterator; honours ``limit``)."""
        return _native.records(self._table_schema().name, list(self))

    # -- tables (see Tabular)

    def _table_schema(self) -> Schema:
        return of_datasource(self._datasource)

    def _table_is_async(self) -> bool:
        return bool(self._cursor.is_async)

    def _fingerprint(self) -> str:
        return str(_native.search_fingerprint(self._cursor))

    def _table(self, columns: list[str] | None, resume: Any = None) -> Any:
        name = self._table_schema().name
        if resume is not None:
            after, rows, _chunk = resume
            left = self._remaining
            left = None if left is None else max(left - rows, 0)
            if left == 0:  # every row was written before: only the end (the join) is left to do
                return _native.table_stream(name, columns, [], None)
            cursor = _native.search_resumed(self._cursor, after, left)
            return _native.table_stream(name, columns, [], cursor, left)
        items = self._drain()
        left = self._remaining
        return _native.table_stream(name, columns, items, self._cursor, None if left is None else left + len(items))

    def _table_done(self, stream: Any) -> None:
        if stream.cursor is not None:
            self._after = stream.cursor

    def _repr_html_(self) -> str:
        from ._display import table

        if not self._buffered and not self._cursor.is_async and not self._cursor.done and self._handed_out == 0:
            # First display in a notebook: read the first page (it stays buffered).
            page = self._cursor.next_page()
            if page:
                self._extend(page)
        more = "+" if self.has_more else ""
        caption = f"{self._kind}: total {self.total}{more}, handed out {self._handed_out}, next {self._buffered} shown"
        return table(self._waiting(), caption)

    def __repr__(self) -> str:
        return (
            f"SearchIterator({self._kind}, fetched={self._handed_out}, total={self.total}, "
            f"has_more={self.has_more}, search_after={self.search_after!r})"
        )


def _progress(progress: Any, label: str, items: Any, unit: str = "result") -> tuple[Any, Any]:
    """``progress=True``: a bar shown at once with the number of items, moving while they wait
    (tqdm's when installed, a widget in notebooks; see ``_progress.tracker``); a callable gets
    (done, total). The items come back, made a list when the bar needs to count them first."""
    if progress is not True:
        return items, progress
    if not isinstance(items, Sized):
        items = list(items)
    return items, _progress_bars.tracker(progress, label, len(items), unit=unit)


async def _listed(out: Any) -> ResultList:
    return ResultList(await out)


async def _then_saved(client: Any, out: Any, dest: str | os.PathLike[str], concurrency: int | None) -> Any:
    return await _artifacts.save_outcomes(client, await out, dest, concurrency)


# BEGIN GENERATED scan_options by `python -m urlscan_rs._generate`: do not edit
class ScanOptions(TypedDict, total=False):
    """The options of a scan (:meth:`Client.scan`, :meth:`Client.scan_and_wait`,
    :meth:`Client.bulk_scan`), as keywords; None or a missing one is not sent.
    """

    visibility: Literal["public", "unlisted", "private"] | None
    """public, unlisted or private (none: the account's default); the service may enforce another, which the
    submission's visibility says."""
    tags: list[str] | None
    """At most 10 tags to annotate the scan."""
    country: str | None
    """A two-letter country to scan from (see available_countries; none: the service chooses)."""
    referer: str | None
    """The Referer header the scanner sends."""
    custom_agent: str | None
    """The User-Agent the scanner uses (see user_agents)."""
    override_safety: bool | None
    """Turn off the service's reclassification of URLs that may hold personal data; use with care."""


# END GENERATED scan_options


def _shown_url(url: str) -> str:
    """A URL as a repr may show it: a password in it is ``***``."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def _wait(timeout: float, initial_wait: float, interval: float) -> _WaitOptions:
    """The timing of a wait for a result, as the native client takes it."""
    return {"timeout": timeout, "initial_wait": initial_wait, "interval": interval}


# The core's timing of a wait, read once: the defaults of every method that waits (the stub's
# literal defaults are written from it by `python -m urlscan_rs._generate`).
_WAIT = _native.WAIT_DEFAULTS


class ClientOptions(TypedDict, total=False):
    """The settings :meth:`Client.with_options` changes, each as ``Client(...)`` takes it: what a
    request is sent with, not what builds the connection pool (address, key, proxy, TLS, user agent)."""

    timeout: float
    max_retries: int
    retry_deadline: float | None
    fail_fast: bool
    max_body_bytes: int
    max_download_bytes: int


class _BaseClient:
    _is_async = False
    # False for a client of with_options: the pool it uses is its parent's, closed by the parent.
    _owns_pool = True

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        user_agent: str | None = None,
        proxy: str | None = None,
        verify: bool = True,
        fail_fast: bool = False,
        retry_deadline: float | None = 600.0,
        max_body_bytes: int = 256 * 1024 * 1024,
        max_download_bytes: int = 64 << 30,
        event_hooks: EventHooks | None = None,
        cache: str | os.PathLike[str] | Cache | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_hook: RecordHook | None = None,
    ) -> None:
        """Build a client; nothing is sent until the first call.

        Parameters:
            api_key: The API key (sent only in the ``API-Key`` header); None reads
                ``URLSCAN_API_KEY``. Search and screenshots work without one.
            base_url: The service's address; None reads ``URLSCAN_BASE_URL``, then
                ``https://urlscan.io``. Point it at an emulator for tests.
            timeout: Seconds one request may take (per attempt). A download
                (``datadumps.download``, ``sync``) is not cut while bytes keep
                arriving: it fails when none arrives for this long (and resumes).
            max_retries: Retries of a failed request (connection errors, timeouts,
                429, 502/503/504; a POST only when the service cannot have processed it).
            user_agent: The ``User-Agent`` header (default: ``urlscan-rs/<version>``).
            proxy: A proxy URL for every request (e.g. ``http://proxy.example:3128``).
            verify: Verify TLS certificates.
            fail_fast: Raise ``RateLimitError`` at once when a rate-limit window is
                spent, instead of waiting for its reset.
            retry_deadline: No retry ends later than this many seconds after the
                first attempt, and no wait for a spent rate-limit window lasts longer
                (a longer one raises ``RateLimitError`` at once; None: no deadline).
            max_body_bytes: Larger answers raise ``DecodeError``.
            max_download_bytes: A download writes at most this many bytes (and at
                most the size its listing announces), then fails (default 64 GiB).
            event_hooks: ``{"request": [f, ...], "response": [g, ...]}``: ``f`` is
                called with a :class:`~urlscan_rs.hooks.HookRequest` before every
                attempt of every request (``method``, ``url``, ``headers`` without the
                API key, ``attempt``, ``action``, ``route``), ``g`` with a
                :class:`~urlscan_rs.hooks.HookResponse` after every answer
                (``status_code``, ``headers``, ``elapsed``, ``attempt``, ``request``).
                Plain functions, called on the client's I/O thread (an AsyncClient's
                too); what they raise is logged and the call goes on. A pickled
                client leaves them behind. See :mod:`urlscan_rs.hooks`.
            cache: A :class:`~urlscan_rs.cache.Cache`, or a folder to keep one in (off by
                default): finished results, screenshots and DOMs are then served from
                disk once fetched, without a request; ``client.cache.stats()`` says what
                it saved. Clients and processes may share one.
            record_to: A folder (made if missing) to write every answer from the service
                into, one file per request, for ``Emulator(recordings=...)`` to replay
                offline; the API key, request headers and credentials in URLs are never
                written. The layout is documented in :mod:`urlscan_rs.recording`.
            record_hook: ``f(entry)``, called with each recorded answer before it is
                written: returns it (changed or not), or None to write nothing
                (:data:`~urlscan_rs.recording.RecordHook`). Needs ``record_to``.

        Raises:
            ValidationError: An option breaks a documented rule (e.g. ``base_url=""``).
        """
        self._closed = False
        settings: _Settings = {
            "api_key": api_key,
            "base_url": base_url,
            "timeout": timeout,
            "max_retries": max_retries,
            "user_agent": user_agent,
            "proxy": proxy,
            "verify": verify,
            "fail_fast": fail_fast,
            "retry_deadline": retry_deadline,
            "max_body_bytes": max_body_bytes,
            "max_download_bytes": max_download_bytes,
            "record_to": folder_arg(record_to, "record_to"),
        }
        if record_hook is not None and (not callable(record_hook) or inspect.iscoroutinefunction(record_hook)):
            raise TypeError(f"record_hook must be a plain function of an entry (or None), got {record_hook!r:.80}")
        self._record_hook = record_hook
        if cache is not None and not isinstance(cache, Cache):
            if not isinstance(cache, (str, os.PathLike)):
                raise TypeError(f"cache must be a Cache, a folder (str or os.PathLike) or None, got {type(cache).__name__}")
            cache = Cache(cache)
        self.cache: Cache | None = cache
        """The result cache given (``cache=``), or None."""
        self._core = _native.NativeClient(
            settings,
            is_async=self._is_async,
            event_hooks=event_hooks,
            cache=cache._native if cache is not None else None,
            record_hook=record_hook,
        )
        self.livescan = LiveScan(self)
        """Live scanning from chosen scanners (premium)."""
        self.saved_searches = SavedSearches(self)
        """Saved searches (premium)."""
        self.subscriptions = Subscriptions(self)
        """Subscriptions to saved searches (premium)."""
        self.channels = Channels(self)
        """Notification channels: webhooks and e-mail."""
        self.incidents = Incidents(self)
        """Incidents: observables scanned repeatedly (premium)."""
        self.hostnames = Hostnames(self)
        """Hostname history (premium)."""
        self.brands = Brands(self)
        """Brands tracked for phishing detection (premium)."""
        self.files = Files(self)
        """File downloads (premium)."""
        self.datadumps = DataDumps(self)
        """Data dumps: bulk exports of scans, screenshots and DOMs (premium)."""
        self.feeds = Feeds(self)
        """Checkpointed feeds: the phishing feed or a saved search's hits, kept current in a folder (premium)."""

    def with_options(self, **options: Any) -> Any:
        """A client like this one with other per-call settings (:class:`ClientOptions`): for the
        few calls that need a shorter timeout or no retries, without a second connection pool.

        It shares this client's connections, rate-limit pacing and quota state, its event hooks,
        cache and recording; each setting not given is this client's. Closing this client ends
        the other's calls too (the pool is this one's); closing the other refuses its own later
        calls and leaves this one open.

        >>> quick = client.with_options(timeout=5.0, max_retries=0)
        >>> quick.result(uuid)                      # or client.with_options(timeout=5.0).result(uuid)

        Raises:
            ValidationError: A setting breaks the rule ``Client(...)`` checks it by.
            TypeError: A keyword that is not a per-call setting (``proxy=``, ``base_url=``, ...).
        """
        core = self._c.with_options(dict(options))
        new = object.__new__(type(self))  # not copy.copy: that would go through __reduce__ (pickling)
        new.__dict__.update(self.__dict__)
        new._core = core
        new._closed = False
        new._owns_pool = False
        for name, value in vars(self).items():  # the namespaces, each calling through the new client
            if isinstance(value, NAMESPACES):
                setattr(new, name, type(value)(new))
        return new

    def _call(self, fn: _Native[_P], /, *args: _P.args, **kwargs: _P.kwargs) -> Any:
        """``fn`` (a method of the native client) on this client's core: its value (Client) or
        an awaitable of it (AsyncClient)."""
        return fn(self._c, *args, **kwargs)

    def _tracked(self, fn: Any, /, *args: Any, progress: Any, **kwargs: Any) -> Any:
        """``_call`` with a ``progress`` of ``_progress``: its bar ends with the call (a failed
        one too: a traceback kept in a notebook must not keep it drawing)."""
        try:
            out = self._call(fn, *args, progress=progress, **kwargs)
        except BaseException:
            _progress_bars.close(progress)
            raise
        if not self._is_async:
            _progress_bars.close(progress)  # an AsyncClient's ends as its awaitable does
        return out

    @property
    def _c(self) -> _native.NativeClient:
        if self._closed:
            raise TransportError("the client is closed")
        return self._core

    @property
    def base_url(self) -> str:
        """The service's address in use (``base_url``, else ``URLSCAN_BASE_URL``, else ``https://urlscan.io``)."""
        return self._core.base_url

    @property
    def timeout(self) -> float:
        """Seconds one request may take (per attempt)."""
        return self._core.timeout

    @property
    def closed(self) -> bool:
        """True once ``close()`` was called (for a client of ``with_options``, its own or its
        parent's): every call then raises ``TransportError``."""
        return self._closed or self._core.closed

    @property
    def rate_limits(self) -> list[dict[str, Any]]:
        """The latest X-Rate-Limit-* values seen, one dict per action."""
        return self._core.rate_limits()

    @property
    def with_raw_response(self) -> Any:
        """Every method and namespace, returning the HTTP answer with the value:
        ``client.with_raw_response.result(uuid)`` is a
        :class:`~urlscan_rs._raw.RawResponse` (``status_code``, ``headers`` with every
        ``X-Rate-Limit-*``, ``content``, and ``parse()``, the value the plain method
        returns); awaitable with an AsyncClient. A call of several requests
        answers with the last; a walk (``search``) is refused, its pages come later."""
        from ._raw import RawClient

        return RawClient(self, self._is_async)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled with its settings so it can cross a process pool, but never
        # with the key (a pickle ends up in files, queues and caches): the
        # other side takes it from URLSCAN_API_KEY or the keyring.
        config = dict(self._core._config())
        had_key = config.pop("api_key") is not None
        if self.cache is not None:
            config["cache"] = self.cache
        if self._record_hook is not None:
            # Carried, or the other side would record unscrubbed (a lambda cannot be pickled: said then).
            config["record_hook"] = self._record_hook
        return (_rebuild_client, (type(self), config, had_key))

    def __repr__(self) -> str:
        core = getattr(self, "_core", None)
        if core is None:  # __init__ failed (e.g. a bad option): still printable
            return f"<{type(self).__name__} (not initialised)>"
        key = "'***'" if core.has_api_key else "None"
        return f"{type(self).__name__}(base_url={_shown_url(core.base_url)!r}, api_key={key})"

    def _endpoint(self, name: str, ids: list[str], options: dict[str, Any]) -> Any:
        return _call_endpoint(self._call, name, ids, options)

    # -- the rows of the core's endpoint table that are one call each

    # BEGIN GENERATED client by `python -m urlscan_rs._generate`: do not edit

    def quotas(self) -> Any:
        """The key's quotas: limit, used and remaining per action and window (GET /api/v1/quotas)."""
        return self._endpoint("quotas", [], {})

    def user(self) -> Any:
        """The user (or team) the key belongs to, with its limits and products (GET /api/v1/pro/username)."""
        return self._endpoint("user", [], {})

    def malicious(self, type: Any, value: str) -> Any:
        """How many malicious scans showed an observable, and when first and last (urlscan Pro)
        (GET /api/v1/malicious/{type}/{value}).

        A cheap check before a scan: ``count`` is 0 for an observable no malicious scan showed.
        """
        return self._endpoint("malicious", [type, value], {})

    def set_visibility(self, uuid: str, visibility: Any) -> Any:
        """Change the visibility of a scan of yours or your team's (PUT /api/v1/result/{uuid}/visibility/)."""
        return self._endpoint("set_visibility", [uuid], {"visibility": visibility})

    def reset_visibility(self, uuid: str) -> Any:
        """Reset a scan's visibility to the one it was submitted with (DELETE /api/v1/result/{uuid}/visibility/)."""
        return self._endpoint("reset_visibility", [uuid], {})

    def available_countries(self) -> Any:
        """The two-letter countries a scan may come from (GET /api/v1/availableCountries)."""
        return self._endpoint("available_countries", [], {})

    def user_agents(self) -> Any:
        """The user agents a scan may use, in groups (GET /api/v1/userAgents)."""
        return self._endpoint("user_agents", [], {})

    # END GENERATED client

    # -- scanning

    def scan(self, url: str, *, refang: bool = False, **scan_options: Any) -> Any:
        """Submit a URL for scanning (POST /api/v1/scan/).

        Returns the :class:`Submission` at once; the scan runs for some seconds
        after it. Read its result with :meth:`wait_for_result` (or submit with
        :meth:`scan_and_wait`). The rate-limit action is the visibility asked for.

        Parameters:
            url: http or https with a host (one without a scheme is sent as given;
                the service scans it as http).
            refang: Undo defanging first (``hxxps://evil[.]example`` is scanned as
                ``https://evil.example``; see :func:`urlscan_rs.refang`).
            scan_options: The options of :class:`ScanOptions`, each checked by its rule
                (a bad one is a ``ValidationError`` naming it; nothing is sent).

        Raises:
            ValidationError: A bad URL or option; nothing was sent.
            ScanRefusedError: The service refused to scan the URL.
        """
        if refang:
            url = _refang.refang(url)
        return self._call(_N.scan, url, scan_options)

    def result(self, uuid: str) -> Any:
        """The result of a finished scan (GET /api/v1/result/{uuid}/).

        Raises :class:`ScanPendingError` while the scan is still running,
        :class:`NotFoundError` for an unknown uuid and :class:`GoneError` for a
        deleted scan.
        """
        return self._call(_N.result, uuid)

    def wait_for_result(
        self,
        uuid: str,
        *,
        timeout: float = _WAIT["timeout"],
        initial_wait: float = _WAIT["initial_wait"],
        interval: float = _WAIT["interval"],
    ) -> Any:
        """Poll for a scan's result until it is ready (GET /api/v1/result/{uuid}/).

        As the service recommends: waits ``initial_wait`` seconds, then polls every
        ``interval`` seconds while the scan is not finished, and raises
        :class:`ScanTimeoutError` after ``timeout`` seconds. Any other error (no such
        scan, deleted, authentication) ends the wait at once.
        """
        return self._call(_N.wait_for_result, uuid, _wait(timeout, initial_wait, interval))

    def scan_and_wait(
        self,
        url: str,
        *,
        timeout: float = _WAIT["timeout"],
        initial_wait: float = _WAIT["initial_wait"],
        interval: float = _WAIT["interval"],
        **scan_options: Any,
    ) -> Any:
        """Submit a URL and wait for its result (POST /api/v1/scan/, then GET /api/v1/result/{uuid}/).

        ``scan_options`` are those of :meth:`scan` (``refang`` too); ``timeout``, ``initial_wait``
        and ``interval`` those of :meth:`wait_for_result`.
        """
        if scan_options.pop("refang", False):
            url = _refang.refang(url)
        return self._call(_N.scan_and_wait, url, scan_options, _wait(timeout, initial_wait, interval))

    def bulk_scan(
        self,
        urls: Iterable[str],
        *,
        wait: bool = True,
        concurrency: int | None = 8,
        progress: Any = False,
        timeout: float = _WAIT["timeout"],
        initial_wait: float = _WAIT["initial_wait"],
        interval: float = _WAIT["interval"],
        refang: bool = False,
        save_to: str | os.PathLike[str] | None = None,
        **scan_options: Any,
    ) -> Any:
        """Scan many URLs: one :class:`ScanOutcome` per URL, in input order (POST /api/v1/scan/ each,
        then GET /api/v1/result/{uuid}/ with ``wait``).

        A failure never aborts the batch: it is the outcome's ``error``. The
        other keywords are the options of :meth:`scan` (``visibility``,
        ``tags``, ...), the same for every URL; they are checked once, before
        anything is sent.

        Parameters:
            urls: The URLs to scan.
            wait: Also wait for each result (``outcome.result``); False stops at the submissions.
            concurrency: Requests in flight at most (default 8); None lets the rate
                limits be the bound (at most 64). Waiting between polls holds no slot.
            progress: True draws a tqdm bar (or a counter on stderr without tqdm); a
                callable gets ``(done, total)`` as URLs finish.
            timeout: As in :meth:`wait_for_result`.
            initial_wait: As in :meth:`wait_for_result`.
            interval: As in :meth:`wait_for_result`.
            refang: Undo defanging of each line first, and scan a bare domain or
                IP address as ``http://`` (as for a list of indicators pasted from a report).
            save_to: A folder to save each finished scan's artifacts in, as :meth:`save`
                does (needs ``wait``); a scan whose artifacts cannot be fetched or
                written gets that error as its outcome's.
        """
        if save_to is not None and not wait:
            raise ValidationError("save_to saves finished scans: it needs wait=True")
        if refang:
            urls = map(_refang.as_url, urls)
        urls, progress = _progress(progress, "bulk scan", urls, "url")
        out = self._tracked(
            _N.bulk_scan,
            urls,
            scan_options,
            _wait(timeout, initial_wait, interval) if wait else None,
            concurrency=concurrency,
            progress=progress,
        )
        if save_to is None:
            return out
        if self._is_async:
            return _then_saved(self, out, save_to, concurrency)
        return _artifacts.save_outcomes(self, out, save_to, concurrency)

    def lookup_or_scan(
        self,
        url: str,
        *,
        max_age: float = 86400,
        timeout: float = _WAIT["timeout"],
        initial_wait: float = _WAIT["initial_wait"],
        interval: float = _WAIT["interval"],
        refang: bool = False,
        check_malicious: bool = False,
        **scan_options: Any,
    ) -> Any:
        """Reuse a recent finished scan of ``url``, else scan it: a :class:`~urlscan_rs.models.Lookup`
        (``result``, ``reused``, ``uuid``) (GET /api/v1/search/, then GET /api/v1/result/{uuid}/, or
        POST /api/v1/scan/ and the wait).

        The service asks integrations to look for a recent scan before submitting
        a new one. This searches for scans of exactly this URL (as given, and as
        the service writes it) from the last ``max_age`` seconds (default a day;
        0 always scans) and reuses the newest that:

        - has the ``visibility`` asked for (any visible to the key when none is asked);
        - loaded its page (its hit has a ``page.status``, not 0): a page that
          could not be reached is scanned again;
        - still has its result (one deleted since it was indexed is passed over).

        Otherwise the URL is submitted with ``scan_options`` (those of :meth:`scan`)
        and its result awaited (``timeout``, ``initial_wait`` and ``interval`` as in
        :meth:`wait_for_result`). The options are checked before anything is sent.
        With a :class:`~urlscan_rs.cache.Cache`, a reused result is served from disk when
        it was fetched before.

        ``check_malicious=True`` (urlscan Pro) first asks the malicious lookup of the URL
        (GET /api/v1/malicious/{type}/{value}, one cheap request): a URL malicious scans already
        showed is then neither searched for nor scanned, and the Lookup's ``malicious`` says
        so (``count`` above 0, ``result`` None). Otherwise it goes on as above, with the
        lookup's answer (``count`` 0) in ``malicious``.

        Example::

            lk = client.lookup_or_scan("https://example.com/login", max_age=3600)
            print(lk.reused, lk.uuid, lk.result.verdict.malicious)
        """
        if refang:
            url = _refang.as_url(url)
        wait = _wait(timeout, initial_wait, interval)
        return self._call(_N.lookup_or_scan, url, scan_options, max_age, wait, check_malicious)

    def lookup_or_scan_many(
        self,
        urls: Iterable[str],
        *,
        max_age: float = 86400,
        concurrency: int | None = 8,
        progress: Any = False,
        timeout: float = _WAIT["timeout"],
        initial_wait: float = _WAIT["initial_wait"],
        interval: float = _WAIT["interval"],
        refang: bool = False,
        check_malicious: bool = False,
        **scan_options: Any,
    ) -> Any:
        """:meth:`lookup_or_scan` for many URLs: one :class:`~urlscan_rs.models.Lookup` per URL, in
        input order (GET /api/v1/search/ each, then GET /api/v1/result/{uuid}/ or POST /api/v1/scan/).

        A failure never aborts the batch: it is the item's ``error`` (its
        ``result``, ``reused`` and ``uuid`` are None). A URL given twice is
        looked up once, and both items are its answer (``progress`` counts the
        distinct URLs). ``concurrency`` and ``progress`` are as in
        :meth:`bulk_scan`, the other keywords as in :meth:`lookup_or_scan`.
        """
        if refang:
            urls = map(_refang.as_url, urls)
        urls, progress = _progress(progress, "lookup", urls, "url")
        return self._tracked(
            _N.lookup_or_scan_many,
            urls,
            scan_options,
            max_age,
            _wait(timeout, initial_wait, interval),
            check_malicious,
            concurrency=concurrency,
            progress=progress,
        )

    def save(
        self, uuid: str, dest_dir: str | os.PathLike[str] = ".", *, what: Iterable[str] | str = ("json", "png", "dom")
    ) -> Any:
        """Save a finished scan's artifacts in ``dest_dir`` (created if missing):
        ``<uuid>.json`` (the result as served, GET /api/v1/result/{uuid}/),
        ``<uuid>.png`` (GET /screenshots/{uuid}.png) and ``<uuid>.html`` (the DOM,
        GET /dom/{uuid}/); ``what`` picks some of "json", "png" and "dom".

        Everything asked for is fetched before anything is written, and each
        file is written whole (under a temporary name, then renamed). Returns
        the paths written, by kind: ``{"json": Path(...), ...}``.

        Raises:
            ScanPendingError: The scan has not finished.
            ValidationError: A bad ``uuid`` or ``what``.
        """
        return _artifacts.save(self, uuid, dest_dir, what)

    def results(self, uuids: Iterable[str], *, concurrency: int | None = 8, progress: Any = False) -> Any:
        """The results of many scans, in input order (GET /api/v1/result/{uuid}/ each).

        Errors come back as values: each item is a :class:`ScanResult` or the
        :class:`UrlscanError` its request raised. The list has ``to_arrow()``,
        ``to_pandas()``, ``to_polars()`` and ``to_parquet()`` (the results'
        ``RESULTS`` (:mod:`urlscan_rs.schema`) columns, errors left out). ``concurrency`` and ``progress``
        are as in :meth:`bulk_scan`.
        """
        uuids, progress = _progress(progress, "results", uuids)
        out = self._tracked(_N.results, uuids, concurrency=concurrency, progress=progress)
        if self._is_async:
            return _listed(out)
        return ResultList(out)

    def screenshot(self, uuid: str) -> Any:
        """The PNG screenshot of a finished scan (GET /screenshots/{uuid}.png).

        A :class:`~urlscan_rs.models.Screenshot`: ``bytes`` that display as an image
        in notebooks and have ``save(path)``. Needs no API key.
        """
        return self._call(_N.screenshot, uuid)

    def dom(self, uuid: str) -> Any:
        """The DOM snapshot of a finished scan, as text (GET /dom/{uuid}/)."""
        return self._call(_N.dom, uuid)

    def response(self, sha256: str) -> Any:
        """A script, document, fetch or XHR response by its SHA-256, as text (GET /responses/{sha256}/).

        Binary files are downloaded with ``client.files.download``.
        """
        return self._call(_N.response, sha256)

    # -- search

    # BEGIN GENERATED walks by `python -m urlscan_rs._generate`: do not edit

    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: str | None = None,
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SearchIterator:
        """Hits of ``q``, newest first, fetched lazily page by page (GET /api/v1/search/).

        Hits are :class:`SearchHit` for scans (the default), and :class:`HostnameHit`,
        :class:`IncidentHit`, :class:`NotificationHit`, :class:`CertificateHit` or :class:`DomainHit`
        for the other data sources.

        The next page is requested while the current one is read, and past the third page up to three
        pages of up to 4 MB are read ahead (never past the walk's end or ``limit``; larger pages, such
        as 10,000 hits, one at a time): a long walk left early may have asked for up to three pages it
        never handed out. By default the query is sent as given, one page after another. With
        ``parallel=N`` a large export (several pages still to come) is walked as N shards of the scans
        at once (``(q) AND task.uuid:(0* OR 1*)``, ...) and merged, so the order is exactly that of a
        single walk; ``parallel="auto"`` shards in 8 only when pages are slow to come back (25 ms or
        more). Never more shards run than the searches the service lets the key run at once (its
        ``X-Rate-Limit-Concurrency-Limit``, when it sends one). Sharding rewrites the query and
        multiplies the searches in flight on your key: the service's answers to such queries are
        verified only against the emulator.

        A walk always ends: a page whose cursor comes back or goes against the order of the pages
        before, more hits than an exact ``total`` announced, or a page whose ``results`` is missing
        while hits are announced raises :class:`DecodeError`.

        Parameters:
            q: The query (Elasticsearch query string syntax, e.g. ``page.domain:example.com AND
                date:>now-7d``); empty matches everything.
            size: Hits per page (per request). Not given: the first page asks for 100 hits, later ones
                for twice what the walk has handed out (with a ``limit``, for what it still needs), up
                to 10,000; the service clamps a page to the largest the key is allowed (100 for free
                keys), and every hit still comes once. A large export thus takes a few requests (and
                search quota units) where pages of 100 take hundreds.
            search_after: Resume after this cursor (a previous walk's ``search_after``: the last hit's
                ``sort`` values joined by a comma).
            datasource: The data source searched (scans when not given); one of "scans", "hostnames",
                "incidents", "notifications", "certificates", "domains".
            collapse: A field to collapse hits on (one hit per value).
            limit: Hits handed out at most (every hit when not given).
            parallel: Shards of a large scan export walked at once, or "auto" (8, only when pages are
                slow to come back); not given: one walk.
        """
        return self._walk("search", locals())

    def similar(
        self,
        uuid: str,
        *,
        q: str | None = None,
        size: int | None = None,
        search_after: str | None = None,
        limit: int | None = None,
    ) -> SearchIterator:
        """Scans structurally similar to a scan, newest first, fetched lazily page by page
        (GET /api/v1/pro/result/{uuid}/similar/).

        Premium. Each page is read as :meth:`search` reads them.

        Parameters:
            uuid: Scan uuid.
            q: As in :meth:`search`.
            size: As in :meth:`search`.
            search_after: As in :meth:`search`.
            limit: As in :meth:`search`.
        """
        return self._walk("similar", locals())

    def phishfeed(self, q: str | None = None, *, size: int | None = None, limit: int | None = None) -> SearchIterator:
        """Pages detected as phishing, newest first, fetched lazily page by page (GET /api/v1/pro/phishfeed).

        Premium; deprecated by the service in favour of :meth:`search`.

        Parameters:
            q: As in :meth:`search`.
            size: As in :meth:`search`.
            limit: As in :meth:`search`.
        """
        return self._walk("phishfeed", locals())

    # END GENERATED walks

    def _walk(self, row: str, arguments: dict[str, Any]) -> SearchIterator:
        """A walk over the pages of a search row, given its method's arguments (``locals()``): the
        row's fields check them, as its tests check the method's signature against them."""
        options = {k: v for k, v in arguments.items() if k != "self"}
        cur = self._c.search_cursor(row, options)
        return SearchIterator(cur, options.get("limit"), row, options.get("datasource"))

    # -- any endpoint

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Any = None) -> Any:
        """Call an endpoint this package has no method for yet (``client.request("GET", "/api/v1/quotas")``).

        ``path`` is below the base URL and starts with ``/``; ``params`` become the
        query (a list repeats its key, None is left out); ``json`` is the body.
        The API key, retries, rate-limit pacing and errors are those of every
        other method. Returns the decoded JSON (dicts and lists), ``bytes`` for
        an answer that is not JSON, or None for an empty one.
        """
        return self._call(_N.request, method, path, params=None if params is None else dict(params), json=json)


# A misspelt keyword or a wrong-typed value names the public method and the fix.
explained(_BaseClient)
for _namespace in NAMESPACES:
    explained(_namespace)
del _namespace


def _rebuild_client(cls: type[_BaseClient], config: dict[str, Any], had_key: bool = False) -> _BaseClient:
    config = dict(config)
    config.pop("api_key", None)  # a pickle of an earlier version held it: not taken
    key = stored_key()[0] if had_key else None
    if had_key and key is None:
        raise ValidationError(
            f"this {cls.__name__} was pickled with an API key, which a pickle never holds; "
            f"set URLSCAN_API_KEY (or store the key in {KEYRING_SOURCE}) where it is unpickled"
        )
    return cls(key, **config)


class Client(_BaseClient):
    """The blocking client of the urlscan.io API. Use as a context manager to close it on exit.

    Every method blocks until the answer is read (with the GIL released, so
    threads run meanwhile); search methods return a lazy iterator. The
    premium endpoints are on the namespaces (``client.livescan``,
    ``client.incidents``, ...). A client is safe to share between threads
    and pickles with its settings but never its API key: unpickled, it takes
    the key from ``URLSCAN_API_KEY`` or the system keyring (a process pool
    inherits the environment).

    >>> with Client("YOUR-API-KEY") as client:          # or set URLSCAN_API_KEY
    ...     sub = client.scan("https://example.com", visibility="unlisted")
    ...     result = client.wait_for_result(sub.uuid)
    """

    _is_async = False

    def close(self) -> None:
        """Close the client; calls in flight in other threads raise ``TransportError``."""
        self._closed = True
        if self._owns_pool:
            self._core.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_BaseClient):
    """The asyncio client: the methods of :class:`Client`, each returning an awaitable.

    Search methods return an iterator to walk with ``async for``; the
    namespaces' methods are awaited too. Use as an async context manager
    to close it on exit.

    >>> async with AsyncClient() as client:
    ...     result = await client.scan_and_wait("https://example.com")
    ...     async for hit in client.search("domain:example.com", limit=200):
    ...         print(hit.page.domain)
    """

    _is_async = True

    def _call(self, fn: _Native[_P], /, *args: _P.args, **kwargs: _P.kwargs) -> Any:
        # A coroutine, so that the call itself needs no running loop
        # (asyncio.run(client.result(uuid)) works) and errors surface on await.
        return self._acall(fn, *args, **kwargs)

    async def _acall(self, fn: _Native[_P], /, *args: _P.args, **kwargs: _P.kwargs) -> Any:
        return await fn(self._c, *args, **kwargs)

    async def aclose(self) -> None:
        """Close the client; awaits in flight raise ``TransportError``."""
        self.close()

    def close(self) -> None:
        """Close the client at once (without awaiting); awaits in flight raise ``TransportError``."""
        self._closed = True
        if self._owns_pool:
            self._core.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
