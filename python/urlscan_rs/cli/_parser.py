"""The parser of every command, built one area at a time; and the completion script made from it."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from .._keys import KEYRING_INSTALL
from ._args import (
    _add_global_options,
    _add_paging_options,
    _add_wait_options,
    _http_url,
    _Parser,
    _port,
    _positive_int,
    _seconds,
)
from ._output import EXIT_CODES_HELP, EXIT_OK, Output
from .datadumps import cmd_datadump_download, cmd_datadump_read, cmd_datadump_sync
from .emulator import cmd_demo, cmd_emulator
from .endpoints import (
    NAMESPACE_GROUPS,
    add_endpoint_arguments,
    add_row_options,
    command_help,
    endpoint_command,
    endpoints,
    field_help,
)
from .feeds import cmd_feed_sync, duration
from .keys import cmd_key_delete, cmd_key_set, cmd_key_show
from .listen import cmd_listen, cmd_mcp
from .scanning import (
    add_scan_options,
    cmd_bulk,
    cmd_dom,
    cmd_lookup,
    cmd_quotas,
    cmd_request,
    cmd_result,
    cmd_save,
    cmd_scan,
    cmd_screenshot,
)
from .searching import cmd_hostname, cmd_phishfeed, cmd_saved_search_get, cmd_search, cmd_similar

_RAW = argparse.RawDescriptionHelpFormatter
Command = Callable[[argparse.Namespace, Output], int]


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="urlscan-rs",
        description=(
            "A fast client for the urlscan.io API, with a local emulator of the service.\n\n"
            "An argument given as - (a uuid, URL, query or hash) is read from stdin."
        ),
        epilog=EXIT_CODES_HELP,
        formatter_class=_RAW,
    )
    p.add_argument("--version", action="version", version=f"urlscan-rs {__version__}")
    _add_global_options(p, suppress=False)
    c = _Commands(p)
    # The order here is the order of --help.
    _scan_commands(c)
    _search_commands(c)
    _account_commands(c)
    _premium_commands(c)
    _tool_commands(c)
    _emulator_commands(c)
    _add_output_file(p)
    return p


class _Commands:
    """Adds commands under the top-level parser: groups of actions, commands, and the commands
    derived from client methods (each taken once from ``derived``)."""

    def __init__(self, p: argparse.ArgumentParser) -> None:
        self.common = _Parser(add_help=False)
        _add_global_options(self.common, suppress=True)
        self.sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
        self.groups: dict[str, Any] = {}
        self.derived = {ep.path: ep for ep in endpoints()}

    def group(self, name: str, help: str) -> None:
        """A command with actions (incident create, key set, ...)."""
        if name not in self.groups:
            g = self.sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".", formatter_class=_RAW)
            self.groups[name] = g.add_subparsers(dest=f"{name}_action", required=True, metavar="ACTION")

    def command(self, path: Sequence[str], help: str, func: Command, *, api: bool = True, **kw: Any) -> argparse.ArgumentParser:
        where = self.sub if len(path) == 1 else self.groups[path[0]]
        parents = [self.common] if api else []
        description = kw.pop("description", help[:1].upper() + help[1:] + ".")
        sp: argparse.ArgumentParser = where.add_parser(
            path[-1], help=help, description=description, parents=parents, formatter_class=_RAW, **kw
        )
        sp.set_defaults(func=func)
        return sp

    def derive(self, *path: str) -> None:
        """The command made from a client method (see endpoints())."""
        ep = self.derived.pop(path)
        add_endpoint_arguments(self.command(ep.path, command_help(ep.key), endpoint_command(ep)), ep)

    def per_scan(self, name: str, help: str, func: Command, description: str) -> argparse.ArgumentParser:
        """A command that takes one or more scan uuids."""
        sp = self.command([name], help, func, description=description)
        sp.add_argument("uuid", metavar="UUID", nargs="+")
        return sp


def _age(text: str) -> float:
    """--max-age: a duration, or 0."""
    return 0.0 if re.fullmatch(r"0+(\.0*)?[smhd]?", text.strip()) else duration(text)


def _scan_commands(c: _Commands) -> None:
    """scan, result, screenshot, dom, save, response, bulk, visibility."""
    s = c.command(
        ["scan"],
        "submit a URL for scanning",
        cmd_scan,
        description="Submit a URL (- reads it from stdin); with --wait, wait for the scan and print its result.",
    )
    s.add_argument("url", metavar="URL")
    s.add_argument("--wait", action="store_true", help="wait for the scan to finish and print the result")
    s.add_argument("--refang", action="store_true", help="undo defanging first (hxxps://evil[.]example)")
    s.add_argument("--open", action="store_true", help="open the report page in a browser (after the result with --wait)")
    s.add_argument(
        "-o", "--output", metavar="DIR", help="with --wait, save UUID.json, UUID.png and UUID.html in DIR (created if missing)"
    )
    add_scan_options(s)
    _add_wait_options(s)

    lk = c.command(
        ["lookup"],
        "reuse a recent scan of a URL, else scan it",
        cmd_lookup,
        description=(
            "Look for a finished scan of each URL (- reads them from stdin) from the last --max-age and print its\n"
            "result; scan the URL and wait when there is none (or its page did not load). Says which on stderr."
        ),
    )
    lk.add_argument("url", metavar="URL", nargs="+")
    lk.add_argument(
        "--max-age",
        type=_age,
        default=86400.0,
        metavar="S",
        help="reuse scans at most this old: seconds, or 90m, 12h, 3d; 0 always scans (default: 1d)",
    )
    lk.add_argument("--refang", action="store_true", help="undo defanging first (hxxps://evil[.]example)")
    lk.add_argument("--cache", metavar="DIR", help="keep results in a cache in DIR, served from there next time")
    add_scan_options(lk)
    _add_wait_options(lk)

    r = c.per_scan(
        "result", "print a scan's result", cmd_result, "Print the result of each scan (- reads uuids from stdin, one per line)."
    )
    r.add_argument("--wait", action="store_true", help="wait for scans that have not finished yet")
    _add_wait_options(r)

    sh = c.per_scan(
        "screenshot",
        "save a scan's screenshot (PNG)",
        cmd_screenshot,
        "Save the screenshot of each scan as UUID.png in the current directory, or in -o (- reads uuids from stdin).",
    )
    sh.add_argument("-o", "--output", metavar="FILE", help="file to write, a directory, or - for stdout (default: UUID.png here)")

    c.per_scan("dom", "print a scan's DOM", cmd_dom, "Print the DOM of each scan (- reads uuids from stdin).")
    sv = c.per_scan(
        "save",
        "save a scan's result, screenshot and DOM",
        cmd_save,
        "Save UUID.json (the result as served), UUID.png and UUID.html of each scan in a folder\n(- reads uuids from stdin).",
    )
    sv.add_argument("-o", "--output", metavar="DIR", default=".", help="folder to save in (default: here; created if missing)")
    sv.add_argument("--what", default="json,png,dom", metavar="KINDS", help="some of json,png,dom (default: all three)")
    c.derive("response")

    b = c.command(
        ["bulk"],
        "scan many URLs from a file",
        cmd_bulk,
        description=(
            "Scan the URLs of FILE (one per line; blank lines and # comments skipped; - reads stdin) and print one line\n"
            "per URL in input order, with the error for failed ones. Exits 0 only if every URL succeeded, else 1.\n"
            "Ctrl-C lists the scans submitted so far."
        ),
    )
    b.add_argument("file", metavar="FILE")
    b.add_argument("--concurrency", type=_positive_int, default=8, metavar="N", help="requests in flight (default: 8)")
    b.add_argument("--no-wait", action="store_true", help="only submit; do not wait for the results")
    b.add_argument(
        "--no-refang",
        action="store_true",
        help="send each line as written (by default defanging is undone and a bare domain or IP is scanned as http://)",
    )
    add_scan_options(b)
    _add_wait_options(b)

    c.group("visibility", "change a scan's visibility")
    c.derive("visibility", "set")
    c.derive("visibility", "reset")


def _search_commands(c: _Commands) -> None:
    """search, similar, phishfeed, hostname, and request (any endpoint)."""
    q = c.command(
        ["search"],
        "search historical scans (or another data source)",
        cmd_search,
        description=(
            "Search scans with the Elasticsearch query-string syntax, e.g. 'page.domain:example.com AND date:>now-7d'\n"
            "(- reads the query from stdin), or another data source (premium; see the options below). When it stops\n"
            "at --limit, the cursor to resume from is printed on stderr."
        ),
    )
    q.add_argument("query", metavar="QUERY", nargs="?", help="the query ('' for everything)")
    q.add_argument("--fields", action="store_true", help="list the fields this key may search, instead of searching")
    _add_paging_options(q)
    add_row_options(q, "search")

    si = c.command(["similar"], "find pages that look like a scan's (premium)", cmd_similar)
    si.add_argument("uuid", metavar="UUID", help="scan uuid (- reads it from stdin)")
    si.add_argument("--query", metavar="QUERY", help="only hits matching this query too")
    _add_paging_options(si)
    add_row_options(si, "similar")

    pf = c.command(["phishfeed"], "read the phishing feed (premium)", cmd_phishfeed)
    pf.add_argument("query", metavar="QUERY", nargs="?", help="only hits matching this query (- reads it from stdin)")
    _add_paging_options(pf, cursor=False)
    add_row_options(pf, "phishfeed")

    h = c.command(["hostname"], "show a hostname's history (premium)", cmd_hostname)
    h.add_argument("name", metavar="NAME", help="hostname (- reads it from stdin)")
    h.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="at most N records (default: 100)")
    h.add_argument("--page-state", metavar="STATE", help="resume from this page state")

    rq = c.command(
        ["request"],
        "call any endpoint by its path (one this command line has no command for yet)",
        cmd_request,
        description=(
            "Call an endpoint by its path below the base URL, with the API key, retries and rate-limit pacing of every\n"
            "command, and print the JSON answer (bytes as they come for an answer that is not JSON).\n"
            "Example: urlscan-rs request GET /api/v1/search/ --param q=domain:example.com --param size=5"
        ),
    )
    rq.add_argument("method", metavar="METHOD", choices=["GET", "POST", "PUT", "PATCH", "DELETE"], type=str.upper)
    rq.add_argument("path", metavar="PATH", help="e.g. /api/v1/quotas (- reads it from stdin)")
    rq.add_argument("-p", "--param", action="append", metavar="KEY=VALUE", help="a query parameter (repeatable)")
    rq.add_argument("-d", "--data", metavar="JSON", help="the JSON body (- reads it from stdin)")


def _account_commands(c: _Commands) -> None:
    """quotas, user, countries, user-agents, key."""
    c.command(["quotas"], "show the rate limits and what is used", cmd_quotas)
    c.derive("user")
    c.derive("countries")
    c.derive("user-agents")
    c.group("key", "keep the API key in the system keyring")
    ks = c.command(
        ["key", "set"],
        "store the API key in the system keyring",
        cmd_key_set,
        description=(
            "Store the API key in the system keyring (service urlscan-rs, user api-key). The key is read at a prompt,\n"
            "or from stdin with - or when stdin is not a terminal: echo KEY | urlscan-rs key set -\n"
            f"Needs the keyring package: {KEYRING_INSTALL}"
        ),
    )
    ks.add_argument("key", metavar="-", nargs="?", help="read the key from stdin")
    kw = c.command(
        ["key", "show"],
        "show the API key in use and where it comes from",
        cmd_key_show,
        description="Show the API key the other commands use (masked) and where it comes from:\n"
        "--api-key, else $URLSCAN_API_KEY, else the system keyring.",
    )
    kw.add_argument("--reveal", action="store_true", help="print the whole key")
    c.command(["key", "delete"], "remove the API key from the system keyring", cmd_key_delete)


def _premium_commands(c: _Commands) -> None:
    """The groups of the premium namespaces: derived commands, then the hand-written ones."""
    for name, (_, help) in NAMESPACE_GROUPS.items():
        c.group(name, help)
    for path in list(c.derived):
        c.derive(*path)
    dd = c.command(
        ["datadump", "download"],
        "download a data-dump file (resumed if the connection drops; checked against its listed size)",
        cmd_datadump_download,
    )
    dd.add_argument("path", help=field_help("datadumps.link", "path"))
    dd.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default=".",
        help="folder to write to, created if needed; the file keeps its dump path under it (default: here)",
    )
    ds = c.command(
        ["datadump", "sync"],
        "download every data-dump file of the last days that a folder does not hold yet (safe to run from cron)",
        cmd_datadump_sync,
    )
    ds.add_argument("dir", help="the folder to keep current (its state is in .urlscan-datadumps.sqlite3 there)")
    ds.add_argument("--window", choices=("days", "hours", "minutes"), default="hours", help="length of one file (default: hours)")
    ds.add_argument(
        "--type",
        dest="types",
        action="append",
        choices=("search", "api", "screenshots", "dom"),
        help="kind of data, repeatable (default: search and api)",
    )
    ds.add_argument(
        "--days", type=_positive_int, default=7, metavar="N", help="the last N days, today included, at most 366 (default: 7)"
    )
    ds.add_argument(
        "--rebuild-state",
        action="store_true",
        help="set a corrupt state file aside and rebuild it from the files on disk (those of the listed size count as fetched)",
    )
    fs = c.command(
        ["feed", "sync"],
        "write what is new in the phishing feed or a saved search to a folder, each item once (safe to run from cron)",
        cmd_feed_sync,
    )
    fs.add_argument("source", metavar="SOURCE", help="phishfeed, or a saved search's id")
    fs.add_argument("dir", help="the folder to keep current (its state is in .urlscan-feeds.sqlite3 there)")
    fs.add_argument(
        "--lookback",
        type=duration,
        default=3 * 86400.0,
        metavar="S",
        help="look back this long before the newest item of the last run: seconds, or 90m, 12h, 3d (default: 3d)",
    )
    fs.add_argument("--format", choices=("jsonl", "parquet", "stix"), default="jsonl", help="one file per run (default: jsonl)")
    fs.add_argument(
        "--dedupe",
        choices=("uuid", "url"),
        default="uuid",
        help="write each scan once, or each submitted URL once (default: uuid)",
    )
    fs.add_argument(
        "--max-items",
        type=_positive_int,
        default=10_000,
        metavar="N",
        help="read at most N items; the next run goes on (default: 10000)",
    )
    fs.add_argument(
        "--rebuild-state", action="store_true", help="set a corrupt state file aside and rebuild it from the files the runs wrote"
    )
    sg = c.command(
        ["saved-search", "get"],
        "one of your saved searches",
        cmd_saved_search_get,
        description="Print one saved search by its id (found in the list of yours: the service has no endpoint for one).",
    )
    sg.add_argument("search_id", metavar="ID")

    dr = c.command(
        ["datadump", "read"],
        "print or convert a data-dump file (search and api: hits or results; screenshots and dom: files)",
        cmd_datadump_read,
        api=False,
    )
    dr.add_argument("file", help="a data-dump file as downloaded (.gz)")
    dr.add_argument(
        "--type", choices=("search", "api", "screenshots", "dom"), help="what it holds (default: from its path, else its content)"
    )
    # Not given: datadumps.read's own bounds (MAX_LINE_BYTES, MAX_MEMBER_BYTES).
    for flag, what in (
        ("--max-line-bytes", "longest line of a search or api file"),
        ("--max-member-bytes", "largest file in a screenshots or dom archive"),
    ):
        dr.add_argument(flag, type=_positive_int, metavar="N", help=f"{what} (default: 64 MiB)")
    dr.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet"),
        default="jsonl",
        help="jsonl: the items as served (screenshots and dom: uuid and size); csv, parquet: the flat schema (default: jsonl)",
    )
    dr.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout (Parquet needs one)")


def _tool_commands(c: _Commands) -> None:
    """listen, completion, mcp."""
    ls = c.command(
        ["listen"],
        "receive webhook notifications and print them",
        cmd_listen,
        api=False,
        description=(
            "Serve a webhook endpoint and print each notification POSTed to it (de-duplicated by id):\n"
            "a one-line summary, or the payload as one JSON line with --json. Give the address printed\n"
            "on stderr as a webhook channel's URL. Stops after --count notifications, or on Ctrl-C (exit 0)."
        ),
    )
    ls.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    ls.add_argument("--port", type=_port, default=8080, help="port to listen on (default: 8080; 0 picks a free one)")
    ls.add_argument("--count", type=_positive_int, metavar="N", help="stop after N notifications (default: run until Ctrl-C)")
    ls.add_argument(
        "--forward-to",
        metavar="URL",
        type=_http_url,
        help="also POST each notification to URL (a local app; tried 3 times, failures on stderr)",
    )
    ls.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per line")

    cp = c.command(
        ["completion"],
        "print a shell completion script",
        cmd_completion,
        api=False,
        description='Print a completion script for bash or zsh: eval "$(urlscan-rs completion bash)" in ~/.bashrc\n'
        '(zsh: eval "$(urlscan-rs completion zsh)" in ~/.zshrc).',
    )
    cp.add_argument("shell", choices=("bash", "zsh"))

    c.command(
        ["mcp"],
        "serve the API to assistants (Model Context Protocol over stdio)",
        cmd_mcp,
        description=(
            "A Model Context Protocol server on stdin/stdout with tools to look up or scan URLs, read\n"
            "results (summary, verdict with its evidence, indicators, the screenshot as an image), search\n"
            "scans and every data source, find similar scans, walk a hostname's history, ask the malicious\n"
            "lookup, read saved searches and quotas, and say what it can do without a key (capabilities),\n"
            "through this client (its pacing and errors). Needs the mcp package: pip install\n"
            '"urlscan-rs[mcp]". Register it with an MCP client as {"command": "urlscan-rs", "args":\n'
            '["mcp"]} with URLSCAN_API_KEY in its environment.'
        ),
    )


def _emulator_commands(c: _Commands) -> None:
    """emulator, demo."""
    e = c.command(
        ["emulator"],
        "serve the local emulator of the service",
        cmd_emulator,
        api=False,
        description=(
            "Serve the local emulator of the service. It prints `export URLSCAN_BASE_URL=...` and\n"
            "`export URLSCAN_API_KEY=...` first (then the other keys as comments) and serves until Ctrl-C.\n"
            "With --background it starts in a process of its own and returns at once, so that\n"
            '  eval "$(urlscan-rs emulator --background)"\n'
            'sets up the shell (URLSCAN_EMULATOR_PID too); `eval "$(urlscan-rs emulator --stop)"` stops it.'
        ),
    )
    e.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    e.add_argument("--port", type=_port, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    e.add_argument("--scans", type=int, default=1000, metavar="N", help="historical scans to pre-load (default: 1000)")
    e.add_argument("--seed", type=int, default=0, help="seed of the generated data (default: 0)")
    e.add_argument("--latency", type=_seconds, default=0.0, metavar="SECONDS", help="added before each answer (default: 0)")
    e.add_argument(
        "--scan-duration",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="from submission to a finished scan (default: 10)",
    )
    e.add_argument(
        "--recordings",
        metavar="DIR",
        help="answer the requests recorded in DIR (by a client's record_to, or pytest --urlscan-record) as recorded, "
        "any other as the emulator would (default: none)",
    )
    e.add_argument(
        "--background",
        action="store_true",
        help="start it in a detached process, wait while it builds its scans (saying so on stderr; at most 30 s "
        "plus 2 ms a scan), print the export lines and its pid, and return (default: serve here)",
    )
    e.add_argument(
        "--log", metavar="FILE", help="with --background: append the emulator's messages to FILE (default: discard them)"
    )
    e.add_argument(
        "--stop",
        action="store_true",
        help="stop the emulator started with --background and print the unset line (default: start one)",
    )
    e.add_argument("--pid", metavar="PID", help="with --stop: the emulator's process (default: $URLSCAN_EMULATOR_PID)")
    e.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per line")

    d = c.command(["demo"], "a tour against the built-in emulator", cmd_demo, api=False)
    d.add_argument("--scan-duration", type=_seconds, default=3.0, metavar="SECONDS", help="how long scans take (default: 3)")
    d.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object per step")


def _add_output_file(p: argparse.ArgumentParser) -> None:
    # Every command that prints (JSON with --json) can write it to a file instead; the commands
    # that write files of their own (screenshots, downloads, exports) keep their -o, and the
    # servers (emulator, listen) and the demo print for a person watching.
    for path, leaf in leaf_commands(p).items():
        if "-o" not in leaf._option_string_actions and path[0] not in ("emulator", "listen", "demo", "mcp", "completion"):
            leaf.add_argument("-o", "--output", dest="output_file", metavar="FILE", help="write the output to FILE, not stdout")


def leaf_commands(parser: argparse.ArgumentParser | None = None) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command that runs something (``("incident", "create")``, ``("scan",)``, ...) and its parser."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found[path] = p
            return
        for action in subs:
            for name, child in action.choices.items():
                walk(child, (*path, name))

    walk(parser or build_parser(), ())
    return found


def completion_script(shell: str) -> str:
    """A bash (or zsh, through bashcompinit) completion script made from the parser:
    command words, then each command's options."""
    parser = build_parser()
    nexts: dict[str, set[str]] = {"": {o for a in parser._actions for o in a.option_strings}}
    opts: dict[str, list[str]] = {}
    for path, p in leaf_commands(parser).items():
        for i in range(len(path)):
            nexts.setdefault(" ".join(path[:i]), set()).add(path[i])
        opts[" ".join(path)] = sorted(o for a in p._actions for o in a.option_strings if o.startswith("--"))
    # Global options whose value is the next word (skipped when finding the command).
    valued = sorted(o for a in parser._actions for o in a.option_strings if a.nargs != 0 and o.startswith("--"))
    cases = [f'    "{k}") words="{" ".join(sorted(v))}";;' for k, v in sorted(nexts.items())]
    cases += [f'    "{k}") words="{" ".join(v)}";;' for k, v in sorted(opts.items()) if k not in nexts]
    known = "|".join(f'"{k}"' for k in sorted(set(nexts) | set(opts)) if k)
    script = f"""# urlscan-rs completion ({shell}): eval "$(urlscan-rs completion {shell})"
_urlscan_rs() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" path="" w i words=""
  for ((i=1; i<COMP_CWORD; i++)); do
    w="${{COMP_WORDS[i]}}"
    case "$w" in {"|".join(valued)}) ((i++)); continue;; -*) continue;; esac
    case "$path${{path:+ }}$w" in {known}) path="$path${{path:+ }}$w";; *) break;; esac
  done
  case "$path" in
{chr(10).join(cases)}
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}}
complete -F _urlscan_rs urlscan-rs
"""
    if shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    return script


def cmd_completion(args: argparse.Namespace, out: Output) -> int:
    out.line(completion_script(args.shell).rstrip("\n"))
    return EXIT_OK
