"""The malicious lookup (GET /api/v1/malicious/{type}/{value}, urlscan Pro), both clients and the
official one, against the emulator's answer computed from its scans."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import urlscan

from urlscan_rs import MaliciousObservable, PermissionDeniedError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import run

PHISH = "https://paypal-securelogin.example/signin?token=abc"


@pytest.fixture(scope="module")
def seen() -> Iterator[tuple[Emulator, Any]]:
    """An emulator where one phishing URL was scanned twice (an hour apart) and a clean one once."""
    with Emulator(scans=0, scan_duration=1.0) as e, e.client() as c:
        first = c.scan(PHISH)
        e.advance(3600)
        c.scan(PHISH.replace("abc", "def"))
        c.scan("https://www.example.org/")
        e.advance(10)
        result = c.result(str(first.uuid))
        assert result.verdicts.overall.malicious is True
        yield e, result


def test_an_observable_malicious_scans_showed(seen: tuple[Emulator, Any]) -> None:
    e, result = seen
    with e.client() as c:
        m = c.malicious("url", "http://PayPal-SecureLogin.example/signin?other=1")
        assert isinstance(m, MaliciousObservable)
        # The URL is looked up without its scheme and query.
        assert (m.type, m.observable, m.count) == ("url", "paypal-securelogin.example/signin", 2)
        assert isinstance(m.first_seen, datetime) and isinstance(m.last_seen, datetime)
        assert (m.last_seen - m.first_seen).total_seconds() == pytest.approx(3600, abs=1)
        assert m.first_seen == result.task.time
        assert c.malicious("hostname", "paypal-securelogin.example").count == 2
        assert c.malicious("domain", result.page.apex_domain).count >= 2
        assert c.malicious("ip", result.page.ip).count >= 1


def test_an_observable_no_malicious_scan_showed(seen: tuple[Emulator, Any]) -> None:
    e, _ = seen
    with e.client() as c:
        for kind, value in [("hostname", "www.example.org"), ("url", "https://never.example/x"), ("ip", "192.0.2.1")]:
            m = c.malicious(kind, value)
            assert (m.count, m.first_seen, m.last_seen) == (0, None, None), (kind, m)


def test_async_and_bad_input(seen: tuple[Emulator, Any]) -> None:
    e, _ = seen

    async def main() -> Any:
        async with e.async_client() as c:
            return await c.malicious("hostname", "paypal-securelogin.example")

    assert run(main()).count == 2
    with e.client() as c:
        before = e.stats()["requests"]
        with pytest.raises(ValidationError, match="type"):
            c.malicious("email", "x@example.com")
        with pytest.raises(ValidationError):
            c.malicious("hostname", "not a host")
        assert e.stats()["requests"] == before  # checked before anything was sent
    # urlscan Pro: a free key is refused.
    with e.client("free") as c, pytest.raises(PermissionDeniedError):
        c.malicious("hostname", "paypal-securelogin.example")


def test_the_official_clients_lookup(seen: tuple[Emulator, Any]) -> None:
    e, _ = seen
    with urlscan.Pro(e.api_key, base_url=e.url) as pro:
        got = pro.lookup_malicious_observable("url", PHISH)
    # What its own live test asserts: the type, and the observable within the value given.
    assert got["type"] == "url" and got["observable"] in PHISH and got["count"] == 2


def test_a_lookup_asks_the_malicious_lookup_first_and_spares_the_scan(seen: tuple[Emulator, Any]) -> None:
    e, _ = seen
    with e.client() as c:
        before = e.stats()["submissions"]
        lk = c.lookup_or_scan(PHISH.replace("abc", "xyz"), check_malicious=True, initial_wait=0)
        # Known malicious: neither searched for nor scanned again.
        assert lk.ok and lk.result is None and lk.uuid is None and lk.reused is None
        assert isinstance(lk.malicious, MaliciousObservable) and lk.malicious.count == 2
        assert e.stats()["submissions"] == before
        # Unknown to it: looked up (and here reused) as without the check, its answer kept.
        clean = c.lookup_or_scan("https://www.example.org/", check_malicious=True)
        assert clean.reused is True and clean.result is not None
        assert clean.malicious is not None and clean.malicious.count == 0
        assert c.lookup_or_scan("https://www.example.org/").malicious is None
        assert e.stats()["submissions"] == before

    async def many() -> Any:
        async with e.async_client() as c:
            return await c.lookup_or_scan_many([PHISH, "https://www.example.org/"], check_malicious=True)

    known, reused = run(many())
    assert known.malicious.count == 2 and known.result is None
    assert reused.malicious.count == 0 and reused.reused is True
    assert e.stats()["submissions"] == before
