"""Scoring at the end of a hand: kitty bonus, throw penalties, level change, next dealer, game end.

RULES.md §10 (and §7.4 step 5 for throw penalties). The attackers' score is

    P = points captured by the attackers + kitty_bonus (if an attacker won the last trick)
        + throw penalties (signed, §7.4)

and ``level_outcome(P, cfg)`` says who goes up and by how much (§10.3). Card points come from
``cards.points``. Teams are numbered 0 = seats {0, 2} and 1 = seats {1, 3}; levels are rank
indices 0-12 (2..A). Nothing here writes to its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import cards
from . import seats
from .config import Rules
from .order import TrumpContext
from .patterns import Unit, decompose

ACE = 12  #: rank index of A, the last level (§10.5)
REWARDS = ("levels", "points", "win")


@dataclass(frozen=True)
class LevelOutcome:
    """Result of one hand (§10.3).

    ``dealer_side_gain``: levels the dealer side gains (0 when the attackers take over);
    ``attackers_take_over``: True iff ``P >= 2·step``; ``attackers_gain``: levels the attackers
    gain on taking over (0 otherwise).
    """

    dealer_side_gain: int
    attackers_take_over: bool
    attackers_gain: int


def _check_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        # DESIGN.md §3: bad input raises ValueError naming it
        raise ValueError(f"{name}={value!r} is not allowed; expected an int")  # noqa: TRY004
    return int(value)


def level_outcome(attacker_points: int, cfg: Rules) -> LevelOutcome:
    """Level change for an attackers' score ``P`` (§10.3), step ``s = cfg.level_step``.

    ``P == 0`` → dealer side +3; ``P < s`` → +2; ``P < 2s`` → +1; else the attackers take over
    and gain ``(P - 2s) // s``. A negative ``P`` (throw penalties) counts as 0 (§10.1, AMB-26).
    """
    p = max(_check_int("attacker_points", attacker_points), 0)
    s = cfg.level_step
    if p == 0:
        return LevelOutcome(3, False, 0)
    if p < s:
        return LevelOutcome(2, False, 0)
    if p < 2 * s:
        return LevelOutcome(1, False, 0)
    return LevelOutcome(0, True, (p - 2 * s) // s)


def _unit_factor(u: Unit, option: str) -> int:
    # §10.2 table: f(u) for a unit of k identical cards at each of len positions
    n = u.k * u.length
    if option == "FLAT2":
        return 2
    if option == "LINEAR":
        return 2 * n
    if option == "POWER":
        return 2 ** n
    return 2 * u.k ** u.length  # TIERED


def _literal_rank(u: Unit) -> tuple[int, int]:
    """Seed D's order for ``tiered_precedence="LITERAL"`` (§10.2), higher first: chains of
    triples or quads (by k), then triples and quads (by k), tractors, pairs, singles."""
    chain = u.length >= 2
    if u.k >= 3:
        return (3 if chain else 2, u.k)
    return (1, int(chain)) if u.k == 2 else (0, 0)


def kitty_multiplier(last_lead: np.ndarray, ctx: TrumpContext, cfg: Rules) -> int:
    """Kitty multiplier ``M`` of §10.2 for the cards of the last trick (``uint8[54]``).

    Pass the last trick's lead (``kitty_multiplier_basis="LEAD"``, default) or the play that won
    it (``"WINNING_PLAY"``); it is decomposed canonically (§6.2) and only its units count, never
    the total number of cards. ``M = max f(u)`` over the units, ``f`` per ``cfg.kitty_multiplier``.

    ``TIERED`` with ``tiered_precedence="LITERAL"`` follows seed D's fixed order instead of the
    maximum: the first unit category present in the order Titanic (k=3, len>=2), triple (3, 1),
    tractor (2, >=2), pair (2, 1), nothing decides, and ``M`` is the largest ``2·k^len`` in it.
    With 4 decks the order is (§10.2) consecutive quads (4, >=2), Titanic, quad (4, 1), triple,
    tractor, pair, nothing — so a quad next to a Titanic gives 18 under both readings, and a
    triple next to a 4-pair tractor 6 under LITERAL and 32 under MAX.
    ``LINEAR`` and ``POWER`` count the cards of a unit (a 2-triple Titanic: 12 and 64).
    """
    units = decompose(last_lead, ctx)
    if not units:
        raise ValueError("the last trick's play is empty; the kitty multiplier needs its cards")
    if cfg.kitty_multiplier == "TIERED" and cfg.tiered_precedence == "LITERAL":
        category = max(_literal_rank(u) for u in units)
        units = [u for u in units if _literal_rank(u) == category]
    return max(_unit_factor(u, cfg.kitty_multiplier) for u in units)


def kitty_bonus(kitty: np.ndarray, last_lead_or_winning_play: np.ndarray, ctx: TrumpContext,
                cfg: Rules, attackers_won_last_trick: bool = True) -> int:
    """Points the kitty adds to the attackers' score (§10.1-10.2).

    ``kitty``: ``uint8[54]`` — the buried cards; ``last_lead_or_winning_play``: ``uint8[54]`` —
    see :func:`kitty_multiplier`. ``points(kitty) · M`` when an attacker won the last trick,
    else 0 (the kitty's points then count for nobody).
    """
    if not attackers_won_last_trick:
        return 0
    return cards.points(kitty) * kitty_multiplier(last_lead_or_winning_play, ctx, cfg)


def throw_penalty(thrower_is_attacker: bool, cards_returned: int, cfg: Rules) -> int:
    """Signed change to the attackers' score for one failed throw (§7.4 step 5).

    ``FIXED_10``: 10 per failed throw; ``PER_CARD_10``: 10 per card returned to the hand;
    ``NONE``: 0. Added when the thrower is on the dealer side, subtracted when he is an attacker.
    """
    n = _check_int("cards_returned", cards_returned)
    if n < 1:
        raise ValueError(f"cards_returned={n} is not allowed; a failed throw returns >= 1 card")
    amount = {"NONE": 0, "FIXED_10": 10, "PER_CARD_10": 10 * n}[cfg.throw_penalty]
    return -amount if thrower_is_attacker else amount


def _gain_with_stops(level: int, gain: int, stops: tuple[int, ...]) -> int:
    """``level + gain``, stopped at the first mandatory level strictly above ``level`` (§10.5)."""
    target = level + gain
    for m in stops:
        if level < m < target:
            return m
    return target


def apply_level_change(team_levels: tuple[int, int], dealer_team: int, outcome: LevelOutcome,
                       cfg: Rules, attackers_won_last_trick: bool = False
                       ) -> tuple[tuple[int, int], int | None]:
    """Team levels after a hand and the winning team (0 or 1), or None if the game goes on.

    ``team_levels``: (level of team {0,2}, level of team {1,3}), rank indices 0-12 (2..A);
    ``dealer_team``: 0 or 1. The gaining team is the dealer side (``dealer_side_gain``) or, on
    a take-over, the attackers (``attackers_gain``). Choices (§10.5, AMB-22):

    * ``PASS_A``: the gaining team wins when its level would exceed A; the returned level is
      then capped at A (the game is over).
    * ``MUST_DEFEND_A``: levels are capped at A (surplus lost); the dealer side wins iff it was
      at A and held (no take-over).
    * ``mandatory_levels``: a gain stops at the first listed level above the current one. A team
      sitting on a listed level leaves it only by holding there as dealer side, so attackers on
      a listed level who take over stay on it (gain discarded) and must then play it.
      A listed A makes a PASS_A win need a hold at A, as under MUST_DEFEND_A.
    * ``reset_when_dug_at_A``: when the dealer side played at A and the attackers won the last
      trick, the dealer side drops to 2 whatever ``P`` was (it neither wins nor keeps A); the
      attackers still get their take-over gain.
    """
    levels = [_check_int("team level", v) for v in team_levels]
    if len(levels) != 2 or not all(0 <= v <= ACE for v in levels):
        raise ValueError(f"team_levels={tuple(team_levels)!r} is not allowed; expected two rank "
                         "indices 0-12 (2..A)")
    if dealer_team not in (0, 1):
        raise ValueError(f"dealer_team={dealer_team!r} is not allowed; expected 0 or 1")
    attackers = 1 - dealer_team
    dug_at_a = (cfg.reset_when_dug_at_A and attackers_won_last_trick
                and levels[dealer_team] == ACE)
    if outcome.attackers_take_over:
        team, gain = attackers, outcome.attackers_gain
    else:
        team, gain = dealer_team, outcome.dealer_side_gain
    start = levels[team]
    if outcome.attackers_take_over and start in cfg.mandatory_levels:
        target = start  # §10.5: a listed level must be played (held) as dealer side to pass it
    else:
        target = _gain_with_stops(start, gain, cfg.mandatory_levels)

    winner = None
    if cfg.win_condition == "PASS_A":
        if target > ACE and not dug_at_a:
            winner = team
    elif not outcome.attackers_take_over and start == ACE and not dug_at_a:  # MUST_DEFEND_A
        winner = team
    levels[team] = min(target, ACE)
    if dug_at_a:
        levels[dealer_team] = 0  # §10.5 reset_when_dug_at_A: back to level 2
    return (levels[0], levels[1]), winner


def apply_seat_level_change(seat_levels, dealer_side, outcome: LevelOutcome, cfg: Rules,
                            attackers_won_last_trick: bool = False
                            ) -> tuple[tuple[int, int, int, int], frozenset[int]]:
    """Per-player levels after a find-friends hand (RULES.md §10.6) and the match winners.

    ``seat_levels``: four rank indices 0-12; ``dealer_side``: ``bool[4]`` — this hand's actual
    dealer side (the dealer and his friend, or the dealer alone). Each member of the gaining
    side (the dealer side on a hold, the attackers on a take-over) gains the side's levels from
    his own level, with the options of :func:`apply_level_change` applied seat by seat
    (mandatory levels, ``reset_when_dug_at_A`` for dealer-side seats at A). Returns the new levels
    and the seats that win the match: under ``PASS_A`` the gaining seats whose level passes A,
    under ``MUST_DEFEND_A`` the dealer-side seats that held at A (empty: the match goes on).
    """
    levels = [_check_int("seat level", v) for v in seat_levels]
    if len(levels) != 4 or not all(0 <= v <= ACE for v in levels):
        raise ValueError(f"seat_levels={tuple(seat_levels)!r} is not allowed; expected four rank "
                         "indices 0-12 (2..A)")
    side = [bool(x) for x in np.asarray(dealer_side, dtype=bool).reshape(-1)]
    if len(side) != 4 or not any(side):
        raise ValueError(f"dealer_side={dealer_side!r} must be bool[4] with the dealer on it")
    take = outcome.attackers_take_over
    gain = outcome.attackers_gain if take else outcome.dealer_side_gain
    winners = set()
    for seat in range(4):
        start = levels[seat]
        dug = (cfg.reset_when_dug_at_A and attackers_won_last_trick and side[seat]
               and start == ACE)
        if side[seat] != take:  # on the gaining side
            if take and start in cfg.mandatory_levels:
                target = start  # §10.5: a listed level is left only by holding on it
            else:
                target = _gain_with_stops(start, gain, cfg.mandatory_levels)
            if cfg.win_condition == "PASS_A":
                won = target > ACE and not dug
            else:  # MUST_DEFEND_A
                won = not take and start == ACE and not dug
            if won:
                winners.add(seat)
            levels[seat] = min(target, ACE)
        if dug:
            levels[seat] = 0
    return (levels[0], levels[1], levels[2], levels[3]), frozenset(winners)


def next_dealer(dealer: int, outcome: LevelOutcome, cfg: Rules,
                dealer_side: frozenset[int] | set[int] | None = None) -> int:
    """Seat dealing the next hand (§10.4).

    ``dealer_side``: the seats of this hand's dealer side; None means the fixed partnership
    ``{dealer, dealer + 2}``. Give it in find-friends mode (§10.6), where the next dealer is the
    first seat after the dealer, in playing order, on the next hand's dealer side (the dealer
    himself if nobody else is). Rotations:

    * ``STANDARD``: that first seat — fixed partnership: partner on a hold, next player on a
      take-over;
    * ``STAY_WHILE_HOLDING``: the dealer again on a hold; as STANDARD on a take-over;
    * ``ALWAYS_NEXT``: ``dealer + 1`` every hand.
    """
    if not 0 <= dealer <= 3:
        raise ValueError(f"dealer={dealer!r} is not a seat; expected 0-3")
    side = frozenset({dealer, seats.partner(dealer)} if dealer_side is None else dealer_side)
    if dealer not in side or not side <= {0, 1, 2, 3}:
        raise ValueError(f"dealer_side={sorted(side)} must be seats 0-3 including the dealer "
                         f"{dealer}")
    if cfg.dealer_rotation == "ALWAYS_NEXT":
        return (dealer + 1) % 4
    if cfg.dealer_rotation == "STAY_WHILE_HOLDING" and not outcome.attackers_take_over:
        return dealer
    next_side = frozenset({0, 1, 2, 3} - side) if outcome.attackers_take_over else side
    for step in range(1, 4):
        if (dealer + step) % 4 in next_side:
            return (dealer + step) % 4
    return dealer  # the dealer alone held (find-friends, one against three)


def resolve_friend(dealer: int, named_card: int, hands_after_bury: np.ndarray,
                   decks: int) -> int | None:
    """The dealer's friend in find-friends mode (§10.6, AMB-16), or None if he plays alone.

    ``hands_after_bury``: ``uint8[4, 54]`` — each seat's cards after the dealer buried the
    kitty (kitty cards belong to nobody). The friend is the first seat after the dealer, in
    playing order, holding a copy of ``named_card``. With 2 decks this is §10.6's three cases:
    dealer holds one copy → the holder of the other; none → the first holder after him; both
    (or the other copy is buried) → alone.
    """
    hands = np.asarray(hands_after_bury)
    if hands.shape != (4, cards.NUM_CARDS):
        raise ValueError(f"hands_after_bury must have shape (4, 54), got {hands.shape}")
    if not 0 <= dealer <= 3:
        raise ValueError(f"dealer={dealer!r} is not a seat; expected 0-3")
    if not 0 <= named_card < cards.NUM_CARDS:
        raise ValueError(f"named_card={named_card!r} is not a card id; expected 0-53")
    held = int(hands[:, named_card].astype(np.int64).sum())
    if held > decks:
        raise ValueError(f"{cards.name(named_card)} is held {held} times but there are only "
                         f"{decks} decks")
    for step in range(1, 4):
        seat = (dealer + step) % 4
        if hands[seat, named_card] > 0:
            return seat
    return None


def hand_rewards(outcome: LevelOutcome, dealer: int, reward: str = "levels",
                 attacker_points: int | None = None, cfg: Rules | None = None,
                 dealer_side=None) -> np.ndarray:
    """``float32[4]`` — per-seat reward for one hand, zero-sum between the two sides.

    ``dealer_side``: ``bool[4]``, the seats of the dealer side; ``None`` means the fixed
    partnership of ``dealer``. Each seat gets its side's value, so with a dealer alone against
    three (find-friends, §10.6) the per-seat sum is ``-2r``, not 0; the per-side view
    (dealer side ``-r``, attackers ``r``) is zero-sum.

    The attackers' value ``r`` (DESIGN.md §4 "Rewards"); the dealer side gets ``-r``; partners
    get the same value:

    * ``"levels"``: ``1 + attackers_gain`` on a take-over, else ``-dealer_side_gain``;
    * ``"points"``: ``clip((P - 2s) / 2s, -1, 1)`` with ``s = cfg.level_step``: 0 at the
      take-over threshold, -1 at ``P <= 0``, +1 at ``P >= 4s`` (needs ``attacker_points``, ``cfg``);
    * ``"win"``: +1 if the attackers take over, else -1 (a per-hand win; match wins are the
      environment's business).
    """
    if reward not in REWARDS:
        raise ValueError(f"reward={reward!r} is not allowed; expected one of {', '.join(REWARDS)}")
    if not 0 <= dealer <= 3:
        raise ValueError(f"dealer={dealer!r} is not a seat; expected 0-3")
    if reward == "levels":
        r = 1 + outcome.attackers_gain if outcome.attackers_take_over else -outcome.dealer_side_gain
    elif reward == "win":
        r = 1.0 if outcome.attackers_take_over else -1.0
    else:
        if attacker_points is None or cfg is None:
            raise ValueError('reward="points" needs attacker_points and cfg')
        two_s = 2 * cfg.level_step
        r = float(np.clip((_check_int("attacker_points", attacker_points) - two_s) / two_s, -1, 1))
    side = seats.FIXED_DEALER_SIDE[dealer] if dealer_side is None else np.asarray(dealer_side, bool)
    return np.where(side, -r, r).astype(np.float32)
