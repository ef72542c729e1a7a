"""A newcomer's stumbles (issue 53), each gone: a download into a folder not made yet, a
conversion or a rebuild of a folder that is not there, progress that shows nothing until the
first item ends, a lookup silent while it waits, a mistyped option with no suggestion, an
emulator said stopped while it still runs, and the bad-key hint twice in Python's terms."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import Client, _progress, datadumps
from urlscan_rs.cli._parser import build_parser, leaf_commands
from urlscan_rs.errors import StateError, ValidationError
from urlscan_rs.testing import Emulator

from .test_cli import api, main_

BAD_KEY = "00000000-0000-4000-8000-00000000dead"


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(scans=100, scan_duration=0, seed=5) as e:
        yield e


def _yesterday() -> str:
    return (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y%m%d")


def _dump(c: Client) -> Any:
    """Yesterday's busiest hourly search file of the emulator."""
    return max(c.datadumps.list("hours", "search", _yesterday()), key=lambda f: f.size or 0)


# ---------------------------------------------------------------- paths that are not there


def test_a_download_into_a_folder_not_made_yet_makes_it(emu: Emulator, tmp_path: Path) -> None:
    with emu.client() as c:
        f = _dump(c)
        got = c.datadumps.download(f.path, tmp_path / "dumps")
        # A folder, made, with the file under its dump path (not a file named "dumps").
        assert (tmp_path / "dumps").is_dir()
        assert got == tmp_path / "dumps" / f.path and got.stat().st_size == f.size
        assert list(datadumps.read(got))  # its type read from the path kept
        # A new name ending as the dump file's does is still the file to write.
        one = c.datadumps.download(f.path, tmp_path / "one.gz")
        assert one == tmp_path / "one.gz" and one.is_file() and one.read_bytes() == got.read_bytes()


def test_converting_or_reading_a_missing_path_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dumps"
    with pytest.raises(ValidationError, match=re.escape(str(missing))):
        datadumps.to_parquet(missing, tmp_path / "lake")
    assert not (tmp_path / "lake").exists()
    a_file = tmp_path / "20261120-13.gz"
    a_file.write_bytes(b"")
    with pytest.raises(ValidationError, match=re.escape(str(a_file)) + ".*not a folder"):
        datadumps.to_parquet(a_file, tmp_path / "lake")
    with pytest.raises(ValidationError, match=re.escape(str(missing / "x.gz"))):
        datadumps.read(missing / "x.gz")


