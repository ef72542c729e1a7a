"""A Model Context Protocol server over stdio: ``urlscan-rs mcp``.

An assistant doing triage calls the same client as everything else (its
pacing, bounds and errors): tools to scan a URL, read a result's summary and
indicators, and search scans and every data source. Needs the official
``mcp`` package (``pip install "urlscan-rs[mcp]"``); the key comes from
``--api-key``, ``URLSCAN_API_KEY`` or the keyring, as for every command.

Register it with an MCP client (e.g. a ``mcpServers`` entry)::

    {"command": "urlscan-rs", "args": ["mcp"], "env": {"URLSCAN_API_KEY": "..."}}
"""

# No `from __future__ import annotations`: the tools' annotations are evaluated where they are
# defined (in server(), after pydantic is imported), which is where the MCP SDK reads them.
import asyncio
import functools
import importlib.util
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from ._client import AsyncClient
from ._summary import fit
from .errors import UrlscanError

__all__ = ["server", "serve", "MAX_HITS", "MAX_TEXT", "DEFAULT_MAX_BYTES", "MAX_BYTES"]

# Hits one search tool call returns at most: what an assistant can read, not an export.
MAX_HITS = 1000
# The longest text argument (a URL, possibly defanged; a query; a uuid), in characters:
# checked before any work, so a hostile argument costs nothing.
MAX_TEXT = 8192
# What a tool answers at most, in bytes of JSON (see urlscan_rs._summary.fit): the default,
# and the most a call may ask for.
DEFAULT_MAX_BYTES = 4096
MAX_BYTES = 65536


def _text(name: str, value: str) -> str:
    if len(value) > MAX_TEXT:
        raise ValueError(f"{name} must be at most {MAX_TEXT} characters, got {len(value)}")
    return value


def _budget(max_bytes: int) -> int:
    from ._summary import MIN_BYTES

    if not MIN_BYTES <= max_bytes <= MAX_BYTES:
        raise ValueError(f"max_bytes must be from {MIN_BYTES} to {MAX_BYTES}, got {max_bytes}")
    return max_bytes


