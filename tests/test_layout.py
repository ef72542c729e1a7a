"""The layout keeps its shape: crates that name the architecture, no Rust module
that depends, through others, on a module that depends on it, and a command line
made of small modules that starts without loading what only some commands need."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CRATES = {
    "urlscan-rules": ROOT / "crates" / "urlscan-rules",
    "urlscan-core": ROOT / "crates" / "urlscan-core",
    "urlscan-emulator": ROOT / "crates" / "urlscan-emulator",
    "urlscan-rs": ROOT,
}
# What only the emulator (or the extension) may bring in.
SERVER_ONLY = {"axum", "pest", "pest_derive", "png", "pyo3", "jiter"}

Module = tuple[str, ...]
# `crate::a::b`, `super::super::c` and `use crate::{a, b}`-style heads.
PATH = re.compile(r"\b((?:crate|super)(?:::super)*)::((?:\w+::)*\w+)")
CHILD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+);", re.M)
TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{.*", re.S)


def modules(src: Path) -> dict[Module, Path]:
    found: dict[Module, Path] = {}
    for path in src.rglob("*.rs"):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] in ("lib", "mod"):
            parts = parts[:-1]
        found[parts] = path
    return found


def dependencies(src: Path) -> dict[Module, set[Module]]:
    """Each module's edges to the other modules it names, by the longest
    module prefix of each path, and to the children it declares and uses. An inline `#[cfg(test)] mod` at the end of a
    file is left out: tests may look anywhere."""
    mods = modules(src)
    edges: dict[Module, set[Module]] = {m: set() for m in mods}
    for module, path in mods.items():
        text = TEST_MODULE.sub("", path.read_text())
        for m in PATH.finditer(text):
            head, rest = m.group(1), m.group(2).split("::")
            base = list(module[: len(module) - head.count("super")]) if head != "crate" else []
            full = base + rest
            target = next((tuple(full[:n]) for n in range(len(full), 0, -1) if tuple(full[:n]) in mods), None)
            if target is not None and target != module:
                edges[module].add(target)
        # A parent naming a child it declares (`mod hosts;` ... `hosts::f()`).
        for child in CHILD.findall(text):
            if module + (child,) in mods and re.search(rf"(?<![:\w]){child}::", text):
                edges[module].add(module + (child,))
    return edges


def cycles(edges: dict[Module, set[Module]]) -> list[list[Module]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[Module, int] = {}
    low: dict[Module, int] = {}
    stack: list[Module] = []
    on_stack: set[Module] = set()
    found: list[list[Module]] = []

    def visit(v: Module) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "lib.rs").write_text("mod a;\nmod b;\nmod c;\n")
    (tmp_path / "a.rs").write_text("use crate::b::B;\n")
    (tmp_path / "b.rs").write_text("use super::a::A;\nuse crate::c;\n")
    (tmp_path / "c.rs").write_text("#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n")
    assert cycles(dependencies(tmp_path)) == [[("a",), ("b",)]]
    # Through a parent that uses its child: d/mod.rs -> d::e -> c -> d.
    (tmp_path / "lib.rs").write_text("mod a;\nmod b;\nmod c;\nmod d;\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "mod.rs").write_text("mod e;\npub fn f() { e::g() }\npub struct T;\n")
    (tmp_path / "d" / "e.rs").write_text("pub fn g() { crate::c::h() }\n")
    (tmp_path / "c.rs").write_text("pub fn h() {}\nfn k(_: crate::d::T) {}\n")
    assert sorted(cycles(dependencies(tmp_path))) == [[("a",), ("b",)], [("c",), ("d",), ("d", "e")]]


@pytest.mark.parametrize("crate", sorted(CRATES))
def test_no_module_cycles(crate: str) -> None:
    found = cycles(dependencies(CRATES[crate] / "src"))
    assert not found, [", ".join("::".join(m) for m in c) for c in found]


def test_the_client_core_is_free_of_the_server() -> None:
    # The [dependencies] table's keys (tomllib is 3.11+, the package supports 3.10).
    manifest = (CRATES["urlscan-core"] / "Cargo.toml").read_text()
    table = manifest.split("[dependencies]", 1)[1].split("\n[", 1)[0]
    direct = {line.split("=")[0].split(".")[0].strip() for line in table.splitlines() if "=" in line}
    assert "reqwest" in direct and "urlscan-rules" in direct, direct
    assert not (SERVER_ONLY | {"urlscan-emulator"}) & direct, direct
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: only the manifest was checked")
    tree = subprocess.run(
        [cargo, "tree", "-p", "urlscan-core", "-e", "normal", "--prefix", "none", "--offline"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    names = {line.split()[0] for line in tree.splitlines() if line.strip()}
    assert "urlscan-core" in names and "reqwest" in names, tree[:500]
    assert not names & (SERVER_ONLY | {"urlscan-emulator"}), sorted(names & SERVER_ONLY)


# What only the Python layer knows: its event loop, its bindings and its type names. The core's
# tables describe answers by shape (`Shape`), which the generator turns into Python types.
PYTHON_ONLY = re.compile(r'asyncio|pyo3|\bPy[A-Z]\w+|"(dict|list|tuple)\[|"Any"|"str"|"bool"')


def test_the_client_core_holds_no_python() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((CRATES["urlscan-core"] / "src").rglob("*.rs"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PYTHON_ONLY.search(line)
    ]
    assert not found, "\n".join(found)


CLI = ROOT / "python" / "urlscan_rs" / "cli"
CLI_MODULE_LINES = 600
# Loaded only by the commands that need them; `urlscan-rs --help` (and every other command's
# start) must not pay for them. The stdlib modules the client itself loads (asyncio, ssl,
# sqlite3, ...) are not listed.
NOT_AT_START = (
    "pyarrow",
    "polars",
    "pandas",
    "numpy",
    "pyspark",
    "tqdm",
    "keyring",
    "mcp",
    "http.client",
    "http.server",
    "urllib.request",
    "webbrowser",
    "email",
    "urlscan_rs.testing",
    "urlscan_rs.mcp_server",
    "urlscan_rs.spark",
    "urlscan_rs.webhooks",
    "urlscan_rs.playbook",
    "urlscan_rs._generate",
)


def test_cli_modules_stay_small() -> None:
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in CLI.glob("*.py")}
    assert {"__init__.py", "__main__.py", "_parser.py"} <= set(sizes), sorted(sizes)
    assert {name: n for name, n in sizes.items() if n >= CLI_MODULE_LINES} == {}


def test_cli_starts_without_heavy_imports() -> None:
    # What is loaded, not how long it takes: a timing would fail on a busy machine.
    code = (
        "import contextlib, io, sys\n"
        "import urlscan_rs.cli as cli\n"
        "with contextlib.redirect_stdout(io.StringIO()) as help:\n"
        "    code = cli.main(['--help'])\n"
        "assert code == 0 and 'usage: urlscan-rs' in help.getvalue(), code\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "urlscan_rs.cli._parser" in loaded
    heavy = sorted(m for m in loaded if m in NOT_AT_START or m.split(".")[0] in NOT_AT_START)
    assert heavy == []


PACKAGE = ROOT / "python" / "urlscan_rs"


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports, at its top or in a function (not under TYPE_CHECKING)."""
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for n in node.orelse:
                visit(n)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


