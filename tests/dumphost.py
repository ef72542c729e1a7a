"""A stand-in data-dump service on loopback for hostile and slow cases: a
listing the test writes, links that redirect to a file host on the same
server, and files served whole, slowly, in bursts with stalls, or without end."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote

from .loopback import listening

# A well-formed key (a uuid): what the package checks before sending.
KEY = "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f"


@dataclass
class Body:
    """How a file is served: `data` in chunks of `chunk` bytes with `pause`
    seconds between them; `stall_after` bytes in, each of the first `stalls`
    answers stops sending for `stall` seconds and then closes; without
    `length`, no Content-Length is sent (the body ends when the connection does)."""

    data: bytes
    chunk: int = 65536
    pause: float = 0.0
    stall_after: int | None = None
    stall: float = 0.0
    stalls: int = 1
    length: bool = True
    # False: every answer is the whole file (a host that ignores Range).
    ranges: bool = True


@dataclass
class DumpHost:
    url: str = ""
    # listing: (window, type, day) -> the entries answered ({"path", "size"})
    listing: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)
    files: dict[str, Body] = field(default_factory=dict)
    # every request: (method, path, Range header or None)
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    # (path of the listing request) -> extra headers (rate limits)
    listing_headers: Callable[[int], dict[str, str]] | None = None

    def listed(self, *entries: tuple[str, int | None], window: str = "hours", kind: str = "search", day: str) -> None:
        self.listing[(window, kind, day)] = [{"path": p, "size": s} for p, s in entries]


@contextmanager
def dump_host() -> Iterator[DumpHost]:
    host = DumpHost()
    lock = threading.Lock()
    stalled: dict[str, int] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            rng = self.headers.get("range")
            with lock:
                host.requests.append(("GET", self.path, rng))
                n_listings = sum(1 for _, p, _ in host.requests if "/datadump/list/" in p)
            if self.path.startswith("/api/v1/datadump/list/"):
                parts = self.path.split("?")[0].rstrip("/").split("/")
                window, kind, day = parts[-3], parts[-2], parts[-1]
                files = host.listing.get((window, kind, day), [])
                extra = host.listing_headers(n_listings) if host.listing_headers else {}
                self._send(200, {"content-type": "application/json", **extra}, json.dumps({"files": files}).encode())
            elif self.path.startswith("/api/v1/datadump/link/"):
                path = self.path[len("/api/v1/datadump/link/") :]
                self._send(302, {"location": f"{host.url}/files/{path}"})
            elif self.path.startswith("/files/"):
                self._file(unquote(self.path[len("/files/") :]), rng)
            else:
                self._send(404, {"content-type": "application/json"}, b'{"message": "not found", "status": 404}')

        def _file(self, path: str, rng: str | None) -> None:
            body = host.files.get(path)
            if body is None:
                self._send(404, {}, b"")
                return
            start = int(rng.split("=")[1].split("-")[0]) if rng and body.ranges else 0
            data = body.data[start:]
            self.send_response(206 if start else 200)
            if start:
                self.send_header("content-range", f"bytes {start}-{len(body.data) - 1}/{len(body.data)}")
            if body.length:
                self.send_header("content-length", str(len(data)))
            else:
                self.send_header("connection", "close")
                self.close_connection = True
            self.end_headers()
            sent = 0
            with lock:
                stalls = body.stall_after is not None and stalled.get(path, 0) < body.stalls
                if stalls:
                    stalled[path] = stalled.get(path, 0) + 1
            try:
                while sent < len(data):
                    piece = data[sent : sent + body.chunk]
                    if stalls and body.stall_after is not None and sent + len(piece) > body.stall_after:
                        piece = piece[: max(body.stall_after - sent, 0)]
                        self.wfile.write(piece)
                        self.wfile.flush()
                        time.sleep(body.stall)
                        self.close_connection = True
                        return
                    self.wfile.write(piece)
                    self.wfile.flush()
                    sent += len(piece)
                    if body.pause:
                        time.sleep(body.pause)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    with listening(Handler) as host.url:
        yield host
