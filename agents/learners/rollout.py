"""The shared rollout: play whole hands in a ``VecEnv`` and record per-seat decision chains.

Every update starts all ``B`` games afresh (seeded from the run seed and the update number, so a
resumed run replays the same hands) and plays until each game has finished ``hands_per_env``
hands. In a ``VecEnv`` step exactly one seat acts per game. The learner's ``act`` callback
chooses every game's action and says which of them to record; the rollout files each recorded
row under its (game, hand, seat, step) — one *chain* per (game, hand, seat), ordered by step —
and keeps every hand's final per-seat rewards, length and attackers' points. A game that has
finished its hands keeps stepping with the first legal action (never recorded) until the others
finish; that waste (~15% of steps) is the price of updates that never split a hand, which is
what lets a checkpoint hold no environment state and a resume be exact.

Chains of single actions or of whole plays: a learner that decides whole plays (Deep
Monte-Carlo) chooses the play at its first card and emits the remaining cards on the following
steps; it records only the step where it chose, so its chain is one entry per play.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Chains", "play_hands", "update_seeds"]


def update_seeds(seed: int, update: int, num_envs: int) -> int:
    """Base game seed of update ``update``: game ``i`` gets ``base + i``; distinct for every
    (update, game) of a run, and for different run seeds."""
    return (int(seed) << 32) + int(update) * int(num_envs)


@dataclass
class Chains:
    """What a rollout recorded.

    ``data``: the learner's recorded arrays by name, concatenated (M rows each); ``env``,
    ``hand``, ``seat``, ``step``: int64[M] identifying each row's chain and its place in it;
    ``final_rewards``: float32[B, hands, 4] per seat at each hand's end; ``lengths`` and
    ``attacker_points``: int64[B, hands]; ``decisions``: decisions made in games still playing
    their hands; ``steps``: env steps × B; ``engine_s`` / ``act_s``: wall seconds in the
    engine (``venv.reset`` and ``venv.step``) and in the learner's ``act`` (network forward
    passes and whatever else it does to choose).
    """

    data: dict
    env: np.ndarray
    hand: np.ndarray
    seat: np.ndarray
    step: np.ndarray
    final_rewards: np.ndarray
    lengths: np.ndarray
    attacker_points: np.ndarray
    decisions: int
    steps: int
    engine_s: float = 0.0
    act_s: float = 0.0

    def __len__(self) -> int:
        return int(self.env.size)

    def final_reward_of_rows(self) -> np.ndarray:
        """``float32[M]`` — each recorded row's seat's reward at the end of its hand."""
        return self.final_rewards[self.env, self.hand, self.seat]


# act(obs float32[B, N], mask bool[B, A], to_act int[B], active bool[B], hand int[B], step)
#   -> (actions int64[B], rows int[r] to record, {name: array with r rows})
Act = Callable[..., tuple]


def play_hands(venv, *, seed: int, update: int, hands_per_env: int, act: Act) -> Chains:
    """Play ``hands_per_env`` hands in every game of ``venv`` with ``act`` choosing the actions
    (see ``Act``); returns the recorded ``Chains``."""
    B, k = venv.num_envs, hands_per_env
    t0 = time.perf_counter()
    obs, mask, to_act, _ = venv.reset(seed=update_seeds(seed, update, B))
    engine_s, act_s = time.perf_counter() - t0, 0.0
    hands = np.zeros(B, dtype=np.int64)  # hands finished per game
    rec: dict[str, list] = {}
    ids: dict[str, list] = {"env": [], "hand": [], "seat": [], "step": []}
    final_rewards = np.zeros((B, k, 4), dtype=np.float32)
    lengths = np.zeros((B, k), dtype=np.int64)
    attacker_points = np.zeros((B, k), dtype=np.int64)
    step = decisions = 0
    while (hands < k).any():
        active = hands < k
        h = np.minimum(hands, k - 1)
        t0 = time.perf_counter()
        actions, rows, data = act(obs, mask, to_act, active, h, step)
        t1 = time.perf_counter()
        act_s += t1 - t0
        if len(rows):
            for key, val in (("env", rows), ("hand", h[rows]), ("seat", to_act[rows].copy()),
                             ("step", np.full(len(rows), step))):
                ids[key].append(val)
            for key, val in data.items():
                rec.setdefault(key, []).append(val)
        decisions += int(active.sum())
        obs, mask, to_act, rewards, done, info = venv.step(actions)
        engine_s += time.perf_counter() - t1
        step += 1
        fin = np.flatnonzero(done & active)
        if fin.size:
            where = np.searchsorted(info["final_games"], fin)
            final_rewards[fin, hands[fin]] = rewards[fin]
            lengths[fin, hands[fin]] = info["episode"]["length"][where]
            attacker_points[fin, hands[fin]] = info["episode"]["attacker_points"][where]
            hands[fin] += 1
    cat = {key: np.concatenate(val) for key, val in ids.items()} if ids["env"] else \
        {key: np.zeros(0, dtype=np.int64) for key in ids}
    return Chains({key: np.concatenate(val) for key, val in rec.items()},
                  cat["env"].astype(np.int64), cat["hand"].astype(np.int64),
                  cat["seat"].astype(np.int64), cat["step"].astype(np.int64), final_rewards,
                  lengths, attacker_points, decisions, step * B, engine_s, act_s)
