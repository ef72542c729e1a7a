"""The service's webhooks received inside your own web application.

:func:`asgi_app` is an ASGI application (mount it under Starlette, FastAPI or
any ASGI server) and :func:`wsgi_app` a WSGI one (Flask, Django, any WSGI
server). Each answers ``POST /<token>`` relative to where it is mounted and
hands every new notification to your handler::

    from starlette.applications import Starlette
    from starlette.routing import Mount
    from urlscan_rs import webhooks

    async def on_notification(note):            # or a plain function (run in a thread)
        for hit in note.results:
            await triage(hit.task.url)

    app = Starlette(routes=[Mount("/urlscan", webhooks.asgi_app(on_notification, token=SECRET))])
    # the channel's webhook URL: https://soc.example.com/urlscan/<SECRET>

The service does not sign deliveries, so the secret token in the path is
what keeps others out; ``allow`` narrows senders to networks, and
``verify=client`` re-reads each referenced scan through the API, so what the
handler acts on comes from the API, not from the request body.

``allow`` checks the socket peer, whatever the server's own proxy-header
settings: a request carrying ``X-Forwarded-For``, ``Forwarded`` or
``X-Real-IP`` is refused unless ``trusted_proxies`` names the proxies in front
of the app; then the sender is the last address of the chain that is not a
trusted proxy (read from X-Forwarded-For alone, the header proxies append
to). A server that rewrote the peer from those headers (uvicorn
does by default for 127.0.0.1) is refused too, since the real peer is then
unknown: run it without (``uvicorn --no-proxy-headers``) and name the proxies
here. Addresses are compared normalised (``::ffff:192.0.2.1`` is
``192.0.2.1``, in ``allow`` too).

Answers:

- ``200``: handed over (or a repeated delivery id, dropped: the service
  retries with the same id);
- ``400``: a body that is not a notification (with the reason), or, with
  ``verify``, naming a scan the API does not know or an impossible uuid;
  never handed over, and not retried; ``403`` a sender outside ``allow``;
  ``404`` any other path; ``405`` another method; ``413`` a body over
  ``max_body`` bytes;
- ``500``: the handler raised (the service then retries); ``503`` the same id
  is being handled right now, or, with ``verify``, a scan that has not
  finished yet or an API that could not be asked (retried later).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextvars
import dataclasses
import hmac
import inspect
import ipaddress
import json
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable, MutableMapping
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from .errors import DecodeError, NotFoundError, ScanPendingError, UrlscanError, ValidationError
from .events import parse_notification
from .models import Notification

__all__ = ["asgi_app", "wsgi_app"]

Handler = Callable[..., Any]
_log = logging.getLogger("urlscan_rs.webhooks")
# The ASGI interface's shapes (asgiref's names).
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]
_MAX_BODY = 10 << 20
_T = TypeVar("_T")


class _Receiver:
    """What both apps share: the checks, the parse, the de-duplication."""

    def __init__(
        self,
        handler: Handler,
        token: str,
        allow: Iterable[str] | None,
        verify: Any,
        dedupe: int,
        max_body: int,
        trusted_proxies: Iterable[str] | None = None,
    ) -> None:
        if not callable(handler):
            raise TypeError(f"handler must be callable, got {type(handler).__name__}")
        if not isinstance(token, str) or len(token) < 16 or "/" in token:
            raise ValidationError("token must be a secret of at least 16 characters without '/' (e.g. secrets.token_urlsafe())")
        if isinstance(dedupe, bool) or not isinstance(dedupe, int) or dedupe < 0:
            raise ValidationError(f"dedupe must be a whole number of ids to remember (0: none), got {dedupe!r}")
        if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 0:
            raise ValidationError(f"max_body must be a whole number of bytes, got {max_body!r}")
        self.handler = handler
        self.path = "/" + token
        self.allow = _networks("allow", allow)
        self.trusted = _networks("trusted_proxies", trusted_proxies)
        self.verify = verify
        self.dedupe = dedupe
        self.max_body = max_body
        self.seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        self.busy: set[str] = set()
        self.lock = threading.Lock()

    def route(self, method: str, path: str, remote: str | None, forwarded: _Forwarded | None = None) -> tuple[int, str] | None:
        """An early answer for the request line, or None to read the body;
        `forwarded`, what the request's forwarding headers name."""
        # Compared in constant time: the token is the only secret a delivery carries.
        if not hmac.compare_digest((path.rstrip("/") or "/").encode(), self.path.encode()):
            return 404, "not found"
        if self.allow is not None:
            sender = self.sender(remote, forwarded or _Forwarded())
            if isinstance(sender, tuple):
                return sender
            if sender is None or not any(sender in net for net in self.allow):
                return 403, "sender not allowed"
        if method != "POST":
            return 405, "POST only"
        return None

    def sender(self, remote: str | None, forwarded: _Forwarded) -> _Address | None | tuple[int, str]:
        """The address `allow` is checked against, or a refusal."""
        peer = _address(remote)
        if not forwarded.any:
            return peer
        named = [_address(a) for a in forwarded.every]
        if peer is not None and peer in named:
            return 403, (
                "the server took the sender from a forwarding header (the real peer is unknown): turn that off "
                "(uvicorn --no-proxy-headers) and name your proxies in trusted_proxies="
            )
        if self.trusted is None:
            return 403, "a forwarded request (X-Forwarded-For, Forwarded or X-Real-IP) needs trusted_proxies= naming the proxies"
        if peer is None or not any(peer in net for net in self.trusted):
            return peer  # not through a trusted proxy: the headers are the sender's own claim
        # Only X-Forwarded-For, the header proxies append to, read from its end: a client can
        # send any other header through the proxy unchanged.
        chain = [_address(a) for a in forwarded.chain]
        for hop in reversed(chain):
            if hop is None or not any(hop in net for net in self.trusted):
                return hop
        return chain[0] if chain else peer

    def parse(self, body: bytes) -> Notification | tuple[int, str]:
        try:
            return parse_notification(body)
        except DecodeError as e:
            return 400, str(e)

    def claim(self, nid: str) -> int | None:
        """None to handle `nid`; else the answer (200: seen before, 503: being handled)."""
        with self.lock:
            if nid in self.seen:
                self.seen.move_to_end(nid)
                return 200
            if nid in self.busy:
                return 503
            self.busy.add(nid)
            return None

    def release(self, nid: str, handled: bool) -> None:
        with self.lock:
            self.busy.discard(nid)
            if handled and self.dedupe:
                self.seen[nid] = None
                while len(self.seen) > self.dedupe:
                    self.seen.popitem(last=False)

    async def verified(
        self, note: Notification, read: Callable[[list[str]], Awaitable[list[Any]]]
    ) -> tuple[Any, ...] | tuple[int, str]:
        """The handler's arguments (with ``verify``, the scans read through the API), or the answer."""
        if self.verify is None:
            return (note,)
        try:
            return (note, await read(self.uuids(note)))
        except ScanPendingError as e:  # it exists: the service delivers again later
            return 503, f"a scan the delivery names has not finished yet: {e}"
        except NotFoundError as e:
            return 400, f"a scan the delivery names is unknown to the API: {e}"
        except ValidationError as e:  # no such scan can exist: a retry cannot help
            return 400, f"the delivery names an impossible scan: {e}"
        except UrlscanError as e:
            return 503, f"the API could not be asked: {e}"

    def uuids(self, note: Notification) -> list[str]:
        return [str(h.uuid) for h in note.results or [] if getattr(h, "uuid", None)]


_Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# The headers a proxy names the sender in.
_FORWARDING = (b"x-forwarded-for", b"forwarded", b"x-real-ip")


def _networks(name: str, entries: Iterable[str] | None) -> list[_Network] | None:
    """Networks as given, normalised: an IPv4-mapped IPv6 network is the IPv4 one."""
    if entries is None:
        return None
    if isinstance(entries, str):
        entries = [entries]
    try:
        given = list(entries)
    except TypeError:
        raise ValidationError(f"{name} must be a list of addresses or networks, got {type(entries).__name__}") from None
    out: list[_Network] = []
    for entry in given:
        try:
            net = ipaddress.ip_network(str(entry).strip(), strict=False)
        except ValueError as e:
            raise ValidationError(f"{name}: {entry!r} is not an address or network ({e})") from None
        if isinstance(net, ipaddress.IPv6Network) and net.network_address.ipv4_mapped is not None and net.prefixlen >= 96:
            net = ipaddress.IPv4Network(f"{net.network_address.ipv4_mapped}/{net.prefixlen - 96}")
        out.append(net)
    return out


def _address(text: str | None) -> _Address | None:
    """An address as a server or a header gives it (a port, brackets, a zone, the
    Forwarded header's ``for="..."``), normalised; None when it is not one."""
    if not text:
        return None
    t = text.strip().strip('"')
    if t.lower().startswith("for="):
        t = t[4:].strip('"')
    if t.startswith("["):
        t = t[1 : t.find("]")] if "]" in t else t[1:]
    elif t.count(":") == 1:
        t = t.split(":", 1)[0]  # an IPv4 address with a port
    try:
        addr = ipaddress.ip_address(t.split("%", 1)[0])
    except ValueError:
        return None
    # A dual-stack server reports an IPv4 sender as ::ffff:a.b.c.d.
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


