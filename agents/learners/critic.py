"""A perfect-information critic for PPO (PerfectDou's idea): the value sees every hand.

During training only, the value estimate that GAE bootstraps from is computed by a separate
network whose input is the seat's observation *plus* what the seat cannot see: the other three
seats' hands (relative seats 1, 2, 3) and the kitty. A better value lowers the variance of the
advantages; the policy is untouched — it still sees only its observation, so evaluation,
checkpoints and play use the policy alone. ``hidden_cards`` reads the hidden facts from the
engine's state at the moment of the decision; they never enter the policy network
(``tests/test_critic.py`` checks every tensor the policy is given).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["HIDDEN_SIZE", "PerfectInfoCritic", "hidden_cards"]

HIDDEN_SIZE = 4 * 54  # three other hands + the kitty, count vectors


def hidden_cards(state, games: np.ndarray, seats: np.ndarray, decks: int) -> np.ndarray:
    """``float32[g, 216]`` — for seat ``seats[i]`` of game ``games[i]``: the hands of its next
    player, partner and previous player, then the kitty, as counts / ``decks``."""
    rel = (seats[:, None] + np.arange(1, 4)) % 4
    hands = state.hands[games[:, None], rel].reshape(len(games), -1)  # uint8[g, 162]
    out = np.concatenate([hands, state.kitty[games]], axis=1).astype(np.float32)
    return out / decks


class PerfectInfoCritic(nn.Module):
    """Value of a decision from ``obs float[B, N]`` and ``hidden float[B, 216]``: an MLP."""

    def __init__(self, obs_size: int, hidden: int = 256):
        super().__init__()
        self.obs_size, self.hidden = int(obs_size), int(hidden)
        self.body = nn.Sequential(nn.Linear(self.obs_size + HIDDEN_SIZE, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.value = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.value.weight, gain=1.0)
        nn.init.zeros_(self.value.bias)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        return self.value(self.body(torch.cat([obs, hidden], dim=1))).squeeze(1)
