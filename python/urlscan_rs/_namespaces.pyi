# Typed signatures of the premium namespaces: the plain classes belong to
# Client, the Async* ones to AsyncClient (every call is awaited there). The
# GENERATED regions are written by `python -m urlscan_rs._generate`: the
# methods of the core's endpoint table, the models import, and the Async*
# classes (from the plain ones). Only the hand-written methods below are
# edited here.
import datetime as _dt
import os
from builtins import list as _List
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from ._tables import Tabular
from .datadumps import SyncReport
from .feeds import FeedReport

# BEGIN GENERATED models by `python -m urlscan_rs._generate`: do not edit
from .models import (
    Brand,
    BrandSummary,
    Channel,
    DataDumpFile,
    HostnameRecord,
    Incident,
    IncidentState,
    LiveScanner,
    SavedSearch,
    ScanResult,
    SearchHit,
    Subscription,
)

# END GENERATED models

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
    "Feeds",
    "HostnameIterator",
]

# BEGIN GENERATED aliases by `python -m urlscan_rs._generate`: do not edit
Visibility = Literal["public", "unlisted", "private"]
VisibilityOrDeleted = Literal["public", "unlisted", "private", "deleted"]
IncidentVisibility = Literal["unlisted", "private"]
SavedSearchDatasource = Literal["hostnames", "scans"]
Frequency = Literal["live", "hourly", "daily"]
WeekDay = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TeamPermission = Literal["team:read", "team:write"]
SearchPermission = Literal["public:read", "team:read", "team:write"]
Tlp = Literal["red", "amber+strict", "amber", "green", "clear"]
CreationMode = Literal["none", "default", "always", "ignore-if-exists"]
WatchKey = Literal[
    "scans/page.url", "scans/page.domain", "scans/page.ip", "scans/page.apexDomain", "hostnames/hostname", "hostnames/domain"
]
WatchedAttribute = Literal["detections", "tls", "dns", "labels", "page", "meta", "ip"]
EnableFeature = Literal["bannerBypass", "downloadWait", "fullscreen"]
DisableFeature = Literal["annotation", "dom", "downloads", "hideheadless", "pageInformation", "responses", "screenshot"]
TimeWindow = Literal["days", "hours", "minutes"]
FileType = Literal["api", "search", "screenshots", "dom"]
ChannelType = Literal["webhook", "email"]
ScanIntervalMode = Literal["automatic", "manual"]
# END GENERATED aliases
ResourceType = Literal["result", "screenshot", "dom", "response", "download"]
Dedupe = Literal["uuid", "url"]
FeedFormat = Literal["jsonl", "parquet", "stix"]

class HostnameIterator(Tabular):
    @property
    def page_state(self) -> str | None: ...
    def __iter__(self) -> Iterator[HostnameRecord]: ...
    def __next__(self) -> HostnameRecord: ...
    def __aiter__(self) -> AsyncIterator[HostnameRecord]: ...
    async def __anext__(self) -> HostnameRecord: ...

class LiveScan:
    # BEGIN GENERATED livescan by `python -m urlscan_rs._generate`: do not edit
    def scanners(self) -> _List[LiveScanner]: ...
    def task(
        self,
        scanner_id: str,
        url: str,
        *,
        visibility: Visibility | None = None,
        page_timeout: int | None = None,
        capture_delay: int | None = None,
        extra_headers: dict[str, str] | None = None,
        enable_features: _List[EnableFeature] | None = None,
        disable_features: _List[DisableFeature] | None = None,
    ) -> str: ...
    def scan(
        self,
        scanner_id: str,
        url: str,
        *,
        visibility: Visibility | None = None,
        page_timeout: int | None = None,
        capture_delay: int | None = None,
        extra_headers: dict[str, str] | None = None,
        enable_features: _List[EnableFeature] | None = None,
        disable_features: _List[DisableFeature] | None = None,
    ) -> str: ...
    def store(self, scanner_id: str, scan_id: str, *, visibility: Visibility | None = None) -> dict[str, Any]: ...
    def purge(self, scanner_id: str, scan_id: str) -> dict[str, Any]: ...
    # END GENERATED livescan
    def resource(self, scanner_id: str, resource_type: ResourceType, resource_id: str) -> ScanResult | str | bytes: ...

