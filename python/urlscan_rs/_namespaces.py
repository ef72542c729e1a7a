"""The premium namespaces of Client and AsyncClient.

Each method is written once: it forwards to the native core through the
client's ``_call``, which blocks (``Client``) or returns a coroutine
(``AsyncClient``). Keywords are the wire names in snake_case; the core adds
and removes the wire wrappers and checks every documented rule before sending.
"""

from __future__ import annotations

import datetime as _dt
from collections import deque
from typing import Any

__all__ = [
    "LiveScan",
    "SavedSearches",
    "Subscriptions",
    "Channels",
    "Incidents",
    "Hostnames",
    "Brands",
    "Files",
    "DataDumps",
    "HostnameIterator",
]


# Options the specification lets a client set to null (to clear them): for
# these, an explicit None is sent as null; leaving the keyword out leaves the
# field as it is.
_NULLABLE = frozenset({"extra_path"})


def _opts(**kw: Any) -> dict[str, Any]:
    """Options given (None means not given, except for the nullable ones)."""
    return {k: v for k, v in kw.items() if v is not None or k in _NULLABLE}


class _Namespace:
    __slots__ = ("_client",)

    def __init__(self, client: Any) -> None:
        self._client = client

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._client._call(method, *args, **kwargs)

    def _table(self, name: str, ids: list[str], options: dict[str, Any] | None = None, **kw: Any) -> Any:
        return self._call("call", name, ids, options or {}, **kw)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


class LiveScan(_Namespace):
    """Live scanning from chosen scanners; results stay temporary until stored."""

    __slots__ = ()

    def scanners(self) -> Any:
        return self._table("livescan.scanners", [], model="LiveScanner")

    def task(self, scanner_id: str, url: str, **options: Any) -> Any:
        """Task a scan; returns its uuid at once (poll with ``resource(..., "result", uuid)``)."""
        return self._table("livescan.task", [scanner_id], {"url": url, **options}, field="uuid")

    def scan(self, scanner_id: str, url: str, **options: Any) -> Any:
        """Scan and return the uuid once the scan has finished."""
        return self._table("livescan.scan", [scanner_id], {"url": url, **options}, field="uuid")

    def resource(self, scanner_id: str, resource_type: str, resource_id: str) -> Any:
        return self._call("livescan_resource", scanner_id, resource_type, resource_id)

    def store(self, scanner_id: str, scan_id: str, *, visibility: str | None = None) -> Any:
        """Store the temporary scan as a permanent snapshot."""
        return self._table("livescan.store", [scanner_id, scan_id], _opts(visibility=visibility))

    def purge(self, scanner_id: str, scan_id: str) -> Any:
        return self._table("livescan.purge", [scanner_id, scan_id])


class SavedSearches(_Namespace):
    __slots__ = ()

    def list(self) -> Any:
        return self._table("saved_searches.list", [], model="SavedSearch")

    def create(self, **fields: Any) -> Any:
        return self._table("saved_searches.create", [], _opts(**fields), model="SavedSearch")

    def update(self, search_id: str, **fields: Any) -> Any:
        return self._table("saved_searches.update", [search_id], _opts(**fields), model="SavedSearch")

    def delete(self, search_id: str) -> Any:
        return self._table("saved_searches.delete", [search_id], discard=True)

    def results(self, search_id: str, *, size: int | None = None, search_after: str | None = None) -> Any:
        """The saved query's hits, newest first: ``size`` of them (the
        service's default when None), after the cursor ``search_after`` (the
        last hit's ``sort`` values joined by a comma)."""
        return self._table("saved_searches.results", [search_id], _opts(size=size, search_after=search_after), model="SearchHit")


class Subscriptions(_Namespace):
    __slots__ = ()

    def list(self) -> Any:
        return self._table("subscriptions.list", [], model="Subscription")

    def create(self, **fields: Any) -> Any:
        return self._table("subscriptions.create", [], _opts(**fields), model="Subscription")

    def update(self, subscription_id: str, **fields: Any) -> Any:
        return self._table("subscriptions.update", [subscription_id], _opts(**fields), model="Subscription")

    def delete(self, subscription_id: str) -> Any:
        return self._table("subscriptions.delete", [subscription_id], discard=True)

    def results(self, subscription_id: str, datasource: str) -> Any:
        if datasource not in ("scans", "hostnames"):
            from .errors import ValidationError

            raise ValidationError(f"datasource must be scans or hostnames, got {datasource!r}")
        return self._table("subscriptions.results", [subscription_id, datasource], model="SearchHit")


