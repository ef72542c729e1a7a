"""Webhooks received in a web application: the ASGI app mounted in Starlette under uvicorn and
the WSGI app under wsgiref, each receiving the emulator's deliveries over real HTTP."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest

from urlscan_rs import webhooks
from urlscan_rs.models import Notification, ScanResult
from urlscan_rs.testing import Emulator

from .conftest import subscribe

uvicorn = pytest.importorskip("uvicorn")
starlette_apps = pytest.importorskip("starlette.applications")
from starlette.routing import Mount  # noqa: E402

TOKEN = "s3cret-token-0123456789"


class Calls:
    """What the handler was given; it raises for the first `fail` calls."""

    def __init__(self, fail: int = 0) -> None:
        self.notes: list[Notification] = []
        self.results: list[list[ScanResult]] = []
        self.fail = fail
        self.event = threading.Event()

    def __call__(self, note: Notification, results: list[ScanResult] | None = None) -> None:
        if self.fail:
            self.fail -= 1
            raise RuntimeError("the playbook broke")
        self.notes.append(note)
        if results is not None:
            self.results.append(results)
        self.event.set()


def _uvicorn(**config: Any) -> Iterator[Callable[[Any], str]]:
    """Serve apps under uvicorn on loopback (``config``: its options); gives each one's base URL."""
    servers: list[Any] = []

    def serve(app: Any) -> str:
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", **config))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
        for _ in range(500):
            if server.started:
                break
            threading.Event().wait(0.01)
        assert server.started, "uvicorn did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    yield serve
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def asgi() -> Iterator[Callable[..., str]]:
    """Serve an ASGI app mounted at /urlscan in Starlette under uvicorn; gives its base URL."""
    servers = _uvicorn(lifespan="on")
    serve = next(servers)
    yield lambda app: serve(starlette_apps.Starlette(routes=[Mount("/urlscan", app)])) + "/urlscan"
    next(servers, None)


@pytest.fixture
def wsgi() -> Iterator[Callable[..., str]]:
    servers: list[Any] = []

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    def serve(app: Any) -> str:
        httpd = make_server("127.0.0.1", 0, app, handler_class=Quiet)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_port}"

    yield serve
    for httpd in servers:
        httpd.shutdown()


def post(url: str, body: bytes, method: str = "POST") -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=body if method == "POST" else None, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def deliver_one(emu: Emulator, webhook_url: str) -> None:
    """A live subscription with a webhook channel at `webhook_url`, and a scan it matches."""
    c = emu.client()
    ch = c.channels.create(type="webhook", name="app", webhook_url=webhook_url)
    subscribe(c, "page.domain:*paypal*", ch.id)
    c.scan("https://paypal-login.example.net/")
    emu.advance(60)


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_the_emulators_delivery_reaches_the_handler_and_a_failure_is_retried(
    kind: str, asgi: Callable[..., str], wsgi: Callable[..., str]
) -> None:
    calls = Calls(fail=1)
    make = webhooks.asgi_app if kind == "asgi" else webhooks.wsgi_app
    base = (asgi if kind == "asgi" else wsgi)(make(calls, token=TOKEN))
    with Emulator(scans=20, seed=3) as emu:
        deliver_one(emu, f"{base}/{TOKEN}")
        for _ in range(200):  # the first attempt is answered 500 (the handler raised)
            if emu.deliveries:
                break
            threading.Event().wait(0.05)
        assert emu.deliveries and emu.deliveries[0].status == 500
        emu.advance(10)  # the service's retry, with the same id
        assert calls.event.wait(10), "the retried delivery did not reach the handler"
        [note] = calls.notes
        assert note.id == emu.deliveries[0].notification.id
        assert note.results and note.results[0].page.domain == "paypal-login.example.net"
        for _ in range(200):
            if len(emu.deliveries) >= 2:
                break
            threading.Event().wait(0.05)
        assert [d.status for d in emu.deliveries] == [500, 200]
        # The same delivery again (a retry after a lost answer): answered 200, dropped.
        body = json.dumps(emu.deliveries[0].notification.raw).encode()
        assert post(f"{base}/{TOKEN}", body) == (200, {"ok": True, "status": 200, "reason": "already handled"})
        assert len(calls.notes) == 1


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_wrong_path_method_sender_and_body_are_refused(kind: str, asgi: Callable[..., str], wsgi: Callable[..., str]) -> None:
    calls = Calls()
    make = webhooks.asgi_app if kind == "asgi" else webhooks.wsgi_app
    serve = asgi if kind == "asgi" else wsgi
    base = serve(make(calls, token=TOKEN))
    assert post(f"{base}/wrong-token-0123456789", b"{}")[0] == 404
    assert post(f"{base}/", b"{}")[0] == 404
    assert post(f"{base}/{TOKEN}", b"", method="GET")[0] == 405
    status, answer = post(f"{base}/{TOKEN}", b"not json")
    assert status == 400 and answer["reason"]
    status, answer = post(f"{base}/{TOKEN}", json.dumps({"id": "x", "type": "other", "results": []}).encode())
    assert status == 400 and "type" in answer["reason"]
    assert calls.notes == []
    closed = serve(make(calls, token=TOKEN, allow=["10.0.0.0/8"]))
    assert post(f"{closed}/{TOKEN}", b"{}")[0] == 403
    small = serve(make(calls, token=TOKEN, max_body=10))
    assert post(f"{small}/{TOKEN}", b"x" * 100)[0] == 413
    with pytest.raises(ValueError, match="token"):
        make(calls, token="short")


