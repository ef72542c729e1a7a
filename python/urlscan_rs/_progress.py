"""A tiny progress bar for the command line (stderr, terminals only).

``ProgressBar(label, total)`` draws ``label [#######.......]  12/50  24%  3.1s``
on one line, redrawn in place with a carriage return. With ``total=None`` it
shows a moving block and the elapsed time instead (for waits of unknown
length); ``ticking()`` keeps redrawing from a background thread while the
caller blocks in a native call (which releases the GIL). With
``unit="bytes"`` the counts are sizes and the rate is shown
(``12.3 MB/200.0 MB  6%  1.2 MB/s``). A disabled bar (the default when the
stream is not a terminal) writes nothing at all. Used as a context manager,
a bar is drawn at once and keeps moving (its elapsed time) until the block ends.

:func:`tracker` is what the client's ``progress=True`` becomes: a tqdm bar
(``tqdm.auto``: a widget in notebooks) shown at once with its total, redrawn
on a timer while nothing finishes, so a wait never looks like a hang.
"""

from __future__ import annotations

import importlib
import shutil
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TextIO

__all__ = ["ProgressBar", "tracker"]

_MIN_REDRAW = 0.08  # seconds between redraws, except the final one
TICK = 0.5
"""Seconds between redraws of a :func:`tracker` bar while nothing finishes (its elapsed time moves)."""


class ProgressBar:
    """A single-line progress bar; thread-safe, throttled, a no-op when disabled."""

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        unit: str | None = None,
    ) -> None:
        self.stream: TextIO = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.label = label
        self.unit = unit
        self.total = total
        self.done = 0
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._drawn = False
        self._closed = False
        self._lock = threading.Lock()
        self._ticker: AbstractContextManager[ProgressBar] | None = None

    # -- public

    def update(self, done: int, total: int | None = None) -> None:
        """Set the progress (a callback shaped like the client's ``progress=(done, total)``)."""
        with self._lock:
            self.done = done
            if total is not None:
                self.total = total
            final = self.total is not None and done >= self.total
            self._draw(force=final)

    __call__ = update

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def clear(self) -> None:
        """Erase the bar (before other output reaches the same terminal); the next update redraws it."""
        with self._lock:
            if self.enabled and self._drawn:
                self._write("\r\x1b[K")
                self._drawn = False

    def close(self, *, keep: bool = False) -> None:
        """Erase the bar for good; with ``keep``, leave its last state on its line instead."""
        if keep:
            with self._lock:
                if self.enabled and not self._closed:
                    self._draw(force=True)
                    self._write("\n")
                self._closed = True
            return
        self.clear()
        with self._lock:
            self._closed = True

    def tick(self) -> None:
        """Redraw now (the elapsed time moves while nothing finishes)."""
        with self._lock:
            self._draw(force=True)

    @contextmanager
    def ticking(self, interval: float = 0.1) -> Iterator[ProgressBar]:
        """Redraw every ``interval`` seconds from a daemon thread until the block ends."""
        if not self.enabled:
            yield self
            return
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(interval):
                with self._lock:
                    self._draw(force=True)

        worker = threading.Thread(target=run, name="urlscan-rs-progress", daemon=True)
        with self._lock:
            self._draw(force=True)
        worker.start()
        try:
            yield self
        finally:
            stop.set()
            worker.join(1.0)
            self.close()

    def __enter__(self) -> ProgressBar:
        # Drawn at once (0/N, or the moving block), and redrawn while the block waits.
        self._ticker = self.ticking()
        return self._ticker.__enter__()

    def __exit__(self, *exc: object) -> None:
        ticker, self._ticker = self._ticker, None
        if ticker is not None:
            ticker.__exit__(None, None, None)
        self.close()

    # -- drawing (the lock is held)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal: stop drawing
            self.enabled = False

    def _draw(self, force: bool = False) -> None:
        if not self.enabled or self._closed:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < _MIN_REDRAW:
            return
        self._last_draw = now
        self._write("\r" + self.render(now) + "\x1b[K")
        self._drawn = True

    def render(self, now: float | None = None) -> str:
        """The bar as text, fitted to the terminal width."""
        elapsed = (time.monotonic() if now is None else now) - self._started
        columns = shutil.get_terminal_size((80, 24)).columns
        if self.unit == "bytes":
            rate = f" {_size(self.done / elapsed if elapsed > 0 else 0)}/s"
            done = _size(self.done)
            counts = f"{done}/{_size(self.total)}" if self.total else done
        else:
            rate = ""
            counts = f"{self.done}/{self.total}"
        if self.total:
            frac = min(max(self.done / self.total, 0.0), 1.0)
            tail = f" {counts} {frac * 100:3.0f}%{rate} {elapsed:5.1f}s"
        else:
            frac = -1.0
            tail = f"{' ' + counts if self.unit == 'bytes' else ''}{rate} {elapsed:5.1f}s"
        label = self.label if len(self.label) <= 40 else self.label[:39] + "…"
        width = max(10, min(40, columns - len(label) - len(tail) - 4))
        if frac >= 0:
            filled = int(round(frac * width))
            bar = "#" * filled + "." * (width - filled)
        else:  # indeterminate: a block bouncing along the bar
            span = max(1, width - 4)
            pos = int(elapsed * 8) % (2 * span)
            pos = pos if pos < span else 2 * span - pos
            bar = "." * pos + "####" + "." * (width - pos - 4)
        return f"{label} [{bar}]{tail}"[: max(columns - 1, 20)]


