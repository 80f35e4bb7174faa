"""The BURY and PLAY phases over many games at once: masks, leads, throws, follows, tricks.

The common path is array code over count vectors: leads of singles and pairs (and throws of
them), with 1-4 decks. Leads that hold a tractor (rare: a few per cent of tricks), with 3-4
decks a triple or quad, and ``throw_comparison="ALL_UNITS"`` throws fall back to the scalar
rules for just those games. Functions take the engine, the ``BatchState`` and ``G`` (game
indices).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .. import cards
from ..rules import play as rules_play
from ..rules.actions import END, Phase
from ..rules.order import TRUMP
from ..rules.patterns import suit_order_lists
from .counts import count_sum, put_rows, rows, seat_rows

PLAY, CHOOSE = int(Phase.PLAY), int(Phase.CHOOSE)

_BIG = 1 << 12
_ORDER4 = (np.arange(4)[:, None] + np.arange(4)) % 4  # int64[4, 4]: [seat, k] = (seat + k) % 4
_NEXT3 = np.ascontiguousarray(_ORDER4[:, 1:])  # int64[4, 3]: the three seats after ``seat``


class EndedHands(NamedTuple):
    """Games whose last trick was just played, for ``hand.end_hands`` to score.

    ``games``: ``int64[g]``; ``winners``: ``int64[g]`` seats that won the last trick;
    ``plays``: ``uint8[g, 4, 54]`` the last trick in playing order; ``bonus``: ``int[g]`` the
    kitty bonus, -1 where the scalar rules must compute it (a tractor in the basis)."""

    games: np.ndarray
    winners: np.ndarray
    plays: np.ndarray
    bonus: np.ndarray


def _pair_bits(counts, idx):
    """``int64[g]`` — bit ``i`` set iff some identity at position ``i`` is held twice."""
    # the shift is 64 (a zero bit) where no pair is held: no np.where on [g, 54]
    shift = idx.view(np.uint8) | ((counts < 2).view(np.uint8) << np.uint8(6))
    return np.bitwise_or.reduce(np.left_shift(np.int64(1), shift.astype(np.int64)), axis=1)


def _has_tractor(counts, idx, pairs=None):
    """A tractor can be cut from ``counts``: two pairs at adjacent positions. ``pairs``: the
    identities held twice or more, if known (fewer than two hold no tractor: not tested)."""
    pairs = count_sum(counts >= 2) if pairs is None else pairs
    out = np.zeros(len(counts), dtype=bool)
    R = (pairs >= 2).nonzero()[0]
    if R.size:
        b = _pair_bits(counts[R], idx[R])
        out[R] = (b & (b >> 1)) != 0
    return out


def _scalar_lead(eng, counts, idx, pairs=None):
    """``bool[g]`` — the lead (or kitty basis) needs the scalar rules: it holds a tractor, or
    (3-4 decks) a triple or quad (§8.3). ``pairs``: as for ``_has_tractor``."""
    out = _has_tractor(counts, idx, pairs)
    if eng.switches.tuples:
        out |= (counts >= 3).any(1)
    return out


# ------------------------------------------------------------------------------ bury §5

def mask_bury(eng, s, G, out):
    dealer = s.dealer[G].astype(np.int64)
    hand, sel = seat_rows(s.hands, G, dealer), rows(s.selection, G)
    free = hand > sel
    if not eng.cfg.kitty_point_cards_allowed:
        left = hand.astype(np.int16) - sel
        plain = cards.POINTS == 0
        need = eng.cfg.kitty_size - s.selection[G].sum(1, dtype=np.int16)
        enough = (left * plain).sum(1) >= need
        free = np.where(enough[:, None], free & plain, free)
    out[:, :54] = free


def step_bury(eng, s, G, actions):
    s.selection.reshape(-1)[G * 54 + actions] += 1  # one card per game: a flat index
    full = count_sum(rows(s.selection, G)) == eng.cfg.kitty_size
    if not full.any():
        return
    F = G[full]
    dealer = s.dealer[F].astype(np.int64)
    s.hands[F, dealer] -= s.selection[F]
    s.kitty[F] = s.selection[F]
    s.selection[F] = 0
    begin_play(s, F)


def begin_play(s, G):
    s.phase[G] = PLAY
    s.leader[G] = s.dealer[G]
    s.to_act[G] = s.dealer[G]


# ------------------------------------------------------------------------------ masks §7-8

def mask_play(eng, s, G, out):
    """Legal cards (and END) for games G in phase PLAY: leaders and followers."""
    every = G.size == s.num_games  # G = arange(B) (the engine's whole batch): no gathers
    seats = s.to_act if every else s.to_act[G]  # int8[g] (read only)
    hand = seat_rows(s.hands, G, seats)
    sel = s.selection if every else rows(s.selection, G)  # (read only)
    free = hand > sel
    n_sel = _card_sums(sel)
    leading = (s.lead_n if every else s.lead_n[G]) == 0
    selecting = leading & (n_sel > 0)  # leaders who have selected a card
    out[:, END] = selecting
    # most rows' cards are their free cards of one effective suit, or of every suit: one
    # gather of suit rows and one AND for leaders and followers alike; only the followers who
    # are void or short in the led suit, or must follow pairs or a tractor, are patched
    allowed = _suit_rows_to_play(eng, s, G, every, sel, leading, selecting)
    # bool[g, 54]: the cards' columns of out, written in place (rows contiguous: put_rows works)
    legal = out[:, :54]
    np.bitwise_and(free.view(np.uint8), allowed, out=legal.view(np.uint8))
    F = (~leading).nonzero()[0]
    if F.size:
        _follow_cards(eng, s, G, F if every else G[F], F, seats, hand, sel, free, n_sel,
                      allowed, legal)


def _card_sums(x) -> np.ndarray:
    """``int8[g]`` — sums of ``x`` (``uint8[g, 54]`` card counts or ``bool`` flags) along the
    last axis, where every sum is below 128 (a hand, a selection, a lead or a follow: at most
    54 cards, 4 decks without a kitty; flags: at most 54): the uint8 einsum of ``count_sum``
    read as the int8 the lead fields hold (no int16 copy, and no casting where it meets
    them)."""
    return np.einsum("gc->g", x.view(np.uint8)).view(np.int8)


_ANY = 5  # the row of ``Tables.suit_or_any`` that allows every card


def _suit_rows_to_play(eng, s, G, every, sel, leading, selecting) -> np.ndarray:
    """``uint8[g, 54]`` — 255 for the cards of the suit each row must play: §7.2 a leader any
    card, or once he has selected one only cards of its effective suit (the suit is looked up
    for those rows only); §8.1 a follower the led suit E (``_follow_cards`` widens the rows of
    the void and the short)."""
    suit = np.where(leading, _ANY, s.lead_suit if every else s.lead_suit[G])  # int8[g]
    K = selecting.nonzero()[0]
    if K.size:
        suit[K] = first_suit(s, K if every else G[K], rows(sel, K))
    ctx = (s.ctx if every else s.ctx[G]).astype(np.int64)
    return eng.tables.suit_or_any.take(ctx * 6 + suit, axis=0)


def _follow_cards(eng, s, G, GF, F, seats, hand, sel, free, n_sel, allowed, legal):
    """§8.1 suit obligation (all of H_E when short) and §8.2 structure obligation for the
    followers, rows ``F`` of games ``G``: their rows of ``legal`` (``bool[g, 54]``, their free
    cards of E, E = their rows of ``allowed``) are widened for the void and the short and
    narrowed to the pairs or tractor the lead asks for. ``seats``, ``hand``, ``sel``, ``free``,
    ``n_sel``: every row's, as ``mask_play``; ``GF``: ``G[F]``. Counts are int8 (a hand holds
    at most 54 cards: ``have + sel_out`` < 128)."""
    n = s.lead_n[GF]
    in_e = rows(allowed, F)  # 255: the led suit E
    held_e = rows(hand, F) & in_e
    have = _card_sums(held_e)
    # cards selected outside E, counted on the rows of the few followers who have selected
    # (part way through a longer follow: one-card follows never select)
    n_sel = n_sel[F]  # (the followers' rows from here on)
    S = n_sel.nonzero()[0]
    sel_out = np.zeros(F.size, dtype=np.int8)
    if S.size:
        sel_out[S] = n_sel[S] - _card_sums(rows(sel, F[S]) & rows(in_e, S))
    full = have >= n
    # void in E: any card; short: all of H_E, and other cards while places are left for them;
    # both are have + sel_out < n (a follower's selection is below n, so sel_out < n when void);
    # full: cards of E only (the rows of ``legal`` as they are), with the pairs the lead asks
    # for (below)
    A = F[have + sel_out < n]
    if A.size:
        put_rows(legal, A, rows(free, A))
    if eng.switches.pairs:  # only rows that must follow pairs: without them any card of E fits
        P = (full & (s.lead_pairs[GF] > 0)).nonzero()[0]
        if P.size:
            FP = F[P]
            args = rows(held_e, P), rows(sel, FP), n[P], n_sel[P], s.lead_pairs[GF[P]]
            if eng.switches.quads:
                legal[FP] &= _pairs_ok_quads(*args)
            else:  # the free cards of E that fit
                put_rows(legal, FP, _pairs_ok(*args))
        # a tractor (or triple) in the lead: the scalar rules (rare)
        for i in F[full & s.lead_tractor[GF]].tolist():
            g = int(G[i])
            ctx = eng.tables.context(int(s.level[g]), int(s.trump[g]))
            legal[i] = rules_play.legal_next_cards(s.hands[g, seats[i]], s.lead[g], sel[i],
                                                   ctx, eng.cfg)


# ``_pairs_ok`` reads each card as one key, its copies held in E (0-3: at most 3 decks, 4 decks
# take ``_pairs_ok_quads``) · 4 + its copies selected (0-3); a pair identity is held twice or more
_KEY_HELD, _KEY_SEL = np.arange(16) >> 2, np.arange(16) & 3
_KEY_PAIR = _KEY_HELD >= 2
# int32[16]: what a card adds to its row's counts, in three 8-bit lanes (a count is at most 54
# identities: no lane carries): pair identities (bits 0-7), half-selected ones (bits 8-15),
# complete ones (both copies selected, bits 16-23)
_PAIR_LANES = (_KEY_PAIR * (1 + 256 * (_KEY_SEL == 1) + 65536 * (_KEY_SEL >= 2))).astype(np.int32)
# uint8[9]: the row's fit bits (1: a card outside untouched and half pairs, 2: the first copy of
# an untouched pair, 4: the second copy of a half pair; shifted left by 4 to join the card key)
# by min(max(over, 0), 2) · 3 + (hu < d) + (d > 0), as ``_pairs_ok`` derives them
_ROW_FITS = np.array([7, 7, 7, 0, 4, 6, 0, 0, 0], dtype=np.uint8) << 4
# bool[8 · 16]: card key ``k`` fits in a row with fit bits ``b`` (index b · 16 + k): it is a free
# card of E (held > selected) and its case's bit is set
_KEY_CASE = np.where(_KEY_PAIR & (_KEY_SEL == 0), 2, np.where(_KEY_PAIR & (_KEY_SEL == 1), 4, 1))
_CARD_FITS = (((np.arange(8)[:, None] & _KEY_CASE) != 0) & (_KEY_HELD > _KEY_SEL)).reshape(-1)


def _pairs_ok(held_e, sel, n, n_sel, lead_pairs):
    """Closed form of §8.2 without tractors for full followers (``held_e``: their cards of E):
    their rows of ``follow``, the free cards of E that may be added. Card c fits iff the
    cheapest way to reach the required pairs still fits: pairs already selected cost 0,
    half-selected 1, untouched 2 (DESIGN §5 hint; proof in ``rules.play.can_complete_follow``).

    With f complete and h half-selected pairs, ``d = max(min(pairs, lead_pairs) - f, 0)`` pairs
    are still needed at the cheapest cost ``2·d - hu`` (``hu = min(h, d)`` half ones among
    them); ``over = n_sel + 1 + 2·d - hu - n`` is how far a card that changes no pair
    overshoots. The first copy of an untouched pair saves 1 iff ``hu < d``; the second copy of
    a half pair saves 1 iff ``d > 0`` (one fewer needed, and one fewer half one among them). So
    the three answers are ``over <= 0``, ``over <= (hu < d)`` and ``over <= (d > 0)``
    (``_ROW_FITS``). Each card is one key (``_PAIR_LANES`` counts the pairs, ``_CARD_FITS``
    answers) instead of a pass per case."""
    key = (held_e << 2) | sel                                          # uint8[p, 54]
    lanes = _PAIR_LANES.take(key).sum(1)                               # int64[p]
    d = np.maximum(np.minimum(lanes & 255, lead_pairs) - (lanes >> 16), 0)
    hu = np.minimum((lanes >> 8) & 255, d)
    over = np.minimum(np.maximum(2 * d - hu + (n_sel + 1 - n), 0), 2)
    row = _ROW_FITS.take(over * 3 + (hu < d) + (d > 0))                # uint8[p]
    return _CARD_FITS.take(key | row[:, None])


def _pairs_ok_quads(held_e, sel, n, n_sel, lead_pairs):
    """``_pairs_ok`` with 4 decks, where an identity held 4 times gives two pairs: identity
    ``c`` offers ``a = held // 2`` pairs; with ``s`` copies selected, ``min(s // 2, a)`` of them
    are complete (cost 0), one is half-selected (cost 1) iff ``s`` is odd and ``s // 2 < a``, the
    rest cost 2. A pair's marginal cost never falls as more pairs of one identity are taken, so
    cheapest-first is still optimal; adding card ``c`` changes only its identity's terms."""
    a = (held_e // 2).astype(np.int16)
    s_ = sel.astype(np.int16)
    full = np.minimum(s_ // 2, a)
    half = ((s_ & 1) == 1) & (s_ // 2 < a)
    f = full.sum(1, dtype=np.int16)
    h = half.sum(1, dtype=np.int16)
    s1 = s_ + 1  # card c added
    f_new = f[:, None] - full + np.minimum(s1 // 2, a)
    h_new = h[:, None] - half + (((s1 & 1) == 1) & (s1 // 2 < a))
    need_total = np.minimum(a.sum(1), lead_pairs).astype(np.int16)[:, None]
    need = np.maximum(need_total - f_new, 0)
    half_used = np.minimum(h_new, need)
    return n_sel[:, None] + 1 + half_used + 2 * (need - half_used) <= n[:, None]


# ------------------------------------------------------------------------------ steps

def step_play(eng, s, G, actions) -> EndedHands | None:
    """Apply CARD / END for games G (phase PLAY); returns the hands that ended, if any."""
    is_end = actions == END
    L = G[is_end]  # leaders who end their selection
    # a follow is complete when the selection reaches the lead's size: at once when one card
    # was led (most tricks; the card goes straight to the trick, the selection stays empty);
    # longer ones are selected and counted
    lead_n = s.lead_n[G]  # (0 for leaders: the END rows among them)
    # leaders selecting a card and followers of longer leads: lead_n != 1 holds every END row
    S = ((lead_n != 1) ^ is_end).nonzero()[0]
    if S.size:
        s.selection.reshape(-1)[G[S] * 54 + actions[S]] += 1  # one card per game: a flat index
    complete = lead_n == 1
    longer = (lead_n > 1).nonzero()[0]
    if longer.size:
        complete[longer] = _card_sums(rows(s.selection, G[longer])) == lead_n[longer]
    F = complete.nonzero()[0]
    ended = commit_follows(eng, s, G[F], actions[F], lead_n[F] == 1)
    if L.size:
        commit_leads(eng, s, L)
    return ended


def commit_leads(eng, s, G):
    """END: the selection is the lead; throws are validated (§7.3-7.4)."""
    cfg = eng.cfg
    sel = rows(s.selection, G)
    # int8[g]: the leads' sizes (<= 54 cards: the uint8 sums do not wrap) as the int8 field
    # set_leads writes (no int16 copy and casting assignment)
    n = _card_sums(sel)
    # the leads, written over the (gathered) selection: only the rows of failed throws change,
    # each after its own row of ``sel`` was last read
    lead = sel
    chooser = np.zeros(G.size, dtype=bool)
    facts = None  # the leads' facts for set_leads, where known here (1-2 decks)
    if eng.switches.tuples:
        idx = rows(s.idx, G)
        pbits = _pair_bits(sel, idx)
        contiguous = (pbits & (pbits + (pbits & -pbits))) == 0
        # a simple lead is one unit: a single, or pairs at distinct consecutive positions
        simple = (n == 1) | ((count_sum(sel == 1) == 0)
                             & (np.bitwise_count(pbits) == count_sum(sel >= 2)) & contiguous)
        # one unit: every identity the same number of times (a triple, not a triple + pair)
        counts = sel.astype(np.int16)
        same = counts.max(1) * (sel > 0).sum(1) == n
        simple &= (n == 1) | same
        tractorish = _has_chain(sel, idx, eng.cfg.decks)
        V = (~simple & ~tractorish).nonzero()[0]
        if V.size:  # throws of singles, pairs, triples and quads: one unit per identity
            lead[V], chooser[V] = _tuple_throws(eng, s, G[V], sel[V], n[V])
        chains = (~simple & tractorish).nonzero()[0]
    else:
        # 1-2 decks: a lead of one card is a single; a longer one is simple (one unit) iff it
        # is pairs only (n = 2·pairs) at distinct consecutive positions. With one pair or
        # none the positions hold one pair or none (contiguous, as many as the pairs, no
        # tractor): simple iff one card or n = 2·pairs. The positions are read only for the
        # few leads of two pairs or more
        pairs = _card_sums(sel >= 2)  # int8, as ``n``
        simple = (n == 2 * pairs) | (n == 1)
        tractor = np.zeros(G.size, dtype=bool)
        R = (pairs >= 2).nonzero()[0]
        if R.size:
            _pair_positions(s, G, sel, pairs, R, simple, tractor)
        # a lead that stands is the selection: its facts are the ones just found (set_leads
        # need not count them again); a failed throw's forced unit is patched below, in
        # place (``n`` and ``pairs`` are not read again for those rows)
        suit = first_suit(s, G, sel)
        facts = lead_n, _, lead_pairs, _ = n, suit, pairs, tractor
        V = (~(simple | tractor)).nonzero()[0]
        if V.size:
            lead[V], waits, forced_pair, forced = _pairs_and_singles_throws(
                eng, s, G[V], rows(sel, V), n[V], suit[V])
            if waits is not None:
                chooser[V] = waits
            # the forced unit of a failed throw: a single, or a pair (a pair's facts: 2 cards,
            # 1 pair; neither holds a tractor)
            F = V[forced]
            pair_f = forced_pair[forced].view(np.int8)  # 1: a pair, 0: a single
            lead_n[F] = pair_f + np.int8(1)
            lead_pairs[F] = pair_f
        chains = (tractor > simple).nonzero()[0]  # tractor and not simple
    for i in chains:  # throws holding a chain: the scalar rules
        g = int(G[i])
        ctx = eng.tables.context(int(s.level[g]), int(s.trump[g]))
        leader = int(s.leader[g])
        others = s.hands[g, _NEXT3[leader]]  # the three other hands in playing order
        judged = _chain_throw(sel[i], others, ctx, cfg) if facts is not None else None
        res, beater = judged or rules_play.judge_throw(sel[i], others, ctx, cfg)
        if res.ok:
            continue
        s.throw_beater[g] = (first_beater(sel[i], others, ctx, leader, cfg) if beater is None
                             else (leader + 1 + beater) % 4)
        revealed = s.revealed[g, leader]  # every attempted card is shown (§7.4.1)
        np.maximum(revealed, sel[i], out=revealed)
        if res.forced is None:
            chooser[i] = True
            s.candidates[g] = 0
            for c, cand in enumerate(res.candidates):
                s.candidates[g, c] = cand
            s.n_candidates[g] = len(res.candidates)
            continue
        lead[i] = res.forced
        size = int(res.forced.sum())
        if _penalised(eng):
            _charge_penalty(eng, s, G[i:i + 1], np.array([n[i] - size]))
        if facts is not None:
            # 1-2 decks: the forced unit is a single, a pair or a tractor of size / 2 pairs, of
            # the throw's suit
            facts[0][i], facts[2][i], facts[3][i] = size, size // 2, size >= 4
    # the leader's next player picks the unit (failed_throw_choice = NEXT_PLAYER: only then
    # can a game wait)
    if eng.switches.failed_throw_choice == "NEXT_PLAYER" and chooser.any():
        Ch = G[chooser]
        s.phase[Ch] = CHOOSE
        s.to_act[Ch] = (s.leader[Ch] + 1) % 4
        keep = ~chooser
        set_leads(eng, s, G[keep], lead[keep], None if facts is None else [f[keep] for f in facts])
    else:
        set_leads(eng, s, G, lead, facts)


def _pair_positions(s, G, sel, pairs, R, simple, tractor):
    """``commit_leads`` (1-2 decks) for the leads ``R`` holding two pairs or more: a lead is
    simple only if its pairs sit at distinct consecutive positions (``simple[R] &=``), and it
    holds a tractor iff two of them are adjacent (``tractor[R]``). A handful of rows a step:
    with few, plain ints on each row's position bits cost less than the numpy passes."""
    if R.size > 16:
        pbits = _pair_bits(rows(sel, R), rows(s.idx, G[R]))
        contiguous = (pbits & (pbits + (pbits & -pbits))) == 0
        simple[R] &= (np.bitwise_count(pbits) == pairs[R]) & contiguous
        tractor[R] = (pbits & (pbits >> 1)) != 0
        return
    # the pair identities (row i of R, card) in one pass, their positions in one gather
    i, card = (rows(sel, R) >= 2).nonzero()  # int64[q]: 2-6 identities a lead
    position = s.idx.reshape(-1).take(G.take(R.take(i)) * 54 + card)
    pbits = [0] * R.size  # bit p: some identity at position p is held twice
    for r, p in zip(i.tolist(), position.tolist()):
        pbits[r] |= 1 << p
    for r, bits, p in zip(R.tolist(), pbits, pairs[R].tolist()):
        if simple[r]:
            simple[r] = bits.bit_count() == p and (bits & (bits + (bits & -bits))) == 0
        tractor[r] = (bits & (bits >> 1)) != 0


def _pairs_and_singles_throws(eng, s, G, sel, n, suit):
    """Validate throws whose units are pairs and singles only (§7.3-7.4), vectorised;
    ``suit``: their effective suit.

    A type fails when another hand holds a strictly higher unit of it in the led suit; the
    candidate of a failing type is its lowest unit (ties: suit order S, H, C, D = lowest id).
    The two types are one ``[2, ...]`` computation (row 0 singles, row 1 pairs: with 1-2 decks
    a count is a single's 1 or a pair's 2). Returns the leads ``uint8[g, 54]`` (written over
    ``sel``), which games wait for the next player's choice (``None`` with the AUTO choices:
    none), and which games lead a forced unit (``forced``) that is a pair (``forced_pair``;
    the others a single).
    """
    leader = s.leader[G]  # int8[g]
    others = _NEXT3.take(leader, axis=0)  # (leader + 1, 2, 3) % 4
    G4 = G * 4  # the games' first rows of the [B·4, 54] views
    oth = s.hands.reshape(-1, 54).take(G4[:, None] + others, axis=0)  # (g, 3, 54)
    # each card's key in the led suit, complemented: ~(order index · 256 + card id), 0xFFFF
    # outside the suit (one gather of ``_throw_keys`` rows by context and suit, no separate
    # suit mask and order rows)
    keys = _throw_keys(eng.tables).take(s.ctx[G].astype(np.int64) * 5 + suit, axis=0)
    # the throw's lowest single (pair): the highest complemented key among its units (a
    # product and a max: no np.where), 0 if none; its order index is the high byte of the
    # key (255 if none: then nothing is above it), its card the low byte (the lowest id of
    # that index), [2, g]
    unit = np.equal(sel, _ONE_TWO[:, :, :, 0])  # [2, g, 54]
    top = (keys * unit).max(2)  # uint16[2, g]
    low_bytes = np.invert(top).view(np.uint8).reshape(2, G.size, 2)
    low, card = low_bytes[:, :, _HIGH_BYTE], low_bytes[:, :, 1 - _HIGH_BYTE]  # uint8[2, g]
    # a hand beats a type iff it holds a single (a pair: count >> 1 > 0) of the led suit
    # ranked above that type's lowest unit (a higher order index: a complemented key below
    # the unit's with its low byte cleared): one uint8 dot product per hand and type over the
    # led suit's cards above it (sums <= 108: no wrap), [2, g, 3]
    above = np.less(keys, (top & np.uint16(0xFF00))[:, :, None]).view(np.uint8)  # [2, g, 54]
    beaten = np.einsum("tghc,tgc->tgh", oth >> _COPIES_SHIFT, above) > 0
    fail_s, fail_p = beaten[:, :, 0] | beaten[:, :, 1] | beaten[:, :, 2]
    low_s, low_p = low  # uint8
    choice = eng.switches.failed_throw_choice
    chooser = None  # (the AUTO choices: nobody waits)
    if choice == "NEXT_PLAYER":
        chooser = fail_s & fail_p
        pick_single = fail_s & ~fail_p
    elif choice == "AUTO_LOWEST_RANK":  # ties: fewer cards (the single)
        pick_single = fail_s & (~fail_p | (low_s <= low_p))
    else:  # AUTO_FEWEST_CARDS
        pick_single = fail_s
    failed = fail_s | fail_p
    forced = failed if chooser is None else failed & ~chooser
    pick_pair = forced & ~pick_single
    X = failed.nonzero()[0]
    if X.size:
        # the first hand that beats (a flat read of ``others``: no two-axis fancy index)
        s.throw_beater[G[X]] = others.reshape(-1).take(X * 3 + (beaten[0] | beaten[1])[X].argmax(1))
        _reveal(s, G4[X] + leader[X], rows(sel, X))
    lead = sel  # (a copy of the caller's, read above: the forced units are written over it)
    F = forced.nonzero()[0]
    if F.size:  # the forced unit alone: its card once (a single) or twice (a pair)
        lead[F] = 0
        pair_f = pick_pair[F]  # the pair's card (row 1 of ``card``) or the single's (row 0)
        lead.reshape(-1)[F * 54 + np.where(pick_pair, card[1], card[0])[F]] = (
            pair_f.view(np.uint8) + np.uint8(1))
    if chooser is not None:
        for i in chooser.nonzero()[0]:  # candidates in decomposition order: pair, then single
            g = G[i]
            s.candidates[g] = 0
            s.candidates[g, 0, card[1, i]] = 2
            s.candidates[g, 1, card[0, i]] = 1
            s.n_candidates[g] = 2
    if X.size and _penalised(eng):
        _charge_penalty(eng, s, G[F], n[F] - lead[F].sum(1, dtype=np.int16))
    return lead, chooser, pick_pair, forced


_ONE_TWO = np.array([1, 2], dtype=np.uint8).reshape(2, 1, 1, 1)  # a single's count, a pair's
# [2, 1, 1, 1]: counts >> 0 are non-zero for a single, counts >> 1 for a pair (1-2 decks: <= 2)
_COPIES_SHIFT = np.array([0, 1], dtype=np.uint8).reshape(2, 1, 1, 1)
_HIGH_BYTE = int(sys.byteorder == "little")  # the high byte's place in a uint16's two bytes


@lru_cache(maxsize=16)
def _throw_keys(tables) -> np.ndarray:
    """``uint16[65·5, 54]`` (cached per ``Tables``, read-only): row ``ctx·5 + E``, each card's
    key ``~(order index · 256 + id)`` if its effective suit is E, else 0xFFFF (the complement
    of 0: above every threshold of ``_pairs_and_singles_throws``; order indices < 64, ids <
    54: no card of E has the key 0, which marks "no unit" there)."""
    key = (tables.idx.astype(np.uint16) << 8) | np.arange(54, dtype=np.uint16)  # [65, 54]
    keys = ~np.where(tables.in_suit, key[:, None, :], 0).astype(np.uint16).reshape(-1, 54)
    keys.flags.writeable = False
    return keys


def _chain_throw(throw, others, ctx, cfg):
    """``rules_play.judge_throw`` of a throw holding a tractor with 1-2 decks, on position bit
    masks (``ThrowResult`` and the first beating hand, as there), or ``None`` (the scalar rules
    judge it) when one position of the throw holds pairs of two identities (the off-suit level
    cards in trump).

    Without such a position the canonical decomposition (§6.2) needs no search: every maximal
    run of two or more pair positions is a tractor, the other pairs are pairs, the other cards
    singles. A type ``(k, L)`` fails (§7.3) iff some hand holds ``L`` consecutive positions of
    ``k`` identical cards ending above the type's lowest unit, its candidate (§7.4.2; singles at
    one position: the lowest id, as ``decompose`` orders them)."""
    eff, order = suit_order_lists(ctx)
    counts = throw.tolist()
    held = [c for c in range(54) if counts[c]]
    pair_at: dict[int, int] = {}  # position -> the throw's pair there
    singles = []  # (position, card)
    for c in held:
        if counts[c] == 1:
            singles.append((order[c], c))
        elif order[c] in pair_at:
            return None
        else:
            pair_at[order[c]] = c
    runs: list[list[int]] = []  # maximal runs of pair positions: [first, last]
    for p in sorted(pair_at):
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    # the unit types in decomposition order (tractors longest first, pairs, singles), each
    # with its lowest unit: (k, length, top, cards)
    types = []
    tractors = [(b - a + 1, b) for a, b in runs if b > a]
    for length in sorted({m for m, _ in tractors}, reverse=True):
        top = min(b for m, b in tractors if m == length)
        types.append((2, length, top, [pair_at[p] for p in range(top - length + 1, top + 1)]))
    lone = [a for a, b in runs if a == b]
    if lone:
        types.append((2, 1, min(lone), [pair_at[min(lone)]]))
    if singles:
        top, c = min(singles)
        types.append((1, 1, top, [c]))
    if len(tractors) + len(lone) + len(singles) <= 1:
        return rules_play.ThrowResult(ok=True), None
    # each hand's positions of the suit holding a card, a pair
    suit = eff[held[0]]
    own = []  # own[h][t]: hand h beats type t by a unit of that type
    for hand in others.tolist():
        any_, pair = 0, 0
        for c, bit in _suit_bits(ctx, suit):
            if hand[c]:
                any_ |= bit
                if hand[c] >= 2:
                    pair |= bit
        row = []
        for k, length, top, _ in types:
            run = pair if k == 2 else any_
            for _ in range(length - 1):  # bit p: positions p .. p + length - 1 all held
                run &= run >> 1
            row.append(run >> (top - length + 2) != 0)  # a run ending above ``top``
        own.append(row)
    failing = [t for j, t in enumerate(types) if any(row[j] for row in own)]
    beater = next((h for h, row in enumerate(own) if any(row)), None)
    if not failing:
        return rules_play.ThrowResult(ok=True), beater
    candidates = []
    for k, _, _, ids in failing:
        unit = np.zeros(54, dtype=np.uint8)
        unit[ids] = k
        candidates.append(unit)
    if len(failing) == 1:
        pick = 0
    elif cfg.failed_throw_choice == "NEXT_PLAYER":
        return rules_play.ThrowResult(ok=False, forced=None, candidates=candidates), beater
    elif cfg.failed_throw_choice == "AUTO_LOWEST_RANK":  # lowest top, ties: fewer cards
        pick = min(range(len(failing)), key=lambda j: (failing[j][2], failing[j][0] * failing[j][1]))
    else:  # AUTO_FEWEST_CARDS: fewest cards, ties: lowest top
        pick = min(range(len(failing)), key=lambda j: (failing[j][0] * failing[j][1], failing[j][2]))
    return (rules_play.ThrowResult(ok=False, forced=candidates[pick].copy(), candidates=candidates),
            beater)


def _suit_bits(ctx, suit):
    """``(card, 1 << position)`` of the cards of effective suit ``suit`` (cached)."""
    def build():
        eff, order = suit_order_lists(ctx)
        return [(c, 1 << order[c]) for c in range(54) if eff[c] == suit]
    return ctx.memo("suit_bits", suit, build)


def first_beater(throw, others, ctx, leader: int, cfg) -> int:
    """The first seat after ``leader`` whose hand (``others``: the three in playing order)
    beats a unit of the failed ``throw`` (``BatchState.throw_beater``, §7.3), -1 if none can
    be named; ``cfg``: the rules (3-4 decks ask ``validate_throw`` seat by seat)."""
    suit = rules_play.single_suit(throw, ctx)
    units = rules_play.decompose(throw, ctx)
    k = next((k for k, h in enumerate(others)
              if any(rules_play.beats_unit(h, u, suit, ctx) for u in units)), None)
    if k is None:  # 3-4 decks (tuple_beats_chain...): ask the throw rule seat by seat
        empty = np.zeros_like(others[0])
        k = next((k for k in range(3) if not rules_play.validate_throw(
            throw, [others[j] if j == k else empty for j in range(3)], ctx, cfg).ok), None)
    return -1 if k is None else (leader + 1 + k) % 4


def _has_chain(counts, idx, decks):
    """``bool[g]`` — the canonical decomposition (§6.2) of ``counts`` holds a chain unit.

    Pass ``k`` of §6.2 sees only identities held exactly ``k`` times (larger counts went in
    earlier passes, whole), so a chain of ``k``-tuples is two adjacent positions that both hold
    an identity exactly ``k`` times."""
    out = np.zeros(counts.shape[0], dtype=bool)
    one = np.left_shift(np.int64(1), idx.astype(np.int64))
    for k in range(2, decks + 1):
        b = np.bitwise_or.reduce(np.where(counts == k, one, 0), axis=1)
        out |= (b & (b >> 1)) != 0
    return out


def _tuple_throws(eng, s, G, sel, n):
    """``_pairs_and_singles_throws`` for 3-4 decks: throws without chains, whose units are one
    per identity — a single, pair, triple or quad (``k`` = its count). A unit type ``(k, 1)``
    fails when another hand holds ``k`` identical cards of the led suit ranked strictly higher
    than its lowest unit (§7.3); candidates in decomposition order, ``k`` descending (§7.4)."""
    d = eng.cfg.decks
    idx, eff = s.idx[G], s.eff[G]
    rows = np.arange(G.size)
    suit = eff[rows, (sel > 0).argmax(1)]
    leader = s.leader[G].astype(np.int64)
    oth = s.hands[G[:, None], (leader[:, None] + np.arange(1, 4)) % 4]  # (g, 3, 54)
    in_e = (eff == suit[:, None])[:, None, :]
    top = idx.astype(np.int16)[:, None, :] + 1  # 1-based: 0 means "none" after the product
    key = idx.astype(np.int32) * 64 + np.arange(54)  # order index, then card id
    none = _BIG * 64
    ks = np.arange(d, 0, -1)  # decomposition order of the types
    low = np.stack([np.where(sel == k, key, none).min(1) for k in ks], axis=1)  # (g, K)
    best = np.stack([(((oth >= k) & in_e) * top).max((1, 2)) - 1 for k in ks], axis=1)
    fail = (low < none) & (best > low // 64)
    n_fail = fail.sum(1)
    failed = n_fail > 0
    choice = eng.switches.failed_throw_choice
    if choice == "NEXT_PLAYER":
        chooser = n_fail >= 2
        rank = np.where(fail, 0, 1)  # the only failing type
    elif choice == "AUTO_LOWEST_RANK":  # lowest top, ties: fewer cards
        chooser = np.zeros(G.size, dtype=bool)
        rank = np.where(fail, (low // 64) * 8 + ks, _BIG * 8)
    else:  # AUTO_FEWEST_CARDS: fewest cards, ties: lowest top
        chooser = np.zeros(G.size, dtype=bool)
        rank = np.where(fail, ks * _BIG + low // 64, _BIG * _BIG)
    pick = rank.argmin(1)  # first minimum: decomposition order breaks any remaining tie
    forced = failed & ~chooser
    lead = sel.copy()
    lead[forced] = 0
    F = rows[forced]
    lead[F, low[F, pick[F]] % 64] = ks[pick[F]]
    for i in chooser.nonzero()[0]:
        g = G[i]
        s.candidates[g] = 0
        for c, j in enumerate(fail[i].nonzero()[0]):
            s.candidates[g, c, low[i, j] % 64] = ks[j]
        s.n_candidates[g] = n_fail[i]
    for i in failed.nonzero()[0]:  # rare: whose cards beat the throw, for the narrator
        g, ld = int(G[i]), int(leader[i])
        ctx = eng.tables.context(int(s.level[g]), int(s.trump[g]))
        s.throw_beater[g] = first_beater(sel[i], [s.hands[g, (ld + k) % 4] for k in (1, 2, 3)],
                                         ctx, ld, eng.cfg)
    F = G[failed]
    if F.size:
        _reveal(s, F * 4 + s.leader[F].astype(np.int64), sel[failed])
    if _penalised(eng):
        _charge_penalty(eng, s, G[forced], n[forced] - lead[forced].sum(1, dtype=np.int16))
    return lead, chooser


def _reveal(s, at, attempted):
    """A failed throw: every attempted card is shown to the table (§7.4.1); rows ``at``
    (``G·4 + leader``) of the players' revealed cards."""
    revealed = s.revealed.reshape(-1, 54)
    put_rows(revealed, at, np.maximum(rows(revealed, at), attempted))


def _unreveal(s, at, play):
    """Played cards are no longer "revealed and unplayed" (§7.4.1): rows ``at`` (``G·4 +
    seat``) of the players' revealed cards lose ``play``; written only if any of them holds
    revealed cards (uint8 throughout: ``rev - min(rev, play)`` cannot wrap)."""
    revealed = s.revealed.reshape(-1, 54)
    rev = rows(revealed, at)
    if rev.any():
        put_rows(revealed, at, rev - np.minimum(rev, play))


def _penalised(eng) -> bool:
    """A failed throw costs points (``throw_penalty`` is not ``NONE``, §7.4.5): without, the
    cards returned need not be counted."""
    return bool(eng.switches.penalty_fixed or eng.switches.penalty_per_card)


def _charge_penalty(eng, s, G, returned):
    """§7.4.5: the failed throw's penalty, by the cards that go back to the leader's hand."""
    sw = eng.switches
    if not G.size:
        return
    leader = s.leader[G].astype(np.int64)
    amount = sw.penalty_fixed + sw.penalty_per_card * returned.astype(np.int16)
    sign = np.where(s.dealer_side[G, leader], 1, -1)  # the dealer side's fail helps attackers
    s.penalty[G] += (sign * amount).astype(np.int32)


def _lead_facts(eng, s, G, lead):
    """The facts of leads ``lead`` in games ``G`` that the follows and the trick read: cards,
    effective suit, pairs, and whether the scalar rules judge them (``_scalar_lead``)."""
    if eng.switches.pairs:
        pairs = count_sum(lead >= 2)
        tractor = _scalar_lead(eng, lead, rows(s.idx, G), pairs)
    else:
        pairs, tractor = 0, False
    return count_sum(lead), first_suit(s, G, lead), pairs, tractor


def set_leads(eng, s, G, lead, facts=None, chosen=False):
    """The lead stands: it leaves the leader's hand and opens the trick. ``facts``: the
    leads' ``_lead_facts`` if the caller knows them; ``chosen``: the games come from phase
    CHOOSE (``step_choose``). Otherwise they are in phase PLAY, where no game has
    candidates (only a throw that puts its game in CHOOSE sets them): nothing to clear."""
    if not G.size:
        return
    leader = s.leader[G]  # int8[g]
    at = G * 4 + leader  # int64[g]: rows of the [B·4, 54] views of hands, trick, revealed
    put_rows(s.lead, G, lead)
    s.lead_n[G], s.lead_suit[G], s.lead_pairs[G], s.lead_tractor[G] = (
        _lead_facts(eng, s, G, lead) if facts is None else facts)
    hands = s.hands.reshape(-1, 54)
    put_rows(hands, at, rows(hands, at) - lead)
    _unreveal(s, at, lead)
    put_rows(s.trick.reshape(-1, 54), at, lead)
    put_rows(s.selection, G, 0)
    if chosen:
        waited = s.n_candidates[G] > 0
        if waited.any():
            s.candidates[G[waited]] = 0
        s.n_candidates[G] = 0
        s.phase[G] = PLAY
    s.in_trick[G] = 1
    s.to_act[G] = (leader + 1) & 3  # int8


def mask_choose(eng, s, G, out):
    """Legal actions in phase CHOOSE: one id per failed-throw candidate (§7.4.3)."""
    base = eng.layout.choose_base
    num = eng.layout.num_choices
    out[:, base:base + num] = np.arange(num) < s.n_candidates[G][:, None]


def step_choose(eng, s, G, actions):
    """The leader's next player picks which failed unit is led (NEXT_PLAYER, §7.4.3)."""
    chosen = s.candidates[G, actions - eng.layout.choose_base]
    returned = s.selection[G].sum(1, dtype=np.int16) - chosen.sum(1, dtype=np.int16)
    _charge_penalty(eng, s, G, returned)
    set_leads(eng, s, G, chosen, chosen=True)


def commit_follows(eng, s, G, card, one_card) -> EndedHands | None:
    """Complete follows (the selection reached the lead's size) are played to the trick;
    ``one_card``: ``bool[g]`` the follow is one card, ``card``: ``int64[g]`` that card (not in
    the selection: it goes straight to the trick); a longer follow's selection is the play
    (its ``card`` is not read)."""
    if not G.size:
        return None
    seats = s.to_act[G]  # int8[g]
    at = G * 4 + seats  # int64[g]: rows of the [B·4, 54] views of hands, trick, revealed
    suit = s.lead_suit[G]
    longer = (~one_card).nonzero()[0]
    one = one_card.nonzero()[0] if longer.size else None  # None: every follow is one card
    # one card: flat updates of its entry (its trick row is empty before the play); a follow is
    # short in the led suit iff it holds a card of another suit: for one card a lookup of its
    # suit, for longer follows a pass over their rows
    flat = at * 54 + card
    short = s.eff.reshape(-1).take(G * 54 + card) != suit  # (replaced for longer follows)
    if one is not None:
        flat = flat[one]
    hands1, trick1, rev1 = s.hands.reshape(-1), s.trick.reshape(-1), s.revealed.reshape(-1)
    hands1[flat] -= 1
    trick1[flat] = 1
    rev = rev1.take(flat)
    if rev.any():  # revealed and unplayed (§7.4.1): no longer once played
        rev1[flat] = rev - (rev > 0).view(np.uint8)
    if longer.size:
        GL, atL = G[longer], at[longer]
        play = rows(s.selection, GL)
        short[longer] = (play > suit_rows(eng, s, GL, suit[longer])).any(1)
        hands = s.hands.reshape(-1, 54)
        put_rows(hands, atL, rows(hands, atL) - play)
        _unreveal(s, atL, play)
        put_rows(s.trick.reshape(-1, 54), atL, play)
        put_rows(s.selection, GL, 0)
    V = short.nonzero()[0]  # §8.1: now void in E (few rows: a flat index, only if any)
    if V.size:
        s.voids.reshape(-1)[(at * 5 + suit)[V]] = True
    in_trick = s.in_trick[G] + np.int8(1)
    s.in_trick[G] = in_trick
    s.to_act[G] = (seats + 1) & 3  # int8
    return end_tricks(eng, s, G[in_trick == 4])


def first_suit(s, G, cards) -> np.ndarray:
    """``int8[g]`` — effective suit of the first card of each row of ``cards`` (``uint8[g,
    54]``; a lead or selection, one suit), in game ``G[i]``: a flat gather (``s.eff[G, c]``
    goes through numpy's general two-axis index, about 3x the cost)."""
    # the argmax of the counts' bytes read as bool (numpy's bool argmax finds the first
    # non-zero byte): no ``cards > 0`` pass
    return s.eff.reshape(-1).take(G * 54 + cards.view(bool).argmax(1))


def suit_rows(eng, s, G, suits) -> np.ndarray:
    """``uint8[g, 54]`` — 255 for the cards of effective suit ``suits[i]`` in game ``G[i]``, 0
    for the others (rows of ``Tables.suit_mask``: one gather instead of comparing the games'
    ``eff`` rows). ``counts & m`` keeps the suit's counts; ``counts > m`` marks the others."""
    return eng.tables.suit_mask.take(s.ctx[G].astype(np.int64) * 5 + suits, axis=0)


def end_tricks(eng, s, G) -> EndedHands | None:
    """Four plays are in: the winner takes the points and leads next (§9.3); returns the hands
    whose last trick this was."""
    if not G.size:
        return None
    leader = s.leader[G]  # int8[g]
    tricks = rows(s.trick, G)  # (g, 4, 54) by seat
    order = _ORDER4.take(leader, axis=0)  # playing order -> seat: (leader + k) % 4
    G4 = G * 4  # the games' first rows of the [B·4, 54] views, their seat 0's entries of [B, 4]
    plays = s.trick.reshape(-1, 54).take(G4[:, None] + order, axis=0)  # in playing order
    scalar = s.lead_tractor[G]
    if eng.switches.scalar_throw_winner:  # rare option: throws go to the scalar rules
        scalar |= np.array([len(rules_play.decompose(
            s.lead[g], eng.tables.context(int(s.level[g]), int(s.trump[g])))) > 1 for g in G])
    win = _winners(eng, s, G, plays)
    for i in scalar.nonzero()[0]:
        g = int(G[i])
        ctx = eng.tables.context(int(s.level[g]), int(s.trump[g]))
        win[i] = rules_play.trick_winner(list(plays[i]), ctx, eng.cfg)
    win_seat = (leader + win) & 3  # int64[g]
    won = G4 + win_seat  # the winner's entry of [B, 4] fields, his row of [B·4, 54] views
    # points of the four plays: one float32 product (exact: at most 100·decks points)
    pts = (tricks.reshape(G.size, 216).astype(np.float32) @ _POINTS4).astype(np.int16)
    attackers_won = ~s.dealer_side.reshape(-1).take(won)
    s.captured[G] += pts * attackers_won
    s.points_won.reshape(-1)[won] += pts
    put_rows(s.played, G, rows(s.played, G) + tricks)
    put_rows(s.last_lead, G, rows(s.lead, G))
    s.last_winner[G] = win_seat
    put_rows(s.trick, G, 0)
    put_rows(s.lead, G, 0)
    s.lead_n[G] = 0
    s.in_trick[G] = 0
    s.tricks_done[G] += 1
    # after a trick every hand holds as many cards: the hand is over when the winner's is empty
    over = _card_sums(s.hands.reshape(-1, 54).take(won, axis=0)) == 0  # (exact: cheaper than any)
    O = over.nonzero()[0]
    if not O.size:  # no hand ends (most steps): every winner leads next
        s.leader[G] = win_seat
        s.to_act[G] = win_seat
        return None
    on = ~over
    K, next_leader = G[on], win_seat[on]
    s.leader[K] = next_leader
    s.to_act[K] = next_leader
    plays, win_seat = rows(plays, O), win_seat[O]
    return EndedHands(G[O], win_seat, plays,
                      kitty_bonus(eng, s, G[O], win_seat, plays, win[O], attackers_won[O]))


_POINTS4 = np.tile(cards.POINTS, 4).astype(np.float32)  # card points of a [4·54] trick row


def kitty_bonus(eng, s, G, win_seat, plays, win, attackers_won=None) -> np.ndarray:
    """``int64[g]`` — kitty bonus of finished hands (§10.2), or -1 where the basis holds a
    tractor, triple or quad (then the scalar ``rules.scoring`` decides). Otherwise the
    multiplier is 2, or f(pair). ``win``: index (0 = leader) of the last trick's winner in
    ``plays``; ``attackers_won``: ``bool[g]`` the winner is an attacker, if known."""
    bonus = np.zeros(G.size, dtype=np.int64)
    if attackers_won is None:
        attackers_won = ~s.dealer_side[G, win_seat]
    D = attackers_won.nonzero()[0]  # an attacker won the last trick: dug
    if not D.size:
        return bonus
    basis = plays[D, 0] if eng.cfg.kitty_multiplier_basis == "LEAD" else plays[D, win[D]]
    pairs = count_sum(basis >= 2)
    mult = np.where(pairs > 0, eng.switches.pair_factor, 2)
    value = (rows(s.kitty, G[D]) @ cards.POINTS).astype(np.int64) * mult
    if eng.switches.pairs:
        value = np.where(_scalar_lead(eng, basis, rows(s.idx, G[D]), pairs), -1, value)
    bonus[D] = value
    return bonus


def _winners(eng, s, G, plays):
    """Index (0 = leader) of each trick's winner for leads of pairs and singles (§9.3); a ruff
    needs as many trump pairs as the lead (``EXACT`` and ``COUNT_ONLY`` agree here: no chains,
    and the value is the top pair, or the top card for singles). ``plays``: ``uint8[g, 4, 54]``
    in playing order.

    Played in turn, a follow takes the trick when it beats the best so far and nobody has
    ruffed, a ruff when nobody has ruffed or it beats the best ruff: so the winner is the first
    of the highest ruffs if anyone ruffed, else the first of the highest follows in E (the lead
    among them). Each play gets one ``int8`` key — its value (an order index, 0-63), plus 64 for
    a ruff, or below -64 when it does not compete — and the winner is the first maximum."""
    suit = s.lead_suit[G]  # int8[g]
    # most tricks are led by one card: every play is one card held once, so its key is the
    # dot product of its counts with the game's row of ``Tables.play_key`` (by context and led
    # suit) in uint8 (the key's two's complement byte; no search for the card); the keys of
    # longer tricks (whose products wrap) are replaced from their card counts
    ctx5 = s.ctx[G] * np.int16(5)  # int16[g] (ctx·5 + E < 325)
    key_rows = eng.tables.play_key.view(np.uint8).reshape(-1, 54).take(ctx5 + suit, axis=0)
    key = np.einsum("gkc,gc->gk", plays, key_rows).view(np.int8)  # int8[g, 4]
    M = (s.lead_n[G] > 1).nonzero()[0]
    if M.size:
        key[M] = _play_keys(eng, s, G[M], rows(plays, M), rows(key_rows, M).view(np.int8),
                            (ctx5 + suit)[M], ctx5[M])
    return key.argmax(1)


def _play_keys(eng, s, G, plays, keys, ctx_e, ctx5):
    """``_winners``' keys (``int8[g, 4]``) of tricks led by more than one card, from their
    counts: a play competes when it is all in the led suit E (a follow) or, E not trump, all
    trump (a ruff), and holds as many pairs as the lead; its value is the order index of its
    top pair when the lead holds pairs, else of its top card (+64 for a ruff).

    ``keys``: the games' rows of ``Tables.play_key`` (``int8[g, 54]``: a card's order index, +64
    if it ruffs, -128 + order index if it neither follows nor ruffs); ``ctx_e``, ``ctx5``: the
    games' context · 5 plus E, and plus 0. A play of the lead's n cards is all in E (all
    trump) iff n of its cards are: one uint8 dot product per play with the rows of E and of
    trump (``Tables.in_suit``). Its key is then the highest key among its pairs (or cards),
    which already holds the ruff's +64 (E is trump: the two rows are the same, and no key
    holds +64)."""
    k = keys[:, None, :]  # [g, 1, 54]
    in_e_t = eng.tables.in_suit.reshape(-1, 54).view(np.uint8).take(
        np.concatenate((ctx_e, ctx5 + TRUMP)), axis=0).reshape(2, G.size, 54)
    of_kind = np.einsum("gkc,tgc->tgk", plays, in_e_t)  # uint8[2, g, 4]: cards in E, in trump
    n = s.lead_n[G].view(np.uint8)[:, None]
    pairs_led = s.lead_pairs[G]
    pair_cards = plays // 2 if eng.switches.quads else plays >= 2  # quad: 2 pairs
    pairs = _card_sums(pair_cards.reshape(-1, 54)).reshape(G.size, 4)  # < 128: int8
    # the value's cards: its pairs when the lead holds pairs (count > 1), else every card (> 0)
    top = np.where(plays > (pairs_led > 0).view(np.uint8)[:, None, None], k, np.int8(-128)).max(2)
    competes = ((of_kind[0] == n) | (of_kind[1] == n)) & (pairs >= pairs_led[:, None])
    return np.where(competes, top, np.int8(-128))
