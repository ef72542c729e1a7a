"""A Model Context Protocol server over stdio: ``urlscan-rs mcp``.

An assistant doing triage calls the same client as everything else (its
pacing, bounds and errors): tools to scan a URL, read a result's summary and
indicators, and search scans and every data source. Needs the official
``mcp`` package (``pip install "urlscan-rs[mcp]"``); the key comes from
``--api-key``, ``URLSCAN_API_KEY`` or the keyring, as for every command.

Register it with an MCP client (e.g. a ``mcpServers`` entry)::

    {"command": "urlscan-rs", "args": ["mcp"], "env": {"URLSCAN_API_KEY": "..."}}
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Awaitable, Callable
from typing import Any

from ._client import AsyncClient
from .errors import UrlscanError
from .models import ScanResult

__all__ = ["server", "serve", "MAX_HITS"]

# Hits one search tool call returns at most: what an assistant can read, not an export.
MAX_HITS = 1000


def _summary(result: ScanResult) -> dict[str, Any]:
    """What an assistant needs of a result: the page, the verdict and the indicators."""
    v = result.verdict
    ind = result.indicators()
    record = result.to_record()
    return {
        "uuid": result.uuid,
        "submitted_url": result.url,
        "time": result.time.isoformat() if result.time else None,
        "page": {
            "url": result.page.url,
            "domain": result.page.domain,
            "ip": result.page.ip,
            "country": result.page.country,
            "asn": result.page.asn,
            "server": result.page.server,
            "title": result.page.title,
        },
        "verdict": {
            "malicious": v.malicious,
            "score": v.score,
            "categories": list(v.categories),
            "brands": list(v.brands),
            "tags": list(v.tags),
        },
        "indicators": {
            "domains": list(ind.domains),
            "apex_domains": list(ind.apex_domains),
            "ips": list(ind.ips),
            "asns": list(ind.asns),
            "redirects": list(ind.redirects),
            "urls": len(ind.urls),
            "hashes": len(ind.hashes),
            "certificates": len(ind.certificates),
        },
        "report": record["report"],
        "screenshot": record["screenshot"],
    }


def _plain(value: Any) -> Any:
    """A record's values as JSON (times as ISO 8601 text)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def server(client: AsyncClient) -> Any:
    """The MCP server (an ``mcp.server.mcpserver.MCPServer``) whose tools call ``client``."""
    hint = 'the MCP server needs the mcp package, 2.0 or later: pip install "urlscan-rs[mcp]"'
    if importlib.util.find_spec("mcp") is None:
        raise ImportError(hint)
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError as e:  # mcp 1.x (its server was FastMCP)
        raise ImportError(f"{hint} ({e})") from e

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
            "and search historical scans with the Elasticsearch query-string syntax."
        ),
    )

    @app.tool()
    @anticipated
    async def scan(
        url: str,
        visibility: str | None = None,
        tags: list[str] | None = None,
        wait: bool = True,
        refang: bool = True,
        timeout: float = 120.0,
        initial_wait: float = 10.0,
    ) -> dict[str, Any]:
        """Submit a URL for scanning (defanged input such as hxxps://evil[.]example is undone by
        default). With wait, waits for the result and answers its summary; without, the
        submission (uuid, visibility). visibility: public, unlisted or private (default: the
        account's)."""
        options: dict[str, Any] = {"visibility": visibility, "tags": tags, "refang": refang}
        if not wait:
            sub = await client.scan(url, **options)
            return {"uuid": sub.uuid, "url": sub.url, "visibility": sub.visibility, "result": sub.result}
        result = await client.scan_and_wait(url, timeout=timeout, initial_wait=initial_wait, **options)
        return _summary(result)

    @app.tool()
    @anticipated
    async def result(uuid: str) -> dict[str, Any]:
        """A finished scan's summary: page, verdict (malicious is null when unknown), and
        indicators (domains, IPs, ASNs, the redirect chain, counts of URLs and hashes)."""
        return _summary(await client.result(uuid))

    @app.tool()
    @anticipated
    async def indicators(uuid: str) -> dict[str, Any]:
        """Every indicator of a finished scan: URLs, domains, apex domains, IPv4 and IPv6
        addresses, ASNs, response SHA-256 hashes, certificates, redirects and links."""
        ind = (await client.result(uuid)).indicators()
        return {
            "urls": list(ind.urls),
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
            "redirects": list(ind.redirects),
            "links": list(ind.links),
        }

    @app.tool()
    @anticipated
    async def search(query: str, limit: int = 20, datasource: str | None = None) -> dict[str, Any]:
        """Search historical scans (or a data source: hostnames, certificates, domains, incidents,
        notifications) with the query-string syntax, e.g. 'page.domain:example.com AND
        date:>now-7d'. Answers the total and up to `limit` hits (at most 1000), newest first."""
        if not 1 <= limit <= MAX_HITS:
            raise ValueError(f"limit must be from 1 to {MAX_HITS}, got {limit}")
        it = client.search(query, limit=limit, datasource=datasource)
        hits = [_plain(h.to_record()) async for h in it]
        return {"total": it.total, "has_more": it.has_more, "hits": hits}

    @app.tool()
    @anticipated
    async def quotas() -> dict[str, Any]:
        """What is left of the account's rate limits, per action and window."""
        q = await client.quotas()
        return {"scope": q.scope, "limits": q.limits}

    return app


def serve(client: AsyncClient) -> None:
    """Run the server on stdin and stdout until the other side closes them."""
    server(client).run("stdio")
