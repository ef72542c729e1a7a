"""Writes the parts of the premium namespaces that follow from the endpoint table.

The core describes each table endpoint once (``crates/urlscan-core/src/api/*.rs``: its path
and the Python names of the ids in it, the body fields with their kinds, what
it returns, its docstring), and exports that as ``_native.endpoint_table()``.
From it this module writes, between ``# BEGIN GENERATED <name>`` and
``# END GENERATED <name>`` lines:

* in ``_namespaces.py``, each namespace's forwarding methods (region named
  after the table's prefix, e.g. ``channels``);
* in ``_namespaces.pyi``, their typed stubs (same regions), the import of the
  models the stubs name (``models``), the names of enum values (``aliases``,
  as ``ALIASES`` below names them), and every ``Async*`` class (``async``),
  derived from the sync classes, hand-written special methods included;
* in ``_client.py`` and ``_client.pyi``, the methods of the rows without a
  namespace (``client``: ``quotas``, ``available_countries``, ...) and the
  ``ScanOptions`` typed dict of the submission row's fields (``scan_options``),
  each field with its documentation;
* in ``_client.py``, ``search``, ``similar`` and ``phishfeed`` (``walks``), each with its row's
  options and documentation;
* in ``_client.pyi``, the search data sources (``_native.data_sources()``):
  the ``Datasource`` literal (``datasource``) and an overload of ``search``
  per data source typed with its hit model (``search``);
* in ``_client.pyi``, ``AsyncClient`` (``async``), derived from ``Client``, and
  outside the regions, the defaults of ``Client``'s waits (``timeout``,
  ``initial_wait`` and ``interval`` of a method taking ``initial_wait``): the
  core's (``_native.WAIT_DEFAULTS``), as literals (what a stub's default is);
* in ``models/premium.py``, the fields of the hit models that are a table schema's
  columns (regions named after the schema, ``FLAT_MODELS``), each from its
  column (name, wire paths, type, documentation);
* from the search data sources and the list of models (``models/__init__.py``'s
  ``__all__``, the one place a model is named; the data sources' hit models
  are written into it, ``hits``): the imports of ``models/__init__.py``
  (``imports``), the re-exports of the top-level package and their entries in
  its ``__all__`` (``models``, ``models_all``), the models import of
  ``_client.pyi`` (``models``), ``schema.py``'s constants and their entries in
  its ``__all__`` (``schemas``, ``schema_names``), and in ``docs/``: the hit
  classes on the models reference (``hits``), the schemas on the tables
  reference (``schemas``) and the table of data sources of the events guide
  (``data_sources``), in ``<!-- BEGIN GENERATED <name> -->`` regions;

so that no async signature, re-export or list of data sources is written by hand.

Run ``python -m urlscan_rs._generate`` after changing the table (rebuild the
extension first); ``--check`` writes nothing and fails when a file is stale
(CI). It lives in the package because it reads the table from the built
extension, and the tests use its reading of the table. The output goes
through ``ruff format``, so the generated code follows the project's format.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from . import _native, schema
from ._rows import Endpoint, Field, field_type, literal, parameters, returns

HERE = Path(__file__).resolve().parent
# The checkout the package is in: the generator writes its documentation too.
ROOT = HERE.parents[1]
COMMAND = "python -m urlscan_rs._generate"
PY = HERE / "_namespaces.py"
STUB = HERE / "_namespaces.pyi"
CLIENT = HERE / "_client.py"
CLIENT_STUB = HERE / "_client.pyi"
PACKAGE = HERE / "__init__.py"
MODELS_PACKAGE = HERE / "models" / "__init__.py"
SCHEMA = HERE / "schema.py"
MODELS_PAGE = ROOT / "docs" / "reference" / "models.md"
TABLES_PAGE = ROOT / "docs" / "reference" / "tables.md"
SOURCES_PAGE = ROOT / "docs" / "guide" / "events.md"
# The modules of models/ whose classes models/__init__.py imports, as its __all__ names them.
MODEL_MODULES = ("premium", "scanning")
# The namespace of the rows named without one: methods of Client itself.
CLIENT_ROWS = "client"
# A generated region: its BEGIN line (any text after the name), its body, its END line; in
# Python ``# BEGIN GENERATED <name>``, in Markdown ``<!-- BEGIN GENERATED <name> ... -->``.
_REGION = re.compile(
    r"^(?P<indent>[ ]*)(?P<open>#|<!--) BEGIN GENERATED (?P<name>\w+)\b[^\n]*\n(?P<body>.*?)"
    r"^(?P=indent)(?P=open) END GENERATED (?P=name)\b[^\n]*\n",
    re.MULTILINE | re.DOTALL,
)

# The names the stubs give to the values of enum fields (type aliases), each
# with a field whose values it names: "endpoint:field" (ids included). Fields
# with the same values use the same name; an enum without a name is spelt out.
ALIASES = {
    "Visibility": "livescan.task:visibility",
    "VisibilityOrDeleted": "set_visibility:visibility",
    "IncidentVisibility": "incidents.create:visibility",
    "SavedSearchDatasource": "saved_searches.create:datasource",
    "Frequency": "subscriptions.create:frequency",
    "WeekDay": "subscriptions.create:week_days",
    "TeamPermission": "subscriptions.create:permissions",
    "SearchPermission": "saved_searches.create:permissions",
    "Tlp": "saved_searches.create:tlp",
    "CreationMode": "subscriptions.create:incident_creation_mode",
    "WatchKey": "subscriptions.create:incident_watch_keys",
    "WatchedAttribute": "incidents.create:watched_attributes",
    "EnableFeature": "livescan.task:enable_features",
    "DisableFeature": "livescan.task:disable_features",
    "TimeWindow": "datadumps.list:time_window",
    "FileType": "datadumps.list:file_type",
    "ChannelType": "channels.create:type",
    "ScanIntervalMode": "incidents.create:scan_interval_mode",
}


def table() -> list[Endpoint]:
    """The endpoint table of the core."""
    return _native.endpoint_table()


def namespace(ep: Endpoint) -> str:
    """The namespace of the row's method (``CLIENT_ROWS`` for a method of the client itself)."""
    name = str(ep["name"])
    return name.split(".")[0] if "." in name else CLIENT_ROWS


