"""``SingleAgentEnv``: Gymnasium view of Shengji for one learner (DESIGN.md §6), gym id
``"shengji_env/Shengji-v0"``.

The learner plays ``seats`` (one seat, or a team such as ``(0, 2)``); every other seat is played
by a ``Policy`` (``act(obs, rng) -> int``, default: uniform random legal). Observations are the
AEC env's ``{"observation": float32[N], "action_mask": int8[A]}`` for the learner's seat to act;
``action_masks()`` returns ``bool[A]`` for maskable learners (sb3-contrib's MaskablePPO).
The reward is the learner's team reward received since its previous decision; an episode is
one hand (or a match). An illegal action does not raise (env checkers sample unmasked actions):
it ends the episode with reward -1 for the learner's team (``info["illegal_action"] = True``).
"""

from __future__ import annotations

import gymnasium
import numpy as np

from .aec import AGENTS, raw_env
from .rules.config import _FIELDS as RULE_FIELDS
from .rules.config import make_rules
from .rules.seats import team


class UniformRandomPolicy:
    """Uniform over the legal actions (the default opponent)."""

    def act(self, obs: dict, rng: np.random.Generator) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))


class SingleAgentEnv(gymnasium.Env):
    """One learner (``seats``) against ``opponents`` (a ``Policy`` or a dict seat → ``Policy``).

    Other keywords (rules options, ``rules``, ``episode``, ``reward``, ``levels``, ``dealer``)
    go to ``aec.raw_env``.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 (PettingZoo/Gymnasium convention)

    def __init__(self, seats=(0,), opponents=None, render_mode: str | None = None, **env_kwargs):
        seats = (seats,) if isinstance(seats, (int, np.integer)) else tuple(int(x) for x in seats)
        if not seats or any(x not in range(4) for x in seats):
            raise ValueError(f"seats={seats!r}; expected seats 0-3, e.g. 0 or (0, 2)")
        friends = make_rules(env_kwargs.get("rules"), **{k: v for k, v in env_kwargs.items()
                                                         if k in RULE_FIELDS}).partnership
        if friends == "FIND_FRIEND" and len(seats) != 1:
            raise ValueError(f"seats={seats!r}: in find-friends mode partnerships change every hand "
                             "(RULES.md §10.6); a learner plays one seat")
        if len({team(x) for x in seats}) != 1:
            raise ValueError(f"seats={seats!r} mixes both teams; a learner plays one team")
        self.seats, self.render_mode = seats, render_mode
        self.aec = raw_env(render_mode=render_mode, illegal_action="penalize", **env_kwargs)
        default = opponents if opponents is not None and not isinstance(opponents, dict) \
            else UniformRandomPolicy()
        given = opponents if isinstance(opponents, dict) else {}
        self.opponents = {s: given.get(s, default) for s in range(4) if s not in seats}
        self.observation_space = self.aec.observation_space(AGENTS[seats[0]])
        self.action_space = self.aec.action_space(AGENTS[seats[0]])
        self._opp_rng = np.random.default_rng(0)

    def _reward(self) -> float:
        return float(self.aec.rewards[AGENTS[self.seats[0]]])

    def _advance(self) -> float:
        """Let the opponents play until the learner acts or the episode ends."""
        total = 0.0
        while not self._over() and AGENTS.index(self.aec.agent_selection) not in self.seats:
            agent = self.aec.agent_selection
            self.aec.step(self.opponents[AGENTS.index(agent)].act(self.aec.observe(agent),
                                                                  self._opp_rng))
            total += self._reward()
        return total

    def _over(self) -> bool:
        return any(self.aec.terminations.values())

    def _obs(self):
        return self.aec.observe(self.aec.agent_selection if not self._over()
                                else AGENTS[self.seats[0]])

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**31)))
        self._opp_rng = np.random.default_rng(int(self.np_random.integers(2**31)))
        self._advance()  # no reward can come before the first decision
        return self._obs(), {"seat": AGENTS.index(self.aec.agent_selection)}

    def step(self, action):
        reward = 0.0
        self.aec.step(int(action))
        reward += self._reward()
        reward += self._advance()
        over = self._over()
        info = dict(self.aec.infos.get(AGENTS[self.seats[0]], {}))
        if not over:
            info["seat"] = AGENTS.index(self.aec.agent_selection)
        return self._obs(), reward, over, False, info

    def action_masks(self) -> np.ndarray:
        """``bool[A]`` — the learner's legal actions now."""
        return self._obs()["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


ENV_ID = "shengji_env/Shengji-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="shengji_env.single:SingleAgentEnv")

__all__ = ["ENV_ID", "SingleAgentEnv", "UniformRandomPolicy"]
