"""The result cache: finished results, screenshots and DOMs served from disk, shared across clients
and processes, bounded, and dropped when the scan is deleted."""

from __future__ import annotations

import inspect
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from urlscan_rs import Cache, Client, _native
from urlscan_rs import cache as cache_module
from urlscan_rs.errors import DecodeError, GoneError, ScanPendingError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import emulator, requests_served, run

own = emulator("function", scans=30, scan_duration=10.0, seed=5)


def _uuids(e: Emulator, n: int) -> list[str]:
    with e.client() as c:
        return [h.uuid for h in c.search("", limit=n)]


def test_results_screenshots_and_doms_are_served_from_disk(own: Emulator, tmp_path: Path) -> None:
    [uuid] = _uuids(own, 1)
    with own.client(cache=tmp_path / "c") as c:
        assert isinstance(c.cache, Cache) and c.cache.path == tmp_path / "c"
        first = (c.result(uuid), c.screenshot(uuid), c.dom(uuid))
        served = requests_served(own)
        again = (c.result(uuid), c.screenshot(uuid), c.dom(uuid))
        assert requests_served(own) == served
        assert again[0].raw == first[0].raw and bytes(again[1]) == bytes(first[1]) and again[2] == first[2]
        stats = c.cache.stats()
        body = c.with_raw_response.result(uuid).content
    assert stats["hits"] == 3 and stats["misses"] == 3 and stats["stored"] == 3
    assert stats["saved"] == {"retrieve": 1, "other": 2}
    kept = len(body) + len(bytes(first[1])) + len(first[2].encode())
    assert stats["entries"] == 3 and stats["bytes"] == kept and stats["bytes_served"] == kept and stats["errors"] == 0
    assert (tmp_path / "c" / "urlscan-cache.sqlite3").is_file()


def test_results_batch_and_the_raw_answer_use_it(own: Emulator, tmp_path: Path) -> None:
    uuids = _uuids(own, 5)
    with own.client(cache=tmp_path) as c:
        c.results(uuids[:3])
        served = requests_served(own)
        out = c.results(uuids)
        assert requests_served(own) == served + 2 and all(r.uuid == u for r, u in zip(out, uuids, strict=True))
        raw = c.with_raw_response.result(uuids[0])
        assert raw.status_code == 200 and raw.headers["x-urlscan-rs-cache"] == "hit"
        assert raw.headers["content-type"].startswith("application/json")


