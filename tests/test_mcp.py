"""The MCP server over stdio, driven by the official mcp client against the emulator:
its tools and their annotations, answers shaped and bounded, the screenshot as an image,
what it says without a key (and without a request), "unknown" where the service has no
verdict, and errors as tool errors."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs.testing import Emulator, result

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from urlscan_rs.mcp_server import MAX_BYTES, TOOLS  # noqa: E402

DATA = Path(__file__).parent / "data"
PHISH = "https://login.evil.example/account"


async def _session(
    emu: Emulator, calls: list[tuple[str, dict[str, Any]]], *, key: str | None = "premium"
) -> tuple[list[Any], list[Any], str]:
    """One server process with a key of that kind (None: no key): its tools (as listed), each
    call's answer, and what it logged."""
    # The test's interpreter setup (the mcp client passes only a few variables), without any
    # URLSCAN_* setting or keyring of the developer's: the key is the one given, or none.
    env = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    args = ["-m", "urlscan_rs", "mcp", "--base-url", emu.url] + (["--api-key", emu.keys[key]] if key else [])
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = list((await session.list_tools()).tools)
            answers = [await session.call_tool(name, args) for name, args in calls]
        log.seek(0)
        logged = log.read()
    return tools, answers, logged


async def _session_run(emu: Emulator, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    tools, answers, _ = await _session(emu, calls)
    return sorted(t.name for t in tools), answers


def _text(answer: Any) -> str:
    assert not answer.is_error, answer.content
    texts = [c.text for c in answer.content if c.type == "text"]
    assert len(texts) == 1, answer.content
    return str(texts[0])


def _data(answer: Any) -> Any:
    if answer.structured_content is not None:
        assert not answer.is_error, answer.content
        return answer.structured_content.get("result", answer.structured_content)
    return json.loads(_text(answer))


def _error(answer: Any) -> str:
    assert answer.is_error, answer.content
    return str(answer.content[0].text)


def _size(answer: Any) -> int:
    """What the assistant reads, in bytes: the one text block, compact JSON."""
    return len(_text(answer).encode())


def test_the_tools_answer_through_the_client() -> None:
    with Emulator(scans=60, seed=9, scan_duration=0) as emu, emu.client() as c:
        hits = list(c.search("", limit=3))
        known = c.result(hits[0].id)
        tools, answers = asyncio.run(
            _session_run(
                emu,
                [
                    ("search", {"query": "", "limit": 3}),
                    ("result", {"uuid": hits[0].id}),
                    ("indicators", {"uuid": hits[0].id}),
                    ("scan", {"url": "hxxps://www[.]example[.]com/", "initial_wait": 0}),
                    ("quotas", {}),
                    ("malicious", {"type": "hostname", "value": "www[.]example[.]com"}),
                    ("malicious", {"type": "email", "value": "a@example.com"}),
                    ("result", {"uuid": "00000000-0000-4000-8000-000000000000"}),
                    ("search", {"query": "page.domain:(", "limit": 3}),
                    ("search", {"query": "", "limit": 5000}),
                ],
            )
        )
    assert tools == sorted(TOOLS)
    search, result, indicators, scan, quotas, malicious, bad_type, missing, bad_query, too_many = answers
    found = _data(search)
    assert [h["uuid"] for h in found["hits"]] == [h.id for h in hits] and found["total"] >= 3
    assert [h["verdict"] for h in found["hits"]] == [("malicious" if h.verdict.malicious else "not malicious") for h in hits]
    summary = _data(result)
    assert summary["uuid"] == known.uuid and summary["page"]["domain"] == known.page.domain
    assert summary["verdict"]["malicious"] == known.verdict.malicious
    assert summary["verdict"]["status"] == ("malicious" if known.verdict.malicious else "not malicious")
    assert summary["indicators"]["domains"] == list(known.indicators().domains)
    assert summary["report"] == f"{emu.url}/result/{known.uuid}/"
    assert _data(indicators)["hashes"] == list(known.indicators().hashes)
    scanned = _data(scan)
    assert scanned["submitted_url"] == "https://www.example.com/" and scanned["page"]["domain"] == "www.example.com"
    assert _data(quotas)["scope"] == "team"
    # No malicious scan showed it: a count of 0 and no times, which is no verdict.
    never = {"type": "hostname", "observable": "www.example.com", "count": 0, "first_seen": None, "last_seen": None}
    assert _data(malicious) == {**never, "verdict": "unknown"}
    assert "ValidationError" in _error(bad_type)
    # The client's errors come back as tool errors, with their message.
    assert "NotFoundError: HTTP 404 on GET /api/v1/result/" in _error(missing)
    assert "BadRequestError: HTTP 400" in _error(bad_query)
    assert "limit must be from 1 to 1000" in _error(too_many)


def test_every_tool_is_listed_with_its_annotations() -> None:
    with Emulator(scans=0, seed=1) as emu:
        tools, _, _ = asyncio.run(_session(emu, []))
    listed = {t.name: t for t in tools}
    assert sorted(listed) == sorted(TOOLS) and len(listed) == 14
    for name, tool in listed.items():
        hints = tool.annotations
        assert hints is not None, name
        assert hints.read_only_hint is TOOLS[name]["read_only"], name
        assert hints.destructive_hint is False and hints.open_world_hint is (name != "capabilities"), name
        assert tool.title and tool.description, name
        # What a client shows before a call: bounded tools say so in their schema.
        if name not in ("capabilities", "malicious", "screenshot"):
            assert tool.input_schema["properties"]["max_bytes"]["default"] == 4096, name
    # A scan (or a lookup that may scan) is a new record at the service: not read-only, not
    # idempotent; every read is both.
    for name in ("scan", "lookup"):
        assert listed[name].annotations.read_only_hint is False and listed[name].annotations.idempotent_hint is False
    assert all(listed[n].annotations.idempotent_hint for n in TOOLS if n not in ("scan", "lookup"))
    # The search names every data source for the assistant to choose from.
    enum = listed["search"].input_schema["properties"]["datasource"]["enum"]
    assert {"scans", "hostnames", "incidents", "notifications", "certificates", "domains"} <= set(enum)


def test_each_tool_answers_shaped_and_bounded() -> None:
    big = {"result_size": (1_000_000, 1_200_000), "title_size": 200_000}
    with Emulator(scans=20, seed=5, scan_duration=0, **big) as emu, emu.client() as c:
        hit = next(iter(c.search("", limit=1)))
        uuid, domain = hit.id, hit.page.domain
        raw = len(c.with_raw_response.result(uuid).content)
        query = f"page.domain:{domain}"
        saved = c.saved_searches.create(datasource="scans", name="one domain", query=query)
        matching = len(list(c.search(query)))
        bad = emu.add_result(result(PHISH, malicious=True, score=100, brands=["paypal"]))
        calls: list[tuple[str, dict[str, Any]]] = [
            ("result", {"uuid": uuid}),
            ("verdict", {"uuid": uuid}),
            ("indicators", {"uuid": uuid}),
            ("search", {"query": "", "limit": 1000}),
            ("search", {"query": "", "limit": 20, "datasource": "hostnames"}),
            ("search", {"query": "", "limit": 20, "datasource": "domains"}),
            ("similar", {"uuid": uuid, "limit": 50}),
            ("hostname_history", {"hostname": domain, "limit": 1000}),
            ("saved_searches", {}),
            ("saved_search_results", {"search_id": saved.id, "limit": 1000}),
            ("quotas", {}),
            ("lookup", {"url": hit.task.url, "max_age": 10**8}),
            ("capabilities", {}),
            ("malicious", {"type": "url", "value": PHISH}),
        ]
        small = [(n, {**a, "max_bytes": 2048}) for n, a in calls if n not in ("capabilities", "malicious")]
        largest = [(n, {**a, "max_bytes": MAX_BYTES}) for n, a in calls if n in ("result", "indicators", "search")]
        known = [
            ("lookup", {"url": PHISH.replace(".", "[.]"), "check_malicious": True}),
            ("verdict", {"uuid": bad}),
            ("result", {"uuid": bad}),
        ]
        before = emu.stats()["submissions"]
        _, answers, logged = asyncio.run(_session(emu, calls + small + largest + known))
        assert emu.stats()["submissions"] == before  # every lookup here was answered without a scan
    assert "Traceback" not in logged
    by_default, at_least, at_most, phish = (
        answers[: len(calls)],
        answers[len(calls) : len(calls) + len(small)],
        answers[len(calls) + len(small) : -len(known)],
        answers[-len(known) :],
    )
    # A result of a megabyte or more is read as at most 4 KiB by default, and says what it left out.
    assert raw > 1_000_000
    for (name, _), answer in zip(calls, by_default, strict=True):
        assert _size(answer) <= (MAX_BYTES if name == "capabilities" else 4096), name
    for (name, _), answer in zip(small, at_least, strict=True):
        assert _size(answer) <= 2048, name
    for (name, _), answer in zip(largest, at_most, strict=True):
        assert 4096 < _size(answer) <= MAX_BYTES, name
    summary, verdict, indicators, scans, hostnames, domains, similar, history, searches, saved_hits, quotas, lookup = (
        _data(a) for a in by_default[:12]
    )
    assert summary["uuid"] == uuid and "page.title" in summary["omitted"] and summary["verdict"]["status"] != "unknown"
    assert verdict["uuid"] == uuid and verdict["status"] in ("malicious", "not malicious")
    assert set(verdict["evidence"]) == {"overall", "urlscan", "engines", "community"}
    assert indicators["omitted"]["urls"]["of"] > len(indicators["urls"])
    assert scans["total"] == 21 and 0 < len(scans["hits"]) < scans["returned"] == 21 and "hits" in scans["omitted"]
    assert all(h["verdict"] in ("malicious", "not malicious") for h in scans["hits"])
    assert hostnames["returned"] == 20 and all("hostname" in h and "verdict" not in h for h in hostnames["hits"])
    assert domains["returned"] > 0 and "domain" in domains["hits"][0]
    assert similar["returned"] >= len(similar["hits"]) and "total" in similar
    assert history["hostname"] == domain and history["returned"] > 0 and "source" in history["records"][0]
    assert searches["returned"] == 1 and searches["saved_searches"][0]["id"] == saved.id
    assert saved_hits["returned"] == matching > 0
    assert "retrieve" in quotas["limits"]
    assert lookup["reused"] is True and lookup["uuid"] == uuid and "page.title" in lookup["omitted"]
    # A page the malicious lookup knows is neither searched for nor scanned; its verdicts read "malicious".
    known_lookup, bad_verdict, bad_summary = (_data(a) for a in phish)
    assert known_lookup["reused"] is None and known_lookup["uuid"] is None
    assert (
        known_lookup["malicious_lookup"]["count"] == 1
        and known_lookup["malicious_lookup"]["verdict"] == "seen in malicious scans"
    )
    assert bad_verdict["status"] == bad_verdict["at_threshold"] == "malicious" and bad_verdict["brands"] == ["paypal"]
    assert bad_summary["verdict"]["status"] == "malicious"


def test_the_screenshot_is_an_image() -> None:
    with Emulator(scans=5, seed=2) as emu, emu.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
        png = bytes(c.screenshot(uuid))
        _, (shown, too_big, missing), _ = asyncio.run(
            _session(
                emu,
                [
                    ("screenshot", {"uuid": uuid}),
                    ("screenshot", {"uuid": uuid, "max_bytes": len(png) - 1}),
                    ("screenshot", {"uuid": "00000000-0000-4000-8000-000000000000"}),
                ],
            )
        )
    assert not shown.is_error
    image, facts = shown.content
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == png and png.startswith(b"\x89PNG")
    assert json.loads(facts.text) == {"uuid": uuid, "bytes": len(png), "mime_type": "image/png"}
    # Larger than asked: said, not sent.
    assert [c.type for c in too_big.content] == ["text"] and "above max_bytes" in _data(too_big)["omitted"]
    assert "NotFoundError" in _error(missing)


def _photo_png(width: int, height: int) -> bytes:
    """A PNG that compresses as a page's screenshot does not: noise, at a screenshot's size."""
    from PIL import Image as Pil

    out = io.BytesIO()
    Pil.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3)).save(out, format="PNG")
    return out.getvalue()


