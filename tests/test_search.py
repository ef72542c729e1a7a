"""Search, structure search and the phish feed; pagination rules; the query language."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import requests_served, run


def test_iterates_everything_newest_first(emu: Emulator, client: Client) -> None:
    it = client.search("", size=37)
    hits = list(it)
    assert len(hits) == 300 == it.total and it.has_more is False
    assert len({h.id for h in hits}) == 300
    keys = [tuple(h.sort) for h in hits]
    assert keys == sorted(keys, reverse=True)
    assert all(isinstance(h, urlscan_rs.SearchHit) and h.sort[1] == h.id for h in hits)
    assert client.search("").count() == 300


def test_pages_use_search_after(emu: Emulator, client: Client) -> None:
    before = requests_served(emu)
    hits = list(client.search("", size=100))
    # 3 full pages; the exact total ends the walk without an empty fourth page
    assert len(hits) == 300 and requests_served(emu) - before == 3


def test_resume_from_search_after(client: Client) -> None:
    it = client.search("", size=40)
    first = [next(it) for _ in range(55)]
    cursor = it.search_after
    assert cursor == f"{first[-1].sort[0]},{first[-1].sort[1]}"
    rest = list(client.search("", size=40, search_after=cursor))
    everything = [h.id for h in client.search("", size=100)]
    assert [h.id for h in first] + [h.id for h in rest] == everything


def test_limit(client: Client) -> None:
    it = client.search("", size=30, limit=45)
    assert len(list(it)) == 45 and it.fetched == 45


def test_async_iteration(aclient: AsyncClient) -> None:
    async def main() -> tuple[int, int]:
        it = aclient.search("", size=64)
        n = 0
        async for hit in it:
            assert hit.task.uuid == hit.id
            n += 1
        return n, await aclient.search("").count()

    assert run(main()) == (300, 300)


def test_wrong_iteration_kind(client: Client, aclient: AsyncClient) -> None:
    with pytest.raises(TypeError):
        iter(aclient.search(""))
    with pytest.raises(TypeError):
        client.search("").__aiter__()


def test_search_options_keep_their_types(client: Client, aclient: AsyncClient) -> None:
    # q takes no None in search (its default is ""); a wrong type names the keyword, as for every row's fields.
    for c in (client, aclient):
        with pytest.raises(ValidationError, match=r'^search: q takes no None \(its default is ""\)$'):
            c.search(None)  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match='^search: limit must be an integer, got "ten"$'):
            c.search("", limit="ten")  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match='^phishfeed: size must be an integer, got "10"$'):
            c.phishfeed(size="10")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="uuid must be str"):
            c.similar(5)  # type: ignore[arg-type]


def test_total_capped_at_10000() -> None:
    with Emulator(scans=10_150, seed=3) as e, e.client() as c:
        it = c.search("", size=5000)
        first = next(it)
        assert first.id and it.total == 10_000 and it.has_more is True
        assert c.search("").count() == 10_000
        # past the cap the walk goes on until the pages run dry
        assert len(list(c.search("", size=10_000))) == 10_150


def test_free_tier_page_size_is_clamped(emu: Emulator) -> None:
    free = emu.client("free")
    before = requests_served(emu)
    hits = list(free.search("", size=1000, limit=250))
    assert len(hits) == 250
    assert requests_served(emu) - before == 3  # pages of 100


def test_query_language(client: Client) -> None:
    everything = list(client.search("", size=1000))
    sample = everything[5]
    dom = sample.page.domain
    assert dom
    by_domain = list(client.search(f"page.domain:{dom}"))
    assert sample.id in {h.id for h in by_domain}
    assert all(h.page.domain.lower() == dom.lower() or h.page.domain.lower().endswith("." + dom.lower()) for h in by_domain)
    # lowercase matching
    assert {h.id for h in client.search(f"page.domain:{dom.upper()}")} == {h.id for h in by_domain}
    # NOT and OR partition the corpus
    n_api = client.search("task.method:api").count()
    n_not = client.search("NOT task.method:api").count()
    assert n_api + n_not == 300 and 0 < n_api < 300
    assert client.search("task.method:api OR task.method:manual").count() == 300
    assert client.search("(task.method:api) AND NOT (task.method:api)").count() == 0
    # dates
    week = client.search("date:>now-7d").count()
    assert 0 < week < 300
    cutoff = datetime.now(timezone.utc) - timedelta(days=7)
    assert week == sum(1 for h in everything if h.task.time > cutoff)
    # wildcards and quoted phrases
    apex = sample.page.apex_domain
    assert client.search(f"page.domain:*{apex[1:]}").count() >= 1
    assert client.search(f'page.domain:"{dom}"').count() == len(by_domain)


def test_subdomain_matching(fresh: Emulator) -> None:
    c = fresh.client()
    sub = c.scan("https://deep.sub.example-corp.com/x")
    fresh.advance(11)
    assert [h.id for h in c.search("domain:example-corp.com")] == [sub.uuid]
    assert [h.id for h in c.search("page.domain:sub.example-corp.com")] == [sub.uuid]
    assert list(c.search("page.domain:xample-corp.com")) == []


def test_malformed_query(client: Client) -> None:
    with pytest.raises(urlscan_rs.BadRequestError) as exc:
        list(client.search("page.domain:(foo OR"))
    assert exc.value.status == 400 and "parse" in exc.value.message.lower()


def test_premium_field_needs_premium(emu: Emulator) -> None:
    with pytest.raises(urlscan_rs.PermissionDeniedError) as exc:
        list(emu.client("free").search("verdicts.malicious:true"))
    assert "does not allow you to search field" in exc.value.message
    assert emu.client().search("verdicts.malicious:true").count() >= 0


def test_similar_and_phishfeed(emu: Emulator, client: Client) -> None:
    hits = list(client.search("", size=300))
    apexes = [h.page.apex_domain for h in hits]
    target = next(h for h in hits if apexes.count(h.page.apex_domain) >= 3)
    similar = list(client.similar(target.id, limit=200))
    assert similar and all(h.id != target.id for h in similar)
    assert all(h.page.apex_domain == target.page.apex_domain or h.page.title == target.page.title for h in similar)
    same_site = {h.id for h in hits if h.page.apex_domain == target.page.apex_domain} - {target.id}
    assert same_site <= {h.id for h in similar}
    feed = list(client.phishfeed(limit=50))
    assert feed and all(h.verdicts.malicious for h in feed)
    with pytest.raises(urlscan_rs.PermissionDeniedError):
        list(emu.client("free").similar(target.id))
    with pytest.raises(urlscan_rs.PermissionDeniedError):
        list(emu.client("free").phishfeed())
    with pytest.raises(urlscan_rs.NotFoundError):
        list(client.similar("00000000-0000-4000-8000-000000000000"))


def test_collapse_and_datasource(client: Client, emu: Emulator) -> None:
    page = list(client.search("", size=100, limit=100, collapse="page.domain"))
    domains = [h.page.domain for h in page]
    assert len(domains) == len(set(domains))
    hosts = list(client.search("", datasource="hostnames", limit=5))  # every data source answers
    assert len(hosts) == 5 and all(type(h).__name__ == "HostnameHit" and h.hostname for h in hosts)
    with pytest.raises(urlscan_rs.PermissionDeniedError):
        list(emu.client("free").search("", datasource="hostnames"))


def test_search_rate_limit_headers(client: Client) -> None:
    client.search("", limit=1).count()
    limits = {r["action"]: r for r in client.rate_limits}
    s = limits["search"]
    assert s["scope"] == "user" and s["window"] in ("minute", "hour", "day")
    assert s["limit"] > s["remaining"] >= 0 and s["reset_after"] >= 0


def test_rate_limit_429() -> None:
    with Emulator(scans=5, rate_limits={"search": {"minute": 2, "hour": None, "day": None}}) as e:
        c = e.client(fail_fast=True, max_retries=0)
        c.search("").count()
        c.search("").count()
        with pytest.raises(urlscan_rs.RateLimitError) as exc:
            c.search("").count()
        err = exc.value
        assert err.status in (429, 0) or err.action == "search"
        assert err.action == "search" and err.window == "minute" and err.limit == 2 and err.remaining == 0
        assert err.reset_at is not None and err.reset_at.tzinfo is not None
        e.advance(61)  # a new minute window on the emulator clock
        assert e.client(fail_fast=True).search("").count() == 5


def test_rate_limit_429_from_server() -> None:
    with Emulator(scans=5, rate_limits={"search": {"minute": 1, "hour": None, "day": None}}) as e:
        c1 = e.client(max_retries=0)
        c2 = e.client(max_retries=0)
        c1.search("").count()
        with pytest.raises(urlscan_rs.RateLimitError) as exc:
            c2.search("").count()  # c2 has not seen the headers yet: the server answers 429
        assert exc.value.status == 429 and exc.value.reset_after is not None


def test_sharded_export_keeps_the_single_walk_order(emu: Emulator, client: Client) -> None:
    """A large export walks shards concurrently; the merge gives exactly the order of one walk."""
    for q in ("", "page.domain:*", "NOT page.country:de"):
        single = [h.id for h in client.search(q, size=20, parallel=1)]
        it = client.search(q, size=20, parallel=8)
        merged = [h.id for h in it]
        assert merged == single and len(single) > 100
        assert it.total == len(single) and it.fetched == len(single)
    assert [h.id for h in client.search("", size=20, limit=133, parallel=2)] == single_limit(client, 133)


def single_limit(client: Client, n: int) -> list[str]:
    return [h.id for h in client.search("", size=20, limit=n, parallel=1)]


def test_sharded_export_resumes_exactly(client: Client) -> None:
    it = client.search("", size=25, parallel=8)
    first = [next(it).id for _ in range(111)]
    rest = [h.id for h in client.search("", size=25, search_after=it.search_after)]
    assert first + rest == [h.id for h in client.search("", size=100, parallel=1)]


def test_sharded_export_async(emu: Emulator, aclient: AsyncClient) -> None:
    async def main() -> tuple[list[str], list[str]]:
        merged = [h.id async for h in aclient.search("", size=30, parallel=4)]
        single = [h.id async for h in aclient.search("", size=30, parallel=1)]
        return merged, single

    merged, single = run(main())
    assert merged == single and len(merged) == 300


def test_sharding_falls_back_when_a_shard_answers_badly(fresh: Emulator) -> None:
    """The second search request is a shard's first page; a broken answer there means one walk instead."""
    with fresh.client() as c:
        expected = [h.id for h in c.search("", size=10, parallel=1)]
        fresh.inject("malformed", count=1, every=2, path="/api/v1/search/")
        assert [h.id for h in c.search("", size=10, parallel=8)] == expected
        assert fresh.stats()["faults"] == 1