@dataclasses.dataclass
class _Forwarded:
    """What a request's forwarding headers say: ``chain``, the addresses of
    X-Forwarded-For in order (the one a sender is read from), and ``every``
    address any of them names (to see whether the server rewrote the peer)."""

    chain: list[str] = dataclasses.field(default_factory=list)
    every: list[str] = dataclasses.field(default_factory=list)
    any: bool = False


def _forwarded(headers: Iterable[tuple[bytes, bytes]]) -> _Forwarded:
    out = _Forwarded()
    for name, value in headers:
        name = name.lower()
        if name not in _FORWARDING:
            continue
        out.any = True
        for part in value.decode("latin-1").split(","):
            if name == b"forwarded":
                out.every.extend(p.strip() for p in part.split(";") if p.strip().lower().startswith("for="))
            elif part.strip():
                out.every.append(part.strip())
                if name == b"x-forwarded-for":
                    out.chain.append(part.strip())
    return out


def _answer(status: int, reason: str) -> tuple[bytes, list[tuple[str, str]]]:
    """The body and headers of an answer."""
    payload = json.dumps({"ok": 200 <= status < 300, "status": status, "reason": reason}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))]
    if status == 405:
        headers.append(("Allow", "POST"))
    if status == 503:
        headers.append(("Retry-After", "10"))
    return payload, headers


def asgi_app(
    handler: Handler,
    *,
    token: str,
    allow: Iterable[str] | None = None,
    verify: Any = None,
    dedupe: int = 10_000,
    max_body: int = _MAX_BODY,
    trusted_proxies: Iterable[str] | None = None,
) -> ASGIApp:
    """An ASGI application receiving the service's webhooks on ``POST /<token>``.

    Parameters:
        handler: Called with each new :class:`~urlscan_rs.models.Notification`
            (an ``async def`` is awaited, a plain function runs in a thread);
            with ``verify``, called as ``handler(notification, results)``.
            Raising answers 500, so the service delivers again.
        token: The secret path segment (at least 16 characters; put it in the
            channel's webhook URL).
        allow: Networks allowed to deliver (``["203.0.113.0/24"]``), checked
            against the socket peer (see the module's documentation); None: any.
        verify: A :class:`~urlscan_rs.Client` or :class:`~urlscan_rs.AsyncClient`:
            each hit's scan is read through the API first and the handler gets
            those results (a :class:`~urlscan_rs.models.ScanResult` list, in
            the order of ``notification.results``); a scan the API does not
            know makes the delivery a 400.
        dedupe: How many delivery ids to remember (a repeated one is answered
            200 and dropped); 0 remembers none.
        max_body: The largest body taken, in bytes.
        trusted_proxies: The reverse proxies in front of the app (addresses or
            networks): only through them do forwarding headers name the sender.
    """
    r = _Receiver(handler, token, allow, verify, dedupe, max_body, trusted_proxies)

    async def call_handler(note: Notification) -> tuple[int, str]:
        args = await r.verified(note, lambda uuids: _read_scans(r.verify, uuids))
        if isinstance(args[0], int):  # an answer (status, reason), not the handler's arguments
            return args
        if inspect.iscoroutinefunction(r.handler):
            await r.handler(*args)
        else:
            out = await asyncio.to_thread(r.handler, *args)
            if inspect.isawaitable(out):
                await out
        return 200, "handled"

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        path = scope.get("path", "")
        root = scope.get("root_path", "")
        if root and path.startswith(root):  # Starlette's Mount keeps the prefix in path
            path = path[len(root) :]
        client = scope.get("client")
        forwarded = _forwarded(scope.get("headers") or [])
        early = r.route(scope.get("method", ""), path, client[0] if client else None, forwarded)
        status, reason = early if early is not None else (0, "")
        if early is None:
            body = bytearray()
            while True:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    return
                body += msg.get("body", b"")
                if len(body) > r.max_body:
                    status, reason = 413, f"body over {r.max_body} bytes"
                    break
                if not msg.get("more_body"):
                    break
            if not status:
                status, reason = await _deliver(r, bytes(body), call_handler, scope.get("headers") or [])
        payload, headers = _answer(status, reason)
        raw = [(k.lower().encode(), v.encode()) for k, v in headers]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": payload})

    return app


