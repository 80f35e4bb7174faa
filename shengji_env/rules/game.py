"""The reference game: one hand (or a match) played through the DESIGN.md §4 action space.

Scalar, slow and readable; built only from the rules functions of this package. It is the oracle
the batched engine is checked against, so every decision point is spelled out here:

* **Deal (phase DECLARE).** ``deck = new_deck(rng, decks)``; card ``j`` goes to seat
  ``(first_drawer + j) % 4``; the last ``kitty_size`` cards are the kitty (``kitty[0]`` first).
  After each card the receiver is asked (``PASS`` or a ``DECLARE`` id) only if a declaration
  would be accepted for him right now (RULES.md §4.2-4.4). Then the closing window asks the
  seats in order from the first drawer, skipping (as passes) those with nothing to declare; after
  a declaration it continues with the declarer's next seat; four passes in a row close it.
  ``POST_DEAL_PARTNER_FIRST`` (later hands): nothing is asked during the deal and the window starts
  with the dealer's partner; if nobody declares, the partner names the trump (``NAME`` ids).
  ``FIXED``: no declarations; trump = ``cfg.fixed_trump``.
* **Bury (phase BURY).** The dealer takes the kitty and makes ``kitty_size`` ``CARD`` decisions.
* **Play (phase PLAY).** The leader adds cards one at a time (``CARD``) and ends with ``END``; a
  follower's play is committed when it reaches the lead's size. A failed throw forces a unit
  (§7.4); under ``failed_throw_choice=NEXT_PLAYER`` with several candidates the leader's next
  seat chooses with a ``CHOOSE`` id (phase CHOOSE).
* **Friend (phase FRIEND, ``partnership="FIND_FRIEND"`` only).** After the bury the dealer names
  one card identity with a ``FRIEND`` id (any of the 54: trump, level cards and jokers too, and a
  card he holds every copy of, when he then plays alone; §10.6). The friend is resolved at once
  (``scoring.resolve_friend`` on the hands after the bury: kitty copies belong to nobody) and fixed
  for the hand; the table learns him when he plays a copy of the friend card (``friend_shown``,
  ``friend_trick``). Points are counted for the actual sides from the first trick. With 3+ decks
  a dealer who holds every copy but the buried ones plays alone (no other seat holds one: §10.6's
  "first player after the dealer who holds a copy" finds nobody; AMB-16, kitty copies belong to
  nobody). Where RULES.md names a partner or an opponent before the friend exists, find-friends
  keeps the seats of fixed partnerships (the text is silent; the friend is hidden): under
  ``POST_DEAL_PARTNER_FIRST`` the window starts with, and ``NAME`` is asked of, the seat opposite
  the dealer (§4.7); under ``failed_throw_choice=NEXT_PLAYER`` the leader's next seat chooses the
  forced unit (§7.4.3 "an opponent"), even when it is his hidden friend.
* **Hand over.** Kitty bonus, level change, rewards, next dealer (§10). In ``episode="match"``
  the next hand is dealt until a team wins. Find-friends: levels are per player (``levels`` holds
  four), each member of the gaining side gains the side's levels, the next dealer is the first
  seat after the dealer on the next dealer side (§10.4's equivalent formulation), the match ends
  when a player's level passes A (those players, ``winners``, win it), and each seat's reward is
  its side's (a dealer alone against three: not zero-sum per seat; zero-sum per side).

RNG: one ``numpy.random.Generator`` per game, seeded from ``seed``; it draws (in this order)
the first drawer when ``initial_first_drawer="RANDOM"`` and then each deck (redeals included).
"""

from __future__ import annotations

import numpy as np

from .. import cards
from ..cards import NUM_CARDS
from . import declare, scoring, seats
from .actions import DECLARE_BASE, END, PASS, Phase, action_layout
from .config import REFUSED, Rules
from .order import NT, TrumpContext
from .patterns import is_throw
from .play import legal_next_cards, trick_winner, validate_throw


def new_deck(rng: np.random.Generator, decks: int) -> np.ndarray:
    """A shuffled deck: ``int64[54·decks]`` card ids in dealing order."""
    return rng.permutation(ORDERED_DECKS[decks])  # permutation shuffles a copy


