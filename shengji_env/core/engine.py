"""``Engine``: B games of Shengji stepped in lockstep (DESIGN.md §5).

    eng = Engine(Rules(), num_games=1024, seed=0)
    state = eng.reset()
    mask = eng.legal_mask(state)                      # bool[B, A]
    obs = eng.observe(state)                          # float32[B, N], for state.to_act
    state, rewards, done = eng.step(state, actions)   # actions int[B]; rewards float32[B, 4]

Game ``i`` uses the random stream ``numpy.random.default_rng(seed + i)`` exactly as
``rules.Game(cfg, seed + i)`` does, so the same seed gives the same game at any batch position,
in any process. Decision points, masks and outcomes equal the reference game's (tested).

The engine holds configuration and tables only; every fact of every game — the random streams,
the decision log, given decks, the mask cache — is in the ``BatchState``, so one engine steps
any number of states and ``state.copy()`` is a full snapshot. The phase modules report what
happened (windows that closed, hands that ended) and ``hand.py`` runs the hand lifecycle.

``step`` updates ``state`` in place and returns it. Finished games ignore their action (a
documented no-op) until ``reset_games`` starts them again. Illegal actions, or an action array
of the wrong shape or dtype, raise ``ValueError`` before anything changes.

With one game (B = 1: the AEC env, the ``play`` CLI) ``step`` and ``legal_mask`` take scalar
fast paths (``core/one_game.py`` for the PLAY phase) with exactly the same results.
"""

from __future__ import annotations

import os

import numpy as np

from .. import cards
from ..rules.actions import DECLARE_BASE, PASS, Phase, action_layout
from ..rules.config import Rules
from ..rules.game import check_supported
from . import deal, hand, log, observe, one_game, trick
from .counts import put_rows, row_starts
from .state import BatchState
from .tables import Switches, Tables

# plain ints for the hot paths (an IntEnum member lookup costs more than the array work at B=1)
DECLARE, NAME, BURY, PLAY, CHOOSE, OVER, FRIEND = (int(p) for p in Phase)


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


#: peak memory per game while stepping (state, masks, observations, temporaries): about 27-30 kB
#: at 1,000-20,000 games with 4 decks (``ru_maxrss`` over 60 steps), rounded up
BYTES_PER_GAME = 32 * 1024


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_num_games(num_games) -> None:
    """Refuse a batch size that is not a positive int, or whose games would need more memory
    than the machine has (``BYTES_PER_GAME`` each), with an error naming it: otherwise the
    mistake surfaces as a MemoryError at ``reset``, after a run folder has been made."""
    if not cards.is_int(num_games) or num_games < 1:
        raise ValueError(f"num_games={num_games!r}; expected a positive int")
    mem = physical_memory()
    if mem is not None and num_games * BYTES_PER_GAME > mem:
        raise ValueError(f"num_games={num_games:,} would need about "
                         f"{num_games * BYTES_PER_GAME / 2**30:,.0f} GiB (~{BYTES_PER_GAME // 1024} "
                         f"kB a game); this machine has {mem / 2**30:,.0f} GiB: at most "
                         f"{mem // BYTES_PER_GAME:,} games")