def method(ep: Endpoint) -> str:
    return str(ep["name"]).rsplit(".", 1)[-1]


def aliases(endpoints: list[Endpoint]) -> dict[str, str]:
    """Each alias's Literal, as ``ALIASES`` names them."""
    out = {}
    for alias, where in ALIASES.items():
        name, _, field = where.partition(":")
        ep = next((ep for ep in endpoints if ep["name"] == name), None)
        found = [f for f in (ep["ids"] + ep["body"] + ep["params"]) if f["name"] == field] if ep else []
        if not found or not found[0]["choices"]:
            raise SystemExit(f"ALIASES: {alias} names {where}, which is not an enum field of the endpoint table")
        out[alias] = literal(found[0])
    return out


def keywords_name(ep: Endpoint) -> str | None:
    """The name of the runtime method's ``**`` parameter, if it takes keywords.

    At runtime the keywords are passed on to the core as they are given, so
    that a missing, misspelt or wrong one is a ``ValidationError`` naming the
    fix, and None can mean "not given" while a nullable field is still set
    to null when given None; the stub lists each keyword with its type.
    """
    if any(f["name"] not in ep["positional"] for f in ep["body"]):
        return "fields"
    return "options" if ep["params"] else None


def fields(ep: Endpoint) -> set[str]:
    """Every keyword the core accepts for the endpoint (body fields and query options)."""
    return {f["name"] for f in list(ep["body"]) + list(ep["params"])}


def _signature_parameters(ep: Endpoint, names: dict[str, str] | None = None, given: dict[str, str] | None = None) -> str:
    """The parameter list of a row's method: ``self``, the positional parameters, then the keywords
    with their defaults (None where the row gives none); ``given``: a parameter's whole text, by name."""
    parts = ["self"]
    for p in parameters(ep, names):
        if not p.positional and "*" not in parts:
            parts.append("*")
        text = f"{p.name}: {p.annotation}" + ("" if p.required else f" = {p.default or 'None'}")
        parts.append((given or {}).get(p.name, text))
    return ", ".join(parts)


