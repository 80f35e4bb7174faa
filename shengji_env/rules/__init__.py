"""The rules of record in code (RULES.md): scalar, one game at a time, readable.

This package is the oracle the batched engine (``shengji_env.core``) is tested against.
Public API (DESIGN.md §3)::

    ctx = TrumpContext(level="10", trump="S", decks=2)
    effective_suit(card, ctx); order_index(card, ctx); canonical_order(level, trump)
    decompose(counts, ctx) -> list[Unit]; is_tractor(counts, ctx)
    validate_throw(lead, other_hands, ctx, cfg) -> ThrowResult
    is_legal_follow(hand, lead, play, ctx, cfg); legal_follows(hand, lead, ctx, cfg)
    trick_winner(plays, ctx, cfg); legal_next_cards(hand, lead, selection, ctx, cfg)
    kitty_multiplier(last_lead, ctx, cfg); level_outcome(attacker_points, cfg)
    Game(cfg, seed)
"""

from . import seats
from .actions import ActionLayout, Phase, action_layout, describe_action
from .config import Rules, make_rules
from .declare import Declaration, DeclareState, declaration_actions, legal_declarations
from .game import Game
from .order import (
                    NT,
                    TRUMP,
                    TrumpContext,
                    canonical_order,
                    effective_suit,
                    is_trump,
                    order_index,
                    parse_trump,
                    single_suit,
)
from .patterns import Unit, decompose, is_throw, is_tractor, match_value, matches, pairs, suit_layout
from .play import (
                    ThrowResult,
                    is_legal_follow,
                    is_legal_lead,
                    is_ruff,
                    legal_follows,
                    legal_next_cards,
                    trick_points,
                    trick_winner,
                    validate_throw,
)
from .scoring import LevelOutcome, apply_level_change, kitty_multiplier, level_outcome, next_dealer

__all__ = [
    "NT", "TRUMP", "ActionLayout", "Declaration", "DeclareState", "Game", "LevelOutcome",
    "Phase", "Rules", "ThrowResult", "TrumpContext", "Unit", "action_layout",
    "apply_level_change", "canonical_order", "declaration_actions", "decompose",
    "describe_action", "effective_suit", "is_legal_follow", "is_legal_lead", "is_ruff",
    "is_throw", "is_tractor", "is_trump", "kitty_multiplier", "legal_declarations",
    "legal_follows", "legal_next_cards", "level_outcome", "make_rules", "match_value", "matches",
    "next_dealer", "order_index", "pairs", "parse_trump", "seats", "single_suit", "suit_layout",
    "trick_points",
    "trick_winner", "validate_throw",
]
