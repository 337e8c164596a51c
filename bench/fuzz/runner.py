"""The runner: sends cases one at a time to a running service (so that a write can be attributed
to the request that made it) and records what each got back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable
from urllib.parse import urlencode

import httpx
from websockets.exceptions import WebSocketException

from bench.fuzz.case import Case
from bench.fuzz.health import Health, health
from bench.fuzz.outcome import Outcome, answered_data, check_errors, errors_of
from bench.fuzz.probe import WriteProbe, api_probe
from bench.fuzz.websocket import WebSocketSender

# The header a case carries to be streamed without a content length (never sent itself).
STREAMED = "content-length-claim"
CHUNK = 65536


class Fuzzer:
    """Sends cases one by one to a running service; see bench/fuzz/__init__.py for the checks."""

    def __init__(
        self, base_url: str, key: str, probe: WriteProbe | None = None, *, timeout_s: float = 30.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout_s = timeout_s
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout_s + 5)
        self.probe = probe or api_probe(self.http, key)
        self.websocket = WebSocketSender(self.base_url, key, timeout_s)
        self.unattributed_writes = 0

    async def close(self) -> None:
        await self.websocket.drop()
        await self.http.aclose()

    async def run(
        self, batch: Iterable[Case], progress: Callable[[int], None] | None = None
    ) -> list[Outcome]:
        outcomes = []
        baseline = await self.probe()
        for number, item in enumerate(batch):
            outcome = await self.one(item)
            # After every case: queries write too (`answer` records its run). A websocket case
            # whose connection the service closed (a protocol error) may have started an
            # operation that runs on: its write belongs to this case, so let the count settle.
            closed = outcome.status.startswith("ws:close")
            after = await (self._settled() if closed else self.probe())
            outcome.wrote = outcome.rejected and after != baseline
            baseline = after
            outcome.case = item.slim()
            outcomes.append(outcome)
            if progress is not None:
                progress(number + 1)
        # Anything written after its case was checked (a late write) shows here.
        await asyncio.sleep(0.5)
        self.unattributed_writes = (await self.probe()) - baseline
        return outcomes

    async def _settled(self, pause_s: float = 0.2, limit_s: float = 5.0) -> int:
        """The write count once two reads `pause_s` apart agree (or after `limit_s`)."""
        deadline = time.monotonic() + limit_s
        count = await self.probe()
        while time.monotonic() < deadline:
            await asyncio.sleep(pause_s)
            again = await self.probe()
            if again == count:
                return count
            count = again
        return count

    async def one(self, item: Case) -> Outcome:
        start = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout_s):
                if item.transport == "http":
                    outcome = await self._http(item, start)
                else:
                    outcome = await self.websocket.send(item)
        except TimeoutError:
            outcome = Outcome(item, "hang", time.monotonic() - start, hang=True, detail="no answer in time")
            await self.websocket.drop()
        except (httpx.TransportError, OSError, WebSocketException) as error:
            outcome = Outcome(item, "transport-error", time.monotonic() - start, server_error=True)
            outcome.detail = f"{type(error).__name__}: {error}"[:300]
            await self.websocket.drop()
        outcome.latency_s = time.monotonic() - start
        return outcome

    async def _http(self, item: Case, start: float) -> Outcome:
        response = await self.http.send(self._request(item))
        outcome = Outcome(item, str(response.status_code), time.monotonic() - start)
        outcome.server_error = response.status_code >= 500
        try:
            payload = response.json() if response.content else None
        except ValueError:
            payload = None
        if response.status_code >= 500:
            outcome.detail = response.text[:300]
        check_errors(errors_of(payload), outcome)
        if response.status_code >= 400 and payload is None and item.method != "HEAD":
            outcome.missing_code += 1
            outcome.detail = outcome.detail or f"non-JSON {response.status_code}: {response.text[:200]}"
        outcome.rejected = response.status_code != 200 or not answered_data(payload)
        if outcome.rejected and not outcome.detail:
            outcome.detail = response.text[:300]
        return outcome

    def _request(self, item: Case) -> httpx.Request:
        headers = [(k.encode(), v.encode("utf-8")) for k, v in item.headers if k != STREAMED]
        if item.authenticated:
            headers.append((b"authorization", f"Bearer {self.key}".encode()))
        content: bytes | AsyncIterator[bytes] | None = item.body if item.method != "GET" else None
        if any(k == STREAMED for k, _ in item.headers):
            content = _chunks(item.body)
        # Encoded here: httpx refuses a lone surrogate in a parameter, which the fuzz sends on purpose.
        query = urlencode(list(item.params), errors="surrogatepass")
        url = f"/graphql?{query}" if query else "/graphql"
        return self.http.build_request(item.method, url, content=content, headers=headers)

    async def health(self) -> Health:
        """/readyz, then a normal remember and recall of a fresh user."""
        return await health(self.http, self.key)


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for offset in range(0, len(body), CHUNK):
        yield body[offset : offset + CHUNK]
