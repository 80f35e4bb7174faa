"""``RandomAgent``: uniform over the legal actions (the floor every agent must beat)."""

from __future__ import annotations

import numpy as np

from ..base import BasePolicy, check_batch

__all__ = ["RandomAgent"]


class RandomAgent(BasePolicy):
    """Uniformly random legal actions; ``rules`` is accepted (and ignored) for a uniform API.

    Vectorised: one ``rng.random((B, A))`` draw, illegal entries masked, argmax per row (0 for
    a finished game's empty row).
    """

    name = "random"

    def __init__(self, rules=None):
        self.rules = rules

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        _, mask = check_batch(obs, mask)
        scores = rng.random(mask.shape)
        scores[~mask] = -1.0
        return scores.argmax(axis=1).astype(np.int64)
