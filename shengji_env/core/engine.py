"""``Engine``: B games of Shengji stepped in lockstep (DESIGN.md §5).

    eng = Engine(Rules(), num_games=1024, seed=0)
    state = eng.reset()
    mask = eng.legal_mask(state)                      # bool[B, A]
    obs = eng.observe(state)                          # float32[B, N], for state.to_act
    state, rewards, done = eng.step(state, actions)   # actions int[B]; rewards float32[B, 4]

Game ``i`` uses the random stream ``numpy.random.default_rng(seed + i)`` exactly as
``rules.Game(cfg, seed + i)`` does, so the same seed gives the same game at any batch position,
in any process. Decision points, masks and outcomes equal the reference game's (tested).

``step`` updates ``state`` in place and returns it. Finished games ignore their action (a
documented no-op) until ``reset_games`` starts them again. Illegal actions, or an action array
of the wrong shape or dtype, raise ``ValueError`` before anything changes.

With one game (B = 1: the AEC env, the ``play`` CLI) ``step`` and ``legal_mask`` take scalar
fast paths (``core/one_game.py`` for the PLAY phase) with exactly the same results.
"""

from __future__ import annotations

import numpy as np

from .. import cards
from ..rules import declare, scoring
from ..rules.config import Rules
from ..rules.game import DECLARE_BASE, PASS, Phase, action_layout, check_supported, new_deck
from ..rules.order import NT
from . import deal, observe, one_game, trick
from .state import LOG_LEN, BatchState
from .tables import Tables, context_id

# plain ints for the hot paths (an IntEnum member lookup costs more than the array work at B=1)
DECLARE, NAME, BURY, PLAY, CHOOSE, OVER = (int(p) for p in Phase)