# decks -> int64[54·decks] every card id ``decks`` times, in id order (read-only; the batched
# engine shuffles a copy of it in place, with the same draws)
ORDERED_DECKS = {d: np.repeat(np.arange(NUM_CARDS), d) for d in range(1, 5)}
for _deck in ORDERED_DECKS.values():
    _deck.flags.writeable = False


def check_supported(cfg: Rules):
    """Raise ``NotImplementedError`` for the rule options the game refuses to play, with the
    reason (``rules.config.REFUSED`` lists them; README "Rules")."""
    for option, (value, reason) in REFUSED.items():
        if getattr(cfg, option) == value:
            raise NotImplementedError(f"{option}={value!r} is not playable: {reason}")


class Game:
    """One hand (``episode="hand"``) or a match (``"match"``) of Shengji, scalar reference.

    ``levels``: the two teams' levels (rank indices 0-12 = 2..A, team 0 = seats 0 and 2); in
    find-friends mode four per-player levels (two are read as the fixed teams' and spread to
    their seats); ``dealer``: the dealer seat, or ``None`` for a first hand (dealer chosen by
    declaration, in find-friends mode too; all levels must then be equal); ``deck``: a given
    dealing order instead of a shuffle; ``reward``: ``"levels"``, ``"points"`` or ``"win"`` (DESIGN §4).
    Use ``to_act``, ``legal_actions()`` / ``legal_mask()``, ``step(action)``; the hand's result
    is in ``outcome`` / ``attacker_points`` once ``done``.
    """

    def __init__(self, cfg: Rules | None = None, seed=None, *, deck=None, levels=(0, 0),
                 dealer: int | None = None, episode: str = "hand", reward: str = "levels"):
        self.cfg = cfg = cfg if cfg is not None else Rules()
        check_supported(cfg)
        if episode not in ("hand", "match"):
            raise ValueError(f"episode={episode!r}; expected 'hand' or 'match'")
        if reward not in ("levels", "points", "win"):
            raise ValueError(f"reward={reward!r}; expected 'levels', 'points' or 'win'")
        self.layout = action_layout(cfg)
        self.rng = np.random.default_rng(seed)
        self.episode, self.reward_kind = episode, reward
        self.find_friend = cfg.partnership == "FIND_FRIEND"
        self.levels = [cards.rank_index(x) for x in levels]
        if self.find_friend and len(self.levels) == 2:
            self.levels = [self.levels[seats.team(x)] for x in range(4)]
        if len(self.levels) != (4 if self.find_friend else 2):
            raise ValueError(f"levels={levels!r}; expected {'two or four' if self.find_friend else 'two'} "
                             "ranks")
        if dealer is None and len(set(self.levels)) != 1:
            raise ValueError("a first hand (dealer=None) needs both teams at the same level")
        if cfg.initial_first_drawer == "RANDOM":
            first = int(self.rng.integers(4))
        else:
            first = cfg.initial_first_drawer
        self.log: list[tuple[int, int]] = []  # (seat, action) of every decision, forced ones too
        self.winner_team: int | None = None
        self.winners: frozenset[int] = frozenset()  # seats that won the match
        self.hands_played = 0
        self._given_deck = None if deck is None else np.asarray(deck, dtype=np.int64)
        self._start_hand(dealer, first if dealer is None else dealer)

    # ------------------------------------------------------------------ hand set-up
    def _start_hand(self, dealer, first_drawer):
        cfg = self.cfg
        self.dealer, self.first_drawer = dealer, first_drawer
        self.first_hand = dealer is None
        self.level = self.levels[0] if dealer is None else self._level_of(dealer)
        if self._given_deck is not None:
            deck, self._given_deck = self._given_deck, None
            if sorted(deck.tolist()) != sorted(np.repeat(np.arange(54), cfg.decks).tolist()):
                raise ValueError("deck must hold every card id exactly `decks` times")
        else:
            deck = new_deck(self.rng, cfg.decks)
        self.deck = deck
        self.hands = np.zeros((4, NUM_CARDS), dtype=np.uint8)
        self.kitty = np.zeros(NUM_CARDS, dtype=np.uint8)
        self.dealt = 0
        self.declare_state = declare.DeclareState(None, None)
        self.shown = np.zeros((4, NUM_CARDS), dtype=np.uint8)  # cards shown in declarations
        self.trump = None
        self.ctx = None
        self.selection = np.zeros(NUM_CARDS, dtype=np.uint8)
        self.played = np.zeros((4, NUM_CARDS), dtype=np.uint8)
        self.revealed = np.zeros((4, NUM_CARDS), dtype=np.uint8)  # failed throws, not played since
        self.voids = np.zeros((4, 5), dtype=bool)  # seat showed void in an effective suit
        self.picked_up = np.zeros(NUM_CARDS, dtype=np.uint8)  # the kitty the dealer took
        self.trick: dict[int, np.ndarray] = {}
        self.leader = None
        self.lead = None
        self.tricks_done = 0
        self.captured = 0  # attackers' points from tricks
        self.penalty = 0  # throw penalties, signed (§7.4.5)
        self.kitty_bonus = 0
        self.attacker_points = None
        self.outcome = None
        self.last_trick = None
        self.candidates = []
        self.side = self._initial_side(dealer)  # this hand's dealer side (the true one)
        self.friend_card: int | None = None  # find-friends: the named card identity
        self.friend: int | None = None  # the friend's seat (None: not named yet, or alone)
        self.friend_shown: int | None = None  # the friend, once he has played a friend card
        self.friend_trick: int | None = None  # the trick (0-based) in which he did
        self.points_won = [0, 0, 0, 0]  # card points in the tricks each seat won (public)
        self.phase = Phase.DECLARE
        self.to_act = None
        self._window = None  # (seat to ask next, passes in a row) once the deal is over
        if cfg.declaration_mode == "FIXED":
            self._deal_all()
            self._finish_declaring()
        else:
            self._advance_deal()

    @property
    def done(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def hand_size(self) -> int:
        return self.cfg.hand_size

    def _post_deal_mode(self) -> bool:
        return self.cfg.declaration_mode == "POST_DEAL_PARTNER_FIRST" and not self.first_hand

    def _level_of(self, dealer) -> int:
        """The level a hand dealt by ``dealer`` is played at: his team's, or his own (§10.6)."""
        return self.levels[dealer] if self.find_friend else self.levels[seats.team(dealer)]

    def _initial_side(self, dealer) -> frozenset[int]:
        """The dealer side once the dealer is known (empty before): his fixed team, or in
        find-friends mode the dealer alone until he names the friend card."""
        if dealer is None:
            return frozenset()
        return frozenset({dealer} if self.find_friend else {dealer, seats.partner(dealer)})

    def _deal_all(self):
        while self.dealt < 4 * self.hand_size:
            self._deal_one()
        self.kitty = cards.from_ids(self.deck[4 * self.hand_size:], self.cfg.decks)

    def _deal_one(self) -> int:
        seat = (self.first_drawer + self.dealt) % 4
        self.hands[seat, self.deck[self.dealt]] += 1
        self.dealt += 1
        return seat

    def _declarable(self, seat) -> list[int]:
        return declare.legal_declarations(self.hands[seat], seat, self.declare_state, self.level,
                                          self.cfg)

    def _advance_deal(self):
        """Deal until someone may declare or the deal is over; then run the closing window."""
        while self.dealt < 4 * self.hand_size:
            seat = self._deal_one()
            if not self._post_deal_mode() and self._declarable(seat):
                self.to_act = seat
                return
        self.kitty = cards.from_ids(self.deck[4 * self.hand_size:], self.cfg.decks)
        if self._window is None:
            start = (self.dealer + 2) % 4 if self._post_deal_mode() else self.first_drawer
            self._window = (start, 0)
        self._advance_window()

    def _advance_window(self):
        seat, passes = self._window
        while passes < 4:
            if self._declarable(seat):
                self._window = (seat, passes)
                self.to_act = seat
                return
            seat, passes = (seat + 1) % 4, passes + 1
        self._finish_declaring()

    def _finish_declaring(self):
        cfg, st = self.cfg, self.declare_state
        if cfg.declaration_mode == "FIXED":
            trump = NT if cfg.fixed_trump == "NT" else "SHCD".index(cfg.fixed_trump)
            dealer = self.first_drawer if self.first_hand else self.dealer
            return self._begin_bury(dealer, trump)
        if st.current is not None:
            dealer = declare.first_hand_dealer(st, cfg) if self.first_hand else self.dealer
            return self._begin_bury(dealer, declare.final_trump(st))
        fallback = (cfg.first_hand_no_declaration if self.first_hand
                    else cfg.no_declaration_fallback)
        if fallback == "REDEAL":
            self.log.append((-1, -1))  # marks a redeal in the log
            return self._start_hand(self.dealer, self.first_drawer)
        if self._post_deal_mode():
            self.phase, self.to_act = Phase.NAME, (self.dealer + 2) % 4
            return
        dealer = self.first_drawer if self.first_hand else self.dealer
        if fallback.endswith("FLIP_KITTY"):
            trump = declare.flip_kitty_trump(self.deck[4 * self.hand_size:].tolist(), cfg)
        else:
            trump = NT
        self._begin_bury(dealer, trump)

    def _begin_bury(self, dealer, trump):
        self.dealer, self.trump = dealer, trump
        self.level = self._level_of(dealer)
        self.side = self._initial_side(dealer)
        self.ctx = TrumpContext.from_rules(self.level, trump, self.cfg)
        self.picked_up = self.kitty.copy()
        self.hands[dealer] += self.kitty
        self.kitty = np.zeros(NUM_CARDS, dtype=np.uint8)
        self.phase, self.to_act = Phase.BURY, dealer
        if self.cfg.kitty_size == 0:
            self._after_bury()

    def _after_bury(self):
        if self.find_friend:
            self.phase, self.to_act = Phase.FRIEND, self.dealer
        else:
            self._begin_play()

    def _begin_play(self):
        self.phase = Phase.PLAY
        self.leader = self.to_act = self.dealer

    # ------------------------------------------------------------------ queries
    @property
    def attackers(self) -> int:
        """Team (0 or 1) of the attackers (fixed partnership only: the dealer's team defends;
        in find-friends mode read ``side``)."""
        return 1 - seats.team(self.dealer)

    def _attacking(self, seat) -> bool:
        return seat not in self.side

    def legal_mask(self) -> np.ndarray:
        """``bool[A]`` — legal actions for ``to_act``."""
        mask = np.zeros(self.layout.size, dtype=bool)
        if self.done:
            return mask
        seat, hand = self.to_act, self.hands[self.to_act]
        if self.phase == Phase.DECLARE:
            mask[PASS] = True
            for i in self._declarable(seat):
                mask[DECLARE_BASE + i] = True
        elif self.phase == Phase.NAME:
            mask[self.layout.name_base:self.layout.name_base + 4] = True
            mask[self.layout.name_base + 4] = self.cfg.allow_no_trump_declaration
        elif self.phase == Phase.BURY:
            free = hand.astype(np.int64) - self.selection > 0
            if not self.cfg.kitty_point_cards_allowed:
                plain = free & (cards.POINTS == 0)
                # RULES.md §5.2 (1-deck tradition): no point cards while others remain; a
                # dealer holding fewer cards without points than the kitty takes (a custom
                # kitty_size only; §5.2 is silent) buries point cards too, as he must
                left = self.cfg.kitty_size - int(self.selection.sum())
                if int(((hand.astype(np.int64) - self.selection) * (cards.POINTS == 0)).sum()) >= left:
                    free = plain
            mask[:NUM_CARDS] = free
        elif self.phase == Phase.CHOOSE:
            mask[self.layout.choose_base:self.layout.choose_base + len(self.candidates)] = True
        elif self.phase == Phase.FRIEND:
            mask[self.layout.friend_base:self.layout.friend_base + NUM_CARDS] = True  # §10.6
        else:
            leading = seat == self.leader
            mask[:NUM_CARDS] = legal_next_cards(hand, None if leading else self.lead,
                                                self.selection, self.ctx, self.cfg)
            mask[END] = leading and self.selection.any()
        return mask

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> np.ndarray:
        """Apply ``action`` for ``to_act``; returns ``float32[4]`` rewards of this step."""
        action = int(action)
        if self.done:
            raise ValueError("the game is over; no more actions")
        mask = self.legal_mask()
        if not 0 <= action < mask.size or not mask[action]:
            raise ValueError(f"illegal action {action} for seat {self.to_act} in phase "
                             f"{self.phase.name}; legal: {np.flatnonzero(mask).tolist()}")
        seat = self.to_act
        self.log.append((seat, action))
        rewards = np.zeros(4, dtype=np.float32)
        if self.phase == Phase.DECLARE:
            if action != PASS:
                decl = declare.action_declaration(action, seat, self.cfg)
                self.declare_state = declare.accept(self.declare_state, decl, self.cfg)
                self.shown[seat] = np.maximum(self.shown[seat], decl.cards(self.level))
            if self._window is None:
                self._advance_deal()
            else:
                _, passes = self._window
                passes = passes + 1 if action == PASS else 0
                self._window = ((seat + 1) % 4, passes)
                self._advance_window()
        elif self.phase == Phase.NAME:
            self._begin_bury(self.dealer, action - self.layout.name_base)
        elif self.phase == Phase.BURY:
            self.selection[action] += 1
            if int(self.selection.sum()) == self.cfg.kitty_size:
                self.hands[seat] -= self.selection
                self.kitty = self.selection
                self.selection = np.zeros(NUM_CARDS, dtype=np.uint8)
                self._after_bury()
        elif self.phase == Phase.FRIEND:
            self._name_friend(action - self.layout.friend_base)
        elif self.phase == Phase.CHOOSE:
            chosen = self.candidates[action - self.layout.choose_base]
            self._charge_failed_throw(chosen)
            self._set_lead(chosen)
        elif action == END:
            self._end_lead()
        else:
            self.selection[action] += 1
            if seat != self.leader and int(self.selection.sum()) == int(self.lead.sum()):
                rewards = self._commit(seat, self.selection)
        return rewards

    def _name_friend(self, card: int):
        """§10.6, AMB-16: resolved on the hands after the bury, fixed for the hand, hidden."""
        self.friend_card = card
        self.friend = scoring.resolve_friend(self.dealer, card, self.hands, self.cfg.decks)
        self.side = frozenset({self.dealer} if self.friend is None else {self.dealer, self.friend})
        self._begin_play()

    def _note_play(self, seat, play):
        """The friend shows himself when he plays a copy of the friend card."""
        if (self.friend is not None and self.friend_shown is None and seat == self.friend
                and play[self.friend_card] > 0):
            self.friend_shown, self.friend_trick = seat, self.tricks_done

    def _end_lead(self):
        lead, leader = self.selection, self.leader
        if is_throw(lead, self.ctx):
            others = [self.hands[(leader + i) % 4] for i in (1, 2, 3)]
            result = validate_throw(lead, others, self.ctx, self.cfg)
            if not result.ok:
                # §7.4: the attempted cards are revealed; a penalty may apply
                self.revealed[leader] = np.maximum(self.revealed[leader], lead)
                if result.forced is None:  # the next player picks the unit; penalty then
                    self.candidates = result.candidates
                    self.phase, self.to_act = Phase.CHOOSE, (leader + 1) % 4
                    return
                self._charge_failed_throw(result.forced)
                lead = result.forced
        self._set_lead(lead)

    def _charge_failed_throw(self, forced):
        """§7.4.5: the penalty counts the cards that go back to the leader's hand."""
        returned = int(self.selection.sum()) - int(forced.sum())
        thrower_attacks = self._attacking(self.leader)
        self.penalty += scoring.throw_penalty(thrower_attacks, returned, self.cfg)

    def _set_lead(self, lead):
        leader = self.leader
        self.lead = lead.astype(np.uint8)
        self.hands[leader] -= self.lead
        self._forget_revealed(leader, self.lead)
        self.trick = {leader: self.lead}
        self._note_play(leader, self.lead)
        self.selection = np.zeros(NUM_CARDS, dtype=np.uint8)
        self.candidates = []
        self.phase, self.to_act = Phase.PLAY, (leader + 1) % 4

    def _forget_revealed(self, seat, play):
        self.revealed[seat] = np.maximum(self.revealed[seat].astype(np.int16) - play, 0)

    def _commit(self, seat, play) -> np.ndarray:
        suit = int(self.ctx.effective_suits[np.flatnonzero(self.lead)[0]])
        if int(play[self.ctx.effective_suits == suit].sum()) < int(self.lead.sum()):
            self.voids[seat, suit] = True  # §8.1: short in the led suit → now void in it
        self.hands[seat] -= play
        self._forget_revealed(seat, play)
        self.trick[seat] = play.astype(np.uint8)
        self._note_play(seat, play)
        self.selection = np.zeros(NUM_CARDS, dtype=np.uint8)
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4
            return np.zeros(4, dtype=np.float32)
        order = [(self.leader + i) % 4 for i in range(4)]
        plays = [self.trick[s] for s in order]
        winner = order[trick_winner(plays, self.ctx, self.cfg)]
        for s in order:
            self.played[s] += self.trick[s]
        points = sum(cards.points(p) for p in plays)
        self.points_won[winner] += points
        if self._attacking(winner):
            self.captured += points
        self.tricks_done += 1
        self.last_trick = (self.leader, plays, winner)
        self.trick = {}
        self.lead = None
        if self.hands.any():
            self.leader = self.to_act = winner
            return np.zeros(4, dtype=np.float32)
        return self._end_hand(winner, plays)

    def _end_hand(self, winner, plays) -> np.ndarray:
        cfg = self.cfg
        attackers_dug = self._attacking(winner)
        if attackers_dug:
            # §10.2: the basis is the last lead, or the play that won the last trick
            basis = plays[0] if cfg.kitty_multiplier_basis == "LEAD" else \
                plays[(winner - self.leader) % 4]
            self.kitty_bonus = scoring.kitty_bonus(self.kitty, basis, self.ctx, cfg)
        self.attacker_points = self.captured + self.kitty_bonus + self.penalty
        self.outcome = scoring.level_outcome(self.attacker_points, cfg)
        side = np.isin(np.arange(4), list(self.side))  # bool[4]: the dealer side
        if self.find_friend:
            new_levels, self.winners = scoring.apply_seat_level_change(
                self.levels, side, self.outcome, cfg, attackers_won_last_trick=attackers_dug)
            winner_team = None
            match_over = bool(self.winners)
        else:
            new_levels, winner_team = scoring.apply_level_change(
                tuple(self.levels), seats.team(self.dealer), self.outcome, cfg,
                attackers_won_last_trick=attackers_dug)
            match_over = winner_team is not None
            if match_over:
                self.winners = frozenset(seats.team_seats(winner_team))
        self.levels = list(new_levels)
        self.winner_team = winner_team
        self.hands_played += 1
        next_dealer = scoring.next_dealer(self.dealer, self.outcome, cfg, dealer_side=self.side)
        self.next_dealer = next_dealer
        if self.reward_kind == "win":
            if self.episode == "hand":
                rewards = scoring.hand_rewards(self.outcome, self.dealer, reward="win",
                                               dealer_side=side)
            elif match_over:
                won = np.isin(np.arange(4), list(self.winners))
                rewards = np.where(won, 1.0, -1.0).astype(np.float32)
            else:
                rewards = np.zeros(4, dtype=np.float32)
        else:
            rewards = scoring.hand_rewards(self.outcome, self.dealer, reward=self.reward_kind,
                                           attacker_points=self.attacker_points, cfg=cfg,
                                           dealer_side=side)
        self.hand_result = dict(dealer=self.dealer, trump=self.trump, level=self.level,
                                attacker_points=self.attacker_points, kitty_bonus=self.kitty_bonus,
                                outcome=self.outcome, next_dealer=next_dealer,
                                dealer_side=self.side, friend_card=self.friend_card,
                                friend=self.friend)
        if self.episode == "match" and not match_over:
            self._start_hand(next_dealer, next_dealer)
        else:
            self.phase, self.to_act = Phase.OVER, None
        return rewards
