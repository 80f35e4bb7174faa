"""Tianshou: the PettingZoo env through ``tianshou.env.PettingZooEnv``, four masked policies in
a ``MultiAgentPolicy``, episodes gathered by a ``Collector`` over a vector of envs.

    pip install -e ".[libs]"         # tianshou
    python examples/tianshou_collect.py --episodes 8

Tianshou stacks infos across envs into its replay buffer, so it needs the env's default
``info="arrays"`` (v1): with ``info="readable"`` the ``legal_moves`` list changes length from step
to step and the buffer refuses it. The legal actions reach the policies as ``obs.mask``. Here every
seat plays uniformly among its legal actions; replace an entry of the dict with any Tianshou
algorithm's policy (e.g. a DQN's) to train that seat.
"""

from __future__ import annotations

import argparse

import numpy as np

import shengji_env


def make_env(decks: int = 1):
    from tianshou.env import PettingZooEnv
    return PettingZooEnv(shengji_env.env(decks=decks))


def main(episodes: int = 8, decks: int = 1, num_envs: int = 2, seed: int = 0) -> np.ndarray:
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv([lambda: make_env(decks) for _ in range(num_envs)])
    probe = make_env(decks)
    policy = MultiAgentPolicy({a: MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy
                               for a in probe.agents})
    collector = Collector(policy, envs, VectorReplayBuffer(20_000, num_envs))
    np.random.seed(seed)  # noqa: NPY002 -- Tianshou's random policy draws from the global generator
    envs.seed(seed)
    result = collector.collect(n_episode=episodes, reset_before_collect=True)
    print(f"{result.n_collected_episodes} episodes, {result.n_collected_steps} steps; returns per "
          f"seat (rows: episodes):\n{result.returns}")
    return result.returns


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=8)
    p.add_argument("--decks", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    main(a.episodes, a.decks, seed=a.seed)
