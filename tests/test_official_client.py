"""The official Python client (urlscan-python) works against the emulator."""

from __future__ import annotations

import io

import pytest

from urlscan_rs.testing import Emulator

urlscan = pytest.importorskip("urlscan")


def test_official_client_calls(fresh: Emulator) -> None:
    with urlscan.Client(fresh.api_key, base_url=fresh.url) as c:
        sub = c.scan("https://www.example.com/", visibility="public", tags=["official"])
        assert sub["message"] == "Submission successful"
        uuid = sub["uuid"]
        fresh.advance(fresh.scan_duration + 1)
        # its wait polls with HEAD on the result path
        c.wait_for_result(uuid, initial_wait=0, interval=0.05, timeout=5)
        result = c.get_result(uuid)
        assert result["task"]["uuid"] == uuid
        assert result["page"]["domain"] == "www.example.com"

        shot = c.get_screenshot(uuid)
        assert isinstance(shot, io.BytesIO)
        assert shot.getvalue().startswith(b"\x89PNG\r\n\x1a\n")
        assert "<html" in c.get_dom(uuid).lower()

        hits = list(c.search("page.domain:example.com", size=10))
        assert any(h["_id"] == uuid for h in hits)
        assert c.search("", size=10).count() == 51  # 50 seeded + ours

        q = c.get_quotas()
        assert q["limits"]["public"]["day"]["used"] == 1
        assert "de" in c.get_available_countries()["countries"]
        groups = c.get_user_agents()["userAgents"]
        assert groups and all("useragents" in g for g in groups)


def test_official_client_scan_and_get_result(fresh: Emulator) -> None:
    e = Emulator(scans=0, scan_duration=0.0)
    with e, urlscan.Client(e.api_key, base_url=e.url) as c:
        res = c.scan_and_get_result("https://example.net/", visibility="unlisted", initial_wait=0, interval=0.05, timeout=5)
        assert res["task"]["visibility"] == "unlisted"


def test_official_client_errors(fresh: Emulator) -> None:
    with urlscan.Client(fresh.api_key, base_url=fresh.url) as c:
        with pytest.raises(urlscan.APIError) as exc:
            c.scan("https://does-not-resolve.invalid/", visibility="public")
        assert exc.value.status == 400
        assert "DNS Error" in str(exc.value)
        with pytest.raises(urlscan.APIError) as exc2:
            c.get_result("00000000-0000-4000-8000-000000000000")
        assert exc2.value.status == 404


def test_official_pro_operations(fresh: Emulator) -> None:
    """Every operation of the official client's Pro class runs on the emulator."""
    import datetime as dt
    import hashlib
    import zipfile

    with urlscan.Pro(fresh.api_key, base_url=fresh.url) as pro, urlscan.Client(fresh.api_key, base_url=fresh.url) as c:
        assert pro.get_user()["username"]
        # scans, visibility and structure search
        uuid = c.scan("https://www.example.com/", visibility="public")["uuid"]
        fresh.advance(fresh.scan_duration + 1)
        assert pro.visibility.update(uuid, "unlisted")["visibility"] == "unlisted"
        assert pro.visibility.reset(uuid)["visibility"] == "public"
        assert isinstance(list(pro.structure_search(uuid, size=10, limit=10)), list)
        # live scanning
        scanners = pro.livescan.get_scanners()["scanners"]
        sid = scanners[0]["id"]
        live = pro.livescan.task("https://www.example.org/", scanner_id=sid, visibility="unlisted")["uuid"]
        fresh.advance(60)
        assert pro.livescan.get_resource(scanner_id=sid, resource_type="result", resource_id=live)["task"]["uuid"] == live
        assert pro.livescan.get_resource(scanner_id=sid, resource_type="screenshot", resource_id=live).startswith(b"\x89PNG")
        assert "<html" in pro.livescan.get_resource(scanner_id=sid, resource_type="dom", resource_id=live).lower()
        pro.livescan.store(scanner_id=sid, scan_id=live, visibility="unlisted")
        done = pro.livescan.scan("https://www.example.net/", scanner_id=sid)["uuid"]
        pro.livescan.purge(scanner_id=sid, scan_id=done)
        # saved searches, channels, subscriptions
        s = pro.saved_search.create(datasource="scans", query="page.domain:example.com", name="official")["search"]
        assert any(x["_id"] == s["_id"] for x in pro.saved_search.get_list()["searches"])
        pro.saved_search.update(s["_id"], datasource="scans", query="page.domain:example.org", name="official 2")
        assert isinstance(pro.saved_search.get_results(s["_id"])["results"], list)
        ch = pro.channel.create(channel_type="webhook", name="official", webhook_url="https://hooks.example.com/x")
        ch_id = (ch.get("channel") or ch)["_id"]
        assert pro.channel.get(ch_id)
        assert any((c.get("channel") or c)["_id"] == ch_id for c in pro.channel.get_channels()["channels"])
        pro.channel.update(ch_id, channel_type="webhook", name="renamed", webhook_url="https://hooks.example.com/y")
        sub = pro.subscription.create(
            search_ids=[s["_id"]],
            frequency="daily",
            email_addresses=["soc@example.com"],
            name="o",
            is_active=True,
            ignore_time=False,
        )["subscription"]
        assert any(x["_id"] == sub["_id"] for x in pro.subscription.get_subscriptions()["subscriptions"])
        pro.subscription.update(
            subscription_id=sub["_id"],
            search_ids=[s["_id"]],
            frequency="live",
            email_addresses=[],
            name="o2",
            is_active=True,
            ignore_time=True,
        )
        assert isinstance(pro.subscription.get_results(subscription_id=sub["_id"], datasource="scans")["results"], list)
        pro.subscription.delete_subscription(subscription_id=sub["_id"])
        pro.saved_search.remove(s["_id"])
        # incidents
        inc = pro.incident.create(observable="www.example.com", visibility="private", channels=[ch_id])["incident"]
        assert pro.incident.get(inc["_id"])["incident"]["_id"] == inc["_id"]
        pro.incident.update(inc["_id"], observable="www.example.com", visibility="private", channels=[ch_id], scan_interval=3600)
        assert pro.incident.get_states(inc["_id"])
        assert "ip" in str(pro.incident.get_watchable_attributes())
        pro.incident.close(incident_id=inc["_id"])
        pro.incident.restart(inc["_id"])
        # the service answers copy and fork under the plural key (reference: service-behaviour.md)
        assert pro.incident.copy(inc["_id"])["incidents"]["_id"] != inc["_id"]
        assert pro.incident.fork(inc["_id"])["incidents"]["_id"] != inc["_id"]
        # hostname history walks every page (its iterator reads pageState on the last one)
        records = list(pro.hostname("www.example.com", size=10))
        assert records and all("seen_on" in r for r in records)
        # brands, files, data dumps
        assert pro.brand.get_available_brands()
        assert pro.brand.get_brands()
        result = c.get_result(uuid)
        sha = next(h for h in result["lists"]["hashes"] if h != hashlib.sha256(b"").hexdigest())
        buf = io.BytesIO()
        pro.download_file(file_hash=sha, file=buf)
        with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
            assert hashlib.sha256(zf.read(sha, pwd=b"urlscan!")).hexdigest() == sha
        day = (dt.date.fromtimestamp(fresh.now()) - dt.timedelta(days=1)).strftime("%Y%m%d")
        files = pro.datadump.get_list(f"days/api/{day}")["files"]
        dump = io.BytesIO()
        pro.datadump.download_file(files[0]["path"], file=dump)
        assert dump.getvalue()
