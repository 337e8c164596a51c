"""AsyncMemoryClient and MemoryClient: the service's memory operations as typed methods.

Each method builds one Operation (recmem_client/operations.py: document, variables, parser) and
hands it to `_run`, which sends it, reads the response (protocol.py) and retries what is safe to
retry. The two classes differ only in `_run`: one awaits httpx.AsyncClient and asyncio.sleep, the
other calls httpx.Client and time.sleep.

Retries and idempotency: every remember carries a source_ref. The service stores at most one
interaction per (tenant, user, source_ref) and answers a repeat with the existing one
(`created=False`), so resending a write whose answer was lost cannot store it twice. When the
caller gives no source_ref the client generates a random one for that call (`recmem-client:`
and a uuid4), kept across its retries; two separate calls never share one. Give your own
source_ref (a message id, say) to make retries across process restarts safe too.
`remember`, `remember_batch`, `recall` and `audit` are retried on UNAVAILABLE, connection
failures and timeouts, and 429 (honouring Retry-After). `answer`, `consolidate` and the forget
mutations are retried only when the service cannot have run them (a 429, or no connection made);
operations.py says why.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Self, TypeVar

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
    endpoint,
    headers,
)
from recmem_client.types import (
    Answer,
    ConsolidationEvent,
    FactAudit,
    InteractionForgotten,
    Layers,
    Recall,
    Remembered,
    Unit,
    UserForgotten,
)

T = TypeVar("T")


class AsyncMemoryClient:
    """The memory service over GraphQL, for asyncio code. Use as `async with`, or call aclose().

    `base_url` is the service root (`/graphql` is appended); `timeout` is httpx's (seconds or an
    httpx.Timeout); `retry` bounds retries (protocol.NO_RETRY disables them); `transport` replaces
    httpx's network transport (tests, custom TLS or proxies).
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self._url = endpoint(base_url)
        self._retry = retry or RetryPolicy()
        self._http = httpx.AsyncClient(
            headers=headers(api_key, extra_headers), timeout=timeout, transport=transport
        )

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
                delay = self._retry.delay(operation, attempt, error)
                if delay is None:
                    raise
            await asyncio.sleep(delay)
            attempt += 1

    async def _send(self, operation: Operation[T]) -> Obj:
        try:
            response = await self._http.post(self._url, json=operation.body())
        except httpx.UnsupportedProtocol as error:
            raise MemoryClientError(f"bad base_url {self._url!r}: {error}") from error  # not transient
        except httpx.TransportError as error:
            raise connection_failed(operation, error) from error
        return decode(operation, response)

    # -- writes --------------------------------------------------------------------------------

    async def remember(
        self,
        user_id: str,
        text: str,
        *,
        speaker: str = "user",
        occurred_at: datetime | None = None,
        session_id: str | None = None,
        source_ref: str | None = None,
        consolidate: bool | None = None,
    ) -> Remembered:
        """Store one interaction durably (then consolidate now, never, or as configured: None)."""
        unit = Unit(text, speaker, occurred_at, session_id, source_ref)
        return await self._run(ops.remember(user_id, unit, consolidate))

    async def remember_batch(
        self, user_id: str, items: Sequence[Unit], *, consolidate: bool | None = None
    ) -> list[Remembered]:
        """Store a bounded batch of one user's interactions in one transaction (all or nothing)."""
        return await self._run(ops.remember_batch(user_id, items, consolidate))

    async def consolidate(self, user_id: str) -> list[ConsolidationEvent]:
        """Consolidate the user's pending interactions now."""
        return await self._run(ops.consolidate(user_id))

    # -- reads ---------------------------------------------------------------------------------

    async def recall(
        self,
        user_id: str,
        query: str,
        *,
        tokens: int | None = None,
        layers: Layers | None = None,
        as_of: datetime | None = None,
        include_consolidated: bool | None = None,
        lexical: bool = True,
    ) -> Recall:
        """Per-layer hits (`layers`: hits per layer, default 10 / 5 / 10); with `tokens`, also
        `context`: one prompt-ready text of the best evidence within that many o200k tokens."""
        return await self._run(
            ops.recall(
                user_id,
                query,
                tokens=tokens,
                layers=layers,
                as_of=as_of,
                include_consolidated=include_consolidated,
                lexical=lexical,
            )
        )

    async def answer(
        self,
        user_id: str,
        question: str,
        *,
        tokens: int | None = None,
        layers: Layers | None = None,
        as_of: datetime | None = None,
    ) -> Answer:
        """An answer from the user's memory with its evidence (with `tokens`: from that context)."""
        return await self._run(ops.answer(user_id, question, tokens=tokens, layers=layers, as_of=as_of))

    async def audit(self, fact_id: str) -> FactAudit:
        """A fact's audit trail: episodes -> interactions, supersessions, runs and their cost."""
        return await self._run(ops.audit(fact_id))

    # -- forgetting ----------------------------------------------------------------------------

    async def forget_interaction(self, interaction_id: str) -> InteractionForgotten:
        """Erase an interaction and everything derived only from it; rebuild what survives."""
        return await self._run(ops.forget_interaction(interaction_id))

    async def forget_user(self, user_id: str) -> UserForgotten:
        """Erase a user entirely: interactions, episodes, facts and runs."""
        return await self._run(ops.forget_user(user_id))


