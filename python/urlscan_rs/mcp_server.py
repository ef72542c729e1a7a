"""A Model Context Protocol server over stdio: ``urlscan-rs mcp``.

An assistant doing triage calls the same client as everything else (its
pacing, bounds and errors): tools to look a URL up or scan it, read a
result's summary, verdict (with its evidence), indicators and screenshot,
search scans and every data source, find similar scans, walk a hostname's
history, ask the malicious lookup, read saved searches and quotas, and ask
the server what it can do (``capabilities``, which needs no key and sends no
request). Needs the official ``mcp`` package (``pip install
"urlscan-rs[mcp]"``); the key comes from ``--api-key``, ``URLSCAN_API_KEY`` or
the keyring, as for every command.

Every text answer is one block of compact JSON of at most ``max_bytes`` bytes
(default ``DEFAULT_MAX_BYTES``, at most ``MAX_BYTES``), cut by
:func:`urlscan_rs._summary.fit` with ``"omitted"`` saying what was left out.
Where the service gave no verdict the answer says ``"unknown"``, never clean.

Register it with an MCP client (e.g. a ``mcpServers`` entry)::

    {"command": "urlscan-rs", "args": ["mcp"], "env": {"URLSCAN_API_KEY": "..."}}
"""

# No `from __future__ import annotations`: the tools' annotations are evaluated where they are
# defined (in server(), after pydantic is imported), which is where the MCP SDK reads them.
import asyncio
import functools
import importlib.util
import io
import json
import struct
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from ._client import AsyncClient
from ._summary import MIN_BYTES, SUMMARY_KEEP, SUMMARY_WHOLE, fit, unfitted
from .errors import AuthenticationError, DecodeError, PermissionDeniedError, UrlscanError

__all__ = [
    "server",
    "serve",
    "TOOLS",
    "MAX_HITS",
    "MAX_TEXT",
    "DEFAULT_MAX_BYTES",
    "MAX_BYTES",
    "MAX_IMAGE_BYTES",
]

# Hits (or records) one tool call returns at most: what an assistant can read, not an export.
MAX_HITS = 1000
# The longest text argument (a URL, possibly defanged; a query; a uuid), in characters:
# checked before any work, so a hostile argument costs nothing.
MAX_TEXT = 8192
# What a text answer is at most, in bytes of compact JSON (see urlscan_rs._summary.fit): the
# default, and the most a call may ask for.
DEFAULT_MAX_BYTES = 4096
MAX_BYTES = 65536
# The screenshot tool's image: at most max_bytes (default MAX_BYTES, as the text answers; at most
# MAX_IMAGE_BYTES, what assistants' image inputs take). A larger PNG is sent smaller, as a JPEG
# scaled down (Pillow) until it fits; one that cannot be made to fit is said, not sent.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
# Widths and JPEG qualities tried, in order, until the image fits: a bounded number of encodings.
_IMAGE_WIDTHS = (1280, 960, 640, 480, 320, 240, 160)
_IMAGE_QUALITIES = (75, 50, 30)
# A screenshot declaring more pixels than this is not decoded (a PNG of a few KB can declare
# billions); a page's screenshot is about 1.3 million.
_MAX_IMAGE_PIXELS = 40_000_000

_NOTHING = "nothing (no API key)"
_KEY = "an API key (any plan)"
_PRO = "a urlscan Pro key"

# Every tool: what it needs of the key, and whether it only reads. The capabilities tool answers
# from this, without a request; a refused call's tool error repeats it.
TOOLS: dict[str, dict[str, Any]] = {
    "capabilities": {"needs": "nothing (answers locally, sends no request)", "read_only": True},
    "lookup": {"needs": f"{_KEY}; {_PRO} with check_malicious", "read_only": False},
    "scan": {"needs": _KEY, "read_only": False},
    "result": {"needs": _KEY, "read_only": True},
    "verdict": {"needs": _KEY, "read_only": True},
    "indicators": {"needs": _KEY, "read_only": True},
    "screenshot": {"needs": _NOTHING, "read_only": True},
    "search": {"needs": f"{_NOTHING} for scans; {_PRO} for the other data sources", "read_only": True},
    "similar": {"needs": _PRO, "read_only": True},
    "hostname_history": {"needs": _PRO, "read_only": True},
    "malicious": {"needs": _PRO, "read_only": True},
    "quotas": {"needs": _KEY, "read_only": True},
    "saved_searches": {"needs": _PRO, "read_only": True},
    "saved_search_results": {"needs": _PRO, "read_only": True},
}

