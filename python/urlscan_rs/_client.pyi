# Typed signatures of Client and AsyncClient (one implementation serves both).
# AsyncClient's is written from Client's by `python -m urlscan_rs._generate`.
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Literal, TypedDict, TypeVar, overload

from typing_extensions import Unpack

from ._namespaces import (
    AsyncBrands,
    AsyncChannels,
    AsyncDataDumps,
    AsyncFeeds,
    AsyncFiles,
    AsyncHostnames,
    AsyncIncidents,
    AsyncLiveScan,
    AsyncSavedSearches,
    AsyncSubscriptions,
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
    Visibility,
    VisibilityOrDeleted,
)
from ._raw import RawClient
from ._tables import ResultList, Tabular
from .cache import Cache
from .hooks import EventHooks

# BEGIN GENERATED models by `python -m urlscan_rs._generate`: do not edit
from .models import (
    CertificateHit,
    DomainHit,
    HostnameHit,
    IncidentHit,
    Lookup,
    MaliciousObservable,
    NotificationHit,
    Quotas,
    ScanOutcome,
    ScanResult,
    Screenshot,
    SearchHit,
    Submission,
    User,
    UserAgentGroup,
    VisibilityChange,
)

# END GENERATED models
from .recording import RecordHook

__all__ = ["Client", "AsyncClient", "SearchIterator", "ScanOptions", "ClientOptions"]

class ClientOptions(TypedDict, total=False):
    timeout: float
    max_retries: int
    retry_deadline: float | None
    fail_fast: bool
    max_body_bytes: int
    max_download_bytes: int

# BEGIN GENERATED scan_options by `python -m urlscan_rs._generate`: do not edit
class ScanOptions(TypedDict, total=False):
    """The options of a scan (:meth:`Client.scan`, :meth:`Client.scan_and_wait`,
    :meth:`Client.bulk_scan`), as keywords; None or a missing one is not sent.
    """

    visibility: Visibility | None
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

# BEGIN GENERATED datasource by `python -m urlscan_rs._generate`: do not edit
Datasource = Literal["scans", "hostnames", "incidents", "notifications", "certificates", "domains"]
# END GENERATED datasource
Progress = bool | Callable[[int, int], object] | None
Artifact = Literal["json", "png", "dom"]

_T = TypeVar("_T")

class SearchIterator(Tabular, Generic[_T]):
    @property
    def total(self) -> int | None: ...
    @property
    def has_more(self) -> bool | None: ...
    @property
    def search_after(self) -> str | None: ...
    @property
    def fetched(self) -> int: ...
    def __iter__(self) -> Iterator[_T]: ...
    def __next__(self) -> _T: ...
    def __aiter__(self) -> AsyncIterator[_T]: ...
    async def __anext__(self) -> _T: ...
    def count(self) -> int | Awaitable[int]: ...
    def to_records(self) -> list[dict[str, Any]]: ...
    def _repr_html_(self) -> str: ...

class SyncSearchIterator(SearchIterator[_T]):
    def count(self) -> int: ...

class AsyncSearchIterator(SearchIterator[_T]):
    def count(self) -> Awaitable[int]: ...

