"""The completion queue of each event loop (see ``Completions`` in bridge.rs)."""

from __future__ import annotations

import asyncio
import weakref

from urlscan_rs._native import Completions

# Keyed weakly: a closed loop and its queue go away together (the queue holds no loop).
_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Completions] = weakref.WeakKeyDictionary()


def completions(loop: asyncio.AbstractEventLoop) -> Completions:
    """The queue of ``loop`` (one per loop, made on first use)."""
    try:
        return _queues[loop]
    except KeyError:
        q = _queues[loop] = Completions()
    fd = q.fileno()
    if fd >= 0:
        try:
            loop.add_reader(fd, q)
        except (NotImplementedError, AttributeError):
            pass  # a loop that cannot watch sockets (Windows): woken by call_soon_threadsafe
        else:
            q.watched()
    return q
