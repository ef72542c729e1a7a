"""Commands on scans: scan, lookup, result, screenshot, dom, save, bulk; and request and quotas."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from .._artifacts import KINDS as ARTIFACTS
from .._artifacts import save as save_artifacts
from .._client import AsyncClient
from .._refang import as_url
from ..errors import ScanPendingError, ScanTimeoutError, UrlscanError
from ..models import ScanOutcome, ScanResult, Submission
from ._common import _arg, _args, _async_client, _client, _describe, _each, _write_bytes
from ._output import (
    BOLD,
    EXIT_ERROR,
    EXIT_OK,
    GREEN,
    RED,
    Cell,
    Interrupted,
    Output,
    UsageError,
    _err,
    _note,
    _short_error,
    exit_code_for,
)
from ._show import _print_result, _print_submission, _verdict
from .endpoints import add_option, option_values, row_params

# The scan options of scan and bulk are the fields of the core's submission row; an earlier
# spelling of one flag is kept.
_SCAN_FLAG_ALIASES = {"custom_agent": ("--user-agent",)}


def _scan_options(args: argparse.Namespace) -> dict[str, Any]:
    return option_values(args, row_params("scan"))


def add_scan_options(p: argparse.ArgumentParser) -> None:
    for param in row_params("scan"):
        add_option(p, "scan", param, _SCAN_FLAG_ALIASES.get(param.name, ()))


def _wait_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"timeout": args.wait_timeout, "initial_wait": args.initial_wait, "interval": args.interval}


def cmd_scan(args: argparse.Namespace, out: Output) -> int:
    url = _arg(args, args.url, "URL")
    if args.output and not args.wait:
        raise UsageError("-o saves the finished scan's files: add --wait")
    with _client(args) as c:
        sub = c.scan(url, refang=args.refang, **_scan_options(args))
        if not args.wait:
            _print_submission(out, sub)
            if args.open:
                _open_report(sub.result or f"{c.base_url.rstrip('/')}/result/{sub.uuid}/")
            return EXIT_OK
        try:
            # Named before the wait starts, and Ctrl-C from here on names it again, so that the scan
            # can be found if the wait is cut short.
            _note(f"submitted {sub.uuid} {sub.url or url}; waiting for the result (up to {args.wait_timeout:g}s)")
            bar = out.progress(f"scan {sub.uuid[:8]}: waiting")
            with bar.ticking():
                result = c.wait_for_result(sub.uuid, **_wait_options(args))
        except KeyboardInterrupt:
            raise Interrupted([(sub.uuid, sub.url or url)]) from None
        if args.output:
            saved = save_artifacts(c, result.uuid, args.output, tuple(ARTIFACTS), result)
            _note("saved " + ", ".join(str(p) for p in saved.values()))
        _print_result(out, result, c.base_url)
        if args.open:
            _open_report(result.task.report_url or f"{c.base_url.rstrip('/')}/result/{result.uuid}/")
    return EXIT_OK


def cmd_lookup(args: argparse.Namespace, out: Output) -> int:
    urls = _args(args, args.url, "URL")
    with _client(args) as c:
        # Said before the wait (a new scan takes its time): the command is not stuck.
        what = "the URL" if len(urls) == 1 else f"{len(urls)} URLs"
        _note(f"looking up {what}: a recent scan is reused, else one is made and waited for (up to {args.wait_timeout:g}s)")
        with out.progress("lookup", len(urls)) as bar:
            found = c.lookup_or_scan_many(
                urls,
                max_age=args.max_age,
                refang=args.refang,
                progress=bar.update,
                **_wait_options(args),
                **_scan_options(args),
            )
        code = EXIT_OK
        for lk in found:
            if lk.error is not None:
                _err(f"{lk.url}: {_describe(args, lk.error) if isinstance(lk.error, UrlscanError) else lk.error}")
                code = code or (exit_code_for(lk.error) if isinstance(lk.error, UrlscanError) else EXIT_ERROR)
                continue
            assert lk.result is not None
            if out.json:
                out.emit({"url": lk.url, "uuid": lk.uuid, "reused": lk.reused, "result": lk.result._raw})
                continue
            how = "reused the scan of" if lk.reused else "scanned"
            _note(f"{how} {lk.url}: {lk.uuid} ({_when_scanned(lk.result)})")
            _print_result(out, lk.result, c.base_url)
    return code


def _when_scanned(r: ScanResult) -> str:
    return f"scanned {r.task.time:%Y-%m-%d %H:%M:%S} UTC" if r.task.time else "time unknown"


def _open_report(url: str) -> None:
    """The report page in the user's browser (``BROWSER`` picks it, as for Python's webbrowser)."""
    import webbrowser

    if not webbrowser.open(url):
        _note(f"no browser to open {url} in")


def cmd_result(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    with _client(args) as c:
        if args.wait:
            return _each(args, uuids, lambda u: _print_result(out, c.wait_for_result(u, **_wait_options(args)), c.base_url))
        if len(uuids) == 1:
            _print_result(out, c.result(uuids[0]), c.base_url)
            return EXIT_OK
        code = EXIT_OK
        for uuid, r in zip(uuids, c.results(uuids), strict=True):
            if isinstance(r, UrlscanError):
                _err(f"{uuid}: {_describe(args, r)}")
                code = code or exit_code_for(r)
            else:
                _print_result(out, r, c.base_url)
        return code


def cmd_screenshot(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    target: str | None = args.output
    into_dir = target is not None and target != "-" and Path(target).is_dir()
    if target is not None and not into_dir and len(uuids) > 1:
        raise UsageError("-o FILE takes one uuid; give a directory to save several")
    with _client(args) as c:

        def save(uuid: str) -> None:
            png = c.screenshot(uuid)
            path = target if target is not None and not into_dir else str(Path(target or ".") / f"{uuid}.png")
            _write_bytes(out, png, path, label=f"the screenshot of {uuid}", record={"uuid": uuid}, kind="PNG")

        return _each(args, uuids, save)


def cmd_save(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    what = [w.strip() for w in args.what.split(",") if w.strip()]
    with _client(args) as c:

        def one(uuid: str) -> None:
            saved = c.save(uuid, args.output, what=what)
            if out.json:
                out.emit({"uuid": uuid, **{k: str(p) for k, p in saved.items()}})
            else:
                out.line("  ".join(str(p) for p in saved.values()))

        return _each(args, uuids, one)


def cmd_dom(args: argparse.Namespace, out: Output) -> int:
    uuids = _args(args, args.uuid, "uuid")
    with _client(args) as c:

        def show(uuid: str) -> None:
            dom = c.dom(uuid)
            if out.json:
                out.emit({"uuid": uuid, "dom": dom})
                return
            if len(uuids) > 1:
                out.line(out.paint(f"==> {uuid} <==", BOLD))
            out.line(dom[:-1] if dom.endswith("\n") else dom)

        return _each(args, uuids, show)


def _read_urls(source: str) -> list[str]:
    if source == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(source).read_text(encoding="utf-8-sig")
        except OSError as e:
            raise UsageError(f"cannot read {source}: {e.strerror or e}") from e
        except UnicodeDecodeError as e:
            raise UsageError(f"cannot read {source}: not UTF-8 text ({e.reason})") from e
    urls = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            urls.append(line)
    return urls


async def _poll(
    ac: AsyncClient, gate: asyncio.Semaphore, uuid: str, timeout: float, initial_wait: float, interval: float
) -> ScanResult:
    """Wait for a scan like ``wait_for_result``; each poll takes a slot of the gate, the pauses do not."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await asyncio.sleep(min(initial_wait, timeout))
    while True:
        try:
            async with gate:
                result: ScanResult = await ac.result(uuid)
                return result
        except ScanPendingError:
            pass
        if loop.time() + interval > deadline:
            raise ScanTimeoutError(f"scan {uuid} did not finish within {timeout:g} seconds", uuid=uuid, timeout=timeout)
        await asyncio.sleep(interval)


