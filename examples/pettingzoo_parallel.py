"""PettingZoo utilities and SuperSuit: the turn-based AEC env as a ``ParallelEnv``
(``pettingzoo.utils.conversions.turn_based_aec_to_parallel``), checked by PettingZoo's
``parallel_api_test``, and a SuperSuit wrapper on the AEC env.

    pip install -e ".[libs]"         # supersuit (pettingzoo is a core dependency)
    python examples/pettingzoo_parallel.py

In the parallel view every live agent gets an observation each step and the dict of actions is
applied for the agent to act only; the others' ``action_mask`` is all zeros, so a masked policy
gives them any action (0 here), which is ignored.
"""

from __future__ import annotations

import argparse

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import shengji_env


def play_parallel(decks: int = 1, seed: int = 0) -> dict:
    """One hand in the parallel API with uniform random legal actions; returns per agent."""
    par = turn_based_aec_to_parallel(shengji_env.env(decks=decks))
    rng = np.random.default_rng(seed)
    obs, _infos = par.reset(seed=seed)
    returns = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0
                   for a, o in obs.items()}
        obs, rewards, _terms, _truncs, _infos = par.step(actions)
        for a, r in rewards.items():
            returns[a] += r
    return returns


def main(decks: int = 1, seed: int = 0) -> dict:
    import pettingzoo.test as pzt
    import supersuit

    pzt.parallel_api_test(turn_based_aec_to_parallel(shengji_env.env(decks=decks)), num_cycles=200)
    # a SuperSuit wrapper works on the AEC env as on any PettingZoo env
    pzt.api_test(supersuit.clip_reward_v0(shengji_env.env(decks=decks), lower_bound=-1, upper_bound=1),
                 num_cycles=100)
    returns = play_parallel(decks, seed)
    print("one hand in the parallel API, returns:", returns)
    return returns


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--decks", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    main(a.decks, a.seed)