def _stub_signature(ep: Endpoint, names: dict[str, str]) -> str:
    return f"def {method(ep)}({_signature_parameters(ep, names)}) -> {returns(ep)}:"


def _py_signature(ep: Endpoint) -> str:
    parts = ["self"] + [f"{p.name}: {'str' if p.annotation == 'str' else 'Any'}" for p in parameters(ep) if p.positional]
    kw = keywords_name(ep)
    if kw:
        parts.append(f"**{kw}: Any")
    return f"def {method(ep)}({', '.join(parts)}) -> Any:"


def docstring(ep: Endpoint) -> str:
    """The table's docstring, its first paragraph ending with the method and path (ids by name)."""
    path = str(ep["path"])
    for i, f in enumerate(ep["ids"]):
        path = path.replace(f"{{{i}}}", f"{{{f['name']}}}")
    first, _, rest = str(ep["doc"]).partition("\n\n")
    endpoint = f"({ep['method']} {path})."
    # On a line of its own when the line would be too long (130, with the indent and quotes).
    text = f"{first} {endpoint}" if len(first) + len(endpoint) + 15 <= 130 else f"{first}\n{endpoint}"
    return f"{text}\n\n{rest}\n" if rest else text


def _py_method(ep: Endpoint) -> str:
    doc = docstring(ep).replace("\n", "\n        ").replace("\n        \n", "\n\n")
    ids = ", ".join(f["name"] for f in ep["ids"])
    options = [f'"{n}": {n}' for n in ep["positional"]]
    kw = keywords_name(ep)
    if kw:
        options.append(f"**{kw}")
    given = kw if kw and not ep["positional"] else f"{{{', '.join(options)}}}"
    call = f'self._endpoint("{ep["name"]}", [{ids}], {given})'
    return f'\n    {_py_signature(ep)}\n        """{doc}"""\n        return {call}\n'


def _stub_method(ep: Endpoint, names: dict[str, str]) -> str:
    return f"    {_stub_signature(ep, names)} ...\n"


def builtin_lists(text: str) -> str:
    """Types for Client and module-level classes, where ``list`` is the builtin (the stubs'
    ``_List`` is for the namespaces, whose ``list`` method hides it)."""
    return text.replace("_List[", "list[")


SCAN_ROW = "scan"


def scan_options(endpoints: list[Endpoint]) -> list[Field]:
    """The options of a submission: the scan row's fields but the URL (given on its own)."""
    ep = next(ep for ep in endpoints if ep["name"] == SCAN_ROW)
    return [f for f in ep["body"] if f["name"] not in ep["positional"]]


def _scan_options_class(endpoints: list[Endpoint], names: dict[str, str] | None) -> str:
    """``ScanOptions``: a typed dict of the scan options, each documented (runtime: no alias names)."""
    out = [
        "class ScanOptions(TypedDict, total=False):",
        '    """The options of a scan (:meth:`Client.scan`, :meth:`Client.scan_and_wait`,',
        "    :meth:`Client.bulk_scan`), as keywords; None or a missing one is not sent.",
        '    """',
        "",
    ]
    for f in scan_options(endpoints):
        annotation = builtin_lists(field_type(f, names))
        out.append(f"    {f['name']}: {annotation} | None")
        if f["doc"]:
            out.append(textwrap.fill(f"{f['doc']}.", width=120, initial_indent='    """', subsequent_indent="    ") + '"""')
    return "\n".join(out) + "\n"


def generated(endpoints: list[Endpoint]) -> list[Endpoint]:
    """The endpoints whose Python methods are generated (the others are written by hand)."""
    return [ep for ep in endpoints if not ep["by_hand"]]