def test_a_large_screenshot_is_sent_scaled_down_within_max_bytes() -> None:
    from PIL import Image as Pil

    big = _photo_png(1280, 1024)  # about 3.9 MB: above the default 64 KiB and above 1 MiB
    tiny_lie = _png_declaring(100_000, 100_000)
    with Emulator(scans=5, seed=2) as emu:
        shot = emu.add_result(result("https://shot.example/"), screenshot=big)
        lie = emu.add_result(result("https://lie.example/"), screenshot=tiny_lie)
        _, (default, bigger, impossible, declared), _ = asyncio.run(
            _session(
                emu,
                [
                    ("screenshot", {"uuid": shot}),
                    ("screenshot", {"uuid": shot, "max_bytes": 1 << 20}),
                    ("screenshot", {"uuid": shot, "max_bytes": 100}),
                    ("screenshot", {"uuid": lie, "max_bytes": 50}),
                ],
            )
        )
    for answer, bound in ((default, 65536), (bigger, 1 << 20)):
        assert not answer.is_error
        image, facts = answer.content
        jpeg = base64.b64decode(image.data)
        assert image.mime_type == "image/jpeg" and len(jpeg) <= bound
        said = json.loads(facts.text)
        assert said["bytes"] == len(jpeg) and said["mime_type"] == "image/jpeg"
        assert said["original"] == {"bytes": len(big), "width": 1280, "height": 1024, "mime_type": "image/png"}
        with Pil.open(io.BytesIO(jpeg)) as img:
            assert img.format == "JPEG" and img.size == (said["width"], said["height"])
            assert img.width * 1024 == img.height * 1280  # the page's proportions kept
    # With more room, a larger image.
    assert json.loads(bigger.content[1].text)["width"] > json.loads(default.content[1].text)["width"]
    # Too small a bound for any JPEG: said, not sent.
    assert [c.type for c in impossible.content] == ["text"]
    assert "even as a JPEG 160 pixels wide" in _data(impossible)["omitted"]
    # A PNG above the bound that declares ten billion pixels is not decoded.
    assert [c.type for c in declared.content] == ["text"]
    assert "100000x100000 pixels: not decoded" in _data(declared)["omitted"]


