"""The evaluation arena: duplicate deals and the games between two policies (statistics of the
results: ``agents.eval.stats``).

**Duplicate deals.** Every deal (a dealing order and a first drawer) is played twice with the
teams swapped: agent A in seats 0 and 2, then in seats 1 and 3. Luck of the cards cancels out;
what is left is skill. A hand is *won* by the team whose reward is positive (``reward="levels"``:
the attackers when they take over, else the dealer side). Each hand is a first hand (both teams at
level 2, the dealer chosen by the declarations, RULES.md §4.5).

**Reproducibility.** A ``Deals`` set is saved as ``.npz`` without pickle; the agents' randomness
for deal ``i`` at seat ``s`` comes from ``numpy.random.default_rng([seed, i, s])``, which does not
depend on the order the agents were named in — so ``play_deals((B, A))`` mirrors
``play_deals((A, B))`` exactly.

``play_deals`` drives the scalar reference ``rules.Game`` through ``core.observe.observe_game``;
a batched-engine driver with the same signature and the same ``HandRecords`` can replace it.

**Find-friends** (``partnership="FIND_FRIEND"``, RULES.md §10.6) has no fixed teams, so "A's
team won" means nothing. Its strength metric (``friend_win_share``) is the **share of an agent's
seat-hands on the winning side**: every deal is played with the agents' seats rotated (A in seats
0 and 2, then in 1 and 3, so each agent holds each seat of each deal once); each of A's seats in
each hand is one seat-hand, won when that seat's reward is positive (``reward="levels"``: the
attackers when they take over, else the dealer side). Two equal agents do not score 50%: a
dealer alone against three puts three seats on the winning side whenever he loses, so compare
with ``b_share`` (the other agent's share of the same hands) and with equal-agent baselines.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from shengji_env import Rules
from shengji_env.cards import is_int
from shengji_env.core.observe import observe_game
from shengji_env.gamelog import GameLog
from shengji_env.rules import seats
from shengji_env.rules.game import Game

__all__ = [
    "DEALS_FORMAT_VERSION",
    "Deals",
    "HandRecords",
    "play_deals",
    "play_deals_batched",
    "play_hand",
    "FriendShare",
    "friend_win_share",
]

DEALS_FORMAT_VERSION = 1  #: version of the .npz deal-set layout (bump on any change)


@dataclass(frozen=True)
class Deals:
    """A set of D deals.

    ``decks``: ``int8[D, 54·d]`` — card ids in dealing order (card ``j`` goes to seat
    ``(first_drawer + j) % 4``, the last ``kitty_size`` form the kitty, RULES.md §4.2);
    ``first_drawers``: ``int8[D]`` — seat 0-3 receiving the first card; ``seed``: the seed the
    set was generated from (-1 if unknown).
    """

    decks: np.ndarray
    first_drawers: np.ndarray
    seed: int = -1

    def __post_init__(self):
        if not is_int(self.seed) or self.seed < -1:  # save wrote seed='x', load refused it
            raise ValueError(f"seed={self.seed!r}; expected an int >= 0 (or -1: unknown)")
        object.__setattr__(self, "seed", int(self.seed))
        decks = np.asarray(self.decks)
        first = np.asarray(self.first_drawers)
        if decks.ndim != 2 or decks.shape[1] % 54 or decks.shape[1] == 0:
            raise ValueError(f"decks must be int[D, 54·d] card ids, got shape {decks.shape}")
        if decks.shape[0] == 0:
            raise ValueError("a deal set needs at least one deal; got 0")
        for name, a in (("decks", decks), ("first_drawers", first)):
            if a.dtype.kind not in "iu":  # 3.0 or "3" would be truncated or misread
                raise ValueError(f"{name} must be integers, got dtype {a.dtype} "
                                 f"({a.reshape(-1)[:4].tolist()} ...)")
        d = decks.shape[1] // 54
        want = np.repeat(np.arange(54), d)
        if decks.size and not (np.sort(decks, axis=1) == want).all():
            bad = int(np.flatnonzero(~(np.sort(decks, axis=1) == want).all(axis=1))[0])
            raise ValueError(f"deal {bad} does not hold every card id exactly {d} times")
        if first.shape != (decks.shape[0],) or ((first < 0) | (first > 3)).any():
            raise ValueError(f"first_drawers must be int[{decks.shape[0]}] seats 0-3, got "
                             f"{first.shape} with values {np.unique(first)[:8].tolist()}")
        object.__setattr__(self, "decks", decks.astype(np.int8))
        object.__setattr__(self, "first_drawers", first.astype(np.int8))

    def __len__(self) -> int:
        return int(self.decks.shape[0])

    @property
    def num_card_decks(self) -> int:
        return int(self.decks.shape[1] // 54)

    @classmethod
    def generate(cls, num_deals: int, rules: Rules, seed: int = 0) -> Deals:
        """``num_deals`` shuffled deals for ``rules`` from ``numpy.random.default_rng(seed)``.

        The first drawer is ``rules.initial_first_drawer``, or drawn when it is ``"RANDOM"``.
        """
        if not is_int(num_deals) or num_deals < 1:  # True dealt one; 2.5 was a TypeError
            raise ValueError(f"num_deals={num_deals!r}; expected an int >= 1")
        if not is_int(seed) or seed < 0:
            raise ValueError(f"seed={seed!r}; expected an int >= 0")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a shengji_env.Rules, got {type(rules).__name__}")
        rng = np.random.default_rng(seed)
        base = np.tile(np.repeat(np.arange(54, dtype=np.int8), rules.decks), (num_deals, 1))
        decks = rng.permuted(base, axis=1)
        if rules.initial_first_drawer == "RANDOM":
            first = rng.integers(0, 4, size=num_deals)
        else:
            first = np.full(num_deals, rules.initial_first_drawer)
        return cls(decks, first, seed)

    def save(self, path: str | Path) -> None:
        """Write an ``.npz`` (no pickle) at exactly ``path`` (numpy would append ``.npz`` to a
        name without it): ``format_version``, ``decks``, ``first_drawers``, ``seed``."""
        path = Path(path)
        if path.is_dir():
            raise IsADirectoryError(f"cannot save the deals to {str(path)!r}: it is a folder; "
                                    "give a file name such as deals.npz")
        with open(path, "wb") as f:
            np.savez_compressed(f, format_version=np.int64(DEALS_FORMAT_VERSION),
                                decks=self.decks, first_drawers=self.first_drawers,
                                seed=np.int64(self.seed))

    @classmethod
    def load(cls, path: str | Path) -> Deals:
        """Read a deal set written by ``save`` (``allow_pickle=False``); ``ValueError`` (or
        ``FileNotFoundError``) says what is wrong with anything else."""
        import zipfile
        import zlib

        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no deal file {str(path)!r}")
        if path.is_dir():
            raise ValueError(f"{path} is a folder, not a deal set (.npz written by --save-deals)")
        if path.stat().st_size == 0:
            raise ValueError(f"{path} is not a deal set: the file is empty")
        try:
            f = np.load(path, allow_pickle=False)
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
            why = ("it holds pickled data" if "pickle" in str(e)
                   else "truncated or another kind of file")
            raise ValueError(f"{path} is not a deal set (.npz written by --save-deals): {why}") \
                from None
        if not isinstance(f, np.lib.npyio.NpzFile):
            raise ValueError(f"{path} holds a single array {getattr(f, 'shape', '')}, not a deal set "
                             "(.npz with format_version, decks, first_drawers)")
        try:
            with f:
                missing = {"format_version", "decks", "first_drawers"} - set(f.files)
                if missing:
                    raise ValueError(f"{path} is not a deal set: missing {sorted(missing)}")
                version = _int_field(f, "format_version", path)
                if version != DEALS_FORMAT_VERSION:
                    raise ValueError(f"{path} has deal-set format version {version}; this "
                                     f"version of shengji-rl reads version {DEALS_FORMAT_VERSION}")
                seed = _int_field(f, "seed", path) if "seed" in f.files else -1
                decks, first = f["decks"], f["first_drawers"]
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:
            raise ValueError(f"{path} is not a readable deal set (truncated or damaged: "
                             f"{type(e).__name__})") from None
        try:
            return cls(decks, first, seed)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None


def _int_field(f, key: str, path) -> int:
    """A scalar integer field of a deal file; ``ValueError`` naming it otherwise."""
    a = f[key]
    if a.ndim != 0 or a.dtype.kind not in "iu":
        raise ValueError(f"{path}: {key}={a.tolist()!r} ({a.dtype}); expected one integer")
    return int(a)


@dataclass
class HandRecords:
    """One row per hand played, as arrays of length H (= 2·D for one pair of agents).

    ``deal``: int32 deal index; ``a_seats``: int8 0 if agent A sat in seats 0/2, 1 if in 1/3;
    ``dealer``: int8 dealer seat; ``a_dealer``: bool A's team was the dealer side;
    ``trump``: int8 0-3 suit or 4 no-trump; ``attacker_points``: int16 final attackers' score;
    ``a_reward``: float32 A's reward (levels); ``a_won``: bool A's reward > 0.
    """

    deal: np.ndarray
    a_seats: np.ndarray
    dealer: np.ndarray
    a_dealer: np.ndarray
    trump: np.ndarray
    attacker_points: np.ndarray
    a_reward: np.ndarray

    @property
    def a_won(self) -> np.ndarray:
        return self.a_reward > 0

    def __len__(self) -> int:
        return int(self.deal.size)

    def mirrored(self) -> HandRecords:
        """The same hands seen from agent B."""
        return HandRecords(self.deal, 1 - self.a_seats, self.dealer, ~self.a_dealer, self.trump,
                           self.attacker_points, -self.a_reward)


def play_hand(policies, deck: np.ndarray, first_drawer: int, rules: Rules,
              rngs, on_game=None) -> tuple[Game, np.ndarray]:
    """Play one first hand of the reference game; ``policies[s]`` and ``rngs[s]`` act for seat
    ``s``. Returns the finished ``Game`` (``dealer``, ``attacker_points``, ``hand_result``) and
    the final rewards ``float32[4]``. ``on_game(game)``, if given, is called once with the new
    ``Game`` before the first decision (diagnostics that need the hidden state, such as the
    search benchmark's oracle; never an agent's business)."""
    cfg = rules if rules.initial_first_drawer == first_drawer else \
        rules.replace(initial_first_drawer=int(first_drawer))
    game = Game(cfg, seed=0, deck=deck, dealer=None, levels=(0, 0))
    if on_game is not None:
        on_game(game)
    rewards = None
    while not game.done:
        seat = game.to_act
        mask = game.legal_mask()
        action = policies[seat].act({"observation": observe_game(game, seat),
                                     "action_mask": mask.astype(np.int8)}, rngs[seat])
        if not (0 <= action < mask.size and mask[action]):
            name = getattr(policies[seat], "name", type(policies[seat]).__name__)
            raise ValueError(f"agent {name!r} in seat {seat} chose illegal action {action} in "
                             f"phase {game.phase.name}; legal: {np.flatnonzero(mask).tolist()}")
        rewards = game.step(action)
    return game, rewards


def _play_rows(policies, deals: Deals, rules: Rules, seed: int, rows: np.ndarray,
               on_hand=None, save_games=None) -> np.ndarray:
    """Play the hands ``rows`` (row = 2·deal + seating); returns ``float64[len(rows), 5]``:
    dealer, trump, attacker points, A's reward, and the row. ``save_games``: ``(folder, (spec
    of A, spec of B))`` — write each hand's ``GameLog`` there as ``deal<i>-<seating>.json``."""
    a, b = policies
    out = np.zeros((len(rows), 5), dtype=np.float64)
    for k, row in enumerate(rows):
        i, a_seats = divmod(int(row), 2)
        seating = [a, b, a, b] if a_seats == 0 else [b, a, b, a]
        rngs = [np.random.default_rng([seed, i, s]) for s in range(4)]
        game, rewards = play_hand(seating, deals.decks[i].astype(np.int64),
                                  int(deals.first_drawers[i]), rules, rngs)
        out[k] = (game.dealer, game.trump, game.attacker_points,
                  rewards[a_seats], row)
        if save_games is not None:
            folder, (sa, sb) = save_games
            specs = [sa, sb, sa, sb] if a_seats == 0 else [sb, sa, sb, sa]
            GameLog.from_game(game, specs).save(folder, f"deal{i}-{'AB'[a_seats]}")
        if on_hand is not None:
            on_hand()
    return out