# The words of a verdict. No verdict is "unknown": never read as clean.
MALICIOUS, NOT_MALICIOUS, UNKNOWN = "malicious", "not malicious", "unknown"


def _status(flag: Any) -> str:
    return MALICIOUS if flag is True else NOT_MALICIOUS if flag is False else UNKNOWN


def _text(name: str, value: str) -> str:
    if len(value) > MAX_TEXT:
        raise ValueError(f"{name} must be at most {MAX_TEXT} characters, got {len(value)}")
    return value


def _budget(max_bytes: int) -> int:
    if not MIN_BYTES <= max_bytes <= MAX_BYTES:
        raise ValueError(f"max_bytes must be from {MIN_BYTES} to {MAX_BYTES}, got {max_bytes}")
    return max_bytes


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_HITS:
        raise ValueError(f"limit must be from 1 to {MAX_HITS}, got {limit}")
    return limit


def _plain(value: Any) -> Any:
    """A record's values as JSON (times as ISO 8601 text)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _without_credentials(url: str) -> str:
    """An address as an answer may show it: no user or password in it."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))


def _json(data: dict[str, Any]) -> str:
    # As fit() measures it: compact, UTF-8.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def _record(hit: Any) -> dict[str, Any]:
    """A hit as its table row; a scan's with its verdict in words ("unknown" when it has none)."""
    row: dict[str, Any] = _plain(hit.to_record())
    if "malicious" in row and hasattr(hit, "verdict"):
        row["verdict"] = _status(hit.verdict.malicious)
    return row


def _hits(hits: list[Any], it: Any, budget: int) -> dict[str, Any]:
    return fit(
        {
            "total": getattr(it, "total", None),
            "has_more": getattr(it, "has_more", None),
            "returned": len(hits),
            "search_after": getattr(it, "search_after", None),
            "hits": [_record(h) for h in hits],
        },
        budget,
        keep=("total", "returned"),
    )


def _summary(result: Any, budget: int, **extra: Any) -> dict[str, Any]:
    """A result's summary with the verdict in words and `extra` fields, fitted as one."""
    full = unfitted(result)
    verdict = full["verdict"]
    full["verdict"] = {"status": _status(verdict["malicious"]), **verdict}
    return fit({**extra, **full}, budget, keep=(*extra, *SUMMARY_KEEP), whole=SUMMARY_WHOLE)


def _verdict(result: Any, threshold: int, budget: int) -> dict[str, Any]:
    v = result.verdict
    parts = result.verdicts
    # Each verdict that spoke, as the service sent it: what the status rests on.
    sent = {n: getattr(parts, n).to_dict() for n in ("overall", "urlscan", "engines", "community")}
    evidence = {n: d for n, d in sent.items() if d}
    page = result.page
    record = result.to_record()
    return fit(
        {
            "uuid": result.uuid,
            "status": _status(v.malicious),
            "at_threshold": _status(result.is_malicious(threshold)),
            "threshold": threshold,
            "malicious": v.malicious,
            "score": v.score,
            "categories": list(v.categories),
            "brands": list(v.brands),
            "tags": list(v.tags),
            "sources": list(v.sources),
            # Safe Browsing's threat types: [] when it lists none, "unknown" when the scan holds
            # no answer of it.
            "safe_browsing": UNKNOWN if v.safe_browsing is None else list(v.safe_browsing),
            "brand_ai": v.brand_ai,
            "evidence": evidence,
            "page": {"url": page.url, "domain": page.domain, "ip": page.ip, "country": page.country, "title": page.title},
            "report": record.get("report"),
        },
        budget,
        keep=("uuid", "status", "at_threshold", "malicious", "score"),
        whole=("uuid",),
    )


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


