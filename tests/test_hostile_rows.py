"""Every row of the core's endpoint table meets a hostile server, because it is a row.

The rows come from ``_native.endpoint_table()``; the call of each row's public method is derived
from the row (its ids, its positional and required fields, by name and kind), so a new row is in
the harness the day it is declared, and a row whose call cannot be derived fails
``test_every_row_has_a_call``. A scripted server first records what the emulator answers each
row, then answers it again as a hostile or broken server would: another object's document, ``{}``,
an error envelope with status 200, bodies of the wrong type, wrong types at the paths of the real
answer, a cut body, an oversized one, a stalled one, duplicate keys and deep nesting. Each call,
with and without a result cache, sync and async, must give a correct value or raise a package
error: never another object's answer, a builtin exception, a panic or a hang; and the cache keeps
nothing its row's check refuses."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import sqlite3
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Cache, Client, DecodeError, UrlscanError, _native
from urlscan_rs.models import Model
from urlscan_rs.testing import Emulator

from .conftest import emulator, http, subscribe
from .loopback import listening

ROWS: list[dict[str, Any]] = _native.endpoint_table()
# Big enough for every answer the emulator gives these rows; "huge" answers pass it.
MAX_BODY = 8 << 20
# The client's timeout: a stalled body outlasts it.
TIMEOUT = 0.5
# Per call: a hostile answer never makes a call take longer than this (retries included).
BOUND = 20.0

# A valid value of each kind of required field, and of each kind of id that names nothing in
# particular; ids that name objects come from the emulator's world (below).
SAMPLES: dict[str, Any] = {
    "ScanUrl": "https://example.com/",
    "Text": "hostile",
    "Query": "page.domain:example.com",
    "Emails": ["soc@example.com"],
    "Bool": True,
    "Observable": "example.com",
}

# Optional fields a rule across fields wants beside the required ones (a webhook channel's URL).
ALONGSIDE: dict[str, Any] = {"webhook_url": "https://example.com/hook"}

emu = emulator(scans=20, seed=11, scan_duration=0.0)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def _template(row: dict[str, Any]) -> re.Pattern[str]:
    parts = re.split(r"(\{\d\})", row["path"])
    return re.compile("".join(".+?" if re.fullmatch(r"\{\d\}", p) else re.escape(p) for p in parts) + "/?$")


PATTERNS = [(row, _template(row)) for row in ROWS]


def rows_of(method: str, path: str) -> list[str]:
    """The rows a request may be of (those of the most specific template that matches: two rows
    may share one, as files.download and files.download_zip do)."""
    found = [r for r, p in PATTERNS if r["method"] == method and p.match(path)]
    if not found:
        return []
    best = max(len(r["path"].replace("{", "")) for r in found)
    return [r["name"] for r in found if len(r["path"].replace("{", "")) == best]


# -- the world: objects of the emulator the rows' ids name


@pytest.fixture(scope="module")
def world(emu: Emulator) -> dict[str, Any]:
    return make_world(emu)


# The emulator's premium key, once the world is made.
KEY = [""]


def make_world(emu: Emulator) -> dict[str, Any]:
    KEY[0] = emu.api_key
    with emu.client() as c:
        # A scan of this key's (its visibility may be changed), and another one.
        uuid = str(c.scan_and_wait("https://hostile-world.example/", initial_wait=0, interval=0.05, timeout=10).uuid)
        other = next(str(h.id) for h in c.search("", size=5) if str(h.id) != uuid)
        result = c.result(uuid)
        sha = next(
            (r["response"]["hash"] for r in result.data.get("requests", []) if r.get("response", {}).get("hash")),
            "0" * 64,
        )
        channel = c.channels.create(type="webhook", name="hostile", webhook_url="https://example.com/hook")
        sub = subscribe(c, "page.domain:example.com", name="hostile")
        incident = c.incidents.create("example.com", visibility="unlisted", channels=[channel.id])
        scanner = c.livescan.scanners()[0].id
        live = c.livescan.scan(scanner, "https://example.com/")
        day = time.strftime("%Y%m%d", time.gmtime())
        files = c.datadumps.list("hours", "api", day)
    return {
        "key": emu.api_key,
        "Uuid": uuid,
        "other_uuid": other,
        "Sha256": sha,
        "search_id": sub.search_ids[0],
        "subscription_id": sub.id,
        "channel_id": channel.id,
        "incident_id": incident.id,
        "scanner_id": scanner,
        "scan_id": live,
        "resource_id": live,
        "hostname": "example.com",
        # The malicious lookup's observable (its type is the first choice, ip).
        "value": result.page.ip or "192.0.2.1",
        "date": day,
        "path": files[0].path if files else f"hours/api/{day}/{day}-00.gz",
    }


def call_of(row: dict[str, Any], world: dict[str, Any]) -> Callable[[Any], Any]:
    """The row's public method called with values its fields take: ids from the world (by name,
    then kind, then the first choice), required fields of a creating row by kind."""
    *spaces, name = row["name"].split(".")
    args: list[Any] = []
    for f in row["ids"]:
        value = world.get(f["name"]) or world.get(f["kind"]) or (f["choices"][0] if f["choices"] else None)
        if value is None:
            raise LookupError(f"{row['name']}: no value for its id {f['name']!r} ({f['kind']})")
        args.append(value)
    kwargs: dict[str, Any] = {}
    for f in row["body"]:
        if row["creating"] and f["name"] in ALONGSIDE:
            kwargs[f["name"]] = ALONGSIDE[f["name"]]
        if not (f["required"] and row["creating"]):
            continue
        if f["kind"] in SAMPLES:
            value = SAMPLES[f["kind"]]
        elif f["kind"] == "IdList":
            value = [world["search_id"] if "search" in f["name"] else world["channel_id"]]
        elif f["choices"]:
            value = f["choices"][0]
        else:
            raise LookupError(f"{row['name']}: no value for its field {f['name']!r} ({f['kind']})")
        if f["name"] in row["positional"]:
            args.append(value)
        else:
            kwargs[f["name"]] = value

    def call(client: Any) -> Any:
        target = client
        for space in spaces:
            target = getattr(target, space)
        return getattr(target, name)(*args, **kwargs)

    return call


# -- reading what a call gave, all of it


def walk(value: Any, depth: int = 0) -> None:
    """Read every field of what a call returned (models decode lazily): a wrong type must surface
    here as a package error, never a builtin one."""
    if depth > 6:
        return
    if isinstance(value, Model):
        for name in type(value)._fields:
            try:
                walk(getattr(value, name), depth + 1)
            except UrlscanError:
                pass
        value.to_dict()
        repr(value)
    elif isinstance(value, (list, tuple)):
        for item in value[:20]:
            walk(item, depth + 1)
    elif isinstance(value, dict):
        for item in itertools.islice(value.values(), 20):
            walk(item, depth + 1)


def consume(value: Any) -> Any:
    """An iterator's first items (a walk over pages), or the value itself."""
    if hasattr(value, "__next__") or type(value).__name__.endswith("Iterator"):
        return list(itertools.islice(value, 25))
    return value


