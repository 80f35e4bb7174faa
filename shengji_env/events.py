"""What just happened, in words: one explainer for the terminal table, the web table, the
replay viewer and ``shengji_env.demo``.

    before = state.copy()
    state, _, _ = eng.step(state, np.array([action]))
    for ev in explain(eng, before, action, state, you=0):
        print(ev.text)          # "Trick 3: North S:A | West S:3 ... -> South wins, 10 points ..."
        ev.data                 # the same facts as JSON-ready numbers, for the web page

``explain`` compares the ``BatchState`` of one game (``g``) before and after one decision and
returns the ``Event``s it caused: a declaration, trump and dealer fixed, the bury, a failed throw
(who beat it: ``BatchState.throw_beater``) and the unit chosen, a finished trick (four plays,
winner, points carried), and the end of a hand (the kitty and its multiplier, the attackers'
total, level changes). Passes are not events.

Seats are named in words (``North`` …, RULES.md §1.3) and trump by its suit's name
(``hearts``), so a trump of spades never reads like the seat South; cards keep the §1.2
notation (``H:A``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import cards
from .rules import declare
from .rules.actions import DECLARE_BASE, END, Phase
from .rules.order import TRUMP, TRUMP_NAMES
from .rules.play import beats_unit, decompose, single_suit

SEAT_WORDS = ("North", "West", "South", "East")  # RULES.md §1.3: seat 0 = North
SUIT_WORDS = ("spades", "hearts", "clubs", "diamonds", "no trump")  # TRUMP_NAMES' order
TEAM_WORDS = ("North-South", "West-East")  # team 0 = seats 0, 2; team 1 = seats 1, 3


@dataclass(frozen=True)
class Event:
    """One thing that happened. ``kind``: ``declare``, ``redeal``, ``trump``, ``bury``,
    ``friend`` and ``friend_revealed`` (find-friends), ``throw_failed``, ``choose``, ``trick``,
    ``hand_over``; ``text``: a sentence; ``data``: its facts (ints, card-id lists ``list[int]``
    per seat), JSON-ready."""

    kind: str
    text: str
    data: dict = field(default_factory=dict)


def seat_word(seat: int, you: int | None = None) -> str:
    """``"South"``, or ``"South (you)"`` for the viewer's seat."""
    return SEAT_WORDS[seat] + (" (you)" if you is not None and seat == you else "")


def trump_word(trump: int) -> str:
    """``"hearts (H)"``, ``"no trump (NT)"``, ``"undecided"`` for -1."""
    return "undecided" if trump < 0 else f"{SUIT_WORDS[trump]} ({TRUMP_NAMES[trump]})"


def team_word(team: int, you: int | None = None) -> str:
    """``"North-South"``, or ``"North-South (your team)"``."""
    mine = you is not None and you % 2 == team
    return TEAM_WORDS[team] + (" (your team)" if mine else "")


def card_ids(counts: np.ndarray) -> list[int]:
    """A count vector ``uint8[54]`` as a sorted list of card ids, one per copy."""
    return [int(c) for c in cards.to_ids(counts)]


def _ctx(eng, s, g):
    return eng.tables.context(int(s.level[g]), int(s.trump[g]))


