"""Record and replay, over HTTP: a session recorded against one emulator (with a key, and a base
URL holding credentials) is written with no key nor credential in any file, and replayed by a
fresh emulator of another seed, with no scans of its own, answer for answer, to a client with
another key (sync and async); a request not recorded gets the emulator's own answer. The scrub
hook changes or drops entries, and a hook that fails fails the call with nothing written. Hostile
recording folders are refused at start, naming the file. The pytest plugin records a suite against
the service the environment names and replays it with no key."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import AsyncClient, Client
from urlscan_rs.errors import NotFoundError, ValidationError
from urlscan_rs.testing import Emulator

URL = "https://www.example.com/record-replay"
PASSWORD = "b4se-url-passw0rd"


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(scans=40, seed=1, scan_duration=0) as e:
        yield e


def _base(emu: Emulator) -> str:
    """The emulator's URL with credentials in it (they must not reach the recordings)."""
    return emu.url.replace("http://", f"http://rec-user:{PASSWORD}@")


def _session(c: Client) -> dict[str, Any]:
    """What a playbook does: a scan and its result, a search walked over pages (a cursor each),
    a screenshot and a DOM, the quotas."""
    sub = c.scan(URL, visibility="public")
    result = c.wait_for_result(sub.uuid, initial_wait=0, interval=0.1, timeout=30)
    it = c.search("date:>now-1y", size=5, limit=12)
    hits = [h.raw for h in it]
    return _seen(sub, result, hits, it.search_after, c.screenshot(sub.uuid), c.dom(sub.uuid), c.user())


async def _async_session(c: AsyncClient) -> dict[str, Any]:
    sub = await c.scan(URL, visibility="public")
    result = await c.wait_for_result(sub.uuid, initial_wait=0, interval=0.1, timeout=30)
    it = c.search("date:>now-1y", size=5, limit=12)
    hits = [h.raw async for h in it]
    return _seen(sub, result, hits, it.search_after, await c.screenshot(sub.uuid), await c.dom(sub.uuid), await c.user())


def _seen(sub: Any, result: Any, hits: list[Any], cursor: str | None, screenshot: bytes, dom: str, user: Any) -> dict[str, Any]:
    """What a session saw, in the form a recording and its replay are compared in."""
    return {
        "uuid": sub.uuid,
        "submission": sub.raw,
        "result": result.raw,
        "hits": hits,
        "cursor": cursor,
        "screenshot": screenshot,
        "dom": dom,
        "user": user.raw,
    }