class SavedSearches:
    # BEGIN GENERATED saved_searches by `python -m urlscan_rs._generate`: do not edit
    def list(self) -> _List[SavedSearch]: ...
    def create(
        self,
        *,
        datasource: SavedSearchDatasource,
        name: str,
        query: str,
        description: str | None = None,
        long_description: str | None = None,
        permissions: _List[SearchPermission] | None = None,
        tlp: Tlp | None = None,
        user_tags: _List[str] | None = None,
    ) -> SavedSearch: ...
    def update(
        self,
        search_id: str,
        *,
        datasource: SavedSearchDatasource | None = None,
        name: str | None = None,
        query: str | None = None,
        description: str | None = None,
        long_description: str | None = None,
        permissions: _List[SearchPermission] | None = None,
        tlp: Tlp | None = None,
        user_tags: _List[str] | None = None,
    ) -> SavedSearch: ...
    def delete(self, search_id: str) -> None: ...
    def results(self, search_id: str, *, size: int | None = None, search_after: str | None = None) -> _List[SearchHit]: ...
    # END GENERATED saved_searches

class Subscriptions:
    # BEGIN GENERATED subscriptions by `python -m urlscan_rs._generate`: do not edit
    def list(self) -> _List[Subscription]: ...
    def create(
        self,
        *,
        search_ids: _List[str],
        frequency: Frequency,
        email_addresses: _List[str],
        name: str,
        is_active: bool,
        ignore_time: bool,
        description: str | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        channel_ids: _List[str] | None = None,
        incident_channel_ids: _List[str] | None = None,
        incident_profile_id: str | None = None,
        incident_visibility: IncidentVisibility | None = None,
        incident_creation_mode: CreationMode | None = None,
        incident_watch_keys: WatchKey | _List[WatchKey] | None = None,
    ) -> Subscription: ...
    def update(
        self,
        subscription_id: str,
        *,
        search_ids: _List[str] | None = None,
        frequency: Frequency | None = None,
        email_addresses: _List[str] | None = None,
        name: str | None = None,
        is_active: bool | None = None,
        ignore_time: bool | None = None,
        description: str | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        channel_ids: _List[str] | None = None,
        incident_channel_ids: _List[str] | None = None,
        incident_profile_id: str | None = None,
        incident_visibility: IncidentVisibility | None = None,
        incident_creation_mode: CreationMode | None = None,
        incident_watch_keys: WatchKey | _List[WatchKey] | None = None,
    ) -> Subscription: ...
    def delete(self, subscription_id: str) -> None: ...
    def results(self, subscription_id: str, datasource: SavedSearchDatasource) -> _List[SearchHit]: ...
    # END GENERATED subscriptions

class Channels:
    # BEGIN GENERATED channels by `python -m urlscan_rs._generate`: do not edit
    def list(self) -> _List[Channel]: ...
    def create(
        self,
        *,
        type: ChannelType,
        name: str,
        webhook_url: str | None = None,
        frequency: Frequency | None = None,
        email_addresses: _List[str] | None = None,
        utc_time: str | None = None,
        is_active: bool | None = None,
        is_default: bool | None = None,
        ignore_time: bool | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        description: str | None = None,
    ) -> Channel: ...
    def get(self, channel_id: str) -> Channel: ...
    def update(
        self,
        channel_id: str,
        *,
        type: ChannelType | None = None,
        name: str | None = None,
        webhook_url: str | None = None,
        frequency: Frequency | None = None,
        email_addresses: _List[str] | None = None,
        utc_time: str | None = None,
        is_active: bool | None = None,
        is_default: bool | None = None,
        ignore_time: bool | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        description: str | None = None,
    ) -> Channel: ...
    # END GENERATED channels

