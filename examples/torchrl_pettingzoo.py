"""TorchRL: the PettingZoo env through ``torchrl.envs.libs.pettingzoo.PettingZooWrapper``, rolled
out with a small masked policy network shared by the four seats.

    pip install -e ".[libs]"         # torchrl (0.14.1 beside torch 2.13.0)
    python examples/torchrl_pettingzoo.py --hands 3

The wrapper turns infos into tensors, so it needs the env's default ``info="arrays"`` (v1):
``info="readable"`` carries names and variable-length lists that cannot be tensors. TorchRL
puts each agent in its own group for a turn-based env (``td["player_0", "observation",
"observation"]``, ``td["player_0", "action_mask"]``) and ``use_mask=True`` marks who acted.
"""

from __future__ import annotations

import argparse

import torch

import shengji_env


def make_env(decks: int = 1):
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    return PettingZooWrapper(env=shengji_env.env(decks=decks), use_mask=True, categorical_actions=True)


class MaskedPolicy(torch.nn.Module):
    """One MLP for every seat; each group's action is sampled from its logits with illegal
    actions masked out (only the agent to act has a non-zero mask)."""

    def __init__(self, obs_size: int, num_actions: int, groups):
        super().__init__()
        self.groups = list(groups)
        self.net = torch.nn.Sequential(torch.nn.Linear(obs_size, 128), torch.nn.ReLU(),
                                       torch.nn.Linear(128, num_actions))

    def forward(self, td):
        for g in self.groups:
            obs, mask = td[g, "observation", "observation"], td[g, "action_mask"]
            logits = self.net(obs).masked_fill(~mask, -1e9)  # all-masked rows: harmless uniform
            td[g, "action"] = torch.distributions.Categorical(logits=logits).sample()
        return td


def main(hands: int = 3, decks: int = 1, seed: int = 0) -> list[dict]:
    torch.manual_seed(seed)
    env = make_env(decks)
    g0 = next(iter(env.group_map))
    policy = MaskedPolicy(env.observation_spec[g0, "observation", "observation"].shape[-1],
                          env.full_action_spec[g0, "action"].space.n, env.group_map)
    out = []
    for h in range(hands):
        env.set_seed(seed + h)
        with torch.no_grad():
            td = env.rollout(10_000, policy=policy, break_when_any_done=True)
        returns = {g: float(td["next", g, "reward"].sum()) for g in env.group_map}
        print(f"hand {h}: {td.batch_size[0]} steps, returns {returns}")
        out.append({"steps": int(td.batch_size[0]), "returns": returns})
    return out


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--decks", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    main(a.hands, a.decks, a.seed)