def _malicious(m: Any) -> dict[str, Any]:
    # A count of 0 is no verdict: the lookup knows malicious scans only.
    return {
        "type": m.type,
        "observable": m.observable,
        "count": m.count,
        "first_seen": _plain(m.first_seen),
        "last_seen": _plain(m.last_seen),
        "verdict": "seen in malicious scans" if m.count else UNKNOWN,
    }


def _fitted(png: bytes, max_bytes: int) -> tuple[bytes | None, dict[str, Any]]:
    """``png`` as a JPEG of at most ``max_bytes``, scaled down as far as it must be, and the facts
    of it; ``(None, facts)`` with ``omitted`` saying why when none fits or it cannot be read."""
    above = f"the image: {len(png)} bytes, above max_bytes ({max_bytes})"
    try:
        from PIL import Image as Pil
    except ImportError:
        return None, {"omitted": f'{above}; pip install "urlscan-rs[mcp]" (Pillow) to have it sent scaled down'}
    if png[12:16] == b"IHDR":  # the size its header declares, read before any decoding
        width, height = struct.unpack(">II", png[16:24])
        if width * height > _MAX_IMAGE_PIXELS:
            return None, {"omitted": f"{above}, and {width}x{height} pixels: not decoded"}
    try:
        with Pil.open(io.BytesIO(png)) as img:
            width, height = img.size
            rgb = img.convert("RGB")
    except (OSError, ValueError, Pil.DecompressionBombError) as e:
        return None, {"omitted": f"{above}, and not readable as an image ({type(e).__name__})"}
    original = {"bytes": len(png), "width": width, "height": height, "mime_type": "image/png"}
    for target in [w for w in _IMAGE_WIDTHS if w <= width] or [width]:
        scaled = rgb if target == width else rgb.resize((target, max(1, round(height * target / width))), Pil.Resampling.LANCZOS)
        for quality in _IMAGE_QUALITIES:
            out = io.BytesIO()
            scaled.save(out, format="JPEG", quality=quality, optimize=True)
            if out.tell() <= max_bytes:
                facts = {"mime_type": "image/jpeg", "width": scaled.width, "height": scaled.height, "original": original}
                return out.getvalue(), facts
    return None, {"omitted": f"{above}, even as a JPEG {_IMAGE_WIDTHS[-1]} pixels wide"}


