"""The hand lifecycle over many games: start, end of declaring, bury, scoring and rewards.

The phase modules (``deal.py``, ``trick.py``) report what happened — the games whose closing
window closed, the games whose last trick was played — and the engine hands those games to the
functions here, which fix dealer and trump (RULES.md §4.4-4.6), begin the bury (§5), score the
hand (§10) and deal the next one in match mode, exactly as ``rules.Game``. Per-game work that is
rare or complex (a tractor in the kitty basis, mandatory levels) calls ``rules.scoring``.

Find-friends (``partnership="FIND_FRIEND"``, RULES.md §10.6): after the bury the dealer names
the friend card (phase FRIEND, ``mask_friend`` / ``step_friend``; a per-game loop, once a hand);
``dealer_side`` then holds the true side, so tricks, penalties and the kitty count for the actual
sides from the first trick; ``note_reveals`` records when the friend shows himself; levels are
per player and the next dealer follows §10.4's equivalent formulation.

Functions take ``eng`` (the engine: configuration, tables, switches), the ``BatchState`` and
``G``, an ``int64[g]`` array of game indices.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..rules import declare, scoring, seats
from ..rules.actions import Phase
from ..rules.game import ORDERED_DECKS
from ..rules.order import NT
from . import deal, log, trick
from .counts import row_starts, rows
from .tables import context_id

DECLARE, BURY, OVER, PLAY, FRIEND = (int(Phase.DECLARE), int(Phase.BURY), int(Phase.OVER),
                                     int(Phase.PLAY), int(Phase.FRIEND))


# ------------------------------------------------------------------------------ start

def start_episodes(eng, s, G) -> None:
    """Start a new episode for games ``G``: starting levels and dealer, first drawer, a deal
    (their random streams continue)."""
    random_levels = isinstance(eng.levels, str)  # "random"
    random_dealer = isinstance(eng.dealer, str)  # "random" (always with random levels)
    random_first = eng.cfg.initial_first_drawer == "RANDOM"
    # (drawn per game below when random; else the same for every game: cached, read-only)
    dealers = (np.full(G.size, -1) if random_dealer else
               _filled(G.size, -1 if eng.dealer is None else eng.dealer))
    first = np.full(G.size, 0) if random_first else _filled(G.size, eng.cfg.initial_first_drawer)
    if random_levels or random_dealer or random_first:
        # per game, each stream in the order of rules.Game: levels, then the dealer (setup
        # stream); the first drawer (deal stream)
        n = 4 if eng.find_friend else 2  # find-friends: per-player levels (§10.6)
        for i, g in enumerate(G):
            if random_levels:
                s.seat_levels[g] = _seat_levels(s.setup_rng(g).integers(13, size=n))
            if random_dealer:
                dealers[i] = s.setup_rng(g).integers(4)
            if random_first:
                first[i] = s.rng(g).integers(4)
    if not random_levels:
        s.seat_levels[G] = _fixed_seat_levels(tuple(eng.levels))
    given = s.has_given[G]
    if given.any():  # given decks (``Engine.reset(decks=...)``) come with their first drawers
        first = np.where(given, s.given_first[G], first)
    drawers = first if eng.dealer is None else dealers
    history = s.history
    for g in G.tolist():
        history[g] = []
    s.log_len[G] = 0
    s.done[G] = False
    s.winner_team[G] = -1
    s.winner_seats[G] = False
    s.mask = None
    start_hands(eng, s, G, dealers, drawers)


@lru_cache(maxsize=256)  # (batch sizes × the two values of a setup)
def _filled(n: int, value: int) -> np.ndarray:
    """``int64[n]`` of ``value`` (cached, read-only)."""
    a = np.full(n, value)
    a.flags.writeable = False
    return a


def _seat_levels(levels):
    """``int[4]`` — per-seat levels from the teams' two (team of each seat) or four levels."""
    return levels if levels.size == 4 else levels[seats.team(np.arange(4))]


@lru_cache(maxsize=16)
def _fixed_seat_levels(levels: tuple) -> np.ndarray:
    """``_seat_levels`` of the engine's fixed starting levels (cached, read-only)."""
    out = _seat_levels(np.asarray(levels))
    out.flags.writeable = False
    return out


