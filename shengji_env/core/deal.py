"""The DECLARE phase over many games at once: dealing, declarations, the closing window.

Decision points exactly as ``rules.game`` (RULES.md §4.2-4.4): after each card its receiver is
asked only if a declaration would be accepted; then the closing window. Functions take the
engine (configuration and tables), the ``BatchState`` and ``G``, an ``int64[g]`` array of game
indices to work on. Functions that can close the window return the games whose window closed
(``int64[c]``); the caller hands them to ``hand.finish_declaring``.
"""

from __future__ import annotations

import numpy as np

from ..rules import seats
from ..rules.actions import DECLARE_BASE, PASS
from .counts import put_rows
from .counts import rows as game_rows

_COLS = np.arange(4)
_DECLARABLE = np.array([0, 13, 26, 39, 52, 53])  # + level: the level card of each suit; LJ, BJ
_LEVEL_COLS = np.array([True, True, True, True, False, False])
# level -> the card ids of the declarable columns (the level card of each suit, LJ, BJ)
_HELD_COLS = _DECLARABLE + np.where(_LEVEL_COLS, np.arange(13)[:, None], 0)  # int64[13, 6]
_ONE = np.uint8(1)
_RECEIVERS = (np.arange(4)[:, None] + _COLS) & 3  # first drawer -> receiver of position q
# passes (clipped to 0-4) -> which of the next four seats are still to be asked (4 - passes)
_STILL_ASKED = _COLS < 4 - np.arange(5)[:, None]
_POSITIONS = np.arange(4 * 54, dtype=np.int16)  # card j of the deal (4 · hand size ≤ 216)
_POSITIONS64 = np.arange(4 * 54)  # the same as int64 (deal positions in flat indexes)


def declare_mask(eng, counts, seat, s, G) -> np.ndarray:
    """``bool[g, ..., D]`` — DECLARE actions acceptable for ``seat`` holding ``counts``.

    ``counts``: ``int8[g, ..., 6]`` level cards per suit, LJ, BJ; ``seat``: ``int[g, ...]``;
    the current declaration of games ``G`` is broadcast over the middle axes. §4.3-4.4.
    """
    T = eng.tables
    return (counts.take(T.decl_col, axis=-1) >= T.decl_k) & _allowed_of(eng, s, G, seat)


def _allowed_of(eng, s, G, seat) -> np.ndarray:
    """``bool[g, ..., D]`` — ``_allowed`` for seats ``seat`` (``int[g, ...]``) only."""
    cur = _current(eng, s, G)
    if cur is None:  # a declaration outside the action table: the formula for every seat
        allowed = _allowed(eng, s, G)  # bool[g, 4, D]
        rows = np.arange(G.size).reshape((-1,) + (1,) * (seat.ndim - 1))
        return allowed[rows, seat]
    # the table's rows for the asked seats only: (the seat made the current declaration, it)
    lead = (-1,) + (1,) * (seat.ndim - 1)
    same_p = (s.decl_player[G].reshape(lead) == seat).view(np.int8)
    return _declaration_table(eng)[0][same_p, cur.reshape(lead)]


def _current(eng, s, G):
    """``int64[g]`` — the current declaration of games ``G`` as its row of the declaration
    table (the action index, D: none), or None if one is not in the table."""
    index = _declaration_table(eng)[1]
    try:
        cur = index[s.decl_kind[G] + 1, s.decl_suit[G] + 1, s.decl_k[G]]
    except IndexError:  # not a declaration of the action table
        return None
    return None if cur.min(initial=0) < 0 else cur