# The models whose fields are a table schema's columns: generated from the schema
# (``crates/urlscan-tables/src/schema.rs``) into the ``# BEGIN GENERATED <SCHEMA>`` region
# of the class in ``models/premium.py``, so a hit field is declared once.
MODELS = HERE / "models" / "premium.py"
FLAT_MODELS = ("HOSTNAME_HITS", "CERTIFICATES", "DOMAINS")
# A column's Python annotation and reader, by its schema type.
_COLUMN_TYPES = {
    "string": ("str | None", None),
    "int64": ("int | None", "_int"),
    "float64": ("float | None", None),
    "bool": ("bool | None", None),
    "timestamp[us, UTC]": ("datetime | None", "_datetime"),
    "date32": ("date | None", "_date"),
    "list<string>": ("list[str] | None", "_opt_list"),
}


def _wire(paths: list[str]) -> str:
    first, *rest = paths
    return f"``{first}``" + "".join(f" (else ``{p}``)" for p in rest)


def model_fields(schema: dict[str, Any]) -> str:
    """A flat model's field declarations, one per column of ``schema``."""
    out = []
    for col in schema["columns"]:
        if col["type"] not in _COLUMN_TYPES:
            raise SystemExit(f"{schema['name']}.{col['name']}: no Python type for a column of {col['type']}")
        annotation, reader = _COLUMN_TYPES[col["type"]]
        if col["name"] == "id":
            annotation = "str"  # every hit has one
        args = json.dumps("|".join(col["paths"])) + (f", {reader}" if reader else "")
        doc = col["doc"][0].upper() + col["doc"][1:] + (", aware in UTC" if col["type"].startswith("timestamp") else "")
        out.append(f"{col['name']}: {annotation} = _field({args})\n" + f'"""{doc}. Wire: {_wire(col["paths"])}."""\n')
    return textwrap.indent("".join(out), "    ")


def data_sources() -> list[dict[str, Any]]:
    """The search data sources of the core (name, hit model, table schema, shown columns)."""
    return _native.data_sources()


SEARCH_ROWS = ("search", "similar", "phishfeed")


def _search_methods() -> str:
    """``search`` (one overload per data source, the first the default, and one for any name),
    ``similar`` and ``phishfeed``, each with its row's parameters (the methods of ``_client.py``
    are written from the same rows, ``_walk_methods``)."""
    rows = {ep["name"]: ep for ep in table() if ep["name"] in SEARCH_ROWS}

    def method(name: str, hits: str, datasource: str = "") -> str:
        params = _signature_parameters(rows[name], given={"datasource": f"datasource: {datasource}"})
        return f"def {name}({params}) -> SyncSearchIterator[{hits}]: ...\n"

    sources = data_sources()
    out = [
        "    @overload\n    " + method("search", d["model"], f'Literal["{d["name"]}"]' + (" | None = None" if i == 0 else ""))
        for i, d in enumerate(sources)
    ]
    out.append("    @overload\n    " + method("search", " | ".join(d["model"] for d in sources), "str | None = None"))
    out += ["    " + method(name, "SearchHit") for name in SEARCH_ROWS[1:]]
    return "".join(out)


def _walk_methods() -> str:
    """The runtime ``search``, ``similar`` and ``phishfeed`` of ``_client.py``: each takes its row's
    options (a data source in any case, typed ``str``: the stub's overloads type it by its
    values), and its docstring is the row's and its fields' documentation, with the hit class of
    each data source; each returns the lazy walk of ``_walk``."""
    rows = {ep["name"]: ep for ep in table() if ep["name"] in SEARCH_ROWS}
    sources = data_sources()
    out = []
    # A field documented by an earlier method (the same field of the same row module) points there.
    documented: dict[tuple[str, str], str] = {}
    for name in SEARCH_ROWS:
        ep = rows[name]
        fields = [*ep["ids"], *ep["params"], *ep["walk"]]
        anycase = {literal(f): "str" for f in fields if f["kind"] == "AnyCase"}
        first, _, rest = docstring(ep).partition("\n\n")
        paragraphs = [first]
        if any(f["choices"] == [d["name"] for d in sources] for f in fields):
            classes = [f":class:`{d['model']}`" for d in sources]
            paragraphs.append(
                f"Hits are {classes[0]} for {sources[0]['name']} (the default), and "
                + ", ".join(classes[1:-1])
                + f" or {classes[-1]} for the other data sources."
            )
        paragraphs += [p.strip() for p in rest.split("\n\n") if p.strip()]
        # Prose is filled to the width of the file's other docstrings.
        paragraphs = [paragraphs[0]] + [textwrap.fill(" ".join(p.split()), 96) for p in paragraphs[1:]]
        lines = ["Parameters:"]
        for f in fields:
            doc = f["doc"].rstrip(".")
            if f["choices"]:
                doc += "; one of " + ", ".join(json.dumps(c) for c in f["choices"])
            seen = documented.setdefault((f["name"], doc), name)
            if seen != name:
                doc = f"As in :meth:`{seen}`"
            lines += textwrap.wrap(f"{f['name']}: {doc}.", 96, initial_indent="    ", subsequent_indent="        ")
        paragraphs.append("\n".join(lines))
        doc = textwrap.indent("\n\n".join(paragraphs), "        ").strip()
        out.append(
            f"\n    def {name}({_signature_parameters(ep, anycase)}) -> SearchIterator:\n"
            f'        """{doc}\n        """\n'
            f'        return self._walk("{name}", locals())\n'
        )
    return "".join(out)


