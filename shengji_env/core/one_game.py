"""Single-game fast paths of the PLAY phase (used when the batch holds one game, B = 1).

At B = 1 (the PettingZoo AEC env, the interactive ``play`` CLI) the vectorised functions of
``trick.py`` spend most of their time on numpy call overhead: fancy indexing with ``G``,
``(g, …)`` temporaries, reductions over axis 1 of one row. The functions here do the same work
for one game ``g`` with Python ints and one-dimensional rows. Each mirrors a vectorised
function and must agree with it exactly (``tests/test_engine_fastpath.py`` compares every
state field after every step of B = 1 games with the same games inside a batch).

Only the frequent work is duplicated: masks, adding a card, committing a follow, ending a
trick, committing a lead (one unit, or a throw of pairs and singles). The rare paths — throws
holding a tractor (with 3-4 decks a triple or quad), the next player's choice of a failed unit,
the end of a hand — call the vectorised functions with ``G = [g]``.

Micro-choices (for 54-element rows): ``np.count_nonzero`` instead of ``.any()`` / bool sums,
``.nonzero()[0]`` instead of ``np.flatnonzero``, ``sum(row.tolist())`` for small counts,
``a.item(g)`` instead of ``int(a[g])`` for a state scalar (no numpy scalar in between: ~85 ns
against ~200), ``tables.in_suit[ctx, suit]`` (~100 ns) instead of ``eff == suit`` (~600 ns).
"""

from __future__ import annotations

import numpy as np

from .. import cards
from ..rules import play as rules_play
from ..rules.actions import END
from . import hand, trick

PLAY, CHOOSE = trick.PLAY, trick.CHOOSE
TRUMP = trick.TRUMP
_OTHERS = tuple(np.array([(leader + k) % 4 for k in (1, 2, 3)]) for leader in range(4))
_IN_ORDER = tuple(np.array([(leader + k) % 4 for k in range(4)]) for leader in range(4))


def _first_card(counts: np.ndarray) -> int:
    """The lowest card id present in ``counts`` (``(counts > 0).argmax()`` of the batch code)."""
    return int(counts.nonzero()[0][0])


def _pair_bits(counts: np.ndarray, idx: np.ndarray) -> int:
    """``trick._pair_bits`` for one game: bit ``i`` set iff a card at position ``i`` is a pair."""
    bits = 0
    for p in idx[counts >= 2].tolist():
        bits |= 1 << p
    return bits


# ------------------------------------------------------------------------------ masks §7-8

def mask_play(eng, s, g: int, row: np.ndarray) -> None:
    """``trick.mask_play`` for game ``g``: write its legal cards and END into ``row``
    (``bool[A]``, zeros)."""
    seat = s.to_act.item(g)
    hand, sel = s.hands[g, seat], s.selection[g]
    free = hand > sel
    n_sel = sum(sel.tolist())
    n = s.lead_n.item(g)
    if n == 0:  # §7.2 leading: any held card, then only the effective suit of the first one
        row[END] = n_sel > 0
        if n_sel == 0:
            row[:54] = free
        else:
            suit = s.eff.item(g, _first_card(sel))
            row[:54] = free & eng.tables.in_suit[s.ctx.item(g), suit]
        return
    row[:54] = _follow_cards(eng, s, g, hand, sel, free, n_sel, n)


def _follow_cards(eng, s, g, hand, sel, free, n_sel, n):
    """``trick._follow_cards`` for one follower: §8.1 suit obligation, §8.2 structure."""
    in_e = eng.tables.in_suit[s.ctx.item(g), s.lead_suit.item(g)]
    held_e = hand * in_e
    have = sum(held_e.tolist())
    if have == 0:  # void in the led suit: anything
        return free
    if have < n:  # short: all of the suit, then anything once the rest must come from elsewhere
        others_left = n - have - sum(sel[~in_e].tolist())
        return free if others_left > 0 else free & in_e
    if not eng.switches.pairs:
        return free & in_e
    if s.lead_tractor[g]:  # a tractor (triple, quad) in the lead: the scalar rules (as the batch)
        ctx = eng.tables.context(s.level.item(g), s.trump.item(g))
        return rules_play.legal_next_cards(hand, s.lead[g], sel, ctx, eng.cfg)
    if eng.switches.quads:
        lead_pairs = np.array([s.lead_pairs.item(g)])
        return free & in_e & trick._pairs_ok_quads(held_e[None], sel[None], np.array([n]),
                                                     np.array([n_sel]), lead_pairs)[0]
    return free & in_e & _pairs_ok(held_e, sel, n, n_sel, s.lead_pairs.item(g))