class Incidents:
    # BEGIN GENERATED incidents by `python -m urlscan_rs._generate`: do not edit
    def create(
        self,
        observable: str,
        *,
        visibility: IncidentVisibility,
        channels: _List[str],
        scan_interval: int | None = None,
        scan_interval_mode: ScanIntervalMode | None = None,
        watched_attributes: _List[WatchedAttribute] | None = None,
        user_agents: _List[str] | None = None,
        user_agents_per_interval: int | None = None,
        countries: _List[str] | None = None,
        countries_per_interval: int | None = None,
        stop_delay_suspended: int | None = None,
        stop_delay_inactive: int | None = None,
        stop_delay_malicious: int | None = None,
        scan_interval_after_suspended: int | None = None,
        scan_interval_after_malicious: int | None = None,
        incident_profile: str | None = None,
        expire_after: int | None = None,
        extra_path: str | None = None,
    ) -> Incident: ...
    def get(self, incident_id: str) -> Incident: ...
    def update(
        self,
        incident_id: str,
        *,
        observable: str | None = None,
        visibility: IncidentVisibility | None = None,
        channels: _List[str] | None = None,
        scan_interval: int | None = None,
        scan_interval_mode: ScanIntervalMode | None = None,
        watched_attributes: _List[WatchedAttribute] | None = None,
        user_agents: _List[str] | None = None,
        user_agents_per_interval: int | None = None,
        countries: _List[str] | None = None,
        countries_per_interval: int | None = None,
        stop_delay_suspended: int | None = None,
        stop_delay_inactive: int | None = None,
        stop_delay_malicious: int | None = None,
        scan_interval_after_suspended: int | None = None,
        scan_interval_after_malicious: int | None = None,
        incident_profile: str | None = None,
        expire_after: int | None = None,
        extra_path: str | None = None,
    ) -> Incident: ...
    def copy(self, incident_id: str) -> Incident: ...
    def fork(self, incident_id: str) -> Incident: ...
    def watchable_attributes(self) -> _List[str]: ...
    def states(self, incident_id: str) -> _List[IncidentState]: ...
    # END GENERATED incidents
    def close(self, incident_id: str) -> Incident: ...
    def restart(self, incident_id: str) -> Incident: ...

class Hostnames:
    def history(self, hostname: str, *, limit: int = 1000, page_state: str | None = None) -> HostnameIterator: ...

class Brands:
    # BEGIN GENERATED brands by `python -m urlscan_rs._generate`: do not edit
    def available(self) -> _List[Brand]: ...
    def detected(self) -> _List[BrandSummary]: ...
    # END GENERATED brands

class Files:
    def download(self, sha256: str, *, password: str | None = None) -> bytes: ...
    def download_zip(self, sha256: str, *, password: str | None = None) -> bytes: ...

class DataDumps:
    def list(self, time_window: TimeWindow, file_type: FileType, date: str | _dt.date) -> _List[DataDumpFile]: ...
    def link(self, path: str) -> str: ...
    def download(
        self, path: str, dest: str | os.PathLike[str] = ".", *, progress: bool | Callable[[int, int], object] = False
    ) -> Path: ...
    def sync(
        self,
        dest_dir: str | os.PathLike[str],
        *,
        window: TimeWindow = "hours",
        types: Sequence[FileType] = ("search", "api"),
        days: int = 7,
        progress: bool | Callable[[int, int], object] = False,
        rebuild_state: bool = False,
    ) -> SyncReport: ...

class Feeds:
    def sync(
        self,
        source: Literal["phishfeed"] | str,
        dest_dir: str | os.PathLike[str],
        *,
        lookback: float | _dt.timedelta = ...,
        dedupe: Dedupe = "uuid",
        filter: Callable[[SearchHit], object] | None = None,
        format: FeedFormat = "jsonl",
        max_items: int = 10000,
        progress: bool | Callable[[int, int], object] = False,
        rebuild_state: bool = False,
    ) -> FeedReport: ...