def _png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares `width` x `height` pixels, with one tiny compressed row."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def test_capabilities_needs_no_key_and_sends_no_request() -> None:
    with Emulator(scans=10, seed=3) as emu:
        uuid = next(iter(emu.client().search("", limit=1))).id
        before = emu.stats()["requests"]
        _, (caps, again), _ = asyncio.run(_session(emu, [("capabilities", {}), ("capabilities", {})], key=None))
        assert emu.stats()["requests"] == before
        # What it says can be done without a key, can; what needs one is a tool error saying so.
        _, (search, screenshot, quotas, similar, last), logged = asyncio.run(
            _session(
                emu,
                [
                    ("search", {"query": "", "limit": 2}),
                    ("screenshot", {"uuid": uuid}),
                    ("quotas", {}),
                    ("similar", {"uuid": uuid}),
                    ("capabilities", {}),
                ],
                key=None,
            )
        )
        _, (keyed,), _ = asyncio.run(_session(emu, [("capabilities", {})]))
    said = _data(caps)
    assert said == _data(again) == _data(last)
    assert said["api_key"] == "not configured" and _data(keyed)["api_key"] == "configured"
    assert said["base_url"] == emu.url and said["server"] == "urlscan-rs"
    assert said["usable_without_a_key"] == ["capabilities", "screenshot", "search"]
    assert set(said["tools"]) == set(TOOLS) and said["tools"]["similar"]["needs"] == "a urlscan Pro key"
    assert said["tools"]["scan"]["read_only"] is False and said["bounds"]["max_bytes"]["max"] == MAX_BYTES
    assert said["verdicts"]["unknown"].startswith("the service gave no verdict")
    assert emu.api_key not in json.dumps(_data(keyed))
    assert _data(search)["returned"] == 2 and screenshot.content[0].type == "image"
    assert "quotas needs an API key (any plan); none is configured" in _error(quotas)
    assert "similar needs a urlscan Pro key; none is configured" in _error(similar)
    assert "unexpected" not in logged


