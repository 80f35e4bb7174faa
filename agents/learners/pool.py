"""The opponent pool: past snapshots of the network, mixed into self-play.

Every ``pool_every`` updates the trainer adds a copy of the network's weights; the pool keeps the
newest ``max_size`` (first in, first out). For each update one member is drawn uniformly; each
hand of that update is then, with probability ``pool_prob``, played with one team (chosen at
random) run by that member. Its decisions are sampled from its own policy and never trained on.
Playing against older selves keeps the learner from forgetting how to beat earlier strategies.

Members are ``state_dict``\\ s of plain tensors, so the pool goes into a checkpoint as it is and
loads with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["OpponentPool"]


class OpponentPool:
    """Snapshots ``members[i]`` (state_dicts) taken at update ``updates[i]``, oldest first."""

    def __init__(self, max_size: int):
        if max_size < 0:
            raise ValueError(f"pool max_size={max_size}; expected 0 or more")
        self.max_size = int(max_size)
        self.members: list[dict[str, torch.Tensor]] = []
        self.updates: list[int] = []

    def __len__(self) -> int:
        return len(self.members)

    def add(self, net: torch.nn.Module, update: int) -> None:
        """Store a copy of ``net``'s weights; drop the oldest member beyond ``max_size``."""
        if self.max_size == 0:
            return
        self.members.append({k: v.detach().clone() for k, v in net.state_dict().items()})
        self.updates.append(int(update))
        while len(self.members) > self.max_size:
            self.members.pop(0)
            self.updates.pop(0)

    def sample(self, rng: np.random.Generator) -> int:
        """Index of a member drawn uniformly (the pool must not be empty)."""
        if not self.members:
            raise ValueError("the opponent pool is empty")
        return int(rng.integers(len(self.members)))

    def state_dict(self) -> dict:
        """Plain python + tensors, for a checkpoint."""
        return {"max_size": self.max_size, "members": self.members, "updates": self.updates}

    def load_state_dict(self, state: dict) -> None:
        self.max_size = int(state["max_size"])
        self.members = [dict(m) for m in state["members"]]
        self.updates = [int(u) for u in state["updates"]]
