"""Account endpoints and API-key handling, sync and async."""

from __future__ import annotations

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client
from urlscan_rs.testing import Emulator

from .conftest import run


def test_quotas_and_user(client: Client) -> None:
    q = client.quotas()
    assert isinstance(q, urlscan_rs.Quotas)
    assert q.scope == "team"
    assert q.limits["search"]["minute"]["limit"] > 0
    assert q.remaining("public", "day") == q.limits["public"]["day"]["remaining"]
    # The repr says what is left of each action's day, not only the scope.
    day = q.limits["public"]["day"]
    assert f"public={day['remaining']}/{day['limit']}" in repr(q) and "scope='team'" in repr(q)
    assert repr(urlscan_rs.Quotas({})) == "Quotas(scope=None, left today: unknown)"
    u = client.user()
    assert u.username == "analyst"
    assert u.team is not None and u.team.name == "blue-team"
    assert "pro" in u.products
    assert u.created_at is not None and u.created_at.tzinfo is not None


def test_async_account(aclient: AsyncClient) -> None:
    async def main() -> None:
        q = await aclient.quotas()
        assert q.scope == "team"
        u = await aclient.user()
        assert u.email == "analyst@example.com"
        countries = await aclient.available_countries()
        assert "de" in countries and all(len(c) == 2 and c == c.lower() for c in countries)
        groups = await aclient.user_agents()
        assert groups[0].group == "Chrome"

    run(main())


def test_countries_and_user_agents(client: Client) -> None:
    countries = client.available_countries()
    assert isinstance(countries, list) and "us" in countries
    groups = client.user_agents()
    assert {g.group for g in groups} >= {"Chrome", "iOS"}
    assert all(isinstance(ua, str) and ua.startswith("Mozilla/") for g in groups for ua in g.useragents)


def test_missing_key(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("URLSCAN_API_KEY", raising=False)
    with Client(base_url=emu.url) as c:
        # calls that need a key fail before sending, naming where a key comes from
        with pytest.raises(urlscan_rs.AuthenticationError) as exc:
            c.quotas()
        assert exc.value.status == 401
        assert "URLSCAN_API_KEY" in exc.value.message and "not sent" in exc.value.message
        with pytest.raises(urlscan_rs.AuthenticationError):
            c.result("00000000-0000-4000-8000-000000000000")
        # search works anonymously
        assert c.search("", size=5, limit=5).count() > 0


def test_malformed_and_unknown_key(emu: Emulator) -> None:
    with Client("not-a-uuid", base_url=emu.url) as c:
        with pytest.raises(urlscan_rs.AuthenticationError) as exc:
            c.search("", limit=1).count()  # even anonymous endpoints check the format
        assert exc.value.message.startswith("Invalid API key format") and exc.value.status == 400
    with Client("00000000-0000-4000-8000-000000000000", base_url=emu.url) as c:
        with pytest.raises(urlscan_rs.AuthenticationError) as exc2:
            c.user()
        assert "not found in database" in exc2.value.message


def test_env_fallbacks(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_API_KEY", emu.api_key)
    monkeypatch.setenv("URLSCAN_BASE_URL", emu.url)
    with Client() as c:
        assert c.base_url == emu.url
        assert c.user().username == "analyst"


def test_key_kinds(emu: Emulator) -> None:
    assert set(emu.keys) == {"premium", "team", "readonly", "free", "other"}
    assert emu.client("free").user().products == []
    assert emu.client("team").user().username == "teammate"


def test_api_key_never_printed(emu: Emulator) -> None:
    key = emu.api_key
    c = emu.client()
    assert key not in repr(c) and key not in str(c)
    try:
        c.result("00000000-0000-4000-8000-000000000000")
    except urlscan_rs.UrlscanError as e:
        assert key not in str(e) and key not in repr(e) and key not in repr(vars(e))


def test_bad_client_options() -> None:
    with pytest.raises(urlscan_rs.ValidationError):
        Client("k", base_url="ftp://example.com")
    with pytest.raises(urlscan_rs.ValidationError):
        Client("k", base_url="http://127.0.0.1:1", timeout=0)
    with pytest.raises(urlscan_rs.ValidationError):
        Client("k", base_url="http://127.0.0.1:1", max_retries=-1)