def test_verify_reads_the_scans_through_the_api(asgi: Callable[..., str]) -> None:
    calls = Calls()
    with Emulator(scans=20, seed=3) as emu, emu.client() as client:
        base = asgi(webhooks.asgi_app(calls, token=TOKEN, verify=client))
        deliver_one(emu, f"{base}/{TOKEN}")
        assert calls.event.wait(10)
        [note], [results] = calls.notes, calls.results
        assert [r.uuid for r in results] == [h.uuid for h in note.results]
        assert all(isinstance(r, ScanResult) for r in results)
        forged = dict(note.raw, id="0123456789abcdef01234567")
        forged["results"] = [dict(note.raw["results"][0], _id="00000000-0000-4000-8000-000000000000")]
        forged["results"][0]["task"] = dict(forged["results"][0]["task"], uuid="00000000-0000-4000-8000-000000000000")
        status, answer = post(f"{base}/{TOKEN}", json.dumps(forged).encode())
        assert status == 400 and "unknown to the API" in answer["reason"]
        assert len(calls.notes) == 1


def test_an_async_handler_is_awaited(asgi: Callable[..., str]) -> None:
    got: list[str] = []
    done = threading.Event()

    async def handler(note: Notification) -> None:
        got.append(note.id)
        done.set()

    with Emulator(scans=20, seed=3) as emu:
        base = asgi(webhooks.asgi_app(handler, token=TOKEN))
        deliver_one(emu, f"{base}/{TOKEN}")
        assert done.wait(10) and got == [emu.notifications[0].id]


def _forged(note: Notification, uuid: str, nid: str) -> bytes:
    """The delivery `note`, re-addressed to scan `uuid` under delivery id `nid`."""
    raw = dict(note.raw, id=nid)
    hit = dict(note.raw["results"][0], _id=uuid)
    hit["task"] = dict(hit["task"], uuid=uuid)
    raw["results"] = [hit]
    return json.dumps(raw).encode()


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_verify_asks_for_a_retry_of_a_scan_still_running_and_drops_an_impossible_one(
    kind: str, asgi: Callable[..., str], wsgi: Callable[..., str]
) -> None:
    calls = Calls()
    with Emulator(scans=20, seed=3, scan_duration=600) as emu, emu.client() as client:
        make = webhooks.asgi_app if kind == "asgi" else webhooks.wsgi_app
        base = (asgi if kind == "asgi" else wsgi)(make(calls, token=TOKEN, verify=client))
        deliver_one(emu, f"{base}/{TOKEN}")
        emu.advance(600)  # the scan that matches finishes: the delivery goes out
        assert calls.event.wait(10)
        [note] = calls.notes
        running = client.scan("https://www.example.org/still-running").uuid
        # A scan that exists and has not finished: 503, so the service delivers again.
        status, answer = post(f"{base}/{TOKEN}", _forged(note, running, "0123456789abcdef0000000a"))
        assert status == 503 and "has not finished yet" in answer["reason"]
        # Once it has, the same delivery is handed over.
        emu.advance(601)
        assert post(f"{base}/{TOKEN}", _forged(note, running, "0123456789abcdef0000000a"))[0] == 200
        # A uuid no scan can have: 400 at once, never retried for ever.
        status, answer = post(f"{base}/{TOKEN}", _forged(note, "../../api/v1/quotas", "0123456789abcdef0000000b"))
        assert status == 400 and "impossible scan" in answer["reason"]
        assert [n.id for n in calls.notes] == [note.id, "0123456789abcdef0000000a"]