class MemoryClient:
    """The blocking twin of AsyncMemoryClient (same arguments, same results, same retries)."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self._url = endpoint(base_url)
        self._retry = retry or RetryPolicy()
        self._http = httpx.Client(
            headers=headers(api_key, extra_headers), timeout=timeout, transport=transport
        )

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
                delay = self._retry.delay(operation, attempt, error)
                if delay is None:
                    raise
            time.sleep(delay)
            attempt += 1

    def _send(self, operation: Operation[T]) -> Obj:
        try:
            response = self._http.post(self._url, json=operation.body())
        except httpx.UnsupportedProtocol as error:
            raise MemoryClientError(f"bad base_url {self._url!r}: {error}") from error
        except httpx.TransportError as error:
            raise connection_failed(operation, error) from error
        return decode(operation, response)

    def remember(
        self,
        user_id: str,
        text: str,
        *,
        speaker: str = "user",
        occurred_at: datetime | None = None,
        session_id: str | None = None,
        source_ref: str | None = None,
        consolidate: bool | None = None,
    ) -> Remembered:
        unit = Unit(text, speaker, occurred_at, session_id, source_ref)
        return self._run(ops.remember(user_id, unit, consolidate))

    def remember_batch(
        self, user_id: str, items: Sequence[Unit], *, consolidate: bool | None = None
    ) -> list[Remembered]:
        return self._run(ops.remember_batch(user_id, items, consolidate))

    def consolidate(self, user_id: str) -> list[ConsolidationEvent]:
        return self._run(ops.consolidate(user_id))

    def recall(
        self,
        user_id: str,
        query: str,
        *,
        tokens: int | None = None,
        layers: Layers | None = None,
        as_of: datetime | None = None,
        include_consolidated: bool | None = None,
        lexical: bool = True,
    ) -> Recall:
        return self._run(
            ops.recall(
                user_id,
                query,
                tokens=tokens,
                layers=layers,
                as_of=as_of,
                include_consolidated=include_consolidated,
                lexical=lexical,
            )
        )

    def answer(
        self,
        user_id: str,
        question: str,
        *,
        tokens: int | None = None,
        layers: Layers | None = None,
        as_of: datetime | None = None,
    ) -> Answer:
        return self._run(ops.answer(user_id, question, tokens=tokens, layers=layers, as_of=as_of))

    def audit(self, fact_id: str) -> FactAudit:
        return self._run(ops.audit(fact_id))

    def forget_interaction(self, interaction_id: str) -> InteractionForgotten:
        return self._run(ops.forget_interaction(interaction_id))

    def forget_user(self, user_id: str) -> UserForgotten:
        return self._run(ops.forget_user(user_id))