def test_a_result_without_verdicts_reads_unknown() -> None:
    doc = json.loads((DATA / "result-2018-google.json").read_text())
    assert "verdicts" not in doc
    # A lookup reuses only a page that answered; this one (2018) did not say: it says so now.
    doc["page"]["status"] = "200"
    with Emulator(scans=5, seed=4) as emu, emu.client() as c:
        uuid = emu.add_result(doc)
        assert c.result(uuid).is_malicious() is None
        _, answers, _ = asyncio.run(
            _session(
                emu,
                [
                    ("result", {"uuid": uuid}),
                    ("verdict", {"uuid": uuid}),
                    ("search", {"query": f"task.uuid:{uuid}"}),
                    ("lookup", {"url": doc["task"]["url"], "max_age": 316_224_000}),
                ],
            )
        )
    summary, verdict, search, lookup = (_data(a) for a in answers)
    assert summary["verdict"]["status"] == "unknown" and summary["verdict"]["malicious"] is None
    assert verdict["status"] == verdict["at_threshold"] == "unknown" and verdict["malicious"] is None
    assert verdict["score"] is None and verdict["evidence"] == {} and verdict["sources"] == []
    assert [h["verdict"] for h in search["hits"]] == ["unknown"] and search["hits"][0]["uuid"] == uuid
    assert lookup["reused"] is True and lookup["verdict"]["status"] == "unknown"
    for answer in answers:
        assert "clean" not in _text(answer).lower()