def start_hands(eng, s, G, dealers, drawers) -> None:
    """Shuffle (or take the given deck) and begin dealing new hands (dealer -1: first hand)."""
    cfg = eng.cfg
    ordered = ORDERED_DECKS[cfg.decks]
    decks, has_given = s.deck, s.has_given
    for g in G.tolist():
        deck = decks[g]
        if has_given[g]:
            deck[:] = s.given_deck[g]
            has_given[g] = False
        else:  # ``rules.game.new_deck`` (the permutation of a copy is a shuffle of it: the same
            # draws) shuffled in place in the game's int8 row
            deck[:] = ordered
            s.rng(g).shuffle(deck)
    s.dealer[G], s.first_drawer[G] = dealers, drawers
    first = dealers < 0
    s.first_hand[G] = first
    # a first hand: both teams are at the same level (checked by the engine)
    if first.all():  # first hands only (a new episode without a given dealer):
        s.dealer_side[G] = False                  # no dealer side
        s.level[G] = level = s.seat_levels[G, 0]
    else:
        s.dealer_side[G] = np.where(~first[:, None], _initial_side(eng, np.maximum(dealers, 0)),
                                    False)
        s.level[G] = s.seat_levels[G, np.maximum(dealers, 0)]
        level = None  # (prepare_counts reads each game's level from the state)
    # the hand's facts cleared (one chained assignment each: no loop over names, no getattr;
    # ``dealt`` is written for every game by the first deal below)
    s.hands[G] = s.kitty[G] = s.picked_up[G] = s.selection[G] = s.trick[G] = s.lead[G] = 0
    s.played[G] = s.shown[G] = s.revealed[G] = s.voids[G] = s.candidates[G] = 0
    s.captured[G] = s.penalty[G] = s.kitty_bonus[G] = s.points_won[G] = 0
    s.tricks_done[G] = s.in_trick[G] = s.lead_n[G] = s.n_candidates[G] = s.window_passes[G] = 0
    s.decl_player[G] = s.decl_kind[G] = s.decl_suit[G] = s.first_declarer[G] = s.trump[G] = -1
    s.window_seat[G] = s.throw_beater[G] = s.friend_card[G] = s.friend[G] = -1
    s.friend_trick[G] = -1
    s.decl_k[G] = 0
    s.lead_tractor[G] = False
    s.phase[G] = DECLARE
    counts = deal.prepare_counts(eng, s, G, level)
    # nobody is asked during the deal with a fixed trump, nor (later hands) when declarations
    # wait for its end
    quiet = (np.ones(G.size, dtype=bool) if cfg.declaration_mode == "FIXED" else
             deal.post_deal_mode(eng, s, G)
             if cfg.declaration_mode == "POST_DEAL_PARTNER_FIRST" else None)
    # the plan's rows and its first decision point go straight on (no reads of what was just
    # stored)
    nxt = deal.plan_deal(eng, s, G, quiet, fresh=True, counts=counts)
    finish_declaring(eng, s, deal.advance_deal(eng, s, G, nxt[:, 0]))


# ------------------------------------------------------------------------------ declaring ends

def finish_declaring(eng, s, G) -> None:
    """The closing window of games ``G`` closed: fix dealer and trump (§4.4-4.6). Fixed trump
    and a standing declaration (the common cases) for all games at once; the fallbacks of a
    window without a declaration per game."""
    if not G.size:
        return
    cfg = eng.cfg
    if cfg.declaration_mode == "FIXED":  # the first drawer deals the first hand
        trump = NT if cfg.fixed_trump == "NT" else "SHCD".index(cfg.fixed_trump)
        begin_bury(eng, s, G, np.where(s.first_hand[G], s.first_drawer[G], s.dealer[G]),
                   np.full(G.size, trump))
        return
    player = s.decl_player[G]
    has = player >= 0
    every = has.all()  # the usual case: no fallback, no subset
    D = G if every else G[has]
    if D.size:
        trump = np.where(s.decl_kind[D] == declare.LEVEL, s.decl_suit[D], NT)
        starter = (s.first_declarer[D] if cfg.first_hand_dealer == "FIRST_DECLARER"
                   else player if every else player[has])
        begin_bury(eng, s, D, np.where(s.first_hand[D], starter, s.dealer[D]), trump)
    if not every:
        for g in G[~has]:
            _no_declaration(eng, s, int(g))