def _datasource_alias() -> str:
    return "Datasource = Literal[" + ", ".join(json.dumps(d["name"]) for d in data_sources()) + "]\n"


def model_lists(text: str) -> tuple[list[str], list[str]]:
    """The models as ``models/__init__.py`` (its text) lists them: those the top-level package
    exports too (its ``__all__ = [...]``), then those of ``urlscan_rs.models`` only (``__all__ += [...]``)."""
    top: list[str] = []
    rest: list[str] = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            top += ast.literal_eval(node.value)
        elif isinstance(node, ast.AugAssign) and ast.unparse(node.target) == "__all__":
            rest += ast.literal_eval(node.value)
    return top, rest


def _classes(module: str) -> dict[str, ast.ClassDef]:
    """The classes a module of ``models/`` defines, by name."""
    tree = ast.parse((MODELS_PACKAGE.parent / f"{module}.py").read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _models_imports(text: str) -> str:
    """``models/__init__.py``'s imports of the models its ``__all__`` names (but those it imports by hand)."""
    top, rest = model_lists(text)
    hand = {
        a.asname or a.name
        for n in ast.parse(_fill(MODELS_PACKAGE, text, {"imports": ""}, keep_others=True)).body
        if isinstance(n, ast.ImportFrom)
        for a in n.names
    }
    defined = {module: set(_classes(module)) for module in MODEL_MODULES}
    unknown = [name for name in top + rest if name not in hand and not any(name in d for d in defined.values())]
    if unknown:
        raise SystemExit(f"models/__init__.py names {', '.join(unknown)}, which no module of {MODEL_MODULES} defines")
    out = []
    for module, names in defined.items():
        mine = sorted(name for name in top + rest if name in names and name not in hand)
        out.append(f"from .{module} import (\n" + "".join(f"    {name},\n" for name in mine) + ")\n")
    return "".join(out) + "\n"


def _hits(sources: list[dict[str, Any]]) -> str:
    """The data sources' hit models, as entries of ``models/__init__.py``'s ``__all__``."""
    return "".join(f"    {json.dumps(d['model'])},\n" for d in sources)


def _package_regions(top: list[str]) -> dict[str, str]:
    """The top-level package's import of the models it exports, and their ``__all__`` entries."""
    names = sorted(top)
    return {
        "models": "from .models import (\n" + "".join(f"    {name},\n" for name in names) + ")\n\n",
        "models_all": "".join(f"    {json.dumps(name)},\n" for name in names),
    }


def _schema_regions() -> dict[str, str]:
    """``schema.py``'s constant of each table schema, and their ``__all__`` entries."""
    names = [s["name"] for s in _native.table_schemas()]
    return {
        "schema_names": "".join(f"    {json.dumps(n)},\n" for n in names),
        "schemas": "".join(f"{n}: Schema = _BY_NAME[{json.dumps(n)}]\n" for n in names),
    }


def _markdown(text: str) -> str:
    """A region's Markdown, set apart from the comments around it by blank lines."""
    return "\n" + text.strip("\n") + "\n\n"


def _hits_page(sources: list[dict[str, Any]]) -> str:
    """The models reference's entry of each data source's hit class."""
    return "\n".join(f"::: urlscan_rs.models.{d['model']}\n    options:\n      heading_level: 3\n" for d in sources)


def _sources_table(sources: list[dict[str, Any]], models: list[str]) -> str:
    """The events guide's table of the data sources: the hit class (and the model it is, when it
    extends one), the table schema and the columns the command line shows."""
    classes = {name: node for module in MODEL_MODULES for name, node in _classes(module).items()}
    out = ["| `datasource` | hit class | table schema | shown by `urlscan-rs search` |", "|---|---|---|---|"]
    for i, d in enumerate(sources):
        node = classes.get(d["model"])
        bases = [ast.unparse(b) for b in node.bases] if node else []
        extended = next((b for b in bases if b in models and b != "Model"), None)
        hit = f"`{d['model']}`" + (f" ({'an' if extended[0] in 'AEIOU' else 'a'} `{extended}`)" if extended else "")
        shown = ", ".join(f"`{c}`" for c in d["shown"])
        out.append(f"| `{d['name']}`{' (default)' if i == 0 else ''} | {hit} | `{d['schema']}` | {shown} |")
    return "\n".join(out) + "\n"


def _fill(path: Path, text: str, contents: dict[str, str], keep_others: bool = False) -> str:
    """Each region named in ``contents`` filled with it; the others kept or emptied."""
    seen: set[str] = set()

    def region(m: re.Match[str]) -> str:
        name, indent = m["name"], m["indent"]
        seen.add(name)
        if name not in contents and keep_others:
            return m[0]
        if m["open"] == "#":
            begin, end = f"{indent}# BEGIN GENERATED {name} by `{COMMAND}`: do not edit\n", f"{indent}# END GENERATED {name}\n"
        else:
            begin, end = f"<!-- BEGIN GENERATED {name} by `{COMMAND}`: do not edit -->\n", f"<!-- END GENERATED {name} -->\n"
        return begin + contents.get(name, "") + end

    out = _REGION.sub(region, text)
    missing = sorted(set(contents) - seen)
    if missing:
        lines = ("<!-- BEGIN GENERATED <name> -->", "<!-- END GENERATED <name> -->")
        if path.suffix != ".md":
            lines = ("# BEGIN GENERATED <name>", "# END GENERATED <name>")
        raise SystemExit(
            f"{path.name}: no region for {', '.join(missing)}: put the lines '{lines[0]}' "
            f"and '{lines[1]}' where the generated text goes"
        )
    return out


def regions(text: str) -> dict[str, str]:
    """The generated regions of a file's text: each one's body, by name."""
    return {m["name"]: m["body"] for m in _REGION.finditer(text)}


def namespace_classes() -> set[str]:
    """The classes of the namespaces: those of the attributes of ``Client`` in its stub."""
    tree = ast.parse((HERE / "_client.pyi").read_text(encoding="utf-8"))
    client = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Client")
    return {ast.unparse(a.annotation) for a in client.body if isinstance(a, ast.AnnAssign)}


def _async_classes(stub: str) -> str:
    """Each namespace class of the stub as ``Async<name>``: methods awaited, except those returning an iterator."""
    out = []
    spaces = namespace_classes()
    for node in ast.parse(stub).body:
        if not (isinstance(node, ast.ClassDef) and node.name in spaces):
            continue
        body: list[ast.stmt] = []
        for fn in node.body:
            if isinstance(fn, ast.FunctionDef) and not ast.unparse(fn.returns or ast.Constant(None)).endswith("Iterator"):
                fn = ast.AsyncFunctionDef(**{k: getattr(fn, k) for k in fn._fields})
            body.append(fn)
        node = ast.ClassDef(**{k: getattr(node, k) for k in node._fields} | {"name": f"Async{node.name}", "body": body})
        out.append(_unparse(node))
    return "\n".join(out)


# AsyncClient's stub is Client's, awaited: these are renamed, and close() has
# an awaitable twin, aclose().
_ASYNC_NAMES = {"Client": "AsyncClient", "SyncSearchIterator": "AsyncSearchIterator", "__enter__": "__aenter__"}
_ASYNC_NAMES |= {"__exit__": "__aexit__"}
_NOT_AWAITED = {"__init__", "close", "with_options"}


class _Awaited(ast.NodeTransformer):
    """Client's stub as AsyncClient's: names renamed, namespaces Async*, calls awaited (not the iterators)."""

    def __init__(self, spaces: set[str]) -> None:
        self.spaces = spaces

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.spaces:
            return ast.Name(f"Async{node.id}", node.ctx)
        return ast.Name(_ASYNC_NAMES.get(node.id, node.id), node.ctx)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.stmt | list[ast.stmt]:
        node = self.generic_visit(node)  # type: ignore[assignment]
        decorators = {ast.unparse(d) for d in node.decorator_list}
        returns = ast.unparse(node.returns or ast.Constant(None))
        if node.name in _NOT_AWAITED or "property" in decorators or returns.endswith("]") and "Iterator[" in returns:
            if node.name != "close":
                return node
            aclose = ast.AsyncFunctionDef(**{k: getattr(node, k) for k in node._fields} | {"name": "aclose"})
            return [node, aclose]
        fields = {k: getattr(node, k) for k in node._fields}
        return ast.AsyncFunctionDef(**fields | {"name": _ASYNC_NAMES.get(node.name, node.name)})


def _async_client(stub: str) -> str:
    client = next(n for n in ast.parse(stub).body if isinstance(n, ast.ClassDef) and n.name == "Client")
    node = _Awaited(namespace_classes()).visit(client)
    node.name = "AsyncClient"
    return _unparse(node)


def _wait_defaults(stub: str) -> str:
    """The stub with the core's wait defaults as those of each method of ``Client`` that waits
    (takes ``initial_wait``); only the defaults' text changes, in place."""
    waits: dict[str, Any] = dict(_native.WAIT_DEFAULTS)
    client = next(n for n in ast.parse(stub).body if isinstance(n, ast.ClassDef) and n.name == "Client")
    edits: list[tuple[int, int, int, str]] = []
    for fn in client.body:
        if not isinstance(fn, ast.FunctionDef) or "initial_wait" not in {a.arg for a in fn.args.kwonlyargs}:
            continue
        for arg, default in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True):
            if arg.arg in waits and default is not None:
                end = default.end_col_offset or default.col_offset
                edits.append((default.lineno - 1, default.col_offset, end, repr(float(waits[arg.arg]))))
    lines = stub.splitlines(keepends=True)
    # From the end of each line back, so the offsets (in UTF-8 bytes) of those before stay true.
    for row, start, end, text in sorted(edits, reverse=True):
        line = lines[row].encode()
        lines[row] = (line[:start] + text.encode() + line[end:]).decode()
    return "".join(lines)


