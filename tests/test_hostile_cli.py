"""The command line on hostile arguments: every command, enumerated from the parser, with a
file where a folder is expected, a missing path, a folder where a file is expected, a huge
value, a NUL byte and an empty string, against the emulator; local files that cannot be used
(the cache's, a feed's folder); Ctrl-C. Every failure is one error line on stderr and a
non-zero exit code, never a traceback; secrets of a looked-up URL stay out of its messages."""

from __future__ import annotations

import argparse
import io
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import cli
from urlscan_rs.cli import build_parser, leaf_commands
from urlscan_rs.testing import Emulator

from .conftest import emulator

emu = emulator(scans=5, seed=52, scan_duration=0.0)
slow = emulator(scans=0, seed=53, scan_duration=3600.0)

# Servers run until stopped: their own tests (test_cli) check their options.
SERVERS = {("listen",), ("mcp",), ("emulator",), ("demo",)}
# Commands kept short: what they would otherwise fetch (a week of data dumps) is not the point.
BOUNDED = {("datadump", "sync"): ["--window", "days", "--days", "1", "--type", "search"]}
# Waits bounded for the hostile runs: a huge --wait-timeout must not be waited out.
POLL = ["--initial-wait", "0", "--interval", "0.05"]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No URLSCAN_* settings, a keyring of the test's own (never the developer's), the
    working folder a temporary one."""
    for name in list(os.environ):
        if name.startswith("URLSCAN_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    try:
        import keyring
        import keyring.backends.null

        from .file_keyring import ENV as KEYRING_FILE_ENV
        from .file_keyring import FileKeyring
    except ImportError:
        yield
        return
    monkeypatch.setenv(KEYRING_FILE_ENV, str(tmp_path / "keyring.json"))
    keyring.set_keyring(FileKeyring())
    yield
    keyring.set_keyring(keyring.backends.null.Keyring())


class Ran:
    """One in-process run of ``cli.main``."""

    def __init__(self, argv: list[str], code: int, out: str, err: str) -> None:
        self.argv, self.code, self.out, self.err = argv, code, out, err

    def problems(self) -> list[str]:
        """What breaks the rule: a traceback, an escaped exception, or a failure that is not
        one error line (argparse's usage lines above its error line are allowed)."""
        found = []
        if "Traceback" in self.out + self.err or "Exception ignored" in self.err:
            found.append("a traceback")
        if "a bug in urlscan-rs" in self.err:
            found.append("an exception the command did not foresee")
        errors = [line for line in self.err.splitlines() if re.search(r"\berror\b", line)]
        if self.code != 0 and (len(errors) > 1 or not self.err.strip()):
            found.append(f"{len(errors)} error lines")
        return found

    def __repr__(self) -> str:
        return f"{self.argv!r} -> {self.code}\n{self.err[-1500:]}"


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``run(*argv, stdin="")``: ``cli.main`` in this process with stdout and stderr captured;
    the parser is built once (it is the same for every run)."""
    parser = build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)

    def go(*argv: str, stdin: str = "") -> Ran:
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        try:
            code = cli.main(list(argv))
        except BaseException as e:  # what escaped main is the failure itself
            out, err = capsys.readouterr()
            return Ran(list(argv), -1, out, f"{err}\nTraceback: {type(e).__name__}: {e}")
        out, err = capsys.readouterr()
        return Ran(list(argv), code, out, err)

    return go


def _api(e: Emulator) -> list[str]:
    return ["--base-url", e.url, "--api-key", e.api_key]


# ---------------------------------------------------------------- the harness


def _hostile(tmp: Path) -> dict[str, str]:
    """The hostile values, by what they are."""
    afile = tmp / "a-file"
    afile.write_text("https://a.example/\n")
    folder = tmp / "a-folder"
    folder.mkdir()
    return {
        "empty": "",
        "nul": "a\x00b",
        "huge": "9" * 5000,
        "file for a folder": str(afile / "sub"),
        "a file": str(afile),
        "missing": str(tmp / "missing" / "nothing"),
        "folder for a file": str(folder),
    }


def _value_options(p: argparse.ArgumentParser, globals_: set[str]) -> list[argparse.Action]:
    return [
        a
        for a in p._actions
        if a.option_strings and a.nargs != 0 and not set(a.option_strings) & globals_ and not isinstance(a, argparse._HelpAction)
    ]


def _plausible(action: argparse.Action, uuid: str, tmp: Path) -> str:
    """A value a positional argument may take, so that an option's hostile value is reached."""
    name = action.dest.lower()
    if action.choices:
        return str(next(iter(action.choices)))
    for words, value in (
        (("uuid", "scan_id", "resource_id"), uuid),
        (("url",), "https://www.example.com/"),
        (("query",), ""),
        (("sha256",), "ab" * 32),
        (("dir", "file", "path"), str(tmp / "out")),
        (("method",), "get"),
        (("source",), "phishfeed"),
        (("date",), "20240101"),
    ):
        if any(w in name for w in words):
            return value
    return "x"


def test_every_command_meets_hostile_arguments(emu: Emulator, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command of the parser (a new one joins by being there), each positional argument
    given each hostile value, each option of its own given one in turn (the others plausible):
    no traceback, and a failure is one error line with a non-zero exit code."""
    # An empty path is the current folder to some options: never the repository's.
    monkeypatch.chdir(tmp_path)
    parser = build_parser()
    globals_ = {s for a in parser._actions for s in a.option_strings}
    kinds = list(_hostile(tmp_path).values())
    with emu.client() as c:
        uuid = next(iter(c.search("", limit=1))).uuid
    commands = {path: p for path, p in leaf_commands(parser).items() if path not in SERVERS}
    assert len(commands) > 50  # the enumeration found the commands
    bad: list[Ran] = []
    turn = 0
    for path, p in commands.items():
        positionals = [a for a in p._actions if not a.option_strings]
        waits = POLL if any("--initial-wait" in a.option_strings for a in p._actions) else []
        waits = [*waits, *BOUNDED.get(path, [])]
        for value in kinds if positionals else []:
            ran = run(*_api(emu), *path, *[value] * len(positionals), *waits)
            if ran.problems():
                bad.append(ran)
        plausible = [_plausible(a, uuid, tmp_path) for a in positionals]
        for action in _value_options(p, globals_):
            value = kinds[turn % len(kinds)]
            turn += 1
            flag = action.option_strings[-1]
            ran = run(*_api(emu), *path, *plausible, *waits, f"{flag}={value}")
            if ran.problems():
                bad.append(ran)
    assert not bad, "\n\n".join(f"{r.problems()}: {r!r}" for r in bad[:8]) + f"\n({len(bad)} in all)"


# ---------------------------------------------------------------- named failures


def test_lookup_messages_hold_no_secret(emu: Emulator, run: Any) -> None:
    """``urlscan-rs lookup URL`` with a password, a token and a signature in URL: its notes and
    errors (a scan, a reuse, a service out of reach) show the URL redacted."""
    url = "https://user:pass@hostile-cli.example/a?token=SECRET&sig=SECRET2"
    runs = [run(*_api(emu), "lookup", url, *POLL), run(*_api(emu), "lookup", url, *POLL)]
    runs.append(run("--base-url", "http://user:pass@127.0.0.1:9", "--api-key", emu.api_key, "lookup", url, *POLL))
    assert [r.code for r in runs] == [0, 0, 6], runs
    for r in runs:
        assert "REDACTED" in r.err and not re.search(r"\bpass\b|SECRET|3Apass", r.err), r


def test_local_files_that_cannot_be_used_are_one_line(emu: Emulator, run: Any, tmp_path: Path) -> None:
    """``lookup --cache FILE`` (a regular file), a corrupt cache, ``feed sync SOURCE FILE``:
    one error line and a non-zero exit, where a traceback came before."""
    afile = tmp_path / "a-file"
    afile.write_text("not a folder")
    ran = run(*_api(emu), "lookup", "--cache", str(afile), "https://a.example/", *POLL)
    assert ran.code == 2 and not ran.problems() and str(afile) in ran.err, ran
    ran = run(*_api(emu), "feed", "sync", "phishfeed", str(afile))
    assert ran.code != 0 and not ran.problems(), ran
    # A cache whose files were damaged (any of them, whatever they are named).
    cache = tmp_path / "cache"
    assert run(*_api(emu), "lookup", "--cache", str(cache), "https://a.example/", *POLL).code == 0
    for f in cache.iterdir():
        if f.is_file():
            f.write_bytes(os.urandom(4096))
    ran = run(*_api(emu), "lookup", "--cache", str(cache), "https://a.example/", *POLL)
    assert not ran.problems(), ran


def test_ctrl_c_at_any_point_is_one_line(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C before the command runs (as the parser is built), or as its output is set up:
    130 and "interrupted", never a KeyboardInterrupt out of main."""

    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    for where in ("build_parser", "_show_waits"):
        with monkeypatch.context() as m:
            m.setattr(cli, where, interrupted)
            ran = run("quotas")
        assert ran.code == 130 and ran.err == "urlscan-rs: error: interrupted\n", (where, ran)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_during_a_wait_is_one_line(slow: Emulator) -> None:
    """A real SIGINT while ``lookup`` waits for its scan: exit 130, one line, no traceback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("URLSCAN_")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    proc = subprocess.Popen(
        [sys.executable, "-m", "urlscan_rs", *_api(slow), "lookup", "https://user:pass@ctrl-c.example/?token=SECRET", *POLL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        # Interrupted once its scan is submitted: it is waiting then (the emulator's scans
        # take an hour of its clock).
        deadline = time.monotonic() + 60
        while slow.stats()["submissions"] == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130 and out == "", (proc.returncode, err)
    # After the note that it waits (said before the wait), the interruption in one line.
    waiting, _, err = err.partition("\n")
    assert waiting.startswith("urlscan-rs: looking up the URL: "), waiting
    assert "Traceback" not in err and len(err.splitlines()) == 1 and err.startswith("urlscan-rs: error: interrupted"), err
    assert "pass" not in waiting + err and "SECRET" not in waiting + err, err


def test_ctrl_c_while_the_command_imports_the_package_is_quiet() -> None:
    """A Ctrl-C in the first moment of ``urlscan-rs``, while the package is being imported, printed
    Python's traceback of the import; it ends the command with 130 and nothing said. The signal is
    sent from an import hook, when the package's models are being imported, so it lands there."""
    code = textwrap.dedent(
        """
        import importlib.abc, os, signal, sys
        sys.argv = [os.path.join(os.path.dirname(sys.executable), "urlscan-rs"), "quotas"]

        class Interrupt(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "urlscan_rs.models":
                    os.kill(os.getpid(), signal.SIGINT)
                return None

        sys.meta_path.insert(0, Interrupt())
        from urlscan_rs.cli import main
        sys.exit(main())
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, (proc.returncode, proc.stderr[-600:])


def test_importing_the_package_leaves_ctrl_c_alone() -> None:
    # A program (a notebook, a playbook) keeps Python's KeyboardInterrupt.
    code = "import signal, urlscan_rs; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr[-600:]