def _pairs_ok(held_e, sel, n, n_sel, lead_pairs):
    """``trick._pairs_ok`` for one follower (same closed form, Python ints for the counts)."""
    pair_id = held_e >= 2
    untouched = pair_id & (sel == 0)
    half = pair_id & (sel == 1)
    pairs = np.count_nonzero(pair_id)
    need_total = min(pairs, lead_pairs)
    h = np.count_nonzero(half)
    f = pairs - h - np.count_nonzero(untouched)  # pairs with both copies selected

    def fits(f_, h_):
        need = max(need_total - f_, 0)
        half_ = min(h_, need)
        return n_sel + 1 + half_ + 2 * (need - half_) <= n

    start_pair, finish_pair, plain = fits(f, h + 1), fits(f + 1, h - 1), fits(f, h)
    if start_pair and finish_pair and plain:  # the common case: no restriction
        return True
    ok = np.ones(54, dtype=bool) if plain else np.zeros(54, dtype=bool)
    ok[untouched] = start_pair
    ok[half] = finish_pair
    return ok


# ------------------------------------------------------------------------------ steps

def step_play(eng, s, g: int, action: int, rewards) -> None:
    """``trick.step_play`` for game ``g``: END commits the lead, a card joins the selection
    (a follow is committed when it reaches the lead's size)."""
    if action == END:
        commit_lead(eng, s, g)
        return
    s.selection[g, action] += 1
    n = s.lead_n.item(g)
    if n and sum(s.selection[g].tolist()) == n:
        commit_follow(eng, s, g, rewards)


def commit_lead(eng, s, g: int) -> None:
    """``trick.commit_leads`` for game ``g``: END, the selection is the lead. One unit (a
    single, a pair, a tractor) stands at once; a throw is validated (§7.3-7.4)."""
    sel = s.selection[g]
    counts = sel.tolist()
    n = sum(counts)
    if n > 1:
        pbits = _pair_bits(sel, s.idx[g])
        contiguous = (pbits & (pbits + (pbits & -pbits))) == 0
        pairs = np.count_nonzero(sel >= 2)
        simple = 1 not in counts and pbits.bit_count() == pairs and contiguous
        tuples = eng.switches.tuples and max(counts) >= 3
        if tuples:  # one unit iff every identity is there equally often (§6.1)
            simple = len({c for c in counts if c}) == 1 and pbits.bit_count() == pairs and contiguous
        if not simple:
            if tuples or pbits & (pbits >> 1):  # a tractor or triple: the batch code (scalar)
                trick.commit_leads(eng, s, np.array([g]))
                return
            lead = _pairs_and_singles_throw(eng, s, g, sel, n)
            if lead is None:  # the leader's next player picks the unit (NEXT_PLAYER)
                s.phase[g] = CHOOSE
                s.to_act[g] = (s.leader.item(g) + 1) % 4
                return
            set_lead(eng, s, g, lead)
            return
    set_lead(eng, s, g, sel.copy())


