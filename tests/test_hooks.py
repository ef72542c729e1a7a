"""Client(event_hooks=...): every attempt of every request and every answer reaches the hooks,
sync and async, without the API key; a hook that raises is logged and changes nothing."""

from __future__ import annotations

import logging
import pickle
from typing import Any

import pytest

from urlscan_rs import AsyncClient, Client
from urlscan_rs.hooks import HookRequest, HookResponse
from urlscan_rs.testing import Emulator

from .conftest import emulator, run

emu = emulator(scope="function", scans=20, seed=7)


class Seen:
    """What the hooks were handed, in order."""

    def __init__(self) -> None:
        self.requests: list[HookRequest] = []
        self.responses: list[HookResponse] = []

    def hooks(self) -> dict[str, Any]:
        return {"request": [self.requests.append], "response": [self.responses.append]}


def _never_the_key(seen: Seen, key: str) -> None:
    for r in [*seen.requests, *(x.request for x in seen.responses)]:
        assert key not in repr(r) and "api-key" not in {k.lower() for k in r.headers}
    for x in seen.responses:
        assert key not in repr(x.headers)


def test_each_attempt_and_each_answer_reaches_the_hooks(emu: Emulator) -> None:
    uuid = next(iter(emu.client().search("", limit=1))).id
    emu.inject("status", status=503, count=1, path=f"/api/v1/result/{uuid}/", method="GET")
    seen = Seen()
    with emu.client(event_hooks=seen.hooks()) as c:
        assert c.result(uuid).uuid == uuid
    # A 503 and its retry: two attempts, two answers, in order, each knowing the other.
    assert [(r.method, r.attempt, r.route) for r in seen.requests] == [
        ("GET", 0, "/api/v1/result/{0}/"),
        ("GET", 1, "/api/v1/result/{0}/"),
    ]
    assert all(r.url == f"{emu.url}/api/v1/result/{uuid}/" for r in seen.requests)
    assert [(x.status_code, x.attempt, x.request.attempt) for x in seen.responses] == [(503, 0, 0), (200, 1, 1)]
    assert all(x.elapsed >= 0 and x.headers for x in seen.responses)
    _never_the_key(seen, emu.api_key)


def test_a_search_is_told_with_its_action_and_query(emu: Emulator) -> None:
    seen = Seen()
    with emu.client(event_hooks=seen.hooks()) as c:
        assert len(list(c.search("page.domain:*", size=5, limit=12))) == 12
    pages = [r for r in seen.requests if r.route == "/api/v1/search/"]
    assert len(pages) == 3 and all(r.action == "search" for r in pages)
    assert "q=page.domain%3A*" in pages[0].url and "size=5" in pages[0].url
    assert [x.headers.get("x-rate-limit-action") for x in seen.responses] == ["search"] * len(seen.responses)
    _never_the_key(seen, emu.api_key)


def test_async_clients_call_the_same_hooks(emu: Emulator) -> None:
    seen = Seen()
    uuid = next(iter(emu.client().search("", limit=1))).id

    async def main() -> str:
        async with emu.async_client(event_hooks=seen.hooks()) as c:
            return str((await c.result(uuid)).uuid)

    assert run(main()) == uuid
    assert [r.route for r in seen.requests] == ["/api/v1/result/{0}/"]
    assert [x.status_code for x in seen.responses] == [200]
    _never_the_key(seen, emu.api_key)


def test_a_hook_that_raises_is_logged_and_changes_nothing(emu: Emulator, caplog: pytest.LogCaptureFixture) -> None:
    def broken(_: object) -> None:
        raise RuntimeError("hook broke")

    seen = Seen()
    hooks = {"request": [broken, seen.requests.append], "response": [broken]}
    with caplog.at_level(logging.WARNING, logger="urlscan_rs"), emu.client(event_hooks=hooks) as c:
        assert c.quotas() is not None
    assert len(seen.requests) == 1  # the hooks after it still ran
    assert sum("hook broke" in r.getMessage() for r in caplog.records) == 2


def test_hooks_are_plain_functions_in_lists() -> None:
    async def later(_: object) -> None: ...

    key = "00000000-0000-4000-8000-000000000000"
    for bad, error, message in [
        ({"request": [later]}, TypeError, "is async; hooks are plain functions"),
        ({"request": later}, TypeError, "must be a list of functions"),
        ({"request": [5]}, TypeError, "not callable"),
        ({"sent": [print]}, ValueError, 'takes the keys "request" and "response"'),
        ([print], TypeError, "must be a dict"),
    ]:
        for cls in (Client, AsyncClient):
            with pytest.raises(error, match=message):
                cls(key, base_url="http://127.0.0.1:9", event_hooks=bad)  # type: ignore[arg-type]


def test_a_pickled_client_leaves_its_hooks_behind(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = Seen()
    monkeypatch.setenv("URLSCAN_API_KEY", emu.api_key)
    with emu.client(event_hooks=seen.hooks()) as c:
        with pickle.loads(pickle.dumps(c)) as copy:
            copy.quotas()
    assert seen.requests == []