def _unparse(node: ast.stmt) -> str:
    """A stub's class as text (without the blank lines ``ast.unparse`` puts between its methods)."""
    return "".join(f"{line}\n" for line in ast.unparse(ast.fix_missing_locations(node)).splitlines() if line.strip())


def _models_import(stub: str, names: list[str]) -> str:
    """A stub's import of the models (``names``) it mentions."""
    used = set(re.findall(r"\b\w+\b", stub)) & set(names)
    return "from .models import (\n" + "".join(f"    {name},\n" for name in sorted(used)) + ")\n\n"


def _format(path: Path, text: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(path), "-"],
        input=text,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"ruff format {path.name} failed:\n{proc.stderr}")
    return proc.stdout


def _sources_files(sources: list[dict[str, Any]]) -> dict[Path, str]:
    """The files that follow from the data sources and the list of models: the two packages'
    imports and ``__all__``, ``schema.py`` and the reference pages."""
    text = MODELS_PACKAGE.read_text(encoding="utf-8")
    text = _fill(MODELS_PACKAGE, text, {"hits": _hits(sources)}, keep_others=True)
    text = _fill(MODELS_PACKAGE, text, {"imports": _models_imports(text)}, keep_others=True)
    top, rest = model_lists(text)
    if not (ROOT / "docs").is_dir():
        raise SystemExit(f"{ROOT} has no docs/: run {COMMAND} in a checkout of the project")
    pages = {
        MODELS_PAGE: {"hits": _markdown(_hits_page(sources))},
        TABLES_PAGE: {"schemas": _markdown(schema.markdown())},
        SOURCES_PAGE: {"data_sources": _markdown(_sources_table(sources, top + rest))},
    }
    out = {MODELS_PACKAGE: _format(MODELS_PACKAGE, text)}
    out[PACKAGE] = _format(PACKAGE, _fill(PACKAGE, PACKAGE.read_text(encoding="utf-8"), _package_regions(top)))
    out[SCHEMA] = _format(SCHEMA, _fill(SCHEMA, SCHEMA.read_text(encoding="utf-8"), _schema_regions()))
    for page, contents in pages.items():
        out[page] = _fill(page, page.read_text(encoding="utf-8"), contents)
    return out