def _worker_init() -> None:
    """Each ``play_deals`` worker process runs torch on one thread. The workers are forked: when
    the parent has already run a parallel torch op (loading a checkpoint policy is enough), the
    child inherits a thread pool whose threads do not exist, and its first parallel torch op
    waits for them forever. One thread per worker also keeps ``workers`` processes from
    oversubscribing the cores."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def play_deals(policies, deals: Deals, rules: Rules, seed: int = 0, progress: bool = False,
               desc: str | None = None, workers: int = 1, save_games=None) -> HandRecords:
    """Play every deal twice, ``policies = (A, B)`` swapping seats; returns ``HandRecords``.

    Row order: deal 0 with A in seats 0/2, deal 0 with A in seats 1/3, deal 1, ...
    ``workers > 1`` spreads the hands over processes (the policies must pickle); the records
    are identical for any number of workers. ``save_games``: ``(folder, (spec A, spec B))``
    writes every hand's game log (``shengji_env.gamelog``) there.
    """
    if len(policies) != 2:
        raise ValueError(f"play_deals takes two policies (A, B), got {len(policies)}")
    if deals.num_card_decks != rules.decks:
        raise ValueError(f"the deals use {deals.num_card_decks} deck(s) but the rules say "
                         f"decks={rules.decks}")
    if workers < 1:
        raise ValueError(f"workers={workers}; expected 1 or more")
    from tqdm import tqdm

    n = 2 * len(deals)
    bar = tqdm(total=n, desc=desc, unit="hand", disable=not progress, leave=False)
    if workers == 1:
        table = _play_rows(policies, deals, rules, seed, np.arange(n), bar.update, save_games)
    else:
        import concurrent.futures as cf

        chunks = np.array_split(np.arange(n), min(n, 8 * workers))
        parts = []
        # no more processes than chunks: a fork-started pool starts all max_workers at once,
        # so --workers 100000 on one deal forked 100,000 idle copies of this process
        with cf.ProcessPoolExecutor(max_workers=min(workers, len(chunks)),
                                    initializer=_worker_init) as pool:
            futures = [pool.submit(_play_rows, policies, deals, rules, seed, rows, None,
                                   save_games)
                       for rows in chunks]
            for fut in cf.as_completed(futures):
                parts.append(fut.result())
                bar.update(len(parts[-1]))
        table = np.concatenate(parts)
        table = table[np.argsort(table[:, 4])]
    bar.close()
    row = table[:, 4].astype(np.int64)
    dealer = table[:, 0].astype(np.int8)
    a_team = row % 2  # row 2i: A is team 0; row 2i+1: A is team 1
    return HandRecords(deal=(row // 2).astype(np.int32), a_seats=a_team.astype(np.int8),
                       dealer=dealer, a_dealer=seats.team(dealer) == a_team,
                       trump=table[:, 1].astype(np.int8),
                       attacker_points=table[:, 2].astype(np.int16),
                       a_reward=table[:, 3].astype(np.float32))


def play_deals_batched(policies, deals: Deals, rules: Rules, seed: int = 0,
                       save_games=None) -> HandRecords:
    """``play_deals`` through the batched engine: all 2·D hands in lockstep, each policy asked
    once per step for all the decisions it owns (``act_batch``).

    Same deals, seatings and ``HandRecords`` as ``play_deals`` and several times faster; the
    policies draw from one generator ``default_rng(seed)`` per call instead of one per (deal,
    seat), so for stochastic policies swapping the arguments mirrors the result only in
    distribution (exactly for deterministic ones). Used for evaluation during training.
    """
    from shengji_env.core import Engine

    if len(policies) != 2:
        raise ValueError(f"play_deals_batched takes two policies (A, B), got {len(policies)}")
    if deals.num_card_decks != rules.decks:
        raise ValueError(f"the deals use {deals.num_card_decks} deck(s) but the rules say "
                         f"decks={rules.decks}")
    n = 2 * len(deals)
    eng = Engine(rules, n, seed=seed)
    s = eng.reset(decks=np.repeat(deals.decks, 2, axis=0).astype(np.int64),
                  first_drawers=np.repeat(deals.first_drawers, 2))
    a_seats = np.arange(n) % 2  # A's team: row 2i: A in seats 0/2; row 2i+1: A in seats 1/3
    total, _ = _play_lockstep(eng, s, policies, lambda s: seats.team(s.to_act) == a_seats,
                              np.random.default_rng(seed))
    if save_games is not None:
        folder, (sa, sb) = save_games
        for g in range(n):
            i, a = divmod(g, 2)
            specs = [sa, sb, sa, sb] if a == 0 else [sb, sa, sb, sa]
            log = GameLog.start(eng, s, specs, seed + g, given_deck=True, g=g)
            log.deck = [int(c) for c in deals.decks[i]]
            log.first_drawer = int(deals.first_drawers[i])
            log.finish(eng, s, g).save(folder, f"deal{i}-{'AB'[a]}")
    dealer = s.dealer.astype(np.int8)
    return HandRecords(deal=(np.arange(n) // 2).astype(np.int32), a_seats=a_seats.astype(np.int8),
                       dealer=dealer, a_dealer=seats.team(dealer) == a_seats, trump=s.trump.astype(np.int8),
                       attacker_points=s.attacker_points.astype(np.int16),
                       a_reward=total[np.arange(n), a_seats].astype(np.float32))


@dataclass(frozen=True)
class FriendShare:
    """Find-friends strength (module docstring): ``a_share`` of A's ``a_seat_hands`` seat-hands
    on the winning side, with its 95% Wilson interval ``a_ci``; ``b_share`` for B on the same
    hands; ``hands`` played; ``a_rewards``: A's reward in each of its seat-hands
    (``float64[a_seat_hands]``, its side's reward, RULES.md §10.6); ``a_roles``: A's seat-hands
    by its role in the hand — ``{"dealer" | "friend" | "attacker": (seat-hands, won)}``, the
    friend being the dealer side's other member (none when the dealer plays alone)."""

    a_share: float
    a_ci: tuple[float, float]
    b_share: float
    a_seat_hands: int
    hands: int
    a_rewards: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    a_roles: dict = field(default_factory=dict)


def friend_win_share(policies, deals: Deals, rules: Rules, seed: int = 0,
                     seating: str = "one") -> FriendShare:
    """Play every deal of ``deals`` with the agents' seats rotated through the batched engine
    (a first hand each, as ``play_deals_batched``), ``policies = (A, B)``, and score the
    seat-hand win share of find-friends (module docstring). ``seating="one"``: A holds one
    seat and B the other three, each deal played four times with A in seat 0, 1, 2, 3;
    ``"pairs"``: A holds seats 0 and 2, then 1 and 3 (each deal twice)."""
    from shengji_env.core import Engine

    from .stats import wilson

    if len(policies) != 2:
        raise ValueError(f"friend_win_share takes two policies (A, B), got {len(policies)}")
    if rules.partnership != "FIND_FRIEND":
        raise ValueError("friend_win_share is the find-friends metric; pass "
                         "rules with partnership='FIND_FRIEND' (else use play_deals)")
    if deals.num_card_decks != rules.decks:
        raise ValueError(f"the deals use {deals.num_card_decks} deck(s) but the rules say "
                         f"decks={rules.decks}")
    if seating not in ("one", "pairs"):
        raise ValueError(f"seating={seating!r}; expected 'one' or 'pairs'")
    copies = 4 if seating == "one" else 2
    n = copies * len(deals)
    eng = Engine(rules, n, seed=seed)
    s = eng.reset(decks=np.repeat(deals.decks, copies, axis=0).astype(np.int64),
                  first_drawers=np.repeat(deals.first_drawers, copies))
    # a_seat[row, seat]: agent A holds ``seat`` in hand ``row`` (rotated by one seat per copy)
    shift = (np.arange(4)[None, :] - np.arange(n)[:, None]) % 4
    a_seat = shift == 0 if seating == "one" else shift % 2 == 0
    total, s = _play_lockstep(eng, s, policies,
                              lambda s: a_seat[np.arange(n), np.maximum(s.to_act, 0)],
                              np.random.default_rng(seed))
    won = total > 0
    a_wins, a_n = int(won[a_seat].sum()), int(a_seat.sum())
    # every seat's role in its hand (bool[n, 4] each): the hand is over, its sides are known
    dealer = np.arange(4)[None, :] == s.dealer[:, None]
    roles = {"dealer": dealer, "friend": s.dealer_side & ~dealer, "attacker": ~s.dealer_side}
    a_roles = {name: (int((mine & a_seat).sum()), int((mine & a_seat & won).sum()))
               for name, mine in roles.items()}
    return FriendShare(a_share=a_wins / a_n, a_ci=wilson(a_wins, a_n),
                       b_share=float(won[~a_seat].mean()), a_seat_hands=a_n, hands=n,
                       a_rewards=total[a_seat], a_roles=a_roles)


def _play_lockstep(eng, s, policies, a_acts, rng) -> tuple[np.ndarray, object]:
    """Play every game of ``s`` to the end, ``policies = (A, B)`` each asked once per step for
    the decisions it owns (``a_acts(s)``: ``bool[n]``, A is to act); returns the rewards summed
    per seat, ``float64[n, 4]``, and the final state."""
    n = s.num_games
    total = np.zeros((n, 4), dtype=np.float64)
    actions = np.zeros(n, dtype=np.int64)
    while not s.done.all():
        mask = eng.legal_mask(s)
        obs = eng.observe(s)
        live = ~s.done
        a_turn = live & a_acts(s)
        actions[:] = 0
        for policy, mine in ((policies[0], a_turn), (policies[1], live & ~a_turn)):
            rows = np.flatnonzero(mine)
            if rows.size:
                actions[rows] = policy.act_batch(obs[rows], mask[rows], rng)
        s, rewards, _ = eng.step(s, actions)
        total += rewards
    return total, s
