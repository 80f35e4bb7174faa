"""One episode at a table: the engine at B = 1, an agent per seat, maybe a person in one seat.

Shared by the terminal table (``shengji_env.play``) and the web table (``agents.web``):

    sess = Session(Rules(), seed=0, agents=[None, bot, None, bot], human=0, specs=[...])
    events = sess.run_agents()            # agents act until the person must (or the end)
    sess.mask()                           # bool[A]: the person's legal actions now
    events = sess.step(action)            # ValueError (a sentence) if it is not legal
    sess.undo(); sess.clear()             # take back cards of a partial play or bury
    sess.game_log()                       # a GameLog to save or replay

A person's play or bury is built one card at a time (``CARD`` actions, RULES.md §7-8); until it
is complete, ``undo`` restores the snapshot taken before its first card and applies the
remaining cards again, so the decision log never holds the cards taken back.
"""

from __future__ import annotations

import numpy as np

from .core.engine import Engine
from .events import Event, explain
from .gamelog import GameLog
from .rules.actions import END, Phase, describe_action
from .rules.config import Rules

HUMAN = "human"  # the agent spec recorded for a person's seat


class Session:
    """``agents``: a ``Policy`` (``act(obs, rng)``) or ``None`` (uniform random) per seat;
    ``human``: the person's seat or ``None`` (agents only: watching); ``specs``: the seats'
    agent specs for the game log."""

    def __init__(self, rules: Rules, seed: int, agents=None, human: int | None = None,
                 episode: str = "hand", specs=None):
        self.eng = Engine(rules, 1, seed, episode=episode)
        self.state = self.eng.reset()
        self.cfg, self.seed, self.human = rules, int(seed), human
        self.agents = list(agents or [None] * 4)
        self.rng = np.random.default_rng([seed, 7])
        self.total = np.zeros(4, dtype=np.float32)  # rewards per seat over the episode
        specs = list(specs or ["random"] * 4)
        if human is not None:
            specs[human] = HUMAN
        self.log = GameLog.start(self.eng, self.state, specs, seed)
        self.events: list[Event] = []
        self.pending: list[int] = []  # the person's cards of an unfinished play or bury
        self._turn_start = None

    # ------------------------------------------------------------------ reading
    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    @property
    def to_act(self) -> int:
        return int(self.state.to_act[0])

    @property
    def phase(self) -> Phase:
        return Phase(int(self.state.phase[0]))

    @property
    def human_to_act(self) -> bool:
        return not self.done and self.human is not None and self.to_act == self.human

    def mask(self) -> np.ndarray:
        """``bool[A]`` — legal actions of the seat to act."""
        return self.eng.legal_mask(self.state)[0]

    def legal(self) -> np.ndarray:
        return np.flatnonzero(self.mask())

    def needed(self) -> int | None:
        """Cards the seat to act must still add to complete its follow or bury (``None`` when
        leading or not choosing cards: a lead is as long as the leader makes it)."""
        sel = int(self.state.selection[0].sum())
        if self.phase == Phase.BURY:
            return self.cfg.kitty_size - sel
        if self.phase == Phase.PLAY and int(self.state.lead_n[0]):
            return int(self.state.lead_n[0]) - sel
        return None

    def leading(self) -> bool:
        return self.phase == Phase.PLAY and int(self.state.lead_n[0]) == 0

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> list[Event]:
        """Apply ``action`` for the seat to act; ``ValueError`` with a readable reason if it is
        not legal now (nothing changes then)."""
        if self.done:
            raise ValueError("the game is over")
        a = int(action)
        mask = self.mask()
        if not (0 <= a < mask.size and mask[a]):
            what = describe_action(a, self.cfg) if 0 <= a < mask.size else f"action {a}"
            raise ValueError(f"{what} is not legal now ({self.phase.name}, seat {self.to_act})")
        building = self.human_to_act and a < 54 and self.phase in (Phase.PLAY, Phase.BURY)
        if building and not self.pending:
            self._turn_start = self.state.copy()
        before = self.state.copy()
        self.state, rewards, _ = self.eng.step(self.state, np.array([a]))
        self.total += rewards[0]
        if building:
            self.pending.append(a)
        if not int(self.state.selection[0].sum()) or a == END:
            self.pending, self._turn_start = [], None
        events = explain(self.eng, before, a, self.state, you=self.human)
        self.events += events
        return events

    def agent_action(self) -> int:
        """The decision of the agent of the seat to act (random for ``None``)."""
        agent = self.agents[self.to_act]
        if agent is None:
            return int(self.rng.choice(self.legal()))
        obs = {"observation": self.eng.observe(self.state)[0],
               "action_mask": self.mask().astype(np.int8)}
        return int(agent.act(obs, self.rng))

    def run_agents(self, limit: int | None = None) -> list[Event]:
        """Agents act until the person must, the game ends, or ``limit`` decisions."""
        events: list[Event] = []
        n = 0
        while not self.done and not self.human_to_act and (limit is None or n < limit):
            events += self.step(self.agent_action())
            n += 1
        return events

    def undo(self) -> bool:
        """Take back the person's last card of an unfinished play or bury (False: none)."""
        if not self.pending:
            return False
        keep = self.pending[:-1]
        self.state = self._turn_start.copy()
        for a in keep:
            self.state, _, _ = self.eng.step(self.state, np.array([a]))
        self.pending = keep
        if not keep:
            self._turn_start = None
        return True

    def clear(self) -> bool:
        """Take back every card of the person's unfinished play or bury."""
        if not self.pending:
            return False
        self.state = self._turn_start.copy()
        self.pending, self._turn_start = [], None
        return True

    def game_log(self) -> GameLog:
        """The episode so far as a ``GameLog`` (its result once it is over)."""
        return self.log.finish(self.eng, self.state)


__all__ = ["HUMAN", "Session"]
