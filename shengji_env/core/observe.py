"""Observation encoding: one flat ``float32[N]`` per decision, seats relative to the observer.

Relative seat ``r`` = ``(seat - observer) % 4``: 0 = me, 1 = my next player, 2 = my partner,
3 = the player before me. Card blocks are count vectors over the 54 identities (values 0..decks).
Nothing hidden is encoded: other seats' hands appear only through what the table has seen
(plays, declarations, failed throws, voids). Layout (2 decks, default rules; ``N = 1121``):

============  ======  ====================================================================
block         size    meaning
============  ======  ====================================================================
hand          54      my cards (including those in my current selection)
selection     54      cards I have selected so far for the play / bury being built
trick         4×54    cards played to the current trick, by relative seat
trick_leader  4       one-hot relative seat that led the current trick (zeros: none yet)
played        4×54    every card played in earlier and current tricks, by relative seat
shown         4×54    level cards / jokers shown in declarations, by relative seat
revealed      4×54    cards revealed by a failed throw and not played since, by relative seat
kitty         54      the kitty: what the dealer picked up (bury) / buried (later); dealer only
voids         4×5     known voids per relative seat in S, H, C, D, trump (failed to follow)
level         13      one-hot level rank of this hand (2..A)
trump         6       one-hot trump S, H, C, D, NT, or "not decided yet"
dealer        5       one-hot relative seat of the dealer, or "not decided yet"
declarer      5       one-hot relative seat of the current declaration, or none
declaration   4       kind one-hot (level, LJ, BJ) + cards shown / decks
attacker_points 1     attackers' points so far (tricks and penalties) / (100·decks)
tricks_done   1       tricks done / tricks per hand
lead_size     1       cards in the current lead / hand size
cards_dealt   1       cards dealt / cards to deal
leading       1       1 if I am to lead the current trick
dealer_side   1       1 if I am on the dealer side (0 while the dealer is undecided)
phase         6       one-hot DECLARE, NAME, BURY, PLAY, CHOOSE, OVER
team_levels   26      one-hot level of my team, then of the other team (match progress)
candidates    C×54    failed-throw units to choose from (only with NEXT_PLAYER; else absent;
                      C = rules.actions.max_choices(decks): 5 for 1-2 decks, 8 for 3, 10 for 4)
============  ======  ====================================================================

Find-friends (``partnership="FIND_FRIEND"``, RULES.md §10.6) changes the layout (the default one
stays frozen): ``phase`` has 7 entries (… OVER, FRIEND), ``team_levels`` is omitted (levels are
per player), and these blocks are appended:

============  ======  ====================================================================
friend_card   55      one-hot friend card identity, or "not named yet"
my_side       3       one-hot what I know of my side: dealer side, attackers, not known
                      (``rules.seats.known_side``: the dealer and a seat that can deduce it
                      know early; the others learn when the friend shows himself)
friend_shown  5       one-hot relative seat of the friend once he has played a copy of the
                      friend card, or "not yet" (a dealer alone is never shown)
friend_trick  1       (trick in which he showed himself + 1) / tricks per hand; 0 before
seat_levels   4×13    one-hot level of each relative seat
============  ======  ====================================================================

and two existing blocks change meaning so that they do not leak the hidden partnership:
``dealer_side`` is 1 iff ``my_side`` is "dealer side", and ``attacker_points`` holds the points
won in tricks by seats not known to be on the dealer side (not the dealer, not the shown friend)
— before the reveal that is "points won by the non-dealer players", as the table tracks them in
real play; it includes throw penalties only once the friend is shown. The true attackers' score
(state ``captured``) decides the hand.

``layout(cfg)`` returns the offsets; ``decode(observation, cfg)`` gives an
``ObservationView`` with the blocks by name, so agents never read offsets.

The default layout (2 decks, default rules) is frozen: new blocks appear only with the option
that needs them; a change to the default layout bumps the environment version (``aec.py``'s
version history). Observation version history:

* ``shengji_v0`` (0.1.0): the layout above. The six one-wide blocks from ``attacker_points`` to
  ``dealer_side`` were one block named ``scalars`` before 0.2.0 (same offsets and values).
  3 and 4 decks (issue 12) use the same blocks (card counts up to 3 or 4); only ``candidates``
  grows with the deck count. The 1- and 2-deck layouts are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..rules import seats
from ..rules.actions import Phase, max_choices
from ..rules.seats import KNOWN_DEALER_SIDE, known_side

BURY, PLAY = int(Phase.BURY), int(Phase.PLAY)  # plain ints: enum lookups cost in hot loops
SCALARS = ("attacker_points", "tricks_done", "lead_size", "cards_dealt", "leading", "dealer_side")
# ROTATE[seat, r]: the absolute seat at relative seat r of ``seat``'s observation
ROTATE = (np.arange(4)[:, None] + np.arange(4)) % 4  # int64[4, 4]
# LEADER_PATTERN[r]: the trick_leader block's 4 bytes, one-hot at relative seat r (r = 4: none)
LEADER_PATTERN = np.eye(5, 4, dtype=np.uint8).view(np.uint32).ravel()  # uint32[5]
_TRUMP_COLUMN = np.arange(6)  # int64[6]: the trump block's column of trump 0-4, and of -1 (5)
CARD_BLOCKS = {"hand": 1, "selection": 1, "trick": 4, "played": 4, "shown": 4, "revealed": 4,
               "kitty": 1}


def _blocks(cfg) -> list[tuple[str, int]]:
    friends = cfg.partnership == "FIND_FRIEND"
    # played, shown and revealed stay adjacent: the one-game observation rotates them together
    blocks = [("hand", 54), ("selection", 54), ("trick", 216), ("trick_leader", 4),
              ("played", 216), ("shown", 216), ("revealed", 216), ("kitty", 54),
              ("voids", 20), ("level", 13), ("trump", 6), ("dealer", 5), ("declarer", 5),
              ("declaration", 4), *((name, 1) for name in SCALARS), ("phase", 7 if friends else 6)]
    if not friends:
        blocks.append(("team_levels", 26))
    if cfg.failed_throw_choice == "NEXT_PLAYER":
        blocks.append(("candidates", max_choices(cfg.decks) * 54))
    if friends:
        blocks += [("friend_card", 55), ("my_side", 3), ("friend_shown", 5), ("friend_trick", 1),
                   ("seat_levels", 52)]
    return blocks


@lru_cache(maxsize=64)
def layout(cfg) -> dict[str, slice]:
    """Block name → slice into the observation vector, for ``cfg`` (a ``Rules``; cached)."""
    out, at = {}, 0
    for name, size in _blocks(cfg):
        out[name] = slice(at, at + size)
        at += size
    return out


@lru_cache(maxsize=64)
def size(cfg) -> int:
    """N, the length of the observation vector under ``cfg`` (cached)."""
    return sum(s for _, s in _blocks(cfg))


@dataclass
class ObservationView:
    """An observation by name. Card arrays are ``uint8`` counts; relative seats as above."""

    hand: np.ndarray          # uint8[54]
    selection: np.ndarray     # uint8[54]
    trick: np.ndarray         # uint8[4, 54]
    trick_leader: int         # relative seat, -1 if nobody has led yet
    played: np.ndarray        # uint8[4, 54]
    shown: np.ndarray         # uint8[4, 54]
    revealed: np.ndarray      # uint8[4, 54]
    kitty: np.ndarray         # uint8[54]
    voids: np.ndarray         # bool[4, 5]
    level: int                # rank index 0-12
    trump: int                # 0-3 suit, 4 NT, -1 not decided
    dealer: int               # relative seat, -1 not decided
    declarer: int             # relative seat of the current declaration, -1 none
    declaration_kind: int     # 0 level, 1 LJ, 2 BJ, -1 none
    declaration_count: int    # cards shown in the current declaration
    attacker_points: float    # attackers' points so far (raw points)
    tricks_done: int
    lead_size: int            # cards in the current lead (0 if none)
    cards_dealt: int          # cards dealt so far in this hand
    leading: bool             # I am leading the current trick
    dealer_side: bool         # I am on the dealer side
    phase: Phase
    team_levels: tuple | None  # (my team, other team), rank indices; None in find-friends mode
    candidates: np.ndarray | None  # uint8[max_choices(decks), 54] or None
    # find-friends mode only (None otherwise)
    friend_card: int | None = None    # card id, -1 not named yet
    my_side: int | None = None        # rules.seats.KNOWN_DEALER_SIDE / KNOWN_ATTACKER / SIDE_UNKNOWN
    friend_shown: int | None = None   # relative seat of the shown friend, -1 not yet
    friend_trick: int | None = None   # trick in which he showed himself, -1 not yet
    seat_levels: tuple | None = None  # level of each relative seat


def _onehot_index(v: np.ndarray) -> int:
    """The first index of ``v`` above 0.5, -1 if none (argmax of a bool array: the first True)."""
    return _first_hot(v > 0.5)


def _first_hot(hot: np.ndarray) -> int:
    """The first True index of ``hot`` (bool[n]), -1 if none."""
    i = int(hot.argmax())
    return i if hot[i] else -1


def decode(observation: np.ndarray, cfg) -> ObservationView:
    """Read a ``float32[N]`` observation by name (see the module table)."""
    obs = np.asarray(observation, dtype=np.float32)
    if obs.shape != (size(cfg),):
        raise ValueError(f"observation has shape {obs.shape}; expected ({size(cfg)},) for these rules")
    at = layout(cfg)
    # one rounding for the card blocks (hand .. kitty are contiguous; the one-hot trick_leader
    # between them rounds to itself) and one comparison for every one-hot block: the heuristic
    # decodes once per decision, and a search's rollouts make tens of thousands of them
    counts = np.rint(obs[:at["kitty"].stop]).astype(np.uint8)
    hot = obs > 0.5

    def cards_(name, rows=None):
        v = counts[at[name]]
        return v if rows is None else v.reshape(rows, 54)

    def first(name):
        return _first_hot(hot[at[name]])

    def scalar(name):
        return float(obs[at[name].start])

    trump = first("trump")
    dealer = first("dealer")
    decl = obs[at["declaration"]]
    hand_size = (54 * cfg.decks - cfg.kitty_size) // 4
    return ObservationView(
        hand=cards_("hand"), selection=cards_("selection"), trick=cards_("trick", 4),
        trick_leader=first("trick_leader"), played=cards_("played", 4),
        shown=cards_("shown", 4), revealed=cards_("revealed", 4), kitty=cards_("kitty"),
        voids=hot[at["voids"]].reshape(4, 5), level=first("level"),
        trump=-1 if trump in (-1, 5) else trump, dealer=-1 if dealer in (-1, 4) else dealer,
        declarer=_first_hot(hot[at["declarer"]][:4]),
        declaration_kind=_first_hot(hot[at["declaration"]][:3]),
        declaration_count=int(round(float(decl[3]) * cfg.decks)),
        attacker_points=scalar("attacker_points") * 100 * cfg.decks,
        tricks_done=int(round(scalar("tricks_done") * hand_size)),
        lead_size=int(round(scalar("lead_size") * hand_size)),
        cards_dealt=int(round(scalar("cards_dealt") * 4 * hand_size)),
        leading=scalar("leading") > 0.5, dealer_side=scalar("dealer_side") > 0.5,
        phase=Phase(first("phase")),
        team_levels=(_first_hot(hot[at["team_levels"]][:13]),
                     _first_hot(hot[at["team_levels"]][13:])) if "team_levels" in at else None,
        candidates=(np.rint(obs[at["candidates"]]).astype(np.uint8).reshape(max_choices(cfg.decks), 54)
                    if "candidates" in at else None),
        **(_decode_friend(obs, at, hand_size) if "friend_card" in at else {}))


def _decode_friend(obs, at, hand_size) -> dict:
    card = _onehot_index(obs[at["friend_card"]])
    shown = _onehot_index(obs[at["friend_shown"]])
    levels = obs[at["seat_levels"]].reshape(4, 13)
    return dict(friend_card=-1 if card == 54 else card, my_side=_onehot_index(obs[at["my_side"]]),
                friend_shown=-1 if shown == 4 else shown,
                friend_trick=int(round(float(obs[at["friend_trick"].start]) * hand_size)) - 1,
                seat_levels=tuple(_onehot_index(r) for r in levels))


def observe_game(game, seat: int | None = None) -> np.ndarray:
    """Scalar encoding of a reference ``rules.Game`` for ``seat`` (default: the seat to act).

    The batched engine's ``observe`` must produce exactly this vector (tested), so this is also
    the readable definition of every block.
    """
    cfg = game.cfg
    seat = game.to_act if seat is None else seat
    at = layout(cfg)
    obs = np.zeros(size(cfg), dtype=np.float32)
    rel = [(seat + r) % 4 for r in range(4)]  # relative seat r → absolute seat

    def put_rows(name, rows):
        obs[at[name]] = np.concatenate([rows[s] for s in rel]).astype(np.float32)

    obs[at["hand"]] = game.hands[seat]
    obs[at["selection"]] = game.selection if game.to_act == seat else 0
    trick = np.zeros((4, 54), dtype=np.uint8)
    for s, p in game.trick.items():
        trick[s] = p
    put_rows("trick", trick)
    if game.trick:
        obs[at["trick_leader"].start + (game.leader - seat) % 4] = 1
    put_rows("played", game.played + trick)
    put_rows("shown", game.shown)
    put_rows("revealed", game.revealed)
    if game.dealer == seat and game.phase >= Phase.BURY:
        obs[at["kitty"]] = game.kitty if game.phase > Phase.BURY else game.picked_up
    obs[at["voids"]] = game.voids[rel].reshape(-1)
    obs[at["level"].start + game.level] = 1
    obs[at["trump"].start + (5 if game.trump is None else game.trump)] = 1
    obs[at["dealer"].start + (4 if game.dealer is None else (game.dealer - seat) % 4)] = 1
    cur = game.declare_state.current
    obs[at["declarer"].start + (4 if cur is None else (cur.player - seat) % 4)] = 1
    if cur is not None:
        obs[at["declaration"].start + cur.kind] = 1
        obs[at["declaration"].start + 3] = cur.k / cfg.decks
    hand_size = cfg.hand_size
    obs[at["attacker_points"]] = (game.captured + game.penalty) / (100 * cfg.decks)
    obs[at["tricks_done"]] = game.tricks_done / hand_size
    obs[at["lead_size"]] = (0 if game.lead is None else int(game.lead.sum())) / hand_size
    obs[at["cards_dealt"]] = game.dealt / (4 * hand_size)
    obs[at["leading"]] = float(game.phase == Phase.PLAY and game.leader == seat and not game.trick)
    obs[at["dealer_side"]] = float(game.dealer is not None and seats.same_team(game.dealer, seat))
    obs[at["phase"].start + int(game.phase)] = 1
    if "team_levels" in at:
        obs[at["team_levels"].start + game.levels[seats.team(seat)]] = 1
        obs[at["team_levels"].start + 13 + game.levels[1 - seats.team(seat)]] = 1
    if "candidates" in at:
        for i, c in enumerate(game.candidates):
            obs[at["candidates"].start + 54 * i: at["candidates"].start + 54 * (i + 1)] = c
    if "friend_card" in at:  # find-friends blocks (module docstring)
        card = -1 if game.friend_card is None else game.friend_card
        shown = -1 if game.friend_shown is None else game.friend_shown
        dealer = -1 if game.dealer is None else game.dealer
        copies = (game.played + trick)[:, max(card, 0)].astype(np.int64)  # int[4], played copies
        held = int(game.hands[seat, max(card, 0)]) + int(copies[seat])
        side = int(known_side([seat], [dealer], [card], cfg.decks, [held], [copies], [shown])[0])
        obs[at["my_side"].start + side] = 1
        obs[at["dealer_side"]] = float(side == KNOWN_DEALER_SIDE)
        obs[at["friend_card"].start + (54 if card < 0 else card)] = 1
        obs[at["friend_shown"].start + (4 if shown < 0 else (shown - seat) % 4)] = 1
        if shown >= 0:
            obs[at["friend_trick"]] = (game.friend_trick + 1) / hand_size
        for r, x in enumerate(rel):
            obs[at["seat_levels"].start + 13 * r + game.levels[x]] = 1
        public = sum(game.points_won[x] for x in range(4) if x not in (dealer, shown))
        obs[at["attacker_points"]] = (public + (game.penalty if shown >= 0 else 0)) / (100 * cfg.decks)
    return obs


def observe_batch(eng, s, out=None, seats=None) -> np.ndarray:
    """``float32[B, N]`` — ``observe_game`` for every game of a ``BatchState`` at once, for the
    seat to act or for ``seats`` (``int[B]``; a seat not to act sees no selection)."""
    cfg = eng.cfg
    B = s.num_games
    at = eng.obs_layout
    if B == 1:  # one game (the AEC env): plain indexing beats array bookkeeping
        if out is None:
            out = np.zeros((1, eng.obs_size), dtype=np.float32)
        else:
            out[:] = 0
        _observe_one(cfg, at, s, out[0], None if seats is None else int(np.asarray(seats)[0]))
        return out
    N = eng.obs_size
    if out is None:
        out = np.empty((B, N), dtype=np.float32)
    # Every entry but the attackers' points is an integer or an integer / d: staged in uint8
    # and cast to float once for the whole [B, N] (a cast per block into strided rows costs
    # more); the fractions are staged as numerators and divided after the cast (float32 n / d
    # of integers n, d < 2^24 is the float64 quotient rounded to float32, as ``observe_game``).
    st = np.empty((B, N), dtype=np.uint8)
    base, base4, row_start = _batch_rows(B, N)
    phase, to_act, dealer, leader, in_trick = s.phase, s.to_act, s.dealer, s.leader, s.in_trick
    seat8 = np.maximum(to_act, 0) if seats is None else seats.astype(np.int8)  # int8[B]
    seat = seat8.astype(np.int64)
    mine = base + seat  # int64[B]: the observer's row in a [B·4, ...] view
    # relative seat r of game g → row base + (seat + r) % 4: one ``take`` per block copies
    # whole 54-card rows (fancy indexing over two axes is ~3x slower)
    rel = ROTATE.take(seat, axis=0)
    rel += base4  # int64[B, 4]
    np.copyto(st[:, at["hand"]], s.hands.reshape(4 * B, 54).take(mine, axis=0))
    if seats is None:
        np.copyto(st[:, at["selection"]], s.selection)
    else:  # a seat not to act sees no selection
        np.multiply(s.selection, (seat == to_act).view(np.uint8)[:, None],
                    out=st[:, at["selection"]])
    for name, cards in (("trick", s.trick), ("played", s.played + s.trick), ("shown", s.shown),
                        ("revealed", s.revealed)):
        np.copyto(st[:, at[name]], cards.reshape(4 * B, 54).take(rel, axis=0).reshape(B, 216))
    st[:, at["kitty"].start:] = 0  # the kitty (dealer only), the one-hot blocks, the rest
    # the kitty: the dealer's, once he has picked it up (what he picked up, until he buries)
    sees = ((dealer == seat8) & (phase >= BURY)).nonzero()[0]
    if sees.size:
        kitty = s.kitty.take(sees, axis=0)
        burying = (phase[sees] == BURY).nonzero()[0]
        if burying.size:
            kitty[burying] = s.picked_up[sees[burying]]
        st[sees, at["kitty"]] = kitty
    np.copyto(st[:, at["voids"]], s.voids.view(np.uint8).reshape(4 * B, 5).take(rel,
                                          axis=0).reshape(B, 20))
    # every one-hot entry in one scatter: its column in its block per block and game (then
    # flat in st)
    has = s.decl_player >= 0
    trump = s.trump
    team = "team_levels" in at
    starts = (at["level"].start, at["trump"].start, at["dealer"].start, at["declarer"].start,
              at["declaration"].start, at["phase"].start)
    if team:
        starts += (at["team_levels"].start, at["team_levels"].start + 13)
    hot = np.empty((len(starts), B), dtype=np.int64)
    hot[0] = s.level
    # trump, or column 5 ("not decided") for -1: a read of 0-5 that wraps -1 to 5 (mode
    # "wrap": no buffering of ``out``, and no comparison and np.where)
    _TRUMP_COLUMN.take(trump, out=hot[1], mode="wrap")
    relative = np.empty((3, B), dtype=np.int64)  # relative seats of the dealer, the declarer
    relative[0], relative[1], relative[2] = dealer, s.decl_player, leader  # and the leader
    relative -= seat
    relative &= 3
    hot[2] = np.where(dealer < 0, 4, relative[0])
    hot[3] = np.where(has, relative[1], 4)
    # no declaration: column 4 of the 4-wide block, the attackers' points (written after the
    # cast); a plain int here, as np.where keeps int8 and would wrap a larger one
    hot[4] = np.where(has, s.decl_kind, 4)
    hot[5] = phase
    if team:  # team levels: mine, then the other team's (my next player's)
        levels = s.seat_levels.reshape(4 * B)
        hot[6] = levels.take(mine)
        hot[7] = levels.take(rel[:, 1])  # (relative seat 1's row: base + (seat + 1) % 4)
    hot += _hot_offsets(B, N, starts)
    st.reshape(-1)[hot] = 1
    # the trick leader's block: its four bytes as one uint32 pattern (all four zero before
    # the lead)
    st[:, at["trick_leader"]].view(np.uint32)[:, 0] = LEADER_PATTERN.take(
        np.where(in_trick > 0, relative[2], 4))
    # the fractions' numerators and the two flags (adjacent columns)
    st[:, at["declaration"].start + 3] = s.decl_k.view(np.uint8) * has.view(np.uint8)
    st[:, at["tricks_done"].start] = s.tricks_done.view(np.uint8)
    st[:, at["lead_size"].start] = s.lead_n.view(np.uint8)
    st[:, at["cards_dealt"].start] = s.dealt  # ≤ 4 · hand size ≤ 216: fits uint8
    leading = (phase == PLAY) & (leader == seat8) & (in_trick == 0)
    st[:, at["leading"].start] = leading.view(np.uint8)
    st[:, at["dealer_side"].start] = s.dealer_side.reshape(4 * B).take(mine).view(np.uint8)
    if "candidates" in at:  # zero unless a failed throw waits for a choice
        C = s.n_candidates.nonzero()[0]
        if C.size:
            st[C, at["candidates"]] = s.candidates[C].reshape(C.size, -1)
    np.copyto(out, st)
    h = cfg.hand_size
    if cfg.decks > 1:
        out[:, at["declaration"].start + 3] /= cfg.decks
    out[:, at["tricks_done"].start] /= h
    out[:, at["lead_size"].start] /= h
    out[:, at["cards_dealt"].start] /= 4 * h
    np.divide(s.captured + s.penalty, 100 * cfg.decks, out=out[:, at["attacker_points"].start])
    if "friend_card" in at:
        _observe_friend(cfg, at, s, out, seat)
    return out


@lru_cache(maxsize=16)
def _batch_rows(B: int, N: int) -> tuple:
    """Index arrays of a batch of ``B`` games (cached, read-only): ``base`` ``int64[B]`` = 4·g,
    the row of game g's seat 0 in a ``[B·4, ...]`` view; ``base4`` the same as ``int64[B, 4]``;
    ``row_start`` ``int64[B]`` = N·g, where game g's observation starts in a flat ``[B·N]``."""
    base = np.arange(0, 4 * B, 4)
    arrays = base, np.repeat(base, 4).reshape(B, 4), np.arange(0, B * N, N)
    for a in arrays:
        a.flags.writeable = False
    return arrays