def test_the_package_has_no_import_cycle() -> None:
    """No module of the package imports, even inside a function, one that imports it back
    (through others): each layer reads only those below it."""
    paths = {_module(p): p for p in PACKAGE.rglob("*.py")}
    native = {_module(p) for p in PACKAGE.rglob("*.pyi")} - set(paths)  # extension modules: leaves
    graph = {m: _imports(p, set(paths) | native) - native for m, p in paths.items()}
    # The package itself re-exports its modules (each imports its siblings, not the package).
    assert not [m for m, deps in graph.items() if PACKAGE.name in deps and not m.startswith(f"{PACKAGE.name}.cli")], graph
    graph = {m: deps - {PACKAGE.name} for m, deps in graph.items() if m != PACKAGE.name}
    seen: dict[str, int] = {}  # 1 while being visited, 2 when done

    def walk(m: str, trail: list[str]) -> None:
        seen[m] = 1
        for d in sorted(graph[m]):
            assert seen.get(d) != 1, "import cycle: " + " -> ".join([*trail[trail.index(d) :], d])
            if d not in seen:
                walk(d, [*trail, d])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            walk(m, [m])
    assert len(graph) > 30 and sum(len(d) for d in graph.values()) > 80


def _private_reaches(package: Path) -> list[str]:
    """Where a module of the package takes another module's private name: ``from .x import _y``, or
    ``x._y`` of a module ``x`` it imported, where ``x`` is a public module (a private module,
    ``_native``, ``_client``, ..., is the package's shared inside and may be reached into)."""

    def module(path: Path) -> str:
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    every = {module(p) for p in [*package.rglob("*.py"), *package.rglob("*.pyi")]}  # _native has a stub only
    public = {m for m in every if not any(part.startswith("_") for part in m.split(".")[1:])}
    found = []
    for path in sorted(package.rglob("*.py")):
        here = module(path)
        parts = here.split(".")
        base = parts if path.name == "__init__.py" else parts[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            origin = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            for a in node.names:
                target = f"{origin}.{a.name}"
                if target in every:  # a module, not a name: reached into below if public
                    if target in public:
                        aliases[a.asname or a.name] = target
                elif origin in public and origin != here and a.name.startswith("_") and not a.name.startswith("__"):
                    found.append(f"{here} imports {origin}.{a.name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{here} reads {aliases[node.value.id]}.{node.attr}")
    return sorted(set(found))


def test_no_module_takes_a_public_modules_private_names() -> None:
    # Modules talk through public names: a private one of a public module (datadumps._sync,
    # schema._OF_DATASOURCE) is that module's own. Shared helpers live in private modules.
    assert _private_reaches(ROOT / "python" / "urlscan_rs") == []


def test_the_private_name_check_finds_both_forms(tmp_path: Path) -> None:
    pkg = tmp_path / "urlscan_rs"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "feeds.py").write_text("from .datadumps import _sync, sync\nfrom . import datadumps\nx = datadumps._LOCK\n")
    (pkg / "datadumps.py").write_text("_sync = sync = _LOCK = 1\n")
    (pkg / "_state.py").write_text("from ._native import _x\n")
    (pkg / "cli" / "__init__.py").write_text("from ..feeds import _y\nfrom ._show import _z\n")
    assert _private_reaches(pkg) == [
        "urlscan_rs.cli imports urlscan_rs.feeds._y",
        "urlscan_rs.feeds imports urlscan_rs.datadumps._sync",
        "urlscan_rs.feeds reads urlscan_rs.datadumps._LOCK",
    ]


def test_no_file_of_the_core_the_tables_or_the_bindings_is_over_800_lines() -> None:
    # A reader finds a file's thread in one sitting; tests live beside the code in *_tests.rs files.
    roots = [ROOT / "crates" / "urlscan-core" / "src", ROOT / "crates" / "urlscan-tables" / "src", ROOT / "src"]
    files = [p for r in roots for p in r.rglob("*.rs") if not p.stem.endswith("tests")]
    assert len(files) > 50  # the walk finds the code it is about
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}
