"""The premium namespaces of Client and AsyncClient.

Each method is written once: it forwards to the native core through the
client's ``_call``, which blocks (``Client``) or returns a coroutine
(``AsyncClient``). Keywords are the wire names in snake_case; the core adds
and removes the wire wrappers and checks every documented rule before sending.

The methods of the core's endpoint table are generated from it (the regions
marked GENERATED, by ``python -m urlscan_rs._generate``); the others, which do
more than one table call, are written here by hand.
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Concatenate, ParamSpec

from . import _native
from ._tables import Tabular
from .schema import HOSTNAMES, Schema

_P = ParamSpec("_P")
# The native client's class: the clients call its methods by reference (``_call(_N.scan,
# ...)``), so mypy checks each call against ``_native.pyi``.
_N = _native.NativeClient
_Native = Callable[Concatenate[_native.NativeClient, _P], Any]


@cache
def _endpoints() -> dict[str, dict[str, Any]]:
    """The core's endpoint table, by name."""
    return {ep["name"]: ep for ep in _native.endpoint_table()}


def _call_endpoint(call: Any, name: str, ids: list[str], options: dict[str, Any]) -> Any:
    """Call table endpoint ``name`` through ``call`` (a client's ``_call``), as a
    generated method does: ``ids`` fill the path, the options given (None means
    not given, except for the fields the table calls nullable, sent as null to
    clear them) build the body, and the answer is shaped as the table says."""
    ep = _endpoints()[name]
    nullable = {f["name"] for f in ep["body"] if f["nullable"]}
    given = {k: v for k, v in options.items() if v is not None or k in nullable}
    kind, *what = ep["returns"]
    answer = {kind: what[0]} if kind in ("model", "field") else {"discard": kind == "nothing"}
    return call(_N.call, name, ids, given, **answer)