# BEGIN GENERATED async by `python -m urlscan_rs._generate`: do not edit
class AsyncLiveScan:
    async def scanners(self) -> _List[LiveScanner]: ...
    async def task(
        self,
        scanner_id: str,
        url: str,
        *,
        visibility: Visibility | None = None,
        page_timeout: int | None = None,
        capture_delay: int | None = None,
        extra_headers: dict[str, str] | None = None,
        enable_features: _List[EnableFeature] | None = None,
        disable_features: _List[DisableFeature] | None = None,
    ) -> str: ...
    async def scan(
        self,
        scanner_id: str,
        url: str,
        *,
        visibility: Visibility | None = None,
        page_timeout: int | None = None,
        capture_delay: int | None = None,
        extra_headers: dict[str, str] | None = None,
        enable_features: _List[EnableFeature] | None = None,
        disable_features: _List[DisableFeature] | None = None,
    ) -> str: ...
    async def store(self, scanner_id: str, scan_id: str, *, visibility: Visibility | None = None) -> dict[str, Any]: ...
    async def purge(self, scanner_id: str, scan_id: str) -> dict[str, Any]: ...
    async def resource(self, scanner_id: str, resource_type: ResourceType, resource_id: str) -> ScanResult | str | bytes: ...

class AsyncSavedSearches:
    async def list(self) -> _List[SavedSearch]: ...
    async def create(
        self,
        *,
        datasource: SavedSearchDatasource,
        name: str,
        query: str,
        description: str | None = None,
        long_description: str | None = None,
        permissions: _List[SearchPermission] | None = None,
        tlp: Tlp | None = None,
        user_tags: _List[str] | None = None,
    ) -> SavedSearch: ...
    async def update(
        self,
        search_id: str,
        *,
        datasource: SavedSearchDatasource | None = None,
        name: str | None = None,
        query: str | None = None,
        description: str | None = None,
        long_description: str | None = None,
        permissions: _List[SearchPermission] | None = None,
        tlp: Tlp | None = None,
        user_tags: _List[str] | None = None,
    ) -> SavedSearch: ...
    async def delete(self, search_id: str) -> None: ...
    async def results(self, search_id: str, *, size: int | None = None, search_after: str | None = None) -> _List[SearchHit]: ...

class AsyncSubscriptions:
    async def list(self) -> _List[Subscription]: ...
    async def create(
        self,
        *,
        search_ids: _List[str],
        frequency: Frequency,
        email_addresses: _List[str],
        name: str,
        is_active: bool,
        ignore_time: bool,
        description: str | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        channel_ids: _List[str] | None = None,
        incident_channel_ids: _List[str] | None = None,
        incident_profile_id: str | None = None,
        incident_visibility: IncidentVisibility | None = None,
        incident_creation_mode: CreationMode | None = None,
        incident_watch_keys: WatchKey | _List[WatchKey] | None = None,
    ) -> Subscription: ...
    async def update(
        self,
        subscription_id: str,
        *,
        search_ids: _List[str] | None = None,
        frequency: Frequency | None = None,
        email_addresses: _List[str] | None = None,
        name: str | None = None,
        is_active: bool | None = None,
        ignore_time: bool | None = None,
        description: str | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        channel_ids: _List[str] | None = None,
        incident_channel_ids: _List[str] | None = None,
        incident_profile_id: str | None = None,
        incident_visibility: IncidentVisibility | None = None,
        incident_creation_mode: CreationMode | None = None,
        incident_watch_keys: WatchKey | _List[WatchKey] | None = None,
    ) -> Subscription: ...
    async def delete(self, subscription_id: str) -> None: ...
    async def results(self, subscription_id: str, datasource: SavedSearchDatasource) -> _List[SearchHit]: ...

class AsyncChannels:
    async def list(self) -> _List[Channel]: ...
    async def create(
        self,
        *,
        type: ChannelType,
        name: str,
        webhook_url: str | None = None,
        frequency: Frequency | None = None,
        email_addresses: _List[str] | None = None,
        utc_time: str | None = None,
        is_active: bool | None = None,
        is_default: bool | None = None,
        ignore_time: bool | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        description: str | None = None,
    ) -> Channel: ...
    async def get(self, channel_id: str) -> Channel: ...
    async def update(
        self,
        channel_id: str,
        *,
        type: ChannelType | None = None,
        name: str | None = None,
        webhook_url: str | None = None,
        frequency: Frequency | None = None,
        email_addresses: _List[str] | None = None,
        utc_time: str | None = None,
        is_active: bool | None = None,
        is_default: bool | None = None,
        ignore_time: bool | None = None,
        week_days: _List[WeekDay] | None = None,
        permissions: _List[TeamPermission] | None = None,
        description: str | None = None,
    ) -> Channel: ...