def _pairs_and_singles_throw(eng, s, g, sel, n):
    """``trick._pairs_and_singles_throws`` for one throw: a type fails when another hand holds
    a strictly higher unit of it in the led suit; its candidate is its lowest unit (order
    index, then card id). Returns the lead that stands, or ``None`` when the next player must
    choose between the failed units (then they are the candidates)."""
    idx, eff = s.idx[g], s.eff[g]
    in_e = eng.tables.in_suit[s.ctx.item(g), eff.item(_first_card(sel))]
    leader = s.leader.item(g)
    oth = s.hands[g, _OTHERS[leader]]  # (3, 54)
    order = idx.tolist()

    def best(held):  # highest order index of such a unit in another hand, -1 if none
        pos = idx[held.any(0) & in_e]
        return int(pos.max()) if pos.size else -1

    def lowest(units):  # the lowest unit's card id, None if there are none
        return min(units.nonzero()[0].tolist(), key=lambda c: (order[c], c), default=None)

    low_s, low_p = lowest(sel == 1), lowest(sel >= 2)
    fail_s = low_s is not None and best(oth > 0) > order[low_s]
    fail_p = low_p is not None and best(oth >= 2) > order[low_p]
    if not (fail_s or fail_p):
        return sel.copy()
    choice = eng.switches.failed_throw_choice
    if choice == "NEXT_PLAYER":
        chooser, pick_single = fail_s and fail_p, fail_s and not fail_p
    elif choice == "AUTO_LOWEST_RANK":  # ties: fewer cards (the single)
        chooser = False
        pick_single = fail_s and (not fail_p or order[low_s] <= order[low_p])
    else:  # AUTO_FEWEST_CARDS
        chooser, pick_single = False, fail_s
    # §7.4.1: every attempted card is shown to the table
    s.revealed[g, leader] = np.maximum(s.revealed[g, leader], sel)
    s.throw_beater[g] = _first_beater(oth, best, order, low_s, low_p, leader)
    if chooser:  # candidates in decomposition order: pair, then single
        s.candidates[g] = 0
        s.candidates[g, 0, low_p] = 2
        s.candidates[g, 1, low_s] = 1
        s.n_candidates[g] = 2
        return None
    lead = np.zeros(54, dtype=np.uint8)
    if pick_single:
        lead[low_s] = 1
    else:
        lead[low_p] = 2
    _charge_penalty(eng, s, g, leader, n - sum(lead.tolist()))
    return lead


def _first_beater(oth, best, order, low_s, low_p, leader) -> int:
    """``throw_beater`` of a failed throw of pairs and singles: the first other seat (``oth``
    in playing order) holding a higher single or pair (as the batch code)."""
    for k in range(3):
        if (low_s is not None and best(oth[k:k + 1] > 0) > order[low_s]) or \
                (low_p is not None and best(oth[k:k + 1] >= 2) > order[low_p]):
            return (leader + 1 + k) % 4
    raise AssertionError("a failed throw has a beater")


def _charge_penalty(eng, s, g, leader, returned):
    """``trick._charge_penalty`` for game ``g`` (§7.4.5): the dealer side's failure helps the
    attackers."""
    sw = eng.switches
    amount = sw.penalty_fixed + sw.penalty_per_card * returned
    if amount:
        s.penalty[g] += amount if s.dealer_side[g, leader] else -amount


def set_lead(eng, s, g: int, lead: np.ndarray) -> None:
    """``trick.set_leads`` for game ``g``: the lead leaves the leader's hand, opens the trick."""
    leader = s.leader.item(g)
    s.lead[g] = lead
    s.lead_n[g] = sum(lead.tolist())
    s.lead_suit[g] = s.eff[g, _first_card(lead)]
    if eng.switches.pairs:
        pbits = _pair_bits(lead, s.idx[g])
        s.lead_pairs[g] = np.count_nonzero(lead >= 2)
        # two pairs at adjacent positions, or (3-4 decks) a triple or quad: the scalar rules
        s.lead_tractor[g] = (pbits & (pbits >> 1)) != 0 or (
            eng.switches.tuples and bool(np.count_nonzero(lead >= 3)))
    else:
        s.lead_pairs[g] = 0
        s.lead_tractor[g] = False
    s.hands[g, leader] -= lead
    _unreveal(s, g, leader, lead)
    s.trick[g, leader] = lead
    s.selection[g] = 0
    if s.n_candidates[g] > 0:
        s.candidates[g] = 0
    s.n_candidates[g] = 0
    s.in_trick[g] = 1
    s.phase[g] = PLAY
    s.to_act[g] = (leader + 1) % 4


def _unreveal(s, g, seat, play):
    """Played cards are no longer "revealed and unplayed" (§7.4.1); the arithmetic is skipped
    when the seat has nothing revealed (a cheap test, and the usual case)."""
    rev = s.revealed[g, seat]
    if np.count_nonzero(rev):
        s.revealed[g, seat] = np.maximum(rev.astype(np.int16) - play, 0)