async def aconsume(value: Any) -> Any:
    if hasattr(value, "__anext__"):
        out = []
        async for item in value:
            out.append(item)
            if len(out) >= 25:
                break
        return out
    return await value


# -- the hostile answers


def _other_type(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        return "yes"
    if isinstance(v, (int, float)):
        return {"n": v}
    if isinstance(v, str):
        return 5
    if isinstance(v, list):
        return "[]"
    return [v] if not isinstance(v, dict) else 7


def _paths(v: Any, at: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    if depth > 5:
        return
    if isinstance(v, dict):
        for k, item in v.items():
            yield (*at, k)
            yield from _paths(item, (*at, k), depth + 1)
    elif isinstance(v, list):
        for i, item in enumerate(v[:3]):
            yield (*at, i)
            yield from _paths(item, (*at, i), depth + 1)


def wrong_types(body: bytes, seed: int, count: int) -> list[bytes]:
    """``count`` copies of a JSON body, each with the value at one (seeded) path of another type."""
    try:
        doc = json.loads(body)
    except ValueError:
        return []
    paths = list(_paths(doc))
    if not paths:
        return []
    rng = random.Random(seed)
    out = []
    for path in rng.sample(paths, min(count, len(paths))):
        copy = json.loads(body)
        where = copy
        for p in path[:-1]:
            where = where[p]
        where[path[-1]] = _other_type(where[path[-1]])
        out.append(json.dumps(copy).encode())
    return out


def deep(n: int) -> bytes:
    return b'{"deep": ' + b"[" * n + b"]" * n + b', "obj": ' + b'{"a":' * n + b"1" + b"}" * n + b"}"


ENVELOPE = b'{"status": 404, "message": "Scan is not finished yet", "description": "The scan is still running"}'


def hostile(row: dict[str, Any], base: Answer, world: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The hostile answers to one row: (name, body), each served with status 200."""
    asked = [str(world.get(f["name"]) or world.get(f["kind"]) or "") for f in row["ids"]]
    other = base.body
    for a in asked:
        if len(a) >= 8:
            # Another object's document: every mention of the one asked for names another.
            swap = world["other_uuid"] if a == world["Uuid"] else a[::-1]
            other = other.replace(a.encode(), swap.encode())
    stripped = base.body.strip()
    inner = stripped[1:-1] if stripped.startswith(b"{") else b""
    other_inner = other.strip()[1:-1] if inner else b""
    cases = [
        ("other", other),
        ("empty object", b"{}"),
        ("error envelope", ENVELOPE),
        ("null", b"null"),
        ("list", b"[]"),
        ("string", b'"x"'),
        ("number", b"5"),
        ("empty", b""),
        ("cut", base.body[: max(1, len(base.body) // 2)]),
        ("huge", base.body + b" " * (MAX_BODY + 1)),
        ("deep", deep(20_000)),
    ]
    if inner:
        cases.append(("duplicate keys", b"{" + inner + b"," + other_inner + b"}"))
    seed = sum(map(ord, row["name"]))
    cases += [(f"wrong type {i}", b) for i, b in enumerate(wrong_types(base.body, seed, 24))]
    return cases


# Cases whose body a row's check (its `accept`) refuses, so that a cache keeps none of them. A DOM
# may be any text but none; another scan's screenshot or a page naming other scans is no wrong
# answer the client could tell.
NOT_A_BODY = {"empty object", "error envelope", "null", "list", "string", "number", "empty", "cut", "huge", "deep"}
REFUSED = {
    "ScanResult": NOT_A_BODY | {"other", "duplicate keys"},
    "Png": NOT_A_BODY,
    "SearchPage": NOT_A_BODY,
    "NotEmpty": {"empty", "huge"},
}


class Script:
    """The scripted server's state: it forwards to the emulator and records (``record``), or
    answers each request of a row with the body set for that row."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.recorded: dict[str, Answer] = {}
        self.bodies: dict[str, bytes] = {}
        # Bodies for one path only (a row's other requests go to the emulator).
        self.by_path: dict[str, bytes] = {}
        self.stall: set[str] = set()
        self.requests: list[str] = []
        self.lock = threading.Lock()

    def answer(self, request: BaseHTTPRequestHandler, body: bytes) -> tuple[int, dict[str, str], bytes, bool]:
        path = request.path.split("?")[0]
        names = rows_of(request.command, path)
        with self.lock:
            self.requests.append(" ".join(names))
            served = self.by_path.get(path, next((self.bodies[n] for n in names if n in self.bodies), None))
            stall = any(n in self.stall for n in names)
        if served is not None:
            return 200, {"content-type": "application/json"}, served, stall
        answer = forward(self.upstream, request, body)
        with self.lock:
            for name in names:
                self.recorded.setdefault(name, answer)
        return answer.status, answer.headers, answer.body, False


def forward(upstream: str, request: BaseHTTPRequestHandler, body: bytes) -> Answer:
    import http.client
    from urllib.parse import urlsplit

    u = urlsplit(upstream)
    conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=30)
    headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
    conn.request(request.command, request.path, body=body or None, headers=headers)
    r = conn.getresponse()
    data = r.read()
    kept = {k.lower(): v for k, v in r.getheaders() if k.lower() not in ("content-length", "transfer-encoding", "connection")}
    conn.close()
    return Answer(r.status, kept, data)


@contextmanager
def scripted(upstream: str) -> Iterator[tuple[str, Script]]:
    script = Script(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body are two writes: without this, each answer waits for a delayed ACK.
        disable_nagle_algorithm = True

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, data, stall = script.answer(self, body)
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            try:
                if stall:
                    # Half the body, then nothing for longer than the client waits.
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    time.sleep(TIMEOUT * 4)
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    with listening(Handler) as url:
        yield url, script


def client_for(url: str, cache: Cache | None = None) -> Client:
    return Client(KEY[0], base_url=url, timeout=TIMEOUT, max_retries=1, retry_deadline=5, max_body_bytes=MAX_BODY, cache=cache)


@dataclass
class Outcome:
    row: str
    case: str
    value: Any = None
    error: BaseException | None = None
    seconds: float = 0.0


def attempt(row: dict[str, Any], case: str, run: Callable[[], Any]) -> Outcome:
    started = time.monotonic()
    out = Outcome(row["name"], case)
    try:
        out.value = run()
        walk(out.value)
    except BaseException as e:  # noqa: BLE001 (what escaped is the finding)
        out.error = e
    out.seconds = time.monotonic() - started
    return out


def verdict(out: Outcome, world: dict[str, Any]) -> str | None:
    """What is wrong with an outcome, if anything."""
    row = next(r for r in ROWS if r["name"] == out.row)
    where = f"{out.row} answered {out.case!r}"
    if out.seconds > BOUND:
        return f"{where}: took {out.seconds:.1f} s"
    if out.error is not None:
        if isinstance(out.error, UrlscanError):
            return None
        tb = "".join(traceback.format_exception(out.error))[-1500:]
        return f"{where}: raised {type(out.error).__name__}, not a package error:\n{tb}"
    # A value: never another object's, nor a result that is none.
    if isinstance(out.value, urlscan_rs.ScanResult) and str(out.value.uuid) != world["Uuid"]:
        return f"{where}: gave the result of scan {out.value.uuid}, asked for {world['Uuid']}"
    if row.get("own_id") and isinstance(out.value, Model):
        asked = str(world.get(row["ids"][0]["name"]))
        got = out.value.raw.get("_id") if isinstance(out.value.raw, dict) else None
        if got is not None and str(got) != asked:
            return f"{where}: gave object {got}, asked for {asked}"
    return None


# -- the tests


@pytest.fixture(scope="module")
def recorded(emu: Emulator, world: dict[str, Any]) -> Iterator[tuple[str, Script]]:
    """The scripted server, with every row's real answer recorded once."""
    with scripted(emu.url) as (url, script):
        with client_for(url) as c:
            # What removes an object goes last, so the others find theirs.
            for row in sorted(ROWS, key=lambda r: r["method"] == "DELETE"):
                try:
                    consume(call_of(row, world)(c))
                except UrlscanError:
                    pass  # recorded all the same: its answer is what the harness varies
        yield url, script


def test_every_row_has_a_call(world: dict[str, Any], recorded: tuple[str, Script]) -> None:
    # A new row is in the harness without editing it, or this names it.
    _, script = recorded
    missing = []
    for row in ROWS:
        call_of(row, world)
        if row["name"] not in script.recorded:
            missing.append(row["name"])
    assert not missing, f"rows whose derived call sent nothing the harness could record: {missing}"
    # Every row a cache may keep says what its answer must be.
    assert [r["name"] for r in ROWS if r["cached"] and r["accept"] not in REFUSED] == []


def _matrix(world: dict[str, Any], script: Script) -> list[tuple[dict[str, Any], str, bytes]]:
    out = []
    for row in ROWS:
        base = script.recorded[row["name"]]
        out += [(row, case, body) for case, body in hostile(row, base, world)]
    return out


def test_every_row_meets_every_hostile_answer(world: dict[str, Any], recorded: tuple[str, Script]) -> None:
    url, script = recorded
    failures: list[str] = []
    with client_for(url) as c:
        for row, case, body in _matrix(world, script):
            script.bodies = {row["name"]: body}
            problem = verdict(attempt(row, case, lambda row=row: consume(call_of(row, world)(c))), world)
            if problem:
                failures.append(problem)
    script.bodies = {}
    assert not failures, f"{len(failures)} failures:\n" + "\n\n".join(failures[:12])


def test_a_stalled_body_ends_every_row_in_time(world: dict[str, Any], recorded: tuple[str, Script]) -> None:
    url, script = recorded
    script.bodies = {row["name"]: script.recorded[row["name"]].body or b"{}" for row in ROWS}
    script.stall = {row["name"] for row in ROWS}
    try:
        with client_for(url) as c, ThreadPoolExecutor(16) as pool:
            futures = [pool.submit(attempt, row, "stall", lambda row=row: consume(call_of(row, world)(c))) for row in ROWS]
            outcomes = [f.result(timeout=BOUND * 2) for f in futures]
    finally:
        script.bodies, script.stall = {}, set()
    failures = [p for p in (verdict(o, world) for o in outcomes) if p]
    assert not failures, "\n\n".join(failures[:8])
    # Each stalled call ended with the client's timeout, not with a value.
    assert all(isinstance(o.error, urlscan_rs.RequestTimeout) or o.value is not None for o in outcomes)


def test_every_row_meets_hostile_answers_async(world: dict[str, Any], recorded: tuple[str, Script]) -> None:
    url, script = recorded
    cases = {"other", "empty object", "error envelope", "cut", "deep", "wrong type 0"}
    failures: list[str] = []

    async def main() -> None:
        async with AsyncClient(KEY[0], base_url=url, timeout=TIMEOUT, max_retries=1, max_body_bytes=MAX_BODY) as c:
            for row, case, body in _matrix(world, script):
                if case not in cases:
                    continue
                script.bodies = {row["name"]: body}
                started = time.monotonic()
                out = Outcome(row["name"], case + " (async)")
                try:
                    out.value = await asyncio.wait_for(aconsume(call_of(row, world)(c)), BOUND)
                    walk(out.value)
                except BaseException as e:  # noqa: BLE001
                    out.error = e
                out.seconds = time.monotonic() - started
                problem = verdict(out, world)
                if problem:
                    failures.append(problem)

    asyncio.run(main())
    script.bodies = {}
    assert not failures, f"{len(failures)} failures:\n" + "\n\n".join(failures[:12])


def test_a_cache_keeps_no_hostile_answer(world: dict[str, Any], recorded: tuple[str, Script], tmp_path: Path) -> None:
    url, script = recorded
    cached = [row for row in ROWS if row["cached"]]
    assert {r["name"] for r in cached} >= {"result", "screenshot", "dom", "search"}
    cache = Cache(tmp_path / "cache", search_ttl=3600)
    failures: list[str] = []
    with client_for(url, cache) as c:
        for row, case, body in _matrix(world, script):
            if row not in cached:
                continue
            script.bodies = {row["name"]: body}
            cache.clear()
            problem = verdict(attempt(row, case + " (cached)", lambda row=row: consume(call_of(row, world)(c))), world)
            if problem:
                failures.append(problem)
            if case in REFUSED[row["accept"]] and cache.stats()["entries"]:
                failures.append(f"{row['name']} answered {case!r}: the cache kept it")
        script.bodies = {}
        assert not failures, "\n\n".join(failures[:12])
        cache.clear()
        # The real answers are kept, and served again without a request.
        for row in cached:
            consume(call_of(row, world)(c))
            sent = len(script.requests)
            consume(call_of(row, world)(c))
            assert len(script.requests) == sent, f"{row['name']}: not served from the cache"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_another_scans_result_is_refused_and_never_kept(
    world: dict[str, Any], recorded: tuple[str, Script], tmp_path: Path, kind: str
) -> None:
    # Found by an attack: U2's document answered for U1 made result(U1) return U2, and a cache kept it.
    url, script = recorded
    u1, u2 = world["Uuid"], world["other_uuid"]
    real = script.recorded["result"].body
    script.bodies = {"result": real.replace(u1.encode(), u2.encode())}
    cache = Cache(tmp_path / "cache")
    try:
        if kind == "sync":
            with client_for(url, cache) as c:
                with pytest.raises(DecodeError) as ei:
                    c.result(u1)
        else:

            async def main() -> None:
                async with AsyncClient(KEY[0], base_url=url, cache=cache) as c:
                    await c.result(u1)

            with pytest.raises(DecodeError) as ei:
                asyncio.run(main())
        assert u1 in str(ei.value) and u2 in str(ei.value)
        assert cache.stats()["entries"] == 0
        script.bodies = {"result": ENVELOPE}
        with client_for(url, cache) as c, pytest.raises(DecodeError, match="not a scan result"):
            c.result(u1)
        # The server is fixed: the next call asks it, and gets U1.
        script.bodies = {}
        with client_for(url, cache) as c:
            assert str(c.result(u1).uuid) == u1
            assert str(c.result(u1).uuid) == u1
        assert cache.stats()["hits"] == 1
    finally:
        script.bodies = {}


def test_a_damaged_cache_entry_is_dropped_and_fetched_again(
    world: dict[str, Any], recorded: tuple[str, Script], tmp_path: Path
) -> None:
    url, script = recorded
    u1, u2 = world["Uuid"], world["other_uuid"]
    cache = Cache(tmp_path / "cache")
    with client_for(url, cache) as c:
        c.result(u1)
        c.screenshot(u1)
    db = sqlite3.connect(tmp_path / "cache" / "urlscan-cache.sqlite3")
    # One entry's bytes flipped on disk; another replaced by another scan's document with a
    # checksum that matches (written by something that knew the layout).
    with db:
        db.execute("UPDATE entries SET body = substr(body, 1, 100) || 'X' || substr(body, 102) WHERE key LIKE '%.png'")
        other = script.recorded["result"].body.replace(u1.encode(), u2.encode())
        import zlib

        db.execute("UPDATE entries SET body = ?, crc = ? WHERE key LIKE '%/result/%'", (other, zlib.crc32(other)))
    db.close()
    sent = len(script.requests)
    with client_for(url, cache) as c:
        assert str(c.result(u1).uuid) == u1
        assert c.screenshot(u1)[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(script.requests) == sent + 2
    stats = cache.stats()
    assert stats["damaged"] == 2 and stats["entries"] == 2


def test_lookup_reuses_only_a_result_of_the_url_looked_up(
    world: dict[str, Any], recorded: tuple[str, Script], emu: Emulator
) -> None:
    # The search finds a hit of the URL, but the result served for it is of another URL: it is
    # passed over and the URL scanned again.
    url, script = recorded
    target = "https://lookup-target.example/login"
    with emu.client() as c:
        done = c.scan_and_wait(target, initial_wait=0, interval=0.05, timeout=10)
    doc = done.to_dict()
    doc["task"]["url"] = "https://elsewhere.example/"
    script.by_path = {f"/api/v1/result/{done.uuid}/": json.dumps(doc).encode()}
    try:
        with client_for(url) as c:
            lk = c.lookup_or_scan(target, initial_wait=0, interval=0.05, timeout=10)
        assert lk.reused is False and str(lk.uuid) != str(done.uuid)
        assert lk.result is not None and lk.result.task.url == target
        # Served as it should be, the same scan is reused.
        script.by_path = {}
        with client_for(url) as c:
            again = c.lookup_or_scan(target, initial_wait=0, interval=0.05, timeout=10)
        assert again.reused is True
    finally:
        script.by_path = {}


def test_one_malformed_hit_uuid_is_passed_over(world: dict[str, Any], recorded: tuple[str, Script], emu: Emulator) -> None:
    url, script = recorded
    target = "https://malformed-hit.example/"
    with emu.client() as c:
        done = c.scan_and_wait(target, initial_wait=0, interval=0.05, timeout=10)
    _, _, content = http(emu, "GET", "/api/v1/search/?" + urlencode({"q": f'task.url:"{target}"'}))
    page = json.loads(content)
    bad = json.loads(json.dumps(page["results"][0]))
    bad["task"]["uuid"] = "../../etc/passwd"
    bad["_id"] = "../../etc/passwd"
    page["results"].insert(0, bad)
    script.bodies = {"search": json.dumps(page).encode()}
    try:
        with client_for(url) as c:
            lk = c.lookup_or_scan(target)
        assert lk.reused is True and str(lk.uuid) == str(done.uuid)
    finally:
        script.bodies = {}


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_one_url_spelt_four_ways_in_a_batch_is_scanned_once(kind: str) -> None:
    spellings = ["HTTP://Spelt.Example", "http://spelt.example:80/", "spelt.example", " http://spelt.example/ "]
    with Emulator(scans=0, scan_duration=0.0) as e:
        if kind == "sync":
            with e.client() as c:
                out = c.lookup_or_scan_many(spellings, max_age=0, initial_wait=0, interval=0.05)
        else:

            async def main() -> Any:
                async with e.async_client() as c:
                    return await c.lookup_or_scan_many(spellings, max_age=0, initial_wait=0, interval=0.05)

            out = asyncio.run(main())
        with e.client() as c:
            scans = list(c.search("", size=100))
    assert [o.url for o in out] == spellings
    assert len({str(o.uuid) for o in out}) == 1 and all(o.error is None for o in out)
    assert len(scans) == 1, [h.task.url for h in scans]


# Public methods that are not rows: each is made of rows the harness covers, and is met by a harness
# of its own (named here), so a new one fails the test below until it says where it is tried.
COMPOSITES = {
    "bulk_scan": "rows scan and result (test_every_row_meets_every_hostile_answer)",
    "close": "sends nothing",
    "with_options": "sends nothing: the client it gives calls the same rows, checked the same way",
    "datadumps.download": "tests/test_hostile_writers.py (a writer)",
    "datadumps.sync": "tests/test_hostile_writers.py and tests/test_hostile_state.py",
    "feeds.sync": "tests/test_hostile_feeds.py and tests/test_hostile_state.py",
    "lookup_or_scan": "test_lookup_reuses_only_a_result_of_the_url_looked_up, test_one_malformed_hit_uuid_is_passed_over",
    "lookup_or_scan_many": "test_one_url_spelt_four_ways_in_a_batch_is_scanned_once",
    "request": "any path: the rows' answers, as raw bytes",
    "results": "the result row, refused per item (test_results_refuse_another_scans_answer_per_item)",
    "save": "tests/test_hostile_writers.py (a writer)",
    "scan_and_wait": "rows scan and result",
    "wait_for_result": "the result row",
}


def test_every_public_method_is_a_row_or_a_named_composite() -> None:
    rows = {r["name"] for r in ROWS}
    with Client("00000000-0000-4000-8000-000000000000", base_url="http://127.0.0.1:9") as c:
        found = set()
        for name in dir(c):
            value = getattr(c, name) if not name.startswith("_") else None
            if value is None:
                continue
            if type(value).__module__.endswith("_namespaces"):
                found |= {f"{name}.{m}" for m in dir(value) if not m.startswith("_") and callable(getattr(value, m))}
            elif callable(value):
                found.add(name)
    assert sorted(found - rows - set(COMPOSITES)) == [], "a public method no harness reaches"
    assert sorted(set(COMPOSITES) - found) == [], "a composite that is no longer a method"


def test_results_refuse_another_scans_answer_per_item(world: dict[str, Any], recorded: tuple[str, Script]) -> None:
    url, script = recorded
    u1, u2 = world["Uuid"], world["other_uuid"]
    script.by_path = {f"/api/v1/result/{u1}/": script.recorded["result"].body.replace(u1.encode(), u2.encode())}
    try:
        with client_for(url) as c:
            out = c.results([u1, u2])

        async def main() -> Any:
            async with AsyncClient(KEY[0], base_url=url) as ac:
                return await ac.results([u1, u2])

        aout = asyncio.run(main())
    finally:
        script.by_path = {}
    for got in (out, aout):
        assert isinstance(got[0], DecodeError) and u1 in str(got[0])
        assert isinstance(got[1], urlscan_rs.ScanResult) and str(got[1].uuid) == u2
