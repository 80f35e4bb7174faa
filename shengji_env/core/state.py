"""``BatchState``: B games as a struct of numpy arrays (leading axis B).

Seats are absolute (0-3) here; observations make them relative. Card sets are count vectors
``uint8[..., 54]``. ``-1`` marks "not yet decided" in the int8 scalars.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..rules.game import MAX_CHOICES

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
      candidates uint8[B, 5, 54]  failed-throw units the next player chooses among (NEXT_PLAYER)
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
      phase      int8[B]          rules.game.Phase
      to_act     int8[B]          seat to act (-1 when over)
      dealer     int8[B]          dealer seat (-1 not decided)
      level      int8[B]          level rank of this hand (0-12)
      trump      int8[B]          0-3, NT = 4, -1 not decided
      ctx        int16[B]         tables context id (level·5 + trump), valid once trump is set
      eff, idx   int8[B, 54]      effective suit / order index of every card (rows of tables)
      team_levels int8[B, 2]      levels of team 0 (seats 0, 2) and team 1
      leader     int8[B]          seat leading the current trick
      lead_n     int8[B]          cards in the lead (0: no lead yet)
      lead_suit  int8[B]          effective suit of the lead
      lead_pairs int8[B]          pairs in the lead, pL of §8.2
      lead_tractor bool[B]        the lead holds a tractor (rare path: scalar rules)
      n_candidates int8[B]        number of failed-throw candidates
      in_trick   int8[B]          plays made in the current trick
      tricks_done int8[B]
      captured   int16[B]         attackers' points from tricks
      penalty    int16[B]         throw penalties (signed, §7.4)
      kitty_bonus int16[B]
      attacker_points int16[B]    final P of the last finished hand
      outcome    int8[B, 3]       its LevelOutcome: dealer side gain, take over, attackers gain
      done       bool[B]          the episode is over
      winner_team int8[B]         match winner (-1 none yet)
      next_dealer int8[B]         dealer of the next hand (after a hand ends)
      last_lead  uint8[B, 54]     lead of the last finished trick
      last_winner int8[B]         seat that won the last finished trick
    Log
      log        int16[B, 512]    this hand's decisions as seat·256 + action (forced ones too)
      log_len    int16[B]
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
    team_levels: np.ndarray
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
    next_dealer: np.ndarray
    last_lead: np.ndarray
    last_winner: np.ndarray
    log: np.ndarray
    log_len: np.ndarray

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
            "candidates": ((B, MAX_CHOICES, 54), np.uint8), "deck": ((B, 54 * d), np.int8),
            "deal_counts": ((B, 4 * cfg.hand_size, 6), np.int8),
            "deal_next": ((B, 4 * cfg.hand_size + 1), np.int16), "dealt": ((B,), np.int16),
            "team_levels": ((B, 2), np.int8), "eff": ((B, 54), np.int8),
            "idx": ((B, 54), np.int8), "ctx": ((B,), np.int16), "lead_tractor": ((B,), bool),
            "first_hand": ((B,), bool), "done": ((B,), bool), "captured": ((B,), np.int16),
            "penalty": ((B,), np.int16), "kitty_bonus": ((B,), np.int16),
            "attacker_points": ((B,), np.int16), "outcome": ((B, 3), np.int8),
            "last_lead": ((B, 54), np.uint8),
            "log": ((B, LOG_LEN), np.int16), "log_len": ((B,), np.int16),
        }
        values = {}
        for f in fields(cls):
            shape, dtype = shapes.get(f.name, ((B,), np.int8))
            values[f.name] = np.zeros(shape, dtype=dtype)
        return cls(**values)

    def copy(self) -> BatchState:
        """A deep copy (every array copied)."""
        return BatchState(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, games) -> BatchState:
        """A new state holding copies of ``games`` (``int[g]``), in that order."""
        G = np.asarray(games, dtype=np.int64)
        return BatchState(**{f.name: getattr(self, f.name)[G] for f in fields(self)})

    @property
    def num_games(self) -> int:
        return self.phase.shape[0]
