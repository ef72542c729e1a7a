"""The emulator command (in the foreground, in the background, stopped) and the demo."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from ._output import (
    EXIT_ERROR,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Output,
    UsageError,
    _note,
    _silence_stdout,
)

# ------------------------------------------------------------------ emulator

# `emulator --background` waits for the emulator to serve as long as its process runs, but no
# longer than EMULATOR_START_TIMEOUT seconds plus EMULATOR_START_PER_SCAN for each scan it builds
# before it serves. A scan takes about 0.1 ms of a core to build (100,000: about 5 s on two
# idle cores, bench/RESULTS.md); the bound allows twenty times that, for a loaded machine.
EMULATOR_START_TIMEOUT = 30.0
EMULATOR_START_PER_SCAN = 0.002
# Seconds between the notes on stderr that the emulator is still being built.
EMULATOR_START_NOTE_EVERY = 10.0


def _start_limit(scans: int) -> float:
    """The most seconds `emulator --background` waits for an emulator of `scans` scans to serve."""
    return EMULATOR_START_TIMEOUT + max(scans, 0) * EMULATOR_START_PER_SCAN


def _first_line(proc: subprocess.Popen[bytes], scans: int, limit: float) -> bytes | None:
    """The first line the emulator's process writes (where it serves), waited for while the process
    runs, up to `limit` seconds, with notes on stderr; b"" when its output ended (the process is
    ending), None when the time ran out."""
    assert proc.stdout is not None
    stdout = proc.stdout
    first: list[bytes] = []
    reader = threading.Thread(target=lambda: first.append(stdout.readline()), daemon=True)
    reader.start()
    started = time.monotonic()
    _note(f"starting the emulator: building {scans:,} scans (waiting while it builds, at most {limit:g}s)")
    next_note = started + EMULATOR_START_NOTE_EVERY
    while reader.is_alive():
        now = time.monotonic()
        if now >= started + limit:
            break
        if now >= next_note:
            _note(f"still building {scans:,} scans ({now - started:.0f}s)")
            next_note += EMULATOR_START_NOTE_EVERY
        # The reader ends with the first line, or at once when the process ends (its stdout closes).
        reader.join(max(0.0, min(next_note, started + limit) - now))
    return first[0] if first else None


def _exports(url: str, key: str, pid: int | None = None) -> list[str]:
    lines = [f"export URLSCAN_BASE_URL={shlex.quote(url)}", f"export URLSCAN_API_KEY={shlex.quote(key)}"]
    if pid is not None:
        lines.append(f"export URLSCAN_EMULATOR_PID={pid}")
    return lines


def cmd_emulator(args: argparse.Namespace, out: Output) -> int:
    if args.stop:
        return _emulator_stop(args, out)
    if args.background:
        return _emulator_background(args, out)
    from ..testing import Emulator

    try:
        emu = Emulator(
            scans=args.scans,
            seed=args.seed,
            scan_duration=args.scan_duration,
            latency=args.latency,
            host=args.host,
            port=args.port,
            recordings=args.recordings,
        )
    except ValidationError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        if args.recordings is not None and e.filename is not None:  # the recordings: not there, not readable
            raise UsageError(f"{e.strerror or e}: {e.filename}") from None
        # the address: in use, or not this machine's
        raise UsageError(f"{e.strerror or e}; pick another --port, or 0 for a free one") from None
    try:
        if out.json:
            out.emit({"URLSCAN_BASE_URL": emu.url, "URLSCAN_API_KEY": emu.api_key, "keys": emu.keys, "pid": os.getpid()})
        else:
            for line in _exports(emu.url, emu.api_key):
                out.line(line)
            for kind, key in emu.keys.items():
                out.line(f"# {kind} key: {key}")
            out.line("# serving until interrupted (Ctrl-C)")
        sys.stdout.flush()
    except BrokenPipeError:
        # e.g. `urlscan-rs emulator | head -2`: the reader has what it needs; keep serving.
        _silence_stdout()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        emu.stop()
    return EXIT_OK


def _log_tail(log: Any, path: str | None) -> str:
    try:
        if path:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        else:
            log.seek(0)
            text = log.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].removeprefix("urlscan-rs: ").removeprefix("error: ") if lines else ""


def _how_ended(code: int) -> str:
    """A process's end as a person reads it: its exit code, or the signal that killed it."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _accepts(url: str, deadline: float) -> bool:
    parts = urllib.parse.urlsplit(url)
    while True:
        try:
            with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=1.0):
                return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def _emulator_background(args: argparse.Namespace, out: Output) -> int:
    """Start the emulator in a detached process, print how to reach it, and return at once."""
    argv = [sys.executable, "-m", "urlscan_rs.cli", "emulator", "--json", "--host", args.host, "--port", str(args.port)]
    argv += ["--scans", str(args.scans), "--seed", str(args.seed)]
    argv += ["--latency", repr(args.latency), "--scan-duration", repr(args.scan_duration)]
    if args.recordings is not None:
        argv += ["--recordings", os.path.abspath(args.recordings)]
    try:
        log: Any = open(args.log, "ab") if args.log else tempfile.TemporaryFile()  # noqa: SIM115
    except OSError as e:
        raise UsageError(f"cannot write {args.log}: {e.strerror or e}") from None
    detach: dict[str, Any]
    if os.name == "nt":
        detach = {
            "creationflags": getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        }
    else:
        detach = {"start_new_session": True}  # Ctrl-C in the shell and the shell's exit leave it running
    with log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, **detach)
        assert proc.stdout is not None
        limit = _start_limit(args.scans)
        deadline = time.monotonic() + limit
        first = _first_line(proc, args.scans, limit)
        info: dict[str, Any] = {}
        try:
            info = json.loads(first) if first else {}
        except ValueError:
            pass
        url, key = info.get("URLSCAN_BASE_URL"), info.get("URLSCAN_API_KEY")
        if not (url and key and _accepts(str(url), deadline)):
            if first == b"":
                # Its output closed with no line: it is ending (its end may not be reapable yet).
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
            ended = proc.poll() is not None
            if not ended:
                proc.kill()
            proc.wait()
            proc.stdout.close()
            why = _log_tail(log, args.log) or (
                f"its process ended ({_how_ended(proc.returncode)}) before it served"
                if ended
                else f"not serving after {limit:g}s (building {args.scans:,} scans); stopped it"
            )
            raise CliError(f"the emulator did not start: {why}", EXIT_USAGE if proc.returncode == EXIT_USAGE else EXIT_ERROR)
        proc.stdout.close()  # the emulator writes nothing more there
    if out.json:
        out.emit({"URLSCAN_BASE_URL": url, "URLSCAN_API_KEY": key, "URLSCAN_EMULATOR_PID": proc.pid, "keys": info.get("keys")})
    else:
        for line in _exports(str(url), str(key), proc.pid):
            out.line(line)
        out.line(f'# stop it with: kill {proc.pid}   (or: eval "$(urlscan-rs emulator --stop)")')
    sys.stdout.flush()
    return EXIT_OK