def _plain(value: Any) -> Any:
    """A record's values as JSON (times as ISO 8601 text)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _indicators(result: Any, max_bytes: int) -> dict[str, Any]:
    ind = result.indicators()
    every = {
        "redirects": list(ind.redirects),
        "domains": list(ind.domains),
        "apex_domains": list(ind.apex_domains),
        "ipv4": list(ind.ipv4),
        "ipv6": list(ind.ipv6),
        "asns": list(ind.asns),
        "hashes": list(ind.hashes),
        "certificates": [
            {"subject": c.subject, "issuer": c.issuer, "valid_to": c.valid_to.isoformat() if c.valid_to else None}
            for c in ind.certificates
        ],
        "links": list(ind.links),
        "urls": list(ind.urls),
    }
    return fit(every, max_bytes)


def server(client: AsyncClient) -> Any:
    """The MCP server (an ``mcp.server.mcpserver.MCPServer``) whose tools call ``client``.

    Every tool checks its arguments before any work (text at most
    :data:`MAX_TEXT` characters, integers that are integers, not ``true``),
    runs what takes CPU (refanging, summaries) off the event loop, and answers
    at most ``max_bytes`` bytes of JSON (default :data:`DEFAULT_MAX_BYTES`, at
    most :data:`MAX_BYTES`): longer strings are shortened and the widest lists
    halved, and ``"omitted"`` says what was left out.
    """
    hint = 'the MCP server needs the mcp package, 2.0 or later: pip install "urlscan-rs[mcp]"'
    if importlib.util.find_spec("mcp") is None:
        raise ImportError(hint)
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError as e:  # mcp 1.x (its server was FastMCP)
        raise ImportError(f"{hint} ({e})") from e
    # pydantic comes with mcp: the tools' arguments are checked by it, strictly (its lax mode
    # would read JSON's true as 1).
    from pydantic import Field, StrictBool, StrictInt

    Seconds = Annotated[float, Field(strict=True)]

    def anticipated(fn: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[dict[str, Any]]]:
        """The client's errors (and bad arguments) as tool errors the assistant reads, with
        their message; anything else stays a crash the server logs."""

        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                return await fn(*args, **kwargs)
            except (UrlscanError, ValueError) as e:
                raise ToolError(f"{type(e).__name__}: {e}") from e

        return call

    app = MCPServer(
        "urlscan-rs",
        instructions=(
            "urlscan.io through urlscan-rs: scan URLs (each scan is a request to the real service: "
            "scan only what the user asked for), read results with their verdicts and indicators, "
            "and search historical scans with the Elasticsearch query-string syntax. Answers are "
            "bounded (max_bytes); 'omitted' says what a long answer left out."
        ),
    )

    @app.tool()
    @anticipated
    async def scan(
        url: str,
        visibility: str | None = None,
        tags: list[str] | None = None,
        wait: StrictBool = True,
        refang: StrictBool = True,
        timeout: Seconds = 120.0,
        initial_wait: Seconds = 10.0,
        max_bytes: StrictInt = DEFAULT_MAX_BYTES,
    ) -> dict[str, Any]:
        """Submit a URL for scanning (defanged input such as hxxps://evil[.]example is undone by
        default). With wait, waits for the result and answers its summary; without, the
        submission (uuid, visibility). visibility: public, unlisted or private (default: the
        account's)."""
        _text("url", url)
        _text("visibility", visibility or "")
        if tags is not None:
            _text("tags", "".join(tags))
        budget = _budget(max_bytes)
        if refang:
            from ._refang import refang as undo

            url = await asyncio.to_thread(undo, url)
        options: dict[str, Any] = {"visibility": visibility, "tags": tags}
        if not wait:
            sub = await client.scan(url, **options)
            return fit({"uuid": sub.uuid, "url": sub.url, "visibility": sub.visibility, "result": sub.result}, budget)
        result = await client.scan_and_wait(url, timeout=timeout, initial_wait=initial_wait, **options)
        return await asyncio.to_thread(result.summary, budget)

    @app.tool()
    @anticipated
    async def result(uuid: str, max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> dict[str, Any]:
        """A finished scan's summary: verdict (malicious is null when unknown), page, and
        indicators (the redirect chain, domains, IPs, ASNs, hashes, links, URLs) with their
        counts, at most max_bytes of JSON."""
        _text("uuid", uuid)
        budget = _budget(max_bytes)
        found = await client.result(uuid)
        return await asyncio.to_thread(found.summary, budget)

    @app.tool()
    @anticipated
    async def indicators(uuid: str, max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> dict[str, Any]:
        """The indicators of a finished scan: the redirect chain, domains, apex domains, IPv4
        and IPv6 addresses, ASNs, response SHA-256 hashes, certificates, links and URLs, at
        most max_bytes of JSON ('omitted' says how many of each were left out)."""
        _text("uuid", uuid)
        budget = _budget(max_bytes)
        found = await client.result(uuid)
        return await asyncio.to_thread(_indicators, found, budget)

    @app.tool()
    @anticipated
    async def search(
        query: str, limit: StrictInt = 20, datasource: str | None = None, max_bytes: StrictInt = DEFAULT_MAX_BYTES
    ) -> dict[str, Any]:
        """Search historical scans (or a data source: hostnames, certificates, domains, incidents,
        notifications) with the query-string syntax, e.g. 'page.domain:example.com AND
        date:>now-7d'. Answers the total and up to `limit` hits (at most 1000), newest first,
        at most max_bytes of JSON."""
        _text("query", query)
        _text("datasource", datasource or "")
        if not 1 <= limit <= MAX_HITS:
            raise ValueError(f"limit must be from 1 to {MAX_HITS}, got {limit}")
        budget = _budget(max_bytes)
        it = client.search(query, limit=limit, datasource=datasource)
        hits = [h async for h in it]

        def shaped() -> dict[str, Any]:
            return fit({"total": it.total, "has_more": it.has_more, "hits": [_plain(h.to_record()) for h in hits]}, budget)

        return await asyncio.to_thread(shaped)

    @app.tool()
    @anticipated
    async def malicious(type: str, value: str, refang: StrictBool = True) -> dict[str, Any]:
        """How many malicious scans showed an observable, and when first and last (urlscan Pro):
        a cheap check before a scan. type: ip, hostname, domain or url (a URL is looked up
        without its scheme and query). A count of 0 means no malicious scan showed it, which is
        not a verdict that it is clean."""
        _text("type", type)
        _text("value", value)
        if refang:
            from ._refang import refang as undo

            value = await asyncio.to_thread(undo, value)
        # The core checks the type (a ValidationError naming the four): the stub's Literal
        # cannot know what an assistant sends.
        kind: Any = type
        m = await client.malicious(kind, value)
        return {
            "type": m.type,
            "observable": m.observable,
            "count": m.count,
            "first_seen": _plain(m.first_seen),
            "last_seen": _plain(m.last_seen),
        }

    @app.tool()
    @anticipated
    async def quotas(max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> dict[str, Any]:
        """What is left of the account's rate limits, per action and window, at most max_bytes of JSON."""
        budget = _budget(max_bytes)
        q = await client.quotas()
        return fit({"scope": q.scope, "limits": q.limits}, budget)

    return app


def serve(client: AsyncClient) -> None:
    """Run the server on stdin and stdout until the other side closes them."""
    server(client).run("stdio")
