"""Walks always end: a search or hostname-history walk whose cursor does not
advance, or whose cursor cannot be read while more is announced, raises
DecodeError instead of looping or stopping silently."""

from __future__ import annotations

from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client

from .conftest import run
from .loopback import serve

KEY = "00000000-0000-4000-8000-000000000000"


def _hit(i: int, sort: Any) -> dict[str, Any]:
    uid = f"{i:08x}-0000-4000-8000-000000000000"
    hit: dict[str, Any] = {"_id": uid, "task": {"uuid": uid, "url": "https://example.com/"}, "page": {"domain": "example.com"}}
    if sort is not None:
        hit["sort"] = sort
    return hit


def search_server(sort_of: Any, total: int = 10_000, has_more: bool = True) -> Any:
    """Every search request gets the same two hits, whatever its search_after."""

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        if path.startswith("/api/v1/search"):
            size = int(query.get("size", ["2"])[0])
            if size == 0:
                return 200, {"results": [], "total": total, "has_more": has_more}
            hits = [_hit(i, sort_of(i)) for i in range(2)]
            return 200, {"results": hits, "total": total, "has_more": has_more}
        if path.startswith("/api/v1/hostname/"):
            rec = {"seen_on": "2026-01-01", "source": "ct", "sub_id": "", "first_seen": "2026-01-01T00:00:00Z"}
            return 200, {"results": [rec, rec], "pageState": "the-same-state"}
        return 404, {"message": "Not Found", "status": 404}

    return answer


SAME_CURSOR = lambda i: [1611489992146 - i, f"{i:08x}-0000-4000-8000-000000000000"]  # noqa: E731
CASES = {
    "cursor does not advance": SAME_CURSOR,
    "sort is a string": lambda i: "1611489992146,abc",
    "sort is missing": lambda i: None,
    "sort holds an object": lambda i: [{"a": 1}],
}


@pytest.mark.parametrize("parallel", [1, 8])
@pytest.mark.parametrize("case", list(CASES))
def test_search_walk_ends_sync(case: str, parallel: int) -> None:
    with serve(search_server(CASES[case])) as srv, Client(KEY, base_url=srv.url) as c:
        with pytest.raises(urlscan_rs.DecodeError) as exc:
            for _ in c.search("", size=2, parallel=parallel):
                pass
        assert "search walk" in str(exc.value) or "sort" in str(exc.value) or "advance" in str(exc.value)
        assert len(srv.requests) < 40


@pytest.mark.parametrize("case", list(CASES))
def test_search_walk_ends_async(case: str) -> None:
    async def main(url: str) -> None:
        async with AsyncClient(KEY, base_url=url) as c:
            with pytest.raises(urlscan_rs.DecodeError):
                async for _ in c.search("", size=2, parallel=1):
                    pass

    with serve(search_server(CASES[case])) as srv:
        run(main(srv.url))
        assert len(srv.requests) < 10


def test_short_last_page_without_sort_still_ends_quietly() -> None:
    # Nothing more announced: a last page without sort values is simply the end.
    with serve(search_server(lambda i: None, total=2, has_more=False)) as srv, Client(KEY, base_url=srv.url) as c:
        assert len(list(c.search("", size=100, parallel=1))) == 2


def test_hostname_walk_ends_when_page_state_repeats() -> None:
    with serve(search_server(SAME_CURSOR)) as srv, Client(KEY, base_url=srv.url) as c:
        seen = 0
        with pytest.raises(urlscan_rs.DecodeError) as exc:
            for _ in c.hostnames.history("example.com", limit=10):
                seen += 1
        assert "pageState" in str(exc.value) and seen == 2
        assert len(srv.requests) == 2

    async def main(url: str) -> None:
        async with AsyncClient(KEY, base_url=url) as ac:
            with pytest.raises(urlscan_rs.DecodeError):
                async for _ in ac.hostnames.history("example.com", limit=10):
                    pass

    with serve(search_server(SAME_CURSOR)) as srv:
        run(main(srv.url))