class Engine:
    """Batched Shengji engine: configuration and tables; every game fact is in the state.

    ``episode``: ``"hand"`` (one hand per episode) or ``"match"`` (hands until a team passes A);
    ``reward``: ``"levels"``, ``"points"`` or ``"win"``; ``levels``: the teams' starting levels
    (``(0, 0)`` = both at 2) or ``"random"`` — in find-friends mode also four per-player levels
    (RULES.md §10.6; two are spread to the fixed teams' seats, ``"random"`` draws four);
    ``dealer``: ``None`` (first hand: the dealer is chosen by declaring), a seat, or
    ``"random"`` (random levels need a dealer: then it is random too); ``auto_forced``: apply
    decisions that have exactly one legal action inside ``step`` (they are still logged).
    """

    def __init__(self, rules: Rules | None = None, num_games: int = 1, seed: int = 0, *,
                 episode: str = "hand", reward: str = "levels", levels=(0, 0), dealer=None,
                 auto_forced: bool = False):
        self.cfg = cfg = rules if rules is not None else Rules()
        if not isinstance(cfg, Rules):
            raise TypeError(f"rules must be a shengji_env.Rules, got {type(cfg).__name__}")
        check_supported(cfg)
        check_num_games(num_games)
        if not cards.is_int(seed) or seed < 0:
            raise ValueError(f"seed={seed!r}; expected an int >= 0 (game i uses seed + i)")
        if episode not in ("hand", "match"):
            raise ValueError(f"episode={episode!r}; expected 'hand' or 'match'")
        if reward not in ("levels", "points", "win"):
            raise ValueError(f"reward={reward!r}; expected 'levels', 'points' or 'win'")
        if isinstance(levels, str) and levels == "random":
            dealer = "random" if dealer is None else dealer
        else:
            try:  # ranks as "2".."A" or indices 0-12 (numpy ints too), like rules.Game
                ranks = tuple(cards.rank_index(int(x) if cards.is_int(x) else x) for x in levels)
            except (TypeError, ValueError):
                ranks = ()
            find_friend = cfg.partnership == "FIND_FRIEND"
            if len(ranks) != 2 and not (find_friend and len(ranks) == 4):
                many = "two or four (find-friends: per player)" if find_friend else "two"
                raise ValueError(f"levels={levels!r}; expected {many} ranks (2..A or 0-12) or "
                                 "'random'")
            levels = ranks
        if levels != "random" and dealer is None and len(set(levels)) != 1:
            raise ValueError("a first hand (dealer=None) needs both teams at the same level")
        if not (dealer is None or (isinstance(dealer, str) and dealer == "random")
                or (cards.is_int(dealer) and 0 <= dealer <= 3)):
            raise ValueError(f"dealer={dealer!r}; expected None, a seat 0-3 or 'random'")
        dealer = int(dealer) if cards.is_int(dealer) else dealer
        self.num_games, self.seed = int(num_games), int(seed)
        self.episode, self.reward, self.levels, self.dealer = episode, reward, levels, dealer
        self.auto_forced = bool(auto_forced)
        self.find_friend = cfg.partnership == "FIND_FRIEND"
        self.tables = Tables(cfg)
        self.switches = Switches.from_rules(cfg)
        self.layout = action_layout(cfg)
        self.num_actions = self.layout.size
        self.obs_size = observe.size(cfg)
        self.obs_layout = observe.layout(cfg)  # cached here: hashing a Rules costs µs per call
        self._mask_fill = {DECLARE: deal.mask_declare, BURY: trick.mask_bury,
                           PLAY: trick.mask_play, NAME: hand.mask_name,
                           CHOOSE: trick.mask_choose, FRIEND: hand.mask_friend}

    # ------------------------------------------------------------------ episodes
    def reset(self, seeds=None, decks=None, first_drawers=None) -> BatchState:
        """New state with every game at the start of an episode.

        ``seeds``: ``int[B]`` per-game seeds (default ``seed + arange(B)``). ``decks``:
        ``int[B, 54·d]`` dealing orders for the first hand instead of shuffles, with
        ``first_drawers`` ``int[B]`` (as ``rules.Game(deck=...)``; for duplicate deals)."""
        B = self.num_games
        if not cards.is_int(self.seed) or self.seed < 0:  # the attribute may be reassigned
            raise ValueError(f"seed={self.seed!r}; expected an int >= 0 (game i uses seed + i)")
        seeds = self.seed + np.arange(B) if seeds is None else np.asarray(seeds)
        if seeds.shape != (B,):
            raise ValueError(f"seeds must have shape ({B},), got {seeds.shape}")
        if seeds.dtype.kind not in "iu" or (seeds < 0).any():
            raise ValueError(f"seeds={seeds.tolist()!r}; expected {B} ints >= 0")
        s = BatchState.zeros(B, self.cfg)
        s.rngs = [np.random.default_rng(int(x)) for x in seeds]
        s.setup_rngs = [np.random.default_rng([int(x), 1]) for x in seeds]
        s.rng_owned[:] = True
        if decks is not None:
            decks = np.asarray(decks)
            want = np.repeat(np.arange(54), self.cfg.decks)
            if decks.shape != (B, want.size) or not (np.sort(decks, axis=1) == want).all():
                raise ValueError(f"decks must be int[{B}, {want.size}], each holding every card "
                                 f"id {self.cfg.decks} times")
            first = np.zeros(B, np.int64) if first_drawers is None else np.asarray(first_drawers)
            if first.shape != (B,) or ((first < 0) | (first > 3)).any():
                raise ValueError(f"first_drawers must be int[{B}] seats 0-3")
            s.given_deck[:], s.given_first[:], s.has_given[:] = decks, first, True
        hand.start_episodes(self, s, np.arange(B))
        return s

    def reset_games(self, s: BatchState, games) -> None:
        """Start a new episode for ``games`` (indices 0..B-1; their random streams continue)."""
        G = np.asarray(games).reshape(-1)
        if not G.size:  # the usual call of a step loop: nothing finished
            return
        if G.dtype.kind in "iu":
            G = G.astype(np.int64, copy=False)
        # in range: the largest as uint64 below B (a negative index is ≥ 2^63 there)
        if G.dtype.kind not in "iu" or G.view(np.uint64).max() >= s.num_games:
            raise ValueError(f"games={np.asarray(games).tolist()!r}; expected game indices "
                             f"0-{s.num_games - 1} (ints)")
        # a game listed twice would be dealt twice in one call (the second deal's cards added
        # to the first's): refused (a set of a few ints costs well under a microsecond)
        if G.size > 1 and len(set(G.tolist())) < G.size:
            raise ValueError(f"games={np.asarray(games).tolist()!r}; expected each game index "
                             f"at most once")
        hand.start_episodes(self, s, G)

    def game_log(self, s: BatchState, g: int) -> list[tuple[int, int]]:
        """Every decision of game ``g``'s episode as (seat, action); (-1, -1) marks a redeal."""
        return log.game_log(s, g)

    # ------------------------------------------------------------------ masks
    def legal_mask(self, s: BatchState) -> np.ndarray:
        """``bool[B, A]`` — the legal actions of each game's seat to act (all False if over)."""
        if s.mask is not None:
            return s.mask
        self._check_decks(s)
        if s.num_games == 1:
            s.mask = self._legal_mask_one(s)
            return s.mask
        mask = np.zeros((s.num_games, self.num_actions), dtype=bool)
        count = np.bincount(s.phase, minlength=len(Phase)).tolist()
        everyone = row_starts(s.num_games)
        todo = [phase for phase, n in enumerate(count) if n and phase != OVER]
        if s.num_games > count[PLAY] >= s.num_games // 2:
            # most games play (the steady state of a large batch): the PLAY rules over every
            # row in place (other phases' rows look like leaders without a lead to them: those
            # of finished games are cleared here, the others replaced whole below) instead of
            # gathering and scattering most rows
            trick.mask_play(self, s, everyone, mask)
            if count[OVER]:  # the other phases' rows are replaced whole below
                mask[s.phase == OVER] = False
            todo.remove(PLAY)  # (count[PLAY] >= B // 2 >= 1: it is listed)
        order = None
        for phase in todo:
            fill = self._mask_fill[phase]
            if count[phase] == s.num_games:  # all games in one phase (common): fill in place
                fill(self, s, everyone, mask)
            else:
                # the games of each phase in index order: slices of one stable sort by phase
                # (instead of a comparison and a nonzero per phase)
                if order is None:
                    order = s.phase.argsort(kind="stable")
                start = sum(count[:phase])
                G = order[start:start + count[phase]]
                out = np.zeros((G.size, self.num_actions), dtype=bool)
                fill(self, s, G, out)
                put_rows(mask, G, out)
        s.mask = mask
        return mask

    def _legal_mask_one(self, s: BatchState) -> np.ndarray:
        """``legal_mask`` of a one-game batch: PLAY (most decisions) takes the scalar path of
        ``one_game``; the other phases fill the row with the batch code."""
        mask = np.zeros((1, self.num_actions), dtype=bool)
        phase = s.phase.item(0)
        if phase == PLAY:
            one_game.mask_play(self, s, 0, mask[0])
        elif phase != OVER:
            self._mask_fill[phase](self, s, np.zeros(1, dtype=np.int64), mask)
        return mask

    def observe(self, s: BatchState, out=None, seats=None) -> np.ndarray:
        """``float32[B, N]`` — each game's observation for its seat to act, or for ``seats``
        (``int[B]``: what that seat knows; it sees no selection of another seat). Layout:
        ``shengji_env.core.observe``. A single seat ``int`` 0-3 means that seat in every game."""
        self._check_decks(s)
        if seats is not None:
            seats = self._check_seats(s, seats)
        return observe.observe_batch(self, s, out, seats)

    def _check_decks(self, s: BatchState) -> None:
        """``ValueError`` for a state dealt with another deck count than these rules' (its
        hands would be read with the wrong copies per card: silent nonsense, not an error)."""
        if s.deck.shape[1] != 54 * self.cfg.decks:
            raise ValueError(f"this state was dealt with {s.deck.shape[1] // 54} deck(s) but "
                             f"this Engine's rules say decks={self.cfg.decks}: step, mask and "
                             "observe a state with an Engine of the rules that made it")

    @staticmethod
    def _check_seats(s, seats) -> np.ndarray:
        """``seats`` as ``int64[B]`` absolute seats 0-3; ``ValueError`` naming the value."""
        if s.num_games == 1 and type(seats) is np.ndarray and seats.shape == (1,) \
                and seats.dtype.kind in "iu" and 0 <= int(seats[0]) <= 3:
            return seats  # the AEC env's one seat: the checks below cost more than the observation
        a = np.full(s.num_games, int(seats)) if cards.is_int(seats) else np.asarray(seats)
        if (a.shape != (s.num_games,) or a.dtype.kind not in "iu" or int(a.min()) < 0
                or int(a.max()) > 3):
            raise ValueError(f"seats={seats!r}; expected a seat 0-3 or int[{s.num_games}] of "
                             "seats 0-3 (one per game)")
        return a

    # ------------------------------------------------------------------ stepping
    def step(self, s: BatchState, actions):
        """Apply one action per game; returns ``(state, rewards float32[B, 4], done bool[B])``."""
        self._check_decks(s)
        if s.num_games == 1:
            return self._step_one(s, actions)
        actions = self._check_actions(s, actions)
        rewards = np.zeros((s.num_games, 4), dtype=np.float32)
        if s.done.any():
            live = (~s.done).nonzero()[0]
            self._apply(s, live, actions[live], rewards)
        else:
            self._apply(s, row_starts(s.num_games), actions, rewards)
        while self.auto_forced:
            mask = self.legal_mask(s)
            forced = ((mask.sum(1) == 1) & ~s.done).nonzero()[0]
            if not forced.size:
                break
            self._apply(s, forced, mask[forced].argmax(1), rewards)
        return s, rewards, s.done

    def _check_actions(self, s, actions) -> np.ndarray:
        a = self._check_action_array(s, actions)
        mask = self.legal_mask(s)
        A = self.num_actions
        # the usual step: every action in range and legal (one gather of the mask); else the
        # full test below, which also lets finished games pass any action
        # (in range: the largest as uint64 below A, a negative one being ≥ 2^63 there)
        if (a.size and a.view(np.uint64).max() < A
                and mask.reshape(-1).take(row_starts(a.size, A) + a).all()):
            return a
        inside = (a >= 0) & (a < self.num_actions)
        legal = inside & mask.reshape(-1)[np.arange(a.size) * self.num_actions + a * inside]
        bad = ~s.done & ~legal
        if bad.any():
            self._raise_illegal(s, int(bad.nonzero()[0][0]), a, mask)
        return a

    @staticmethod
    def _check_action_array(s, actions) -> np.ndarray:
        """``actions`` as ``int64[B]``; ``ValueError`` for a wrong shape or dtype."""
        a = np.asarray(actions)
        if a.shape != (s.num_games,):
            raise ValueError(f"actions must have shape ({s.num_games},) (one action id per game), "
                             f"got {a.shape} from {type(actions).__name__} {_short(actions)}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}: {_short(actions)}")
        return a.astype(np.int64, copy=False)

    @staticmethod
    def _raise_illegal(s, g: int, a, mask):
        raise ValueError(f"illegal action {int(a[g])} in game {g} (seat {s.to_act.item(g)}, "
                         f"phase {Phase(s.phase.item(g)).name}); legal: "
                         f"{mask[g].nonzero()[0].tolist()}")

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
        if self.auto_forced:
            self._apply_forced_one(s, rewards)
        return s, rewards, s.done

    def step_legal_one(self, s: BatchState, action: int):
        """``step`` for a one-game state and an action id the caller has checked against
        ``legal_mask`` (the AEC env does): no array checks. Returns ``(rewards float32[1, 4],
        done bool[1])``; a finished game ignores the action, as in ``step``."""
        rewards = np.zeros((1, 4), dtype=np.float32)
        if s.done[0]:
            return rewards, s.done
        self._apply_one(s, action, rewards)
        if self.auto_forced:
            self._apply_forced_one(s, rewards)
        return rewards, s.done

    def _apply_forced_one(self, s, rewards) -> None:
        """``auto_forced`` for a one-game state: decisions with one legal action."""
        while not s.done[0]:
            legal = (self.legal_mask(s)[0]).nonzero()[0]
            if legal.size != 1:
                break
            self._apply_one(s, int(legal[0]), rewards)

    def _apply_one(self, s, action: int, rewards):
        """``_apply`` for game 0 of a one-game batch."""
        s.mask = None
        log.record_one(s, 0, action)
        if s.phase.item(0) == PLAY:
            one_game.step_play(self, s, 0, action, rewards)
            if self.find_friend:
                hand.note_reveals(self, s, np.zeros(1, dtype=np.int64))
        else:
            self._apply_phase(s, s.phase.item(0), np.zeros(1, dtype=np.int64), np.array([action]),
                              rewards)

    def _apply(self, s, G, actions, rewards):
        s.mask = None
        log.record(s, G, actions)
        every = G.size == s.num_games  # G = arange(B): no gathers by G
        phase = s.phase if every else s.phase[G]
        count = np.bincount(phase, minlength=len(Phase)).tolist()
        if max(count) == G.size:  # one phase (common at small B)
            self._apply_phase(s, count.index(G.size), G, actions, rewards)
            return
        # the games of each phase, in the order of G: one stable sort by phase, then slices
        # (instead of a comparison and two boolean gathers per phase)
        order = phase.argsort(kind="stable")
        G, actions = order if every else G.take(order), actions.take(order)
        end = 0
        for ph, n in enumerate(count):
            if n:
                self._apply_phase(s, ph, G[end:end + n], actions[end:end + n], rewards)
                end += n

    def _apply_phase(self, s, phase: int, G, actions, rewards):
        """Apply ``actions`` to games ``G``, all in ``phase``; the phase modules report the
        windows that closed and the hands that ended, and ``hand`` takes them on."""
        if phase == PLAY:
            ended = trick.step_play(self, s, G, actions)
            if self.find_friend:  # before scoring: the last trick may show the friend
                hand.note_reveals(self, s, G)
            if ended is not None:
                hand.end_hands(self, s, ended, rewards)
        elif phase == DECLARE:
            hand.finish_declaring(self, s, deal.step_declare(self, s, G, actions))
        elif phase == BURY:
            trick.step_bury(self, s, G, actions)
            hand.after_bury(self, s, G)
        elif phase == NAME:
            hand.step_name(self, s, G, actions)
        elif phase == FRIEND:
            hand.step_friend(self, s, G, actions)
        else:
            trick.step_choose(self, s, G, actions)
            if self.find_friend:
                hand.note_reveals(self, s, G)


__all__ = ["DECLARE_BASE", "PASS", "BatchState", "Engine"]
