"""Play one hand of the reference game between two random teams and print it.

    python -m shengji_env.demo [--seed N] [--decks 1|2]

Every seat picks uniformly among its legal actions (one seeded ``numpy`` Generator), so the play
is silly but always legal. Cards are printed in RULES.md §1.2 notation (``cards.format``).
"""

from __future__ import annotations

import argparse

import numpy as np

from . import cards
from .rules import Rules, seats
from .rules import declare as declare_rules
from .rules.actions import END, Phase
from .rules.game import Game

SEAT_NAMES = ("N", "W", "S", "E")  # RULES.md §1.3: seat 0 = North, 1 = West, ...


def seat(i: int) -> str:
    return f"seat {i} ({SEAT_NAMES[i]})"


def trump_name(trump: int) -> str:
    return "NT (no trump)" if trump == 4 else cards.SUITS[trump]


def describe_outcome(g: Game) -> str:
    o, dealer_team = g.outcome, seats.team(g.dealer)
    if o.attackers_take_over:
        gain = f"and go up {o.attackers_gain} level(s)" if o.attackers_gain else "(no level gain)"
        return f"attackers (team {1 - dealer_team}) take over {gain}"
    return f"dealer side (team {dealer_team}) holds and goes up {o.dealer_side_gain} level(s)"


def play_hand(seed: int, decks: int) -> Game:
    cfg = Rules(decks=decks)
    g = Game(cfg, seed)
    rng = np.random.default_rng(seed)
    print(f"Shengji demo: {decks} deck(s), seed {seed}, both teams at level "
          f"{cards.RANKS[g.level]}; seat {g.first_drawer} draws first. Random play on both sides.")
    print("\n-- Deal and declarations --")
    announced_bury = announced_play = False
    while not g.done:
        if g.phase == Phase.BURY and not announced_bury:
            announced_bury = True
            print(f"\nDealer {seat(g.dealer)}, trump {trump_name(g.trump)}, level "
                  f"{cards.RANKS[g.level]}; attackers are team {g.attackers} "
                  f"(seats {g.attackers} and {g.attackers + 2}).")
            print(f"Dealer picks up the kitty: {cards.format(g.picked_up)}")
        if g.phase == Phase.PLAY and not announced_play:
            announced_play = True
            print(f"Dealer buries:             {cards.format(g.kitty)} "
                  f"({cards.points(g.kitty)} points)")
            print("\n-- Tricks --")
        phase, who, selection = g.phase, g.to_act, g.selection.copy()
        tricks_before, penalty_before = g.tricks_done, g.penalty
        action = int(rng.choice(g.legal_actions()))
        g.step(action)
        if phase == Phase.DECLARE and action >= declare_rules.DECLARE_BASE:
            decl = declare_rules.action_declaration(action, who, g.cfg)
            when = f"after card {g.dealt}" if g.dealt < 4 * g.hand_size else "after the deal"
            print(f"  {when:>16}: {seat(who)} shows {cards.format(decl.cards(g.level))} "
                  f"-> proposes trump {trump_name(decl.trump)}")
        if phase == Phase.PLAY and action == END:
            fine = g.penalty - penalty_before
            failed = (f"  {seat(who)} tries to throw {cards.format(selection)} -- it fails"
                      + (f" (penalty {fine:+d} to the attackers' score)" if fine else ""))
            if g.phase == Phase.CHOOSE:
                print(f"{failed}; {seat(g.to_act)} chooses the unit to be led")
            elif not np.array_equal(g.trick[who], selection):
                print(f"{failed} and must lead {cards.format(g.trick[who])}")
        if phase == Phase.CHOOSE:
            print(f"  {seat(who)} chose: {seat(g.leader)} leads {cards.format(g.trick[g.leader])}")
        if g.tricks_done > tricks_before:
            leader, plays, winner = g.last_trick
            pts = sum(cards.points(p) for p in plays)
            shown = " | ".join(f"{(leader + i) % 4}: {cards.format(p)}"
                               for i, p in enumerate(plays))
            side = "attackers" if seats.team(winner) == g.attackers else "dealer side"
            print(f"  {g.tricks_done:2d}. {shown}  => seat {winner} wins {pts} pts ({side})")
    return g


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the players")
    parser.add_argument("--decks", type=int, choices=(1, 2), default=2, help="number of decks")
    args = parser.parse_args(argv)
    g = play_hand(args.seed, args.decks)
    print("\n-- Result --")
    print(f"Attackers captured {g.captured} points in tricks")
    print(f"Kitty bonus: {g.kitty_bonus}" + ("" if g.kitty_bonus else
          " (the dealer side won the last trick, or the kitty held no points)"))
    if g.penalty:
        print(f"Throw penalties: {g.penalty:+d}")
    print(f"Attackers' total: {g.attacker_points} of {g.cfg.total_points}")
    print(f"Outcome: {describe_outcome(g)}")
    print(f"Levels now: team 0 at {cards.RANKS[g.levels[0]]}, team 1 at "
          f"{cards.RANKS[g.levels[1]]}; next dealer: {seat(g.next_dealer)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