async def _bulk(
    args: argparse.Namespace, urls: list[str], wait: bool, bar: Any, submitted: list[tuple[str, str]]
) -> list[ScanOutcome]:
    """Submit (and wait for) every URL, at most --concurrency requests in flight; ``submitted`` grows as scans are accepted."""
    opts = _scan_options(args)
    async with _async_client(args) as ac:
        # Options, concurrency and wait settings are checked up front (an empty batch sends nothing).
        await ac.bulk_scan([], wait=wait, concurrency=args.concurrency, **_wait_options(args), **opts)
        gate = asyncio.Semaphore(args.concurrency)
        done = 0

        async def one(url: str) -> ScanOutcome:
            nonlocal done
            sub: Submission | None = None
            result: ScanResult | None = None
            error: UrlscanError | None = None
            try:
                async with gate:
                    sub = await ac.scan(url, **opts)
                submitted.append((sub.uuid, url))
                if wait:
                    result = await _poll(ac, gate, sub.uuid, args.wait_timeout, args.initial_wait, args.interval)
            except UrlscanError as e:
                error = e
            done += 1
            bar.update(done, len(urls))
            return ScanOutcome(url, sub, result, error)

        return list(await asyncio.gather(*(one(u) for u in urls)))


def cmd_bulk(args: argparse.Namespace, out: Output) -> int:
    urls = _read_urls(args.file)
    if not args.no_refang:
        urls = [as_url(u) for u in urls]
    if not urls:
        _note(f"no URLs in {'stdin' if args.file == '-' else args.file} (blank lines and # comments are skipped)")
        return EXIT_OK
    wait = not args.no_wait
    submitted: list[tuple[str, str]] = []
    with out.progress("scanning" if wait else "submitting", len(urls)) as bar:
        try:
            outcomes = asyncio.run(_bulk(args, urls, wait, bar, submitted))
        except KeyboardInterrupt:
            raise Interrupted(submitted) from None
    failed = sum(1 for o in outcomes if not o.ok)
    if out.json:
        for o in outcomes:
            e = o.error
            out.emit(
                {
                    "url": o.url,
                    "ok": o.ok,
                    "uuid": o.submission.uuid if o.submission is not None else None,
                    "submission": o.submission._raw if o.submission is not None else None,
                    "result": o.result._raw if o.result is not None else None,
                    "error": None
                    if e is None
                    else {
                        "type": type(e).__name__,
                        "message": str(e),
                        "status": getattr(e, "status", None),
                        "exit_code": exit_code_for(e),
                    },
                }
            )
    else:
        rows: list[list[Cell]] = []
        for o in outcomes:
            if o.error is not None:
                rows.append([("failed", RED), o.url, "-", _short_error(o.error)])
            elif o.result is not None:
                rows.append([("ok", GREEN), o.url, o.result.uuid, _verdict(o.result.verdicts.overall)])
            else:
                sub = o.submission
                rows.append([("submitted", GREEN), o.url, sub.uuid if sub else "-", (sub.visibility or "-") if sub else "-"])
        out.table([], rows)
    if failed:
        _note(f"{failed} of {len(outcomes)} URLs failed")
    return EXIT_ERROR if failed else EXIT_OK


