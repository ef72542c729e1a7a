"""The API reference: every public name has a docstring, every method that
calls the service names its endpoint, every public name is on a reference
page, and the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import _namespaces, errors, events, models, pytest_plugin, testing
from urlscan_rs._tables import Tabular

ROOT = Path(__file__).resolve().parent.parent
# A method and a path: "GET /api/v1/search/", "POST /api/v1/scan/", "GET /screenshots/{uuid}.png".
ENDPOINT = re.compile(r"\b(GET|POST|PUT|DELETE) /[\w{]")
# Client methods that send nothing.
LOCAL_METHODS = {"close", "aclose", "with_options"}
# request() sends to whatever path it is given: there is no one endpoint to name.
NO_ENDPOINT = LOCAL_METHODS | {"request"}
FIXTURES = {"urlscan_emulator", "urlscan_client", "urlscan_async_client", "urlscan_webhook"}


def _doc(obj: Any) -> str:
    """The object's own docstring ("" when it has none; a dataclass's generated one does not count)."""
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    doc = getattr(obj, "__doc__", None) or ""
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""
    return doc.strip()


def _own(cls: type) -> Iterator[tuple[str, Any]]:
    """The public members of a class that this package defines (inherited ones included)."""
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
        if owner is None or not owner.__module__.startswith("urlscan_rs"):
            continue
        yield name, owner.__dict__[name]


def _is_field(cls: type, name: str, member: Any) -> bool:
    """A model field: documented by its wire name (the reference shows it), not by a docstring."""
    return type(member).__name__ in ("_FieldView", "FieldReader") and name in getattr(cls, "_fields", {})


_PUBLIC_MODULES = (
    (urlscan_rs, urlscan_rs.__all__),
    (models, models.__all__),
    (errors, errors.__all__),
    (testing, testing.__all__),
    (_namespaces, _namespaces.__all__),
)


def _public_classes() -> dict[str, type]:
    """Every public class, by the first name a reader finds it under."""
    out: dict[str, type] = {}
    seen: set[int] = set()
    for module, names in _PUBLIC_MODULES:
        for name in names:
            obj = getattr(module, name)
            if inspect.isclass(obj) and id(obj) not in seen:
                seen.add(id(obj))
                out[f"{module.__name__}.{name}"] = obj
    return out


def _public_names(cls: type) -> set[str]:
    """Every name a class is public under (``urlscan_rs.ScanResult``, ``urlscan_rs.models.ScanResult``)."""
    return {f"{m.__name__}.{n}" for m, names in _PUBLIC_MODULES for n in names if getattr(m, n) is cls}


def _missing_docs() -> list[str]:
    missing: list[str] = []
    modules: list[ModuleType] = [urlscan_rs, errors, models, events, testing, pytest_plugin]
    missing += [m.__name__ for m in modules if not _doc(m)]
    for name in urlscan_rs.__all__:
        obj = getattr(urlscan_rs, name)
        if (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj)) and not _doc(obj):
            missing.append(f"urlscan_rs.{name}")
    for path, cls in _public_classes().items():
        if not _doc(cls):
            missing.append(path)
        for name, member in _own(cls):
            if _is_field(cls, name, member):
                continue
            if isinstance(member, (property, classmethod, staticmethod)) or inspect.isfunction(member):
                if not _doc(member):
                    missing.append(f"{path}.{name}")
    for name in dir(pytest_plugin):
        obj = getattr(pytest_plugin, name)
        if name.startswith("_") or getattr(obj, "__module__", None) != pytest_plugin.__name__:
            continue
        if callable(obj) and not _doc(obj):
            missing.append(f"{pytest_plugin.__name__}.{name}")
    return missing


def test_every_public_name_has_a_docstring() -> None:
    assert _missing_docs() == []


def test_the_walk_sees_the_whole_api() -> None:
    # The walk above must reach what it claims to check (or it would pass on nothing).
    classes = set(_public_classes().values())
    expected = {urlscan_rs.Client, urlscan_rs.AsyncClient, models.ScanResult, models.Task, errors.UrlscanError}
    expected |= {testing.Emulator, testing.WebhookReceiver, testing.Delivery}
    expected |= {getattr(_namespaces, n) for n in _namespaces.__all__}
    assert expected <= classes
    client_methods = {name for name, _ in _own(urlscan_rs.Client)}
    assert {"scan", "search", "quotas", "close", "rate_limits"} <= client_methods
    own = {n for n in dir(pytest_plugin) if getattr(getattr(pytest_plugin, n), "__module__", None) == pytest_plugin.__name__}
    assert FIXTURES <= own


def test_the_check_fails_on_a_missing_docstring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models.Quotas.remaining, "__doc__", None)
    monkeypatch.setattr(testing.Emulator, "__doc__", None)
    monkeypatch.setattr(_namespaces.Files.download, "__doc__", "The file itself.")
    assert _missing_docs() == ["urlscan_rs.Quotas.remaining", "urlscan_rs.testing.Emulator"]
    assert _unnamed_endpoints() == ["Files.download"]


def _service_methods() -> Iterator[tuple[str, Any]]:
    """Every method of the clients and the namespaces that sends a request."""
    for cls in (urlscan_rs.Client, urlscan_rs.AsyncClient):
        for name, member in _own(cls):
            if inspect.isfunction(member) and name not in NO_ENDPOINT:
                yield f"{cls.__name__}.{name}", member
    for ns_name in _namespaces.__all__:
        cls = getattr(_namespaces, ns_name)
        for name, member in _own(cls):
            # A table of a walk reads the walk's pages: the iterator's method names the endpoint.
            if inspect.isfunction(member) and not hasattr(Tabular, name):
                yield f"{ns_name}.{name}", member


def _unnamed_endpoints() -> list[str]:
    return [name for name, fn in _service_methods() if not ENDPOINT.search(_doc(fn))]


def test_every_method_that_calls_the_service_names_its_endpoint() -> None:
    methods = dict(_service_methods())
    assert {"Client.scan", "AsyncClient.search", "LiveScan.task", "DataDumps.link", "Files.download"} <= set(methods)
    assert _unnamed_endpoints() == []


def test_endpoints_named_are_the_cores() -> None:
    # Each path a docstring names is one the Rust core sends (up to the parameter names).
    sources = "\n".join(p.read_text() for p in sorted((ROOT / "crates" / "urlscan-core" / "src" / "api").glob("*.rs")))
    sent = {_shape(p) for p in re.findall(r'"(/(?:api/v1|screenshots|dom|responses|downloads)[^"]*)"', sources)}
    wrong = []
    for name, fn in _service_methods():
        for path in re.findall(r"\b(?:GET|POST|PUT|DELETE) (/[^\s,;)]+)", _doc(fn)):
            if _shape(path) not in sent:
                wrong.append(f"{name}: {path}")
    assert wrong == []


def _shape(path: str) -> str:
    """A path with every parameter as {} and no trailing slash: /api/v1/result/{}."""
    path = re.sub(r"\{[^}]*\}", "{}", path.split("?")[0])
    return path.rstrip("/").replace(".png", "")


def _rendered() -> set[str]:
    """The identifiers the reference pages render (``::: urlscan_rs...``)."""
    text = "\n".join(p.read_text() for p in sorted((ROOT / "docs" / "reference").glob("*.md")))
    return set(re.findall(r"^::: ([\w.]+)", text, flags=re.MULTILINE))


def test_every_public_name_is_on_a_reference_page() -> None:
    rendered = _rendered()
    absent = []
    for path, cls in _public_classes().items():
        # Rendered under a name a reader finds it by, where it is defined, or with its whole module.
        if (_public_names(cls) | {f"{cls.__module__}.{cls.__qualname__}", cls.__module__}) & rendered:
            continue
        absent.append(path)
    for module in (events, pytest_plugin):
        if module.__name__ not in rendered:
            absent.append(module.__name__)
    assert absent == []


def test_reference_builds_without_warnings(tmp_path: Path) -> None:
    # No skip when mkdocs is missing: the test extra installs the docs extra.
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    client_page = (tmp_path / "reference" / "client" / "index.html").read_text()
    # The stubs' types are in the signatures, and the docstrings of the module beside them.
    assert "Submit a URL for scanning (POST /api/v1/scan/)." in client_page
    assert "SyncSearchIterator" in client_page and "AsyncSearchIterator" in client_page
    namespaces_page = (tmp_path / "reference" / "namespaces" / "index.html").read_text()
    assert "enable_features" in namespaces_page  # a keyword only the stub lists (the module takes **options)


def test_the_reference_as_griffe_sees_it() -> None:
    """What the pages show: stub-only classes (the Async* namespaces) and the clients'
    inherited methods have docstrings, and every method there names its endpoint."""
    import griffe  # installed with mkdocstrings (the docs extra)

    extension = griffe.load_extensions(f"{ROOT / 'docs' / 'griffe_urlscan.py'}:UrlscanDocs")
    pkg = griffe.load("urlscan_rs", search_paths=[str(ROOT / "python")], extensions=extension, docstring_parser="google")
    missing, unnamed = [], []
    classes = [pkg["_client"][n] for n in ("Client", "AsyncClient", "SearchIterator")]
    classes += [m for n, m in pkg["_namespaces"].members.items() if not m.is_alias and m.is_class and not n.startswith("_")]
    for cls in classes:
        if not cls.docstring:
            missing.append(cls.path)
        for name, member in cls.members.items():
            if name.startswith("_") or member.is_alias:
                continue
            if not member.docstring:
                missing.append(member.path)
            elif member.is_function and cls.name not in ("SearchIterator", "HostnameIterator") and name not in NO_ENDPOINT:
                if not ENDPOINT.search(member.docstring.value):
                    unnamed.append(member.path)
    assert missing == []
    assert unnamed == []
    assert "search" in pkg["_client"]["Client"].members  # declared only as overloads in the stub
