"""PettingZoo AEC environment ``shengji_v1``: one Shengji game, four agents (DESIGN.md §4).

    from shengji_env import env
    e = env(decks=1, render_mode="ansi")          # rules options as keywords, or rules=Rules(...)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else \\
            int(np.random.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)

Agents ``player_0 … player_3`` sit in playing order; partners are ``player_i`` and
``player_{i+2}`` (team 0 = players 0 and 2). Agents act in the order the game asks them — during
the deal only players with a legal declaration are asked, so turns are *not* round-robin.

Observation (``Dict``)
=================  ============  ===========================================================
key                space         meaning
=================  ============  ===========================================================
``observation``    Box float32   the flat encoding of ``core/observe.py`` (its docstring has the
                   [N]           table with offsets; ``N = 1121`` for default rules), seats
                                 relative to the observing agent; ``core.observe.decode`` reads
                                 it by name
``action_mask``    Box int8[A]   1 = legal for the agent to act; all zeros for the others and
                                 after the episode
=================  ============  ===========================================================

An agent that is not to act sees no selection (the selection being built belongs to the seat
to act, and is not shown to the table until it is played).

Actions (``Discrete(A)``, ``A = 66`` for 2 decks and default rules)
============  ==============================================================================
id            meaning
============  ==============================================================================
0-53          ``CARD(c)``: add one copy of card ``c`` to the selection (play or bury); a
              follow is committed when it reaches the lead's size
54            ``PASS``: make no declaration now
55            ``END``: the leader ends the selection; it is the lead
56 …          ``DECLARE``: ``rules.declare.declaration_actions(cfg)`` names each id
then          ``NAME`` (5, only for ``declaration_mode="POST_DEAL_PARTNER_FIRST"``), ``CHOOSE``
              (5, only for ``failed_throw_choice="NEXT_PLAYER"``)
============  ==============================================================================
``describe_action(action, cfg)`` names any id.

Rewards: zero-sum between teams, given when a hand ends (``reward="levels"`` by default,
DESIGN.md §4); ``last()`` reports everything an agent received since its previous turn.
``terminations`` become True for every agent when the episode (a hand, or a match with
``episode="match"``) ends; there are no truncations.

Illegal actions: by default ``step`` raises ``IllegalActionError`` (a ``ValueError``) listing
the legal actions by name; an id outside ``0 … A-1`` is illegal like any other. With
``illegal_action="penalize"`` the episode ends instead: the offending team gets -1 per agent,
the other team +1 (still zero-sum), and every agent's info holds ``"illegal_action": True``.
An action that is not an int (a float, a string, a bool, ``None``, a list) is refused with a
``TypeError`` in both modes: it is never truncated to an id. After the episode ends, each agent
steps ``None`` (PettingZoo's dead step); any other action says the episode is over.

Infos (``info="arrays"``, the default): array-friendly, so libraries that turn infos into
tensors (TorchRL, Tianshou) can stack them — ``{}`` for every agent while the episode runs (the
legal actions are the observation's ``action_mask``); when it ends every agent's info holds the
same four numeric entries: ``"attacker_points"`` (int, the last hand's score, RULES.md §10.1;
0 after an illegal action), ``"team_levels"`` (``int64[2]``), ``"illegal_action"`` (bool) and
``"offender"`` (the offending seat, or -1). ``info="readable"`` restores v0's extras for people
reading a game: the agent to act gets ``{"legal_moves": [ids], "phase": "PLAY"}``; the episode's
end ``"attacker_points"`` and ``"team_levels"`` (a list), or after an illegal action
``"illegal_action": True`` and ``"offender"`` (the agent's name).

Find-friends (``partnership="FIND_FRIEND"``, RULES.md §10.6): after the bury the dealer names
the friend card (phase ``FRIEND``, 54 ids appended after the others); partnerships are per
hand and hidden until the friend plays a copy of it. Each agent's reward is its side's (the
dealer side ``-r``, the attackers ``r``), so a dealer alone against three makes the per-agent sum
``-2r``; the final info gives the per-side, zero-sum view: ``"side_rewards"`` (``{"dealer_side":
-r, "attackers": r}``), ``"dealer_side"`` (seats), ``"friend"`` (seat or None: alone),
``"friend_card"`` and ``"seat_levels"`` (per-player levels, instead of ``"team_levels"``). With
``illegal_action="penalize"`` the offender's side (the offender alone before the friend card is
named) gets -1 per agent, the others +1.

Version history (the default observation and action layout is frozen: a change to it bumps
the version; blocks and ids that exist only with an option do not)
  v0 (0.1.0): first release.
  v0 (0.2.0): same spaces, observations and actions; the observation block ``scalars`` is now
  six named one-wide blocks (``attacker_points`` … ``dealer_side``, same offsets).
  v1 (0.3.0): same observations and actions. Infos are array-friendly by default (above; v0's
  ``legal_moves``/``phase`` need ``info="readable"``); the ``attacker_points`` block has finite
  bounds (``attacker_points_bounds``) instead of ±inf.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from .core.engine import Engine
from .core.observe import layout as obs_layout
from .core.observe import observe_one
from .rules.actions import Phase, describe_action
from .rules.config import Rules, make_rules
from .rules.seats import same_team

AGENTS = tuple(f"player_{i}" for i in range(4))
_PHASE_NAMES = tuple(p.name for p in Phase)  # by value: cheaper than Phase(x).name per step
ILLEGAL_MODES = ("raise", "penalize")
INFO_MODES = ("arrays", "readable")


class IllegalActionError(ValueError):
    """An action outside the acting agent's legal mask."""


