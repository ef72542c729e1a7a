"""A tiny progress bar for the command line (stderr, terminals only).

``ProgressBar(label, total)`` draws ``label [#######.......]  12/50  24%  3.1s``
on one line, redrawn in place with a carriage return. With ``total=None`` it
shows a moving block and the elapsed time instead (for waits of unknown
length); ``ticking()`` keeps redrawing from a background thread while the
caller blocks in a native call (which releases the GIL). With
``unit="bytes"`` the counts are sizes and the rate is shown
(``12.3 MB/200.0 MB  6%  1.2 MB/s``). A disabled bar (the default when the
stream is not a terminal) writes nothing at all.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["ProgressBar"]

_MIN_REDRAW = 0.08  # seconds between redraws, except the final one


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

    def close(self) -> None:
        """Erase the bar for good."""
        self.clear()
        with self._lock:
            self._closed = True

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
        return self

    def __exit__(self, *exc: object) -> None:
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
