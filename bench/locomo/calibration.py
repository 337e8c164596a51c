"""Before the modes run: every text embedded once, theta_sim calibrated (or given), and the
engine settings the modes start from."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from bench.common import CachedEmbedder
from bench.locomo.args import Args
from bench.locomo.console import console
from bench.locomo.data import Sample, load_samples
from consolidation.providers.calibration import REFERENCE_THETA_SIM, Calibration, calibrate
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.recall.sentences import focusable
from consolidation.settings import EngineSettings
from consolidation.writing.parts import part_spans, part_texts


async def prepare(
    args: Args, samples: Sequence[Sample], embedder: CachedEmbedder
) -> tuple[Calibration | None, float, dict[str, float]]:
    """Embed every turn and question once; calibrate theta_sim on turns (never on questions)."""
    started = time.perf_counter()
    console.print(f"embedding {sum(len(s.units) for s in samples)} units with {embedder.name} ...")
    render = template_of(args).render
    await embedder.embed([render(u.text, u.speaker, u.occurred_at) for s in samples for u in s.units])
    # What each write embeds beside the turn: its sentences (for focus) and a long turn's parts.
    # Here in large length-sorted batches, not a few at a time inside the first mode's writes.
    units = [u for s in samples for u in s.units]
    await embedder.embed([sentence for u in units for sentence in focusable(u.text)])
    await embedder.embed(
        [render(t, u.speaker, u.occurred_at) for u in units for t in part_texts(u.text, part_spans(u.text))]
    )
    await embedder.embed([q.question for s in samples for q in s.questions])
    timings = {"embedding": round(time.perf_counter() - started, 1)}
    calibration = None
    if args.theta_sim is None or args.calibration_target is not None:
        started = time.perf_counter()
        streams = calibration_streams(args)
        calibration = (
            await calibrate(embedder, streams, theta_count=args.theta_count, target=args.calibration_target)
            if args.calibration_target
            else await calibrate(embedder, streams, theta_count=args.theta_count)
        )
        timings["calibration"] = round(time.perf_counter() - started, 1)
    theta_sim = _theta_sim(args, calibration)
    console.print(
        f"theta_sim used: {theta_sim}"
        + (
            f" (calibrated {calibration.theta_sim}, target {calibration.target})"
            if calibration
            else " (given)"
        )
        + f"; RecMem's default for text-embedding-3-small: {REFERENCE_THETA_SIM}"
    )
    return calibration, theta_sim, timings


def _theta_sim(args: Args, calibration: Calibration | None) -> float:
    if args.theta_sim is not None:
        return args.theta_sim
    assert calibration is not None  # calibrated whenever no theta_sim is given
    return calibration.theta_sim


def calibration_streams(args: Args) -> list[list[str]]:
    """Every turn text of every conversation in the calibration file (default: --data), whatever
    --samples and --limit-turns select, so that a threshold belongs to (embedder, corpus) and not to
    one run's slice. Questions and answers are never read."""
    path = args.calibration_data or args.data
    render = template_of(args).render
    return [
        [render(u.text, u.speaker, u.occurred_at) for u in s.units]
        for s in load_samples(path, unit=args.unit)
    ]


def template_of(args: Args) -> EmbeddingTemplate:
    """What interactions are embedded as: --template, else the engine's default."""
    return EmbeddingTemplate(args.template) if args.template is not None else EngineSettings().template


def base_settings(args: Args, theta_sim: float, calibration: Calibration | None) -> EngineSettings:
    values: dict[str, Any] = {
        "profile": "chat",
        "theta_sim": theta_sim,
        "theta_count": args.theta_count,
        "gate_top_k": 2 * args.theta_count,
        "consolidation_mode": "inline",
        "include_consolidated": False,
        "embedding_template": template_of(args).pattern,
    }
    if args.merge_threshold is not None:
        values["merge_threshold"] = args.merge_threshold
    elif calibration is not None:
        values["merge_threshold"] = calibration.merge_threshold
    return EngineSettings(**values)