# Set by urlscan_rs.otel.instrument(): the span a delivery runs in (continuing the trace its
# headers carry), which is told the status answered.
delivery_span: Callable[[list[tuple[bytes, bytes]]], AbstractContextManager[Callable[[int], None]]] | None = None


async def _deliver(
    r: _Receiver, body: bytes, call: Callable[[Notification], Awaitable[tuple[int, str]]], received: list[tuple[bytes, bytes]]
) -> tuple[int, str]:
    if delivery_span is None:
        return await _delivered(r, body, call)
    with delivery_span(received) as answered:
        status, reason = await _delivered(r, body, call)
        answered(status)
        return status, reason


async def _delivered(r: _Receiver, body: bytes, call: Callable[[Notification], Awaitable[tuple[int, str]]]) -> tuple[int, str]:
    note = r.parse(body)
    if isinstance(note, tuple):
        return note
    claimed = r.claim(note.id)
    if claimed is not None:
        return claimed, "already handled" if claimed == 200 else "being handled"
    handled = False
    try:
        status, reason = await call(note)
        handled = status == 200
        return status, reason
    except Exception as e:  # the handler's failure: answered 500 so the service retries
        _log.exception("the webhook handler raised on notification %s", note.id)
        return 500, f"the handler raised {type(e).__name__}"
    finally:
        r.release(note.id, handled)


async def _read_scans(client: Any, uuids: list[str]) -> list[Any]:
    if getattr(client, "_is_async", False):
        return list(await asyncio.gather(*(client.result(u) for u in uuids)))
    return await asyncio.to_thread(lambda: [client.result(u) for u in uuids])


def wsgi_app(
    handler: Handler,
    *,
    token: str,
    allow: Iterable[str] | None = None,
    verify: Any = None,
    dedupe: int = 10_000,
    max_body: int = _MAX_BODY,
    trusted_proxies: Iterable[str] | None = None,
) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """:func:`asgi_app` for WSGI frameworks and servers (the same parameters and
    answers; an ``async def`` handler is run to completion, ``verify`` takes a
    :class:`~urlscan_rs.Client`: an ``AsyncClient`` is refused here).

    Raises:
        TypeError: ``verify`` is an ``AsyncClient`` (a WSGI app cannot await it).
    """
    if getattr(verify, "_is_async", False):
        raise TypeError("wsgi_app(verify=...) takes a Client: an AsyncClient's calls cannot be awaited in a WSGI app")
    r = _Receiver(handler, token, allow, verify, dedupe, max_body, trusted_proxies)

    async def read(uuids: list[str]) -> list[Any]:
        return [r.verify.result(u) for u in uuids]

    async def call_handler(note: Notification) -> tuple[int, str]:
        args = await r.verified(note, read)
        if isinstance(args[0], int):  # an answer (status, reason), not the handler's arguments
            return args
        out = r.handler(*args)
        if inspect.isawaitable(out):
            await out
        return 200, "handled"

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        received = [
            (k[5:].replace("_", "-").lower().encode(), str(v).encode("latin-1", "replace"))
            for k, v in environ.items()
            if k.startswith("HTTP_")
        ]
        early = r.route(
            environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", ""), environ.get("REMOTE_ADDR"), _forwarded(received)
        )
        if early is not None:
            status, reason = early
        else:
            try:
                length = int(environ.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = -1
            if length < 0 or length > r.max_body:
                status, reason = 413, f"body over {r.max_body} bytes"
            else:
                body = environ["wsgi.input"].read(length) if length else b""
                status, reason = _run_to_end(_deliver(r, body, call_handler, received))
        payload, headers = _answer(status, reason)
        start_response(f"{status} {_REASONS.get(status, 'Error')}", headers)
        return [payload]

    return app


def _run_to_end(coro: Coroutine[Any, Any, _T]) -> _T:
    """A coroutine run to its end from a WSGI server's thread: on an event loop of its own, in
    a thread of its own when this thread runs a loop already (a WSGI server started from async
    code, a test client in a notebook), where ``asyncio.run`` cannot start one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # The caller's context goes along (its trace, for the delivery's span).
    context = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="urlscan-rs-wsgi") as pool:
        return pool.submit(context.run, asyncio.run, coro).result()


_REASONS = {
    200: "OK",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Payload Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
}