@lru_cache(maxsize=16)
def _hot_offsets(B: int, N: int, starts: tuple) -> np.ndarray:
    """``int64[k, B]`` (cached, read-only): flat index in a ``[B·N]`` observation of column
    ``starts[k]`` of game g."""
    a = np.add.outer(np.array(starts), _batch_rows(B, N)[2])
    a.flags.writeable = False
    return a


def observe_one(eng, s, seat: int) -> np.ndarray:
    """``float32[N]`` — game 0 of a one-game state as seen by absolute ``seat`` (an int 0-3):
    ``observe_batch`` without the batch bookkeeping (the AEC env's ``observe``)."""
    row = np.zeros(eng.obs_size, dtype=np.float32)
    _observe_one(eng.cfg, eng.obs_layout, s, row, seat)
    return row


def _observe_friend(cfg, at, s, out, seat):
    """The find-friends blocks (module docstring) of every game into ``out`` (``float32[B, N]``,
    those blocks zero) for ``seat`` (``int64[B]``), as ``observe_game``."""
    B = seat.size
    ar = np.arange(B)
    dealer, card = s.dealer.astype(np.int64), s.friend_card.astype(np.int64)
    c = np.maximum(card, 0)
    shown = np.where(s.friend_trick >= 0, s.friend, -1).astype(np.int64)
    copies = (s.played[ar, :, c] + s.trick[ar, :, c]).astype(np.int64)  # int[B, 4]
    held = s.hands[ar, seat, c] + copies[ar, seat]
    side = known_side(seat, dealer, card, cfg.decks, held, copies, shown)
    out[ar, at["my_side"].start + side] = 1
    out[:, at["dealer_side"].start] = side == KNOWN_DEALER_SIDE
    out[ar, at["friend_card"].start + np.where(card < 0, 54, card)] = 1
    out[ar, at["friend_shown"].start + np.where(shown < 0, 4, (shown - seat) % 4)] = 1
    out[:, at["friend_trick"].start] = np.where(shown >= 0, (s.friend_trick + 1) / cfg.hand_size, 0)
    rel = (seat[:, None] + np.arange(4)) % 4
    levels = s.seat_levels[ar[:, None], rel].astype(np.int64)
    out[ar[:, None], at["seat_levels"].start + 13 * np.arange(4)[None, :] + levels] = 1
    seat_ids = np.arange(4)[None, :]
    public = (seat_ids != dealer[:, None]) & (seat_ids != shown[:, None])
    points = (s.points_won * public).sum(1) + np.where(shown >= 0, s.penalty, 0)
    out[:, at["attacker_points"].start] = points / (100 * cfg.decks)


