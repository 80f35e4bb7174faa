"""``SingleAgentEnv``: Gymnasium view of Shengji for one learner (DESIGN.md §6), gym id
``"shengji_env/Shengji-v0"``.

The learner plays ``seats`` (one seat, or a team such as ``(0, 2)``); every other seat is played
by a ``Policy`` (``act(obs, rng) -> int``, default: uniform random legal). Observations are the
AEC env's ``{"observation": float32[N], "action_mask": int8[A]}`` for the learner's seat to act;
``action_masks()`` returns ``bool[A]`` for maskable learners (sb3-contrib's MaskablePPO).
The reward is the learner's team reward received since its previous decision; an episode is
one hand (or a match). An illegal action of the learner does not raise (env checkers sample
unmasked actions): it ends the episode with reward -1 for the learner's team
(``info["illegal_action"] = True``). An action that is not an int (float, string, bool) is
refused with a ``TypeError``, and ``step`` after the episode ended raises ``RuntimeError``.
An opponent policy that returns an illegal action raises ``IllegalActionError`` naming it
(``opponent_illegal="raise"``, the default), or, with ``opponent_illegal="penalize"``, ends
the episode with -1 for the opponents' team and a ``RuntimeWarning``.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np

from .aec import AGENTS, IllegalActionError, raw_env
from .rules.config import _FIELDS as RULE_FIELDS
from .rules.config import make_rules
from .rules.seats import team


class UniformRandomPolicy:
    """Uniform over the legal actions (the default opponent)."""

    def act(self, obs: dict, rng: np.random.Generator) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))


class SingleAgentEnv(gymnasium.Env):
    """One learner (``seats``) against ``opponents`` (a ``Policy`` or a dict seat → ``Policy``;
    a ``Policy`` is any object with ``act(obs, rng) -> int``); ``opponent_illegal``: ``"raise"``
    or ``"penalize"`` (module docstring).

    Other keywords (rules options, ``rules``, ``episode``, ``reward``, ``levels``, ``dealer``)
    go to ``aec.raw_env``.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 (PettingZoo/Gymnasium convention)

    def __init__(self, seats=(0,), opponents=None, render_mode: str | None = None, *,
                 opponent_illegal: str = "raise", **env_kwargs):
        given_seats = seats
        seats = (seats,) if isinstance(seats, (int, np.integer)) else tuple(seats)
        if (not seats or any(not isinstance(x, (int, np.integer)) or isinstance(x, (bool, np.bool_))
                             for x in seats)):
            raise ValueError(f"seats={given_seats!r}; expected seats 0-3, e.g. 0 or (0, 2)")
        seats = tuple(int(x) for x in seats)
        if any(x not in range(4) for x in seats):
            raise ValueError(f"seats={seats!r}; expected seats 0-3, e.g. 0 or (0, 2)")
        friends = make_rules(env_kwargs.get("rules"), **{k: v for k, v in env_kwargs.items()
                                                         if k in RULE_FIELDS}).partnership
        if friends == "FIND_FRIEND" and len(seats) != 1:
            raise ValueError(f"seats={seats!r}: in find-friends mode partnerships change every hand "
                             "(RULES.md §10.6); a learner plays one seat")
        if len({team(x) for x in seats}) != 1:
            raise ValueError(f"seats={seats!r} mixes both teams; a learner plays one team")
        render_mode = _supported_render_mode(render_mode, self.metadata["render_modes"])
        if opponent_illegal not in ("raise", "penalize"):
            raise ValueError(f"opponent_illegal={opponent_illegal!r}; expected 'raise' or "
                             "'penalize'")
        self.seats, self.render_mode, self.opponent_illegal = seats, render_mode, opponent_illegal
        self.aec = raw_env(render_mode=render_mode, illegal_action="penalize", **env_kwargs)
        default = opponents if opponents is not None and not isinstance(opponents, dict) \
            else UniformRandomPolicy()
        given = opponents if isinstance(opponents, dict) else {}
        for s in given:
            if s not in range(4) or isinstance(s, bool) or s in seats:
                raise ValueError(f"opponents has a policy for seat {s!r}; the opponents' seats "
                                 f"are {[x for x in range(4) if x not in seats]}")
        self.opponents = {s: given.get(s, default) for s in range(4) if s not in seats}
        for s, policy in self.opponents.items():
            if not callable(getattr(policy, "act", None)):
                raise TypeError(f"opponent for seat {s} is {policy!r} ({type(policy).__name__}); "
                                "expected a Policy: an object with act(obs, rng) -> int (e.g. "
                                "agents.specs.resolve('heuristic', rules))")
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
            seat = AGENTS.index(agent)
            obs = self.aec.observe(agent)
            action = self.opponents[seat].act(obs, self._opp_rng)
            self._check_opponent(seat, action, obs["action_mask"])
            self.aec.step(action)
            total += self._reward()
        return total

    def _check_opponent(self, seat: int, action, mask) -> None:
        ok = (isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
              and 0 <= action < mask.size and mask[action])
        if ok:
            return
        policy = self.opponents[seat]
        name = getattr(policy, "name", type(policy).__name__)
        text = (f"opponent {name!r} in seat {seat} returned illegal action {action!r} "
                f"({type(action).__name__}); legal actions: {np.flatnonzero(mask).tolist()}")
        if self.opponent_illegal == "raise" or not isinstance(action, (int, np.integer)):
            raise (IllegalActionError if isinstance(action, (int, np.integer)) else TypeError)(text)
        warnings.warn(text + "; the episode ends with -1 for the opponents' team",
                      RuntimeWarning, stacklevel=3)

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
        if self.aec.state is None:
            raise RuntimeError("call reset() before step()")
        if self._over():
            raise RuntimeError(f"step({action!r}) after the episode ended; call reset() to start "
                               "a new one")
        reward = 0.0
        self.aec.step(action)
        reward += self._reward()
        reward += self._advance()
        over = self._over()
        info = dict(self.aec.infos.get(AGENTS[self.seats[0]], {}))
        if not over:
            info["seat"] = AGENTS.index(self.aec.agent_selection)
        return self._obs(), reward, over, False, info

    def action_masks(self) -> np.ndarray:
        """``bool[A]`` — the learner's legal actions now; all False before the first ``reset()``
        (there is no game yet) and after the episode."""
        if self.aec.state is None:
            return np.zeros(self.action_space.n, dtype=bool)
        return self._obs()["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


def _supported_render_mode(mode: str | None, modes) -> str | None:
    """``mode`` if this env renders it, else ``None`` with a warning — what Gymnasium's ``make``
    does, so SB3's ``make_vec_env`` (which asks for ``"rgb_array"``) builds the env."""
    if mode is None or mode in modes:
        return mode
    gymnasium.logger.warn(f"render_mode={mode!r} is not supported by SingleAgentEnv (supported: "
                          f"{list(modes)}); rendering is off")
    return None


ENV_ID = "shengji_env/Shengji-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="shengji_env.single:SingleAgentEnv")

__all__ = ["ENV_ID", "SingleAgentEnv", "UniformRandomPolicy"]
