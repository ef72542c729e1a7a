"""Commands derived from the typed signatures of the client's methods."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeGuard

from ..errors import ValidationError
from ..models import Incident, Model, ScanResult, VisibilityChange
from ._common import _arg, _client, _write_bytes
from ._output import EXIT_OK, Output
from ._show import _model_block, _noun, _print_incident, _print_models, _print_result, _text

# Every method of the premium namespaces (and the client methods listed in
# CLIENT_COMMANDS) becomes one command: positional parameters become
# positional arguments, keyword parameters become --options (kebab-case flags
# for the snake_case keywords; list parameters repeatable, under their
# singular name too; bools as --x/--no-x; Literal types as choices). The types
# are read from the typed stubs shipped with the package (_client.pyi,
# _namespaces.pyi), so a new keyword there is a new option here. Which
# combinations are valid is left to the client: it refuses bad input before
# sending anything (exit code 2).


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of a client method, as its typed stub declares it."""

    name: str
    kind: str  # "str", "int", "float", "bool", "day" (a date) or "header" (a dict of HTTP headers)
    choices: tuple[str, ...] | None = None
    many: bool = False
    required: bool = False


@dataclasses.dataclass(frozen=True)
class Signature:
    positional: tuple[Param, ...]
    options: tuple[Param, ...]
    returns: str
    any_fields: bool = False  # takes **fields (the fields of ``create``)