def _put_rotated(row, block: slice, rows, seat: int) -> None:
    """``row[block] = rows`` with the seat axis (``rows``' second last, absolute seats) rotated
    so that ``seat`` comes first: two plain slice copies (a fancy index costs more at this size).
    ``rows``: ``[4, w]``, or ``[m, 4, w]`` for m adjacent blocks rotated by the same two copies."""
    dst = row[block].reshape(rows.shape)
    k = 4 - seat
    dst[..., :k, :] = rows[..., seat:, :]
    if seat:
        dst[..., k:, :] = rows[..., :seat, :]


def _observe_one(cfg, at, s, row, seat=None):
    """``observe_batch`` for game 0 of a one-game state, written into ``row`` (zeros)."""
    to_act = s.to_act.item(0)
    seat = max(to_act if seat is None else seat, 0)
    row[at["hand"]] = s.hands[0, seat]
    if seat == to_act:
        row[at["selection"]] = s.selection[0]
    trick = s.trick[0]
    _put_rotated(row, at["trick"], trick, seat)
    in_trick, leader, dealer, phase = (s.in_trick.item(0), s.leader.item(0), s.dealer.item(0),
                                       s.phase.item(0))
    if in_trick:
        row[at["trick_leader"].start + (leader - seat) % 4] = 1
    # played, shown and revealed are adjacent blocks: one [3, 4, 54] source, rotated at once
    # (two slice copies instead of six)
    src = np.empty((3, 4, 54), dtype=np.uint8)
    np.add(s.played[0], trick, out=src[0])
    src[1] = s.shown[0]
    src[2] = s.revealed[0]
    _put_rotated(row, slice(at["played"].start, at["revealed"].stop), src, seat)
    if dealer == seat and phase >= BURY:
        row[at["kitty"]] = s.kitty[0] if phase > BURY else s.picked_up[0]
    _put_rotated(row, at["voids"], s.voids[0], seat)
    row[at["level"].start + s.level.item(0)] = 1
    trump = s.trump.item(0)
    row[at["trump"].start + (5 if trump < 0 else trump)] = 1
    row[at["dealer"].start + (4 if dealer < 0 else (dealer - seat) % 4)] = 1
    declarer = s.decl_player.item(0)
    row[at["declarer"].start + (4 if declarer < 0 else (declarer - seat) % 4)] = 1
    if declarer >= 0:
        row[at["declaration"].start + s.decl_kind.item(0)] = 1
        row[at["declaration"].start + 3] = s.decl_k.item(0) / cfg.decks
    h = cfg.hand_size
    row[at["attacker_points"].start] = (s.captured.item(0) + s.penalty.item(0)) / (100 * cfg.decks)
    row[at["tricks_done"].start] = s.tricks_done.item(0) / h
    row[at["lead_size"].start] = s.lead_n.item(0) / h
    row[at["cards_dealt"].start] = s.dealt.item(0) / (4 * h)
    row[at["leading"].start] = phase == PLAY and leader == seat and in_trick == 0
    row[at["dealer_side"].start] = s.dealer_side[0, seat]
    row[at["phase"].start + phase] = 1
    if "team_levels" in at:
        row[at["team_levels"].start + s.seat_levels.item(0, seat)] = 1
        row[at["team_levels"].start + 13 + s.seat_levels.item(0, (seat + 1) % 4)] = 1
    if "candidates" in at:
        row[at["candidates"]] = s.candidates[0].ravel()
    if "friend_card" in at:
        _observe_friend(cfg, at, s, row[None], np.array([seat], dtype=np.int64))