class Engine:
    """Batched Shengji engine.

    ``episode``: ``"hand"`` (one hand per episode) or ``"match"`` (hands until a team passes A);
    ``reward``: ``"levels"``, ``"points"`` or ``"win"``; ``levels``: the teams' starting levels
    (``(0, 0)`` = both at 2) or ``"random"``; ``dealer``: ``None`` (first hand: the dealer is
    chosen by declaring), a seat, or ``"random"`` (random levels need a dealer: then it is
    random too); ``auto_forced``: apply decisions that have exactly one legal action inside
    ``step`` (they are still logged).
    """

    def __init__(self, rules: Rules | None = None, num_games: int = 1, seed: int = 0, *,
                 episode: str = "hand", reward: str = "levels", levels=(0, 0), dealer=None,
                 auto_forced: bool = False):
        self.cfg = cfg = rules if rules is not None else Rules()
        if not isinstance(cfg, Rules):
            raise TypeError(f"rules must be a shengji_env.Rules, got {type(cfg).__name__}")
        check_supported(cfg)
        if not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games={num_games!r}; expected a positive int")
        if episode not in ("hand", "match"):
            raise ValueError(f"episode={episode!r}; expected 'hand' or 'match'")
        if reward not in ("levels", "points", "win"):
            raise ValueError(f"reward={reward!r}; expected 'levels', 'points' or 'win'")
        if levels == "random":
            dealer = "random" if dealer is None else dealer
        else:
            try:  # ranks as "2".."A" or indices 0-12, like rules.Game
                ranks = tuple(cards.rank_index(x) for x in levels)
            except (TypeError, ValueError):
                ranks = ()
            if len(ranks) != 2:
                raise ValueError(f"levels={levels!r}; expected two ranks (2..A or 0-12) or "
                                 "'random'")
            levels = ranks
        if levels != "random" and dealer is None and levels[0] != levels[1]:
            raise ValueError("a first hand (dealer=None) needs both teams at the same level")
        if not (dealer is None or dealer == "random" or dealer in (0, 1, 2, 3)):
            raise ValueError(f"dealer={dealer!r}; expected None, a seat 0-3 or 'random'")
        self.num_games, self.seed = int(num_games), int(seed)
        self.episode, self.reward, self.levels, self.dealer = episode, reward, levels, dealer
        self.auto_forced = bool(auto_forced)
        self.tables = Tables(cfg)
        self.layout = action_layout(cfg)
        self.num_actions = self.layout.size
        self.obs_size = observe.size(cfg)
        self.obs_layout = observe.layout(cfg)  # cached here: hashing a Rules costs µs per call
        self.rngs: list[np.random.Generator] = []
        self._mask_fill = {DECLARE: deal.mask_declare, BURY: trick.mask_bury,
                           PLAY: trick.mask_play, NAME: Engine._mask_name,
                           CHOOSE: Engine._mask_choose}
        self._step_fn = {DECLARE: deal.step_declare, BURY: trick.step_bury,
                         NAME: Engine._step_name, CHOOSE: trick.step_choose}
        self.history: list[list] = []
        self._given: dict[int, tuple] = {}  # game → (deck, first drawer) for its next hand

    # ------------------------------------------------------------------ episodes
    def reset(self, seeds=None, decks=None, first_drawers=None) -> BatchState:
        """New state with every game at the start of an episode.

        ``seeds``: ``int[B]`` per-game seeds (default ``seed + arange(B)``). ``decks``:
        ``int[B, 54·d]`` dealing orders for the first hand instead of shuffles, with
        ``first_drawers`` ``int[B]`` (as ``rules.Game(deck=...)``; for duplicate deals)."""
        B = self.num_games
        seeds = self.seed + np.arange(B) if seeds is None else np.asarray(seeds)
        if seeds.shape != (B,):
            raise ValueError(f"seeds must have shape ({B},), got {seeds.shape}")
        self.rngs = [np.random.default_rng(int(x)) for x in seeds]
        self.setup_rngs = [np.random.default_rng([int(x), 1]) for x in seeds]
        self.history = [[] for _ in range(B)]
        self._given = {}
        if decks is not None:
            decks = np.asarray(decks)
            want = np.repeat(np.arange(54), self.cfg.decks)
            if decks.shape != (B, want.size) or not (np.sort(decks, axis=1) == want).all():
                raise ValueError(f"decks must be int[{B}, {want.size}], each holding every card "
                                 f"id {self.cfg.decks} times")
            first = np.zeros(B, np.int64) if first_drawers is None else np.asarray(first_drawers)
            if first.shape != (B,) or ((first < 0) | (first > 3)).any():
                raise ValueError(f"first_drawers must be int[{B}] seats 0-3")
            self._given = {g: (decks[g], int(first[g])) for g in range(B)}
        s = BatchState.zeros(B, self.cfg)
        self.reset_games(s, np.arange(B))
        return s

    def reset_games(self, s: BatchState, games) -> None:
        """Start a new episode for ``games`` (their random streams continue)."""
        G = np.asarray(games, dtype=np.int64).reshape(-1)
        if not G.size:
            return
        dealers, drawers = [], []
        for g in G:
            if self.levels == "random":
                s.team_levels[g] = self.setup_rngs[g].integers(13, size=2)
            else:
                s.team_levels[g] = self.levels
            dealer = self.dealer
            if dealer == "random":
                dealer = int(self.setup_rngs[g].integers(4))
            first = (int(self.rngs[g].integers(4)) if self.cfg.initial_first_drawer == "RANDOM"
                     else self.cfg.initial_first_drawer)
            if g in self._given:
                first = self._given[g][1]
            dealers.append(-1 if dealer is None else dealer)
            drawers.append(first if dealer is None else dealer)
            self.history[g] = []
            s.log_len[g] = 0
        s.done[G] = False
        s.winner_team[G] = -1
        s.__dict__.pop("_mask", None)
        self.start_hands(s, G, np.array(dealers), np.array(drawers))

    def start_hands(self, s, G, dealers, drawers):
        """Shuffle and begin dealing new hands (dealer -1: first hand)."""
        cfg = self.cfg
        for g in G:
            given = self._given.pop(int(g), None)
            s.deck[g] = new_deck(self.rngs[g], cfg.decks) if given is None else given[0]
        s.dealer[G], s.first_drawer[G] = dealers, drawers
        s.first_hand[G] = dealers < 0
        s.level[G] = s.team_levels[G, np.where(dealers < 0, 0, dealers % 2)]
        for name in ("hands", "kitty", "picked_up", "selection", "trick", "lead", "played",
                     "shown", "revealed", "voids", "candidates", "dealt", "captured", "penalty",
                     "kitty_bonus", "tricks_done", "in_trick", "lead_n", "n_candidates",
                     "window_passes"):
            getattr(s, name)[G] = 0
        for name in ("decl_player", "decl_kind", "decl_suit", "first_declarer", "trump",
                     "window_seat"):
            getattr(s, name)[G] = -1
        s.decl_k[G] = 0
        s.lead_tractor[G] = False
        s.phase[G] = Phase.DECLARE
        deal.prepare_counts(self, s, G)
        quiet = self.post_deal_mode(s, G) | (cfg.declaration_mode == "FIXED")
        deal.plan_deal(self, s, G, quiet)
        deal.advance_deal(self, s, G)

    def post_deal_mode(self, s, G) -> np.ndarray:
        """``bool[g]`` — declarations wait for the end of the deal (§4.7, later hands)."""
        return (self.cfg.declaration_mode == "POST_DEAL_PARTNER_FIRST") & ~s.first_hand[G]

    def finish_declaring(self, s, g: int):
        """The window closed: fix dealer and trump (§4.4-4.6) exactly as ``rules.Game``."""
        cfg, first = self.cfg, bool(s.first_hand[g])
        if cfg.declaration_mode == "FIXED":
            trump = NT if cfg.fixed_trump == "NT" else "SHCD".index(cfg.fixed_trump)
            return self.begin_bury(s, g, int(s.first_drawer[g]) if first else int(s.dealer[g]), trump)
        if s.decl_player[g] >= 0:
            kind, suit = int(s.decl_kind[g]), int(s.decl_suit[g])
            trump = suit if kind == declare.LEVEL else NT
            if first:
                dealer = (int(s.first_declarer[g]) if cfg.first_hand_dealer == "FIRST_DECLARER"
                          else int(s.decl_player[g]))
            else:
                dealer = int(s.dealer[g])
            return self.begin_bury(s, g, dealer, trump)
        fallback = cfg.first_hand_no_declaration if first else cfg.no_declaration_fallback
        if fallback == "REDEAL":
            self._spill_log(s, g)
            self.history[g].append((-1, -1))
            G = np.array([g])
            return self.start_hands(s, G, s.dealer[G].copy(), s.first_drawer[G].copy())
        if self.post_deal_mode(s, np.array([g]))[0]:
            s.phase[g], s.to_act[g] = Phase.NAME, (s.dealer[g] + 2) % 4
            return
        dealer = int(s.first_drawer[g]) if first else int(s.dealer[g])
        if fallback.endswith("FLIP_KITTY"):
            h = cfg.hand_size
            trump = declare.flip_kitty_trump(s.deck[g, 4 * h:].astype(int).tolist(), cfg)
        else:
            trump = NT
        self.begin_bury(s, g, dealer, trump)

    def begin_bury(self, s, g: int, dealer: int, trump: int):
        s.dealer[g], s.trump[g] = dealer, trump
        s.level[g] = s.team_levels[g, dealer % 2]
        s.ctx[g] = context_id(int(s.level[g]), trump)
        s.eff[g] = self.tables.eff[s.ctx[g]]
        s.idx[g] = self.tables.idx[s.ctx[g]]
        s.picked_up[g] = s.kitty[g]
        s.hands[g, dealer] += s.kitty[g]
        s.kitty[g] = 0
        s.phase[g], s.to_act[g] = Phase.BURY, dealer
        if self.cfg.kitty_size == 0:
            trick.begin_play(s, np.array([g]))

    def end_hands(self, s, G, winners, plays, rewards, bonus):
        """Score finished hands (§10), write rewards, then end the episodes or deal on.

        ``winners``: ``int[g]`` seats that won the last trick; ``plays``: ``uint8[g, 4, 54]``
        the last trick in playing order; ``bonus``: ``int[g]`` kitty bonus, -1 where the
        scalar rules must compute it (a tractor in the basis)."""
        cfg = self.cfg
        dealer = s.dealer[G].astype(np.int64)
        dug = winners % 2 != dealer % 2
        for i in np.flatnonzero(dug & (bonus < 0)):
            g = int(G[i])
            ctx = self.tables.context(int(s.level[g]), int(s.trump[g]))
            basis = plays[i, 0] if cfg.kitty_multiplier_basis == "LEAD" else \
                plays[i, (winners[i] - int(s.leader[g])) % 4]
            bonus[i] = scoring.kitty_bonus(s.kitty[g], basis, ctx, cfg)
        s.kitty_bonus[G] = np.maximum(bonus, 0)
        points = s.captured[G].astype(np.int64) + s.kitty_bonus[G] + s.penalty[G]
        s.attacker_points[G] = points
        # §10.3 level change, as rules.scoring.level_outcome
        step, p = cfg.level_step, np.maximum(points, 0)
        take = p >= 2 * step
        dealer_gain = np.select([p == 0, p < step, p < 2 * step], [3, 2, 1], 0)
        att_gain = np.where(take, (p - 2 * step) // step, 0)
        s.outcome[G] = np.stack([dealer_gain, take, att_gain], axis=1)
        team = np.where(take, 1 - dealer % 2, dealer % 2)
        if cfg.win_condition == "PASS_A" and not cfg.mandatory_levels and not cfg.reset_when_dug_at_A:
            target = s.team_levels[G, team].astype(np.int64) + np.where(take, att_gain, dealer_gain)
            won = target > 12
            s.team_levels[G, team] = np.minimum(target, 12)
            s.winner_team[G] = np.where(won, team, -1)
        else:  # MUST_DEFEND_A, mandatory levels, reset at A: the scalar rules, game by game
            for i, g in enumerate(G):
                out = scoring.LevelOutcome(int(dealer_gain[i]), bool(take[i]), int(att_gain[i]))
                levels, w = scoring.apply_level_change(tuple(int(x) for x in s.team_levels[g]),
                                                       int(dealer[i]) % 2, out, cfg,
                                                       attackers_won_last_trick=bool(dug[i]))
                s.team_levels[g] = levels
                s.winner_team[g] = -1 if w is None else w
        rotation = cfg.dealer_rotation  # §10.4
        hold_next = {"STANDARD": 2, "STAY_WHILE_HOLDING": 0, "ALWAYS_NEXT": 1}[rotation]
        s.next_dealer[G] = (dealer + np.where(take, 1, hold_next)) % 4
        over = s.winner_team[G] >= 0
        # rewards (DESIGN §4): the attackers' value r, the dealer side -r
        if self.reward == "levels":
            r = np.where(take, 1 + att_gain, -dealer_gain).astype(np.float32)
        elif self.reward == "points":
            r = np.clip((points - 2 * step) / (2 * step), -1, 1).astype(np.float32)
        else:
            r = np.where(take, 1.0, -1.0).astype(np.float32)
        attackers = (np.arange(4)[None, :] % 2) != (dealer % 2)[:, None]
        per_seat = np.where(attackers, r[:, None], -r[:, None])
        if self.reward == "win" and self.episode == "match":  # ±1 for the match winner only
            winner = s.winner_team[G][:, None]
            per_seat = np.where(over[:, None], np.where(np.arange(4) % 2 == winner, 1.0, -1.0), 0)
        rewards[G] += per_seat
        if self.episode == "match":
            more = G[~over]
            for g in more:
                self._spill_log(s, int(g))
            nxt = s.next_dealer[more].copy()
            self.start_hands(s, more, nxt, nxt)
            G = G[over]
        s.phase[G], s.to_act[G], s.done[G] = OVER, -1, True

    def _spill_log(self, s, g):
        n = int(s.log_len[g])
        self.history[g].extend((int(c) >> 8, int(c) & 255) for c in s.log[g, :n])
        s.log_len[g] = 0

    def game_log(self, s, g: int) -> list[tuple[int, int]]:
        """Every decision of game ``g``'s episode as (seat, action); (-1, -1) marks a redeal."""
        n = int(s.log_len[g])
        return self.history[g] + [(int(c) >> 8, int(c) & 255) for c in s.log[g, :n]]

    # ------------------------------------------------------------------ masks
    def legal_mask(self, s: BatchState) -> np.ndarray:
        """``bool[B, A]`` — the legal actions of each game's seat to act (all False if over)."""
        cached = s.__dict__.get("_mask")
        if cached is not None:
            return cached
        if s.num_games == 1:
            mask = self._legal_mask_one(s)
            s.__dict__["_mask"] = mask
            return mask
        mask = np.zeros((s.num_games, self.num_actions), dtype=bool)
        count = np.bincount(s.phase, minlength=len(Phase))
        for phase in np.flatnonzero(count[:OVER]):
            fill = self._mask_fill[phase]
            if count[phase] == s.num_games:  # all games in one phase (common): fill in place
                fill(self, s, np.arange(s.num_games), mask)
            else:
                G = np.flatnonzero(s.phase == phase)
                out = np.zeros((G.size, self.num_actions), dtype=bool)
                fill(self, s, G, out)
                mask[G] = out
        s.__dict__["_mask"] = mask
        return mask

    def _legal_mask_one(self, s: BatchState) -> np.ndarray:
        """``legal_mask`` of a one-game batch: PLAY (most decisions) takes the scalar path of
        ``one_game``; the other phases fill the row with the batch code."""
        mask = np.zeros((1, self.num_actions), dtype=bool)
        phase = int(s.phase[0])
        if phase == PLAY:
            one_game.mask_play(self, s, 0, mask[0])
        elif phase != OVER:
            self._mask_fill[phase](self, s, np.zeros(1, dtype=np.int64), mask)
        return mask

    def _mask_name(self, s, G, out):
        base = self.layout.name_base
        out[:, base:base + 4] = True
        out[:, base + 4] = self.cfg.allow_no_trump_declaration

    def _mask_choose(self, s, G, out):
        base = self.layout.choose_base
        out[:, base:base + 5] = np.arange(5) < s.n_candidates[G][:, None]

    def observe(self, s: BatchState, out=None, seats=None) -> np.ndarray:
        """``float32[B, N]`` — each game's observation for its seat to act, or for ``seats``
        (``int[B]``: what that seat knows; it sees no selection of another seat). Layout:
        ``shengji_env.core.observe``."""
        return observe.observe_batch(self, s, out, seats)

    # ------------------------------------------------------------------ stepping
    def step(self, s: BatchState, actions):
        """Apply one action per game; returns ``(state, rewards float32[B, 4], done bool[B])``."""
        if s.num_games == 1:
            return self._step_one(s, actions)
        actions = self._check_actions(s, actions)
        rewards = np.zeros((s.num_games, 4), dtype=np.float32)
        if s.done.any():
            live = np.flatnonzero(~s.done)
            self._apply(s, live, actions[live], rewards)
        else:
            self._apply(s, np.arange(s.num_games), actions, rewards)
        while self.auto_forced:
            mask = self.legal_mask(s)
            forced = np.flatnonzero((mask.sum(1) == 1) & ~s.done)
            if not forced.size:
                break
            self._apply(s, forced, mask[forced].argmax(1), rewards)
        return s, rewards, s.done

    def _check_actions(self, s, actions) -> np.ndarray:
        a = self._check_action_array(s, actions)
        mask = self.legal_mask(s)
        inside = (a >= 0) & (a < self.num_actions)
        legal = inside & mask[np.arange(a.size), np.where(inside, a, 0)]
        bad = ~s.done & ~legal
        if bad.any():
            self._raise_illegal(s, int(np.flatnonzero(bad)[0]), a, mask)
        return a

    @staticmethod
    def _check_action_array(s, actions) -> np.ndarray:
        """``actions`` as ``int64[B]``; ``ValueError`` for a wrong shape or dtype."""
        a = np.asarray(actions)
        if a.shape != (s.num_games,):
            raise ValueError(f"actions must have shape ({s.num_games},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        return a.astype(np.int64, copy=False)

    @staticmethod
    def _raise_illegal(s, g: int, a, mask):
        raise ValueError(f"illegal action {int(a[g])} in game {g} (seat {int(s.to_act[g])}, "
                         f"phase {Phase(int(s.phase[g])).name}); legal: "
                         f"{np.flatnonzero(mask[g]).tolist()}")

    def _step_one(self, s, actions):
        """``step`` for a one-game batch with Python ints: same checks, same results (the PLAY
        phase through ``one_game``, tested against the batch code)."""
        a = self._check_action_array(s, actions)
        rewards = np.zeros((1, 4), dtype=np.float32)
        if s.done[0]:  # a finished game ignores its action
            return s, rewards, s.done
        action = int(a[0])
        mask = self.legal_mask(s)
        if not (0 <= action < self.num_actions and mask[0, action]):
            self._raise_illegal(s, 0, a, mask)
        self._apply_one(s, action, rewards)
        while self.auto_forced and not s.done[0]:
            legal = np.flatnonzero(self.legal_mask(s)[0])
            if legal.size != 1:
                break
            self._apply_one(s, int(legal[0]), rewards)
        return s, rewards, s.done

    def _apply_one(self, s, action: int, rewards):
        """``_apply`` for game 0 of a one-game batch."""
        s.__dict__.pop("_mask", None)
        n = int(s.log_len[0])
        if n >= LOG_LEN:  # a long episode (redeals): move the log into history
            self._spill_log(s, 0)
            n = 0
        s.log[0, n] = (int(s.to_act[0]) << 8) | action
        s.log_len[0] = n + 1
        phase = int(s.phase[0])
        if phase == PLAY:
            one_game.step_play(self, s, 0, action, rewards)
        else:
            self._step_fn[phase](self, s, np.zeros(1, dtype=np.int64), np.array([action]))

    def _apply(self, s, G, actions, rewards):
        s.__dict__.pop("_mask", None)
        n = s.log_len[G].astype(np.int64)
        if (n >= LOG_LEN).any():  # a long episode (redeals): move the log into history
            for g in G[n >= LOG_LEN]:
                self._spill_log(s, int(g))
            n = s.log_len[G].astype(np.int64)
        s.log[G, n] = (s.to_act[G].astype(np.int16) << 8) | actions.astype(np.int16)
        s.log_len[G] += 1
        phase = s.phase[G].copy()
        for ph in np.flatnonzero(np.bincount(phase, minlength=len(Phase))):
            sub = slice(None) if ph == phase[0] and (phase == ph).all() else phase == ph
            if ph == PLAY:
                trick.step_play(self, s, G[sub], actions[sub], rewards)
            else:
                self._step_fn[ph](self, s, G[sub], actions[sub])

    def _step_name(self, s, G, actions):
        for g, a in zip(G, actions):
            self.begin_bury(s, int(g), int(s.dealer[g]), int(a) - self.layout.name_base)


__all__ = ["DECLARE_BASE", "PASS", "BatchState", "Engine"]