def explain(eng, before, action: int, after, g: int = 0, you: int | None = None) -> list[Event]:
    """The events of decision ``action`` taken in ``before`` (game ``g``) that led to
    ``after``; ``you``: the viewer's seat (named "you"; the bury is shown to its dealer)."""
    a = int(action)
    phase = int(before.phase[g])
    who = int(before.to_act[g])
    out: list[Event] = []
    if phase == Phase.DECLARE and a >= DECLARE_BASE:
        kind, suit, k = declare.declaration_actions(eng.cfg)[a - DECLARE_BASE]
        shown = after.shown[g, who]
        what = f"trump {SUIT_WORDS[suit]}" if kind == declare.LEVEL else "no trump"
        dealt = int(before.dealt[g])  # ``after`` has dealt on to the next decision
        window = int(before.window_seat[g]) >= 0  # the closing window after the deal (§4.2)
        rnd = deal_round(dealt, window)
        out.append(Event("declare", f"{seat_word(who, you)} declares {cards.format(shown)}: "
                         f"{what} (after card {dealt})",
                         {"seat": who, "cards": card_ids(shown), "dealt": dealt, "round": rnd,
                          "window": window}))
    if phase in (Phase.DECLARE, Phase.NAME):
        if int(after.phase[g]) == Phase.DECLARE and int(after.dealt[g]) < int(before.dealt[g]):
            out.append(Event("redeal", "Nobody declared: the cards are dealt again."))
        elif int(after.phase[g]) not in (Phase.DECLARE, Phase.NAME):
            out.append(_trump_fixed(eng, after, g, you))
    if phase == Phase.BURY and int(after.phase[g]) != Phase.BURY:
        dealer = int(before.dealer[g])
        shown = you is not None and you == dealer
        buried = after.kitty[g]
        text = (f"{seat_word(dealer, you)} buries {cards.format(buried)}" if shown else
                f"{seat_word(dealer, you)} buries {eng.cfg.kitty_size} cards")
        out.append(Event("bury", text, {"seat": dealer,
                                        "cards": card_ids(buried) if shown else []}))
    if phase == Phase.FRIEND:
        card = int(after.friend_card[g])
        text = (f"{seat_word(who, you)} names the friend card {cards.name(card)}: the first "
                "player after the dealer who holds a copy is the friend, known when he plays it "
                "(§10.6).")
        out.append(Event("friend", text, {"seat": who, "card": card}))
    # the friend shows himself by a play (PLAY) or by a failed throw's unit chosen (CHOOSE)
    if eng.find_friend and phase in (Phase.PLAY, Phase.CHOOSE) and \
            int(before.friend_trick[g]) < 0 and int(before.friend_card[g]) >= 0:
        out += _friend_events(before, a, after, g, you)
    if phase == Phase.PLAY and a == END:
        out += _throw_failed(eng, before, after, g, who, you)
    if phase == Phase.CHOOSE:
        leader = int(before.leader[g])
        lead = after.trick[g, leader]
        out.append(Event("choose", f"{seat_word(who, you)} chooses the unit: "
                         f"{seat_word(leader, you)} leads {cards.format(lead)}",
                         {"seat": who, "leader": leader, "cards": card_ids(lead)}))
    if _trick_ended(before, a, g):
        out.append(_trick(eng, before, a, after, g, you))
        if _hand_ended(before, a, after, g):
            out.append(_hand_over(eng, before, a, after, g, you))
    return out


def deal_round(dealt: int, window: bool = False) -> int:
    """The round of the deal (1, 2, …: four cards, one to each seat) in which a declaration
    made after card ``dealt`` falls; 0 for the closing window after the deal."""
    return 0 if window else (int(dealt) - 1) // 4 + 1


def round_line(events: list[Event]) -> str:
    """One line for the declarations of one round of the deal, e.g. ``"Deal round 12 (cards
    45-48): West declares S:2 (trump spades); East declares S:2 2 (trump spades)."``"""
    rnd = events[0].data["round"]
    where = ("After the deal" if rnd == 0 else
             f"Deal round {rnd} (cards {4 * rnd - 3}-{4 * rnd})")
    what = "; ".join(e.text.split(" (after card")[0].replace(": ", " (", 1) + ")"
                     for e in events)
    return f"{where}: {what}."


def group_rounds(events: list[Event]) -> list[Event]:
    """``events`` with the declarations of each round of the deal merged into one
    ``Event("declarations", round_line(...), {"round": r, "declarations": [data, …]})``."""
    out: list[Event] = []
    group: list[Event] = []

    def flush():
        if group:
            out.append(Event("declarations", round_line(group),
                             {"round": group[0].data["round"],
                              "declarations": [e.data for e in group]}))
            group.clear()

    for ev in events:
        if ev.kind == "declare":
            if group and ev.data["round"] != group[0].data["round"]:
                flush()
            group.append(ev)
            continue
        flush()
        out.append(ev)
    flush()
    return out


def deal_story(events: list[Event]) -> list[str]:
    """The events as lines, the declarations of each round of the deal in one line."""
    return [ev.text for ev in group_rounds(events)]


def tricks_won(events: list[Event]) -> np.ndarray:
    """``int[4]`` — tricks won by each seat in the last hand that has a trick (a ``hand_over``
    starts a new count at the next trick, so the finished hand's count stays until then)."""
    won = np.zeros(4, dtype=np.int64)
    over = False
    for ev in events:
        if ev.kind == "hand_over":
            over = True
        elif ev.kind == "trick":
            if over:
                won[:], over = 0, False
            won[ev.data["winner"]] += 1
    return won


def _trick_ended(before, a, g) -> bool:
    return int(before.phase[g]) == Phase.PLAY and a < 54 and int(before.in_trick[g]) == 3 and \
        int(before.selection[g].sum()) + 1 == int(before.lead_n[g])


def _hand_ended(before, a, after, g) -> bool:
    """The decision finished the hand (in match mode ``after`` already holds the next one)."""
    return _trick_ended(before, a, g) and (int(after.phase[g]) == Phase.OVER
                                           or int(after.tricks_done[g]) == 0)


def _side_words(side, you) -> str:
    return " and ".join(seat_word(int(x), you) for x in np.flatnonzero(side))