def _no_declaration(eng, s, g: int) -> None:
    """Game ``g``'s window closed without a declaration: its fallback (§4.6-4.7)."""
    cfg, first = eng.cfg, bool(s.first_hand[g])
    fallback = cfg.first_hand_no_declaration if first else cfg.no_declaration_fallback
    if fallback == "REDEAL":
        log.mark_redeal(s, g)
        G = np.array([g])
        return start_hands(eng, s, G, s.dealer[G].copy(), s.first_drawer[G].copy())
    if deal.post_deal_mode(eng, s, np.array([g]))[0]:
        s.phase[g], s.to_act[g] = Phase.NAME, seats.partner(s.dealer.item(g))
        return
    dealer = s.first_drawer.item(g) if first else s.dealer.item(g)
    if fallback.endswith("FLIP_KITTY"):
        h = cfg.hand_size
        trump = declare.flip_kitty_trump(s.deck[g, 4 * h:].astype(int).tolist(), cfg)
    else:
        trump = NT
    begin_bury(eng, s, np.array([g]), np.array([dealer]), np.array([trump]))


def mask_name(eng, s, G, out) -> None:
    """Legal actions in phase NAME (the dealer's partner names trump, §4.7)."""
    base = eng.layout.name_base
    out[:, base:base + 4] = True
    out[:, base + 4] = eng.cfg.allow_no_trump_declaration


def step_name(eng, s, G, actions) -> None:
    """Apply NAME ids: the named trump stands and the dealer buries."""
    if G.size:
        begin_bury(eng, s, G, s.dealer[G], np.asarray(actions) - eng.layout.name_base)


def _initial_side(eng, dealers):
    """``bool[g, 4]``: the dealer side once the dealer is known — his fixed team, or (find-friends)
    the dealer alone until the friend card is named."""
    if eng.find_friend:
        return np.arange(4)[None, :] == np.asarray(dealers).reshape(-1, 1)
    return seats.FIXED_DEALER_SIDE.take(dealers, axis=0)


def begin_bury(eng, s, G, dealers, trumps) -> None:
    """Dealer and trump are fixed in games ``G`` (``int[g]`` each): the dealer takes the kitty
    (§5)."""
    # (any integer dtype: seats 0-3 and trumps 0-4 index and add exactly, ctx ≤ 64 even in int8)
    dealers, trumps = np.asarray(dealers), np.asarray(trumps)
    s.dealer[G], s.trump[G] = dealers, trumps
    s.dealer_side[G] = _initial_side(eng, dealers)
    s.level[G] = level = s.seat_levels[G, dealers]
    s.ctx[G] = ctx = context_id(level, trumps)  # (int8 level · 5 ≤ 60, + int64 trump: int64)
    s.eff[G] = eng.tables.eff.take(ctx, axis=0)
    s.idx[G] = eng.tables.idx.take(ctx, axis=0)
    kitty = rows(s.kitty, G)
    s.picked_up[G] = kitty
    s.hands.reshape(-1, 54)[G * 4 + dealers] += kitty  # games without repeats: one row each
    s.kitty[G] = 0
    s.phase[G], s.to_act[G] = BURY, dealers
    if eng.cfg.kitty_size == 0:
        trick.begin_play(s, G)
        after_bury(eng, s, G)


# ------------------------------------------------------------------------------ find-friends §10.6

def after_bury(eng, s, G) -> None:
    """Games ``G`` may have finished burying (``trick.step_bury`` began their play): in
    find-friends mode the dealer names the friend card before the first lead (§5.4)."""
    if eng.find_friend:
        F = G[s.phase[G] == PLAY]
        s.phase[F] = FRIEND  # to_act is already the dealer


def mask_friend(eng, s, G, out) -> None:
    """Legal actions in phase FRIEND: every card identity (§10.6: trump, level cards and jokers
    too; a card the dealer holds every copy of makes him play alone)."""
    base = eng.layout.friend_base
    out[:, base:base + 54] = True


