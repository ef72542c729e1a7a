"""Search before you scan: ``lookup_or_scan`` reuses a recent finished scan of the URL, else scans.

Against the emulator over HTTP; its clock is moved (``advance``) instead of waiting. Its pages
that did not load are asked for by the host's first label (``unreachable.``, ``denied.``,
``empty.``, ``download.``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import AsyncClient, Cache, Lookup
from urlscan_rs.errors import ScanRefusedError, ValidationError
from urlscan_rs.playbook import normalize_tags
from urlscan_rs.testing import Emulator

from .conftest import emulator, run

quick = emulator("function", scans=20, scan_duration=0.0, seed=3)

FAST: dict[str, Any] = {"initial_wait": 0, "interval": 0.05, "timeout": 30}


def _submissions(e: Emulator) -> int:
    return e.stats()["submissions"]


def test_a_fresh_scan_is_reused_and_a_stale_one_is_not(quick: Emulator) -> None:
    url = "https://login.example-bank.com/signin"
    with quick.client() as c:
        first = c.lookup_or_scan(url, **FAST)
        assert isinstance(first, Lookup) and first.ok
        assert first.reused is False and first.uuid == first.result.uuid
        assert _submissions(quick) == 1
        again = c.lookup_or_scan(url, max_age=3600, **FAST)
        assert again.reused is True and again.uuid == first.uuid and again.result.url == first.result.url
        assert _submissions(quick) == 1
        # An hour and a second later the scan is older than max_age: a new one is made.
        quick.advance(3601)
        stale = c.lookup_or_scan(url, max_age=3600, **FAST)
        assert stale.reused is False and stale.uuid != first.uuid
        assert _submissions(quick) == 2
        # max_age=0 never reuses.
        assert c.lookup_or_scan(url, max_age=0, **FAST).reused is False
        assert _submissions(quick) == 3


def test_the_url_must_match_exactly_once_normalised(quick: Emulator) -> None:
    with quick.client() as c:
        first = c.lookup_or_scan("https://Shop.Example.com", **FAST)
        # The same URL as the service writes it (host case, the empty path as "/").
        assert c.lookup_or_scan("https://shop.example.com/", **FAST).uuid == first.uuid
        # Another path of the same host is another URL.
        other = c.lookup_or_scan("https://shop.example.com/cart", **FAST)
        assert other.reused is False and other.uuid != first.uuid


def test_only_a_scan_of_the_visibility_asked_is_reused(quick: Emulator) -> None:
    url = "https://portal.example.net/"
    with quick.client() as c:
        private = c.lookup_or_scan(url, visibility="private", **FAST)
        assert private.reused is False and private.result.task.visibility == "private"
        # A public scan is asked for: the private one is not it.
        public = c.lookup_or_scan(url, visibility="public", **FAST)
        assert public.reused is False and public.uuid != private.uuid
        assert c.lookup_or_scan(url, visibility="private", **FAST).uuid == private.uuid
        assert c.lookup_or_scan(url, visibility="public", **FAST).uuid == public.uuid
        # No visibility asked: the newest visible to the key.
        assert c.lookup_or_scan(url, **FAST).uuid == public.uuid
        assert _submissions(quick) == 2


@pytest.mark.parametrize(
    ("host", "outcome", "error"),
    [
        ("unreachable.example.org", "unreachable", "net::ERR_CONNECTION_REFUSED"),
        ("unresolved.example.org", "unreachable", None),
        ("denied.example.org", "blocked", "net::ERR_BLOCKED_BY_ADMINISTRATOR"),
    ],
)
def test_a_page_that_did_not_load_is_scanned_again(quick: Emulator, host: str, outcome: str, error: str | None) -> None:
    url = f"https://{host}/"
    with quick.client() as c:
        first = c.lookup_or_scan(url, **FAST)
        assert first.reused is False
        assert first.result.page_outcome == outcome and first.result.page_error == error
        hit = next(iter(c.search(f'task.uuid:"{first.uuid}"')))
        assert hit.page.status is None
        second = c.lookup_or_scan(url, **FAST)
        assert second.reused is False and second.uuid != first.uuid
        assert _submissions(quick) == 2


def test_an_empty_page_loaded_and_is_reused(quick: Emulator) -> None:
    with quick.client() as c:
        first = c.lookup_or_scan("https://empty.example.org/", **FAST)
        assert first.result.page_outcome == "empty"
        assert c.lookup_or_scan("https://empty.example.org/", **FAST).reused is True


def test_a_deleted_scan_is_not_reused(quick: Emulator) -> None:
    url = "https://gone.example.com/"
    with quick.client() as c:
        first = c.lookup_or_scan(url, **FAST)
        c.set_visibility(first.uuid, "deleted")
        second = c.lookup_or_scan(url, **FAST)
        assert second.reused is False and second.uuid != first.uuid


def test_a_refused_submission_raises_and_bad_input_sends_nothing(quick: Emulator) -> None:
    with quick.client() as c:
        with pytest.raises(ScanRefusedError):
            c.lookup_or_scan("https://blocked.example.com/", **FAST)
        served = quick.stats()["requests"]
        for bad in ({"max_age": -1}, {"max_age": float("nan")}, {"max_age": 1e12}, {"visibility": "secret"}):
            with pytest.raises(ValidationError):
                c.lookup_or_scan("https://ok.example.com/", **(FAST | bad))
        with pytest.raises(ValidationError):
            c.lookup_or_scan("ftp://ok.example.com/", **FAST)
        assert quick.stats()["requests"] == served


def test_many_urls_keep_their_order_and_failures_are_values(quick: Emulator) -> None:
    with quick.client() as c:
        known = c.lookup_or_scan("https://a.example.com/", **FAST)
        seen: list[tuple[int, int]] = []
        urls = ["https://b.example.com/", "https://blocked.example.com/", "https://a.example.com/"]
        out = c.lookup_or_scan_many(urls, progress=lambda done, total: seen.append((done, total)), **FAST)
    assert [lk.url for lk in out] == urls
    assert out[0].ok and out[0].reused is False
    assert not out[1].ok and isinstance(out[1].error, ScanRefusedError)
    assert (out[1].result, out[1].reused, out[1].uuid) == (None, None, None)
    assert out[2].reused is True and out[2].uuid == known.uuid
    assert sorted(seen) == [(1, 3), (2, 3), (3, 3)]


def test_async_lookup(quick: Emulator) -> None:
    async def main() -> tuple[Lookup, Lookup, list[Lookup]]:
        async with AsyncClient(quick.api_key, base_url=quick.url) as c:
            first = await c.lookup_or_scan("https://async.example.com/", **FAST)
            again = await c.lookup_or_scan("https://async.example.com/", **FAST)
            many = await c.lookup_or_scan_many(["https://async.example.com/", "https://other.example.com/"], **FAST)
            return first, again, many

    first, again, many = run(main())
    assert first.reused is False and again.reused is True and again.uuid == first.uuid
    assert [m.reused for m in many] == [True, False]


def test_downloads_and_relationships_of_an_emulated_download(quick: Emulator) -> None:
    with quick.client() as c:
        r = c.lookup_or_scan("https://download.example.com/files/invoice-2291.zip", **FAST).result
    [d] = r.downloads()
    assert d.filename == "invoice-2291.zip" and d.mime_type == "application/zip"
    assert d.sha256 is not None and len(d.sha256) == 64 and d.filesize == d.received_bytes
    assert (r.page.url, "downloaded", d.sha256) in {(e.source, e.kind, e.target) for e in r.relationships()}
    assert r.page_outcome == "ok"


def test_tags_are_made_fit_and_the_quota_is_told_before_a_submission(quick: Emulator) -> None:
    raw = [" phish ", "", "Phish", *(f"case-{i}" for i in range(12)), 42]
    t = normalize_tags(raw)
    assert t.kept == ["phish", *(f"case-{i}" for i in range(9))]
    assert t.dropped[:2] == [("", "empty"), ("Phish", "repeated")]
    assert [why for _, why in t.dropped[2:]] == ["past the limit of 10"] * 4
    assert [tag for tag, _ in t.dropped[2:]] == ["case-9", "case-10", "case-11", "42"]
    with quick.client() as c:
        with pytest.raises(ValidationError, match="10"):
            c.scan("https://tags.example.com/", tags=[str(x) for x in raw])
        before = c.quotas()
        left = before.left("public")
        windows = before.limits["public"] if before.limits else {}
        assert left is not None and left == min(w["remaining"] for w in windows.values())
        sub = c.scan("https://tags.example.com/", tags=t.kept)
        assert c.quotas().left("public") == left - 1
        assert c.result(sub.uuid).task.tags == t.kept
        assert before.left("no-such-action") is None


def test_a_url_without_a_scheme_and_a_search_cache_still_reuse(quick: Emulator, tmp_path: Path) -> None:
    with quick.client(cache=Cache(tmp_path, search_ttl=600)) as c:
        first = c.lookup_or_scan("noscheme.example.com/path", **FAST)
        again = c.lookup_or_scan("noscheme.example.com/path", **FAST)
        assert first.reused is False and again.reused is True and again.uuid == first.uuid
        assert c.lookup_or_scan("http://noscheme.example.com/path", **FAST).uuid == first.uuid
        assert _submissions(quick) == 1


def test_a_url_given_twice_in_a_batch_is_looked_up_once(quick: Emulator) -> None:
    with quick.client() as c:
        out = c.lookup_or_scan_many(
            ["https://twice.example.com/", "https://once.example.com/", "https://twice.example.com/"], **FAST
        )
    assert out[0].uuid == out[2].uuid and out[0].uuid != out[1].uuid
    assert [lk.reused for lk in out] == [False, False, False]
    assert _submissions(quick) == 2