class Channels(_Namespace):
    __slots__ = ()

    def list(self) -> Any:
        return self._table("channels.list", [], model="Channel")

    def create(self, **fields: Any) -> Any:
        return self._table("channels.create", [], _opts(**fields), model="Channel")

    def get(self, channel_id: str) -> Any:
        return self._table("channels.get", [channel_id], model="Channel")

    def update(self, channel_id: str, **fields: Any) -> Any:
        return self._table("channels.update", [channel_id], _opts(**fields), model="Channel")


class Incidents(_Namespace):
    __slots__ = ()

    def create(self, observable: str, **fields: Any) -> Any:
        return self._table("incidents.create", [], _opts(observable=observable, **fields), model="Incident")

    def get(self, incident_id: str) -> Any:
        return self._table("incidents.get", [incident_id], model="Incident")

    def update(self, incident_id: str, **fields: Any) -> Any:
        return self._table("incidents.update", [incident_id], _opts(**fields), model="Incident")

    def close(self, incident_id: str) -> Any:
        return self._call("incident_action", "close", incident_id)

    def restart(self, incident_id: str) -> Any:
        return self._call("incident_action", "restart", incident_id)

    def copy(self, incident_id: str) -> Any:
        """A new incident copied without history; returns the new one."""
        return self._table("incidents.copy", [incident_id], model="Incident")

    def fork(self, incident_id: str) -> Any:
        """A new incident copied with its states; returns the new one."""
        return self._table("incidents.fork", [incident_id], model="Incident")

    def watchable_attributes(self) -> Any:
        return self._table("incidents.watchable_attributes", [])

    def states(self, incident_id: str) -> Any:
        return self._table("incidents.states", [incident_id], model="IncidentState")


class HostnameIterator:
    """Lazily walks hostname history, following ``pageState`` (``for`` or ``async for``)."""

    __slots__ = ("_cursor", "_buf")

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self._buf: deque[Any] = deque()

    @property
    def page_state(self) -> str | None:
        """The state to resume from after the last batch read."""
        return self._cursor.page_state  # type: ignore[no-any-return]

    def __iter__(self) -> HostnameIterator:
        if self._cursor.is_async:
            raise TypeError("this iterator belongs to an AsyncClient: use 'async for'")
        return self

    def __next__(self) -> Any:
        while not self._buf:
            if self._cursor.done:
                raise StopIteration
            page = self._cursor.next_page()
            if page is None:
                raise StopIteration
            self._buf.extend(page)
        return self._buf.popleft()

    def __aiter__(self) -> HostnameIterator:
        if not self._cursor.is_async:
            raise TypeError("this iterator belongs to a Client: use 'for'")
        return self

    async def __anext__(self) -> Any:
        while not self._buf:
            if self._cursor.done:
                raise StopAsyncIteration
            page = await self._cursor.next_page()
            if page is None:
                raise StopAsyncIteration
            self._buf.extend(page)
        return self._buf.popleft()

    def __repr__(self) -> str:
        return f"HostnameIterator(fetched={self._cursor.fetched}, page_state={self.page_state!r})"


class Hostnames(_Namespace):
    __slots__ = ()

    def history(self, hostname: str, *, limit: int = 1000, page_state: str | None = None) -> HostnameIterator:
        """Records of a hostname; ``limit`` is the batch size per request (10..10000)."""
        return HostnameIterator(self._client._c.hostname_cursor(hostname, limit=limit, page_state=page_state))


class Brands(_Namespace):
    __slots__ = ()

    def available(self) -> Any:
        return self._table("brands.available", [], model="Brand")

    def detected(self) -> Any:
        return self._table("brands.detected", [], model="BrandSummary")


class Files(_Namespace):
    __slots__ = ()

    def download(self, sha256: str, *, password: str | None = None) -> Any:
        """The file itself: unpacked from the password-protected ZIP and checked against the hash."""
        return self._call("download", sha256, password=password)

    def download_zip(self, sha256: str, *, password: str | None = None) -> Any:
        """The ZIP as served (password ``urlscan!`` unless given)."""
        return self._call("download_zip", sha256, password=password)


class DataDumps(_Namespace):
    __slots__ = ()

    def list(self, time_window: str, file_type: str, date: str | _dt.date) -> Any:
        """Files for a time window (days, hours, minutes), file type (api, search, screenshots, dom) and day."""
        day = date.strftime("%Y%m%d") if isinstance(date, _dt.date) else date
        return self._call("datadump_list", time_window, file_type, day)

    def link(self, path: str) -> Any:
        """The temporary download address (the redirect is not followed with the API key)."""
        return self._call("datadump_link", path)
