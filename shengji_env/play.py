"""Play Shengji in the terminal: you hold one seat, agents hold the others.

    shengji-play [--seed N] [--decks 1-4] [--seat 0-3] [--match] [--no-color]
                 [--partner AGENT] [--opponents AGENT] [--save-games DIR] [--find-friends]
    python -m shengji_env.play ...       (the same table with random agents only)

``AGENT`` is ``random`` (default), ``heuristic``, ``module:attr`` or a trained checkpoint —
any spec ``shengji-eval`` accepts. Agents live above this package (imports flow cards → rules
→ core → env → agents), so ``main`` takes them through ``resolve_agent``, passed in by the
``shengji-play`` entry point (``agents.play_cli``); without it only ``random`` is known.

Every event is told as it happens (``shengji_env.events``): declarations, each finished trick
with its winner and points, a failed throw and whose cards beat it, the kitty at the end.
With ``--find-friends`` (RULES.md §10.6) the dealer names the friend card after the bury (type
the card, ``H:A``); ``--partner`` is then the seat opposite you, who may or may not become your
partner.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from . import cards
from .cli import OneLineParser
from .events import Event, deal_round, deal_story, round_line, seat_word, team_word, tricks_won
from .render import format_hand, render_state
from .rules.actions import END, PASS, Phase, action_layout, describe_action
from .rules.config import Rules
from .rules.seats import partner
from .session import Session

NOTATION = """\
How to type a move (cards in RULES.md §1.2 notation):
  H:A          the ace of hearts          (suits S H C D; ranks 2-10 J Q K A, T = 10)
  H:A A        the pair of hearts aces     S:K, Jk:BJ   several suits, comma separated
  Jk:BJ LJ     big and small joker
  Leading: type the whole lead ("S:A K Q" throws three spades); it is ended for you.
  Following or burying: type some or all cards; the prompt says how many are still needed.
  undo         take back the last card of an unfinished play     clear   take back all of it
  pass         no declaration now          declare 1x H   a declaration as listed by 'help'
  help         list your legal moves now   quit           leave the table
  H:A          find-friends, the dealer after the bury: names the friend card (RULES.md §10.6)