def _final_plays(before, a, g) -> np.ndarray:
    """``int16[4, 54]`` — the four plays of the trick that decision ``a`` completes."""
    plays = before.trick[g].astype(np.int16)
    last = int(before.to_act[g])
    plays[last] = before.selection[g]
    plays[last, a] += 1
    return plays


def _friend_events(before, a, after, g, you) -> list[Event]:
    """Find-friends (§10.6): the friend plays a copy of the friend card and the sides become
    known; or the hand ends with the friend never shown (or the dealer alone)."""
    dealer, friend = int(before.dealer[g]), int(before.friend[g])
    card = int(before.friend_card[g])
    ended = _hand_ended(before, a, after, g)
    if friend >= 0 and ended:  # match mode: ``after`` is the next hand already
        shown = bool(_final_plays(before, a, g)[friend, card] > 0)
    else:
        shown = friend >= 0 and int(after.friend_trick[g]) >= 0
    if not shown and not ended:
        return []
    side = before.dealer_side[g]
    name = cards.name(card)
    if shown:
        text = (f"{seat_word(friend, you)} plays {name}: the friend is revealed. Dealer side "
                f"{_side_words(side, you)}; attackers {_side_words(~side, you)}.")
    elif friend < 0:
        text = f"Nobody else could play {name}: {seat_word(dealer, you)} played alone, one against three."
    else:
        text = (f"The friend never played {name}: it was {seat_word(friend, you)}; dealer side "
                f"{_side_words(side, you)}.")
    return [Event("friend_revealed", text, {"dealer": dealer, "friend": friend, "shown": shown,
                                            "dealer_side": [bool(x) for x in side]})]


def _trump_fixed(eng, s, g, you) -> Event:
    dealer, trump, level = int(s.dealer[g]), int(s.trump[g]), int(s.level[g])
    attackers = -1 if eng.find_friend else 1 - dealer % 2
    text = (f"Trump {trump_word(trump)}, level {cards.RANKS[level]}; dealer "
            f"{seat_word(dealer, you)}; ")
    text += ("the dealer names a friend card after the bury; the sides are known when the "
             "friend plays it." if eng.find_friend else f"attackers {team_word(attackers, you)}.")
    return Event("trump", text, {"dealer": dealer, "trump": trump, "level": level,
                                 "attackers": attackers})


def _throw_failed(eng, before, after, g, leader, you) -> list[Event]:
    """END on a throw that another hand beats (§7.3-7.4): say whose cards beat it and what is
    led instead (or that the next player chooses)."""
    tried = before.selection[g]
    choosing = int(after.phase[g]) == Phase.CHOOSE
    led = after.trick[g, leader]
    if not choosing and np.array_equal(led, tried):
        return []
    beater = int(after.throw_beater[g])
    ctx = _ctx(eng, before, g)
    beating = _beating_cards(tried, before.hands[g, beater], ctx)
    fine = int(after.penalty[g]) - int(before.penalty[g])
    text = (f"{seat_word(leader, you)} tries to throw {cards.format(tried)}; the throw fails: "
            f"{seat_word(beater, you)} holds {beating}; ")
    if choosing:
        text += f"{seat_word((leader + 1) % 4, you)} chooses the unit to be led"
    else:
        text += f"{cards.format(led)} is led"
    if fine:
        text += f" (penalty: {fine:+d} to the attackers' points, §7.4.5)"
    return [Event("throw_failed", text + ".",
                  {"seat": leader, "tried": card_ids(tried), "beater": beater,
                   "led": [] if choosing else card_ids(led), "penalty": fine})]


def _beating_cards(throw, hand, ctx) -> str:
    """The beater's unit that beats one of the throw's units, in notation (its highest single
    or pair of the suit; a longer unit is named by its shape)."""
    suit = single_suit(throw, ctx)
    in_suit = ctx.effective_suits == suit
    order = ctx.order_indices
    for u in decompose(throw, ctx):
        if not beats_unit(hand, u, suit, ctx):
            continue
        if u.length == 1:
            held = np.flatnonzero((hand >= u.k) & in_suit)
            top = int(held[np.argmax(order[held])])
            return cards.format(cards.from_ids([top] * u.k, 4))
        return f"a higher tractor of {u.length} x {u.k} cards"
    return "a higher unit"


