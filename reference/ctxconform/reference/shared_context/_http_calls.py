"""Where the HTTP service's calls run: in batches on one thread sharing commits, or on a pool of threads."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ctxconform.reference._sqlite import MAX_GROUP
from ctxconform.reference.exceptions import StoreError

__all__ = ["Answer", "Batches", "Calls", "Deliver", "Pool", "store_failed"]

Json = dict[str, Any]
Answer = tuple[int, Json]
"""An HTTP status and the JSON payload of an answer."""
Deliver = Callable[[Answer], None]
"""Takes an answer on the event loop."""


def store_failed(error: StoreError) -> Answer:
    """The answer to a call the store could not carry out: 503, saying why."""
    return 503, {"errored": {"message": str(error)}}


class Calls(Protocol):
    """Runs calls off the event loop and delivers each answer back on it."""

    def submit(self, call: Callable[[], Answer], deliver: Deliver) -> None:
        """Run `call`; `deliver` gets its answer on the event loop."""

    def close(self) -> None:
        """Finish the calls submitted, then release the threads."""


class Pool:
    """Calls run on a pool of threads, concurrently: for stores that share no commits, so that none waits on another."""

    def __init__(self, threads: int, loop: asyncio.AbstractEventLoop) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="ctxconform-call")
        self._loop = loop

    def submit(self, call: Callable[[], Answer], deliver: Deliver) -> None:
        """Run `call` on a thread, then `deliver` its answer on the event loop."""
        done = self._pool.submit(call)
        done.add_done_callback(lambda _: self._loop.call_soon_threadsafe(deliver, done.result()))

    def close(self) -> None:
        """Wait for the calls under way."""
        self._pool.shutdown()


class Batches:
    """Calls run one after another on one thread, each batch of those waiting sharing one commit (group commit).

    No answer of a batch is delivered before its commit has completed; when the commit fails, every call of the
    batch is answered that the store failed.
    """

    def __init__(self, batch: Callable[[], AbstractContextManager[None]], loop: asyncio.AbstractEventLoop) -> None:
        self._batch, self._loop = batch, loop
        self._queue: queue.SimpleQueue[tuple[Callable[[], Answer], Deliver] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="ctxconform-batches", daemon=True)
        self._thread.start()

    def submit(self, call: Callable[[], Answer], deliver: Deliver) -> None:
        """Queue `call`; `deliver` gets its answer on the event loop once the batch holding it is committed."""
        self._queue.put((call, deliver))

    def close(self) -> None:
        """Finish the calls queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (batch := self._next()) is not None:
            try:
                with self._batch():
                    answers = [call() for call, _ in batch]
            except StoreError as error:
                answers = [store_failed(error)] * len(batch)
            self._loop.call_soon_threadsafe(_deliver_all, [deliver for _, deliver in batch], answers)

    def _next(self) -> list[tuple[Callable[[], Answer], Deliver]] | None:
        """The calls waiting (at least one, at most a group's worth), or None once closed."""
        first = self._queue.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < MAX_GROUP:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)  # the end, seen once this batch is done
                break
            batch.append(item)
        return batch


def _deliver_all(delivers: list[Deliver], answers: list[Answer]) -> None:
    for deliver, answer in zip(delivers, answers, strict=True):
        deliver(answer)