def commit_follow(eng, s, g: int, rewards) -> None:
    """``trick.commit_follows`` for game ``g``: the selection is played to the trick."""
    seat = s.to_act.item(g)
    play = s.selection[g].copy()
    suit = s.lead_suit.item(g)
    if sum(play[eng.tables.in_suit[s.ctx.item(g), suit]].tolist()) < s.lead_n.item(g):
        s.voids[g, seat, suit] = True  # §8.1: now known void in the led suit
    s.hands[g, seat] -= play
    _unreveal(s, g, seat, play)
    s.trick[g, seat] = play
    s.selection[g] = 0
    in_trick = s.in_trick.item(g) + 1
    s.in_trick[g] = in_trick
    s.to_act[g] = (seat + 1) % 4
    if in_trick == 4:
        end_trick(eng, s, g, rewards)


def end_trick(eng, s, g: int, rewards) -> None:
    """``trick.end_tricks`` for game ``g``: the winner takes the points and leads next (§9.3)."""
    cfg = eng.cfg
    leader = s.leader.item(g)
    plays = s.trick[g, _IN_ORDER[leader]]  # (4, 54) in playing order
    scalar = bool(s.lead_tractor[g])
    if eng.switches.scalar_throw_winner and not scalar:
        ctx = eng.tables.context(s.level.item(g), s.trump.item(g))
        scalar = len(rules_play.decompose(s.lead[g], ctx)) > 1
    if scalar:
        ctx = eng.tables.context(s.level.item(g), s.trump.item(g))
        win = rules_play.trick_winner(list(plays), ctx, cfg)
    else:
        win = _winner(eng, s, g, plays)
    win_seat = (leader + win) % 4
    pts = int(plays.sum(0, dtype=np.int16) @ cards.POINTS)
    s.points_won[g, win_seat] += pts
    if not s.dealer_side[g, win_seat]:  # the attackers take the points
        s.captured[g] += pts
    s.played[g] += s.trick[g]
    s.last_lead[g] = s.lead[g]
    s.last_winner[g] = win_seat
    s.trick[g] = 0
    s.lead[g] = 0
    s.lead_n[g] = 0
    s.in_trick[g] = 0
    s.tricks_done[g] += 1
    if np.count_nonzero(s.hands[g]):
        s.leader[g] = win_seat
        s.to_act[g] = win_seat
        return
    # the hand is over (once per hand): the batch code scores it
    G = np.array([g])
    win_, seat_, plays_ = np.array([win]), np.array([win_seat]), plays[None]
    bonus = trick.kitty_bonus(eng, s, G, seat_, plays_, win_)
    hand.end_hands(eng, s, trick.EndedHands(G, seat_, plays_, bonus), rewards)


def _winner(eng, s, g, plays) -> int:
    """``trick._winners`` for one trick of pairs and singles: index (0 = leader) of the winner."""
    idx1 = s.idx[g].astype(np.int16) + 1  # 1-based: 0 means "none" after the product
    suit, n, need = s.lead_suit.item(g), s.lead_n.item(g), s.lead_pairs.item(g)
    in_suit = eng.tables.in_suit[s.ctx.item(g)]
    n_e = plays[:, in_suit[suit]].sum(1).tolist()
    n_t = plays[:, in_suit[TRUMP]].sum(1).tolist()
    pairs = plays >= 2
    n_pairs = (plays // 2).sum(1) if eng.switches.quads else pairs.sum(1)  # a quad: two pairs
    matches = (n_pairs >= need).tolist()
    val = (((pairs if need > 0 else plays > 0) * idx1).max(1) - 1).tolist()
    win, best, ruffed = 0, val[0], False
    off_suit = suit != TRUMP
    for i in (1, 2, 3):
        if not matches[i]:
            continue
        follow = n_e[i] == n and not ruffed and val[i] > best
        ruff = off_suit and n_t[i] == n and (not ruffed or val[i] > best)
        if follow or ruff:
            win, best = i, val[i]
        ruffed |= ruff
    return win
