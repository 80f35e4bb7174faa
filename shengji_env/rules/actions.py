"""The decision process's vocabulary: phases, action ids and their layout (DESIGN.md §4).

One home for these conventions; every module imports them from here.

============  ==============================================================================
id            meaning
============  ==============================================================================
0-53          ``CARD(c)``: add one copy of card ``c`` to the selection (play or bury)
54            ``PASS``: make no declaration now
55            ``END``: the leader ends the selection; the selected cards are the lead
56 …          ``DECLARE``: ``rules.declare.declaration_actions(cfg)[i]`` is id ``56 + i``
then          ``NAME`` (5 ids S, H, C, D, NT; only ``declaration_mode="POST_DEAL_PARTNER_FIRST"``),
              ``CHOOSE`` (``max_choices(decks)`` ids; only ``failed_throw_choice="NEXT_PLAYER"``),
              ``FRIEND`` (54 ids, ``FRIEND(c)`` names card identity ``c`` as the friend card;
              only ``partnership="FIND_FRIEND"``, RULES.md §10.6)
============  ==============================================================================

The default layout (2 decks, default rules: ``A = 66``) is frozen: new ids appear only with the
option that needs them, appended after the existing ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .. import cards
from . import declare
from .config import Rules

NUM_CARD_ACTIONS = cards.NUM_CARDS  # CARD(c) is action c
PASS = 54
END = 55
DECLARE_BASE = declare.DECLARE_BASE
MAX_CHOICES = 5  # failing unit types of one 2-deck throw: single, pair, ≤3 tractor lengths
#: CHOOSE ids per deck count: the most distinct unit types (k, length) one throw can hold, by
#: cards — the smallest distinct shapes must fit in the largest hand (kitty 0-2). 3 decks: 1+2+3
#: +4+6+6+8+9 = 39 ≤ 40 < 49; 4 decks: 1+2+3+4+4+6+6+8+8+9 = 51 ≤ 54 < 61. 1 and 2 decks keep
#: the frozen 5 (a 1-deck throw has one type; the layouts do not change).
_MAX_CHOICES = {1: MAX_CHOICES, 2: MAX_CHOICES, 3: 8, 4: 10}


def max_choices(decks: int) -> int:
    """Number of ``CHOOSE`` ids (and failed-throw candidate slots) with ``decks`` decks."""
    return _MAX_CHOICES[decks]

NUM_NAME_ACTIONS = 5  # NAME: S, H, C, D, NT
NAME_LABELS = ("S", "H", "C", "D", "NT")
NUM_FRIEND_ACTIONS = cards.NUM_CARDS  # FRIEND(c): any of the 54 identities (§10.6)


class Phase(IntEnum):
    """The phase of a hand: who decides what (DESIGN.md §4)."""

    DECLARE = 0  # during the deal and its closing window: PASS or a DECLARE id (§4)
    NAME = 1     # nobody declared after a post-deal window: the dealer's partner names trump
    BURY = 2     # the dealer buries the kitty, one CARD at a time (§5)
    PLAY = 3     # tricks: CARD ids build the play, END ends a lead (§7-9)
    CHOOSE = 4   # a failed throw: the leader's next player picks the unit led (§7.4.3)
    OVER = 5     # the episode is over
    FRIEND = 6   # find-friends: after the bury the dealer names the friend card (§10.6); a value
    #              after OVER so that the default phases keep their numbers (frozen layout)


@dataclass(frozen=True)
class ActionLayout:
    """Action ids for a ruleset: CARD 0-53, PASS 54, END 55, DECLARE from 56, then ``NAME`` if
    trump can be named, ``CHOOSE`` if a player picks a failed throw's unit, ``FRIEND`` in
    find-friends mode. ``-1`` marks a block that this ruleset does not have; ``size`` is ``A``."""

    num_declare: int
    name_base: int
    choose_base: int
    size: int
    friend_base: int = -1
    num_choices: int = MAX_CHOICES  #: CHOOSE ids when ``choose_base >= 0`` (``max_choices``)


def action_layout(cfg: Rules) -> ActionLayout:
    """The ``ActionLayout`` of ruleset ``cfg``."""
    size = DECLARE_BASE + declare.num_declare_actions(cfg)
    name_base = choose_base = -1
    if cfg.declaration_mode == "POST_DEAL_PARTNER_FIRST":
        name_base, size = size, size + NUM_NAME_ACTIONS
    if cfg.failed_throw_choice == "NEXT_PLAYER":
        choose_base, size = size, size + max_choices(cfg.decks)
    friend_base = -1
    if cfg.partnership == "FIND_FRIEND":
        friend_base, size = size, size + NUM_FRIEND_ACTIONS
    return ActionLayout(declare.num_declare_actions(cfg), name_base, choose_base, size, friend_base,
                        max_choices(cfg.decks))


def describe_action(action: int, cfg: Rules) -> str:
    """A readable name of action id ``action`` under ``cfg`` ("H:A", "pass", "declare 2x H")."""
    a = int(action)
    lay = action_layout(cfg)
    if 0 <= a < NUM_CARD_ACTIONS:
        return cards.name(a)
    if a == PASS:
        return "pass"
    if a == END:
        return "end"
    table = declare.declaration_actions(cfg)
    if DECLARE_BASE <= a < DECLARE_BASE + len(table):
        kind, suit, k = table[a - DECLARE_BASE]
        what = cards.SUITS[suit] if kind == declare.LEVEL else declare.KIND_NAMES[kind]
        return f"declare {k}x {what}"
    if lay.name_base >= 0 and lay.name_base <= a < lay.name_base + NUM_NAME_ACTIONS:
        return "name " + NAME_LABELS[a - lay.name_base]
    if lay.choose_base >= 0 and lay.choose_base <= a < lay.choose_base + lay.num_choices:
        return f"choose {a - lay.choose_base}"
    if lay.friend_base >= 0 and lay.friend_base <= a < lay.friend_base + NUM_FRIEND_ACTIONS:
        return "friend " + cards.name(a - lay.friend_base)
    return f"<no action {a}>"


__all__ = ["DECLARE_BASE", "END", "MAX_CHOICES", "NAME_LABELS", "NUM_CARD_ACTIONS",
           "NUM_FRIEND_ACTIONS", "NUM_NAME_ACTIONS", "PASS", "ActionLayout", "Phase", "action_layout",
           "describe_action", "max_choices"]