class Client:
    livescan: LiveScan
    saved_searches: SavedSearches
    subscriptions: Subscriptions
    channels: Channels
    incidents: Incidents
    hostnames: Hostnames
    brands: Brands
    files: Files
    datadumps: DataDumps
    feeds: Feeds
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
        max_body_bytes: int = 268435456,
        max_download_bytes: int = 68719476736,
        event_hooks: EventHooks | None = None,
        cache: str | os.PathLike[str] | Cache | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_hook: RecordHook | None = None,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def timeout(self) -> float: ...
    @property
    def closed(self) -> bool: ...
    @property
    def rate_limits(self) -> list[dict[str, Any]]: ...
    @property
    def with_raw_response(self) -> RawClient: ...
    cache: Cache | None
    def with_options(self, **options: Unpack[ClientOptions]) -> Client: ...
    def close(self) -> None: ...
    def __enter__(self) -> Client: ...
    def __exit__(self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None) -> None: ...
    # BEGIN GENERATED client by `python -m urlscan_rs._generate`: do not edit
    def quotas(self) -> Quotas: ...
    def user(self) -> User: ...
    def malicious(self, type: Literal["ip", "hostname", "domain", "url"], value: str) -> MaliciousObservable: ...
    def set_visibility(self, uuid: str, visibility: VisibilityOrDeleted) -> VisibilityChange: ...
    def reset_visibility(self, uuid: str) -> VisibilityChange: ...
    def available_countries(self) -> list[str]: ...
    def user_agents(self) -> list[UserAgentGroup]: ...
    # END GENERATED client
    def scan(self, url: str, *, refang: bool = False, **scan_options: Unpack[ScanOptions]) -> Submission: ...
    def result(self, uuid: str) -> ScanResult: ...
    def wait_for_result(
        self, uuid: str, *, timeout: float = 120.0, initial_wait: float = 10.0, interval: float = 2.0
    ) -> ScanResult: ...
    def scan_and_wait(
        self,
        url: str,
        *,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        **scan_options: Unpack[ScanOptions],
    ) -> ScanResult: ...
    def bulk_scan(
        self,
        urls: Iterable[str],
        *,
        wait: bool = True,
        concurrency: int | None = 8,
        progress: Progress = False,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        save_to: str | os.PathLike[str] | None = None,
        **scan_options: Unpack[ScanOptions],
    ) -> list[ScanOutcome]: ...
    def lookup_or_scan(
        self,
        url: str,
        *,
        max_age: float = 86400,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        check_malicious: bool = False,
        **scan_options: Unpack[ScanOptions],
    ) -> Lookup: ...
    def lookup_or_scan_many(
        self,
        urls: Iterable[str],
        *,
        max_age: float = 86400,
        concurrency: int | None = 8,
        progress: Progress = False,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        check_malicious: bool = False,
        **scan_options: Unpack[ScanOptions],
    ) -> list[Lookup]: ...
    def results(self, uuids: Iterable[str], *, concurrency: int | None = 8, progress: Progress = False) -> ResultList: ...
    def save(
        self, uuid: str, dest_dir: str | os.PathLike[str] = ".", *, what: Iterable[Artifact] | Artifact = ("json", "png", "dom")
    ) -> dict[Artifact, Path]: ...
    def screenshot(self, uuid: str) -> Screenshot: ...
    def dom(self, uuid: str) -> str: ...
    def response(self, sha256: str) -> str: ...
    # BEGIN GENERATED search by `python -m urlscan_rs._generate`: do not edit
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["scans"] | None = None,
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SyncSearchIterator[SearchHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["hostnames"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SyncSearchIterator[HostnameHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["incidents"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SyncSearchIterator[IncidentHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["notifications"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SyncSearchIterator[NotificationHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["certificates"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SyncSearchIterator[CertificateHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["domains"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> SyncSearchIterator[DomainHit]: ...
    @overload
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
    ) -> SyncSearchIterator[SearchHit | HostnameHit | IncidentHit | NotificationHit | CertificateHit | DomainHit]: ...
    def similar(
        self,
        uuid: str,
        *,
        q: str | None = None,
        size: int | None = None,
        search_after: str | None = None,
        limit: int | None = None,
    ) -> SyncSearchIterator[SearchHit]: ...
    def phishfeed(
        self, q: str | None = None, *, size: int | None = None, limit: int | None = None
    ) -> SyncSearchIterator[SearchHit]: ...
    # END GENERATED search
    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Any = None) -> Any: ...

# BEGIN GENERATED async by `python -m urlscan_rs._generate`: do not edit
class AsyncClient:
    livescan: AsyncLiveScan
    saved_searches: AsyncSavedSearches
    subscriptions: AsyncSubscriptions
    channels: AsyncChannels
    incidents: AsyncIncidents
    hostnames: AsyncHostnames
    brands: AsyncBrands
    files: AsyncFiles
    datadumps: AsyncDataDumps
    feeds: AsyncFeeds
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
        max_body_bytes: int = 268435456,
        max_download_bytes: int = 68719476736,
        event_hooks: EventHooks | None = None,
        cache: str | os.PathLike[str] | Cache | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_hook: RecordHook | None = None,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def timeout(self) -> float: ...
    @property
    def closed(self) -> bool: ...
    @property
    def rate_limits(self) -> list[dict[str, Any]]: ...
    @property
    def with_raw_response(self) -> RawClient: ...
    cache: Cache | None
    def with_options(self, **options: Unpack[ClientOptions]) -> AsyncClient: ...
    def close(self) -> None: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> AsyncClient: ...
    async def __aexit__(self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None) -> None: ...
    async def quotas(self) -> Quotas: ...
    async def user(self) -> User: ...
    async def malicious(self, type: Literal["ip", "hostname", "domain", "url"], value: str) -> MaliciousObservable: ...
    async def set_visibility(self, uuid: str, visibility: VisibilityOrDeleted) -> VisibilityChange: ...
    async def reset_visibility(self, uuid: str) -> VisibilityChange: ...
    async def available_countries(self) -> list[str]: ...
    async def user_agents(self) -> list[UserAgentGroup]: ...
    async def scan(self, url: str, *, refang: bool = False, **scan_options: Unpack[ScanOptions]) -> Submission: ...
    async def result(self, uuid: str) -> ScanResult: ...
    async def wait_for_result(
        self, uuid: str, *, timeout: float = 120.0, initial_wait: float = 10.0, interval: float = 2.0
    ) -> ScanResult: ...
    async def scan_and_wait(
        self,
        url: str,
        *,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        **scan_options: Unpack[ScanOptions],
    ) -> ScanResult: ...
    async def bulk_scan(
        self,
        urls: Iterable[str],
        *,
        wait: bool = True,
        concurrency: int | None = 8,
        progress: Progress = False,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        save_to: str | os.PathLike[str] | None = None,
        **scan_options: Unpack[ScanOptions],
    ) -> list[ScanOutcome]: ...
    async def lookup_or_scan(
        self,
        url: str,
        *,
        max_age: float = 86400,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        check_malicious: bool = False,
        **scan_options: Unpack[ScanOptions],
    ) -> Lookup: ...
    async def lookup_or_scan_many(
        self,
        urls: Iterable[str],
        *,
        max_age: float = 86400,
        concurrency: int | None = 8,
        progress: Progress = False,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        refang: bool = False,
        check_malicious: bool = False,
        **scan_options: Unpack[ScanOptions],
    ) -> list[Lookup]: ...
    async def results(self, uuids: Iterable[str], *, concurrency: int | None = 8, progress: Progress = False) -> ResultList: ...
    async def save(
        self, uuid: str, dest_dir: str | os.PathLike[str] = ".", *, what: Iterable[Artifact] | Artifact = ("json", "png", "dom")
    ) -> dict[Artifact, Path]: ...
    async def screenshot(self, uuid: str) -> Screenshot: ...
    async def dom(self, uuid: str) -> str: ...
    async def response(self, sha256: str) -> str: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["scans"] | None = None,
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> AsyncSearchIterator[SearchHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["hostnames"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> AsyncSearchIterator[HostnameHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["incidents"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> AsyncSearchIterator[IncidentHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["notifications"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> AsyncSearchIterator[NotificationHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["certificates"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> AsyncSearchIterator[CertificateHit]: ...
    @overload
    def search(
        self,
        q: str = "",
        *,
        size: int | None = None,
        search_after: str | None = None,
        datasource: Literal["domains"],
        collapse: str | None = None,
        limit: int | None = None,
        parallel: int | Literal["auto"] | None = None,
    ) -> AsyncSearchIterator[DomainHit]: ...
    @overload
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
    ) -> AsyncSearchIterator[SearchHit | HostnameHit | IncidentHit | NotificationHit | CertificateHit | DomainHit]: ...
    def similar(
        self,
        uuid: str,
        *,
        q: str | None = None,
        size: int | None = None,
        search_after: str | None = None,
        limit: int | None = None,
    ) -> AsyncSearchIterator[SearchHit]: ...
    def phishfeed(
        self, q: str | None = None, *, size: int | None = None, limit: int | None = None
    ) -> AsyncSearchIterator[SearchHit]: ...
    async def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Any = None) -> Any: ...

# END GENERATED async
