"""Play Shengji in the terminal: you hold one seat, agents hold the others.

    shengji-play [--seed N] [--decks 1-4] [--seat 0-3] [--match] [--no-color]
                 [--partner AGENT] [--opponents AGENT]
    python -m shengji_env.play ...       (the same table with random agents only)

``AGENT`` is ``random`` (default), ``heuristic``, ``module:attr`` or a trained checkpoint —
any spec ``shengji-eval`` accepts. Agents live above this package (imports flow cards → rules
→ core → env → agents), so ``main`` takes them through ``resolve_agent``, passed in by the
``shengji-play`` entry point (``agents.play_cli``); without it only ``random`` is known.

Type cards in RULES.md §1.2 notation: ``H:A A`` plays (or, when leading, leads) the pair of
hearts aces; ``S:K, Jk:BJ`` selects several suits. A lead is ended for you once the typed
cards are selected; type ``end`` yourself to stop earlier. During the deal type ``pass`` or a
declaration as listed (``declare 1x H``); ``help`` lists your legal moves, ``quit`` leaves.
Invalid input is explained and asked again — it never ends the game.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import cards
from .core.engine import Engine
from .render import SEAT_NAMES, render_state
from .rules.actions import END, PASS, Phase, describe_action
from .rules.config import Rules
from .rules.seats import partner


def move_text(action: int, cfg) -> str:
    """How a person types action ``action`` (cards in RULES.md notation)."""
    if action < 54:
        name = cards.name(action)
        return f"Jk:{name}" if action >= cards.LJ else name
    return describe_action(action, cfg)


class Table:
    """One game of the engine with a person at ``seat`` and ``agents`` (a ``Policy`` per
    seat, ``None`` for uniform random play) elsewhere."""

    def __init__(self, cfg: Rules, seed: int, seat: int, episode: str, color: bool,
                 debug_legal: bool, out=sys.stdout, agents=None):
        self.eng = Engine(cfg, 1, seed, episode=episode)
        self.state = self.eng.reset()
        self.cfg, self.seat, self.color = cfg, seat, color
        self.debug_legal, self.out = debug_legal, out
        self.rng = np.random.default_rng([seed, 7])
        self.total = np.zeros(4, dtype=np.float32)  # rewards per seat over the episode
        self.agents = agents or [None] * 4

    def say(self, text: str = ""):
        print(text, file=self.out, flush=True)

    def legal(self) -> np.ndarray:
        return np.flatnonzero(self.eng.legal_mask(self.state)[0])

    def apply(self, action: int) -> np.ndarray:
        self.state, rewards, _ = self.eng.step(self.state, np.array([action]))
        self.total += rewards[0]
        return rewards[0]

    def others_move(self):
        while not self.state.done[0] and int(self.state.to_act[0]) != self.seat:
            who = int(self.state.to_act[0])
            agent = self.agents[who]
            if agent is None:
                a = int(self.rng.choice(self.legal()))
            else:
                obs = {"observation": self.eng.observe(self.state)[0],
                       "action_mask": self.eng.legal_mask(self.state)[0].astype(np.int8)}
                a = int(agent.act(obs, self.rng))
            phase = Phase(int(self.state.phase[0]))
            self.apply(a)
            if a >= PASS and a != END and phase == Phase.DECLARE:
                self.say(f"  seat {who} ({SEAT_NAMES[who]}): {describe_action(a, self.cfg)}")

    def human_turn(self, read) -> bool:
        """Ask the person until one valid move was applied; False if they quit."""
        legal = self.legal()
        self.say()
        self.say(render_state(self.eng, self.state, 0, seat=self.seat, color=self.color))
        if self.debug_legal:
            self.say("LEGAL: " + " | ".join(move_text(int(a), self.cfg) for a in legal))
        while True:
            try:
                text = read("your move> ").strip()
            except EOFError:
                return False
            result = self.interpret(text, legal)
            if result is True or result is False:
                return result
            self.say(result)

    def interpret(self, text: str, legal: np.ndarray):
        """Apply ``text`` if valid (returns True), ``False`` to quit, else an explanation."""
        low = text.lower()
        named = {describe_action(int(a), self.cfg).lower(): int(a) for a in legal if a >= PASS}
        named |= {k.removeprefix("declare "): v for k, v in named.items()}
        if low in ("quit", "exit", "q"):
            return False
        if low in ("help", "?", ""):
            return "legal now: " + ", ".join(move_text(int(a), self.cfg) for a in legal)
        if low in named:
            self.apply(named[low])
            return True
        if ":" not in text:
            return (f"could not read {text!r}: type cards like 'H:A A' or 'Jk:BJ', or one of: "
                    + (", ".join(sorted(named)) or "(no named moves now)") + "; 'help' lists all")
        try:
            chosen = cards.parse(text, self.cfg.decks)
        except ValueError as err:
            return f"could not read {text!r}: {err}"
        missing = chosen > self.state.hands[0, self.seat] - self.state.selection[0]
        if missing.any():
            return f"you do not hold {cards.format(np.where(missing, chosen, 0))}"
        if not (self.legal() < 54).any():
            return "no card can be played now; legal: " + ", ".join(
                move_text(int(a), self.cfg) for a in self.legal())
        leading = END in self.legal() or int(self.state.in_trick[0]) == 0
        tricks = int(self.state.tricks_done[0])
        for c in cards.to_ids(chosen):
            mask = self.eng.legal_mask(self.state)[0]
            if not mask[c]:
                sel = cards.format(self.state.selection[0]) or "nothing"
                ok = ", ".join(move_text(int(a), self.cfg) for a in np.flatnonzero(mask))
                applied = "" if sel == "nothing" else f" (selected so far: {sel})"
                return (f"{cards.name(c)} cannot be added now{applied}; "
                        f"legal next: {ok} (RULES.md §7-8)")
            self.apply(c)
            if self.state.done[0] or int(self.state.to_act[0]) != self.seat or \
                    int(self.state.tricks_done[0]) != tricks:
                return True
        if leading and self.eng.legal_mask(self.state)[0][END] and \
                int(self.state.phase[0]) == Phase.PLAY:
            self.apply(END)
        return True


def main(argv=None, resolve_agent=None) -> int:
    """Terminal play. ``resolve_agent(spec, rules) -> Policy`` turns an ``AGENT`` spec into a
    policy (it raises ``ValueError`` for a spec it does not know); ``None``: random only."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    parser.add_argument("--decks", type=int, choices=(1, 2, 3, 4), default=2, help="card decks")
    parser.add_argument("--seat", type=int, choices=range(4), default=0, help="your seat")
    parser.add_argument("--match", action="store_true", help="play a match, not one hand")
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.add_argument("--partner", default="random", metavar="AGENT",
                        help="your partner: random, heuristic, module:attr or a checkpoint")
    parser.add_argument("--opponents", default="random", metavar="AGENT",
                        help="both opponents (same choices)")
    parser.add_argument("--debug-legal", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cfg = Rules(decks=args.decks)
    color = not args.no_color and sys.stdout.isatty()
    agents = [None] * 4
    for who, spec in ((2, args.partner), (1, args.opponents), (3, args.opponents)):
        if spec == "random":
            continue
        if resolve_agent is None:
            parser.error(f"agent {spec!r}: python -m shengji_env.play knows only 'random'; "
                         "run shengji-play (or python -m agents.play_cli) for other agents")
        try:
            agents[(args.seat + who) % 4] = resolve_agent(spec, cfg)
        except ValueError as e:
            parser.error(str(e))
    t = Table(cfg, args.seed, args.seat, "match" if args.match else "hand", color,
              args.debug_legal, agents=agents)
    t.say(f"Shengji: you are seat {args.seat} ({SEAT_NAMES[args.seat]}); your partner is seat "
          f"{partner(args.seat)}. Type 'help' for your legal moves, 'quit' to leave.")
    while not t.state.done[0]:
        t.others_move()
        if t.state.done[0]:
            break
        if not t.human_turn(input_fn):
            t.say("bye")
            return 0
    t.say()
    t.say(render_state(t.eng, t.state, 0, color=color))
    mine = float(t.total[args.seat])
    verdict = "your team wins" if mine > 0 else "your team loses"
    t.say(f"GAME OVER: {verdict} (reward {mine:+g} for your team)")
    return 0


def input_fn(prompt: str) -> str:
    return input(prompt)


if __name__ == "__main__":
    raise SystemExit(main())
