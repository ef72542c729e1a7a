"""How async calls complete: every await is settled, on every kind of loop.

Finished calls wait in one queue per event loop, drained on the loop; the loop
is woken by a byte on a socket it watches, or by ``call_soon_threadsafe`` where
it cannot watch one (Windows). A lost wake-up shows as an await that never
ends, so each run is bounded (a failure, not a measurement).
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from urlscan_rs import NotFoundError, _bridge
from urlscan_rs.testing import Emulator

from .conftest import in_threads

GONE = "00000000-0000-4000-8000-000000000000"


class NoReaderLoop(asyncio.SelectorEventLoop):
    """A loop that cannot watch sockets, like the Windows proactor loop."""

    def add_reader(self, fd: Any, callback: Any, *args: Any) -> None:
        raise NotImplementedError


async def rounds(emu: Emulator, ids: list[str], n: int) -> list[list[Any]]:
    out = []
    async with emu.async_client() as ac:
        for _ in range(n):
            calls = [ac.result(i) for i in ids] + [ac.result(GONE)]
            out.append(await asyncio.gather(*calls, return_exceptions=True))
    return out


def run_on(loop: asyncio.AbstractEventLoop, aw: Any) -> Any:
    try:
        return loop.run_until_complete(asyncio.wait_for(aw, timeout=120))
    finally:
        loop.close()


@pytest.mark.parametrize("make_loop", [asyncio.new_event_loop, NoReaderLoop], ids=["socket-wake", "threadsafe-wake"])
def test_every_await_is_settled_in_order(emu: Emulator, make_loop: Any) -> None:
    ids = [h.id for h in emu.client().search("", limit=100)]
    batches = run_on(make_loop(), rounds(emu, ids, 8))
    assert len(batches) == 8
    for got in batches:
        assert [str(r.uuid) for r in got[:-1]] == ids
        assert isinstance(got[-1], NotFoundError)


def test_loops_in_threads_at_once(emu: Emulator) -> None:
    ids = [h.id for h in emu.client().search("", limit=50)]
    results: dict[int, Any] = {}

    def worker(k: int) -> None:
        try:
            results[k] = run_on(asyncio.new_event_loop(), rounds(emu, ids, 5))
        except BaseException as e:  # reported below, by thread
            results[k] = e

    in_threads(worker, range(3))
    for k in range(3):
        assert not isinstance(results[k], BaseException), results[k]
        assert all([str(r.uuid) for r in got[:-1]] == ids for got in results[k])


def test_one_queue_per_loop_gone_with_it(emu: Emulator) -> None:
    loop = asyncio.new_event_loop()

    async def main() -> tuple[Any, Any]:
        async with emu.async_client() as ac:
            await ac.result(emu.client().search("", limit=1).__next__().id)
        running = asyncio.get_running_loop()
        return _bridge.completions(running), _bridge.completions(running)

    first, again = run_on(loop, main())
    assert first is again
    assert first.fileno() >= 0  # a selector loop on this platform watches the socket
    gc.collect()  # loops other tests left behind go first, so only this one is counted below
    before = len(_bridge._queues)
    del loop
    gc.collect()
    assert len(_bridge._queues) == before - 1


def test_cancelled_await_is_skipped_and_the_rest_settle(fresh: Emulator) -> None:
    ids = [h.id for h in fresh.client().search("", limit=20)]

    async def main() -> list[str]:
        async with fresh.async_client() as ac:
            doomed = asyncio.ensure_future(ac.result(ids[0]))
            others = [asyncio.ensure_future(ac.result(i)) for i in ids]
            await asyncio.sleep(0)  # every call has started
            doomed.cancel()
            with pytest.raises(asyncio.CancelledError):
                await doomed
            return [str(r.uuid) for r in await asyncio.gather(*others)]

    assert run_on(asyncio.new_event_loop(), main()) == ids
