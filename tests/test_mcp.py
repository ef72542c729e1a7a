"""The MCP server over stdio, driven by the official mcp client against the emulator:
its tools, their answers, and errors as tool errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import pytest

from urlscan_rs.testing import Emulator

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402


async def _session_run(emu: Emulator, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "urlscan_rs", "mcp", "--base-url", emu.url, "--api-key", emu.api_key],
        env=dict(os.environ),  # the test's interpreter setup (the mcp client passes only a few variables)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        answers = [await session.call_tool(name, args) for name, args in calls]
    return tools, answers


def _data(answer: Any) -> Any:
    assert not answer.is_error, answer.content
    if answer.structured_content is not None:
        return answer.structured_content.get("result", answer.structured_content)
    return json.loads(answer.content[0].text)


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
    assert tools == ["indicators", "malicious", "quotas", "result", "scan", "search"]
    search, result, indicators, scan, quotas, malicious, bad_type, missing, bad_query, too_many = answers
    found = _data(search)
    assert [h["uuid"] for h in found["hits"]] == [h.id for h in hits] and found["total"] >= 3
    summary = _data(result)
    assert summary["uuid"] == known.uuid and summary["page"]["domain"] == known.page.domain
    assert summary["verdict"]["malicious"] == known.verdict.malicious
    assert summary["indicators"]["domains"] == list(known.indicators().domains)
    assert summary["report"] == f"{emu.url}/result/{known.uuid}/"
    assert _data(indicators)["hashes"] == list(known.indicators().hashes)
    scanned = _data(scan)
    assert scanned["submitted_url"] == "https://www.example.com/" and scanned["page"]["domain"] == "www.example.com"
    assert _data(quotas)["scope"] == "team"
    # No malicious scan showed it: a count of 0 and no times (which the tool says is no verdict).
    never = {"type": "hostname", "observable": "www.example.com", "count": 0, "first_seen": None, "last_seen": None}
    assert _data(malicious) == never
    assert bad_type.is_error and "ValidationError" in bad_type.content[0].text
    # The client's errors come back as tool errors, with their message.
    assert missing.is_error and "NotFoundError: HTTP 404 on GET /api/v1/result/" in missing.content[0].text
    assert bad_query.is_error and "BadRequestError: HTTP 400" in bad_query.content[0].text
    assert too_many.is_error and "limit must be from 1 to 1000" in too_many.content[0].text
