"""Commands derived from the rows of the core's endpoint table."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeGuard

from .. import _native
from ..errors import ValidationError
from ..models import Incident, Model, ScanResult, VisibilityChange
from ._common import _arg, _client, _write_bytes
from ._output import EXIT_OK, Output
from ._show import _model_block, _noun, _print_incident, _print_models, _print_result, _text

# Every row of the core's endpoint table is one command: the premium namespaces' methods and
# the client's own (CLIENT_COMMANDS names some; CLIENT_HAND_WRITTEN and HAND_WRITTEN are written
# by hand because they do more than one call). Positional parameters become positional
# arguments, keyword parameters --options (kebab-case flags for the snake_case keywords; list
# parameters repeatable, under their singular name too; bools as --x/--no-x; Literal types as
# choices). The signatures are read from the typed stubs generated from the rows (_client.pyi,
# _namespaces.pyi), the help of commands and options from the rows' documentation, so a new
# field in a row is a new, documented option here. Which combinations are valid is left to the
# client: it refuses bad input before sending anything (exit code 2).


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

# The rows of the client itself (no namespace) each make a command named after the method,
# but for these names, and those with commands written by hand (they do more than print an answer).
CLIENT_COMMANDS: dict[str, tuple[str, ...]] = {
    "set_visibility": ("visibility", "set"),
    "reset_visibility": ("visibility", "reset"),
    "available_countries": ("countries",),
}
CLIENT_HAND_WRITTEN = {"scan", "result", "screenshot", "dom", "search", "similar", "phishfeed", "quotas"}


@functools.cache
def rows() -> dict[str, dict[str, Any]]:
    """The core's endpoint table by row name: the help of commands and options comes from it."""
    return {row["name"]: row for row in _native.endpoint_table()}


def _fields(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [*row["ids"], *row["body"], *row["params"]]


def _sentence(text: str) -> str:
    """A row's documentation as a help line: its first paragraph, starting lowercase as argparse's lines do."""
    first = text.partition("\n\n")[0].replace("``", "'")
    return first[:1].lower() + first[1:] if first[1:2].islower() else first


def command_help(key: str) -> str:
    """A command's help: its row's documentation (the client's method docstring for the few without a row)."""
    row = rows().get(key)
    if row and row["doc"]:
        return _sentence(row["doc"])
    return key.replace("_", " ")


@functools.cache
def _docs() -> dict[tuple[str, str], str]:
    """(row, field) -> documentation; ("", field) -> the first row's that documents the field."""
    out: dict[tuple[str, str], str] = {}
    for row in rows().values():
        for f in _fields(row):
            if f["doc"]:
                out[(row["name"], f["name"])] = f["doc"]
                out.setdefault(("", f["name"]), f["doc"])
    return out


def field_help(key: str, name: str) -> str:
    """An argument's help: its field's documentation in the row, else in any row (update takes create's fields)."""
    doc = _docs().get((key, name)) or _docs().get(("", name))
    return _sentence(doc) if doc else name.replace("_", " ")


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
    own = [name for name in rows() if "." not in name and name not in CLIENT_HAND_WRITTEN]
    found = [Endpoint(CLIENT_COMMANDS.get(name, (_kebab(name),)), "", name, client[name]) for name in own]
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


def _param_help(key: str, p: Param, *, stdin: bool = False, positional: bool = False) -> str:
    parts = [field_help(key, p.name)]
    if p.choices and not p.many and not p.kind == "bool" and positional:
        parts.append("one of: " + ", ".join(p.choices))
    if p.many:
        parts.append("repeatable")
    if stdin:
        parts.append("- reads it from stdin")
    return "; ".join(parts)


def add_option(sp: argparse.ArgumentParser, key: str, p: Param, aliases: Sequence[str] = ()) -> None:
    """The --option of keyword ``p`` of row ``key`` (dest ``o_<name>``; read back with :func:`option_values`)."""
    flags = [f"--{_kebab(p.name)}", *aliases]
    if p.many and _singular(p.name) != p.name:
        flags.insert(0, f"--{_kebab(_singular(p.name))}")
    kw: dict[str, Any] = {"dest": f"o_{p.name}", "help": _param_help(key, p)}
    if p.required:
        kw["required"] = True
    if p.kind == "bool":
        sp.add_argument(*flags, action=argparse.BooleanOptionalAction, default=None, **kw)
        return
    kw["type"] = _CONVERTERS[p.kind]
    if p.choices:
        kw["choices"] = p.choices
    else:
        kw["metavar"] = {"int": "N", "float": "N", "header": "'NAME: VALUE'"}.get(p.kind, _singular(p.name).upper())
    sp.add_argument(*flags, action="append" if p.many else "store", **kw)


def option_values(args: argparse.Namespace, params: Sequence[Param]) -> dict[str, Any]:
    """The keywords given on the command line (only those: None would clear a nullable field)."""
    options: dict[str, Any] = {}
    for p in params:
        value = getattr(args, f"o_{p.name}")
        if value is not None:
            options[p.name] = dict(value) if p.kind == "header" else list(value) if p.many else value
    return options


# The kinds of the core's fields (``Kind`` in crates/urlscan-core/src/fields.rs) that take several values.
_MANY = {"StrList", "IdList", "EnumList", "Emails", "Countries", "UserTags", "Tags"}


def row_params(name: str) -> tuple[Param, ...]:
    """The keyword fields of row ``name`` (not those given by position) as command-line parameters."""
    row = rows()[name]
    kinds = {"Bool": "bool", "Switch": "bool", "Int": "int", "Headers": "header"}
    return tuple(
        Param(f["name"], kinds.get(f["kind"], "str"), tuple(f["choices"]) or None, f["kind"] in _MANY, False)
        for f in [*row["body"], *row["params"]]
        if f["name"] not in row["positional"]
    )


def _add_endpoint_arguments(sp: argparse.ArgumentParser, ep: Endpoint) -> None:
    for p in ep.sig.positional:
        stdin = p.kind == "str" and not p.choices
        sp.add_argument(
            f"p_{p.name}",
            metavar=p.name.upper(),
            type=_CONVERTERS[p.kind],
            choices=p.choices,
            help=_param_help(ep.key, p, stdin=stdin, positional=True),
        )
    for p in ep.sig.options:
        add_option(sp, ep.key, p)
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
                value = _arg(args, value, field_help(ep.key, p.name))
            positional.append(value)
        options = option_values(args, ep.sig.options)
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