def server(client: AsyncClient) -> Any:
    """The MCP server (an ``mcp.server.mcpserver.MCPServer``) whose tools call ``client``.

    Every tool checks its arguments before any work (text at most
    ``MAX_TEXT`` characters, integers that are integers, not ``true``),
    runs what takes CPU (refanging, summaries) off the event loop, and answers
    one text block of compact JSON of at most ``max_bytes`` bytes (default
    ``DEFAULT_MAX_BYTES``, at most ``MAX_BYTES``): longer strings are
    shortened and the widest lists halved, and ``"omitted"`` says what was left
    out. The screenshot tool answers the screenshot as image content of at
    most ``max_bytes`` too (a larger PNG scaled down as a JPEG; at most
    ``MAX_IMAGE_BYTES``). Each tool carries MCP annotations (read-only,
    destructive, idempotent, open-world); ``TOOLS`` says what each needs of
    the key.
    """
    hint = 'the MCP server needs the mcp package, 2.0 or later: pip install "urlscan-rs[mcp]"'
    if importlib.util.find_spec("mcp") is None:
        raise ImportError(hint)
    try:
        from mcp.server.mcpserver import Image, MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import TextContent, ToolAnnotations
    except ImportError as e:  # mcp 1.x (its server was FastMCP)
        raise ImportError(f"{hint} ({e})") from e
    # pydantic comes with mcp: the tools' arguments are checked by it, strictly (its lax mode
    # would read JSON's true as 1).
    from pydantic import Field, StrictBool, StrictInt

    from ._native import WAIT_DEFAULTS, __version__, data_sources

    Seconds = Annotated[float, Field(strict=True)]
    # The data sources, from the core's table (the client checks the name again, with a
    # suggestion): in the schema, an assistant sees the choices.
    sources = [d["name"] for d in data_sources()]
    DataSource = Annotated[str | None, Field(json_schema_extra={"enum": [*sources, None]})]
    # The key's presence is the core's to say (an API key never leaves it).
    keyed = bool(getattr(getattr(client, "_core", None), "has_api_key", False))
    base_url = _without_credentials(client.base_url)

    # What a tool may do, for clients that ask before calling: reads of the service; reads of
    # this server alone; a scan (a new record at the service, nothing destroyed).
    read = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
    local = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    submits = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)

    def answer(data: dict[str, Any]) -> TextContent:
        return TextContent(type="text", text=_json(data))

    def anticipated(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """The client's errors (and bad arguments) as tool errors the assistant reads, with
        their message (and, when refused, what the tool needs of the key); anything else
        stays a crash the server logs."""
        needs = TOOLS[fn.__name__]["needs"]

        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except (AuthenticationError, PermissionDeniedError) as e:
                why = "the configured key may not have it" if keyed else "none is configured: set URLSCAN_API_KEY"
                raise ToolError(f"{type(e).__name__}: {e} ({fn.__name__} needs {needs}; {why})") from e
            except (UrlscanError, ValueError) as e:
                raise ToolError(f"{type(e).__name__}: {e}") from e

        return call

    async def undo(text: str) -> str:
        from ._refang import refang

        return await asyncio.to_thread(refang, text)

    async def submitted(
        url: str, visibility: str | None, tags: list[str] | None, refang: bool, max_bytes: int
    ) -> tuple[str, dict[str, Any], int]:
        """What lookup and scan check and prepare alike: the URL (defanging undone with
        refang), the scan's options and the answer's budget."""
        _text("url", url)
        _text("visibility", visibility or "")
        if tags is not None:
            _text("tags", "".join(tags))
        budget = _budget(max_bytes)
        if refang:
            url = await undo(url)
        # The client checks visibility (naming the choices): the stub's Literal cannot know
        # what an assistant sends.
        return url, {"visibility": visibility, "tags": tags}, budget

    async def of_result(uuid: str, max_bytes: int, shape: Callable[[Any, int], dict[str, Any]]) -> TextContent:
        """A finished scan's result, shaped off the event loop within max_bytes."""
        _text("uuid", uuid)
        budget = _budget(max_bytes)
        found = await client.result(uuid)
        return answer(await asyncio.to_thread(shape, found, budget))

    async def listed(it: Any, budget: int) -> TextContent:
        """Every hit of a walk (bounded by its limit), with its total and cursor."""
        hits = [h async for h in it]
        return answer(await asyncio.to_thread(_hits, hits, it, budget))

    app = MCPServer(
        "urlscan-rs",
        version=__version__,
        instructions=(
            "urlscan.io through urlscan-rs. Call capabilities first: it says which tools the "
            "configured key allows (it needs no key and sends no request). lookup reuses a recent "
            "scan of a URL before scanning it; scan always submits one (each scan is a request to "
            "the real service, visible to others unless private: scan only what the user asked "
            "for). result, verdict, indicators and screenshot read a finished scan; search covers "
            "scans and every data source with the Elasticsearch query-string syntax. A verdict is "
            "'malicious', 'not malicious' or 'unknown' (the service gave none: never read it as "
            "clean). Answers are bounded (max_bytes); 'omitted' says what a long answer left out."
        ),
    )

    @app.tool(title="What this server can do", annotations=local)
    async def capabilities() -> TextContent:
        """What this server can do, without a key and without a request: each tool, what it
        needs of the API key (none, any plan, or urlscan Pro) and whether it only reads;
        whether a key is configured; the service's address; the bounds of every answer; and
        what the verdict words mean."""
        return answer(
            fit(
                {
                    "server": "urlscan-rs",
                    "version": __version__,
                    "base_url": base_url,
                    "api_key": "configured" if keyed else "not configured",
                    "usable_without_a_key": [n for n, t in TOOLS.items() if t["needs"].startswith("nothing")],
                    "tools": TOOLS,
                    "data_sources": sources,
                    "bounds": {
                        "max_bytes": {"default": DEFAULT_MAX_BYTES, "min": MIN_BYTES, "max": MAX_BYTES},
                        "max_hits": MAX_HITS,
                        "max_text": MAX_TEXT,
                        "max_image_bytes": MAX_IMAGE_BYTES,
                    },
                    "verdicts": {
                        MALICIOUS: "the service's verdicts say malicious",
                        NOT_MALICIOUS: "the service's verdicts say not malicious (not a proof of safety)",
                        UNKNOWN: "the service gave no verdict: not clean, not known",
                    },
                },
                MAX_BYTES,
            )
        )

    @app.tool(title="Look up a URL, or scan it", annotations=submits)
    @anticipated
    async def lookup(
        url: str,
        max_age: Seconds = 86400.0,
        check_malicious: StrictBool = False,
        visibility: str | None = None,
        tags: list[str] | None = None,
        refang: StrictBool = True,
        timeout: Seconds = WAIT_DEFAULTS["timeout"],
        initial_wait: Seconds = WAIT_DEFAULTS["initial_wait"],
        max_bytes: StrictInt = DEFAULT_MAX_BYTES,
    ) -> TextContent:
        """The summary of a finished scan of the URL no older than max_age seconds, reused
        (reused: true), or of a new scan made and waited for (reused: false). With
        check_malicious (urlscan Pro), the malicious lookup is asked first, and a URL it
        already knows is neither searched for nor scanned. Defanged input (hxxps://evil[.]example)
        is undone by default. verdict.status is 'malicious', 'not malicious' or 'unknown'."""
        url, options, budget = await submitted(url, visibility, tags, refang, max_bytes)
        found = await client.lookup_or_scan(
            url, max_age=max_age, check_malicious=check_malicious, timeout=timeout, initial_wait=initial_wait, **options
        )
        seen = None if found.malicious is None else _malicious(found.malicious)
        if found.result is None:
            known = {"url": url, "reused": None, "uuid": None, "malicious_lookup": seen}
            return answer(fit({**known, "note": "the malicious lookup knew the URL: it was not scanned"}, budget))
        extra: dict[str, Any] = {"reused": found.reused}
        if seen is not None:
            extra["malicious_lookup"] = seen
        return answer(await asyncio.to_thread(_summary, found.result, budget, **extra))

    @app.tool(title="Scan a URL", annotations=submits)
    @anticipated
    async def scan(
        url: str,
        visibility: str | None = None,
        tags: list[str] | None = None,
        wait: StrictBool = True,
        refang: StrictBool = True,
        timeout: Seconds = WAIT_DEFAULTS["timeout"],
        initial_wait: Seconds = WAIT_DEFAULTS["initial_wait"],
        max_bytes: StrictInt = DEFAULT_MAX_BYTES,
    ) -> TextContent:
        """Submit a URL for a new scan (lookup reuses a recent one instead). Defanged input
        such as hxxps://evil[.]example is undone by default. With wait, waits for the result
        and answers its summary; without, the submission (uuid, visibility). visibility:
        public, unlisted or private (default: the account's)."""
        url, options, budget = await submitted(url, visibility, tags, refang, max_bytes)
        if not wait:
            sub = await client.scan(url, **options)
            return answer(fit({"uuid": sub.uuid, "url": sub.url, "visibility": sub.visibility, "result": sub.result}, budget))
        result = await client.scan_and_wait(url, timeout=timeout, initial_wait=initial_wait, **options)
        return answer(await asyncio.to_thread(_summary, result, budget))

    @app.tool(title="A scan's summary", annotations=read)
    @anticipated
    async def result(uuid: str, max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> TextContent:
        """A finished scan's summary: verdict (status 'malicious', 'not malicious' or
        'unknown' when the service gave none), page, and indicators (the redirect chain,
        domains, IPs, ASNs, hashes, links, URLs) with their counts, and the report and
        screenshot links."""
        return await of_result(uuid, max_bytes, _summary)

    @app.tool(title="A scan's verdict and its evidence", annotations=read)
    @anticipated
    async def verdict(uuid: str, threshold: StrictInt = 50, max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> TextContent:
        """A finished scan's verdict with its evidence: status ('malicious', 'not malicious',
        or 'unknown' when the service gave no verdict), at_threshold (the same, counting a
        score at or above threshold, -100 to 100, as malicious), score, categories, brands,
        tags, which verdicts spoke (overall, urlscan, engines, community) and each as the
        service sent it, Google Safe Browsing's threat types ('unknown' when the scan holds
        none), the brand urlscan Brand AI read, and the page it is about."""
        _text("uuid", uuid)
        if not -100 <= threshold <= 100:
            raise ValueError(f"threshold must be from -100 to 100, got {threshold}")
        budget = _budget(max_bytes)
        found = await client.result(uuid)
        return answer(await asyncio.to_thread(_verdict, found, threshold, budget))

    @app.tool(title="A scan's indicators", annotations=read)
    @anticipated
    async def indicators(uuid: str, max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> TextContent:
        """The indicators of a finished scan: the redirect chain, domains, apex domains, IPv4
        and IPv6 addresses, ASNs, response SHA-256 hashes, certificates, links and URLs
        ('omitted' says how many of each were left out)."""
        return await of_result(uuid, max_bytes, _indicators)

    @app.tool(title="A scan's screenshot", annotations=read)
    @anticipated
    async def screenshot(uuid: str, max_bytes: StrictInt = MAX_BYTES) -> list[Image | TextContent]:
        """The page as the scanner saw it: the scan's screenshot as an image, and a line of JSON
        (uuid, bytes, mime_type). A screenshot larger than max_bytes (default 65536, at most
        5 MiB) is sent scaled down as a JPEG that fits ("original" gives its size); one that
        cannot fit is not sent: the answer says so."""
        _text("uuid", uuid)
        if not 1 <= max_bytes <= MAX_IMAGE_BYTES:
            raise ValueError(f"max_bytes must be from 1 to {MAX_IMAGE_BYTES}, got {max_bytes}")
        png = bytes(await client.screenshot(uuid))
        if not png.startswith(b"\x89PNG\r\n\x1a\n"):
            raise DecodeError(f"the screenshot of {uuid} is not a PNG")
        if len(png) <= max_bytes:
            return [Image(data=png, format="png"), answer({"uuid": uuid, "bytes": len(png), "mime_type": "image/png"})]
        smaller, facts = await asyncio.to_thread(_fitted, png, max_bytes)
        if smaller is None:
            return [answer({"uuid": uuid, "bytes": len(png), "mime_type": "image/png", **facts})]
        return [Image(data=smaller, format="jpeg"), answer({"uuid": uuid, "bytes": len(smaller), **facts})]

    @app.tool(title="Search scans or a data source", annotations=read)
    @anticipated
    async def search(
        query: str,
        limit: StrictInt = 20,
        datasource: DataSource = None,
        search_after: str | None = None,
        max_bytes: StrictInt = DEFAULT_MAX_BYTES,
    ) -> TextContent:
        """Search historical scans (or a data source: hostnames, certificates, domains,
        incidents, notifications; urlscan Pro) with the query-string syntax, e.g.
        'page.domain:example.com AND date:>now-7d'. Answers the total and up to `limit` hits
        (at most 1000), newest first, each scan with its verdict in words ('unknown' when it has
        none); search_after (from an answer) goes on where it stopped."""
        _text("query", query)
        _text("datasource", datasource or "")
        _text("search_after", search_after or "")
        _limit(limit)
        budget = _budget(max_bytes)
        return await listed(client.search(query, limit=limit, datasource=datasource, search_after=search_after), budget)

    @app.tool(title="Scans similar to a scan", annotations=read)
    @anticipated
    async def similar(
        uuid: str, query: str | None = None, limit: StrictInt = 20, max_bytes: StrictInt = DEFAULT_MAX_BYTES
    ) -> TextContent:
        """Scans structurally similar to a scan (urlscan Pro), optionally narrowed by a query,
        up to `limit` hits (at most 1000), each with its verdict in words."""
        _text("uuid", uuid)
        _text("query", query or "")
        _limit(limit)
        budget = _budget(max_bytes)
        return await listed(client.similar(uuid, q=query, limit=limit), budget)

    @app.tool(title="A hostname's history", annotations=read)
    @anticipated
    async def hostname_history(
        hostname: str,
        limit: StrictInt = 100,
        page_state: str | None = None,
        refang: StrictBool = True,
        max_bytes: StrictInt = DEFAULT_MAX_BYTES,
    ) -> TextContent:
        """What scans and passive DNS saw of a hostname over time, newest first (urlscan Pro):
        up to `limit` records (at most 1000), each with when it was seen, its source and what
        it saw; page_state (from an answer) goes on where it stopped."""
        _text("hostname", hostname)
        _text("page_state", page_state or "")
        _limit(limit)
        budget = _budget(max_bytes)
        if refang:
            hostname = await undo(hostname)
        # The service's pages hold 10 records at least: the walk stops at `limit`.
        it = client.hostnames.history(hostname, limit=max(limit, 10), page_state=page_state)
        records: list[Any] = []
        async for record in it:
            records.append(record)
            if len(records) >= limit:
                break

        def shaped() -> dict[str, Any]:
            rows = [_record(r) for r in records]
            return fit({"hostname": hostname, "returned": len(rows), "page_state": it.page_state, "records": rows}, budget)

        return answer(await asyncio.to_thread(shaped))

    @app.tool(title="Malicious lookup", annotations=read)
    @anticipated
    async def malicious(type: str, value: str, refang: StrictBool = True) -> TextContent:
        """How many malicious scans showed an observable, and when first and last (urlscan Pro):
        a cheap check before a scan. type: ip, hostname, domain or url (a URL is looked up
        without its scheme and query). A count of 0 means no malicious scan showed it: its
        verdict is 'unknown', not clean."""
        _text("type", type)
        _text("value", value)
        if refang:
            value = await undo(value)
        # The core checks the type (a ValidationError naming the four): the stub's Literal
        # cannot know what an assistant sends.
        kind: Any = type
        return answer(fit(_malicious(await client.malicious(kind, value)), MIN_BYTES))

    @app.tool(title="Quotas", annotations=read)
    @anticipated
    async def quotas(max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> TextContent:
        """What is left of the account's rate limits, per action and window."""
        budget = _budget(max_bytes)
        q = await client.quotas()
        return answer(fit({"scope": q.scope, "limits": _plain(q.limits)}, budget))

    @app.tool(title="Saved searches", annotations=read)
    @anticipated
    async def saved_searches(max_bytes: StrictInt = DEFAULT_MAX_BYTES) -> TextContent:
        """Your saved searches (urlscan Pro): id, name, data source, query, description, TLP
        and permissions; saved_search_results reads one's hits."""
        budget = _budget(max_bytes)
        found = await client.saved_searches.list()
        rows = [
            {
                "id": s.id,
                "name": s.name,
                "datasource": s.datasource,
                "query": s.query,
                "description": s.description,
                "tlp": s.tlp,
                "permissions": list(s.permissions),
                "created_at": _plain(s.created_at),
            }
            for s in found
        ]
        return answer(fit({"returned": len(rows), "saved_searches": rows}, budget, keep=("returned",)))

    @app.tool(title="A saved search's hits", annotations=read)
    @anticipated
    async def saved_search_results(
        search_id: str, limit: StrictInt = 20, search_after: str | None = None, max_bytes: StrictInt = DEFAULT_MAX_BYTES
    ) -> TextContent:
        """The hits of a saved search, newest first (urlscan Pro), up to `limit` (at most 1000),
        each with its verdict in words; search_after (from an answer) goes on where it stopped."""
        _text("search_id", search_id)
        _text("search_after", search_after or "")
        _limit(limit)
        budget = _budget(max_bytes)
        hits = await client.saved_searches.results(search_id, size=limit, search_after=search_after)

        def shaped() -> dict[str, Any]:
            last = getattr(hits[-1], "sort", None) if hits else None
            after = ",".join(str(v) for v in last) if last else None
            rows = [_record(h) for h in hits[:limit]]
            return fit({"returned": len(rows), "search_after": after, "hits": rows}, budget, keep=("returned",))

        return answer(await asyncio.to_thread(shaped))

    return app


def serve(client: AsyncClient) -> None:
    """Run the server on stdin and stdout until the other side closes them."""
    server(client).run("stdio")
