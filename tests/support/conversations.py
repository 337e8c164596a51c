"""The short conversations the engine tests feed in, written once.

SUSHI is one topic recurring turn after turn; OSLO is noise beside it. SUSHI_WITH_NOISE is a
stream in which three recurring turns (theta_count 3) open an episode and the weather is noise.
"""

from __future__ import annotations

SUSHI = [
    "We had sushi dinner with salmon rolls",
    "Another sushi dinner with tuna rolls",
    "Sushi dinner with salmon and tuna rolls again",
    "Sushi dinner with friends and salmon rolls",
]
OSLO = "The weather in Oslo is cold today"
SUSHI_WITH_NOISE = [
    "I love sushi dinner with salmon rolls",
    "Sushi dinner with tuna rolls again, I love it",
    OSLO,
    "I love sushi dinner with salmon and tuna rolls",
    "Sushi dinner with friends and salmon rolls",
]