def _files(folder: Path) -> dict[str, bytes]:
    return {os.fspath(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _no_secret(folder: Path, emu: Emulator) -> None:
    """Not a byte of a key, the base URL's password or the Authorization it made, in any file."""
    basic = base64.b64encode(f"rec-user:{PASSWORD}".encode()).decode()
    files = _files(folder)
    assert files
    for name, data in files.items():
        for secret in (*emu.keys.values(), PASSWORD, basic):
            assert secret.encode() not in data, f"{secret!r} in {name}"
        assert b"set-cookie" not in data.lower() and b"x-rate-limit" not in data.lower(), name


def _same(recorded: dict[str, Any], replayed: dict[str, Any]) -> None:
    assert replayed["uuid"] == recorded["uuid"]
    assert replayed["submission"] == recorded["submission"]
    assert replayed["result"] == recorded["result"]
    assert replayed["hits"] == recorded["hits"] and len(recorded["hits"]) == 12
    assert replayed["cursor"] == recorded["cursor"] and recorded["cursor"]
    assert replayed["screenshot"] == recorded["screenshot"] and recorded["screenshot"].startswith(b"\x89PNG")
    assert replayed["dom"] == recorded["dom"] and recorded["dom"]
    assert replayed["user"] == recorded["user"]


def test_a_recording_replays_with_no_key_in_it(emu: Emulator, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    with emu.client() as c:
        unrecorded = str(next(iter(c.search("", limit=1))).id)
    with Client(emu.api_key, base_url=_base(emu), record_to=folder) as c:
        recorded = _session(c)
    _no_secret(folder, emu)
    # The layout: one file per request, named by it; bodies other than JSON beside their entry.
    uuid = recorded["uuid"]
    (entry,) = (folder / "GET" / "api" / "v1" / "result" / uuid).glob("*.json")
    doc = json.loads(entry.read_text())
    assert doc["urlscan_rs_recording"] == 1 and doc["request"] == {
        "method": "GET",
        "path": f"/api/v1/result/{uuid}/",
        "query": {},
    }
    assert doc["response"]["status"] == 200 and doc["response"]["json"] == recorded["result"]
    assert entry.read_text().startswith('{\n  "urlscan_rs_recording": 1,\n  "request": {\n')
    (shot,) = (folder / "GET" / "screenshots" / f"{uuid}.png").glob("*.json")
    side = json.loads(shot.read_text())["response"]["body_file"]
    assert (shot.parent / side).read_bytes() == recorded["screenshot"] and side.endswith(".png")
    pages = [json.loads(p.read_text())["request"]["query"] for p in (folder / "GET" / "api" / "v1" / "search").glob("*.json")]
    assert sum("search_after" in q for q in pages) >= 2, pages
    (sub,) = (folder / "POST" / "api" / "v1" / "scan").glob("*.json")
    assert json.loads(sub.read_text())["request"]["json"] == {"url": URL, "visibility": "public"}

    # Another emulator: another seed, no scans, another key. The recorded requests are answered
    # as recorded; the emulator's own request counter shows it did not answer them itself.
    with Emulator(recordings=folder, scans=0, seed=2) as replay, replay.client("free", max_retries=0) as c:
        assert replay.api_key != emu.api_key
        replayed = _session(c)
        _same(recorded, replayed)
        assert replay.stats()["requests"] == 0
        # The rest is the emulator's own: it has no scans.
        with pytest.raises(NotFoundError):
            c.result(unrecorded)
        assert list(c.search("date:>now-1y", size=4, limit=4)) == []
        assert replay.stats()["requests"] == 2


def test_an_async_recording_replays_with_no_key_in_it(emu: Emulator, tmp_path: Path) -> None:
    folder = tmp_path / "rec"

    async def record() -> dict[str, Any]:
        async with AsyncClient(emu.api_key, base_url=_base(emu), record_to=folder) as c:
            return await _async_session(c)

    recorded = asyncio.run(record())
    _no_secret(folder, emu)
    with Emulator(recordings=folder, scans=0, seed=3) as replay:

        async def again() -> dict[str, Any]:
            async with replay.async_client("team") as c:
                return await _async_session(c)

        _same(recorded, asyncio.run(again()))
        # A sync client replays the async recording too.
        with replay.client() as c:
            _same(recorded, _session(c))
        assert replay.stats()["requests"] == 0


def test_recording_again_writes_the_same_files(emu: Emulator, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    with Client(emu.api_key, base_url=emu.url) as c:
        uuid = str(next(iter(c.search("", limit=1))).id)

    def run() -> dict[str, bytes]:
        with Client(emu.api_key, base_url=emu.url, record_to=folder) as c:
            c.result(uuid)
            c.screenshot(uuid)
            c.dom(uuid)
            list(c.search("", size=3, limit=6))
        return _files(folder)

    first = run()
    assert len(first) == 7  # the result, the screenshot and the DOM (each with its body file), two pages
    assert run() == first


def test_secrets_in_a_query_are_redacted_and_still_matched(emu: Emulator, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    q = 'page.url:"https://analyst:hunter2hunter2@login.example.net/?token=tok3n-secret&lang=en"'
    with Client(emu.api_key, base_url=emu.url, record_to=folder) as c:
        list(c.search(q, size=5))
    text = "".join(p.read_text() for p in folder.rglob("*.json"))
    assert "hunter2hunter2" not in text and "tok3n-secret" not in text and "analyst" not in text
    assert "REDACTED:REDACTED@login.example.net/?token=REDACTED&lang=en" in text
    with Emulator(recordings=folder, scans=0) as replay, replay.client() as c:
        # Other credentials: the same request once they are hidden, answered from the recording.
        list(c.search(q.replace("hunter2hunter2", "other").replace("tok3n-secret", "x"), size=5))
        assert replay.stats()["requests"] == 0
        list(c.search(q.replace("lang=en", "lang=de"), size=5))
        assert replay.stats()["requests"] == 1


def test_the_hook_changes_or_drops_what_is_recorded(emu: Emulator, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def scrub(entry: Any) -> Any:
        seen.append(entry)
        if entry["request"]["path"].startswith("/api/v1/pro/username"):
            return None
        if "json" in entry["response"] and isinstance(entry["response"]["json"], dict):
            entry["response"]["json"]["scrubbed"] = True
        return entry

    folder = tmp_path / "rec"
    with Client(emu.api_key, base_url=emu.url, record_to=folder, record_hook=scrub) as c:
        user = c.user()
        quotas = c.quotas()
        uuid = str(next(iter(c.search("", limit=1))).id)
        png = c.screenshot(uuid)
    assert not (folder / "GET" / "api" / "v1" / "pro").exists()
    (q,) = (folder / "GET" / "api" / "v1" / "quotas").glob("*.json")
    assert json.loads(q.read_text())["response"]["json"]["scrubbed"] is True
    shot = next(e for e in seen if e["request"]["path"].startswith("/screenshots/"))
    assert shot["response"]["body"] == png and shot["response"]["headers"]["content-type"] == "image/png"
    assert all(emu.api_key not in json.dumps(e, default=str) for e in seen)
    with Emulator(recordings=folder, scans=0) as replay, replay.client() as c:
        assert c.quotas().raw == {**quotas.raw, "scrubbed": True}
        assert replay.stats()["requests"] == 0
        assert c.user().username  # not recorded: the emulator's own answer
        assert replay.stats()["requests"] == 1 and user.username


@pytest.mark.parametrize(
    ("hook", "message"),
    [
        (lambda e: 1 / 0, "record_hook raised ZeroDivisionError"),
        (lambda e: 5, "record_hook returned something that is not a dict or None"),
        (lambda e: {**e, "response": {**e["response"], "status": 99}}, "the status 99"),
        (lambda e: {"request": {}, "response": {}}, 'no request["method"]'),
    ],
)
def test_a_hook_that_fails_fails_the_call_and_writes_nothing(emu: Emulator, tmp_path: Path, hook: Any, message: str) -> None:
    folder = tmp_path / "rec"
    with Client(emu.api_key, base_url=emu.url, record_to=folder, record_hook=hook, max_retries=0) as c:
        with pytest.raises(ValidationError, match=message.replace("[", r"\[")):
            c.quotas()
    assert list(folder.rglob("*")) == []


def test_record_settings_are_checked(tmp_path: Path) -> None:
    key = "00000000-0000-4000-8000-000000000000"
    with pytest.raises(ValidationError, match="record_hook is given without record_to"):
        Client(key, record_hook=lambda e: e)
    with pytest.raises(TypeError, match="record_hook"):
        Client(key, record_to=tmp_path, record_hook="scrub")  # type: ignore[arg-type]

    async def coroutine(e: Any) -> Any:
        return e

    with pytest.raises(TypeError, match="record_hook"):
        Client(key, record_to=tmp_path, record_hook=coroutine)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="record_to"):
        Client(key, record_to=3)  # type: ignore[arg-type]
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValidationError, match="not a folder"):
        Client(key, record_to=tmp_path / "file")
    c = Client(key, record_to=tmp_path / "made")
    assert (tmp_path / "made").is_dir() and c._core._config()["record_to"] == os.fspath(tmp_path / "made")


# ---------------------------------------------------------------- hostile recordings

ENTRY = {
    "urlscan_rs_recording": 1,
    "request": {"method": "GET", "path": "/api/v1/quotas", "query": {}},
    "response": {"status": 200, "headers": {"content-type": "application/json"}, "json": {"limits": {}}},
}


def _write(folder: Path, rel: str, data: str | bytes) -> Path:
    p = folder / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        p.write_text(data)
    else:
        p.write_bytes(data)
    return p


def test_hostile_recordings_are_refused_at_start_naming_the_file(tmp_path: Path) -> None:
    def refused(folder: Path, *names: str) -> str:
        with pytest.raises(ValidationError) as e:
            Emulator(recordings=folder, scans=0)
        for n in names:
            assert n in str(e.value), str(e.value)
        return str(e.value)

    bad = tmp_path / "corrupt"
    _write(bad, "GET/a/x.json", '{"urlscan_rs_recording": 1, "request": ')
    refused(bad, "x.json", "not valid JSON")
    newer = tmp_path / "newer"
    _write(newer, "x.json", json.dumps({**ENTRY, "urlscan_rs_recording": 2}))
    refused(newer, "x.json", "newer urlscan-rs")
    bad_status = tmp_path / "bad-status"
    _write(bad_status, "x.json", json.dumps({**ENTRY, "response": {"status": 1000}}))
    refused(bad_status, "x.json", "status")
    twice = tmp_path / "twice"
    _write(twice, "a.json", json.dumps(ENTRY))
    _write(twice, "b/c.json", json.dumps(ENTRY))
    refused(twice, "a.json", "c.json", "the same request")
    missing = tmp_path / "missing"
    _write(missing, "a.json", json.dumps({**ENTRY, "response": {"status": 200, "body_file": "gone.png"}}))
    refused(missing, "a.json", "gone.png")
    escape = tmp_path / "escape"
    _write(escape, "a.json", json.dumps({**ENTRY, "response": {"status": 200, "body_file": "../../etc/passwd"}}))
    refused(escape, "a.json", "body_file")
    # A link out of the folder (to a folder, or to a file) is never followed.
    outside = tmp_path / "outside"
    _write(outside, "GET/x.json", json.dumps(ENTRY))
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "GET").symlink_to(outside / "GET")
    refused(linked, "GET", "symbolic link")
    linked_file = tmp_path / "linked-file"
    linked_file.mkdir()
    (linked_file / "x.json").symlink_to(outside / "GET" / "x.json")
    refused(linked_file, "x.json", "symbolic link")
    # A huge file (sparse: no disk used) is refused by its size, unread.
    huge = tmp_path / "huge"
    big = _write(huge, "big.json", b"")
    with open(big, "r+b") as f:
        f.truncate((256 << 20) + 1)
    refused(huge, "big.json", "more than the")
    # A pipe is refused, never opened (the start does not hang on it).
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "x.json")
    refused(fifo, "x.json", "pipe")
    # A folder that is not there: the system's error, naming it.
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        Emulator(recordings=tmp_path / "nothing-here", scans=0)
    with pytest.raises(ValidationError, match="not a folder"):
        Emulator(recordings=big, scans=0)
    # Hidden names and other files are left alone.
    fine = tmp_path / "fine"
    _write(fine, "GET/q.json", json.dumps(ENTRY))
    _write(fine, ".git/HEAD", "ref: x")
    _write(fine, "README.md", "# recordings")
    _write(fine, "index.json", '{"uuid": "an index the team keeps"}')
    with Emulator(recordings=fine, scans=0) as replay, replay.client() as c:
        assert c.quotas().raw == {"limits": {}}


# ---------------------------------------------------------------- the pytest plugin

SUITE = """
import os
import pytest

UUID = os.environ["REC_UUID"]

@pytest.mark.urlscan_emulator(recordings="recordings", scans=0)
def test_sync(urlscan_client):
    r = urlscan_client.result(UUID)
    assert r.page.domain == os.environ["REC_DOMAIN"]
    assert urlscan_client.screenshot(UUID).startswith(b"\\x89PNG")
    assert urlscan_client.quotas().limits  # not recorded (the conftest's hook): the emulator's own

@pytest.mark.urlscan_emulator(recordings="recordings", scans=0)
async def test_async(urlscan_async_client):
    hits = [h async for h in urlscan_async_client.search("date:>now-1y", size=3, limit=6)]
    assert len(hits) == 6

def test_steers_the_emulator(urlscan_emulator):
    urlscan_emulator.advance(1)
"""


def _pytest(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q", *args],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_plugin_records_against_the_service_and_replays_with_no_key(emu: Emulator, tmp_path: Path) -> None:
    with Client(emu.api_key, base_url=emu.url) as c:
        hit = next(iter(c.search("", limit=1)))
    suite = tmp_path / "suite"
    (suite / "tests").mkdir(parents=True)
    (suite / "tests" / "test_playbook.py").write_text(textwrap.dedent(SUITE))
    (suite / "tests" / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef urlscan_record_hook():\n"
        "    return lambda e: None if e['request']['path'].startswith('/api/v1/quotas') else e\n"
    )
    facts = {"REC_UUID": str(hit.id), "REC_DOMAIN": str(hit.page.domain)}
    service = {"URLSCAN_BASE_URL": emu.url, "URLSCAN_API_KEY": emu.api_key, **facts}
    out = _pytest(suite, service, "--urlscan-record", "tests/recordings", "-rs")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed, 1 skipped" in out.stdout and "--urlscan-record runs the suite" in out.stdout, out.stdout
    folder = suite / "tests" / "recordings"
    assert (folder / "GET" / "api" / "v1" / "result" / str(hit.id)).is_dir()
    assert all(emu.api_key.encode() not in data for data in _files(folder).values())
    assert not (folder / "GET" / "api" / "v1" / "quotas").exists()
    # Offline: no key, no service; the recordings answer.
    out = _pytest(suite, facts)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout, out.stdout
    # Without them the same tests fail: the emulator alone has no such scan.
    shutil.rmtree(folder)
    folder.mkdir()
    out = _pytest(suite, facts)
    assert "2 failed" in out.stdout, out.stdout


# ---------------------------------------------------------------- the command line


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_")}
    return subprocess.run([sys.executable, "-m", "urlscan_rs.cli", *argv], env=clean, capture_output=True, text=True, timeout=120)


def test_the_emulator_command_serves_recordings(emu: Emulator, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    with Client(emu.api_key, base_url=emu.url, record_to=folder) as c:
        quotas = c.quotas().raw
    bad = tmp_path / "bad"
    _write(bad, "GET/broken.json", "{")
    out = _cli("emulator", "--port", "0", "--scans", "0", "--recordings", os.fspath(bad))
    assert out.returncode == 2 and "broken.json" in out.stderr and "not valid JSON" in out.stderr, out.stderr
    out = _cli("emulator", "--port", "0", "--scans", "0", "--recordings", os.fspath(tmp_path / "none"))
    assert out.returncode == 2 and "No such file or directory" in out.stderr and "none" in out.stderr, out.stderr
    out = _cli("emulator", "--background", "--json", "--port", "0", "--scans", "0", "--recordings", os.fspath(folder))
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    try:
        with Client(info["keys"]["free"], base_url=info["URLSCAN_BASE_URL"]) as c:
            assert c.quotas().raw == quotas
    finally:
        stop = _cli("emulator", "--stop", "--pid", str(info["URLSCAN_EMULATOR_PID"]))
        assert stop.returncode == 0, stop.stderr