def test_errors_are_tool_errors_not_crashes() -> None:
    with Emulator(scans=5, seed=6) as emu, emu.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
        calls: list[tuple[str, dict[str, Any]]] = [
            ("search", {"query": "", "datasource": "nope"}),
            ("verdict", {"uuid": uuid, "threshold": 500}),
            ("verdict", {"uuid": "not-a-uuid"}),
            ("indicators", {"uuid": uuid, "max_bytes": 100}),
            ("hostname_history", {"hostname": "x" * 9000}),
            ("similar", {"uuid": uuid, "limit": 0}),
            ("saved_search_results", {"search_id": "missing"}),
            ("screenshot", {"uuid": uuid, "max_bytes": 0}),
            ("lookup", {"url": "ftp://example.com/", "visibility": "everyone"}),
            ("scan", {"url": "https://example.com/", "wait": "yes"}),
            ("no_such_tool", {}),
            ("capabilities", {}),
        ]
        _, answers, logged = asyncio.run(_session(emu, calls))
        # A key without urlscan Pro: the tool error says what the tool needs.
        _, (refused,), _ = asyncio.run(_session(emu, [("hostname_history", {"hostname": "example.com"})], key="free"))
    *errors, last = answers
    texts = [_error(a) for a in errors]
    assert "datasource must be one of scans, hostnames" in texts[0]
    assert "threshold must be from -100 to 100" in texts[1]
    assert "ValidationError" in texts[2]
    assert "max_bytes must be from 2048 to 65536" in texts[3]
    assert "hostname must be at most 8192 characters" in texts[4]
    assert "limit must be from 1 to 1000" in texts[5]
    assert "NotFoundError" in texts[6]
    assert "max_bytes must be from 1 to" in texts[7]
    assert "ValidationError" in texts[8]
    assert "wait" in texts[9]
    assert "Unknown tool: no_such_tool" in texts[10]
    assert _data(last)["api_key"] == "configured"
    assert "unexpected" not in logged and "Traceback" not in logged
    assert "hostname_history needs a urlscan Pro key; the configured key may not have it" in _error(refused)
