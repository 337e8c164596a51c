"""Engine, embedder and LLM settings (env prefix ``RECMEM_``)."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from consolidation.providers.default_thresholds import REFERENCE_MERGE_THRESHOLD, calibrated
from consolidation.providers.embedding_template import DEFAULT_TEMPLATE, EmbeddingTemplate
from consolidation.salience import detector_for
from graph.vector_cache import DEFAULT_BUDGET_BYTES
from graph.vocabulary import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_TEXT_BYTES

# minilm: all-MiniLM-L6-v2's fp32 weights on onnxruntime (the default, no torch); minilm-int8: its
# int8 weights, faster, close but not identical vectors; minilm-torch: the fp32 model through
# sentence-transformers (the `torch` extra); hashing: feature hashing for tests; openai: an
# OpenAI-compatible endpoint.
EmbedderKind = Literal["minilm", "minilm-int8", "minilm-torch", "hashing", "openai"]
Profile = Literal["chat", "task"]

# RecMem's reference defaults per profile: (theta_sim, theta_count). They were tuned for
# text-embedding-3-small; other embedders need their own calibration (`recmem calibrate`).
PROFILES: dict[str, tuple[float, int]] = {"chat": (0.7, 5), "task": (0.6, 4)}


def _http_url(value: str | None) -> str | None:
    """None (also for an empty value), or an http(s) URL with a host: an OpenAI-compatible
    endpoint."""
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("expected an http:// or https:// URL with a host")  # may carry a key
    return value


class EmbedderSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RECMEM_EMBEDDER_", env_file=".env", extra="ignore", allow_inf_nan=False
    )

    kind: EmbedderKind = "minilm"
    # hashing: any dimension; minilm, minilm-int8, minilm-torch: 384 (fixed); openai: the model's own (or a
    # requested reduction).
    dimension: int = Field(default=384, ge=8, le=8192)
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key: SecretStr | None = None
    batch_size: int = Field(default=64, ge=1, le=2048)

    _base_url = field_validator("base_url")(_http_url)


class LLMSettings(BaseSettings):
    """An OpenAI-compatible chat endpoint. With no base_url and no api_key: offline consolidation."""

    model_config = SettingsConfigDict(
        env_prefix="RECMEM_LLM_", env_file=".env", extra="ignore", allow_inf_nan=False
    )

    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str = "gpt-4.1-mini"
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    temperature: float = Field(default=0.0, ge=0, le=2)

    _base_url = field_validator("base_url")(_http_url)

    @property
    def configured(self) -> bool:
        return self.base_url is not None or self.api_key is not None


class EngineSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RECMEM_", env_file=".env", extra="ignore", allow_inf_nan=False
    )

    profile: Profile = "chat"
    theta_sim: float | None = Field(default=None, ge=-1, le=1)
    theta_count: int | None = Field(default=None, ge=2)
    gate_top_k: int | None = Field(default=None, ge=1)
    # None: calibrated for the embedder and template when known, else the reference 0.75
    # (consolidation/providers/default_thresholds.py); theta_sim alike.
    merge_threshold: float | None = Field(default=None, ge=-1, le=1)
    # Recurrence-gated merging (docs/design/batched-merges.md): a turn at or above merge_threshold waits
    # for its episode, recallable as a raw turn, and the episode absorbs its waiting turns in one
    # merge (one merge_episode and one refine_facts call) once `merge_batch` have gathered, once
    # their session has ended (another session began, or nothing was written for
    # `merge_quiet_seconds`), or on an explicit consolidate. merge_batch=1: a merge per turn.
    merge_batch: int = Field(default=16, ge=1, le=1000)
    merge_quiet_seconds: float = Field(default=600.0, ge=0, le=7 * 86400)
    # Salience (docs/design/salience.md): off, default (the built-in rules) or a JSON file of rules
    # and prototypes. A turn it fires on is consolidated at once, whatever recurrence says.
    salience: str = "default"
    # Adaptive thresholds (consolidation/writing/adaptive.py): each user's theta_sim follows a running
    # estimate that keeps `adaptive_target` of that user's turns recurring; theta_sim (or its
    # calibrated default) is where each user's estimate starts.
    adaptive_thresholds: bool = False
    adaptive_target: float = Field(default=0.1, gt=0, lt=1)
    # At most the API's default request body (graph/vocabulary.py); the service starts only with a
    # body limit that leaves room for it (docs/configuration.md#the-body-limit-and-the-text-limit).
    max_text_bytes: int = Field(default=DEFAULT_MAX_TEXT_BYTES, ge=1, le=DEFAULT_MAX_BODY_BYTES)
    lease_seconds: float = Field(default=120.0, gt=0)
    # background: remember answers once the interaction is durable and a worker in the same process
    # consolidates; inline: the caller waits for consolidation (a request may ask for either).
    consolidation_mode: Literal["inline", "background"] = "background"
    # Background mode: how long the worker lets a user's writes gather before one pass over them.
    # A burst of writes then costs one lease and one batch of gate checks instead of one each.
    consolidation_delay_s: float = Field(default=0.2, ge=0, le=60)
    # Inline mode: the longest a write waits for consolidation after it is durable. Past it the
    # pass stops cleanly (nothing half-written) and the rest stays pending; the write is still
    # acknowledged. Kept under the API's request timeout (120 s).
    inline_consolidation_budget_s: float = Field(default=60.0, gt=0)
    include_consolidated: bool = False
    # A token-budgeted context shows a turn below its best-ranked few by its sentences closest to
    # the query only (consolidation/recall/sentences.py). False: every turn whole, as plain retrieval.
    context_focus: bool = True
    # ... and writes the absolute date beside each relative one in a turn ("yesterday (7 May 2023)").
    context_dates: bool = True
    # A context whose candidates all fall below the relevance floor (consolidation/recall/relevance.py)
    # is left empty and says so (`nothing_relevant`); off: it is filled all the same, still flagged.
    context_relevance: bool = False
    # Recall reads the question first (consolidation/recall/planning/): "rules" (no LLM call),
    # "llm" (one call to the configured endpoint, the rules on any failure; refused at start-up
    # without an endpoint) or "off" (the question's words only).
    planner: Literal["off", "rules", "llm"] = "rules"
    # planner=llm: the longest recall waits for the planner's call (retries included) before it
    # falls back to the rule plan.
    planner_timeout_s: float = Field(default=10.0, gt=0, le=120)
    # What an interaction is embedded as (consolidation/providers/embedding_template.py); the database
    # records it, and `recmem db reembed` rebuilds the vectors after a change.
    embedding_template: str = DEFAULT_TEMPLATE
    # Background mode: every this many seconds the worker sweeps for users with pending
    # interactions and no live lease (a restart of Neo4j or of the service, a crashed holder, a
    # user who never writes again) and queues at most `sweep_batch` of them. 0 turns it off.
    sweep_interval_s: float = Field(default=30.0, ge=0, le=3600)
    sweep_batch: int = Field(default=100, ge=1, le=10_000)
    # Background mode: a pass that failed (Neo4j down, an LLM error) is retried after this delay,
    # doubled on each further failure of that user up to the maximum, without waiting for a write.
    consolidation_retry_s: float = Field(default=2.0, gt=0, le=3600)
    consolidation_retry_max_s: float = Field(default=60.0, gt=0, le=3600)
    # Background mode: how many users one process consolidates at once (each still one pass at a
    # time, under its lease). Other processes on the same database share the work through the
    # leases and the sweeper. A forget's rebuild runs at most this many LLM calls at once too.
    worker_concurrency: int = Field(default=4, ge=1, le=256)
    # Recall keeps the vectors of users above graph/recall.py's EXACT_LIMIT in memory, within this
    # many MiB per process (least recently used users go first; 256 MiB holds about 170,000
    # vectors of 384 dimensions). A user it cannot hold, or 0, is scanned in the graph instead:
    # as exact, slower (docs/design/algorithm.md#exact-per-user).
    vector_cache_mb: int = Field(default=DEFAULT_BUDGET_BYTES // 2**20, ge=0, le=1_048_576)
    # The `consolidations` subscription reads consolidations other processes committed from the
    # database every this many seconds (only for users someone subscribes to): their latency.
    event_poll_s: float = Field(default=0.5, gt=0, le=60)
    # Group commit (consolidation/writing/write_groups.py): a write that finds others of this process on
    # their way waits for them at most this long, and they commit in one transaction. A lone
    # writer never waits. 0 turns grouping off (one transaction per write).
    group_commit_wait_ms: float = Field(default=1.0, ge=0, le=100)

    @field_validator("embedding_template")
    @classmethod
    def _template(cls, value: str) -> str:
        EmbeddingTemplate(value)  # raises TemplateError (a ValueError) with the reason
        return value

    @field_validator("salience")
    @classmethod
    def _salience(cls, value: str) -> str:
        detector_for(value)  # raises SalienceError (a ValueError) with the reason
        return value

    @property
    def template(self) -> EmbeddingTemplate:
        return EmbeddingTemplate(self.embedding_template)

    @property
    def resolved_theta_sim(self) -> float:
        """theta_sim, or the profile's reference value (whatever the embedder)."""
        return self.theta_sim if self.theta_sim is not None else PROFILES[self.profile][0]

    def theta_sim_for(self, embedder: str) -> float:
        """theta_sim, else the calibrated value for `embedder` and the template, else the reference."""
        if self.theta_sim is not None:
            return self.theta_sim
        known = calibrated(embedder, self.embedding_template, self.profile)
        return known[0] if known is not None else PROFILES[self.profile][0]

    def merge_threshold_for(self, embedder: str) -> float:
        """merge_threshold, else the calibrated value for `embedder` and the template, else 0.75."""
        if self.merge_threshold is not None:
            return self.merge_threshold
        known = calibrated(embedder, self.embedding_template, self.profile)
        return known[1] if known is not None else REFERENCE_MERGE_THRESHOLD

    @property
    def resolved_theta_count(self) -> int:
        return self.theta_count if self.theta_count is not None else PROFILES[self.profile][1]

    @property
    def resolved_gate_top_k(self) -> int:
        return self.gate_top_k if self.gate_top_k is not None else 2 * self.resolved_theta_count