def _literal(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return tuple(str(e.value) for e in elts if isinstance(e, ast.Constant))
    return None


def _union(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    return [node]


def _is_list(node: ast.expr) -> TypeGuard[ast.Subscript]:
    return isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("_List", "list")


def _param(name: str, annotation: ast.expr | None, required: bool, aliases: dict[str, tuple[str, ...]]) -> Param:
    members = [m for m in _union(annotation) if not (isinstance(m, ast.Constant) and m.value is None)] if annotation else []
    # "X | _List[X]" (one value or a list of them): the command line takes one.
    texts = {ast.unparse(m) for m in members}
    members = [m for m in members if not (_is_list(m) and ast.unparse(m.slice) in texts)]
    many = False
    if len(members) == 1 and _is_list(members[0]):
        many = True
        members = _union(members[0].slice)
    texts = {ast.unparse(m) for m in members}
    choices = None
    if len(members) == 1:
        m = members[0]
        choices = _literal(m) or (aliases.get(m.id) if isinstance(m, ast.Name) else None)
    if "_dt.date" in texts:
        kind = "day"
    elif any(t.startswith("dict[") for t in texts):
        kind, many = "header", True
    elif len(texts) == 1 and texts <= {"int", "float", "bool"}:
        kind = texts.pop()
    else:
        kind = "str"
    return Param(name, kind, choices, many, required)


def _signature(f: ast.FunctionDef, aliases: dict[str, tuple[str, ...]]) -> Signature:
    a = f.args
    pos = (a.posonlyargs + a.args)[1:]  # without self
    first_default = len(pos) - len(a.defaults)
    return Signature(
        positional=tuple(_param(x.arg, x.annotation, i < first_default, aliases) for i, x in enumerate(pos)),
        options=tuple(_param(x.arg, x.annotation, d is None, aliases) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)),
        returns=ast.unparse(f.returns) if f.returns else "None",
        any_fields=a.kwarg is not None,
    )


_STUBS: dict[str, dict[str, dict[str, Signature]]] = {}


def stub_signatures(filename: str) -> dict[str, dict[str, Signature]]:
    """Class name -> public method -> signature, read from a typed stub of this package (once)."""
    if filename not in _STUBS:
        _STUBS[filename] = _read_stub(filename)
    return _STUBS[filename]


def _read_stub(filename: str) -> dict[str, dict[str, Signature]]:
    stub = Path(__file__).parent.parent / filename  # the stubs sit in the package, one level up
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    aliases: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            choices = _literal(node.value)
            if choices:
                aliases[node.targets[0].id] = choices
    classes: dict[str, dict[str, Signature]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {
                f.name: _signature(f, aliases)
                for f in node.body
                if isinstance(f, ast.FunctionDef)
                and not f.name.startswith("_")
                and not any(isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list)
            }  # of overloads, the last (the most general) one
    return classes


# Command group -> (client attribute, class in _namespaces.pyi, help). Hostnames
# have the hand-written `hostname` command.
NAMESPACE_GROUPS: dict[str, tuple[str, str, str]] = {
    "livescan": ("livescan", "LiveScan", "live scans from chosen scanners; results stay temporary until stored (premium)"),
    "saved-search": ("saved_searches", "SavedSearches", "saved searches (premium)"),
    "subscription": ("subscriptions", "Subscriptions", "subscriptions: notifications for saved searches (premium)"),
    "channel": ("channels", "Channels", "notification channels: webhooks and e-mail (premium)"),
    "incident": ("incidents", "Incidents", "incidents: an observable scanned again and again (premium)"),
    "brand": ("brands", "Brands", "brands tracked for phishing (premium)"),
    "file": ("files", "Files", "files that scans downloaded (premium)"),
    "datadump": ("datadumps", "DataDumps", "bulk data dumps (premium)"),
}

# Namespace methods whose commands are written by hand (they do more than print an answer).
HAND_WRITTEN = {("datadumps", "download"), ("datadumps", "sync")}

# Client methods with one derived command each (the others have hand-written commands).
CLIENT_COMMANDS: dict[tuple[str, ...], str] = {
    ("user",): "user",
    ("response",): "response",
    ("visibility", "set"): "set_visibility",
    ("visibility", "reset"): "reset_visibility",
    ("countries",): "available_countries",
    ("user-agents",): "user_agents",
}

ENDPOINT_HELP: dict[str, str] = {
    "user": "show the account: user, team, products, features and limits",
    "response": "print a recorded response body by its SHA-256 hash",
    "set_visibility": "change a scan's visibility, or delete the scan (deleted)",
    "reset_visibility": "restore a scan's original visibility",
    "available_countries": "list the countries scans can be run from",
    "user_agents": "list the user agents scans can use",
    "livescan.scanners": "list the live scanners",
    "livescan.task": "task a live scan; prints its uuid at once",
    "livescan.scan": "run a live scan; prints its uuid once it has finished",
    "livescan.resource": "fetch a live scan's result, screenshot, dom, response or download",
    "livescan.store": "store a temporary live scan as a permanent snapshot",
    "livescan.purge": "delete a temporary live scan",
    "saved_searches.list": "list the saved searches",
    "saved_searches.create": "create a saved search",
    "saved_searches.update": "change a saved search (only the options given)",
    "saved_searches.delete": "delete a saved search",
    "saved_searches.results": "print the hits of a saved search, newest first",
    "subscriptions.list": "list the subscriptions",
    "subscriptions.create": "subscribe to saved searches",
    "subscriptions.update": "change a subscription (only the options given)",
    "subscriptions.delete": "delete a subscription",
    "subscriptions.results": "print the hits of a subscription",
    "channels.list": "list the notification channels",
    "channels.create": "create a notification channel",
    "channels.get": "show a notification channel",
    "channels.update": "change a notification channel (only the options given)",
    "incidents.create": "start tracking an observable",
    "incidents.get": "show an incident",
    "incidents.update": "change an incident (only the options given)",
    "incidents.close": "close an incident",
    "incidents.restart": "restart a closed incident",
    "incidents.copy": "copy an incident without its history (prints the new one)",
    "incidents.fork": "copy an incident with its observations (prints the new one)",
    "incidents.watchable_attributes": "list the attributes an incident can watch",
    "incidents.states": "list an incident's observations",
    "brands.available": "list the brands tracked for phishing",
    "brands.detected": "list the brands with detected phishing pages",
    "files.download": "download a file (unpacked from its ZIP and checked against the hash)",
    "files.download_zip": "download a file's password-protected ZIP as served",
    "datadumps.list": "list the data-dump files of a time window, file type and day",
    "datadumps.link": "print the temporary download address of a data-dump file",
}

FIELD_HELP: dict[str, str] = {
    "uuid": "scan uuid",
    "sha256": "SHA-256 hash",
    "url": "URL to scan",
    "observable": "hostname, domain, IP or URL",
    "scanner_id": "live scanner id (see `livescan scanners`)",
    "scan_id": "live scan uuid",
    "resource_type": "what to fetch",
    "resource_id": "scan uuid, or SHA-256 hash for response and download",
    "search_id": "saved search id",
    "subscription_id": "subscription id",
    "channel_id": "channel id",
    "incident_id": "incident id",
    "datasource": "data source",
    "time_window": "length of one file",
    "file_type": "kind of data",
    "date": "day: YYYY-MM-DD, YYYYMMDD, today or yesterday",
    "path": "file path from `datadump list`",
    "visibility": "visibility",
    "page_timeout": "page load timeout",
    "capture_delay": "delay before capturing",
    "extra_headers": "HTTP header 'Name: value'",
    "enable_features": "feature to enable",
    "disable_features": "feature to disable",
    "name": "name",
    "query": "search query",
    "description": "short description",
    "long_description": "long description",
    "permissions": "permission",
    "tlp": "traffic light protocol",
    "user_tags": "tag for matching items, prefixed by its scope (pro., public., private., team.)",
    "size": "hits to fetch",
    "search_after": "cursor: the sort values of the last hit, comma separated",
    "search_ids": "saved search id",
    "frequency": "how often notifications are sent",
    "email_addresses": "recipient e-mail address",
    "is_active": "whether it is active",
    "ignore_time": "whether to ignore time constraints",
    "week_days": "day on which alerts are generated",
    "channel_ids": "channel id",
    "incident_channel_ids": "channel id for incidents",
    "incident_profile_id": "incident profile id",
    "incident_visibility": "visibility of the incidents created",
    "incident_creation_mode": "when incidents are created",
    "incident_watch_keys": "what an incident watches",
    "type": "channel type",
    "webhook_url": "address receiving notifications",
    "utc_time": "HH:MM (UTC) at which daily e-mails are sent",
    "is_default": "whether it is the default channel",
    "channels": "channel id to notify",
    "scan_interval": "seconds between scans",
    "scan_interval_mode": "manual or automatic interval changes",
    "watched_attributes": "attribute to watch",
    "user_agents": "user agent to scan with",
    "user_agents_per_interval": "user agents used per interval",
    "countries": "country to scan from (ISO 3166-1 code)",
    "countries_per_interval": "countries used per interval",
    "stop_delay_suspended": "close this long after the observable was suspended",
    "stop_delay_inactive": "close this long after the observable became inactive",
    "stop_delay_malicious": "close this long after the observable became malicious",
    "scan_interval_after_suspended": "scan interval once suspended",
    "scan_interval_after_malicious": "scan interval once malicious",
    "incident_profile": "incident profile id",
    "expire_after": "seconds until the incident closes by itself",
    "extra_path": "path appended to a hostname observable, starting with /",
    "password": "ZIP password (default: urlscan!)",
}

# Past-tense titles of what a method did; and the JSON key of a plain (non-model) answer.
_VERBS = {
    "create": "created",
    "update": "updated",
    "close": "closed",
    "restart": "restarted",
    "copy": "copied into",
    "fork": "forked into",
    "store": "stored",
    "purge": "purged",
    "set_visibility": "changed",
    "reset_visibility": "reset",
}
_VALUE_KEYS = {
    "response": "response",
    "available_countries": "countries",
    "livescan.task": "uuid",
    "livescan.scan": "uuid",
    "livescan.resource": "content",
    "incidents.watchable_attributes": "attributes",
    "datadumps.link": "url",
}


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """A command made from one client method."""

    path: tuple[str, ...]  # e.g. ("incident", "create")
    attr: str  # the client's namespace attribute ("" for the client itself)
    method: str
    sig: Signature

    @property
    def key(self) -> str:
        return f"{self.attr}.{self.method}" if self.attr else self.method


def endpoints() -> list[Endpoint]:
    """Every derived command, from the typed stubs."""
    client = stub_signatures("_client.pyi")["Client"]
    found = [Endpoint(path, "", method, client[method]) for path, method in CLIENT_COMMANDS.items()]
    spaces = stub_signatures("_namespaces.pyi")
    for group, (attr, cls, _) in NAMESPACE_GROUPS.items():
        methods = spaces[cls]
        for name, sig in methods.items():
            if (attr, name) in HAND_WRITTEN:
                continue
            if sig.any_fields:  # update(id, **fields): the keyword fields of create, none required
                given = {p.name for p in sig.positional}
                fields = tuple(dataclasses.replace(p, required=False) for p in methods["create"].options if p.name not in given)
                sig = dataclasses.replace(sig, options=fields)
            found.append(Endpoint((group, name.replace("_", "-")), attr, name, sig))
    return found


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _singular(name: str) -> str:
    if name.endswith("sses"):
        return name[:-2]
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") else name


def _day(text: str) -> date | str:
    """YYYY-MM-DD, today or yesterday as a date; anything else is left to the client to check."""
    today = datetime.now(timezone.utc).date()
    word = text.strip().lower()
    if word in ("today", "yesterday"):
        return today - timedelta(days=1 if word == "yesterday" else 0)
    if len(text) == 10:
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    return text


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()


_CONVERTERS: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "day": _day, "header": _header, "str": str}


def _param_help(p: Param, *, stdin: bool = False, positional: bool = False) -> str:
    parts = [FIELD_HELP.get(p.name, p.name.replace("_", " "))]
    if p.choices and not p.many and not p.kind == "bool" and positional:
        parts.append("one of: " + ", ".join(p.choices))
    if p.many:
        parts.append("repeatable")
    if stdin:
        parts.append("- reads it from stdin")
    return "; ".join(parts)


def _add_endpoint_arguments(sp: argparse.ArgumentParser, ep: Endpoint) -> None:
    for p in ep.sig.positional:
        stdin = p.kind == "str" and not p.choices
        sp.add_argument(
            f"p_{p.name}",
            metavar=p.name.upper(),
            type=_CONVERTERS[p.kind],
            choices=p.choices,
            help=_param_help(p, stdin=stdin, positional=True),
        )
    for p in ep.sig.options:
        flags = [f"--{_kebab(p.name)}"]
        if p.many and _singular(p.name) != p.name:
            flags.insert(0, f"--{_kebab(_singular(p.name))}")
        kw: dict[str, Any] = {"dest": f"o_{p.name}", "help": _param_help(p)}
        if p.required:
            kw["required"] = True
        if p.kind == "bool":
            sp.add_argument(*flags, action=argparse.BooleanOptionalAction, default=None, **kw)
            continue
        kw["type"] = _CONVERTERS[p.kind]
        if p.choices:
            kw["choices"] = p.choices
        else:
            kw["metavar"] = {"int": "N", "float": "N", "header": "'NAME: VALUE'"}.get(p.kind, _singular(p.name).upper())
        sp.add_argument(*flags, action="append" if p.many else "store", **kw)
    if "bytes" in ep.sig.returns:
        sp.add_argument(
            "-o",
            "--output",
            metavar="FILE",
            help="file to write, or - for stdout (default: named after the id, in the current directory)",
        )


def _default_file(ep: Endpoint, positional: Sequence[Any]) -> str:
    ident = str(positional[-1])
    if ep.method == "download_zip":
        return ident + ".zip"
    if ep.method == "resource" and positional[1] == "screenshot":
        return ident + ".png"
    return ident


def _endpoint_command(ep: Endpoint) -> Callable[[argparse.Namespace, Output], int]:
    def run(args: argparse.Namespace, out: Output) -> int:
        positional: list[Any] = []
        for p in ep.sig.positional:
            value = getattr(args, f"p_{p.name}")
            if p.kind == "str" and not p.choices:
                value = _arg(args, value, FIELD_HELP.get(p.name, p.name))
            positional.append(value)
        options: dict[str, Any] = {}
        for p in ep.sig.options:
            value = getattr(args, f"o_{p.name}")
            if value is not None:  # only what was given (None would clear a nullable field)
                options[p.name] = dict(value) if p.kind == "header" else list(value) if p.many else value
        with _client(args) as c:
            target = getattr(c, ep.attr) if ep.attr else c
            try:
                value = getattr(target, ep.method)(*positional, **options)
            except ValidationError as e:
                raise _with_flags(e, ep) from None
            _show(args, out, ep, positional, value, c.base_url)
        return EXIT_OK

    return run


def _with_flags(err: ValidationError, ep: Endpoint) -> ValidationError:
    """The client names keywords (user_tags); name the command's options too (--user-tag)."""
    words = set(re.findall(r"[a-z_]+", str(err)))
    flags = [f"--{_kebab(_singular(p.name) if p.many else p.name)}" for p in ep.sig.options if p.name in words]
    return ValidationError(f"{err} [option {', '.join(flags)}]") if flags else err


def _title(*words: str) -> str:
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:]


