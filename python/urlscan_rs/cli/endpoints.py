"""Commands derived from the rows of the core's endpoint table."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from .. import _native, _rows
from ..errors import ValidationError
from ..models import Incident, Model, ScanResult, VisibilityChange
from ._args import _int_or_auto
from ._common import _arg, _client, _write_bytes
from ._output import EXIT_OK, Output
from ._show import _model_block, _noun, _print_incident, _print_models, _print_result, _text

# Every row of the core's endpoint table is one command: the premium namespaces' methods and
# the client's own (CLIENT_COMMANDS names some; CLIENT_HAND_WRITTEN and HAND_WRITTEN are written
# by hand because they do more than one call). Positional parameters become positional
# arguments, keyword parameters --options (kebab-case flags for the snake_case keywords; list
# parameters repeatable, under their singular name too; bools as --x/--no-x; enums as choices).
# The parameters are the generator's (``_rows.parameters``: the same the methods and stubs
# are written with), their kinds what the row's fields take, the help of commands and options
# the rows' documentation, so a new field in a row is a new, documented option here. Which
# combinations are valid is left to the client: it refuses bad input before sending anything
# (exit code 2).


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of a client method, as its row declares it."""

    name: str
    kind: str  # "str", "int", "bool" or "header" (a dict of HTTP headers)
    choices: tuple[str, ...] | None = None
    many: bool = False
    required: bool = False


@dataclasses.dataclass(frozen=True)
class Signature:
    positional: tuple[Param, ...]
    options: tuple[Param, ...]
    returns: str


# What a field takes (``Takes`` in the core) -> (the argument's kind, repeatable).
_TAKES = {
    "text": ("str", False),
    "flag": ("bool", False),
    "int": ("int", False),
    "texts": ("str", True),
    "headers": ("header", True),
    "one": ("str", False),
    "many": ("str", True),
    "one_or_many": ("str", True),
    "int_or_auto": ("int_or_auto", False),
}


def _param(field: dict[str, Any], required: bool) -> Param:
    if field["takes"] not in _TAKES:
        raise ValueError(f"{field['name']}: no command-line argument for a field that takes {field['takes']!r}")
    kind, many = _TAKES[field["takes"]]
    return Param(field["name"], kind, tuple(field["choices"]) or None, many, required)


def signature(row: dict[str, Any]) -> Signature:
    """A row's method as the generator writes it: its positional parameters and its keywords."""
    fields = {f["name"]: f for f in [*row["ids"], *row["body"], *row["params"]]}
    params = [(p, _param(fields[p.name], p.required)) for p in _rows.parameters(row)]
    return Signature(
        positional=tuple(q for p, q in params if p.positional),
        options=tuple(q for p, q in params if not p.positional),
        returns=_rows.returns(row),
    )


# Command group -> (client attribute, help). Hostnames have the hand-written `hostname` command.
NAMESPACE_GROUPS: dict[str, tuple[str, str]] = {
    "livescan": ("livescan", "live scans from chosen scanners; results stay temporary until stored (premium)"),
    "saved-search": ("saved_searches", "saved searches (premium)"),
    "subscription": ("subscriptions", "subscriptions: notifications for saved searches (premium)"),
    "channel": ("channels", "notification channels: webhooks and e-mail (premium)"),
    "incident": ("incidents", "incidents: an observable scanned again and again (premium)"),
    "brand": ("brands", "brands tracked for phishing (premium)"),
    "file": ("files", "files that scans downloaded (premium)"),
    "datadump": ("datadumps", "bulk data dumps (premium)"),
    "feed": ("feeds", "checkpointed feeds: the phishing feed or a saved search's hits, kept in a folder (premium)"),
}

# Namespace methods whose commands are written by hand (they do more than print an answer).
HAND_WRITTEN = {("datadumps", "download"), ("datadumps", "sync"), ("feeds", "sync")}

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
    return [*row["ids"], *row["body"], *row["params"], *row["walk"]]


def _sentence(text: str) -> str:
    """A row's documentation as a help line: its first paragraph, starting lowercase as argparse's lines do."""
    first = text.partition("\n\n")[0].replace("``", "'")
    word = first.split(" ", 1)[0]
    # An acronym ("URL", "IP") keeps its capitals.
    return first if len(word) > 1 and word.isupper() else first[:1].lower() + first[1:]


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
    """Every derived command, from the rows."""
    found = []
    for name, row in rows().items():
        attr, _, method = name.rpartition(".")
        if not attr:
            if name not in CLIENT_HAND_WRITTEN:
                found.append(Endpoint(CLIENT_COMMANDS.get(name, (_kebab(name),)), "", name, signature(row)))
            continue
        group = next((g for g, (a, _) in NAMESPACE_GROUPS.items() if a == attr), None)
        if group is not None and (attr, method) not in HAND_WRITTEN:
            found.append(Endpoint((group, _kebab(method)), attr, method, signature(row)))
    return found


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _singular(name: str) -> str:
    if name.endswith("sses"):
        return name[:-2]
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") else name


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()


_CONVERTERS: dict[str, Callable[[str], Any]] = {"int": int, "header": _header, "str": str, "int_or_auto": _int_or_auto}


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
        kw["metavar"] = {"int": "N", "header": "'NAME: VALUE'", "int_or_auto": "N|auto"}.get(p.kind, _singular(p.name).upper())
    sp.add_argument(*flags, action="append" if p.many else "store", **kw)


def option_values(args: argparse.Namespace, params: Sequence[Param]) -> dict[str, Any]:
    """The keywords given on the command line (only those: None would clear a nullable field)."""
    options: dict[str, Any] = {}
    for p in params:
        value = getattr(args, f"o_{p.name}")
        if value is not None:
            options[p.name] = dict(value) if p.kind == "header" else list(value) if p.many else value
    return options


def row_params(name: str) -> tuple[Param, ...]:
    """The keyword fields of row ``name`` (not those given by position) as command-line parameters."""
    row = rows()[name]
    return tuple(_param(f, False) for f in [*row["body"], *row["params"]] if f["name"] not in row["positional"])


# The options of a search row that the walk's own flags stand for: the query (an argument, or
# --query), --limit/--all/--count, --size and --search-after (``_add_paging_options``).
_PAGED = frozenset({"q", "size", "search_after", "limit"})


def _walk_params(name: str) -> tuple[Param, ...]:
    row = rows()[name]
    return tuple(_param(f, False) for f in [*row["params"], *row["walk"]] if f["name"] not in _PAGED)


def add_row_options(sp: argparse.ArgumentParser, name: str) -> None:
    """The flags of search row ``name``'s options but those of the paging flags: one per field, so an option
    added to the row is a documented flag here (read back with :func:`row_options`)."""
    for p in _walk_params(name):
        add_option(sp, name, p)


def row_options(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """The options of search row ``name`` given on the command line (see :func:`add_row_options`)."""
    return option_values(args, _walk_params(name))


def add_endpoint_arguments(sp: argparse.ArgumentParser, ep: Endpoint) -> None:
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


def endpoint_command(ep: Endpoint) -> Callable[[argparse.Namespace, Output], int]:
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