Typing the whole play again after a partial one replaces it."""


def move_text(action: int, cfg) -> str:
    """How a person types action ``action`` (cards in RULES.md notation)."""
    if action < 54:
        name = cards.name(action)
        return f"Jk:{name}" if action >= cards.LJ else name
    return describe_action(action, cfg)


def _contains(big: np.ndarray, small: np.ndarray) -> bool:
    return bool((big >= small).all())


class Table:
    """One game at the terminal: a ``Session`` with a person at ``seat`` and ``agents`` (a
    ``Policy`` per seat, ``None`` for uniform random play) elsewhere."""

    def __init__(self, cfg: Rules, seed: int, seat: int, episode: str, color: bool,
                 debug_legal: bool, out=None, agents=None, specs=None):
        self.sess = Session(cfg, seed, agents, human=seat, episode=episode, specs=specs)
        self.cfg, self.seat, self.color = cfg, seat, color
        self.debug_legal = debug_legal
        self.out = out if out is not None else sys.stdout  # looked up now: tests replace it
        self._round: list[Event] = []  # declarations of the deal round not yet told

    # the engine and state of the session (kept for callers of the older Table)
    @property
    def eng(self):
        return self.sess.eng

    @property
    def state(self):
        return self.sess.state

    @property
    def total(self):
        return self.sess.total

    def say(self, text: str = ""):
        print(text, file=self.out, flush=True)

    def tell(self, events: list[Event]):
        """Say what happened; the declarations of one round of the deal (four cards, one to
        each seat) are told together in one line once the round is over."""
        for ev in events:
            if ev.kind == "declare":
                if self._round and self._round[0].data["round"] != ev.data["round"]:
                    self.flush_round()
                self._round.append(ev)
                continue
            self.flush_round()
            self.say(ev.text)
        if self._round and self.sess.phase != Phase.DECLARE:
            self.flush_round()

    def flush_round(self, before_round: int | None = None):
        """Tell the buffered round of declarations, unless it is round ``before_round`` (when
        given): the round still being dealt waits until it is over (0: the closing window)."""
        if not self._round:
            return
        if before_round is not None and self._round[0].data["round"] == before_round:
            return
        self.say("  " + round_line(self._round))
        self._round = []

    def deal_prompt_line(self) -> str:
        """The person's turn during the deal in one line: the round, their hand, the standing
        declaration and what they may declare."""
        s, me = self.state, self.seat
        dealt = int(s.dealt[0])
        window = int(s.window_seat[0]) >= 0
        where = ("after the deal" if window else
                 f"deal round {deal_round(dealt)}, card {dealt}/{4 * self.cfg.hand_size}")
        hand = format_hand(s.hands[0, me], int(s.level[0]), int(s.trump[0]),
                           self.cfg.always_trump_two, self.color)
        decl = int(s.decl_player[0])
        standing = ("none yet" if decl < 0 else
                    f"{seat_word(decl, me)} {cards.format(s.shown[0, decl])}")
        options = ", ".join(move_text(int(a), self.cfg) for a in self.legal() if a != PASS)
        return (f"[{where}] your hand: {hand}  | declared: {standing}  | you may: "
                f"{options or '-'} or pass")

    def legal(self) -> np.ndarray:
        return self.sess.legal()

    def others_move(self):
        self.tell(self.sess.run_agents())

    def prompt(self) -> str:
        need, phase = self.sess.needed(), self.sess.phase
        if phase == Phase.BURY:
            return f"bury ({need} more card{'s' * (need != 1)})> "
        if need is not None:
            return f"your play ({need} more card{'s' * (need != 1)})> "
        if phase == Phase.PLAY:
            return "your lead> "
        if phase == Phase.DECLARE:
            return "your move (declare or pass)> "
        if phase == Phase.FRIEND:
            return "your move (name the friend card, e.g. H:A)> "
        if phase == Phase.CHOOSE:  # a failed throw (NEXT_PLAYER): which unit is led
            lay = action_layout(self.cfg)
            units = ", ".join(f"{describe_action(int(a), self.cfg)} = "
                              f"{cards.format(self.state.candidates[0, int(a) - lay.choose_base])}"
                              for a in self.legal())
            return f"your move (the unit to lead: {units})> "
        return "your move> "

    def human_turn(self, read) -> bool:
        """Ask the person until one complete move was applied; False if they quit."""
        if self.sess.phase == Phase.DECLARE:  # the deal: one line per round, not a table
            window = int(self.state.window_seat[0]) >= 0
            self.flush_round(deal_round(int(self.state.dealt[0]), window))
            self.say(self.deal_prompt_line())
        else:
            self.flush_round()
            self.say()
            self.say(render_state(self.eng, self.state, 0, seat=self.seat, color=self.color,
                                  won=tricks_won(self.sess.events)))
        while True:
            if self.sess.pending:
                self.say(f"selected so far: {cards.format(self.state.selection[0])}")
            if self.debug_legal:
                self.say("LEGAL: " + " | ".join(move_text(int(a), self.cfg) for a in self.legal()))
            try:
                text = read(self.prompt()).strip()
            except EOFError:
                return False
            result = self.interpret(text)
            if result is True or result is False:
                if result and self.sess.human_to_act and self.sess.pending:
                    continue  # a partial play: ask for the rest
                return result
            self.say(result)

    def interpret(self, text: str):
        """Apply ``text`` if valid (True), ``False`` to quit, else an explanation (str)."""
        sess, legal = self.sess, self.legal()
        low = text.lower()
        named = {describe_action(int(a), self.cfg).lower(): int(a) for a in legal if a >= PASS}
        named |= {k.removeprefix("declare "): v for k, v in named.items()}
        if low in ("quit", "exit", "q"):
            return False
        if low in ("help", "?", ""):
            return NOTATION + "\nlegal now: " + ", ".join(move_text(int(a), self.cfg)
                                                           for a in legal)
        if low in ("undo", "u", "clear"):
            if not (sess.undo() if low != "clear" else sess.clear()):
                return "nothing to take back: no card of this play is selected yet"
            return True
        if low in named:
            self.tell(sess.step(named[low]))
            return True
        if int(self.state.phase[0]) == Phase.FRIEND:  # "H:A" names the friend card
            named = {k.removeprefix("friend "): v for k, v in named.items()}
            if low in named:
                self.tell(sess.step(named[low]))
                return True
            return f"name the friend card as one card, e.g. 'H:A' (not {text!r})"
        if ":" not in text:
            return (f"could not read {text!r}: type cards like 'H:A A' or 'Jk:BJ', or one of: "
                    + (", ".join(sorted(named) + ["undo", "clear"]) or "(no named moves now)")
                    + "; 'help' explains")
        try:
            chosen = cards.parse(text, self.cfg.decks)
        except ValueError as err:
            return f"could not read {text!r}: {err}"
        if not (legal < 54).any():
            return "no card can be played now; legal: " + ", ".join(
                move_text(int(a), self.cfg) for a in legal)
        hand, sel = self.state.hands[0, self.seat], self.state.selection[0]
        if sess.pending and _contains(chosen, sel) and not _contains(hand - sel, chosen):
            sess.clear()  # the whole play typed again: it replaces the partial one
            sel = self.state.selection[0]
        missing = chosen > hand - sel
        if missing.any():
            return f"you do not hold {cards.format(np.where(missing, chosen, 0))}"
        return self._add_cards(chosen)

    def _add_cards(self, chosen: np.ndarray):
        """Add the typed cards one by one (a lead is then ended); on an illegal card, the cards
        of this input are taken back and the reason is returned."""
        sess = self.sess
        leading = sess.leading()
        added = 0
        for c in cards.to_ids(chosen):
            mask = sess.mask()
            if not mask[c]:
                for _ in range(added):
                    sess.undo()
                sel = cards.format(self.state.selection[0])
                ok = ", ".join(move_text(int(a), self.cfg) for a in np.flatnonzero(mask[:54]))
                kept = f" (selected: {sel})" if sel else ""
                return (f"{cards.name(c)} cannot be added now{kept}; legal next: {ok} "
                        "(RULES.md §7-8)")
            self.tell(sess.step(c))
            added += 1
            if not sess.human_to_act or not sess.pending:
                return True
        if leading and sess.mask()[END]:
            self.tell(sess.step(END))
        return True

    def story(self) -> str:
        """The hand's story for the end screen: the declarations (a line per round of the
        deal), trump, the friend card, every trick, failed throws, the result."""
        keep = ("declare", "redeal", "trump", "friend", "friend_revealed", "throw_failed",
                "choose", "trick", "hand_over")
        return "\n".join(deal_story([ev for ev in self.sess.events if ev.kind in keep]))


def main(argv=None, resolve_agent=None) -> int:
    """Terminal play. ``resolve_agent(spec, rules) -> Policy`` turns an ``AGENT`` spec into a
    policy (it raises ``ValueError`` for a spec it does not know); ``None``: random only."""
    parser = OneLineParser(prog="shengji-play", description=__doc__.splitlines()[0], epilog=NOTATION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    parser.add_argument("--decks", type=int, choices=(1, 2, 3, 4), default=2, help="card decks")
    parser.add_argument("--seat", type=int, choices=range(4), default=0,
                        help="your seat: 0 North, 1 West, 2 South, 3 East")
    parser.add_argument("--match", action="store_true", help="play a match, not one hand")
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.add_argument("--partner", default="random", metavar="AGENT",
                        help="your partner: random, heuristic, pimc, bot, module:attr or a "
                             "checkpoint")
    parser.add_argument("--opponents", default="random", metavar="AGENT",
                        help="both opponents (same choices)")
    parser.add_argument("--save-games", metavar="DIR",
                        help="write the game log (JSON, replayable in shengji-web) to DIR")
    parser.add_argument("--find-friends", action="store_true",
                        help="find-friends: the dealer names a friend card (RULES.md §10.6)")
    parser.add_argument("--debug-legal", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seed < 0:  # the engine's check, before it becomes a traceback
        parser.error(f"--seed {args.seed}: expected an int >= 0")
    if args.save_games is not None:  # checked now: the log is written after the whole hand
        where = Path(args.save_games)
        if not args.save_games.strip() or (where.exists() and not where.is_dir()):
            parser.error(f"--save-games {args.save_games!r}: expected a folder to write the game "
                         "log in" + (" (it is a file)" if where.is_file() else ""))
    cfg = Rules(decks=args.decks, partnership="FIND_FRIEND" if args.find_friends else "FIXED")
    color = not args.no_color and sys.stdout.isatty()
    agents, specs = [None] * 4, ["random"] * 4
    for who, spec in ((2, args.partner), (1, args.opponents), (3, args.opponents)):
        specs[(args.seat + who) % 4] = spec
        if spec == "random":
            continue
        if resolve_agent is None:
            parser.error(f"agent {spec!r}: python -m shengji_env.play knows only 'random'; "
                         "run shengji-play (or python -m agents.play_cli) for other agents")
        try:
            agents[(args.seat + who) % 4] = resolve_agent(spec, cfg)
        except ValueError as e:  # names the spec
            parser.error(str(e))
        except (TypeError, NotImplementedError, OSError) as e:  # e.g. os:system(rules)
            parser.error(f"agent {spec!r}: {e}")
    t = Table(cfg, args.seed, args.seat, "match" if args.match else "hand", color,
              args.debug_legal, agents=agents, specs=specs)
    me = args.seat
    if args.find_friends:
        t.say(f"Shengji (find-friends): you are {seat_word(me)} (seat {me}); the dealer names a "
              "friend card after the bury. Type 'help' for how to type moves, 'quit' to leave.")
    else:
        t.say(f"Shengji: you are {seat_word(me)} (seat {me}); your partner is "
              f"{seat_word(partner(me))}; your team is {team_word(me % 2)}. Type 'help' for how "
              "to type moves, 'quit' to leave.")
    try:
        finished = play_out(t)
    except KeyboardInterrupt:
        t.say("\ninterrupted; bye")
        finished = None
    if args.save_games:
        try:
            t.say(f"game log written to {t.sess.game_log().save(args.save_games)}")
        except OSError as e:  # e.g. no permission: one line, not a traceback after the hand
            print(f"shengji-play: could not write the game log: {e}", file=sys.stderr)
            return 2
    if finished is None:
        return 130
    if not finished:
        t.say("bye")
        return 0
    t.say()
    t.say("The hand's story:" if not args.match else "The match's story:")
    t.say(t.story())
    mine = float(t.total[me])
    who = "side" if args.find_friends else "team"
    verdict = f"your {who} wins" if mine > 0 else f"your {who} loses"
    t.say(f"GAME OVER: {verdict} (reward {mine:+g} for your {who})")
    return 0


def play_out(t: Table) -> bool:
    """Agents and the person take turns until the end (True) or the person quits (False)."""
    while not t.state.done[0]:
        t.others_move()
        if t.state.done[0]:
            break
        if not t.human_turn(input_fn):
            return False
    return True


def input_fn(prompt: str) -> str:
    return input(prompt)


if __name__ == "__main__":
    raise SystemExit(main())