def _show(args: argparse.Namespace, out: Output, ep: Endpoint, positional: Sequence[Any], value: Any, base_url: str) -> None:
    """Print what a derived command returned, by its type."""
    verb = _VERBS.get(ep.method, "")
    ident = str(positional[0]) if positional else ""
    output: str | None = getattr(args, "output", None)
    if value is None:  # deleted
        if out.json:
            out.emit({"id": ident, "deleted": True})
        else:
            out.line(f"Deleted {ep.path[0].replace('-', ' ')} {ident}")
    elif isinstance(value, (bytes, str)) and (isinstance(value, bytes) or output):
        data = value if isinstance(value, bytes) else value.encode("utf-8")
        target = output or _default_file(ep, positional)
        named = dict(zip((p.name for p in ep.sig.positional), positional, strict=True))
        what = {"download": "the file", "download-zip": "the ZIP of"}.get(ep.path[-1], f"the {named.get('resource_type')} of")
        _write_bytes(out, data, target, label=f"{what} {positional[-1]}", record={"id": str(positional[-1])})
    elif isinstance(value, list) and (value and not isinstance(value[0], Model) or "[str]" in ep.sig.returns):
        if out.json:
            out.emit({_VALUE_KEYS.get(ep.key, "values"): value})
        else:
            for v in value:
                out.line(str(v))
    elif isinstance(value, list):
        _print_models(out, value, "Nothing found.")
    elif isinstance(value, ScanResult):
        _print_result(out, value, base_url)
    elif isinstance(value, Incident):
        _print_incident(out, value, _title(verb, "incident"))
    elif isinstance(value, Model):
        if out.json:
            out.emit(value.to_dict())
            return
        fields = type(value).fields()
        name = next((f for f in ("id", "uuid", "username") if f in fields), None)
        shown = str(getattr(value, name) or "") if name else ""
        noun = "visibility of scan" if isinstance(value, VisibilityChange) else _noun(type(value))
        _model_block(out, value, _title(verb, noun, shown), skip=name)
    elif isinstance(value, dict):
        if out.json:
            out.emit(value)
        else:
            out.block(
                _title(verb, ep.path[0].replace("-", " "), " ".join(str(p) for p in positional)),
                [(k, _text(v)) for k, v in value.items()],
            )
    elif out.json:
        out.emit({_VALUE_KEYS.get(ep.key, "value"): value})
    else:
        text = str(value)
        out.line(text[:-1] if text.endswith("\n") else text)