def _allowed(eng, s, G, table=None) -> np.ndarray:
    """``bool[g, 4, D]`` — DECLARE actions each seat may make over the current declaration of
    games ``G``, whatever it holds (§4.3-4.4): rows of a table over (same player, current
    declaration), built once per ruleset from ``_acceptable``. ``table``: another table over
    (same player, current declaration) to read instead (``[2, D + 1, ...]``, such as
    ``_fewest_table``), with ``fallback(acceptable)`` turning the formula's answer into its
    rows when a declaration is outside the action table."""
    cur = _current(eng, s, G)
    if cur is None:  # not a declaration of the action table: the formula itself
        out = _acceptable(eng, _COLS[None, :, None] == s.decl_player[G].reshape(-1, 1, 1),
                          *(a[G].reshape(-1, 1, 1) for a in (s.decl_kind, s.decl_suit, s.decl_k)))
        return out if table is None else table[1](out)
    same_p = (_COLS[None, :] == s.decl_player[G][:, None]).view(np.int8)
    return (_declaration_table(eng)[0] if table is None else table[0])[same_p, cur[:, None]]


def _fewest(eng, allowed) -> np.ndarray:
    """``int8[..., 6]`` — for ``allowed`` (``bool[..., D]`` DECLARE actions) the fewest cards of
    each declarable column (level card of each suit, LJ, BJ) an allowed action needs (127:
    none)."""
    T = eng.tables
    cols = T.decl_col[:, None] == np.arange(6)  # bool[D, 6]: the column each action counts
    return np.where(allowed[..., None] & cols, T.decl_k[:, None], np.int8(127)).min(-2)


def _fewest_table(eng):
    """``(int8[2, D + 1, 6], fallback)``: ``_fewest`` of every row of the declaration table
    (cached on the engine's tables), for ``_allowed(..., table=...)``."""
    T = eng.tables
    cached = T.__dict__.get("_fewest_table")
    if cached is None:
        cached = T.__dict__["_fewest_table"] = (_fewest(eng, _declaration_table(eng)[0]),
                                                lambda allowed: _fewest(eng, allowed))
    return cached


def _declaration_table(eng):
    """``(bool[2, D + 1, D], int64[4, 6, 6], int64[D])``: ``_acceptable`` for (same player?,
    current declaration = action index or D for none), (kind + 1, suit + 1, k) → that index
    (-1: not in the table), and each DECLARE action's own index there (the current declaration
    once it is made). Cached on the engine's tables."""
    T = eng.tables
    cached = T.__dict__.get("_declaration_table")
    if cached is None:
        D = T.decl_k.size
        kinds, suits = np.append(T.decl_kind, -1), np.append(T.decl_suit, -1)
        ks = np.append(T.decl_k, 0)  # no declaration: decl_kind = decl_suit = -1, decl_k = 0
        same = np.array([False, True])[:, None, None]
        table = _acceptable(eng, same, kinds[None, :, None], suits[None, :, None], ks[None, :, None])
        index = np.full((4, 6, 6), -1, dtype=np.int64)
        index[kinds + 1, suits + 1, ks] = np.arange(D + 1)
        cached = T.__dict__["_declaration_table"] = (table, index, index[kinds[:D] + 1,
                                                                         suits[:D] + 1, ks[:D]])
    return cached


def _declaration_facts(eng) -> np.ndarray:
    """``int8[3, D]``: each DECLARE action's kind, suit and cards (``Tables.decl_kind``,
    ``decl_suit``, ``decl_k`` as one array: one take for all three; cached)."""
    T = eng.tables
    cached = T.__dict__.get("_declaration_facts")
    if cached is None:
        cached = T.__dict__["_declaration_facts"] = np.stack([T.decl_kind, T.decl_suit,
                                                              T.decl_k]).astype(np.int8)
    return cached


def _action_cards(eng) -> np.ndarray:
    """``int64[13, D]``: at each level, the card DECLARE action ``a`` shows and counts (the
    level card of its suit, or its joker: ``_HELD_COLS`` of the action's column; cached on the
    engine's tables)."""
    T = eng.tables
    cached = T.__dict__.get("_action_cards")
    if cached is None:
        cached = T.__dict__["_action_cards"] = _HELD_COLS.take(T.decl_col, axis=1)
    return cached


