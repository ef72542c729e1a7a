"""A tiny HTTP server on loopback that answers what a test tells it to: for
service behaviour the emulator does not produce (a cursor that never moves,
an odd 400)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# (method, path, query) -> (status, JSON_HEADERS body)
Answer = Callable[[str, str, dict[str, list[str]]], tuple[int, Any]]


class Served:
    def __init__(self, url: str) -> None:
        self.url = url
        self.requests: list[tuple[str, str]] = []
        # The request bodies, in the order of `requests`.
        self.bodies: list[bytes] = []


# The request -> (status, headers, body); content-length is added.
RawAnswer = Callable[[BaseHTTPRequestHandler], tuple[int, dict[str, str], bytes]]
JSON_HEADERS = {"content-type": "application/json"}


@contextmanager
def serve(answer: Answer) -> Iterator[Served]:
    """Answers in JSON_HEADERS."""

    def as_json(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(request.path)
        status, body = answer(request.command, parts.path, parse_qs(parts.query))
        return status, JSON_HEADERS, json.dumps(body).encode()

    with serve_raw(as_json) as served:
        yield served


@contextmanager
def serve_raw(answer: RawAnswer) -> Iterator[Served]:
    """Answers exactly what `answer` gives (any status, headers and bytes)."""
    served: Served

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            served.requests.append((self.command, self.path))
            served.bodies.append(body)
            status, headers, body = answer(self)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading (e.g. a body over its size limit)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    with listening(Handler) as url:
        served = Served(url)
        yield served


@contextmanager
def listening(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` serving on a loopback port in a thread, until the block ends; gives its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
