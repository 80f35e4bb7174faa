"""Game logs: one played episode as a JSON file, enough to replay it exactly.

    log = GameLog.from_state(eng, state, agents=["you", "heuristic", "random", "heuristic"])
    path = log.save("games/")                     # games/<time>-seed<N>.json
    log = GameLog.load(path)
    for step in replay(log):                      # ReplayStep(before, seat, action, after, events)
        ...

The file (``FORMAT``, ``VERSION`` 1) holds:

==============  ==============================================================================
key             meaning
==============  ==============================================================================
format          ``"shengji-game-log"``
version         ``1``; readers refuse other versions
rules           every ``Rules`` option (``vars(Rules)``; tuples as lists)
engine          ``Engine`` options: ``episode`` (hand/match), ``reward``, ``levels``
                (``[0, 0]`` = both at 2, or ``"random"``), ``dealer`` (null, a seat or
                ``"random"``)
seed            the game's seed (``Engine.reset(seeds=[seed])``)
given_deck      true: the first hand was dealt from ``deck`` (duplicate deals); false: shuffled
                from the seed
deck            dealing order of the first hand (card ids, ``54·decks``)
first_drawer    seat that drew the first card of the first hand
levels          the teams' starting levels (rank indices 0-12: 0 = 2 … 12 = A)
agents          the four seats' agent specs (``"human"`` for a person)
decisions       every decision as ``[seat, action]`` (action ids: ``rules.actions``; forced
                ones too; ``[-1, -1]`` marks a redeal)
result          ``attacker_points``, ``outcome`` (dealer side gain, take over, attackers gain),
                ``team_levels`` and ``winner_team`` after the episode (null if unfinished)
==============  ==============================================================================

``replay`` plays the decisions through a fresh ``Engine`` and checks that the deck it deals is
the recorded one, so a log written by an older engine fails loudly instead of drifting.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .cards import is_int
from .core.engine import Engine
from .events import Event, explain
from .rules.config import Rules

FORMAT = "shengji-game-log"
VERSION = 1


@dataclass
class GameLog:
    """One episode; fields as the module table."""

    rules: dict
    engine: dict
    seed: int
    given_deck: bool
    deck: list
    first_drawer: int
    levels: list
    agents: list
    decisions: list
    result: dict | None = None
    version: int = VERSION
    extra: dict = field(default_factory=dict)

    @classmethod
    def start(cls, eng: Engine, state, agents, seed: int, given_deck: bool = False,
              g: int = 0) -> GameLog:
        """The log of game ``g`` just after ``eng.reset`` (decisions are added by
        ``record`` or taken at the end by ``finish``)."""
        return cls(rules=rules_dict(eng.cfg),
                   engine={"episode": eng.episode, "reward": eng.reward,
                           "levels": list(eng.levels) if eng.levels != "random" else "random",
                           "dealer": eng.dealer},
                   seed=int(seed), given_deck=bool(given_deck),
                   deck=[int(c) for c in state.deck[g]], first_drawer=int(state.first_drawer[g]),
                   levels=[int(x) for x in state.team_levels[g]], agents=[str(a) for a in agents],
                   decisions=[])

    def finish(self, eng: Engine, state, g: int = 0) -> GameLog:
        """Take game ``g``'s decision log and result from ``state``; returns ``self``."""
        self.decisions = [[int(p), int(a)] for p, a in eng.game_log(state, g)]
        self.result = None if not state.done[g] else {
            "attacker_points": int(state.attacker_points[g]),
            "outcome": [int(x) for x in state.outcome[g]],
            "team_levels": [int(x) for x in state.team_levels[g]],
            "winner_team": int(state.winner_team[g])}
        return self

    @classmethod
    def from_state(cls, eng: Engine, state, agents, seed: int, given_deck: bool = False,
                   g: int = 0) -> GameLog:
        """The log of a finished (or unfinished) game ``g``, its first deal from ``replay``'s
        start (the current deck is the last hand's in match mode: use ``start`` early)."""
        log = cls.start(eng, state, agents, seed, given_deck, g)
        if eng.episode == "match" or state.history[g]:
            first = _engine(log).reset(seeds=[int(seed)])
            log.deck = [int(c) for c in first.deck[0]]
            log.first_drawer = int(first.first_drawer[0])
        return log.finish(eng, state, g)

    @classmethod
    def from_game(cls, game, agents) -> GameLog:
        """The log of a first hand of the reference ``rules.Game`` dealt from a given deck (as
        ``shengji-eval`` plays them): replayed by the engine with the same deck."""
        o = game.outcome
        return cls(rules=rules_dict(game.cfg),
                   engine={"episode": "hand", "reward": "levels", "levels": [0, 0],
                           "dealer": None},
                   seed=0, given_deck=True, deck=[int(c) for c in game.deck],
                   first_drawer=int(game.first_drawer), levels=[0, 0],
                   agents=[str(a) for a in agents],
                   decisions=[[int(p), int(a)] for p, a in game.log],
                   result=None if o is None else {
                       "attacker_points": int(game.attacker_points),
                       "outcome": [int(o.dealer_side_gain), int(o.attackers_take_over),
                                   int(o.attackers_gain)],
                       "team_levels": [int(x) for x in game.levels],
                       "winner_team": -1 if game.winner_team is None else int(game.winner_team)})

    def to_json(self) -> dict:
        out = {"format": FORMAT, **dataclasses.asdict(self)}
        if not out["extra"]:
            del out["extra"]
        return out

    def save(self, folder: str | Path, name: str | None = None) -> Path:
        """Write ``folder/name`` (default ``<time>-seed<N>.json``, never overwriting)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        stem = name or time.strftime("%Y%m%d-%H%M%S") + f"-seed{self.seed}"
        path, k = folder / f"{stem}.json", 1
        while path.exists():
            k += 1
            path = folder / f"{stem}-{k}.json"
        path.write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n")
        return path

    @classmethod
    def from_json(cls, d: dict) -> GameLog:
        """Check and read a parsed file; ``ValueError`` names what is wrong."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"not a game log: expected \"format\": \"{FORMAT}\"")
        if d.get("version") != VERSION:
            raise ValueError(f"game log version {d.get('version')!r}; this reader knows {VERSION}")
        names = {f.name for f in dataclasses.fields(cls)}
        missing = sorted(names - set(d) - {"result", "extra", "version"})
        if missing:
            raise ValueError(f"game log lacks {', '.join(missing)}")
        for key, ok, allowed in _FIELDS:  # a wrong type failed deep in replay, unnamed
            if key in d and not ok(d[key]):
                shown = repr(d[key])
                raise ValueError(f"game log field {key}="
                                 f"{shown if len(shown) <= 60 else shown[:57] + '...'}: "
                                 f"expected {allowed}")
        return cls(**{k: v for k, v in d.items() if k in names})

    @classmethod
    def load(cls, path: str | Path) -> GameLog:
        """Read a file written by ``save``; ``ValueError`` naming the file if it is not one."""
        with open(path, "rb") as f:
            raw = f.read()
        try:
            return cls.from_json(json.loads(raw))
        except (ValueError, RecursionError) as e:  # JSON and UTF-8 errors are ValueErrors
            raise ValueError(f"{path} is not a readable game log: {e}") from None