def _acceptable(eng, same_p, dk, ds, dK) -> np.ndarray:
    """The §4.3-4.4 test on broadcast arrays: ``same_p`` the seat made the current declaration
    (kind ``dk``, suit ``ds``, ``dK`` cards; none: ``dK = 0``); last axis: the D actions."""
    T, cfg = eng.tables, eng.cfg
    k, kind, suit = T.decl_k, T.decl_kind, T.decl_suit
    stronger = (k > dK) | ((k == dK) & (kind > dk))  # (k, kind) lexicographic; none: dK = 0
    same_id = (kind == dk) & ((kind != 0) | (suit == ds))
    ok = ~same_p & stronger
    if cfg.allow_self_overturn:  # (the options are plain bools: no all-False terms)
        ok |= same_p & ~same_id & stronger
    if cfg.allow_reinforce:
        ok |= same_p & same_id & (k > dK)
    if not cfg.allow_no_trump_declaration:
        ok &= kind == 0
    return ok


def held_counts(s, G, who) -> np.ndarray:
    """``int8[g, 6]`` — level cards of each suit, LJ and BJ held now by seats ``who``
    (``int[g]``) of G; ``int8[g, k, 6]`` for ``who`` ``int[g, k]``."""
    cols = _HELD_COLS.take(s.level[G], axis=0)  # int64[g, 6]: the columns' card ids
    who = np.asarray(who)
    if who.ndim == 2:
        at = ((G[:, None] * 4 + who) * 54)[:, :, None] + cols[:, None, :]
    else:
        at = ((G * 4 + who) * 54)[:, None] + cols
    # one flat take (numpy's general three-axis index costs more)
    return s.hands.reshape(-1).take(at).astype(np.int8)


def post_deal_mode(eng, s, G) -> np.ndarray:
    """``bool[g]`` — declarations wait for the end of the deal (§4.7, later hands)."""
    return (eng.cfg.declaration_mode == "POST_DEAL_PARTNER_FIRST") & ~s.first_hand[G]


def prepare_counts(eng, s, G, level=None) -> np.ndarray:
    """Fill ``deal_counts`` for new hands: after card j, its receiver's declarable counts.
    ``level``: the games' levels if the caller has them. Returns the rows stored
    (``int8[g, 4h, 6]``, for ``plan_deal``)."""
    h = s.deal_counts.shape[1] // 4  # (a read of the shape: ``cfg.hand_size`` computes it)
    if level is None:
        level = s.level[G]
    # card (level, id) -> one-hot of its declarable column (a row of zeros for the others)
    at = _LEVEL_ROWS.take(level)[:, None] + game_rows(s.deck, G)[:, :4 * h]  # int16[g, 4h]
    onehot = _DECLARABLE_ONEHOT.take(at, axis=0)  # int8[g, 4h, 6]
    # the running sum over rounds of a round's 24 counts, as three uint64 words of eight byte
    # lanes each (exact: a lane holds a count of one column, ≤ decks, and never carries; 8x
    # fewer elements than an int8 cumsum, which numpy runs element by element down the axis)
    counts = (onehot.reshape(G.size, h, 24).view(np.uint64).cumsum(axis=1).view(np.int8)
              .reshape(G.size, 4 * h, 6))
    put_rows(s.deal_counts, G, counts)
    return counts


_LEVEL_ROWS = np.arange(0, 13 * 54, 54, dtype=np.int16)  # level -> its first row below


