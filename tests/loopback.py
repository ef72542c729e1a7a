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

# (method, path, query) -> (status, JSON body)
Answer = Callable[[str, str, dict[str, list[str]]], tuple[int, Any]]


class Served:
    def __init__(self, url: str) -> None:
        self.url = url
        self.requests: list[tuple[str, str]] = []


@contextmanager
def serve(answer: Answer) -> Iterator[Served]:
    served: Served

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            parts = urlsplit(self.path)
            served.requests.append((self.command, self.path))
            status, body = answer(self.command, parts.path, parse_qs(parts.query))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served = Served(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