def _post_from(url: str, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url, data=b"{}", method="POST", headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_allow_checks_the_socket_peer_under_uvicorns_default_proxy_headers(asgi: Callable[..., str]) -> None:
    # uvicorn trusts X-Forwarded-For from 127.0.0.1 by default and rewrites the client address:
    # a loopback sender naming an allowed address must still be refused.
    calls = Calls()
    base = asgi(webhooks.asgi_app(calls, token=TOKEN, allow=["203.0.113.0/24"]))
    for header in ({"X-Forwarded-For": "203.0.113.9"}, {"Forwarded": "for=203.0.113.9"}, {"X-Real-IP": "203.0.113.9"}):
        assert _post_from(f"{base}/{TOKEN}", header) == 403, header
    # Loopback itself, allowed, with no forwarding header: let through (400: an empty body).
    opened = asgi(webhooks.asgi_app(calls, token=TOKEN, allow=["127.0.0.0/8"]))
    assert _post_from(f"{opened}/{TOKEN}", {}) == 400
    # The same sender through a named proxy: the server's rewrite is refused (the real peer is unknown).
    trusted = asgi(webhooks.asgi_app(calls, token=TOKEN, allow=["203.0.113.0/24"], trusted_proxies=["127.0.0.1"]))
    assert _post_from(f"{trusted}/{TOKEN}", {"X-Forwarded-For": "203.0.113.9"}) == 403


@pytest.fixture
def asgi_plain() -> Iterator[Callable[..., str]]:
    """uvicorn with its proxy-header handling off, as the module's documentation asks."""
    yield from _uvicorn(proxy_headers=False)


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_trusted_proxies_name_who_may_say_who_sent(kind: str, asgi_plain: Callable[..., str], wsgi: Callable[..., str]) -> None:
    calls = Calls()
    make = webhooks.asgi_app if kind == "asgi" else webhooks.wsgi_app
    serve = asgi_plain if kind == "asgi" else wsgi
    base = serve(make(calls, token=TOKEN, allow=["203.0.113.0/24"], trusted_proxies=["127.0.0.1"]))
    url = f"{base}/{TOKEN}"
    assert _post_from(url, {"X-Forwarded-For": "203.0.113.9"}) == 400  # let through: the body is not a notification
    assert _post_from(url, {"X-Forwarded-For": "203.0.113.9, 198.51.100.7"}) == 403  # the last untrusted hop is outside
    # Another header a client sent through the proxy names nobody: only X-Forwarded-For is read.
    assert _post_from(url, {"X-Forwarded-For": "198.51.100.7", "X-Real-IP": "203.0.113.9"}) == 403
    assert _post_from(url, {"X-Forwarded-For": "198.51.100.7", "Forwarded": "for=203.0.113.9"}) == 403
    assert _post_from(url, {}) == 403  # the proxy itself is not an allowed sender
    # Without trusted_proxies a forwarded request cannot be told apart: refused.
    closed = serve(make(calls, token=TOKEN, allow=["203.0.113.0/24", "127.0.0.0/8"]))
    assert _post_from(f"{closed}/{TOKEN}", {"X-Forwarded-For": "203.0.113.9"}) == 403
    assert _post_from(f"{closed}/{TOKEN}", {}) == 400


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_allow_entries_are_normalised(kind: str, asgi_plain: Callable[..., str], wsgi: Callable[..., str]) -> None:
    calls = Calls()
    make = webhooks.asgi_app if kind == "asgi" else webhooks.wsgi_app
    serve = asgi_plain if kind == "asgi" else wsgi
    base = serve(make(calls, token=TOKEN, allow=["::ffff:127.0.0.1", " ::ffff:10.0.0.0/104 "]))
    assert _post_from(f"{base}/{TOKEN}", {}) == 400  # the IPv4-mapped entry matches the IPv4 sender
    with pytest.raises(ValueError, match="allow: 'nonsense' is not an address or network"):
        make(calls, token=TOKEN, allow=["nonsense"])


def test_wsgi_refuses_an_async_client_at_construction() -> None:
    with Emulator(scans=5, seed=1) as emu:
        ac = emu.async_client()
        try:
            with pytest.raises(TypeError, match="takes a Client"):
                webhooks.wsgi_app(Calls(), token=TOKEN, verify=ac)
        finally:
            ac.close()
