"""``BatchState``: B games as a struct of numpy arrays (leading axis B) — the whole truth.

Seats are absolute (0-3) here; observations make them relative. Card sets are count vectors
``uint8[..., 54]``. ``-1`` marks "not yet decided" in the int8 scalars.

Every fact of every game lives here — cards, phase, partnership, levels, the per-game random
streams, the decision log and history, given decks, the mask cache — so ``copy()`` and
``take(games)`` are independent snapshots: step a copy and the original's future masks,
observations and deals do not change. ``Engine`` holds only configuration and tables.

Random streams are shared copy-on-write: ``copy()`` and ``take()`` hand the same
``numpy.random.Generator`` objects to both states and mark them shared (``rng_owned``
False); whichever state draws from a shared stream first draws from a private clone
(``rng(g)``). A shared generator is therefore never advanced, and copying B = 1,024 games
costs list copies instead of 2,048 generator clones (about 20 ms).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from ..rules.actions import max_choices

LOG_LEN = 512  # decisions of one hand fit easily: ≤ 108 deal + window + 8 bury + 133 play


@dataclass
class BatchState:
    """The state of B games.

    Cards
      hands      uint8[B, 4, 54]  cards held by each seat (a selection is still held)
      kitty      uint8[B, 54]     undealt cards during the deal; the buried kitty after the bury
      picked_up  uint8[B, 54]     the kitty the dealer took (he may see it)
      selection  uint8[B, 54]     cards chosen so far by the seat to act (play or bury)
      trick      uint8[B, 4, 54]  cards played to the current trick by each seat
      lead       uint8[B, 54]     the current trick's lead (after throw validation)
      played     uint8[B, 4, 54]  cards each seat played in finished tricks
      shown      uint8[B, 4, 54]  cards each seat has shown in declarations
      revealed   uint8[B, 4, 54]  failed-throw cards each seat revealed and has not played since
      voids      bool[B, 4, 5]    seat showed it is void in an effective suit (S, H, C, D, trump)
      candidates uint8[B, C, 54]  failed-throw units the next player chooses among (NEXT_PLAYER;
                                  C = rules.actions.max_choices(decks): 5 for 1-2 decks)
    Deal and declarations (RULES.md §4)
      deck        int8[B, 54·d]   dealing order of this hand (card ids)
      deal_counts int8[B, 4·h, 6] after card j: its receiver's level cards per suit, LJ, BJ
      deal_next   int16[B, 4·h+1] with j cards dealt: the next card whose receiver may declare
                                  (4·h: none), under the current declaration
      dealt       int16[B]        cards dealt so far
      first_drawer int8[B]        seat that received the first card
      window_seat  int8[B]        next seat the closing window asks (-1: still dealing)
      window_passes int8[B]       passes in a row in the closing window
      decl_player, decl_kind, decl_suit, decl_k  int8[B]  current declaration (-1 none)
      first_declarer int8[B]      first accepted declarer (-1 none)
      first_hand  bool[B]         this hand's dealer is chosen by declaring
    Hand
      phase      int8[B]          rules.actions.Phase
      to_act     int8[B]          seat to act (-1 when over)
      dealer     int8[B]          dealer seat (-1 not decided)
      level      int8[B]          level rank of this hand (0-12)
      trump      int8[B]          0-3, NT = 4, -1 not decided
      ctx        int16[B]         tables context id (level·5 + trump), valid once trump is set
      eff, idx   int8[B, 54]      effective suit / order index of every card (rows of tables)
      seat_levels int8[B, 4]      level of each seat (partners share one in the fixed
                                  partnership; the team levels of RULES.md §10)
      dealer_side bool[B, 4]      seat is on the dealer side this hand (all False while the
                                  dealer is not decided; find-friends: the dealer alone until
                                  the friend card is named, then the true side, hidden)
      friend_card int8[B]         find-friends: the named card identity (-1 not named yet)
      friend     int8[B]          find-friends: the friend's seat (-1: not named yet, or alone)
      friend_trick int8[B]        the trick (0-based) in which the friend played a copy of the
                                  friend card and so showed himself (-1 not yet)
      points_won int16[B, 4]      card points in the tricks each seat won this hand (public)
      leader     int8[B]          seat leading the current trick
      lead_n     int8[B]          cards in the lead (0: no lead yet)
      lead_suit  int8[B]          effective suit of the lead
      lead_pairs int8[B]          pairs in the lead, pL of §8.2
      lead_tractor bool[B]        the lead holds a tractor, or (3-4 decks) a triple or quad:
                                  the rare path, follows and winner from the scalar rules
      n_candidates int8[B]        number of failed-throw candidates
      in_trick   int8[B]          plays made in the current trick
      tricks_done int8[B]
      captured   int16[B]         attackers' points from tricks (≤ 100·decks)
      penalty    int32[B]         throw penalties (signed, §7.4)
      kitty_bonus int64[B]        kitty points × multiplier: 2·4^13·80 (TIERED) or 2^52·80
                                  (POWER) with 4 decks, far beyond int16/int32
      attacker_points int64[B]    final P of the last finished hand
      outcome    int64[B, 3]      its LevelOutcome: dealer side gain, take over, attackers gain
                                  (the attackers' gain grows with P)
      done       bool[B]          the episode is over
      winner_team int8[B]         match winner (-1 none yet; always -1 in find-friends mode)
      winner_seats bool[B, 4]     seats that won the match (fixed: the winning team's two)
      next_dealer int8[B]         dealer of the next hand (after a hand ends)
      last_lead  uint8[B, 54]     lead of the last finished trick
      last_winner int8[B]         seat that won the last finished trick
      throw_beater int8[B]        seat whose higher unit made the last failed throw of this
                                  hand fail: the first after the leader (-1 none; §7.3)
    Log
      log        int16[B, 512]    this hand's decisions as seat·256 + action (forced ones too)
      log_len    int16[B]
      history    list[B] of list[(seat, action)]  earlier decisions of the episode (hands
                                  before this one, (-1, -1) marking a redeal)
    Episode set-up
      given_deck  int8[B, 54·d]   a dealing order given for the next hand (duplicate deals)
      given_first int8[B]         its first drawer
      has_given   bool[B]         the next hand uses ``given_deck`` instead of a shuffle
      rngs        list[B] of numpy Generator  per-game stream: first drawer, decks (as
                                  ``rules.Game``)
      setup_rngs  list[B] of numpy Generator  per-game stream for random levels / dealers
      rng_owned   bool[B, 2]      the game's two streams are its own (False: shared with a
                                  copy; cloned before the next draw)
    Cache
      mask       bool[B, A] | None  ``Engine.legal_mask`` of this state (None: not computed
                                  since the last change)
    """

    hands: np.ndarray
    kitty: np.ndarray
    picked_up: np.ndarray
    selection: np.ndarray
    trick: np.ndarray
    lead: np.ndarray
    played: np.ndarray
    shown: np.ndarray
    revealed: np.ndarray
    voids: np.ndarray
    candidates: np.ndarray
    deck: np.ndarray
    deal_counts: np.ndarray
    deal_next: np.ndarray
    dealt: np.ndarray
    first_drawer: np.ndarray
    window_seat: np.ndarray
    window_passes: np.ndarray
    decl_player: np.ndarray
    decl_kind: np.ndarray
    decl_suit: np.ndarray
    decl_k: np.ndarray
    first_declarer: np.ndarray
    first_hand: np.ndarray
    phase: np.ndarray
    to_act: np.ndarray
    dealer: np.ndarray
    level: np.ndarray
    trump: np.ndarray
    ctx: np.ndarray
    eff: np.ndarray
    idx: np.ndarray
    seat_levels: np.ndarray
    dealer_side: np.ndarray
    friend_card: np.ndarray
    friend: np.ndarray
    friend_trick: np.ndarray
    points_won: np.ndarray
    leader: np.ndarray
    lead_n: np.ndarray
    lead_suit: np.ndarray
    lead_pairs: np.ndarray
    lead_tractor: np.ndarray
    n_candidates: np.ndarray
    in_trick: np.ndarray
    tricks_done: np.ndarray
    captured: np.ndarray
    penalty: np.ndarray
    kitty_bonus: np.ndarray
    attacker_points: np.ndarray
    outcome: np.ndarray
    done: np.ndarray
    winner_team: np.ndarray
    winner_seats: np.ndarray
    next_dealer: np.ndarray
    last_lead: np.ndarray
    last_winner: np.ndarray
    throw_beater: np.ndarray
    log: np.ndarray
    log_len: np.ndarray
    given_deck: np.ndarray
    given_first: np.ndarray
    has_given: np.ndarray
    rng_owned: np.ndarray
    rngs: list = field(default_factory=list)
    setup_rngs: list = field(default_factory=list)
    history: list = field(default_factory=list)
    mask: np.ndarray | None = None

    @classmethod
    def zeros(cls, num_games: int, cfg) -> BatchState:
        """All-zero state for ``num_games`` games under ``cfg`` (filled by ``Engine.reset``)."""
        B, d = num_games, cfg.decks
        shapes = {
            "hands": ((B, 4, 54), np.uint8), "kitty": ((B, 54), np.uint8),
            "picked_up": ((B, 54), np.uint8), "selection": ((B, 54), np.uint8),
            "trick": ((B, 4, 54), np.uint8), "lead": ((B, 54), np.uint8),
            "played": ((B, 4, 54), np.uint8), "shown": ((B, 4, 54), np.uint8),
            "revealed": ((B, 4, 54), np.uint8), "voids": ((B, 4, 5), bool),
            "candidates": ((B, max_choices(d), 54), np.uint8), "deck": ((B, 54 * d), np.int8),
            "deal_counts": ((B, 4 * cfg.hand_size, 6), np.int8),
            "deal_next": ((B, 4 * cfg.hand_size + 1), np.int16), "dealt": ((B,), np.int16),
            "seat_levels": ((B, 4), np.int8), "dealer_side": ((B, 4), bool),
            "points_won": ((B, 4), np.int16), "winner_seats": ((B, 4), bool),
            "eff": ((B, 54), np.int8),
            "idx": ((B, 54), np.int8), "ctx": ((B,), np.int16), "lead_tractor": ((B,), bool),
            "first_hand": ((B,), bool), "done": ((B,), bool), "captured": ((B,), np.int16),
            "penalty": ((B,), np.int32), "kitty_bonus": ((B,), np.int64),
            "attacker_points": ((B,), np.int64), "outcome": ((B, 3), np.int64),
            "last_lead": ((B, 54), np.uint8),
            "log": ((B, LOG_LEN), np.int16), "log_len": ((B,), np.int16),
            "given_deck": ((B, 54 * d), np.int8), "has_given": ((B,), bool),
            "rng_owned": ((B, 2), bool),
        }
        values = {}
        for name in ARRAY_FIELDS:
            shape, dtype = shapes.get(name, ((B,), np.int8))
            values[name] = np.zeros(shape, dtype=dtype)
        return cls(**values, rngs=[None] * B, setup_rngs=[None] * B, history=[[] for _ in range(B)])

    def copy(self) -> BatchState:
        """An independent snapshot of every game (arrays copied, random streams shared
        copy-on-write, histories copied, the mask cache kept)."""
        self.rng_owned[:] = False
        return BatchState(**{name: getattr(self, name).copy() for name in ARRAY_FIELDS},
                          rngs=list(self.rngs), setup_rngs=list(self.setup_rngs),
                          history=[list(h) for h in self.history],
                          mask=None if self.mask is None else self.mask.copy())

    def take(self, games) -> BatchState:
        """An independent snapshot of ``games`` (``int[g]``), in that order (as ``copy``)."""
        G = np.asarray(games, dtype=np.int64).reshape(-1)
        self.rng_owned[G] = False
        out = BatchState(**{name: getattr(self, name)[G] for name in ARRAY_FIELDS},
                         rngs=[self.rngs[g] for g in G], setup_rngs=[self.setup_rngs[g] for g in G],
                         history=[list(self.history[g]) for g in G],
                         mask=None if self.mask is None else self.mask[G])
        out.rng_owned[:] = False
        return out

    def rng(self, g: int) -> np.random.Generator:
        """Game ``g``'s stream for deals (first drawer, decks), private to this state."""
        if not self.rng_owned[g, 0]:
            self.rngs[g] = _clone(self.rngs[g])
            self.rng_owned[g, 0] = True
        return self.rngs[g]

    def setup_rng(self, g: int) -> np.random.Generator:
        """Game ``g``'s stream for random starting levels and dealers, private to this state."""
        if not self.rng_owned[g, 1]:
            self.setup_rngs[g] = _clone(self.setup_rngs[g])
            self.rng_owned[g, 1] = True
        return self.setup_rngs[g]

    @property
    def team_levels(self) -> np.ndarray:
        """``int8[B, 2]`` — a copy of the fixed partnership's levels: team 0 (seats 0, 2), team 1
        (seats 1, 3)."""
        return self.seat_levels[:, :2].copy()

    @property
    def num_games(self) -> int:
        return self.phase.shape[0]


def _clone(rng: np.random.Generator) -> np.random.Generator:
    """A generator in the same state as ``rng`` that does not share its state."""
    bits = type(rng.bit_generator)(0)
    bits.state = rng.bit_generator.state
    return np.random.Generator(bits)


OBJECT_FIELDS = ("rngs", "setup_rngs", "history", "mask")
ARRAY_FIELDS = tuple(f.name for f in fields(BatchState) if f.name not in OBJECT_FIELDS)