def _size(n: float) -> str:
    """A byte count as people read it (``12.3 MB``)."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


# ---------------------------------------------------------------- progress=True of the client


def tracker(progress: Any, label: str, total: int | None = None, *, unit: str = "it") -> Any:
    """What the core is given for a call's ``progress=``: a callable or None as given; ``True`` a
    bar shown at once (with ``total`` when known; the core's ``(done, total)`` sets it) and
    redrawn every :data:`TICK` seconds while nothing finishes, closed when the last item is
    done or the call is over. The bar is tqdm's (``tqdm.auto``: a widget in a notebook) when
    tqdm is installed, else this module's on a terminal; on neither, ``True`` is left to the
    core (whole lines on stderr, for a log). ``unit="bytes"`` counts sizes."""
    if progress is not True:
        return progress
    try:
        tqdm = importlib.import_module("tqdm.auto").tqdm
    except ImportError:
        tqdm = None
    bar: _Drawn
    if tqdm is not None:
        bar = _Tqdm(tqdm, label, total, unit)
    elif _isatty(sys.stderr):
        bar = _Own(ProgressBar(label, total, enabled=True, unit="bytes" if unit == "bytes" else None))
    else:
        return True
    return _Callback(_Live(bar))


def close(progress: Any) -> None:
    """End a :func:`tracker` bar now (the call is over); anything else is left alone."""
    if isinstance(progress, _Callback):
        progress.close()


class _Drawn:
    """A bar as :class:`_Live` drives it."""

    def update(self, done: int, total: int | None) -> None:
        raise NotImplementedError

    def refresh(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class _Tqdm(_Drawn):
    def __init__(self, tqdm: Any, label: str, total: int | None, unit: str) -> None:
        sizes = {"unit": "B", "unit_scale": True, "unit_divisor": 1024} if unit == "bytes" else {"unit": unit}
        self.bar = tqdm(total=total, desc=label, **sizes)

    def update(self, done: int, total: int | None) -> None:
        if total and total != self.bar.total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def refresh(self) -> None:
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


class _Own(_Drawn):
    def __init__(self, bar: ProgressBar) -> None:
        self.bar = bar
        bar.tick()

    def update(self, done: int, total: int | None) -> None:
        self.bar.update(done, total or None)

    def refresh(self) -> None:
        self.bar.tick()

    def close(self) -> None:
        self.bar.close(keep=True)


class _Live:
    """A shown bar and the thread that redraws it until it is closed (once)."""

    def __init__(self, bar: _Drawn) -> None:
        self.bar = bar
        self.lock = threading.Lock()
        self.stop = threading.Event()
        threading.Thread(target=self._tick, name="urlscan-rs-progress", daemon=True).start()

    def _tick(self) -> None:
        while not self.stop.wait(TICK):
            with self.lock:
                if not self.stop.is_set():
                    self.bar.refresh()

    def update(self, done: int, total: int) -> None:
        with self.lock:
            if self.stop.is_set():
                return
            self.bar.update(done, total)
            if total and done >= total:
                self._close()

    def close(self) -> None:
        with self.lock:
            self._close()

    def _close(self) -> None:
        if not self.stop.is_set():
            self.stop.set()
            self.bar.close()


class _Callback:
    """The ``(done, total)`` callable the core calls. When the core and the caller let go of it
    (the call is over, finished or failed, or an awaitable never awaited), the bar is closed."""

    __slots__ = ("_live", "__weakref__")

    def __init__(self, live: _Live) -> None:
        self._live = live
        weakref.finalize(self, live.close)

    def __call__(self, done: int, total: int) -> None:
        self._live.update(done, total)

    def close(self) -> None:
        self._live.close()


def _isatty(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False
