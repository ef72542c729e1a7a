# The native core (Rust). Public code uses Client, AsyncClient and Emulator instead.
# Checked against the module by mypy.stubtest (tests/test_ecosystem.py).
from collections.abc import Iterable
from typing import Any, final

from typing_extensions import Self

__all__ = [
    "_shutdown",
    "_reset_log_cache",
    "_server_clock_moved",
    "LazyDoc",
    "CancelOnDone",
    "Core",
    "NativeCursor",
    "HostnameCursor",
    "NativeEmulator",
    "__version__",
]
__version__: str

def _shutdown() -> None: ...
def _reset_log_cache() -> None: ...
def _server_clock_moved() -> None: ...

@final
class Core:
    def __new__(
        cls,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        user_agent: str | None = None,
        proxy: str | None = None,
        verify: bool = True,
        fail_fast: bool = False,
        retry_deadline: float | None = ...,
        max_body_bytes: int = 268435456,
        is_async: bool = False,
    ) -> Self: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def _panic_probe(self) -> Any: ...
    def _config(self) -> dict[str, Any]: ...
    def available_countries(self) -> Any: ...
    @property
    def base_url(self) -> str: ...
    def bulk_scan(
        self,
        urls: Iterable[str],
        *,
        wait: bool = True,
        concurrency: int | None = 8,
        progress: Any = None,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        visibility: str | None = None,
        tags: list[str] | None = None,
        country: str | None = None,
        referer: str | None = None,
        custom_agent: str | None = None,
        override_safety: Any = None,
    ) -> Any: ...
    def call(
        self,
        name: str,
        ids: list[str],
        options: dict[str, Any] | None = None,
        *,
        model: str | None = None,
        field: str | None = None,
        discard: bool = False,
    ) -> Any: ...
    def datadump_link(self, path: str) -> Any: ...
    def datadump_list(self, time_window: str, file_type: str, date: str) -> Any: ...
    def dom(self, uuid: str) -> Any: ...
    def download(self, sha256: str, *, password: str | None = None) -> Any: ...
    def download_zip(self, sha256: str, *, password: str | None = None) -> Any: ...
    @property
    def has_api_key(self) -> bool: ...
    def hostname_cursor(self, hostname: str, *, limit: int | None = 1000, page_state: str | None = None) -> HostnameCursor: ...
    def incident_action(self, action: str, incident_id: str) -> Any: ...
    @property
    def is_async(self) -> bool: ...
    def livescan_resource(self, scanner_id: str, resource_type: str, resource_id: str) -> Any: ...
    def quotas(self) -> Any: ...
    def rate_limits(self) -> list[dict[str, Any]]: ...
    def reset_visibility(self, uuid: str) -> Any: ...
    def response(self, sha256: str) -> Any: ...
    def result(self, uuid: str) -> Any: ...
    def results(self, uuids: Iterable[str], *, concurrency: int | None = 8, progress: Any = None) -> Any: ...
    def scan(
        self,
        url: str,
        *,
        visibility: str | None = None,
        tags: list[str] | None = None,
        country: str | None = None,
        referer: str | None = None,
        custom_agent: str | None = None,
        override_safety: Any = None,
    ) -> Any: ...
    def scan_and_wait(
        self,
        url: str,
        *,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
        interval: float = 2.0,
        visibility: str | None = None,
        tags: list[str] | None = None,
        country: str | None = None,
        referer: str | None = None,
        custom_agent: str | None = None,
        override_safety: Any = None,
    ) -> Any: ...
    def screenshot(self, uuid: str) -> Any: ...
    def search_cursor(
        self,
        kind: str,
        *,
        q: str | None = None,
        size: int = 100,
        limit: int | None = None,
        search_after: str | None = None,
        datasource: str | None = None,
        collapse: str | None = None,
        uuid: str | None = None,
        parallel: int | None = None,
    ) -> Any: ...
    def set_visibility(self, uuid: str, visibility: str | None) -> Any: ...
    @property
    def timeout(self) -> float: ...
    def user(self) -> Any: ...
    def user_agents(self) -> Any: ...
    def wait_for_result(self, uuid: str, *, timeout: float = 120.0, initial_wait: float = 10.0, interval: float = 2.0) -> Any: ...

@final
class NativeCursor:
    def count(self) -> Any: ...
    @property
    def done(self) -> bool: ...
    @property
    def fetched(self) -> int: ...
    @property
    def has_more(self) -> bool | None: ...
    @property
    def is_async(self) -> bool: ...
    def next_page(self) -> Any: ...
    @property
    def search_after(self) -> str | None: ...
    @property
    def total(self) -> int | None: ...

@final
class HostnameCursor:
    @property
    def done(self) -> bool: ...
    @property
    def fetched(self) -> int: ...
    @property
    def is_async(self) -> bool: ...
    def next_page(self) -> Any: ...
    @property
    def page_state(self) -> str | None: ...

@final
class NativeEmulator:
    def __new__(
        cls,
        *,
        scans: int = 1000,
        seed: int = 0,
        scan_duration: float = 10.0,
        latency: float = 0.0,
        latency_groups: dict[str, float] | None = None,
        rate_limits: dict[str, dict[str, int | None]] | None = None,
        host: str = ...,
        port: int = 0,
        result_size: tuple[int, int] | None = None,
    ) -> Self: ...
    def advance(self, seconds: float) -> None: ...
    @property
    def api_key(self) -> str: ...
    def faults(
        self,
        kind: str | None = None,
        *,
        count: int | None = ...,
        path: str | None = None,
        method: str | None = None,
        status: int | None = None,
        seconds: float | None = None,
        every: int | None = None,
        probability: float | None = None,
        location: str | None = None,
        seed: int | None = None,
        clear: bool = False,
    ) -> int: ...
    @property
    def keys(self) -> dict[str, str]: ...
    def now(self) -> float: ...
    @property
    def running(self) -> bool: ...
    def stats(self) -> dict[str, int]: ...
    def stop(self) -> None: ...
    @property
    def url(self) -> str: ...

@final
class CancelOnDone:
    def __call__(self, args: Any, kwargs: Any) -> None: ...

@final
class LazyDoc:
    def __new__(cls, data: bytes) -> Self: ...
    @property
    def decoded(self) -> list[str]: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def keys(self) -> list[str]: ...
    def __contains__(self, key: str, /) -> bool: ...
    def full(self) -> dict[str, Any]: ...