def test_another_client_and_another_process_share_it(own: Emulator, tmp_path: Path) -> None:
    [uuid] = _uuids(own, 1)
    with own.client(cache=tmp_path) as c:
        c.result(uuid)
    served = requests_served(own)
    with own.client(cache=Cache(tmp_path)) as other:
        assert other.result(uuid).uuid == uuid
    script = textwrap.dedent(f"""
        from urlscan_rs import Client
        with Client({own.api_key!r}, base_url={own.url!r}, cache={str(tmp_path)!r}) as c:
            assert c.result({uuid!r}).uuid == {uuid!r}
            print(c.cache.stats()["hits"])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "1"
    assert requests_served(own) == served


def test_a_pending_scan_is_not_kept(own: Emulator, tmp_path: Path) -> None:
    with own.client(cache=tmp_path) as c:
        uuid = c.scan("https://pending.example.com/").uuid
        with pytest.raises(ScanPendingError):
            c.result(uuid)
        assert c.cache is not None and c.cache.stats()["entries"] == 0
        own.advance(own.scan_duration + 1)
        assert c.result(uuid).uuid == uuid
        assert c.cache.stats()["entries"] == 1


def test_a_deleted_scan_is_dropped(own: Emulator, tmp_path: Path) -> None:
    with own.client(cache=tmp_path) as c, own.client() as plain:
        # Only the owner may delete a scan: two of this key's own.
        uuid, other = (c.scan(f"https://deleted-{i}.example.com/").uuid for i in range(2))
        own.advance(own.scan_duration + 1)
        c.result(uuid)
        c.screenshot(uuid)
        assert c.cache is not None and c.cache.stats()["entries"] == 2
        # Deleted through this client: its visibility change drops the entries at once.
        c.set_visibility(uuid, "deleted")
        assert c.cache.stats()["entries"] == 0
        with pytest.raises(GoneError):
            c.result(uuid)
        # Deleted elsewhere: the cache still serves it until a request sees the 410.
        c.result(other)
        plain.set_visibility(other, "deleted")
        assert c.result(other).uuid == other
        assert c.cache.evict(other) == 1
        with pytest.raises(GoneError):
            c.result(other)


def test_the_size_is_bounded_least_recently_used_first(own: Emulator, tmp_path: Path) -> None:
    uuids = _uuids(own, 4)
    with own.client() as c:
        sizes = [len(c.with_raw_response.result(u).content) for u in uuids]
    bound = sizes[0] + sizes[1] + sizes[2] // 2
    with own.client(cache=Cache(tmp_path, max_bytes=bound)) as c:
        c.result(uuids[0])
        c.result(uuids[1])
        c.result(uuids[0])  # used again: uuids[1] is now the least recently used
        c.result(uuids[2])
        assert c.cache is not None
        stats = c.cache.stats()
        assert stats["bytes"] <= bound and stats["evicted"] >= 1
        served = requests_served(own)
        c.result(uuids[2])
        assert requests_served(own) == served
        c.result(uuids[1])
        assert requests_served(own) == served + 1


def test_search_pages_are_kept_only_for_a_ttl_given(own: Emulator, tmp_path: Path) -> None:
    with own.client(cache=tmp_path / "plain") as c:
        list(c.search("page.domain:*", limit=5))
        served = requests_served(own)
        list(c.search("page.domain:*", limit=5))
        assert requests_served(own) > served
    with own.client(cache=Cache(tmp_path / "ttl", search_ttl=600)) as c:
        first = [h.uuid for h in c.search("page.domain:*", limit=5)]
        served = requests_served(own)
        assert [h.uuid for h in c.search("page.domain:*", limit=5)] == first
        assert requests_served(own) == served
        assert c.cache is not None and c.cache.stats()["saved"] == {"search": 1}


def test_a_client_with_a_cache_pickles_and_async_clients_use_it(
    own: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [uuid] = _uuids(own, 1)
    cache = Cache(tmp_path, max_bytes=10_000_000, search_ttl=30)
    monkeypatch.setenv("URLSCAN_API_KEY", own.api_key)
    with Client(base_url=own.url, cache=cache) as c:
        copy = pickle.loads(pickle.dumps(c))
    assert copy.cache is not None and copy.cache.path == tmp_path
    assert (copy.cache.max_bytes, copy.cache.search_ttl) == (10_000_000, 30)
    copy.close()

    async def main() -> str:
        async with own.async_client(cache=tmp_path) as ac:
            await ac.result(uuid)
            served = requests_served(own)
            r = await ac.result(uuid)
            assert requests_served(own) == served
            return str(r.uuid)

    assert run(main()) == uuid


def test_bad_settings_and_a_broken_file_are_told(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="max_bytes"):
        Cache(tmp_path, max_bytes=0)
    with pytest.raises(ValidationError, match="search_ttl"):
        Cache(tmp_path, search_ttl=-1)
    with pytest.raises(ValidationError, match="max_bytes"):
        Cache(tmp_path, max_bytes=-5)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "urlscan-cache.sqlite3").write_bytes(b"this is not a database" * 100)
    # Named, and no advice to delete a file other processes may share.
    with pytest.raises(OSError, match="not a cache or it is damaged") as raised:
        Cache(tmp_path / "bad")
    assert "remove" not in str(raised.value)
    assert "urlscan-cache.sqlite3" in str(raised.value)
    assert repr(Cache(tmp_path / "ok", search_ttl=5)) == f"Cache({str(tmp_path / 'ok')!r}, max_bytes=1073741824, search_ttl=5.0)"
    assert Cache(tmp_path / "ok").clear() == 0


def test_the_default_bound_is_the_cores() -> None:
    native = inspect.signature(_native.NativeCache).parameters["max_bytes"].default
    assert cache_module.DEFAULT_MAX_BYTES == native == 1 << 30
    assert inspect.signature(Cache).parameters["max_bytes"].default == native


def test_a_body_that_is_not_what_the_row_promises_is_not_kept(own: Emulator, tmp_path: Path) -> None:
    [uuid] = _uuids(own, 1)
    with own.client(cache=tmp_path, max_retries=0) as c:
        own.inject("malformed", path=f"/api/v1/result/{uuid}/")
        with pytest.raises(DecodeError):
            c.result(uuid)
        assert c.cache is not None and c.cache.stats()["entries"] == 0
        assert c.result(uuid).uuid == uuid  # fetched again, whole, and kept
        assert c.cache.stats()["entries"] == 1


def test_clients_of_other_keys_or_servers_do_not_read_each_others_entries(own: Emulator, tmp_path: Path) -> None:
    [uuid] = _uuids(own, 1)
    cache = Cache(tmp_path, search_ttl=600)
    with own.client(cache=cache) as premium, own.client("team", cache=cache) as team:
        premium.result(uuid)
        list(premium.search("page.domain:*", limit=3))
        served = requests_served(own)
        team.result(uuid)
        list(team.search("page.domain:*", limit=3))
        assert requests_served(own) == served + 2
    with Emulator(scans=5, seed=9) as other, other.client(cache=cache) as c:
        assert [h.uuid for h in c.search("page.domain:*", limit=3)] != []
        assert c.cache is not None and c.cache.stats()["hits"] == 0
    text = (tmp_path / "urlscan-cache.sqlite3").read_bytes()
    assert own.api_key.encode() not in text and own.keys["team"].encode() not in text
    assert (tmp_path / "urlscan-cache.sqlite3").stat().st_mode & 0o077 == 0