def observe_seat(eng: Engine, state, seat: int) -> np.ndarray:
    """``float32[N]`` — game 0 of ``state`` as seen by absolute ``seat``."""
    if state.num_games == 1 and type(seat) is int and 0 <= seat <= 3:  # the env's own calls
        return observe_one(eng, state, seat)
    return eng.observe(state, seats=np.array([seat]))[0]


def max_throw_penalty(cfg: Rules) -> int:
    """The most throw-penalty points one hand can move, in either direction (RULES.md §7.4, item 5).

    A failed throw is a lead, so there is at most one per trick, and none in the last trick
    (every seat then holds one card, and a throw needs two). ``FIXED_10``: 10 per failed throw.
    ``PER_CARD_10``: 10 per card returned to hand; the leader of trick ``t`` (1-based) holds
    ``H - t + 1`` cards and the forced unit keeps at least one of them on the table, so at most
    ``H - t`` return — and returned cards may be thrown again, hence the sum over tricks."""
    h = cfg.hand_size
    if cfg.throw_penalty == "FIXED_10":
        return 10 * (h - 1)
    if cfg.throw_penalty == "PER_CARD_10":
        return 10 * h * (h - 1) // 2
    return 0


def attacker_points_bounds(cfg: Rules) -> tuple[float, float]:
    """Low and high of the observation's ``attacker_points`` scalar, ``(captured + penalty) /
    (100·decks)``: captured points are 0..100·decks (RULES.md §3.5, the kitty bonus is not in
    the scalar) and penalties move it by at most ``max_throw_penalty`` either way (§10.1)."""
    scale, pen = 100 * cfg.decks, max_throw_penalty(cfg)
    return -pen / scale, (scale + pen) / scale