def step_friend(eng, s, G, actions) -> None:
    """Apply FRIEND ids: resolve the friend on the hands after the bury (kitty copies belong to
    nobody, AMB-16), fix the dealer side, and begin the play."""
    for g, a in zip(G, actions):
        g, card = int(g), int(a) - eng.layout.friend_base
        dealer = s.dealer.item(g)
        friend = scoring.resolve_friend(dealer, card, s.hands[g], eng.cfg.decks)
        s.friend_card[g] = card
        s.friend[g] = -1 if friend is None else friend
        s.dealer_side[g] = (np.arange(4) == dealer) | (np.arange(4) == s.friend[g])
    trick.begin_play(s, G)


def note_reveals(eng, s, G) -> None:
    """The friend shows himself by playing a copy of the friend card: record the trick in which
    he did (``friend_trick``). Called after every play step of find-friends games (a step that
    finished a trick has moved its cards to ``played``: that was the previous trick)."""
    G = G[(s.friend[G] >= 0) & (s.friend_trick[G] < 0)]
    if not G.size:
        return
    f, c = s.friend[G].astype(np.int64), s.friend_card[G].astype(np.int64)
    now = s.trick[G, f, c] > 0
    earlier = s.played[G, f, c] > 0
    hit = now | earlier
    s.friend_trick[G[hit]] = np.where(now, s.tricks_done[G], s.tricks_done[G] - 1)[hit]


# ------------------------------------------------------------------------------ scoring §10

def end_hands(eng, s, ended: trick.EndedHands, rewards) -> None:
    """Score finished hands (§10), write rewards, then end the episodes or deal on."""
    cfg, sw = eng.cfg, eng.switches
    G, winners, plays, bonus = ended.games, ended.winners, ended.plays, ended.bonus  # int64[g]
    if eng.find_friend:
        note_reveals(eng, s, G)
    dealer = s.dealer[G]  # int8[g] (its sums below are int64)
    attackers = ~s.dealer_side[G]                     # bool[g, 4]
    # the kitty was dug (an attacker won the last trick): needed only where the scalar rules
    # value the bonus (-1: a tractor in the basis; rare) or change the levels
    dug = None
    if not sw.vector_levels or bonus.min(initial=0) < 0:
        dug = attackers.reshape(-1).take(row_starts(G.size, 4) + winners)
    scalar = () if dug is None else (dug & (bonus < 0)).nonzero()[0]
    if len(scalar):
        bonus = bonus.copy()
    for i in scalar:
        g = int(G[i])
        ctx = eng.tables.context(s.level.item(g), s.trump.item(g))
        basis = plays[i, 0] if cfg.kitty_multiplier_basis == "LEAD" else \
            plays[i, (winners[i] - s.leader.item(g)) % 4]
        bonus[i] = scoring.kitty_bonus(s.kitty[g], basis, ctx, cfg)
    kitty_bonus = np.maximum(bonus, 0)  # int64[g], as stored
    s.kitty_bonus[G] = kitty_bonus
    points = s.captured[G] + kitty_bonus + s.penalty[G]  # (int16 + int64 + int32: int64)
    s.attacker_points[G] = points
    # §10.3 level change, as rules.scoring.level_outcome: with q whole steps of the points
    # (p >= 0), the attackers take over at q >= 2 and gain q - 2; the dealer side gains 3 at
    # 0 points, 2 below one step, 1 below two steps, else 0
    step, p = cfg.level_step, np.maximum(points, 0)
    q = p // step
    take = q >= 2
    dealer_gain = (2 - np.minimum(q, 2)) + (p == 0)
    att_gain = np.maximum(q - 2, 0)
    outcome = np.empty((G.size, 3), dtype=np.int64)  # (np.stack of the three costs twice this)
    outcome[:, 0], outcome[:, 1], outcome[:, 2] = dealer_gain, take, att_gain
    s.outcome[G] = outcome
    over = _change_levels(eng, s, G, dealer, take, dealer_gain, att_gain, dug)
    if eng.find_friend:  # §10.4's equivalent formulation, by the hand's actual sides
        for i, g in enumerate(G):
            out = scoring.LevelOutcome(int(dealer_gain[i]), bool(take[i]), int(att_gain[i]))
            side = frozenset(s.dealer_side[g].nonzero()[0].tolist())
            s.next_dealer[g] = scoring.next_dealer(int(dealer[i]), out, cfg, dealer_side=side)
    else:
        s.next_dealer[G] = (dealer + np.where(take, 1, sw.hold_next)) % 4  # §10.4
    if over is None:
        over = s.winner_seats[G].any(1)
    rewards[G] += _hand_rewards(eng, s, G, attackers, take, dealer_gain, att_gain, points, over)
    if eng.episode == "match":
        more = G[~over]
        for g in more:
            log.spill(s, int(g))
        nxt = s.next_dealer[more].copy()
        start_hands(eng, s, more, nxt, nxt)
        G = G[over]
    s.phase[G], s.to_act[G], s.done[G] = OVER, -1, True