def test_rebuilding_the_state_of_a_missing_folder_is_an_error_naming_it(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "not-synced-here"
    with emu.client() as c:
        with pytest.raises(StateError, match=re.escape(str(missing)) + ": no such folder") as dumps:
            c.datadumps.sync(missing, days=1, rebuild_state=True)
        with pytest.raises(StateError, match=re.escape(str(missing)) + ": no such folder") as feeds:
            c.feeds.sync("phishfeed", missing, rebuild_state=True)
    assert dumps.value.path == feeds.value.path == str(missing)  # type: ignore[attr-defined]
    code, _, err = main_(capsys, *api(emu), "feed", "sync", "phishfeed", str(missing), "--rebuild-state")
    assert code != 0 and f"{missing}: no such folder" in err
    assert not missing.exists()  # no folder made, no state "rebuilt" from nothing


# ---------------------------------------------------------------- progress


class _Screen(io.StringIO):
    """stderr as a terminal sees it, safe to write from several threads."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, s: str) -> int:
        with self.lock:
            return super().write(s)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()


def _until(check: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _calls(plain: Client, dest: Path) -> dict[str, tuple[Callable[[Client], Any], str]]:
    """Each call with progress=True (its items found first, without a bar), and what its bar
    shows before anything is done."""
    uuids = [h.id for h in plain.search("", limit=4)]
    dump = _dump(plain).path
    urls = [f"https://p{i}.example.com/" for i in range(3)]
    fast = {"initial_wait": 0, "interval": 0.05}
    return {
        "bulk_scan": (lambda c: c.bulk_scan(urls, progress=True, **fast), "0/3"),
        "results": (lambda c: c.results(uuids, progress=True), "0/4"),
        "lookup_or_scan_many": (lambda c: c.lookup_or_scan_many(urls[:2], progress=True, **fast), "0/2"),
        "datadumps.download": (lambda c: c.datadumps.download(dump, dest, progress=True), "0.00B"),
    }


@pytest.mark.parametrize("call", ["bulk_scan", "results", "lookup_or_scan_many", "datadumps.download"])
def test_a_progress_bar_shows_at_once_and_moves_while_nothing_finishes(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    pytest.importorskip("tqdm")
    monkeypatch.setattr(_progress, "TICK", 0.02, raising=False)
    screen = _Screen()
    held: list[int] = []
    with emu.client() as plain:
        run, start = _calls(plain, tmp_path)[call]

    def hold(request: Any) -> None:
        # The first request waits until the bar has been drawn, and drawn again three times,
        # with nothing done yet: it shows before any item ends, and moves during the wait.
        if not held:
            held.append(screen.text().count(start))
            _until(lambda: screen.text().count(start) >= 4, 10.0)
            held.append(screen.text().count(start))

    with monkeypatch.context() as m:
        m.setattr(sys, "stderr", screen)  # where tqdm draws
        with emu.client(event_hooks={"request": [hold]}) as c:
            run(c)
    assert held[0] >= 1, f"no bar before the first request: {screen.text()!r}"
    assert held[1] >= 4, f"the bar did not move while the request waited: {screen.text()!r}"
    final = screen.text().rsplit("\r", 1)[-1]
    assert "100%" in final, final


def test_a_progress_bar_ends_with_a_call_that_fails(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    screen = _Screen()
    monkeypatch.setattr(sys, "stderr", screen)
    with emu.client() as c, pytest.raises(ValidationError) as failed:
        c.bulk_scan(["https://a.example.com/", "https://b.example.com/"], visibility="nope", progress=True)
    monkeypatch.undo()
    assert "0/2" in screen.text()  # shown at once
    # ... and no longer drawn, though the traceback (a notebook keeps the last one) holds the call's frames.
    assert failed.value.__traceback__ is not None
    assert _until(lambda: not [t for t in threading.enumerate() if t.name == "urlscan-rs-progress"])


def test_a_progress_bar_of_the_command_line_shows_at_once_and_ticks() -> None:
    screen = _Screen()
    with _progress.ProgressBar("scanning", 4, stream=screen, enabled=True) as bar:
        assert "scanning [" in screen.text() and "0/4" in screen.text()  # at once, before any update
        assert _until(lambda: screen.text().count("0/4") >= 3)  # redrawn while nothing ends
        bar.update(4)
    assert "4/4 100%" in screen.text()


def test_lookup_says_it_is_waiting(emu: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = main_(capsys, *api(emu), "lookup", "https://wait.example.com/", "--initial-wait", "0", "--interval", "0.05")
    assert code == 0, err
    lines = err.splitlines()
    waiting = next(
        i for i, line in enumerate(lines) if line.startswith("urlscan-rs: looking up the URL") and "waited for" in line
    )
    done = next(i for i, line in enumerate(lines) if line.startswith("urlscan-rs: scanned https://wait.example.com/"))
    assert waiting < done  # said before the wait, not only after it


# ---------------------------------------------------------------- the command line


def _error(argv: list[str]) -> str:
    err = io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        with pytest.raises(SystemExit):
            PARSER.parse_args(argv)
    finally:
        sys.stderr = old
    return err.getvalue().strip().splitlines()[-1]


PARSER = build_parser()


def test_every_option_gets_did_you_mean_after_or_before_its_command() -> None:
    missed = []
    for path, leaf in leaf_commands(PARSER).items():
        for action in leaf._actions:
            for flag in action.option_strings:
                typo = flag[:-2] + flag[-1] + flag[-2]  # the last two letters swapped
                if not flag.startswith("--") or flag == "--help" or typo == flag:
                    continue
                for argv in ([*path, typo], [typo, *path]):
                    said = _error(argv)
                    if not any(f"did you mean {alias}" in said for alias in action.option_strings):
                        missed.append((argv, said))
    assert not missed, missed[:10]


def test_a_mistyped_key_option_before_the_command_is_named_and_its_value_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    key = "0123456789abcdef0123"
    code, _, err = main_(capsys, "--api-kye", key, "scan", "https://example.com/")
    assert code == 2
    assert "unrecognized arguments: --api-kye; did you mean --api-key?" in err and key not in err
    # A short value is hidden where it stands, not cut out of the option names around it.
    code, _, err = main_(capsys, "quotas", "--api-kye", "k")
    assert code == 2 and "--api-kye <hidden: could be an API key>; did you mean --api-key?" in err


def test_a_bad_key_is_hinted_once_in_the_command_lines_terms(emu: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    # A key not in the service's format (refused before sending), then one the service does not know.
    for key, said in (("not a uuid", "Invalid API key format"), (BAD_KEY, "not found")):
        code, _, err = main_(capsys, "--base-url", emu.url, "--api-key", key, "quotas")
        assert code == 4 and said in err
        assert err.count("URLSCAN_API_KEY") == 1 and err.count("--api-key") == 1, err
        assert "api_key=" not in err, err


# ---------------------------------------------------------------- emulator --stop

# A process the stop check takes for an emulator (its arguments say so), which takes a second
# to end once told to: "stopped" must wait for it.
_SLOW_TO_END = """
import signal, sys, time
def end(*_):
    time.sleep(1.0)
    sys.exit(0)
signal.signal(signal.SIGTERM, end)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_emulator_stop_returns_once_the_process_is_gone(capsys: pytest.CaptureFixture[str]) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_TO_END, "urlscan-rs", "emulator"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        code, out, err = main_(capsys, "emulator", "--stop", "--pid", str(proc.pid))
        assert code == 0, err
        assert f"stopped the emulator (process {proc.pid})" in out
        assert proc.poll() is not None, "said stopped while the process still ran"
        with pytest.raises(ProcessLookupError):
            os.kill(proc.pid, 0)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_emulator_stop_of_a_background_emulator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = main_(capsys, "emulator", "--background", "--port", "0", "--scans", "5", "--json")
    assert code == 0, err
    import json

    pid = int(json.loads(out)["URLSCAN_EMULATOR_PID"])
    try:
        code, out, err = main_(capsys, "emulator", "--stop", "--pid", str(pid))
        assert code == 0, err
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # gone, and reaped: not even a zombie
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
