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