def render(endpoints: list[Endpoint] | None = None) -> dict[Path, str]:
    """The new text of each generated file."""
    sourced = _sources_files(data_sources())
    model_names = [name for part in model_lists(sourced[MODELS_PACKAGE]) for name in part]
    everything = table() if endpoints is None else endpoints
    eps = generated(everything)
    literals = aliases(everything)
    names = {value: alias for alias, value in literals.items()}
    spaces = list(dict.fromkeys(namespace(ep) for ep in eps))
    py = {ns: "".join(_py_method(ep) for ep in eps if namespace(ep) == ns) for ns in spaces}
    stubs = {ns: "".join(_stub_method(ep, names) for ep in eps if namespace(ep) == ns) for ns in spaces}
    stubs["aliases"] = "".join(f"{alias} = {value}\n" for alias, value in literals.items())
    # The client's own rows go to the client's files.
    client_py = {
        CLIENT_ROWS: py.pop(CLIENT_ROWS, ""),
        "scan_options": _scan_options_class(everything, None),
        "walks": _walk_methods(),
    }
    own = builtin_lists(stubs.pop(CLIENT_ROWS, ""))
    client_stubs = {
        CLIENT_ROWS: own,
        "scan_options": _scan_options_class(everything, names),
        "search": _search_methods(),
        "datasource": _datasource_alias(),
    }
    py_text = _format(PY, _fill(PY, PY.read_text(encoding="utf-8"), py))
    stub = _fill(STUB, STUB.read_text(encoding="utf-8"), stubs)
    # Then from the stub so far (its models and async regions empty): what it imports, its async classes.
    stub = _fill(STUB, stub, {"models": _models_import(stub, model_names), "async": _async_classes(stub)}, keep_others=True)
    client_text = _format(CLIENT, _fill(CLIENT, CLIENT.read_text(encoding="utf-8"), client_py))
    client = _fill(CLIENT_STUB, CLIENT_STUB.read_text(encoding="utf-8"), client_stubs, keep_others=True)
    client = _fill(CLIENT_STUB, client, {"models": "", "async": ""}, keep_others=True)
    client = _fill(CLIENT_STUB, client, {"models": _models_import(client, model_names)}, keep_others=True)
    client = _wait_defaults(client)
    client = _fill(CLIENT_STUB, client, {"async": _async_client(client)}, keep_others=True)
    schemas = {s["name"]: s for s in _native.table_schemas()}
    flat = {name: model_fields(schemas[name]) for name in FLAT_MODELS}
    models_text = _format(MODELS, _fill(MODELS, MODELS.read_text(encoding="utf-8"), flat, keep_others=True))
    return sourced | {
        MODELS: models_text,
        PY: py_text,
        STUB: _format(STUB, stub),
        CLIENT: client_text,
        CLIENT_STUB: _format(CLIENT_STUB, client),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; fail when a generated file is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in render().items():
        if path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(p.name for p in stale)
        print(f"stale: {names} (run `{COMMAND}` and commit the result)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