def _declarable_onehot() -> np.ndarray:
    """``int8[13·54, 6]``: row ``level·54 + card`` one-hot at the card's declarable column (its
    suit for a level card, 4 LJ, 5 BJ), zeros for other cards."""
    level, card = np.divmod(np.arange(13 * 54), 54)
    col = np.where((card < 52) & (card % 13 == level), card // 13, -1)
    col = np.where(card == 52, 4, np.where(card == 53, 5, col))
    out = (col[:, None] == np.arange(6)).astype(np.int8)
    out.flags.writeable = False
    return out


_DECLARABLE_ONEHOT = _declarable_onehot()


def _deal_to(s, G, start, stop):
    """Put cards ``start[i] .. stop[i]-1`` of each game's deck into the receivers' hands
    (``start[i] <= stop[i]``)."""
    count = stop - start
    width = int(count.max(initial=0))
    if width == 0:
        return
    js = start[:, None] + _POSITIONS64[:width]
    j = js[js < stop[:, None]]
    g = G.repeat(count)  # the game of each card, in the same order
    # one unbuffered add (two identical cards may reach one seat inside a window) on a flat
    # index, of a uint8 one: ``ufunc.at`` with one index array and a value of the array's dtype
    # takes numpy's fast loop (a Python int 1 casts per element, ~100x slower)
    seat = (s.first_drawer[g] + j) % 4
    at = (g * 4 + seat) * 54 + s.deck.reshape(-1)[g * s.deck.shape[1] + j]
    np.add.at(s.hands.reshape(-1), at, _ONE)


def plan_deal(eng, s, G, quiet=None, fresh=False, cur=None, counts=None, player=None):
    """Recompute ``deal_next`` for games G: where the next deal decision is, given the current
    declaration (which changes only when someone declares). ``quiet``: ``bool[g]`` games where
    nobody is asked during the deal (POST_DEAL_PARTNER_FIRST later hands, FIXED); ``fresh``:
    no declaration yet in any of them (a new hand: no lookup of the declarations); ``cur``:
    their current declarations as rows of the declaration table, when the caller knows them
    (``_current`` otherwise), and ``player`` their ``decl_player``; ``counts``: their rows of
    ``deal_counts``, when the caller has them. Returns the games' new rows of ``deal_next``
    (``int16[g, 4h + 1]``)."""
    total = s.deal_next.shape[1] - 1  # (a read of the shape: ``cfg.hand_size`` computes it)
    if not G.size:
        return np.empty((0, total + 1), dtype=np.int16)
    h = total // 4
    # After card j its receiver may declare iff he holds, in some declarable column, at least
    # the fewest cards an acceptable action of that column needs (``declare_mask`` with its
    # actions folded per column: a small [g, 4, 6] instead of [g, 4h, D]). Card j = 4·r + q
    # goes to seat (first drawer + q) % 4.
    if fresh:  # nobody has declared: every seat needs the same
        need = _fresh_need(eng)                                         # int8[1, 1, 24]
    else:
        need = _need_by_position(eng, s, G, cur, player)                # int8[g, 1, 24]
    # the six column tests of a round's four positions are 24 contiguous bools (one inner
    # loop per round); a position's "any" is the OR of its six as three uint16
    if counts is None:
        counts = game_rows(s.deal_counts, G)
    hit = np.greater_equal(counts.reshape(G.size, h, 24), need).view(np.uint16).reshape(
        G.size, total, 3)
    ok = hit[..., 0] | hit[..., 1] | hit[..., 2]  # uint16[g, 4h]: non-zero where asked
    if quiet is not None:
        ok = (ok != 0) & ~quiet[:, None]
    nxt = np.empty((G.size, total + 1), dtype=np.int16)  # the games' rows of deal_next
    nxt[:, total] = total
    np.minimum.accumulate(np.where(ok, _POSITIONS[:total], total)[:, ::-1], axis=1,
                          out=nxt[:, total - 1::-1])
    put_rows(s.deal_next, G, nxt)
    return nxt


def _fewest_needed(eng, s, G) -> np.ndarray:
    """``int8[g, 4, 6]`` — per seat of games G and declarable column (level card of each suit,
    LJ, BJ): the fewest cards of that column an acceptable DECLARE action needs (127: none)."""
    return _allowed(eng, s, G, _fewest_table(eng))


def _need_by_position(eng, s, G, cur=None, player=None) -> np.ndarray:
    """``int8[g, 1, 24]`` — ``_fewest_needed`` of the receivers of a round's positions q = 0-3
    (seat (first drawer + q) % 4), the six columns of each position in turn."""
    recv = _RECEIVERS.take(s.first_drawer[G], axis=0)  # int64[g, 4]: receiver of position q
    return _need_of_seats(eng, s, G, recv, cur, player).reshape(G.size, 1, 24)


def _need_of_seats(eng, s, G, seats, cur=None, player=None) -> np.ndarray:
    """``int8[g, 4, 6]`` — ``_fewest_needed`` of ``seats`` (``int[g, 4]``) of games G. The
    table's rows are read for those seats directly (same player: the seat made the current
    declaration), not read per seat and then gathered. ``cur``, ``player``: the games' current
    declarations (rows of the declaration table) and ``decl_player``, when the caller has them."""
    if cur is None:
        cur = _current(eng, s, G)
    if cur is None:  # a declaration outside the action table: the formula per seat
        return _fewest_needed(eng, s, G)[np.arange(G.size)[:, None], seats]
    if player is None:
        player = s.decl_player[G]
    same_p = (seats == player[:, None]).view(np.int8)
    return _fewest_table(eng)[0][same_p, cur[:, None]]


def _fresh_need(eng) -> np.ndarray:
    """``int8[1, 1, 24]`` — ``_fewest_needed`` of a seat where nobody has declared (the row of
    "no declaration" in ``_fewest_table``), for the four positions of a round (cached)."""
    T = eng.tables
    cached = T.__dict__.get("_fresh_need")
    if cached is None:
        none = _declaration_table(eng)[1][0, 0, 0]  # kind, suit -1 and k 0: no declaration
        cached = T.__dict__["_fresh_need"] = np.tile(_fewest_table(eng)[0][0, none], 4).reshape(
            1, 1, 24)
    return cached


_NONE = np.zeros(0, dtype=np.int64)


def advance_deal(eng, s, G, nxt=None) -> np.ndarray:
    """Deal until someone may declare (he is asked) or the deal is over (window opens);
    returns the games whose window closed. ``nxt``: as ``_deal``'s."""
    over = _deal(eng, s, G, nxt)
    if eng.cfg.declaration_mode == "FIXED" or not over.size:
        return over
    return advance_window(eng, s, over)


def _deal(eng, s, G, nxt=None) -> np.ndarray:
    """``advance_deal`` up to the closing window: deal, ask the receivers who may declare;
    returns the games whose deal is over, their window opened (with a fixed trump: closed).
    ``nxt``: ``deal_next`` at 0 of games about to be dealt their first card, when the caller
    has it."""
    if not G.size:
        return _NONE
    total = s.deal_next.shape[1] - 1  # (a read of the shape: ``cfg.hand_size`` computes it)
    if nxt is None:
        d0 = s.dealt[G]  # int16[g]
        nxt = s.deal_next[G, d0]  # int16[g]: the next card whose receiver is asked, d0 .. total
    else:  # a new hand: nothing dealt yet
        d0 = np.zeros(G.size, dtype=np.int16)
    found = nxt < total
    stop = nxt + found  # through that card, or to the deal's end (nxt = total)
    _deal_to(s, G, d0, stop)
    s.dealt[G] = stop
    if found.all():  # (the usual step: someone is asked in every game)
        s.to_act[G] = (s.first_drawer[G] + nxt) % 4
        return _NONE
    F = G[found]
    s.to_act[F] = (s.first_drawer[F] + nxt[found]) % 4
    over = G[~found]
    s.kitty[over] = 0
    # unbuffered (equal cards), on a flat index with a uint8 one (as ``_deal_to``)
    np.add.at(s.kitty.reshape(-1), (over[:, None] * 54 + game_rows(s.deck, over)[:, total:])
              .reshape(-1), _ONE)
    if eng.cfg.declaration_mode == "FIXED":
        return over
    if eng.cfg.declaration_mode == "POST_DEAL_PARTNER_FIRST":  # later hands: the dealer's partner
        post = post_deal_mode(eng, s, over)                    # opens the window
        s.window_seat[over] = np.where(post, seats.partner(s.dealer[over]), s.first_drawer[over])
    else:  # the first drawer opens it
        s.window_seat[over] = s.first_drawer[over]
    s.window_passes[over] = 0
    return over


def advance_window(eng, s, G) -> np.ndarray:
    """Closing window (§4.2): ask the next seat with a legal declaration; 4 passes close it.
    Returns the games whose window closed.

    Nothing changes while the window asks round the table, so the seats' answers are one
    ``declare_mask`` over the next four seats: the first of the ``4 - passes`` seats still to
    be asked that may declare is asked (the seats before it pass); if none may, the window
    closes after their passes."""
    if not G.size:
        return _NONE
    passes = s.window_passes[G]  # int8[g]
    seat0 = s.window_seat[G]  # int8[g]
    asked = _RECEIVERS.take(seat0, axis=0)  # int64[g, 4]: the next four seats in order
    # a seat may declare iff it holds, in some declarable column, the fewest cards an
    # acceptable action of that column needs (``declare_mask`` folded per column, as in
    # ``plan_deal``: [g, 4, 6] instead of [g, 4, D])
    ok = (held_counts(s, G, asked) >= _need_of_seats(eng, s, G, asked)).any(-1)
    left = 4 - passes  # seats still to be asked (those after the fourth pass are not)
    ok &= _STILL_ASKED.take(passes, axis=0, mode="clip")
    found = ok.any(1)
    k = np.where(found, ok.argmax(1), np.maximum(left, 0))  # passes before the answer
    seat = (seat0 + k) % 4
    s.window_seat[G] = seat
    s.window_passes[G] = passes + k
    s.to_act[G[found]] = seat[found]
    return G[~found]


def step_declare(eng, s, G, actions) -> np.ndarray:
    """Apply PASS / DECLARE for games G (phase DECLARE); returns the games whose window
    closed."""
    who = s.to_act[G]  # int8[g]
    dec = actions != PASS
    D, ds = G[dec], who[dec]
    a = actions[dec] - DECLARE_BASE
    kind, suit, k = _declaration_facts(eng).take(a, axis=1)  # int8[d] each
    s.decl_player[D], s.decl_kind[D], s.decl_suit[D], s.decl_k[D] = ds, kind, suit, k
    first = s.first_declarer[D]
    s.first_declarer[D] = np.where(first < 0, ds, first)
    cards = _action_cards(eng)  # [13, D]: the card shown, level card or joker
    card = cards.reshape(-1).take(np.multiply(s.level[D], cards.shape[1], dtype=np.int64) + a)
    at = (D * 4 + ds) * 54 + card  # int64[d]: (game, seat, card) in the flat shown
    shown = s.shown.reshape(-1)
    shown[at] = np.maximum(shown.take(at), k)
    # a new declaration moves the next decision point; it is the declarer's action (its row
    # of the declaration table: no lookup)
    cur = _declaration_table(eng)[2].take(a)
    window = s.window_seat[G] >= 0  # games in the closing window (the others still deal)
    if not window.any():  # the usual step: every game deals (no window bookkeeping)
        plan_deal(eng, s, D, cur=cur, player=ds)
        return advance_deal(eng, s, G)
    dealing = ~window
    plan_deal(eng, s, G[dealing & dec], cur=cur[dealing[dec]])
    W = G[window]
    s.window_passes[W] = np.where(dec[window], 0, s.window_passes[W] + 1)
    s.window_seat[W] = (who[window] + 1) % 4
    over = _deal(eng, s, G[dealing])
    if eng.cfg.declaration_mode == "FIXED":
        return np.concatenate([over, advance_window(eng, s, W)])
    # the windows that just opened and those that went on: one pass (rows are independent)
    return advance_window(eng, s, np.concatenate([over, W]) if over.size else W)


def mask_declare(eng, s, G, out):
    """Legal actions in phase DECLARE: PASS and the acceptable declarations (``declare_mask``
    with each action's count read from the hand directly: one gather of ``[g, D]`` cards)."""
    who = s.to_act[G]  # int8[g]
    out[:, PASS] = True
    T = eng.tables
    at = ((G * 4 + who) * 54)[:, None] + _action_cards(eng).take(s.level[G], axis=0)
    holds = s.hands.reshape(-1).take(at) >= T.decl_k  # (uint8 counts against int8: exact)
    out[:, DECLARE_BASE:DECLARE_BASE + T.decl_k.size] = holds & _allowed_of(eng, s, G, who)



__all__ = ["advance_deal", "advance_window", "mask_declare", "plan_deal", "post_deal_mode",
           "prepare_counts", "step_declare"]
