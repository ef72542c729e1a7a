"""The ``urlscan-rs`` command line (also ``python -m urlscan_rs``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import __version__
from ._client import Client
from .errors import UrlscanError, ValidationError
from .models import Model

EXIT_OK, EXIT_API, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _print(obj: Any, as_json: bool) -> None:
    if as_json:
        raw = obj.raw if isinstance(obj, Model) else obj
        print(json.dumps(raw, default=str))
    else:
        print(obj)


def cmd_emulator(args: argparse.Namespace) -> int:
    from .testing import Emulator

    emu = Emulator(scans=args.scans, seed=args.seed, scan_duration=args.scan_duration, latency=args.latency, port=args.port)
    print(f"URLSCAN_BASE_URL={emu.url}")
    print(f"URLSCAN_API_KEY={emu.api_key}")
    for kind, key in emu.keys.items():
        print(f"# {kind} key: {key}")
    print("# serving until interrupted (Ctrl-C)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        emu.stop()
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from .testing import Emulator

    started = time.monotonic()
    print("Starting the built-in emulator of the urlscan.io service ...")
    with Emulator(scans=500, scan_duration=args.scan_duration, seed=0) as emu, emu.client() as client:
        print(f"  listening on {emu.url}\n")
        user = client.user()
        print(f"Signed in as {user.username} (team {user.team.name if user.team else None}), products {user.products}\n")
        urls = [
            "https://www.example.com/",
            "https://login.paypal.com.account-verify.example.net/signin",
            "https://news.ycombinator.com/",
        ]
        print(f"Submitting {len(urls)} scans and waiting for them (scans take {args.scan_duration:g}s here) ...")
        outcomes = client.bulk_scan(urls, initial_wait=args.scan_duration, interval=0.5, timeout=60)
        for o in outcomes:
            if o.error is not None:
                print(f"  {o.url}: {type(o.error).__name__}: {o.error}")
                continue
            r = o.result
            assert r is not None
            ov = r.verdicts.overall
            print(
                f"  {r.uuid}  {r.page.domain:<45} ip={r.page.ip:<15} country={r.page.country}  "
                f"score={ov.score:>4} malicious={ov.malicious}"
            )
        print()
        first = outcomes[0].result
        if first is not None:
            print("A typed result:", first)
            print("  task.time      ", first.task.time.isoformat() if first.task.time else None)
            print("  page.server    ", first.page.server)
            print("  lists.domains  ", first.lists.domains[:5])
            print("  requests       ", len(first.data.get("requests", [])) if isinstance(first.data, dict) else 0)
            png = client.screenshot(first.uuid)
            print(f"  screenshot      {len(png)} bytes PNG\n")
        it = client.search("date:>now-7d AND NOT page.country:us", size=5, limit=5)
        print(f"Search 'date:>now-7d AND NOT page.country:us' ({it.count()} hits in all); the newest five:")
        for hit in it:
            when = f"{hit.task.time:%Y-%m-%d %H:%M}" if hit.task.time else "-"
            print(f"  {when}  {hit.page.domain or '-':<40} {hit.page.country}  {hit.page.ip}")
        q = client.quotas()
        print(f"\nQuota left today: {q.remaining('public')} public scans, {q.remaining('search')} searches")
    print(f"\nDone in {time.monotonic() - started:.1f}s. Next: see README.md for sync, async, search and bulk examples.")
    return EXIT_OK


def _client(args: argparse.Namespace) -> Client:
    return Client(args.api_key, base_url=args.base_url)


def cmd_scan(args: argparse.Namespace) -> int:
    with _client(args) as c:
        if args.wait:
            _print(c.scan_and_wait(args.url, visibility=args.visibility), args.json)
        else:
            _print(c.scan(args.url, visibility=args.visibility), args.json)
    return EXIT_OK


def cmd_result(args: argparse.Namespace) -> int:
    with _client(args) as c:
        _print(c.result(args.uuid), args.json)
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    with _client(args) as c:
        for hit in c.search(args.query, limit=args.limit, size=min(args.limit, 100)):
            _print(hit, args.json)
    return EXIT_OK


def cmd_quotas(args: argparse.Namespace) -> int:
    with _client(args) as c:
        q = c.quotas()
        if args.json:
            _print(q, True)
        else:
            for action, windows in sorted((q.limits or {}).items()):
                if isinstance(windows, dict):
                    cells = [f"{w}: {v.get('used')}/{v.get('limit')}" for w, v in windows.items() if isinstance(v, dict)]
                    print(f"{action:<10} " + "  ".join(cells))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="urlscan-rs", description="A fast client for the urlscan.io API, with a local emulator.")
    p.add_argument("--version", action="version", version=f"urlscan-rs {__version__}")
    p.add_argument("--api-key", default=None, help="API key (default: $URLSCAN_API_KEY)")
    p.add_argument("--base-url", default=None, help="service address (default: $URLSCAN_BASE_URL or https://urlscan.io)")
    p.add_argument("--json", action="store_true", help="print one JSON object per line")
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("emulator", help="serve the local emulator of the service")
    e.add_argument("--port", type=int, default=8000)
    e.add_argument("--scans", type=int, default=1000)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--latency", type=float, default=0.0)
    e.add_argument("--scan-duration", type=float, default=10.0)
    e.set_defaults(func=cmd_emulator)

    d = sub.add_parser("demo", help="a tour against the built-in emulator")
    d.add_argument("--scan-duration", type=float, default=3.0)
    d.set_defaults(func=cmd_demo)

    s = sub.add_parser("scan", help="submit a URL")
    s.add_argument("url")
    s.add_argument("--visibility", choices=["public", "unlisted", "private"])
    s.add_argument("--wait", action="store_true", help="wait for the result")
    s.set_defaults(func=cmd_scan)

    r = sub.add_parser("result", help="print a scan result")
    r.add_argument("uuid")
    r.set_defaults(func=cmd_result)

    q = sub.add_parser("search", help="search historical scans")
    q.add_argument("query")
    q.add_argument("--limit", type=int, default=10)
    q.set_defaults(func=cmd_search)

    qq = sub.add_parser("quotas", help="show quotas")
    qq.set_defaults(func=cmd_quotas)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ValidationError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except UrlscanError as e:
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_API
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
