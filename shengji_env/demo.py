"""Play one hand between two random teams and print its story.

    python -m shengji_env.demo [--seed N] [--decks 1|2]

Every seat picks uniformly among its legal actions (``session.Session`` with no agents), so the
play is silly but always legal. The story is told by ``events.explain``, as at the terminal and
web tables: declarations, trump and dealer, the bury, failed throws, every trick, the result.
"""

from __future__ import annotations

import argparse

from . import cards
from .events import seat_word
from .rules import Rules
from .session import Session


def play_hand(seed: int, decks: int) -> Session:
    """Play and print one hand; returns the finished ``Session``."""
    sess = Session(Rules(decks=decks), seed)
    s = sess.state
    print(f"Shengji demo: {decks} deck(s), seed {seed}, both teams at level "
          f"{cards.RANKS[int(s.level[0])]}; {seat_word(int(s.first_drawer[0]))} draws first. "
          "Random play on both sides.")
    for ev in sess.run_agents():
        print(("  " if ev.kind in ("declare", "trick", "throw_failed", "choose") else "") + ev.text)
    return sess


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the players")
    parser.add_argument("--decks", type=int, choices=(1, 2), default=2, help="number of decks")
    args = parser.parse_args(argv)
    play_hand(args.seed, args.decks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
