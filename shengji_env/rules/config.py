"""``Rules``: every configurable option of RULES.md §11, validated, with the default ruleset.

Options are keyword arguments; enumerated values are the §11 names as strings, matched
case-insensitively and stored upper-case::

    Rules()                                   # the default ruleset (RULES.md §2)
    Rules(decks=1)                            # kitty 6, level step 20, ...
    Rules(kitty_multiplier="power", throw_penalty="FIXED_10")

An unknown option or a bad value raises ``ValueError`` naming it and listing what is allowed
(DESIGN.md §7: never clipped or guessed -- ``kitty_size=8.0``, ``level_step=float("nan")`` and
``decks=True`` are refused, not converted). ``Rules`` is frozen and hashable; ``replace(**changes)``
returns a modified copy in which the deck-derived defaults follow a new ``decks``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .. import cards

#: enumerated options → allowed values (RULES.md §11)
CHOICES: dict[str, tuple[str, ...]] = {
    "declaration_mode": ("DURING_DEAL", "POST_DEAL_PARTNER_FIRST", "FIXED"),
    "first_hand_dealer": ("FIRST_DECLARER", "FINAL_DECLARER"),
    "first_hand_no_declaration": ("FIRST_DRAWER_NO_TRUMP", "FIRST_DRAWER_FLIP_KITTY", "REDEAL"),
    "no_declaration_fallback": ("NO_TRUMP", "FLIP_KITTY", "REDEAL"),
    "flip_joker_result": ("NO_TRUMP", "NEXT_CARD"),
    "titanic_follow_order": ("A", "B", "C"),
    "throw_decomposition": ("CANONICAL", "LEADER_DECLARED"),
    "failed_throw_choice": ("NEXT_PLAYER", "AUTO_LOWEST_RANK", "AUTO_FEWEST_CARDS"),
    "throw_penalty": ("NONE", "FIXED_10", "PER_CARD_10"),
    "ruff_match": ("EXACT", "COUNT_ONLY"),
    "throw_comparison": ("PRIMARY_UNIT", "ALL_UNITS"),
    "kitty_multiplier": ("FLAT2", "LINEAR", "POWER", "TIERED"),
    "tiered_precedence": ("MAX", "LITERAL"),
    "kitty_multiplier_basis": ("LEAD", "WINNING_PLAY"),
    "partnership": ("FIXED", "FIND_FRIEND"),
    "dealer_rotation": ("STANDARD", "STAY_WHILE_HOLDING", "ALWAYS_NEXT"),
    "win_condition": ("PASS_A", "MUST_DEFEND_A"),
    "fixed_trump": ("S", "H", "C", "D", "NT"),
}
#: option values that ``Rules`` accepts (they are §11 options) but ``Game`` and ``Engine`` refuse to
#: play, with the reason. Everything else of §11 is played, for 1-4 decks.
REFUSED: dict[str, tuple[str, str]] = {
    "throw_decomposition": ("LEADER_DECLARED", "RULES.md defines only the canonical decomposition "
                            "(§6.2, AMB-21); which decompositions a leader may declare, and how, is "
                            "not specified, so there is no rule to implement (and no action for it)"),
}
#: options whose default depends on ``decks`` (§4.1, §10.3, §10.7); ``None`` means "derive it"
_DERIVED = ("kitty_size", "level_step", "tuple_beats_chain")
_BOOLS = ("always_trump_two", "allow_no_trump_declaration", "allow_reinforce",
          "allow_self_overturn", "kitty_point_cards_allowed", "follow_partial_tractor",
          "reset_when_dug_at_A")


@dataclass(frozen=True)
class Rules:
    """The rules of one Shengji game (RULES.md §11). Defaults = the default ruleset (§2).

    ``kitty_size``, ``level_step`` and ``tuple_beats_chain`` default to ``None`` meaning
    "the value for this number of decks" (§4.1, §10.3, §10.7); the resolved value is stored.
    ``initial_first_drawer`` is a seat 0-3 or ``"RANDOM"``. ``mandatory_levels`` is a set of
    ranks (``{"5", "10", "K", "A"}``), stored as a sorted tuple of rank indices 0-12.
    ``fixed_trump`` is the trump for ``declaration_mode="FIXED"`` (S, H, C, D or NT) — not a
    §11 name: §4.7 says the caller supplies it, this is where.

    ``decks`` 1-4 are all played (§4.1, §10.7). ``ruff_match="COUNT_ONLY"`` reads AMB-11 as "no
    fewer tuples and no fewer chains of each size than the lead" (tractor lengths not compared);
    its overruff value is defined in ``rules.play._count_only_value``. Values in ``REFUSED`` are
    accepted here but not played (``Game`` and ``Engine`` raise ``NotImplementedError`` with the
    reason).

    Which of the deck-derived options were given explicitly (not ``None``) is recorded, so that
    :meth:`replace` can derive the others again for a new ``decks``. The record is *not* part of
    equality, hashing, ``repr``, ``dataclasses.asdict`` or ``vars()``: ``Rules() ==
    Rules(kitty_size=8)``, because two rulesets with the same values play the same game and a
    ``Rules`` is a cache key; they differ only in what ``replace(decks=...)`` keeps. (Rebuilding from
    a dict, ``Rules(**dataclasses.asdict(r))``, therefore marks every option explicit.)
    """

    # the fields live in __dict__ as usual (vars(rules) is used by callers); the slot holds the
    # explicit-option record outside it, and outside dataclasses.fields
    __slots__ = ("__dict__", "__weakref__", "_explicit")

    decks: int = 2
    kitty_size: int | None = None
    initial_first_drawer: int | str = 0
    always_trump_two: bool = False
    allow_no_trump_declaration: bool = True
    min_jokers_for_nt: int = 2
    allow_reinforce: bool = True
    allow_self_overturn: bool = False
    declaration_mode: str = "DURING_DEAL"
    first_hand_dealer: str = "FIRST_DECLARER"
    first_hand_no_declaration: str = "FIRST_DRAWER_NO_TRUMP"
    no_declaration_fallback: str = "NO_TRUMP"
    flip_joker_result: str = "NO_TRUMP"
    kitty_point_cards_allowed: bool = True
    follow_partial_tractor: bool = False
    titanic_follow_order: str = "A"
    tuple_beats_chain: bool | None = None
    throw_decomposition: str = "CANONICAL"
    failed_throw_choice: str = "AUTO_LOWEST_RANK"
    throw_penalty: str = "NONE"
    ruff_match: str = "EXACT"
    throw_comparison: str = "PRIMARY_UNIT"
    kitty_multiplier: str = "TIERED"
    tiered_precedence: str = "MAX"
    kitty_multiplier_basis: str = "LEAD"
    level_step: int | None = None
    partnership: str = "FIXED"
    dealer_rotation: str = "STANDARD"
    win_condition: str = "PASS_A"
    mandatory_levels: tuple = field(default=())
    reset_when_dug_at_A: bool = False
    fixed_trump: str | None = None

    def __post_init__(self):
        def put(name, value):
            object.__setattr__(self, name, value)

        _check_int("decks", self.decks, "an int 1-4")
        if not 1 <= self.decks <= 4:
            raise ValueError(f"decks={self.decks!r} is not allowed; expected an int 1-4")
        for name in _BOOLS:
            v = getattr(self, name)
            if not isinstance(v, bool):
                raise ValueError(f"{name}={v!r} is not allowed; expected True or False")
        for name, allowed in CHOICES.items():
            v = getattr(self, name)
            if name == "fixed_trump" and v is None:
                continue
            # ASCII only: 'paſs_a'.upper() == 'PASS_A', and a Cyrillic 'Р' in 'POWER' is invisible
            if not isinstance(v, str) or not v.isascii() or v.upper() not in allowed:
                hint = cards._unicode_hint(v) if isinstance(v, str) else ""
                raise ValueError(f"{name}={v!r}{hint} is not allowed; expected one of {', '.join(allowed)}")
            put(name, v.upper())
        if self.kitty_size is None:
            put("kitty_size", cards.DEFAULT_KITTY[self.decks])
        k = _check_int("kitty_size", self.kitty_size, "an int >= 0 (RULES.md §4.1)")
        if k < 0 or (54 * self.decks - k) <= 0 or (54 * self.decks - k) % 4:
            raise ValueError(f"kitty_size={k!r} is not allowed with {self.decks} decks; 54*decks - "
                             "kitty_size must be a positive multiple of 4 (RULES.md §4.1)")
        if self.level_step is None:
            put("level_step", 20 * self.decks)
        if _check_int("level_step", self.level_step, "a positive int") <= 0:
            raise ValueError(f"level_step={self.level_step!r} is not allowed; expected a positive int")
        if self.tuple_beats_chain is None:
            put("tuple_beats_chain", self.decks == 4)
        if not isinstance(self.tuple_beats_chain, bool):
            raise ValueError(f"tuple_beats_chain={self.tuple_beats_chain!r} is not allowed; "
                             "expected True, False or None (= decks == 4)")
        d = self.initial_first_drawer
        if isinstance(d, str) and d.upper() == "RANDOM":
            put("initial_first_drawer", "RANDOM")
        elif isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3:
            raise ValueError(f"initial_first_drawer={d!r} is not allowed; expected a seat 0-3 or "
                             "'RANDOM'")
        m = _check_int("min_jokers_for_nt", self.min_jokers_for_nt, "an int >= 2")
        if m < 2:
            raise ValueError(f"min_jokers_for_nt={m!r} is not allowed; expected an int >= 2")
        if isinstance(self.mandatory_levels, (str, bytes)):
            # a str would be read letter by letter: "KA" as {K, A}, "10" as {"1", "0"}
            raise ValueError(f"mandatory_levels={self.mandatory_levels!r} is not allowed; expected a set "
                             f"of ranks such as {{'5', '10', 'K', 'A'}}, not a single string")
        try:
            levels = sorted({cards.rank_index(r) for r in self.mandatory_levels})
        except (TypeError, ValueError) as e:
            raise ValueError(f"mandatory_levels={self.mandatory_levels!r} is not allowed; expected "
                             f"a set of ranks among {' '.join(cards.RANKS)} ({e})") from None
        put("mandatory_levels", tuple(levels))
        if self.declaration_mode == "FIXED" and self.fixed_trump is None:
            raise ValueError("declaration_mode='FIXED' needs fixed_trump (one of S, H, C, D, NT)")

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player: (54·decks − kitty_size) / 4."""
        return (54 * self.decks - self.kitty_size) // 4

    @property
    def total_points(self) -> int:
        """Points in play per hand: 100 per deck (RULES.md §3.5)."""
        return 100 * self.decks

    def replace(self, **changes) -> Rules:
        """A copy with some options changed (validated like the constructor).

        A deck-derived option (``kitty_size``, ``level_step``, ``tuple_beats_chain``) that was
        never given explicitly is derived again, so ``Rules().replace(decks=1)`` has the 1-deck
        kitty 6 and level step 20. One that was given is kept and must suit the new ``decks``
        (``Rules(decks=1, kitty_size=10).replace(decks=3)`` keeps 10); pass ``None`` to derive it.
        ``dataclasses.replace`` passes every field, so it keeps them all.
        """
        options = {name: getattr(self, name) for name in _FIELDS
                   if name not in _DERIVED or name in self._explicit}
        options.update(changes)
        try:
            return Rules(**options)
        except ValueError as e:
            kept = [n for n in _DERIVED
                    if n in self._explicit and n not in changes and str(e).startswith(f"{n}=")]
            if not kept or "decks" not in changes:
                raise
            n = kept[0]
            raise ValueError(f"{e}. {n}={getattr(self, n)!r} was given explicitly, so replace() keeps it; "
                             f"pass {n}=None for the {changes['decks']}-deck default") from None

    @classmethod
    def from_dict(cls, options: dict) -> Rules:
        """Build from a mapping, rejecting unknown option names with the list of known ones."""
        return cls(**options)

    def __getstate__(self):
        return dict(self.__dict__), self._explicit

    def __setstate__(self, state):
        # frozen: bypass __setattr__. A plain dict is a pickle from before the explicit-option
        # record existed; treating its derived options as explicit is what replace() did then.
        fields, explicit = state if isinstance(state, tuple) else (state, frozenset(_DERIVED))
        self.__dict__.update(fields)
        object.__setattr__(self, "_explicit", explicit)


