"""The README as a newcomer reads it: its two commands are the ones CI runs, every example runs
verbatim (against the emulator, the service's stand-in), every link leads to a page, and its
performance table is the one bench/readme_table.py makes from bench/RESULTS.md."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from urlscan_rs import ScanResult
from urlscan_rs.testing import Emulator

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
EMULATOR_GUIDE = ROOT / "docs" / "guide" / "emulator.md"
DEMO_CMD = "python3 -m pip install . && python3 -m urlscan_rs demo"


def _text(path: Path = README) -> str:
    return path.read_text(encoding="utf-8")


def _block_after(marker: str, path: Path = README, lang: str = "python") -> str:
    text = _text(path)
    start = text.index(f"```{lang}\n", text.index(marker)) + len(f"```{lang}\n")
    return text[start : text.index("```", start)]


def _run(code: str, where: str, namespace: dict[str, Any] | None = None) -> list[str]:
    """Runs a block as a reader pastes it; what it printed, line by line."""
    out = io.StringIO()
    ns = namespace if namespace is not None else {}
    ns.setdefault("__name__", "readme")
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, "exec"), ns)
    return out.getvalue().splitlines()


def _table_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_table", ROOT / "bench" / "readme_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Emulator]:
    """The environment the README's reader has after "with your key", pointed at an emulator, in an
    empty folder (the examples write files where they run)."""
    with Emulator(scans=300, scan_duration=0, seed=3) as emu:
        monkeypatch.setenv("URLSCAN_API_KEY", emu.api_key)
        monkeypatch.setenv("URLSCAN_BASE_URL", emu.url)
        monkeypatch.chdir(tmp_path)
        yield emu


# The two commands -------------------------------------------------------------------------------


def test_the_readme_shows_exactly_the_two_commands_and_ci_runs_the_second() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    m = re.search(r"^TEST_CMD='(.+)'$", ci, flags=re.M)
    assert m is not None, ".ci/run no longer names its test command in TEST_CMD='...'"
    # Every shell block of the README: the set-up commands are the only ones, in this order.
    blocks = [b.strip() for b in re.findall(r"```bash\n(.*?)```", _text(), flags=re.S)]
    assert blocks == [DEMO_CMD, m.group(1)], blocks


def test_the_readme_stays_short_enough_to_read_to_the_end() -> None:
    assert len(_text().splitlines()) <= 400


def test_every_link_of_the_readme_leads_to_a_file_and_every_guide_is_in_the_docs_nav() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _text())
    local = [link for link in links if "://" not in link]
    assert local, "the README links to nothing in this repository"
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing
    nav = _text(ROOT / "mkdocs.yml")
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert [p for p in pages if f": {p}\n" not in nav] == []
    # Each guide page is reachable from the README.
    guides = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "guide").glob("*.md"))
    assert [g for g in guides if g not in local] == []


# The examples, as written -----------------------------------------------------------------------


def test_the_quick_start_on_the_emulator_runs_as_written() -> None:
    lines = _run(_block_after("### Against the emulator"), "README.md (quick start, emulator)")
    assert lines[0].split()[0] == "example.com" and lines[0].split()[2] in ("True", "False", "None"), lines
    assert len(lines) == 4 and all(line.split()[-1].startswith(("http://", "https://")) for line in lines[1:]), lines


def test_the_quick_start_with_a_key_runs_against_the_service_the_environment_names(service: Emulator) -> None:
    lines = _run(_block_after("### Against urlscan.io, with your key"), "README.md (quick start, with a key)")
    assert lines[0].startswith("example.com "), lines
    assert Path("example.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert any(line.endswith("https://example.com/") for line in lines[1:]), lines
    assert service.stats()["submissions"] == 1


def test_the_notebook_example_runs_as_written(service: Emulator) -> None:
    ns: dict[str, Any] = {}
    _run(_block_after("## In a notebook"), "README.md (notebook)", ns)
    df = ns["df"]
    assert len(df) > 0 and {"uuid", "time", "url", "domain", "ip", "country", "malicious"} <= set(df.columns)
    assert isinstance(ns["result"], ScanResult) and ns["result"].uuid == df.uuid[0]
    assert "<table" in ns["result"]._repr_html_()


def test_the_playbook_example_runs_as_written(service: Emulator) -> None:
    lines = _run(_block_after("## In a playbook"), "README.md (playbook)")
    assert lines[0].startswith("block ('paypal-secure-login.example-verify.net'") and "brands ('paypal',)" in lines[0], lines
    assert lines[1:] and all(line.startswith("same IP: ") for line in lines[1:]), lines
    saved = sorted(p.suffix for p in Path("evidence").iterdir())
    assert saved == [".html", ".json", ".png"], saved


def test_the_test_suite_example_passes_under_pytest(tmp_path: Path) -> None:
    suite = tmp_path / "test_triage.py"
    suite.write_text(_block_after("## In a test suite"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(suite)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


def test_the_emulator_recipe_outside_pytest_runs_as_written() -> None:
    # Moved with the emulator's reference from the README to its guide page.
    code = _block_after("Outside pytest (a notebook", EMULATOR_GUIDE)
    lines = _run(code, "docs/guide/emulator.md (emulator outside pytest)")
    assert lines == ["team", "[(1, 503), (2, 503), (3, 200)]"], lines


# The performance table --------------------------------------------------------------------------


def test_the_performance_table_is_the_one_made_from_bench_results() -> None:
    made = _table_module()
    results = _text(ROOT / "bench" / "RESULTS.md")
    assert made.in_readme(_text()) == made.table(results), "run: python3 bench/readme_table.py --write"
    assert made.problems(results) == []
    measured = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2} UTC)?, [0-9a-f]{7,40}( with uncommitted changes)?")
    assert all(measured.fullmatch(r.measured) for r in made.rows(results))


def test_a_figure_not_found_where_it_says_it_was_measured_is_a_problem() -> None:
    made = _table_module()
    results = _text(ROOT / "bench" / "RESULTS.md")
    first = made.rows(results)[0]
    number = made.NUMBER.findall(first.figure)[0]
    wrong_figure = results.replace(f"| {first.figure} |", f"| {first.figure.replace(number, number + '7', 1)} |", 1)
    assert any("is not in the sections it cites" in p for p in made.problems(wrong_figure))
    wrong_commit = results.replace(f"| {first.measured} |", f"| {first.measured[:-7]}0000000 |", 1)
    assert any("'0000000' is not in the sections" in p for p in made.problems(wrong_commit))
    untold = results.replace(f"| {first.measured} |", f"| {first.measured} with uncommitted changes |", 1)
    assert any("do not say the build had uncommitted changes" in p for p in made.problems(untold))