class _Namespace:
    __slots__ = ("_client",)

    def __init__(self, client: Any) -> None:
        self._client = client

    def _call(self, fn: _Native[_P], /, *args: _P.args, **kwargs: _P.kwargs) -> Any:
        return self._client._call(fn, *args, **kwargs)

    def _endpoint(self, name: str, ids: list[str], options: dict[str, Any]) -> Any:
        return _call_endpoint(self._call, name, ids, options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


class LiveScan(_Namespace):
    """``client.livescan``: live scanning from chosen scanners (premium).

    A live scan runs on the scanner named by ``scanner_id`` (see
    :meth:`scanners`); its result stays temporary on that scanner until
    :meth:`store` keeps it as a permanent snapshot or :meth:`purge` drops it.
    Options are the wire names in snake_case: ``visibility``, ``page_timeout``
    and ``capture_delay`` (milliseconds, 0 to 300,000), ``extra_headers``,
    ``enable_features`` and ``disable_features``.
    """

    __slots__ = ()

    # BEGIN GENERATED livescan by `python -m urlscan_rs._generate`: do not edit

    def scanners(self) -> Any:
        """The live scanning nodes, with their country, city and status (GET /api/v1/livescan/scanners/)."""
        return self._endpoint("livescan.scanners", [], {})

    def task(self, scanner_id: str, url: str, **fields: Any) -> Any:
        """Task a scan and return its uuid at once (POST /api/v1/livescan/{scanner_id}/task/).

        Poll the result with ``resource(scanner_id, "result", uuid)``.
        """
        return self._endpoint("livescan.task", [scanner_id], {"url": url, **fields})

    def scan(self, scanner_id: str, url: str, **fields: Any) -> Any:
        """Scan and return the uuid once the scan has finished (POST /api/v1/livescan/{scanner_id}/scan/).

        The request blocks until the scanner is done.
        """
        return self._endpoint("livescan.scan", [scanner_id], {"url": url, **fields})

    def store(self, scanner_id: str, scan_id: str, **fields: Any) -> Any:
        """Store the temporary scan as a permanent snapshot (PUT /api/v1/livescan/{scanner_id}/{scan_id}/)."""
        return self._endpoint("livescan.store", [scanner_id, scan_id], fields)

    def purge(self, scanner_id: str, scan_id: str) -> Any:
        """Drop the temporary scan at once (DELETE /api/v1/livescan/{scanner_id}/{scan_id}/)."""
        return self._endpoint("livescan.purge", [scanner_id, scan_id], {})

    # END GENERATED livescan

    def resource(self, scanner_id: str, resource_type: str, resource_id: str) -> Any:
        """A resource of a live scan (GET /api/v1/livescan/{scanner_id}/{resource_type}/{resource_id}).

        ``resource_type`` "result" gives a :class:`~urlscan_rs.models.ScanResult`,
        "dom" a ``str``, "screenshot", "response" and "download" ``bytes``.
        ``resource_id`` is the scan's uuid, or a SHA-256 for "response" and "download".
        """
        return self._call(_N.livescan_resource, scanner_id, resource_type, resource_id)


class SavedSearches(_Namespace):
    """``client.saved_searches``: searches stored on the service, to run again or subscribe to (premium).

    Fields are the wire names in snake_case: ``datasource`` ("scans" or
    "hostnames"), ``name``, ``query``, ``description``, ``long_description``,
    ``permissions``, ``tlp`` and ``user_tags``.
    """

    __slots__ = ()

    # BEGIN GENERATED saved_searches by `python -m urlscan_rs._generate`: do not edit

    def list(self) -> Any:
        """Your saved searches (GET /api/v1/user/searches/)."""
        return self._endpoint("saved_searches.list", [], {})

    def create(self, **fields: Any) -> Any:
        """Create a saved search (POST /api/v1/user/searches/)."""
        return self._endpoint("saved_searches.create", [], fields)

    def update(self, search_id: str, **fields: Any) -> Any:
        """Change a saved search; fields left out keep their value (PUT /api/v1/user/searches/{search_id}/)."""
        return self._endpoint("saved_searches.update", [search_id], fields)

    def delete(self, search_id: str) -> Any:
        """Delete a saved search (DELETE /api/v1/user/searches/{search_id}/)."""
        return self._endpoint("saved_searches.delete", [search_id], {})

    def results(self, search_id: str, **options: Any) -> Any:
        """The saved query's hits, newest first (GET /api/v1/user/searches/{search_id}/results/).

        ``size`` of them (the service's default when None), after the cursor
        ``search_after`` (the last hit's ``sort`` values joined by a comma).
        """
        return self._endpoint("saved_searches.results", [search_id], options)

    # END GENERATED saved_searches


class Subscriptions(_Namespace):
    """``client.subscriptions``: notifications when saved searches match new items (premium).

    Fields are the wire names in snake_case (``search_ids``, ``frequency``,
    ``email_addresses``, ``name``, ``is_active``, ``ignore_time``,
    ``week_days``, ``channel_ids``, the ``incident_*`` settings, ...).
    """

    __slots__ = ()

    # BEGIN GENERATED subscriptions by `python -m urlscan_rs._generate`: do not edit

    def list(self) -> Any:
        """Your subscriptions (GET /api/v1/user/subscriptions/)."""
        return self._endpoint("subscriptions.list", [], {})

    def create(self, **fields: Any) -> Any:
        """Create a subscription (POST /api/v1/user/subscriptions/)."""
        return self._endpoint("subscriptions.create", [], fields)

    def update(self, subscription_id: str, **fields: Any) -> Any:
        """Change a subscription's settings; fields left out keep their value
        (PUT /api/v1/user/subscriptions/{subscription_id}/)."""
        return self._endpoint("subscriptions.update", [subscription_id], fields)

    def delete(self, subscription_id: str) -> Any:
        """Delete a subscription (DELETE /api/v1/user/subscriptions/{subscription_id}/)."""
        return self._endpoint("subscriptions.delete", [subscription_id], {})

    def results(self, subscription_id: str, datasource: Any) -> Any:
        """The items a subscription matched in a data source, "scans" or "hostnames"
        (GET /api/v1/user/subscriptions/{subscription_id}/results/{datasource}/)."""
        return self._endpoint("subscriptions.results", [subscription_id, datasource], {})

    # END GENERATED subscriptions


class Channels(_Namespace):
    """``client.channels``: where notifications go, a webhook or e-mail addresses.

    Not premium in the specification: any key with the readwrite scope may
    create them. A webhook channel needs ``webhook_url``, an e-mail channel at
    least one address in ``email_addresses``.
    """

    __slots__ = ()

    # BEGIN GENERATED channels by `python -m urlscan_rs._generate`: do not edit

    def list(self) -> Any:
        """Your notification channels (GET /api/v1/user/channels/)."""
        return self._endpoint("channels.list", [], {})

    def create(self, **fields: Any) -> Any:
        """Create a notification channel (POST /api/v1/user/channels/).

        A webhook needs ``webhook_url``, an e-mail channel ``email_addresses``.
        """
        return self._endpoint("channels.create", [], fields)

    def get(self, channel_id: str) -> Any:
        """One notification channel (GET /api/v1/user/channels/{channel_id})."""
        return self._endpoint("channels.get", [channel_id], {})

    def update(self, channel_id: str, **fields: Any) -> Any:
        """Change a notification channel; fields left out keep their value (PUT /api/v1/user/channels/{channel_id})."""
        return self._endpoint("channels.update", [channel_id], fields)

    # END GENERATED channels


class Incidents(_Namespace):
    """``client.incidents``: an observable (hostname, domain, IP or URL) scanned repeatedly,
    with notifications when a watched attribute changes (premium).

    Options are the wire names in snake_case (``visibility``, ``channels``,
    ``scan_interval``, ``watched_attributes``, ``countries``, ``expire_after``,
    ...). ``extra_path=None`` sends null, which clears it; leave the keyword
    out to keep it.
    """

    __slots__ = ()

    # BEGIN GENERATED incidents by `python -m urlscan_rs._generate`: do not edit

    def create(self, observable: str, **fields: Any) -> Any:
        """Create an incident for an observable (POST /api/v1/user/incidents).

        Needs the readwrite scope.
        """
        return self._endpoint("incidents.create", [], {"observable": observable, **fields})

    def get(self, incident_id: str) -> Any:
        """One incident (GET /api/v1/user/incidents/{incident_id})."""
        return self._endpoint("incidents.get", [incident_id], {})

    def update(self, incident_id: str, **fields: Any) -> Any:
        """Change an incident's runtime options; options left out keep their value (PUT /api/v1/user/incidents/{incident_id})."""
        return self._endpoint("incidents.update", [incident_id], fields)

    def copy(self, incident_id: str) -> Any:
        """Copy an incident without its history; returns the new one (POST /api/v1/user/incidents/{incident_id}/copy)."""
        return self._endpoint("incidents.copy", [incident_id], {})

    def fork(self, incident_id: str) -> Any:
        """Copy an incident with its history (states); returns the new one (POST /api/v1/user/incidents/{incident_id}/fork)."""
        return self._endpoint("incidents.fork", [incident_id], {})

    def watchable_attributes(self) -> Any:
        """The attributes ``watched_attributes`` may name (GET /api/v1/user/watchableAttributes)."""
        return self._endpoint("incidents.watchable_attributes", [], {})

    def states(self, incident_id: str) -> Any:
        """The observations of an incident, one state each (GET /api/v1/user/incidentstates/{incident_id}/)."""
        return self._endpoint("incidents.states", [incident_id], {})

    # END GENERATED incidents

    def close(self, incident_id: str) -> Any:
        """Close (stop) an incident and return it as it is then
        (PUT /api/v1/user/incidents/{incident_id}/close, then GET /api/v1/user/incidents/{incident_id})."""
        return self._call(_N.incident_action, "close", incident_id)

    def restart(self, incident_id: str) -> Any:
        """Restart a closed incident and return it as it is then
        (PUT /api/v1/user/incidents/{incident_id}/restart, then GET /api/v1/user/incidents/{incident_id}).

        Its ``expire_at`` is extended and its states start anew.
        """
        return self._call(_N.incident_action, "restart", incident_id)


async def _then_path(call: Any, target: Path) -> Path:
    await call
    return target


class _PagedIterator(_native.PagedWalk):
    """A lazy walk over a native cursor's pages, read as the walk needs them:
    ``for`` with a Client's cursor, ``async for`` with an AsyncClient's.

    The items read wait in the native base, whose ``__next__`` hands them out
    (up to its limit) and calls ``_fill`` when none is left.
    """

    __slots__ = ("_cursor", "_on_end")

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self._on_end: Callable[[_PagedIterator], None] | None = None

    def _fill(self) -> bool:
        """Read pages until one has items; False once the cursor has no more."""
        while not self._buffered:
            page = None if self._cursor.done else self._cursor.next_page()
            if page is None:
                return self._ended()
            self._extend(page)
        return True

    async def _afill(self) -> bool:
        while not self._buffered:
            page = None if self._cursor.done else await self._cursor.next_page()
            if page is None:
                return self._ended()
            self._extend(page)
        return True

    def _traced(self, on_end: Callable[[_PagedIterator], None]) -> None:
        """Call ``on_end(self)`` once when the walk ends or the iterator goes (its span, ``urlscan_rs.otel``)."""
        self._on_end = on_end

    def _ended(self) -> bool:
        on_end = getattr(self, "_on_end", None)  # unset when __init__ did not run
        self._on_end = None
        if on_end is not None:
            on_end(self)
        return False

    def __del__(self) -> None:
        self._ended()

    def __iter__(self) -> _PagedIterator:
        if self._cursor.is_async:
            raise TypeError("this iterator belongs to an AsyncClient: use 'async for'")
        return self

    def __aiter__(self) -> _PagedIterator:
        if not self._cursor.is_async:
            raise TypeError("this iterator belongs to a Client: use 'for'")
        return self

    async def __anext__(self) -> Any:
        if self._exhausted() or not await self._afill():
            self._ended()
            raise StopAsyncIteration
        return self._take()


class HostnameIterator(_PagedIterator, Tabular):
    """Lazily walks hostname history, following ``pageState`` (``for`` or ``async for``).

    Yields :class:`~urlscan_rs.models.HostnameRecord`; ``page_state`` resumes
    a walk later (``client.hostnames.history(name, page_state=...)``).
    ``to_arrow()``, ``to_polars()``, ``to_pandas()``, ``to_parquet()`` and
    the Arrow PyCapsule stream read the rest as a table of the
    ``HOSTNAMES`` (:mod:`urlscan_rs.schema`) schema.
    """

    __slots__ = ()

    def _table_schema(self) -> Schema:
        return HOSTNAMES

    def _table_is_async(self) -> bool:
        return bool(self._cursor.is_async)

    def _fingerprint(self) -> str:
        return f"hostname history of {self._cursor.hostname}"

    def _table(self, columns: list[str] | None, resume: Any = None) -> Any:
        if resume is not None:
            return _native.table_stream("HOSTNAMES", columns, [], self._cursor.resumed(resume[0]))
        return _native.table_stream("HOSTNAMES", columns, self._drain(), self._cursor)

    @property
    def page_state(self) -> str | None:
        """The state to resume from after the last batch read."""
        return self._cursor.page_state  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"HostnameIterator(fetched={self._cursor.fetched}, page_state={self.page_state!r})"


class Hostnames(_Namespace):
    """``client.hostnames``: the history of a hostname (premium)."""

    __slots__ = ()

    def history(self, hostname: str, *, limit: int = 1000, page_state: str | None = None) -> HostnameIterator:
        """The records of a hostname, walked lazily (GET /api/v1/hostname/{hostname}, following ``pageState``).

        ``limit`` is the batch size per request (10..10000); ``page_state``
        resumes a previous walk (its iterator's ``page_state``).
        """
        return HostnameIterator(self._client._c.hostname_cursor(hostname, limit=limit, page_state=page_state))


class Brands(_Namespace):
    """``client.brands``: brands tracked for phishing detection (premium)."""

    __slots__ = ()

    # BEGIN GENERATED brands by `python -m urlscan_rs._generate`: do not edit

    def available(self) -> Any:
        """The brands tracked for brand and phishing detection (GET /api/v1/pro/availableBrands)."""
        return self._endpoint("brands.available", [], {})

    def detected(self) -> Any:
        """Brands with detected phishing pages: the total and the latest hits of each (GET /api/v1/pro/brands).

        Slower than :meth:`available`.
        """
        return self._endpoint("brands.detected", [], {})

    # END GENERATED brands


class Files(_Namespace):
    """``client.files``: files the scanners downloaded, by SHA-256 (premium)."""

    __slots__ = ()

    def download(self, sha256: str, *, password: str | None = None) -> Any:
        """The file itself (GET /downloads/{sha256}): unpacked from the password-protected ZIP
        and checked against the hash.

        ``password`` opens the ZIP (``urlscan!``, the service's default, unless given).
        """
        return self._call(_N.download, sha256, password=password)

    def download_zip(self, sha256: str, *, password: str | None = None) -> Any:
        """The password-protected ZIP as served (GET /downloads/{sha256}; password ``urlscan!`` unless given)."""
        return self._call(_N.download, sha256, password=password, unpacked=False)


class DataDumps(_Namespace):
    """``client.datadumps``: bulk exports of scans, search hits, screenshots and DOMs (premium)."""

    __slots__ = ()

    def list(self, time_window: str, file_type: str, date: str | _dt.date) -> Any:
        """The files of a time window, file type and day (GET /api/v1/datadump/list/{time_window}/{file_type}/{date}).

        ``time_window`` is "days", "hours" or "minutes"; ``file_type`` "api",
        "search", "screenshots" or "dom"; ``date`` a day (``YYYYMMDD``,
        ``YYYY-MM-DD`` or a ``datetime.date``).
        """
        day = date.strftime("%Y%m%d") if isinstance(date, _dt.date) else date
        return self._call(_N.datadump_list, time_window, file_type, day)

    def link(self, path: str) -> Any:
        """The temporary download address of a data-dump file (GET /api/v1/datadump/link/{path}).

        ``path`` is a file's ``path`` from :meth:`list`. The service's redirect is
        not followed, so the API key is never sent to the download host.
        """
        return self._call(_N.datadump_link, path)

    def sync(
        self,
        dest_dir: str | os.PathLike[str],
        *,
        window: str = "hours",
        types: Sequence[str] = ("search", "api"),
        days: int = 7,
        progress: Any = False,
        rebuild_state: bool = False,
    ) -> Any:
        """Download every file of the last ``days`` days (today included, UTC; at
        most :data:`~urlscan_rs.datadumps.MAX_DAYS`) of ``window`` and ``types``
        that ``dest_dir`` does not hold complete yet
        (GET /api/v1/datadump/list/{time_window}/{file_type}/{date}, then :meth:`download` each); a
        :class:`~urlscan_rs.datadumps.SyncReport` (``downloaded``, ``skipped``,
        ``failed``).

        Files keep their dump paths (``dest_dir/hours/search/20261120/20261120-13.gz``).
        A listed path that would be written outside ``dest_dir`` (absolute,
        ``..``, through a symlink leading out) or under a name the package keeps
        for itself (a hidden name, ``*.part``, ``*.tmp``) is never written: it
        goes to ``failed`` with the reason.
        The state (what was fetched, its size and when; what failed and why) is
        in SQLite inside ``dest_dir`` (``.urlscan-datadumps.sqlite3``), so the
        call is safe to run periodically and from two processes at once: one of
        them fetches each file, the other skips it. A failed file is tried again
        on the next run. A state that is locked for long, read-only or corrupt
        raises :class:`~urlscan_rs.errors.StateError` naming the file;
        ``rebuild_state=True`` sets a corrupt one aside and rebuilds it from the
        files on disk (a file whose size is the listed size counts as fetched).
        ``progress`` is ``True`` (a counter of files on stderr) or a callable
        given ``(files done, files listed)``.
        """
        from .datadumps import sync_into

        if progress is True:

            def progress(done: int, total: int) -> None:
                print(f"\r{done}/{total} files", end="\n" if done == total else "", file=sys.stderr, flush=True)

        args = (dest_dir, window, types, days, progress or None, rebuild_state)
        if self._client._is_async:
            import asyncio  # only an AsyncClient needs it (not loaded on import)

            # The same steps, each call awaited in a worker thread's own loop.
            return asyncio.to_thread(
                sync_into,
                lambda w, t, d: asyncio.run(self.list(w, t, d)),
                lambda p, target, size: asyncio.run(self._fetch(p, target, size)),
                *args,
            )
        return sync_into(self.list, self._fetch, *args)

    def download(self, path: str, dest: str | os.PathLike[str] = ".", *, progress: Any = False) -> Any:
        """Download a data-dump file (GET /api/v1/datadump/link/{path}, then the
        temporary address it redirects to); the path of the file written.

        ``dest`` is a folder (one that exists, a path ending in ``/``, or a
        path that does not exist yet, created): the file keeps its dump path
        under it (``dest/hours/search/20261120/20261120-13.gz``, so search and
        api files of one hour do not collide, and
        :func:`urlscan_rs.datadumps.read` knows the type); or the file to write:
        a file that exists, or a new name ending as the dump file's does
        (``.gz``). The API key is never sent to the
        download host. The file is streamed to a temporary file created beside
        it, checked against the size the listing announces (nothing past it is
        written), and renamed into place only when whole. A transfer is never
        cut while bytes keep arriving; a stall of ``timeout`` seconds or a
        dropped connection resumes with a ``Range`` request (up to
        ``max_retries`` times in a row without progress); then the call raises
        with the bytes it had and leaves no file under the final name.
        ``progress`` is ``True`` (a bar of bytes and rate, shown at once: tqdm's
        when installed, a widget in a notebook) or a callable given ``(bytes, total)``.
        """
        target = Path(dest)
        if target.is_dir() or os.fspath(dest).endswith(("/", os.sep)) or _new_folder(target, path):
            target = _native.contained(target, path.strip().lstrip("/"))
        from ._progress import close, tracker

        # True: a bar shown at once and moving while bytes are awaited (tqdm's, or one on a terminal).
        progress = tracker(progress, path.rsplit("/", 1)[-1], unit="bytes")
        if progress is True:
            progress = None  # no tqdm and no terminal: nothing to draw on
        try:
            out = self._fetch(path, target, None, progress or None)
        except BaseException:
            close(progress)  # now: a traceback kept in a notebook must not keep it drawing
            raise
        if not self._client._is_async:
            close(progress)  # an AsyncClient's ends as its awaitable does
        return out

    def _fetch(self, path: str, target: Path, size: int | None, progress: Any = None) -> Any:
        """Download to `target`, checked against `size` (None: the listing's, read first)."""
        call = self._call(_N.datadump_download, path, os.fspath(target), size=size, progress=progress)
        if self._client._is_async:
            return _then_path(call, target)
        return target


class Feeds(_Namespace):
    """``client.feeds``: a folder kept current with the phishing feed or a saved search's hits,
    each item written once (premium; see :mod:`urlscan_rs.feeds`)."""

    __slots__ = ()

    def sync(
        self,
        source: str,
        dest_dir: str | os.PathLike[str],
        *,
        lookback: float | _dt.timedelta = _dt.timedelta(days=3),
        dedupe: str = "uuid",
        filter: Callable[[Any], object] | None = None,
        format: str = "jsonl",
        max_items: int = 10_000,
        progress: Any = False,
        rebuild_state: bool = False,
    ) -> Any:
        """Write the items of ``source`` that ``dest_dir`` has not had yet to one new file there
        (GET /api/v1/pro/phishfeed for "phishfeed", else GET /api/v1/user/searches/{search_id}/results/
        for a saved search's id, newest first); a :class:`~urlscan_rs.feeds.FeedReport` (``new``:
        the items written, ``files``, ``skipped``, ``filtered``, ``quarantined``, ``complete``,
        ``checkpoint``).

        A run walks back to ``lookback`` (seconds or a ``timedelta``, at most
        366 days) before the newest item the last run walked (the first run:
        before now), so items that come late into the source are still found;
        each item is written once, by uuid or, with ``dedupe="url"``, by
        submitted URL (keys are kept for twice the look-back). ``filter(hit)``
        decides which new items to write (a false answer: not written, and
        asked again next run). ``format`` is "jsonl" (the hits as sent),
        "parquet" (the ``SCANS`` table, no pyarrow needed) or "stix" (one STIX
        2.1 bundle of the hits' objects); the file,
        ``<source>-<UTC time>-<run>.<jsonl|parquet|stix.json>``, appears whole
        or not at all, and nothing is written outside ``dest_dir``.

        A run reads at most ``max_items`` items it can use (1 to 1,000,000;
        ``complete`` is False when it stopped before every new item, and the next
        run goes on from there; a window holding more is looked through over
        several runs). An item it cannot place or write (dated in the future or
        out of range, of a wrong type, undecodable) is set aside with its reason
        in ``.urlscan-feeds-quarantine.log`` (``quarantined`` counts them) and
        never stops the feed. However it ends (a
        page that fails, a filter that raises, Ctrl-C), what it read up to then
        is written and remembered before the error is raised, so the next run
        writes no item twice and leaves none out. The state (the checkpoint,
        the keys written, the files) is in SQLite inside ``dest_dir``
        (``.urlscan-feeds.sqlite3``), one per folder for any number of sources;
        a second run of the same source into the same folder while one runs,
        or a state that is locked for long, read-only or corrupt, raises
        :class:`~urlscan_rs.errors.StateError` naming the file.
        ``rebuild_state=True`` sets a corrupt one aside and rebuilds it from the
        files the runs wrote (Parquet ones need pyarrow). ``progress`` is
        ``True`` (a counter on stderr) or a callable given ``(items read, new items)``.
        """
        from .feeds import Reader, print_counter, sync_into

        args = (
            source,
            dest_dir,
            lookback,
            dedupe,
            filter,
            format,
            max_items,
            print_counter if progress is True else progress or None,
        )
        client = self._client
        if client._is_async:
            import asyncio  # only an AsyncClient needs it (not loaded on import)

            def steps() -> Any:
                # The same steps on a worker thread, each call awaited on the thread's own loop.
                loop = asyncio.new_event_loop()
                try:
                    return sync_into(Reader(client, loop.run_until_complete), *args, rebuild_state)
                finally:
                    loop.close()

            return asyncio.to_thread(steps)
        return sync_into(Reader(client, None), *args, rebuild_state)


def _new_folder(target: Path, path: str) -> bool:
    """A download's ``dest`` that does not exist yet is a folder (``dumps``: a notebook's first
    download into a folder it has not made), unless its name ends as the dump file's (``x.gz``)."""
    if os.path.lexists(target):
        return False
    suffix = Path(path.strip()).suffix
    return not (suffix and target.name.endswith(suffix))


# Every namespace class, in the order Client lists them (the order they are defined in).
NAMESPACES: tuple[type[_Namespace], ...] = tuple(_Namespace.__subclasses__())
__all__ = [*(ns.__name__ for ns in NAMESPACES), "HostnameIterator"]