def _change_levels(eng, s, G, dealer, take, dealer_gain, att_gain, dug):
    """§10.3-10.5: the side that goes up gains its levels; a team passing A wins. Find-friends
    (§10.6): each seat of the gaining side gains from its own level; seats passing A win.
    Returns ``bool[g]`` the games whose match is won, when it has them at hand (else None)."""
    if eng.find_friend:
        if eng.switches.vector_levels:
            gainers = s.dealer_side[G] != take[:, None]        # bool[g, 4]
            gain = np.where(take, att_gain, dealer_gain)[:, None]
            target = s.seat_levels[G].astype(np.int64) + np.where(gainers, gain, 0)
            s.winner_seats[G] = gainers & (target > 12)
            s.seat_levels[G] = np.minimum(target, 12)
            return None
        for i, g in enumerate(G):
            out = scoring.LevelOutcome(int(dealer_gain[i]), bool(take[i]), int(att_gain[i]))
            levels, w = scoring.apply_seat_level_change(
                s.seat_levels[g].tolist(), s.dealer_side[g], out, eng.cfg,
                attackers_won_last_trick=bool(dug[i]))
            s.seat_levels[g] = levels
            s.winner_seats[g] = np.isin(np.arange(4), list(w))
        return None
    team = seats.team(dealer) ^ take  # the side that goes up: the dealer's team, or the other
    if eng.switches.vector_levels:
        # seat t (0 or 1) is on team t: its level is the team's
        # (int8 + int64: int64; one of the two gains is 0)
        target = s.seat_levels[G, team] + (att_gain + dealer_gain)
        won = target > 12
        gainers = seats.SEATS_OF_TEAM[team]          # bool[g, 4]
        s.seat_levels[G] = np.where(gainers, np.minimum(target, 12)[:, None], s.seat_levels[G])
        s.winner_team[G] = np.where(won, team, -1)
        s.winner_seats[G] = won[:, None] & gainers
        return won  # (a team's two seats win together)
    for i, g in enumerate(G):  # MUST_DEFEND_A, mandatory levels, reset at A: the scalar rules
        out = scoring.LevelOutcome(int(dealer_gain[i]), bool(take[i]), int(att_gain[i]))
        team_levels = tuple(int(s.seat_levels[g, seats.team_seats(t)[0]]) for t in (0, 1))
        levels, w = scoring.apply_level_change(team_levels, seats.team(int(dealer[i])), out,
                                               eng.cfg, attackers_won_last_trick=bool(dug[i]))
        s.seat_levels[g] = np.asarray(levels)[seats.team(np.arange(4))]
        s.winner_team[g] = -1 if w is None else w
        s.winner_seats[g] = w is not None and seats.SEATS_OF_TEAM[w]
    return None


def _hand_rewards(eng, s, G, attackers, take, dealer_gain, att_gain, points, over):
    """``float32[g, 4]`` (DESIGN §4): the attackers' value ``r``, the dealer side ``-r``."""
    step = eng.cfg.level_step
    if eng.reward == "levels":
        # 1 + attackers' gain if they take over, else minus the dealer side's gain (one of
        # the two gains is 0)
        r = (take + att_gain - dealer_gain).astype(np.float32)
    elif eng.reward == "points":
        r = np.clip((points - 2 * step) / (2 * step), -1, 1).astype(np.float32)
    else:
        r = np.where(take, 1.0, -1.0).astype(np.float32)
    per_seat = np.where(attackers, r[:, None], -r[:, None])
    if eng.reward == "win" and eng.episode == "match":  # ±1 for the match winners only
        per_seat = np.where(over[:, None], np.where(s.winner_seats[G], 1.0, -1.0), 0)
    return per_seat


__all__ = ["after_bury", "begin_bury", "end_hands", "finish_declaring", "mask_friend", "mask_name",
           "note_reveals", "start_episodes", "start_hands", "step_friend", "step_name"]
