"""``VecEnv``: B games in lockstep for self-play training (DESIGN.md §5).

    venv = VecEnv(1024, Rules(), seed=0)
    obs, mask, to_act, info = venv.reset()
    # obs float32[B, N] for each game's seat to act; mask bool[B, A]; to_act int64[B] seat 0-3
    obs, mask, to_act, rewards, done, info = venv.step(actions)   # actions int[B]
    # rewards float32[B, 4] per absolute seat (zero-sum between teams; find-friends: each seat
    # gets its side's reward, zero-sum per side); done bool[B]

**Same-step autoreset**: a game whose episode ends in ``step`` is restarted in the same call, so
``obs``/``mask``/``to_act`` always describe a live decision. The finished episode is reported
in ``info`` (only when some game finished; ``k`` = number of finished games):

============================  ==================  ==========================================
key                           shape               meaning
============================  ==================  ==========================================
``final_games``               int64[k]            indices of the games that finished
``final_observation``         float32[k, 4, N]    each seat's observation of the final state
``episode["return"]``         float32[k, 4]       rewards per seat summed over the episode
``episode["length"]``         int64[k]            decisions asked of the agents (forced ones
                                                  applied by ``auto_forced`` not counted)
``episode["attacker_points"]`` int64[k]           attackers' points of the last hand
``episode["team_levels"]``    int64[k, 2]         team levels after the episode
``episode["seat_levels"]``    int64[k, 4]         find-friends only (instead of team levels):
``episode["dealer_side"]``    bool[k, 4]          per-player levels, the last hand's dealer
``episode["friend"]``         int64[k]            side, friend (-1: the dealer alone) and
``episode["friend_card"]``    int64[k]            friend card (RULES.md §10.6)
============================  ==================  ==========================================

The step's ``rewards`` rows of finished games are their final rewards. ``obs`` and ``mask`` are
preallocated buffers overwritten by the next call: copy them if you keep them.
``auto_forced=True`` (the default here) applies decisions with exactly one legal action inside
the engine, so agents only see real choices.
"""

from __future__ import annotations

import numpy as np

from .core.engine import Engine
from .rules.config import Rules, make_rules


class VecEnv:
    """B Shengji games stepped together; see the module docstring for the returned arrays.

    ``num_envs``: B; ``rules``: a ``Rules`` (or its options as keywords); ``seed``: game ``i``
    starts from ``seed + i`` (restarted games continue their own random stream);
    ``mask_dtype``: ``bool`` or ``np.int8``; ``episode``, ``reward``, ``levels``, ``dealer``,
    ``auto_forced``: as ``core.Engine``.
    """

    metadata = {"autoreset_mode": "SameStep"}  # noqa: RUF012 (PettingZoo/Gymnasium convention)

    def __init__(self, num_envs: int, rules: Rules | None = None, seed: int = 0, *,
                 auto_forced: bool = True, mask_dtype=bool, episode: str = "hand",
                 reward: str = "levels", levels=(0, 0), dealer=None, **rule_options):
        if np.dtype(mask_dtype) not in (np.dtype(bool), np.dtype(np.int8)):
            raise ValueError(f"mask_dtype={mask_dtype!r}; expected bool or numpy.int8")
        if (not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, (bool, np.bool_))
                or num_envs < 1):
            raise ValueError(f"num_envs={num_envs!r}; expected a positive int (games in lockstep)")
        self.cfg = make_rules(rules, **rule_options)
        self.engine = Engine(self.cfg, num_envs, seed, episode=episode, reward=reward,
                             levels=levels, dealer=dealer, auto_forced=auto_forced)
        self.num_envs, self.seed = int(num_envs), int(seed)
        self.num_actions, self.obs_size = self.engine.num_actions, self.engine.obs_size
        B = self.num_envs
        self._obs = np.zeros((B, self.obs_size), dtype=np.float32)
        self._mask = np.zeros((B, self.num_actions), dtype=mask_dtype)
        self._to_act = np.zeros(B, dtype=np.int64)
        self._return = np.zeros((B, 4), dtype=np.float32)
        self._length = np.zeros(B, dtype=np.int64)
        self.state = None

    def _outputs(self):
        s = self.state
        self.engine.observe(s, out=self._obs)
        self._mask[:] = self.engine.legal_mask(s)
        self._to_act[:] = s.to_act
        return self._obs, self._mask, self._to_act

    def reset(self, seed: int | None = None):
        """Start every game; returns ``(obs, mask, to_act, info)``."""
        if seed is not None:
            if (not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_))
                    or seed < 0):
                raise ValueError(f"seed={seed!r}; expected None or an int >= 0 (game i uses "
                                 "seed + i)")
            self.seed = self.engine.seed = int(seed)
        self.state = self.engine.reset()
        if self.engine.auto_forced:  # a game may open on a forced decision
            self._skip_forced()
        self._return[:] = 0
        self._length[:] = 0
        return (*self._outputs(), {})

    def _skip_forced(self):
        s = self.state
        rewards = np.zeros((self.num_envs, 4), dtype=np.float32)
        while True:
            mask = self.engine.legal_mask(s)
            forced = np.flatnonzero((mask.sum(1) == 1) & ~s.done)
            if not forced.size:
                return rewards
            self.engine._apply(s, forced, mask[forced].argmax(1), rewards)

    def step(self, actions):
        """Apply one action per game; returns ``(obs, mask, to_act, rewards, done, info)``."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        s = self.state
        _, rewards, done = self.engine.step(s, actions)
        done = done.copy()
        self._return += rewards
        self._length += 1
        info = {}
        G = np.flatnonzero(done)
        if G.size:
            info = self._final_info(G)
            self.engine.reset_games(s, G)
            if self.engine.auto_forced:
                rewards += self._skip_forced()  # none in practice: rewards come at hand end
            self._return[G] = 0
            self._length[G] = 0
        return (*self._outputs(), rewards, done, info)

    def _final_info(self, G) -> dict:
        s = self.state
        sub = s.take(G)
        k = G.size
        final = np.zeros((k, 4, self.obs_size), dtype=np.float32)
        for seat in range(4):  # the final state as each seat sees it
            final[:, seat] = self.engine.observe(sub, seats=np.full(k, seat))
        return {"final_games": G,
                "final_observation": final,
                "episode": {"return": self._return[G].copy(),
                            "length": self._length[G].copy(),
                            "attacker_points": s.attacker_points[G].astype(np.int64),
                            **self._levels_info(G)}}

    def _levels_info(self, G) -> dict:
        """Team levels, or (find-friends, RULES.md §10.6) per-seat levels and the last hand's
        dealer side (each seat's reward is its side's; per side the rewards are zero-sum)."""
        s = self.state
        if not self.engine.find_friend:
            return {"team_levels": s.team_levels[G].astype(np.int64)}
        return {"seat_levels": s.seat_levels[G].astype(np.int64),
                "dealer_side": s.dealer_side[G].copy(), "friend": s.friend[G].astype(np.int64),
                "friend_card": s.friend_card[G].astype(np.int64)}

    def close(self):
        pass


__all__ = ["VecEnv"]