#: (field, check, what is allowed) of a parsed game log; the values themselves are checked by
#: the engine when the log is replayed
_FIELDS = [
    ("rules", lambda v: isinstance(v, dict), "an object of rules options"),
    ("engine", lambda v: isinstance(v, dict) and {"episode", "reward", "levels", "dealer"} <= set(v),
     "an object with episode, reward, levels and dealer"),
    ("seed", is_int, "an int"),
    ("given_deck", lambda v: isinstance(v, bool), "true or false"),
    ("deck", lambda v: isinstance(v, list) and all(is_int(c) for c in v), "a list of card ids"),
    ("first_drawer", is_int, "a seat 0-3"),
    ("levels", lambda v: isinstance(v, list) and all(is_int(x) for x in v), "a list of ints"),
    ("agents", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
     "a list of agent names"),
    ("decisions", lambda v: isinstance(v, list) and all(
        isinstance(x, list) and len(x) == 2 and is_int(x[0]) and is_int(x[1]) for x in v),
     "a list of [seat, action id] pairs of ints"),
    ("result", lambda v: v is None or isinstance(v, dict), "null or an object"),
    ("extra", lambda v: isinstance(v, dict), "an object"),
]


def rules_dict(rules: Rules) -> dict:
    """Every option of ``rules`` as JSON-ready values."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in vars(rules).items()}


def rules_from_dict(d: dict) -> Rules:
    return Rules(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


def _engine(log: GameLog) -> Engine:
    e = log.engine
    levels = e["levels"] if e["levels"] == "random" else tuple(e["levels"])
    return Engine(rules_from_dict(log.rules), 1, log.seed, episode=e["episode"],
                  reward=e["reward"], levels=levels, dealer=e["dealer"])


@dataclass
class ReplayStep:
    """One decision of a replay: the state ``before`` it (a snapshot), who took which
    ``action``, the state ``after`` (a snapshot) and the ``events`` it caused."""

    before: object
    seat: int
    action: int
    after: object
    events: list[Event]


def replay(log: GameLog) -> tuple[Engine, object, Iterator[ReplayStep]]:
    """``(engine, initial state, steps)`` of a logged game; ``ValueError`` if the engine deals
    another deck than the log records."""
    eng = _engine(log)
    if log.given_deck:
        s = eng.reset(seeds=[log.seed], decks=np.array([log.deck]),
                      first_drawers=np.array([log.first_drawer]))
    else:
        s = eng.reset(seeds=[log.seed])
    if [int(c) for c in s.deck[0]] != list(log.deck):
        raise ValueError("this engine deals another deck for the logged seed: the log comes from "
                         "an incompatible version")

    def steps():
        state = s.copy()
        for seat, action in log.decisions:
            if seat < 0:  # a redeal marker; the engine redeals by itself
                continue
            if int(state.to_act[0]) != seat:
                raise ValueError(f"the log says seat {seat} acts, the engine expects seat "
                                 f"{int(state.to_act[0])}")
            before = state.copy()
            state, _, _ = eng.step(state, np.array([action]))
            yield ReplayStep(before, seat, action, state.copy(), explain(eng, before, action, state))

    return eng, s, steps()


__all__ = ["FORMAT", "VERSION", "GameLog", "ReplayStep", "replay", "rules_dict",
           "rules_from_dict"]