def observation_bounds(cfg: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``float32[N]`` low and high: card counts 0..decks, flags 0..1, the attackers' points
    scalar within ``attacker_points_bounds`` (below 0 or above 1 only with throw penalties)."""
    at = obs_layout(cfg)
    n = max(s.stop for s in at.values())
    low, high = np.zeros(n, np.float32), np.ones(n, np.float32)
    for name in ("hand", "selection", "trick", "played", "shown", "revealed", "kitty",
                 "candidates"):
        if name in at:
            high[at[name]] = cfg.decks
    low[at["attacker_points"]], high[at["attacker_points"]] = attacker_points_bounds(cfg)
    return low, high


class raw_env(AECEnv, EzPickle):
    """Shengji as a PettingZoo ``AECEnv`` (see the module docstring for spaces and rewards).

    ``rules``: a ``Rules`` (or pass its options as keywords); ``illegal_action``: ``"raise"``
    or ``"penalize"``; ``episode``, ``reward``, ``levels``, ``dealer``: as ``core.Engine``;
    ``seed``: seed used by a ``reset()`` without one; ``info``: ``"arrays"`` (default) or
    ``"readable"`` (see the module docstring's Infos).
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "shengji_v1",  # noqa: RUF012
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, rules: Rules | None = None, *,
                 illegal_action: str = "raise", episode: str = "hand", reward: str = "levels",
                 levels=(0, 0), dealer=None, seed: int | None = None, info: str = "arrays",
                 **rule_options):
        EzPickle.__init__(self, render_mode=render_mode, rules=rules,
                          illegal_action=illegal_action, episode=episode, reward=reward,
                          levels=levels, dealer=dealer, seed=seed, info=info, **rule_options)
        super().__init__()
        self.info_mode = _check_info_mode(info)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r}; expected None, 'ansi' or 'human'")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action={illegal_action!r}; expected one of {ILLEGAL_MODES}")
        _check_seed(seed)
        self.cfg = make_rules(rules, **rule_options)
        self.render_mode, self.illegal_action = render_mode, illegal_action
        self.engine = Engine(self.cfg, 1, 0, episode=episode, reward=reward, levels=levels,
                             dealer=dealer, auto_forced=False)
        self.possible_agents = list(AGENTS)
        n, a = self.engine.obs_size, self.engine.num_actions
        low, high = observation_bounds(self.cfg)
        self.observation_spaces = {
            name: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Box(low, high, (n,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (a,), np.int8)})
            for name in AGENTS}
        self.action_spaces = {name: gymnasium.spaces.Discrete(a) for name in AGENTS}
        self._seed_rng = np.random.default_rng(seed)
        self.state = None

    # spaces: the same objects on every call (PettingZoo seeds them through identity)
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new episode. ``seed`` fixes it (and later unseeded resets); ``options`` is
        accepted for API compatibility and ignored."""
        _check_seed(seed)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**31))
        self.state = self.engine.reset(seeds=np.array([game_seed]))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.illegal = False
        self.agent_selection = AGENTS[self.state.to_act.item(0)]
        self._set_infos()

    def _final_info(self, offender: str | None = None, rewards=None) -> dict:
        """What every agent's info holds when the episode ends, in the ``info`` mode.
        Find-friends adds the hand's sides and per-player levels (instead of team levels) and
        the per-side zero-sum view of the rewards (``rewards``: float32[4] of the last step)."""
        s = self.state
        points = s.attacker_points.item(0) if offender is None else 0
        if rewards is None:
            rewards = np.array([self.rewards.get(a, 0.0) for a in AGENTS], dtype=np.float32)
        if self.info_mode == "readable":
            info = ({"illegal_action": True, "offender": offender} if offender is not None
                    else {"attacker_points": points, "team_levels": s.team_levels[0].tolist()})
        else:
            info = {"attacker_points": points, "team_levels": s.team_levels[0].astype(np.int64),
                    "illegal_action": offender is not None,
                    "offender": -1 if offender is None else AGENTS.index(offender)}
        if not self.engine.find_friend:
            return info
        info.pop("team_levels", None)
        side = s.dealer_side[0].copy()
        side_rewards = (float(rewards[side][0]) if side.any() else 0.0,
                        float(rewards[~side][0]) if (~side).any() else 0.0)
        if self.info_mode == "readable":
            info.update(seat_levels=s.seat_levels[0].tolist(), dealer_side=np.flatnonzero(side).tolist(),
                        friend=None if s.friend[0] < 0 else s.friend.item(0),
                        friend_card=s.friend_card.item(0),
                        side_rewards={"dealer_side": side_rewards[0], "attackers": side_rewards[1]})
        else:  # fixed shapes, numbers only
            info.update(seat_levels=s.seat_levels[0].astype(np.int64), dealer_side=side,
                        friend=s.friend.item(0), friend_card=s.friend_card.item(0),
                        side_rewards=np.array(side_rewards, dtype=np.float32))
        return info

    def _set_infos(self, final: dict | None = None):
        if final:  # every agent its own copy of the arrays
            self.infos = {a: {k: (v.copy() if isinstance(v, np.ndarray) else v)
                              for k, v in final.items()} for a in self.agents}
        else:  # fresh empty dicts (a caller may have written into the previous ones)
            self.infos = {a: {} for a in self.agents}
        seat = self.state.to_act.item(0) if self.info_mode == "readable" else -1
        if seat >= 0 and not self.terminations.get(AGENTS[seat], True):
            mask = self.engine.legal_mask(self.state)[0]
            self.infos[AGENTS[seat]].update(legal_moves=mask.nonzero()[0].tolist(),
                                            phase=_PHASE_NAMES[self.state.phase.item(0)])

    def observe(self, agent):
        seat = _seat_of(agent)
        if seat == self.state.to_act.item(0) and not self.illegal:
            mask = self.engine.legal_mask(self.state)[0].astype(np.int8)
        else:
            mask = np.zeros(self.engine.num_actions, dtype=np.int8)
        return {"observation": observe_seat(self.engine, self.state, seat), "action_mask": mask}

    def legal_actions(self, agent=None) -> list[int]:
        """Legal action ids of ``agent`` (default: the agent to act); empty if not its turn."""
        seat = _seat_of(self.agent_selection if agent is None else agent)
        if seat != self.state.to_act.item(0) or self.illegal:
            return []
        return np.flatnonzero(self.engine.legal_mask(self.state)[0]).tolist()

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise ValueError(f"step({action!r}) after the episode ended and every agent left; "
                             "call reset() to start a new episode")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"step({action!r}) for {agent}, but the episode is over; the "
                                 "only action now is None (each agent leaves), or reset()")
            return self._was_dead_step(action)
        mask = self.engine.legal_mask(self.state)[0]
        a = self._check_action_type(action, agent, mask)
        seat = AGENTS.index(agent)
        self._cumulative_rewards[agent] = 0.0
        if not (0 <= a < mask.size and mask[a]):
            if self.illegal_action == "raise":
                legal = ", ".join(f"{i} ({describe_action(i, self.cfg)})"
                                  for i in np.flatnonzero(mask))
                what = (describe_action(a, self.cfg) if 0 <= a < mask.size
                        else f"not an action id: ids are 0-{mask.size - 1}")
                raise IllegalActionError(
                    f"illegal action {a} ({what}) for {agent} in phase "
                    f"{Phase(self.state.phase.item(0)).name}; legal actions: {legal}")
            # penalize: the offending team -1, the other +1 (zero-sum), episode over
            self.illegal = True
            side = self._side_of(seat)
            self.rewards = {x: (-1.0 if side[i] else 1.0) for i, x in enumerate(AGENTS)}
            self.terminations = {x: True for x in self.agents}
            self._accumulate_rewards()
            self._set_infos(self._final_info(offender=agent))
            return
        rewards, done = self.engine.step_legal_one(self.state, a)  # checked against the mask
        r = rewards[0].tolist()
        self.rewards = dict(zip(AGENTS, r))
        if any(r):  # adding zeros changes no cumulative reward
            self._accumulate_rewards()
        if done[0]:
            self.terminations = {x: True for x in self.agents}
            self._set_infos(self._final_info(rewards=rewards[0]))
        else:
            self.agent_selection = AGENTS[self.state.to_act.item(0)]
            self._set_infos()
        if self.render_mode == "human":
            self.render()

    def _check_action_type(self, action, agent: str, mask) -> int:
        """``action`` as an int id; ``TypeError`` for anything else (never truncated)."""
        if type(action) is int or type(action) is np.int64:  # the usual ones, checked first
            return int(action)
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            return int(action)
        legal = ", ".join(f"{i} ({describe_action(i, self.cfg)})" for i in np.flatnonzero(mask))
        raise TypeError(f"action {action!r} ({type(action).__name__}) for {agent}: expected an "
                        f"int action id 0-{mask.size - 1}; legal actions: {legal}")

    def _side_of(self, seat: int) -> np.ndarray:
        """``bool[4]``: the seats on ``seat``'s side (fixed team; find-friends: the true side once
        the friend card is named, else ``seat`` alone)."""
        s = self.state
        if not self.engine.find_friend:
            return np.array([same_team(i, seat) for i in range(4)])
        if s.friend_card[0] < 0:
            return np.arange(4) == seat
        return s.dealer_side[0] == s.dealer_side[0, seat]

    # ------------------------------------------------------------------ rendering
    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; "
                                  "pass render_mode='ansi' or 'human' to env()")
            return None
        from .render import render_state
        text = render_state(self.engine, self.state, 0, color=self.render_mode == "human")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        pass

    def game_log(self) -> list[tuple[int, int]]:
        """The episode's decisions as (seat, action)."""
        return self.engine.game_log(self.state, 0)