def _check_int(name: str, value, allowed: str) -> int:
    """``value`` if it is a Python int; a bool, float (NaN, inf, 8.0), str or numpy int is refused."""
    if isinstance(value, bool) or not isinstance(value, int):
        got = "a bool" if isinstance(value, bool) else type(value).__name__
        tip = "; convert it with int()" if isinstance(value, np.integer) else ""
        raise ValueError(f"{name}={value!r} is not allowed; expected {allowed}, got {got}{tip}")
    return value


_FIELDS = tuple(f.name for f in dataclasses.fields(Rules))
_dataclass_init = Rules.__init__


def _checked_init(self, **options):
    unknown = sorted(set(options) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown rules option(s) {', '.join(unknown)}; known options: "
                         f"{', '.join(sorted(_FIELDS))}")
    _dataclass_init(self, **options)
    object.__setattr__(self, "_explicit", frozenset(n for n in _DERIVED if options.get(n) is not None))


_checked_init.__doc__ = _dataclass_init.__doc__
Rules.__init__ = _checked_init  # keyword-only, a teaching error for unknown names, explicit record


def make_rules(rules: Rules | None = None, **options) -> Rules:
    """A ``Rules`` from an existing one and/or keyword options (unknown names rejected)."""
    if rules is not None and not isinstance(rules, Rules):
        raise TypeError(f"rules must be a shengji_env.Rules, got {type(rules).__name__}")
    if rules is None:
        return Rules.from_dict(options)
    return rules.replace(**options) if options else rules
