"""The premium namespaces follow from the core's endpoint table: the generated
files are current, every table endpoint is a method of both clients with the
signature the table documents, and the stubs name only fields the core takes."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import _generate, _rows
from urlscan_rs._generate import Endpoint

TABLE = _generate.table()


def _stub_classes(filename: str) -> dict[str, ast.ClassDef]:
    tree = ast.parse((_generate.HERE / filename).read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _stub_aliases() -> dict[str, str]:
    """Literal (as the generator spells it) -> the alias the stub gives it."""
    tree = ast.parse(_generate.STUB.read_text(encoding="utf-8"))
    out = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and ast.unparse(n.value).startswith("Literal["):
            values = ast.literal_eval(ast.unparse(n.value)[len("Literal") :])
            values = (values,) if isinstance(values, str) else values
            out["Literal[" + ", ".join(json.dumps(v) for v in values) + "]"] = n.targets[0].id
    return out


def _attribute_classes(client: str) -> dict[str, str]:
    """Client attribute -> the class its stub gives it (``channels`` -> ``Channels`` or ``AsyncChannels``)."""
    cls = _stub_classes("_client.pyi")[client]
    return {ast.unparse(a.target): ast.unparse(a.annotation) for a in cls.body if isinstance(a, ast.AnnAssign)}


def _normal(annotation: str) -> str:
    return ast.unparse(ast.parse(annotation, mode="eval").body)


def _stub_method(client: str, ep: Endpoint) -> ast.FunctionDef | ast.AsyncFunctionDef:
    if _generate.namespace(ep) == _generate.CLIENT_ROWS:
        cls = _stub_classes("_client.pyi")[client]
    else:
        cls = _stub_classes("_namespaces.pyi")[_attribute_classes(client)[_generate.namespace(ep)]]
    found = [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == _generate.method(ep)]
    assert found, f"{client}: {ep['name']} has no stub"
    return found[0]


def test_the_generated_files_are_current() -> None:
    proc = subprocess.run([sys.executable, "-m", "urlscan_rs._generate", "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_check_sees_a_change_of_the_table() -> None:
    changed = [dict(ep, doc="Something else") if ep["name"] == "channels.get" else ep for ep in TABLE]
    new = _generate.render(changed)
    assert "Something else (GET /api/v1/user/channels/{channel_id})." in new[_generate.PY]
    assert new[_generate.PY] != _generate.PY.read_text(encoding="utf-8")
    assert _generate.render(TABLE)[_generate.PY] == _generate.PY.read_text(encoding="utf-8")


def test_the_table_is_whole() -> None:
    names = {ep["name"] for ep in TABLE}
    assert {"channels.create", "incidents.close", "livescan.task", "datadumps.list", "saved_searches.results"} <= names
    for ep in TABLE:
        # Every id of the path has a Python name, and a generated method has a docstring.
        assert len(ep["ids"]) == ep["path"].count("{"), ep["name"]
        assert ep["by_hand"] or ep["doc"], ep["name"]


@pytest.fixture(scope="module")
def clients() -> Any:
    key = "00000000-0000-4000-8000-000000000000"
    sync = urlscan_rs.Client(key, base_url="http://127.0.0.1:9")
    async_ = urlscan_rs.AsyncClient(key, base_url="http://127.0.0.1:9")
    yield {"Client": sync, "AsyncClient": async_}
    sync.close()
    async_.close()


@pytest.mark.parametrize("ep", TABLE, ids=[ep["name"] for ep in TABLE])
@pytest.mark.parametrize("client", ["Client", "AsyncClient"])
def test_every_endpoint_is_a_method_with_the_tables_signature(clients: Any, client: str, ep: Endpoint) -> None:
    documented = _generate.parameters(ep, _stub_aliases())
    positional = [p.name for p in documented if p.positional]
    keywords = [p for p in documented if not p.positional]

    # At runtime: the ids and positional fields by position; the keywords go to the core as given.
    owner = clients[client]
    if _generate.namespace(ep) != _generate.CLIENT_ROWS:
        owner = getattr(owner, _generate.namespace(ep))
    fn = getattr(owner, _generate.method(ep))
    params = list(inspect.signature(fn).parameters.values())
    runtime_positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    if ep["by_hand"]:
        assert runtime_positional[: len(ep["ids"])] == [f["name"] for f in ep["ids"]]
    else:
        assert runtime_positional == positional
        assert any(p.kind is p.VAR_KEYWORD for p in params) == bool(keywords)

    # In the stub: every parameter with its type, the keywords required as the table says, the return type.
    stub = _stub_method(client, ep)
    walks = "Iterator" in ast.unparse(stub.returns or ast.Constant(None))  # iterated, not awaited
    if client == "AsyncClient" and not walks:
        assert isinstance(stub, ast.AsyncFunctionDef), f"{ep['name']} is not awaited in the async stub"
    args = stub.args
    stub_positional = [a.arg for a in args.args[1:]]
    if ep["by_hand"]:
        assert stub_positional[: len(ep["ids"])] == [f["name"] for f in ep["ids"]]
        return
    assert stub_positional == positional
    assert [(a.arg, ast.unparse(a.annotation or ast.Constant(None))) for a in args.args[1:]] == [
        (p.name, _normal(p.annotation)) for p in documented if p.positional
    ]
    assert [
        (a.arg, ast.unparse(a.annotation or ast.Constant(None)), d is None)
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ] == [(p.name, _normal(p.annotation), p.required) for p in keywords]
    assert args.kwarg is None
    returns = _generate.returns(ep)
    if _generate.namespace(ep) == _generate.CLIENT_ROWS:
        returns = _generate.builtin_lists(returns)
    assert ast.unparse(stub.returns or ast.Constant(None)) == _normal(returns)


# The client's own hand-written methods (scan, search, ...) also take keywords of the client's
# (refang, limit, parallel, ...); their scan options are checked below.
_NAMED = [ep for ep in TABLE if not (ep["by_hand"] and _generate.namespace(ep) == _generate.CLIENT_ROWS)]


@pytest.mark.parametrize("ep", _NAMED, ids=[ep["name"] for ep in _NAMED])
@pytest.mark.parametrize("client", ["Client", "AsyncClient"])
def test_the_stubs_name_only_fields_the_core_takes(client: str, ep: Endpoint) -> None:
    stub = _stub_method(client, ep)
    ids = {f["name"] for f in ep["ids"]}
    named = {a.arg for a in stub.args.args[1:] + stub.args.kwonlyargs} - ids
    assert named <= _generate.fields(ep), sorted(named - _generate.fields(ep))


@pytest.mark.parametrize("client", ["Client", "AsyncClient"])
def test_scan_options_are_the_submission_rows_fields(client: str) -> None:
    """scan, scan_and_wait and bulk_scan take the scan row's fields (but the URL) as ``ScanOptions``."""
    options = [f["name"] for f in _generate.scan_options(TABLE)]
    assert "visibility" in options and "url" not in options
    assert list(urlscan_rs._native.NativeClient.SCAN_OPTIONS) == options
    assert list(urlscan_rs.ScanOptions.__annotations__) == options
    typed = _stub_classes("_client.pyi")["ScanOptions"]
    assert [ast.unparse(a.target) for a in typed.body if isinstance(a, ast.AnnAssign)] == options
    for method in ("scan", "scan_and_wait", "bulk_scan"):
        stub = next(f for f in _stub_classes("_client.pyi")[client].body if getattr(f, "name", "") == method)
        assert isinstance(stub, (ast.FunctionDef, ast.AsyncFunctionDef))
        assert stub.args.kwarg is not None and ast.unparse(stub.args.kwarg.annotation or ast.Constant(None)) == (
            "Unpack[ScanOptions]"
        ), method


