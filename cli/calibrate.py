"""`recmem calibrate`: derive the recurrence gate's theta_sim for an embedder from conversation text.

The method is documented in `consolidation/providers/calibration.py`. The command prints one JSON object:
the derived theta_sim, RecMem's reference value, and the statistics behind both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.defaults import CALIBRATION_TARGET, CALIBRATION_THETA_COUNT, EmbedderKind

if TYPE_CHECKING:
    from consolidation.providers.calibration import Calibration


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate_command)


def calibrate_command(
    path: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSONL units or a LoCoMo JSON file."),
    embedder: EmbedderKind | None = typer.Option(
        None, help="minilm, minilm-torch, hashing or openai; default: RECMEM_EMBEDDER_KIND."
    ),
    target: float = typer.Option(
        CALIBRATION_TARGET, min=0.001, max=0.999, help="Share of units that should count as recurring."
    ),
    theta_count: int = typer.Option(CALIBRATION_THETA_COUNT, min=2, help="The gate's theta_count."),
    gate_top_k: int | None = typer.Option(None, min=1, help="The gate's top_k (default 2 * theta_count)."),
    window: int | None = typer.Option(
        None, min=1, help="Predecessors each unit is compared with (default: all earlier units)."
    ),
    sample: list[str] = typer.Option([], help="LoCoMo sample ids to use (default: all)."),
    limit_turns: int | None = typer.Option(None, min=1, help="Use at most this many units per conversation."),
) -> None:
    """Print JSON with the theta_sim that makes `target` of the units recur, and its statistics."""
    import asyncio

    from consolidation.providers.calibration import calibrate
    from consolidation.providers.embedders import build_embedder
    from consolidation.settings import EmbedderSettings

    # A file or sample that cannot be calibrated (InvalidInput, CalibrationError) is the user's to
    # correct: cli/main.py reports it in one line with exit status 2, as every command.
    streams = _streams(path, sample, limit_turns)
    settings = EmbedderSettings() if embedder is None else EmbedderSettings(kind=embedder)
    result = asyncio.run(
        calibrate(
            build_embedder(settings),
            streams,
            target=target,
            theta_count=theta_count,
            gate_top_k=gate_top_k,
            window=window,
        )
    )
    typer.echo(json.dumps(_payload(result, path), indent=2))


def _streams(path: Path, samples: list[str], limit: int | None) -> list[list[str]]:
    from consolidation.settings import EngineSettings
    from consolidation.writing.conversation_files import read_conversations, selected
    from graph.errors import InvalidInput

    conversations = selected(path, read_conversations(path), samples)
    if not conversations:
        raise InvalidInput("no conversation selected")
    # The gate compares vectors as the engine stores them: rendered through the template.
    render = EngineSettings().template.render
    return [[render(u.text, u.speaker, u.occurred_at) for u in c.units[:limit]] for c in conversations]


def _payload(result: Calibration, path: Path) -> dict[str, object]:
    return {"source": str(path), **result.to_json()}
