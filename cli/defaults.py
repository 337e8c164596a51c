"""What the commands' signatures need at parse time, without importing the service: typer reads
every command's parameters for `recmem --help`. tests/unit/test_cli_defaults.py checks each value
against the one it stands for."""

from __future__ import annotations

from typing import Literal

# consolidation.settings.EmbedderKind
EmbedderKind = Literal["minilm", "minilm-int8", "minilm-torch", "hashing", "openai"]
# consolidation.calibration.DEFAULT_TARGET and DEFAULT_THETA_COUNT
CALIBRATION_TARGET = 0.10
CALIBRATION_THETA_COUNT = 5
# consolidation.reembedding.DEFAULT_BATCH_SIZE
REEMBED_BATCH_SIZE = 256