def _seat_of(agent) -> int:
    """The seat of an agent name; a ``ValueError`` naming it (``tuple.index`` does not)."""
    try:  # observe runs every step of the AEC loop: no extra check on the good path
        return AGENTS.index(agent)
    except ValueError:
        raise ValueError(f"agent {agent!r}: expected one of {', '.join(AGENTS)}") from None


def _check_info_mode(info: str) -> str:
    if info not in INFO_MODES:
        raise ValueError(f"info={info!r}; expected one of {INFO_MODES} ('arrays': array-friendly "
                         "infos for TorchRL/Tianshou, 'readable': legal_moves and phase names)")
    return info


def _check_seed(seed) -> None:
    if seed is not None and (not isinstance(seed, (int, np.integer))
                             or isinstance(seed, (bool, np.bool_)) or seed < 0):
        raise ValueError(f"seed={seed!r}; expected None or an int >= 0")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks and errors; once the env has
    been reset, ``last``, ``step`` and ``agent_iter`` talk to the wrapped env directly. (The base
    class reaches every attribute through two ``__getattr__`` forwards: about eight per
    decision, ~11% of a random-play AEC decision.)"""

    def __str__(self) -> str:  # as the base class prints itself: the env's name
        return str(self.env) if hasattr(self, "metadata") else repr(self)

    def last(self, observe: bool = True):
        if not self._has_reset:  # PettingZoo's error
            return super().last(observe)
        return self.env.last(observe)

    def step(self, action) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:  # PettingZoo's error or warning
            super().step(action)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's error
        return _OrderIterable(self, max_iter)


class _OrderIterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _OrderIterator(self.env, self.max_iter)


class _OrderIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading the agents from the wrapped env directly."""

    def __next__(self):
        inner = self.env.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return inner.agent_selection


def env(**kwargs) -> AECEnv:
    """``raw_env`` with PettingZoo's call-order checks (``OrderEnforcing``, an
    ``OrderEnforcingWrapper``). (``raw_env.step`` checks the action's type and range itself,
    naming the legal actions, so PettingZoo's bare ``AssertOutOfBoundsWrapper`` is not used;
    out-of-range ids are penalized with ``illegal_action="penalize"`` like any illegal
    action.)"""
    return OrderEnforcing(raw_env(**kwargs))


__all__ = ["AGENTS", "INFO_MODES", "IllegalActionError", "OrderEnforcing", "attacker_points_bounds",
           "describe_action", "env", "max_throw_penalty", "observe_seat", "raw_env"]