def test_a_new_scan_option_in_the_row_reaches_the_typed_options() -> None:
    """A field added to the scan row is a keyword of ScanOptions, in the module and in its stub."""
    field = {"name": "extra_option", "wire": "extraOption", "kind": "Bool", "takes": "flag", "choices": [], "required": False}
    field |= {"nullable": False, "doc": "An option added to the row"}
    changed = [dict(ep, body=[*ep["body"], field]) if ep["name"] == "scan" else ep for ep in TABLE]
    new = _generate.render(changed)
    for path in (_generate.CLIENT, _generate.CLIENT_STUB):
        assert "    extra_option: bool | None\n" in new[path], path.name
        assert '"""An option added to the row."""' in new[path], path.name


_SEARCH = [ep for ep in TABLE if ep["name"] in _generate.SEARCH_ROWS]


@pytest.mark.parametrize("ep", _SEARCH, ids=[ep["name"] for ep in _SEARCH])
@pytest.mark.parametrize("cls", [urlscan_rs.Client, urlscan_rs.AsyncClient])
def test_the_search_methods_take_their_rows_options(cls: type, ep: Endpoint) -> None:
    """search, similar and phishfeed (generated apart from the other rows: they return a lazy walk)
    take exactly their row's ids, query options and walk options: same order, kinds, types and defaults. The
    data source is typed ``str`` there (any case is taken; the stub's overloads type it)."""
    names = {_rows.literal(f): "str" for f in ep["params"] if f["name"] == "datasource"}
    want = [
        (p.name, p.positional, _normal(p.annotation), "" if p.required else (p.default or "None"))
        for p in _rows.parameters(ep, names)
    ]
    params = list(inspect.signature(getattr(cls, ep["name"])).parameters.values())[1:]
    got = [
        (p.name, p.kind is p.POSITIONAL_OR_KEYWORD, _normal(p.annotation), "" if p.default is p.empty else repr(p.default))
        for p in params
    ]
    assert got == want
    assert {"size", "limit"} <= {p.name for p in params}  # the walk's options are the row's too