# Seconds `emulator --stop` waits for the process to end after SIGTERM, and again after SIGKILL.
EMULATOR_STOP_TIMEOUT = 10.0


def _gone(pid: int) -> bool:
    """Whether process `pid` has ended (POSIX). A child of this process has ended once it is reaped
    here: its main thread can be a zombie while its other threads still run and serve."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        pass  # not a child of this process (or reaped already): asked below
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    # Ended, but not yet reaped by its parent (a zombie), once no thread of it is left running.
    proc = Path("/proc") / str(pid)
    try:
        stat = (proc / "stat").read_text()
        threads = [t for t in (proc / "task").iterdir() if t.name != str(pid)]
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] in (["Z"], ["X"]) and not threads


def _wait_gone(pid: int) -> None:
    """Return once process `pid` has ended, so that "stopped" is true when it is said (its port
    free for the next emulator); killed if SIGTERM has not ended it in EMULATOR_STOP_TIMEOUT."""
    for sig in (None, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + EMULATOR_STOP_TIMEOUT
        while time.monotonic() < deadline:
            if _gone(pid):
                return
            time.sleep(0.02)
    raise CliError(f"the emulator (process {pid}) did not end, even when killed")


def _emulator_stop(args: argparse.Namespace, out: Output) -> int:
    text = args.pid or os.environ.get("URLSCAN_EMULATOR_PID")
    if not text:
        raise UsageError("no emulator to stop: URLSCAN_EMULATOR_PID is not set (emulator --background sets it); or pass --pid")
    try:
        pid = int(text)
    except ValueError:
        raise UsageError(f"not a process id: {text!r}") from None
    gone = CliError(f"no emulator runs as process {pid} (stopped already?)", EXIT_NOT_FOUND)
    if Path("/proc/self/cmdline").exists():  # where processes can be inspected, stop only an emulator
        try:
            argv = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
        except OSError:
            raise gone from None
        if not (any(b"urlscan" in a for a in argv) and b"emulator" in argv):
            raise UsageError(f"process {pid} is not a urlscan-rs emulator; not stopping it")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        raise gone from None
    except PermissionError:
        raise CliError(f"not allowed to stop process {pid}") from None
    if os.name != "nt":  # Windows ends it (TerminateProcess) as it is told
        _wait_gone(pid)
    if out.json:
        out.emit({"stopped": pid})
    else:
        out.line("unset URLSCAN_BASE_URL URLSCAN_API_KEY URLSCAN_EMULATOR_PID")
        out.line(f"# stopped the emulator (process {pid})")
    return EXIT_OK


def cmd_demo(args: argparse.Namespace, out: Output) -> int:
    from ..testing import Emulator

    def say(text: str = "") -> None:
        if not out.json:
            out.line(text)
            sys.stdout.flush()

    started = time.monotonic()
    say("Starting the built-in emulator of the urlscan.io service ...")
    with Emulator(scans=500, scan_duration=args.scan_duration, seed=0) as emu, emu.client() as client:
        say(f"  listening on {emu.url}\n")
        user = client.user()
        if out.json:
            out.emit({"step": "user", "emulator": emu.url, "user": user.to_dict()})
        say(f"Signed in as {user.username} (team {user.team.name if user.team else None}), products {user.products}\n")
        urls = [
            "https://www.example.com/",
            "https://login.paypal.com.account-verify.example.net/signin",
            "https://news.ycombinator.com/",
        ]
        say(f"Submitting {len(urls)} scans and waiting for them (scans take {args.scan_duration:g}s here) ...")
        outcomes = client.bulk_scan(urls, initial_wait=args.scan_duration, interval=0.5, timeout=60)
        for o in outcomes:
            r = o.result
            if out.json:
                ov = r.verdicts.overall if r is not None else None
                error = None if o.error is None else f"{type(o.error).__name__}: {o.error}"
                out.emit(
                    {
                        "step": "scan",
                        "url": o.url,
                        "uuid": r.uuid if r else None,
                        "domain": r.page.domain if r else None,
                        "score": ov.score if ov else None,
                        "malicious": ov.malicious if ov else None,
                        "error": error,
                    }
                )
                continue
            if o.error is not None:
                say(f"  {o.url}: {type(o.error).__name__}: {o.error}")
                continue
            assert r is not None
            ov = r.verdicts.overall
            say(
                f"  {r.uuid}  {r.page.domain:<45} ip={r.page.ip:<15} country={r.page.country}  "
                f"score={ov.score:>4} malicious={ov.malicious}"
            )
        say()
        first = outcomes[0].result
        if first is not None and not out.json:
            say(f"A typed result: {first!r}")
            say(f"  task.time       {first.task.time.isoformat() if first.task.time else None}")
            say(f"  page.server     {first.page.server}")
            say(f"  lists.domains   {first.lists.domains[:5]}")
            say(f"  requests        {len(first.data.get('requests', [])) if isinstance(first.data, dict) else 0}")
            png = client.screenshot(first.uuid)
            say(f"  screenshot      {len(png)} bytes PNG\n")
        query = "date:>now-7d AND NOT page.country:us"
        it = client.search(query, size=5, limit=5)
        total = it.count()
        hits = list(it)
        if out.json:
            out.emit({"step": "search", "query": query, "total": total, "hits": [h.id for h in hits]})
        say(f"Search {query!r} ({total} hits in all); the newest five:")
        for hit in hits:
            when = f"{hit.task.time:%Y-%m-%d %H:%M}" if hit.task.time else "-"
            say(f"  {when}  {hit.page.domain or '-':<40} {hit.page.country}  {hit.page.ip}")
        q = client.quotas()
        if out.json:
            out.emit({"step": "quotas", "public": q.remaining("public"), "search": q.remaining("search")})
        say(f"\nQuota left today: {q.remaining('public')} public scans, {q.remaining('search')} searches")
    say(
        f"\nDone in {time.monotonic() - started:.1f}s. Next: `urlscan-rs --help` for the commands; sync, async, "
        "search and bulk examples are in the guide (docs/guide/client.md)."
    )
    return EXIT_OK