def _trick(eng, before, a, after, g, you) -> Event:
    leader = int(before.leader[g])
    plays = _final_plays(before, a, g)
    winner = int(after.last_winner[g])
    points = int(plays.sum(0) @ cards.POINTS)
    number = int(before.tricks_done[g]) + 1
    order = [(leader + i) % 4 for i in range(4)]
    shown = " | ".join(f"{SEAT_WORDS[p]} {cards.format(plays[p])}" for p in order)
    attackers_won = not bool(before.dealer_side[g, winner])
    # find-friends: a trick won by the hidden friend must not give him away (§10.6)
    hidden = eng.find_friend and winner != int(before.dealer[g]) and \
        int(after.friend_trick[g]) < 0 and not _hand_ended(before, a, after, g)
    if not points:
        carried = "no points"
    elif hidden:
        carried = f"{points} points (whose side is not known yet)"
    elif attackers_won:
        carried = f"{points} points to the attackers"
    else:
        carried = f"{points} points stay with the dealer side"
    text = f"Trick {number}: {shown} -> {seat_word(winner, you)} wins; {carried}."
    return Event("trick", text, {"number": number, "leader": leader, "winner": winner,
                                 "points": points,
                                 "attackers_won": None if hidden else attackers_won,
                                 "plays": [card_ids(plays[p].astype(np.uint8)) for p in range(4)]})


def _hand_over(eng, before, a, after, g, you) -> Event:
    """§10: the kitty and its multiplier, the attackers' total and the level change. In match
    mode ``after`` already holds the next hand; the finished hand's facts are the kept fields
    (``attacker_points``, ``outcome``, ``seat_levels``) and ``before``."""
    dealer = int(before.dealer[g])
    ff = eng.find_friend
    attackers = -1 if ff else 1 - dealer % 2
    side = before.dealer_side[g]  # find-friends: the sides are per hand (§10.6)
    attacker_words = _side_words(~side, you) if ff else team_word(attackers, you)
    dealer_words = _side_words(side, you) if ff else team_word(1 - attackers, you)
    total = int(after.attacker_points[g])
    penalty = int(before.penalty[g])
    kitty = before.kitty[g]
    kitty_points = int(kitty @ cards.POINTS)
    trick_points = total - penalty  # captured + kitty bonus
    last = _trick(eng, before, a, after, g, you)
    captured = int(before.captured[g]) + (last.data["points"] if last.data["attackers_won"] else 0)
    bonus = trick_points - captured
    lines = [f"Hand over. The kitty: {cards.format(kitty) or '-'} ({kitty_points} points)."]
    if bonus > 0:
        lines.append(f"The attackers won the last trick: the kitty counts x{bonus // kitty_points}"
                     f" = {bonus} points for them.")
    elif kitty_points:
        lines.append("The dealer side won the last trick: the kitty stays with them.")
    lines.append(f"The attackers, {attacker_words}, have {captured} from tricks + "
                 f"{bonus} kitty{f' {penalty:+d} penalties' if penalty else ''} = {total} of "
                 f"{eng.cfg.total_points} points.")
    dealer_gain, take, att_gain = (int(x) for x in after.outcome[g])
    if take:
        lines.append("The attackers take over" + (f" and go up {att_gain} level(s)." if att_gain
                                                  else " (no level gain)."))
    else:
        lines.append(f"The dealer side ({dealer_words}) holds and goes up "
                     f"{dealer_gain} level(s).")
    who = range(4) if ff else (0, 1)  # find-friends: levels per player; fixed: per team
    name = (lambda x: seat_word(x, you)) if ff else (lambda t: team_word(t, you))
    old = [int(before.seat_levels[g, t]) for t in who]
    new = [int(after.seat_levels[g, t]) for t in who]
    lines.append("Levels: " + ", ".join(
        f"{name(t)} {cards.RANKS[old[t]]}"
        + (f" -> {cards.RANKS[new[t]]}" if new[t] != old[t] else "") for t in who) + ".")
    winner = int(after.winner_team[g])
    if ff and after.winner_seats[g].any():
        lines.append(f"{_side_words(after.winner_seats[g], you)} pass A and win the match.")
    elif winner >= 0:
        lines.append(f"{team_word(winner, you)} passes A and wins the match.")
    elif int(after.phase[g]) != Phase.OVER:
        lines.append(f"Next hand: dealer {seat_word(int(after.dealer[g]), you)}.")
    return Event("hand_over", " ".join(lines),
                 {"kitty": card_ids(kitty), "kitty_points": kitty_points, "kitty_bonus": bonus,
                  "multiplier": bonus // kitty_points if bonus > 0 else 0,
                  "captured": captured, "penalty": penalty, "attacker_points": total,
                  "attackers": attackers, "dealer_side": [bool(x) for x in side],
                  "outcome": [dealer_gain, take, att_gain],
                  "levels_before": old, "levels_after": new, "winner_team": winner})


__all__ = ["SEAT_WORDS", "SUIT_WORDS", "TEAM_WORDS", "TRUMP", "Event", "card_ids", "deal_round",
           "deal_story", "explain", "group_rounds", "round_line", "seat_word", "team_word", "tricks_won",
           "trump_word"]