class AsyncIncidents:
    async def create(
        self,
        observable: str,
        *,
        visibility: IncidentVisibility,
        channels: _List[str],
        scan_interval: int | None = None,
        scan_interval_mode: ScanIntervalMode | None = None,
        watched_attributes: _List[WatchedAttribute] | None = None,
        user_agents: _List[str] | None = None,
        user_agents_per_interval: int | None = None,
        countries: _List[str] | None = None,
        countries_per_interval: int | None = None,
        stop_delay_suspended: int | None = None,
        stop_delay_inactive: int | None = None,
        stop_delay_malicious: int | None = None,
        scan_interval_after_suspended: int | None = None,
        scan_interval_after_malicious: int | None = None,
        incident_profile: str | None = None,
        expire_after: int | None = None,
        extra_path: str | None = None,
    ) -> Incident: ...
    async def get(self, incident_id: str) -> Incident: ...
    async def update(
        self,
        incident_id: str,
        *,
        observable: str | None = None,
        visibility: IncidentVisibility | None = None,
        channels: _List[str] | None = None,
        scan_interval: int | None = None,
        scan_interval_mode: ScanIntervalMode | None = None,
        watched_attributes: _List[WatchedAttribute] | None = None,
        user_agents: _List[str] | None = None,
        user_agents_per_interval: int | None = None,
        countries: _List[str] | None = None,
        countries_per_interval: int | None = None,
        stop_delay_suspended: int | None = None,
        stop_delay_inactive: int | None = None,
        stop_delay_malicious: int | None = None,
        scan_interval_after_suspended: int | None = None,
        scan_interval_after_malicious: int | None = None,
        incident_profile: str | None = None,
        expire_after: int | None = None,
        extra_path: str | None = None,
    ) -> Incident: ...
    async def copy(self, incident_id: str) -> Incident: ...
    async def fork(self, incident_id: str) -> Incident: ...
    async def watchable_attributes(self) -> _List[str]: ...
    async def states(self, incident_id: str) -> _List[IncidentState]: ...
    async def close(self, incident_id: str) -> Incident: ...
    async def restart(self, incident_id: str) -> Incident: ...

class AsyncHostnames:
    def history(self, hostname: str, *, limit: int = 1000, page_state: str | None = None) -> HostnameIterator: ...

class AsyncBrands:
    async def available(self) -> _List[Brand]: ...
    async def detected(self) -> _List[BrandSummary]: ...

class AsyncFiles:
    async def download(self, sha256: str, *, password: str | None = None) -> bytes: ...
    async def download_zip(self, sha256: str, *, password: str | None = None) -> bytes: ...

class AsyncDataDumps:
    async def list(self, time_window: TimeWindow, file_type: FileType, date: str | _dt.date) -> _List[DataDumpFile]: ...
    async def link(self, path: str) -> str: ...
    async def download(
        self, path: str, dest: str | os.PathLike[str] = ".", *, progress: bool | Callable[[int, int], object] = False
    ) -> Path: ...
    async def sync(
        self,
        dest_dir: str | os.PathLike[str],
        *,
        window: TimeWindow = "hours",
        types: Sequence[FileType] = ("search", "api"),
        days: int = 7,
        progress: bool | Callable[[int, int], object] = False,
        rebuild_state: bool = False,
    ) -> SyncReport: ...

class AsyncFeeds:
    async def sync(
        self,
        source: Literal["phishfeed"] | str,
        dest_dir: str | os.PathLike[str],
        *,
        lookback: float | _dt.timedelta = ...,
        dedupe: Dedupe = "uuid",
        filter: Callable[[SearchHit], object] | None = None,
        format: FeedFormat = "jsonl",
        max_items: int = 10000,
        progress: bool | Callable[[int, int], object] = False,
        rebuild_state: bool = False,
    ) -> FeedReport: ...

# END GENERATED async
