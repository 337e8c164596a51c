"""AsyncMemoryClient and MemoryClient: the service's memory operations as typed methods.

Each method is an operation builder of recmem_client/operations.py (an operation Kind and variables;
its signature and docstring are the method's) whose Operation goes to `_run`, which sends it,
reads the response (protocol.py) and retries what is safe to retry. Their shared base `_Client`
holds the configuration and decides failures and retries; the two classes differ only in their
httpx client and in `_run` / `_send`: one awaits httpx.AsyncClient and asyncio.sleep, the other
calls httpx.Client and time.sleep. `_awaiting` and `_blocking` turn each builder into a method of
one or the other.

Retries and idempotency: every remember carries a source_ref. The service stores at most one
interaction per (tenant, user, source_ref) and answers a repeat with the existing one
(`created=False`), so resending a write whose answer was lost cannot store it twice. When the
caller gives no source_ref the client generates a random one for that call (`recmem-client:`
and a uuid4), kept across its retries; two separate calls never share one. Give your own
source_ref (a message id, say) to make retries across process restarts safe too.
`remember`, `remember_batch`, `recall`, `audit` and `stats` are retried on UNAVAILABLE, connection
failures and timeouts, and 429 (honouring Retry-After). `answer`, `consolidate` and the forget
mutations are retried only when the service cannot have run them (a 429, or no connection made);
operations.py says why.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar

import httpx

from recmem_client import operations as ops
from recmem_client.errors import MemoryClientError
from recmem_client.operations import Operation
from recmem_client.parsers import Obj
from recmem_client.protocol import (
    DEFAULT_BASE_URL,
    DEFAULT_TIMEOUT,
    RetryPolicy,
    connection_failed,
    decode,
    decode_export,
    endpoint,
    export_failed,
    export_url,
    headers,
)

T = TypeVar("T")
P = ParamSpec("P")
TransportT = TypeVar("TransportT")
HttpT = TypeVar("HttpT")


def _awaiting(
    build: Callable[P, Operation[T]],
) -> Callable[Concatenate[AsyncMemoryClient, P], Coroutine[Any, Any, T]]:
    @functools.wraps(build)
    async def method(client: AsyncMemoryClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await client._run(build(*args, **kwargs))

    return method


def _blocking(build: Callable[P, Operation[T]]) -> Callable[Concatenate[MemoryClient, P], T]:
    @functools.wraps(build)
    def method(client: MemoryClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return client._run(build(*args, **kwargs))

    return method


class _Client(Generic[TransportT, HttpT]):
    """What both clients share: the configuration, the retry policy, the request's headers, and
    how a call's transport failures and retries are decided. A subclass names its httpx client and
    only posts and sleeps, awaiting or blocking."""

    # httpx.AsyncClient or httpx.Client: both take these arguments (the transport of their kind).
    _http_type: Callable[..., HttpT]

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: TransportT | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self._url = endpoint(base_url)
        self._base_url = base_url
        self._retry = retry or RetryPolicy()
        self._http = self._http_type(
            headers=headers(api_key, extra_headers), timeout=timeout, transport=transport
        )

    @contextmanager
    def _posting(self, operation: Operation[Any]) -> Iterator[None]:
        """Around the POST: its transport failures as the client's errors."""
        try:
            yield
        except httpx.UnsupportedProtocol as error:
            raise MemoryClientError(f"bad base_url {self._url!r}: {error}") from error  # not transient
        except httpx.TransportError as error:
            raise connection_failed(operation, error) from error

    def _delay(self, operation: Operation[Any], attempt: int, error: MemoryClientError) -> float:
        """Seconds to wait before trying again after failed `attempt`; raises `error` to give up."""
        delay = self._retry.delay(operation, attempt, error)
        if delay is None:
            raise error
        return delay


class AsyncMemoryClient(_Client[httpx.AsyncBaseTransport, httpx.AsyncClient]):
    """The memory service over GraphQL, for asyncio code. Use as `async with`, or call aclose().

    `base_url` is the service root (`/graphql` is appended); `timeout` is httpx's (seconds or an
    httpx.Timeout); `retry` bounds retries (protocol.NO_RETRY disables them); `transport` replaces
    httpx's network transport (tests, custom TLS or proxies).
    """

    _http_type = httpx.AsyncClient

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _run(self, operation: Operation[T]) -> T:
        attempt = 1
        while True:
            try:
                return operation.parse(await self._send(operation))
            except MemoryClientError as error:
                delay = self._delay(operation, attempt, error)
            await asyncio.sleep(delay)
            attempt += 1

    async def _send(self, operation: Operation[T]) -> Obj:
        with self._posting(operation):
            response = await self._http.post(self._url, json=operation.body())
        return decode(operation, response)

    remember = _awaiting(ops.remember)
    remember_batch = _awaiting(ops.remember_batch)
    consolidate = _awaiting(ops.consolidate)
    recall = _awaiting(ops.recall)
    answer = _awaiting(ops.answer)
    audit = _awaiting(ops.audit)
    stats = _awaiting(ops.stats)
    forget_interaction = _awaiting(ops.forget_interaction)
    forget_user = _awaiting(ops.forget_user)
    correct_fact = _awaiting(ops.correct_fact)
    retract_fact = _awaiting(ops.retract_fact)
    add_fact = _awaiting(ops.add_fact)

    async def export_user(self, user_id: str) -> list[Obj]:
        """The user's memory as `recmem export` writes it (docs/export.md): the header line, then
        one dict per node and edge. A read: not retried past the transport's own."""
        url, params = export_url(self._base_url, user_id)
        try:
            response = await self._http.get(url, params=params)
        except httpx.TransportError as error:
            raise export_failed(error) from error
        return decode_export(response)


class MemoryClient(_Client[httpx.BaseTransport, httpx.Client]):
    """The blocking twin of AsyncMemoryClient (same arguments, same results, same retries)."""

    _http_type = httpx.Client

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, operation: Operation[T]) -> T:
        attempt = 1
        while True:
            try:
                return operation.parse(self._send(operation))
            except MemoryClientError as error:
                delay = self._delay(operation, attempt, error)
            time.sleep(delay)
            attempt += 1

    def _send(self, operation: Operation[T]) -> Obj:
        with self._posting(operation):
            response = self._http.post(self._url, json=operation.body())
        return decode(operation, response)

    remember = _blocking(ops.remember)
    remember_batch = _blocking(ops.remember_batch)
    consolidate = _blocking(ops.consolidate)
    recall = _blocking(ops.recall)
    answer = _blocking(ops.answer)
    audit = _blocking(ops.audit)
    stats = _blocking(ops.stats)
    forget_interaction = _blocking(ops.forget_interaction)
    forget_user = _blocking(ops.forget_user)
    correct_fact = _blocking(ops.correct_fact)
    retract_fact = _blocking(ops.retract_fact)
    add_fact = _blocking(ops.add_fact)

    def export_user(self, user_id: str) -> list[Obj]:
        """The user's memory as `recmem export` writes it (docs/export.md): the header line, then
        one dict per node and edge. A read: not retried past the transport's own."""
        url, params = export_url(self._base_url, user_id)
        try:
            response = self._http.get(url, params=params)
        except httpx.TransportError as error:
            raise export_failed(error) from error
        return decode_export(response)
