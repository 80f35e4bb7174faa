"""A readable table view of one game: trump, level, points, whose turn, the current trick, and
every hand grouped by effective suit in trump order (off-suits high → low, then trump high → low,
as ``rules.canonical_order``). ``color=True`` adds ANSI colours for terminals; plain for logs.

    print(render_state(engine, state, g=0))                 # every hand shown (a spectator)
    print(render_state(engine, state, g=0, seat=0))         # only seat 0's hand (a player)
"""

from __future__ import annotations

import numpy as np

from . import cards
from .events import SEAT_WORDS, seat_word, team_word, trump_word
from .rules.actions import Phase
from .rules.order import NT, TRUMP, TrumpContext, canonical_order

SEAT_NAMES = ("N", "W", "S", "E")  # RULES.md §1.3
RED, BOLD, DIM, RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"


def _card(c: int, color: bool, full: bool) -> str:
    # off-suit groups are labelled by their suit, so the rank suffices; trump mixes suits
    text = cards.name(c) if full else cards.name(c).split(":")[-1]
    if color and (c == cards.BJ or (c < 52 and cards.SUITS[c // 13] in "HD")):
        return f"{RED}{text}{RESET}"
    return text


def suit_groups(counts: np.ndarray, level: int, trump: int,
                always_trump_two: bool = False) -> list[tuple[str, list[int]]]:
    """``[(suit label, [card ids…]), …]`` for a count vector ``uint8[54]``: one id per copy, by
    effective suit in trump order (trump last). ``trump`` -1 (not decided yet) groups as under
    no-trump: level cards and jokers as trump."""
    t = NT if trump < 0 else int(trump)
    ctx = TrumpContext(level=int(level), trump=t, always_trump_two=always_trump_two)
    groups: dict[int, list[int]] = {}
    for c in canonical_order(int(level), t, always_trump_two):
        n = int(counts[c])
        if n:
            groups.setdefault(int(ctx.effective_suits[c]), []).extend([int(c)] * n)
    label = {e: cards.SUITS[e] for e in range(4)} | {TRUMP: "trump"}
    return [(label[e], ids) for e, ids in groups.items()]


def group_by_suit(counts: np.ndarray, level: int, trump: int, always_trump_two: bool = False,
                  color: bool = False) -> list[tuple[str, str]]:
    """``[(suit label, "A A K …"), …]`` for a count vector ``uint8[54]``, in trump order."""
    return [(name, " ".join(_card(c, color, name == "trump") for c in ids))
            for name, ids in suit_groups(counts, level, trump, always_trump_two)]


def format_hand(counts, level, trump, always_trump_two=False, color=False) -> str:
    """One line: ``S: A K 7 | H: … | trump: BJ LJ …`` (``-`` for an empty hand)."""
    parts = [f"{k}: {v}" for k, v in group_by_suit(counts, level, trump, always_trump_two, color)]
    return " | ".join(parts) or "-"


def render_state(eng, s, g: int = 0, seat: int | None = None, color: bool = False,
                 won: np.ndarray | None = None) -> str:
    """Text table of game ``g`` of a ``BatchState`` ``s`` run by engine ``eng``.

    ``seat``: show only that seat's hand (what a player may see); ``None`` shows all four.
    ``won``: ``int[4]`` tricks won by each seat this hand (``events.tricks_won``), shown as the
    tricks won by the viewer's team (find-friends: side, once known); ``None``: not shown.
    """
    cfg = eng.cfg
    b = (lambda x: f"{BOLD}{x}{RESET}") if color else (lambda x: x)
    phase = Phase(int(s.phase[g]))
    level, trump, dealer = int(s.level[g]), int(s.trump[g]), int(s.dealer[g])
    to_act = int(s.to_act[g])
    dealer_txt = "undecided" if dealer < 0 else seat_word(dealer, seat)
    turn = "-" if to_act < 0 else seat_word(to_act, seat)
    lines = [b(f"Shengji  phase {phase.name}  level {cards.RANKS[level]}  trump "
               f"{trump_word(trump)}  dealer {dealer_txt}")]
    friends = eng.find_friend
    if friends:  # find-friends: the sides are per hand and hidden until the friend is revealed
        lines.append(f"attackers' points {_public_points(s, g, seat)}  "
                     f"{_tricks_text(s, g, seat, won, True)}  {_seat_levels(s, g, seat)}  "
                     f"to act: {turn}")
        lines += _friend_lines(s, g, seat)
    else:
        levels = ", ".join(f"{team_word(t, seat)} {cards.RANKS[int(s.team_levels[g, t])]}"
                           for t in (0, 1))
        attackers = "undecided" if dealer < 0 else team_word(1 - dealer % 2, seat)
        lines.append(f"attackers {attackers}: {int(s.captured[g]) + int(s.penalty[g])} points  "
                     f"{_tricks_text(s, g, seat, won, False)}  levels: {levels}  to act: {turn}")
    if phase == Phase.DECLARE:
        lines.append(f"cards dealt {int(s.dealt[g])}/{4 * cfg.hand_size}")
    if int(s.decl_player[g]) >= 0:
        shown = s.shown[g, int(s.decl_player[g])]
        lines.append(f"declaration: {seat_word(int(s.decl_player[g]), seat)} shows "
                     f"{cards.format(shown)}")
    if int(s.in_trick[g]):
        leader = int(s.leader[g])
        plays = [f"{SEAT_WORDS[(leader + i) % 4]} {cards.format(s.trick[g, (leader + i) % 4])}"
                 for i in range(int(s.in_trick[g]))]
        lines.append("trick: " + " | ".join(plays))
    if int(s.last_lead[g].sum()) and int(s.tricks_done[g]):
        lines.append(f"last trick won by {seat_word(int(s.last_winner[g]), seat)}")
    seats = range(4) if seat is None else [seat]
    for i in seats:
        mark = "*" if i == to_act else " "
        hand = format_hand(s.hands[g, i], level, trump, cfg.always_trump_two, color)
        lines.append(f"{mark}{i} {SEAT_WORDS[i]:<5}  {hand}")
    if to_act >= 0 and int(s.selection[g].sum()) and (seat is None or seat == to_act):
        lines.append(f"selection: {cards.format(s.selection[g])}")
    if phase == Phase.OVER and friends:
        side = ", ".join(str(x) for x in np.flatnonzero(s.dealer_side[g]))
        lines.append(f"hand over: attackers {int(s.attacker_points[g])} points; dealer side: "
                     f"seats {side}; {_seat_levels(s, g, seat)}")
    elif phase == Phase.OVER:
        lines.append(f"hand over: attackers {int(s.attacker_points[g])} points; levels: {levels}")
    return "\n".join(lines)


def _seat_levels(s, g, seat=None) -> str:
    """Find-friends: each player's own level (RULES.md §10.6), the viewer marked "(you)"."""
    return "levels: " + ", ".join(f"{seat_word(i, seat)} {cards.RANKS[int(x)]}"
                                  for i, x in enumerate(s.seat_levels[g]))


def _tricks_text(s, g, seat, won, friends: bool) -> str:
    """"tricks won: your team 3 of 7" — by the viewer's team (fixed partners), or side
    (find-friends, once the friend is revealed; before, the viewer's own tricks)."""
    played = int(s.tricks_done[g])
    if won is None:
        return f"tricks played {played}"
    if not played:  # a match's next hand: the previous hand's count is over
        won = np.zeros(4, dtype=np.int64)
    if seat is None:  # the whole table: per team or per seat
        if friends:
            return "tricks won: " + ", ".join(f"{SEAT_NAMES[i]} {int(won[i])}" for i in range(4)) \
                + f" of {played}"
        return f"tricks won: North-South {int(won[0] + won[2])}, West-East " \
               f"{int(won[1] + won[3])} of {played}"
    if not friends:
        return f"tricks won: your team {int(won[seat] + won[(seat + 2) % 4])} of {played}"
    known = int(s.friend_trick[g]) >= 0 or int(s.phase[g]) == Phase.OVER
    if known:
        mine = s.dealer_side[g] == s.dealer_side[g, seat]
        return f"tricks won: your side {int(won[mine].sum())} of {played}"
    return f"tricks won: you {int(won[seat])} of {played} (your side is not known yet)"


def _public_points(s, g, seat) -> int:
    """Find-friends: the whole table's view shows the true attackers' points; one seat's view
    the points won by seats not known to be on the dealer side (as its observation)."""
    if seat is None:
        return int(s.captured[g]) + int(s.penalty[g])
    shown = int(s.friend[g]) if s.friend_trick[g] >= 0 else -1
    public = [x for x in range(4) if x not in (int(s.dealer[g]), shown)]
    return int(s.points_won[g, public].sum()) + (int(s.penalty[g]) if shown >= 0 else 0)


def _friend_lines(s, g, seat) -> list[str]:
    """"friend card: H:A", "friend revealed: seat 2" (RULES.md §10.6); the hidden friend only
    in the whole table's view (``seat=None``)."""
    card = int(s.friend_card[g])
    if card < 0:
        return []
    lines = [f"friend card: {cards.name(card)}"]
    friend = int(s.friend[g])
    if s.friend_trick[g] >= 0:
        lines.append(f"friend revealed: seat {friend} ({SEAT_NAMES[friend]}) in trick "
                     f"{int(s.friend_trick[g]) + 1}")
    elif seat is None or s.phase[g] == Phase.OVER:
        hidden = "the dealer plays alone" if friend < 0 else f"seat {friend} ({SEAT_NAMES[friend]})"
        lines.append(f"friend (not revealed): {hidden}")
    else:
        lines.append("friend not revealed yet")
    return lines


__all__ = ["SEAT_NAMES", "format_hand", "group_by_suit", "render_state"]