def test_parallel_is_checked(client: Client) -> None:
    for bad in (0, 17, -1):
        with pytest.raises(urlscan_rs.ValidationError, match="parallel"):
            client.search("", parallel=bad)


def test_sharding_is_opt_in_and_automatic_when_asked_for() -> None:
    """Pages taking 30 ms: by default one walk (the query is never rewritten); parallel="auto"
    walks shards (more requests in flight), in the same order."""
    with Emulator(scans=400, seed=3, latency={"search": 0.03}) as slow:
        with slow.client() as c:
            before = slow.stats()["requests"]
            single = [h.id for h in c.search("", size=25)]
            assert slow.stats()["requests"] - before == 16  # 400 hits, 25 a page: one walk
            before = slow.stats()["requests"]
            assert [h.id for h in c.search("", size=25, parallel="auto")] == single
            # one walk takes 16 pages; 8 shards each end with a short page of their own
            assert slow.stats()["requests"] - before > 16
            with pytest.raises(ValidationError, match='parallel must be an integer or "auto", got "many"'):
                c.search("", parallel="many")  # type: ignore[arg-type]


def test_a_long_walk_reads_ahead_but_asks_for_no_page_beyond_its_end_or_limit() -> None:
    """Past its third page a walk asks for up to three pages ahead (fewer wake-ups of the
    I/O thread); a walk to the end, or to a limit, still asks for exactly the pages it reads,
    and a walk left early for at most three pages it did not read (sync and async)."""
    with Emulator(scans=1000, seed=5) as e:
        with e.client() as c:
            before = requests_served(e)
            assert len(list(c.search("", size=50))) == 1000
            assert requests_served(e) - before == 20
            before = requests_served(e)
            assert len(list(c.search("", size=50, limit=330))) == 330
            assert requests_served(e) - before == 7  # 6 pages of 50, then one of 30
            before = requests_served(e)
            it = c.search("", size=50)
            read = [next(it) for _ in range(300)]  # six pages
            assert len(read) == 300
            del it
            assert 6 <= requests_served(e) - before <= 6 + 3

        async def walk() -> tuple[int, int]:
            async with e.async_client() as ac:
                before = requests_served(e)
                ids = [h.id async for h in ac.search("", size=50, limit=330)]
                return len(ids), requests_served(e) - before

        assert run(walk()) == (330, 7)