def cmd_request(args: argparse.Namespace, out: Output) -> int:
    params: dict[str, list[str]] = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param takes KEY=VALUE, got {item!r}")
        params.setdefault(key, []).append(value)
    body: Any = None
    if args.data is not None:
        text = sys.stdin.read() if args.data == "-" else args.data
        try:
            body = json.loads(text)
        except json.JSONDecodeError as e:
            raise UsageError(f"--data is not JSON: {e}") from e
    with _client(args) as c:
        answer = c.request(args.method, _arg(args, args.path, "path"), params=params or None, json=body)
    if isinstance(answer, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(answer)
    elif out.json:
        out.emit(answer)
    else:
        out.line(json.dumps(answer, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_quotas(args: argparse.Namespace, out: Output) -> int:
    with _client(args) as c:
        q = c.quotas()
    if out.json:
        out.emit(q._raw)
        return EXIT_OK
    windows = ("minute", "hour", "day")
    rows: list[list[Cell]] = []
    for action, per_window in sorted((q.limits or {}).items()):
        if not isinstance(per_window, dict):
            continue
        cells: list[Cell] = [action]
        for w in windows:
            v = per_window.get(w)
            if not isinstance(v, dict):
                cells.append("-")
                continue
            used, lim, left = v.get("used"), v.get("limit"), v.get("remaining")
            text = f"{used}/{lim}"
            cells.append((text, RED) if left == 0 else text)
        rows.append(cells)
    scope = ", ".join(f"{k} {v}" for k, v in (("scope", q.scope), ("source", q.source)) if v)
    out.line(out.paint(f"Quotas used/limit{f' ({scope})' if scope else ''}", BOLD))
    out.table(["ACTION", "MINUTE", "HOUR", "DAY"], rows, right=frozenset({1, 2, 3}))
    return EXIT_OK
