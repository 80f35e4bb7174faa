"""``PIMCAgent``: determinized Monte-Carlo search over whole plays (DESIGN.md §6).

At each PLAY decision where it has a choice, the agent

1. lists its candidate whole plays (``agents.plays``): every legal follow (capped), or every
   unit and safe throw it could lead; ranks them by a prior — the rollout network's probability
   of making that play card by card — and keeps at most ``candidates``: the rollout policy's own
   play first, then ``HeuristicAgent``'s play, then the best of the prior;
2. samples ``worlds`` deals of the cards it has not seen, consistent with its observation
   (``agents.search.sampler``: exactly uniform over physical deals; in find-friends only the
   deals whose friend agrees with what the seat knows, ``core.world.friend_consistent``);
3. builds one ``BatchState`` holding every (world, candidate) pair
   (``shengji_env.core.world``) and plays each out to the end of the hand in the batched engine
   with the batched rollout policy (``agents.search.rollout``) — with ``HeuristicAgent`` itself
   for every seat's plays in the decision's trick and the next (``exact_tricks``, 2) and from
   ``endgame`` (5) cards in hand down (exact answers where they decide most, and where few
   decisions are left);
4. scores each play in each world by the hand's outcome for its side — the level reward plus
   ``points_weight`` × its side's points / level step (points break ties between plays of the
   same level outcome, and make the score less coarse) — and takes the best mean over the
   ``worlds`` worlds; then the **confidence recheck**: the best play replaces the *incumbent*
   (``HeuristicAgent``'s play) only if it beats it on ``recheck`` further worlds, held out of
   the selection (so free of its winner's-curse bias), by ``z`` standard errors of the paired
   difference. The recheck worlds are played in the same batch (a batch of 120 games costs
   about what one of 60 does: the rollout step's cost is mostly per step, not per game).

The plan is made at the first card of a play and emitted one card per call (the observation's
``selection`` block shows the progress; the plan is cached by the observation without that
block, as ``HeuristicAgent`` does). Declaring and choosing a failed throw's unit are
``HeuristicAgent``'s, and so is the bury with ``bury=0`` (by default the bury is searched
too). With one world and one candidate it plays the rollout policy's play.

**The search record** (public; for tools and for learning from the search, e.g.
``agents.learners.expert``): after every ``act`` call ``last_search`` is the ``SearchRecord`` of
the search that call ran, or ``None`` when it ran none (a later card of a planned play,
declaring, an unsearched bury); ``last`` is the most recent record. A record holds the candidate
whole plays, their mean scores over the selection worlds (what chose the best), over every world
played, the raw rollout outcomes, the chosen play and the recheck's verdict. Recording changes
no decision (tested). ``act_with_options`` gives, like ``HeuristicAgent``'s, every action that
makes the agent's play (the plan's remaining cards in any order), the targets of imitation.

Determinism: with ``seed`` set (default 0) a decision is a pure function of (seed, observation):
its random stream is ``default_rng([seed, crc32(observation)])``; ``seed=None`` draws from the
``rng`` passed to ``act``. ``time_ms`` (optional) adds worlds in rounds of ``worlds`` while
the decision has time left, up to ``max_worlds``: stronger when time allows, not reproducible.
"""

from __future__ import annotations

import hashlib
import time
import warnings
import zlib
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

from agents import BasePolicy, HeuristicAgent, RandomAgent
from agents.base import check_threads, torch_threads
from agents.baselines.heuristic import bury_options
from agents.plays import follow_plays, lead_plays, play_key, risky_throws
from shengji_env import Rules
from shengji_env.core import Engine
from shengji_env.core.observe import decode, layout
from shengji_env.core.world import friend_consistent, world_states
from shengji_env.rules import TrumpContext
from shengji_env.rules.actions import END, Phase

from .history import PlayHistory, consistent_worlds
from .rollout import NearRollout, NetRollout, PolicyRollout, SampledRollout, load_rollout_net, play_out
from .sampler import UniformSampler, WorldSampler

__all__ = ["PIMCAgent", "SearchRecord"]

# plans a rollout HeuristicAgent keeps: a lead's END comes one step after its card, and in between
# every other game of the batch (worlds x candidates, ~100) plans its own play — with the agent's
# default 64 a third of those ENDs found their plan evicted and planned it again. The plan is a
# function of the observation, so the cache size never changes a decision.
ROLLOUT_PLANS = 1024
#: the agent's own plays being made, by decision (one per game it plays at once): a play of
#: several cards is searched at its first card and made over the next steps, so the plan of every
#: game of a lockstep batch must outlive a step — shengji-eval's find-friends metric plays all
#: its seat-hands at once (400 for --deals 100), and a search, unlike the heuristic's plan, is
#: not repeated exactly from a later step's observation (its seed includes the selection)
PLANS = 16384


@dataclass
class SearchRecord:
    """One search of ``PIMCAgent`` (its ``last`` / ``last_search``).

    ``candidates``: the K whole plays compared, ``int64[54]`` card counts each (index 0: the
    rollout policy's play); ``chosen``: the index of the play made; ``values``: ``float64[K]``
    mean score of each candidate over the ``worlds`` selection worlds (the score of the agent's
    ``value`` option — for ``"levels"``: level reward + ``points_weight`` × side points / level
    step, from the searching seat's side), or ``None`` when only one play was possible (no
    rollout); ``values_all``: the mean over every world each candidate was played in (selection
    and recheck worlds);
    ``outcomes``: ``float64[W, K, 3]`` the raw rollout results per (world, candidate) — the
    searching seat's level reward, its side's points (attackers' points, negated for the dealer
    side), its side (+1 attacking, −1 dealer side) — rows ``worlds`` … ``worlds + recheck − 1``
    are the recheck worlds (with ``recheck_play="pair"`` only the best and the incumbent are
    played there, the other candidates' rows are NaN, and there are no recheck rows when the
    best play was the incumbent); ``best`` (best mean over the selection worlds), ``incumbent``
    (``HeuristicAgent``'s play), ``recheck`` ((mean, standard error) of best − incumbent on
    the recheck worlds, or ``None`` when best is the incumbent) and ``worlds`` (rows of
    ``outcomes``). Read as a dict too (``record["values"]``)."""

    candidates: list
    chosen: int = 0
    values: np.ndarray | None = None
    values_all: np.ndarray | None = None
    outcomes: np.ndarray | None = None
    best: int = 0
    incumbent: int = 0
    recheck: tuple | None = None
    worlds: int = 0

    def __getitem__(self, key: str):
        return getattr(self, key)


#: deals per searched decision at most (worlds + recheck, and the bury's): 4,096 deals of 5
#: candidates are a batch of 20,480 games, several seconds a decision on one core
MAX_WORLDS = 4096
#: hands whose whole play is kept at once (``belief`` other than uniform: about 6 kB a decision)
HISTORY_HANDS = 256
#: hands kept at once in find-friends with the uniform belief (the latest decision and the trick
#: points: about 6 kB a hand, ~100 MB at most)
HISTORY_HANDS_COMPACT = 16384


class PIMCAgent(BasePolicy):
    """Perfect-information Monte-Carlo search on the batched engine.

    Options (keywords, all with defaults, so a spec resolver can pass ``pimc?worlds=32``):

    * ``worlds``: deals sampled per searched decision to choose the best play (24; 12 until 6
      December 2026: agents/search/README.md, "Worlds on fresh deals");
    * ``candidates``: whole plays compared per decision, at most (5);
    * ``recheck``: further deals on which the best play must beat the heuristic's (24; 0: the
      same worlds), by ``z`` (0.5) standard errors; ``points_weight``: weight of the side's
      points (per level step) in the score (0.25);
    * ``recheck_play``: ``"all"`` (default) plays every candidate in every world, recheck
      worlds included, in one batch; ``"pair"`` plays the recheck worlds in a second batch, only
      when the best play is not the incumbent, and only those two plays there. Same worlds and
      plays compared, so the same decisions (tested). A rollout step costs mostly per step, not
      per game, so at the default sizes one batch of ``(worlds + recheck) × candidates`` games
      is cheaper than two smaller ones; ``"pair"`` pays off for large ``recheck``;
    * ``rollout``: ``"net"`` (the shipped imitation network of the rules' deck count and
      partnership, ``rollout.default_weights``), ``"heuristic"``, ``"random"``, or
      a checkpoint path (the endgame's rollouts excepted: ``endgame=0`` for it throughout); the
      prior that ranks candidates is always a network (``prior_weights``, default the shipped
      one);
    * ``endgame``: from this many cards in the seat's hand down (5; 0: never), the rollouts
      are ``HeuristicAgent``'s own play instead of the rollout policy's: an exact model of the
      players where few decisions are left, so it fits the time budget;
    * ``exact_tricks``: tricks, from the decision's own on, in which ``HeuristicAgent`` makes
      every seat's plays in the rollouts before the rollout policy takes over (2; 0: none, the
      default until 7 December 2026; the endgame's rollouts are the heuristic's throughout
      anyway): the answers that decide a play's value most are those of the next tricks, and
      the 87%-agreement network gets one in eight of them wrong (README, "Exact answers in the
      next two tricks"); with ``others`` set, the other seats stay that model's;
    * ``bury``: bury candidates searched when the seat is the dealer with fixed partners (6; 0:
      ``HeuristicAgent``'s bury, unsearched; find-friends keeps the heuristic's bury, since the
      friend card named after it is not searched): ``heuristic.bury_options``' best ``bury``
      buries (the heuristic's first, then those voiding another set of off-suits), each played
      out to the end of the hand from the first lead in the same deals of the other hands, and
      chosen like a play (best mean on ``bury_worlds`` (48) selection deals, then the recheck
      against the heuristic's bury on as many more): more deals than a play gets, since a whole
      hand's outcome varies far more than the rest of one, and there is one bury per hand;
    * ``rollout_temperature``: 0 (greedy network rollouts) or T > 0: each rollout decision
      drawn from ``softmax(logits / T)`` with the same noise for every candidate of a world
      (``rollout.SampledRollout``; measured no stronger at T = 1: README); expert iteration's
      rollout refresh samples the student at the same temperature;
    * ``others``: the model of the other three seats in the rollouts: ``"same"`` (default:
      the rollout policy plays every seat, the search's own continuation included) or a
      rollout policy by the same names (``"net"``, ``"heuristic"``, ``"random"``, a checkpoint
      path), which then plays seats other than the searcher's while the rollout policy (or the
      endgame's heuristic) plays the searcher's own later decisions. Measured against three
      ``RandomAgent`` seats in find-friends, the exact model of those seats is no stronger than
      the default's heuristic-like one (86.5% of 400 seat-hands on the winning side against
      88.3%: agents/search/README.md, "A model of the other players");
    * ``seed``: int (decisions reproducible) or None (use the ``rng`` given to ``act``);
    * ``time_ms``: optional time budget per decision (more worlds while time is left);
    * ``follow_cap``: legal follows enumerated at most, before the prior ranks them (64);
    * ``throws``: risky throws among a lead's candidates (0): the best ``throws`` of
      ``agents.plays.risky_throws`` (throws that may fail) by the prior, placed after the
      rollout policy's and the heuristic's plays (measured no stronger: README);
    * ``threads``: torch threads for the search's network passes (1: one core per agent), set
      for each search and restored after it, so torch's own setting stays the caller's
      (``None``: use it as it is);
    * ``sampler``: a ``WorldSampler`` (default ``UniformSampler``): the hook for a learned belief;
    * ``belief``: what is done with the sampler's worlds (``_worlds``): ``"uniform"`` (default)
      plays them; ``"consistent"`` keeps those that agree with the hand's whole public play
      (``agents.search.history``: a follow with singles to a led pair shows the follower held no
      pair of the suit, which an observation does not record; about 40% of uniform worlds
      contradict the play so far); ``"likelihood"`` also weights them by the prior network's
      likelihood of the other seats' plays in the last ``window`` tricks (3), tempered by
      ``temperature`` (0.5); ``filter_rounds`` (4): sampling rounds at most.
    """

    name = "pimc"

    def __init__(self, rules: Rules | None = None, worlds: int = 24, candidates: int = 5,
                 rollout: str = "net", seed: int | None = 0, time_ms: float | None = None,
                 follow_cap: int = 64, max_worlds: int = 256, prior_weights: str | None = None,
                 sampler: WorldSampler | None = None, threads: int | None = 1,
                 recheck: int = 24, z: float = 0.5, points_weight: float = 0.25,
                 value: str = "levels", belief: str = "uniform", filter_rounds: int = 4,
                 window: int = 3, temperature: float = 0.5, recheck_play: str = "all",
                 endgame: int = 5, bury: int = 6, bury_worlds: int = 48, throws: int = 0,
                 rollout_temperature: float = 0.0, others: str = "same",
                 exact_tricks: int = 2):
        self.rules = rules if rules is not None else Rules()
        # find-friends: worlds are kept only where their friend agrees with what the seat knows
        # (core.world.friend_consistent); the bury and the friend card are the heuristic's
        self._friends = self.rules.partnership == "FIND_FRIEND"
        worlds, candidates = int(worlds), int(candidates)
        if worlds < 1 or candidates < 1:
            raise ValueError(f"worlds={worlds} and candidates={candidates} must be at least 1")
        if time_ms is not None and float(time_ms) <= 0:
            raise ValueError(f"time_ms={time_ms!r}; expected a positive number or None")
        self.worlds, self.candidates = worlds, candidates
        self.seed = None if seed is None or seed == "none" else int(seed)
        self.time_ms = None if time_ms is None else float(time_ms)
        self.follow_cap, self.max_worlds = int(follow_cap), int(max_worlds)
        self.recheck, self.z, self.points_weight = int(recheck), float(z), float(points_weight)
        if self.recheck < 0 or self.follow_cap < 1 or self.max_worlds < 1:
            raise ValueError(f"recheck={recheck!r} must be at least 0, follow_cap={follow_cap!r} "
                             f"and max_worlds={max_worlds!r} at least 1")
        # one decision plays (worlds + recheck) × candidates games in one engine batch: a
        # mistyped count should be refused here, not end in a MemoryError mid-game
        for name, n in (("worlds + recheck", worlds + self.recheck),
                        ("max_worlds + recheck", self.max_worlds + self.recheck),
                        ("bury_worlds", int(bury_worlds))):
            if n > MAX_WORLDS:
                raise ValueError(f"{name}={n}; at most {MAX_WORLDS} deals per decision "
                                 f"(worlds={worlds}, recheck={recheck}, max_worlds={max_worlds}, "
                                 f"bury_worlds={bury_worlds})")
        if recheck_play not in ("pair", "all"):
            raise ValueError(f"recheck_play={recheck_play!r}; expected 'pair' or 'all'")
        self.recheck_play = recheck_play
        if value not in ("levels", "win", "soft"):
            raise ValueError(f"value={value!r}; expected 'levels', 'win' or 'soft'")
        self.value = value
        if belief not in ("uniform", "consistent", "likelihood"):
            raise ValueError(f"belief={belief!r}; expected 'uniform', 'consistent' or 'likelihood'")
        if belief != "uniform" and self._friends:
            raise ValueError(f"belief={belief!r} replays the fixed partnership's play only; "
                             "find-friends searches with belief='uniform'")
        self.belief = belief
        self.filter_rounds, self.window = int(filter_rounds), int(window)
        self.temperature = float(temperature)
        if self.filter_rounds < 1 or self.window < 0:
            raise ValueError(f"filter_rounds={filter_rounds} must be at least 1 and "
                             f"window={window} at least 0")
        # the record of each hand's play: whole chains for the belief's replay; in find-friends
        # only the latest decision and each seat's trick points, so that every hand of a large
        # batched evaluation fits (shengji-eval's find-friends metric plays all its seat-hands
        # at once: 400 for --deals 100)
        self._history = (PlayHistory(HISTORY_HANDS) if belief != "uniform"
                         else PlayHistory(HISTORY_HANDS_COMPACT, full=False))
        self._won = None  # find-friends: each seat's trick points this hand, when known
        self._warned_dropped = False
        self._step = float(self.rules.level_step)
        # the search's torch work runs on ``threads`` threads (one core per agent: its small
        # batches gain nothing from more), inside ``act`` only: torch's own setting, which the
        # caller (a trainer evaluating against the search, say) chose, is left as it was
        self.threads = check_threads(threads)
        self.sampler = sampler if sampler is not None else UniformSampler(self.rules)
        self.heuristic = HeuristicAgent(self.rules)
        # HeuristicAgent itself as a rollout policy (``rollout``/``others="heuristic"``, the
        # endgame, the decision's next tricks): exact, but one Python call per game and
        # decision, so only for a few decisions by default
        self.heuristic_rollout = PolicyRollout(HeuristicAgent(self.rules, cache_size=ROLLOUT_PLANS),
                                               np.random.default_rng(0))
        try:
            self.prior = NetRollout(load_rollout_net(prior_weights, self.rules))
        except ValueError as e:
            raise ValueError(f"PIMCAgent: the rollout/prior network does not fit these rules "
                             f"({e}); the shipped ones are for each deck count's default action "
                             "layout: train one with configs/pimc_rollout.yaml and these rules "
                             "(--set rules.failed_throw_choice=NEXT_PLAYER, say) and pass "
                             "prior_weights= and rollout= its checkpoint") from None
        self.rollout_name = str(rollout)
        self.rollout = self._rollout_policy(rollout, "rollout")
        # the other seats' model in the rollouts: None (the rollout policy plays them too)
        self.others_name = str(others)
        self.others = None if others == "same" else self._rollout_policy(others, "others")
        self.rollout_temperature = float(rollout_temperature)
        if not self.rollout_temperature >= 0:
            raise ValueError(f"rollout_temperature={rollout_temperature!r}; expected 0 (greedy "
                             "rollouts) or a positive temperature")
        if self.rollout_temperature > 0:
            if not isinstance(self.rollout, NetRollout):
                raise ValueError("rollout_temperature needs a network rollout policy")
            if self.others is not None:
                raise ValueError(f"rollout_temperature={rollout_temperature!r} shares its noise "
                                 f"between the seats of a world; with others={others!r} use "
                                 "greedy rollouts (rollout_temperature=0)")
            self.rollout = SampledRollout(self.rollout, self.rollout_temperature)
        self.endgame = int(endgame)
        if self.endgame < 0:
            raise ValueError(f"endgame={endgame!r}; expected a card count, at least 0")
        self.throws = int(throws)
        if self.throws < 0:
            raise ValueError(f"throws={throws!r}; expected a count of candidates, at least 0")
        self.bury, self.bury_worlds = int(bury), int(bury_worlds)
        if self.bury < 0 or self.bury_worlds < 1:
            raise ValueError(f"bury={bury!r} (candidates) must be at least 0 and "
                             f"bury_worlds={bury_worlds!r} at least 1")
        self.exact_tricks = int(exact_tricks)
        if self.exact_tricks < 0:
            raise ValueError(f"exact_tricks={exact_tricks!r}; expected a count of tricks, at "
                             "least 0")
        self.endgame_rollout = (self.rollout if rollout == "heuristic" or not self.endgame
                                else self.heuristic_rollout)
        self.plan_engine = Engine(self.rules, 1)
        self.roll_engine = Engine(self.rules, 1, auto_forced=True)
        self._sel = layout(self.rules)["selection"]
        self._plans: OrderedDict[bytes, np.ndarray] = OrderedDict()
        # search_s / rollout_s: wall time; rollout_cpu_s: this process's CPU time
        # sampled / kept: worlds drawn by the sampler and kept by the history filter
        self.stats = {"searched": 0, "search_s": 0.0, "rollouts": 0, "rollout_s": 0.0,
                      "rollout_cpu_s": 0.0, "decisions": 0, "sampled": 0, "kept": 0}
        self.last: SearchRecord | None = None  # the most recent search (module docstring)
        self.last_search: SearchRecord | None = None  # the search of the latest act call

    def _rollout_policy(self, name: str, option: str):
        """A rollout policy by name (the ``rollout`` and ``others`` options): ``"net"`` (the
        prior network), ``"heuristic"``, ``"random"`` or a checkpoint path."""
        if name == "net":
            return self.prior
        if name == "heuristic":
            return self.heuristic_rollout
        if name == "random":
            return PolicyRollout(RandomAgent(), np.random.default_rng(0))
        try:
            return NetRollout(load_rollout_net(name, self.rules))
        except FileNotFoundError as e:
            same = "'same', " if option == "others" else ""
            raise ValueError(f"{option}={name!r}: expected {same}'net', 'heuristic', 'random' "
                             f"or a checkpoint path ({e})") from None

    def _others_for(self, rng: np.random.Generator):
        """The ``others`` model ready for one decision's batch (None: the rollout policy plays
        every seat): a policy with randomness of its own (``"random"``) draws it from the
        decision's stream, so a seeded decision stays reproducible."""
        if isinstance(self.others, PolicyRollout):
            self.others.rng = np.random.default_rng(rng.integers(2**63))
        return self.others

    def __repr__(self) -> str:
        return (f"PIMCAgent(worlds={self.worlds}, candidates={self.candidates}, "
                f"rollout={self.rollout_name!r}, seed={self.seed}, time_ms={self.time_ms}, "
                f"belief={self.belief!r}"
                + ("" if self.others is None else f", others={self.others_name!r}") + ")")

    # ---------------------------------------------------------------- entry point
    def act(self, obs: dict, rng: np.random.Generator | None = None) -> int:
        observation = np.asarray(obs["observation"], dtype=np.float32)
        mask = np.asarray(obs["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError("the action mask allows no action; there is no decision to make")
        self.stats["decisions"] += 1
        self.last_search = None
        key = self._plan_key(observation)
        plan = self._plans.get(key)
        selection = np.rint(observation[self._sel]).astype(np.int64)
        if plan is None and not selection.any():
            view = decode(observation, self.rules)
            searched = view.phase == Phase.PLAY or (
                view.phase == Phase.BURY and self.bury > 0 and view.dealer == 0
                and self.rules.partnership == "FIXED")
            if searched:
                search = self._search if view.phase == Phase.PLAY else self._search_bury
                with torch_threads(self.threads):
                    plan = search(view, observation, mask, self._rng(observation, rng))
                self.last_search = self.last
                self._plans[key] = plan
                if len(self._plans) > PLANS:
                    self._plans.popitem(last=False)
        if plan is None:  # not a play of ours: declaring, bury, a failed throw's choice
            return self.heuristic.act(obs, rng)
        rest = plan - selection
        if (rest < 0).any():  # a selection someone else started: the heuristic completes it
            return self.heuristic.act(obs, rng)
        if not rest.any():
            return END
        legal = np.flatnonzero((rest > 0) & mask[:54])
        return int(legal[0]) if legal.size else self.heuristic.act(obs, rng)

    def _plan_key(self, observation: np.ndarray) -> bytes:
        """The decision an observation belongs to: all of it but the selection (the cards
        chosen so far of the play being made), as a 16-byte digest."""
        h = hashlib.blake2b(observation[:self._sel.start].tobytes(), digest_size=16)
        h.update(observation[self._sel.stop:].tobytes())
        return h.digest()

    def act_with_options(self, obs: np.ndarray, mask: np.ndarray, rng=None
                         ) -> tuple[np.ndarray, np.ndarray, list]:
        """``act`` on each row of ``obs`` float32[B, N] / ``mask`` bool[B, A], plus every action
        that makes the same play: ``(actions int64[B], options bool[B, A], records)`` —
        ``options`` are the plan's remaining legal cards (any order; ``END`` when it is
        complete), ``HeuristicAgent``'s options where the heuristic decides, and ``records[i]``
        the ``SearchRecord`` of the search row ``i`` ran (``None``: no search)."""
        obs, mask = np.asarray(obs, dtype=np.float32), np.asarray(mask).astype(bool)
        actions = np.zeros(len(obs), dtype=np.int64)
        options = np.zeros(mask.shape, dtype=bool)
        records = []
        for i in range(len(obs)):
            o = obs[i]
            a = actions[i] = self.act({"observation": o, "action_mask": mask[i]}, rng)
            records.append(self.last_search)
            plan = self._plans.get(self._plan_key(o))
            rest = None if plan is None else plan - np.rint(o[self._sel]).astype(np.int64)
            if rest is not None and (rest >= 0).all():  # our own plan: any remaining card
                options[i, :54] = (rest > 0) & mask[i, :54]
                options[i, a] = True
            else:  # the heuristic decided: its options
                _, h = self.heuristic.act_with_options(o[None], mask[i][None])
                options[i] = h[0]
                options[i, a] = True
        return actions, options, records

    def reseed(self, seed: int | None) -> None:
        """Use ``seed`` for the decisions from now on and forget cached plans and the record of
        the hands played (a caller that seeds each batch of decisions, e.g. a learner from (run
        seed, update), so a resumed run searches exactly as the uninterrupted one)."""
        self.seed = None if seed is None else int(seed)
        self._plans.clear()
        self._history.clear()  # a resumed run has no record of the hands before it either
        for r in (self.rollout, self.prior, self.endgame_rollout, self.heuristic_rollout):
            if isinstance(r, PolicyRollout):
                r.rng = np.random.default_rng(0 if seed is None else int(seed))

    def _rng(self, observation: np.ndarray, rng) -> np.random.Generator:
        if self.seed is None:
            return rng if rng is not None else np.random.default_rng()
        return np.random.default_rng([self.seed, zlib.crc32(observation.tobytes())])

    # ---------------------------------------------------------------- search
    def _search(self, view, observation: np.ndarray, mask: np.ndarray,
                rng: np.random.Generator) -> np.ndarray | None:
        """The whole play ``int64[54]`` to make at this PLAY decision (None in find-friends
        when no sampled world agrees with what the seat knows of the friend: the heuristic
        plays)."""
        start = time.perf_counter()
        R = self.recheck
        self._chain = (self._history.record(view, observation)
                       if self.belief != "uniform" or self._friends else [(view, observation)])
        # find-friends: each seat's trick points, which a world needs and an observation does not
        # state, from the hand's play (None after a gap: core.world's fallback)
        self._won = self._history.points(view) if self._friends else None
        if self._history.dropped and not self._warned_dropped:
            self._warned_dropped = True
            warnings.warn(f"PIMCAgent: more hands at once than its play record keeps "
                          f"({self._history.hands}); a dropped hand's later decisions search "
                          "without its earlier play (trick points, belief filter)", stacklevel=2)
        worlds = self._worlds(view, self.worlds + R, rng)
        if worlds is None:  # find-friends: no sampled world agrees with the friend's facts
            self.last = None
            return None       # the heuristic plays
        hands, kitty = worlds
        S = world_states(self.plan_engine, view, hands, kitty, points_won=self._won)
        one = S.take([0])
        ours = self._policy_play(one, view.leading, self._greedy)
        cands = self._candidates(view, one, ours)
        self.last = SearchRecord(cands)
        if len(cands) == 1:
            return cands[0]
        inc = self._incumbent(cands)
        if self.recheck_play == "all":
            # worlds W .. W+R-1 are the recheck's: all candidates are played in them too, in one
            # batch, but only the final comparison reads them
            score, worlds_used, raw = self._score(view, S, cands, rng, start)  # float[W, K]
            rows = np.arange(len(score))
            check = (rows >= self.worlds) & (rows < self.worlds + R)
            mean = score[~check].mean(0)
        else:
            # "pair": the selection worlds first; the recheck worlds only if the winner is not
            # the incumbent, and then only for those two plays (the same worlds and plays as
            # "all", so the same decisions, with 2·recheck games instead of K·recheck)
            score, worlds_used, raw = self._score(view, S.take(np.arange(self.worlds)), cands,
                                                  rng, start)
            mean = score.mean(0)
        # best mean score; ties to the incumbent, then to the candidate order
        order = np.lexsort((np.arange(len(cands)), np.arange(len(cands)) != inc, -mean))
        best = chosen = int(order[0])
        diff = None
        if best != inc:
            # the confidence recheck: the winner on the selection worlds is compared with the
            # incumbent on the recheck worlds (free of the selection's bias) and replaces it
            # only if better by ``z`` standard errors of the paired difference
            if self.recheck_play == "pair" and R:
                pair = [cands[best], cands[inc]]
                check_score, _, check_raw = self._score(
                    view, S.take(np.arange(self.worlds, self.worlds + R)), pair, rng, None)
                d = check_score[:, 0] - check_score[:, 1]
                # the record keeps every world played, the recheck's as rows W .. W+R-1 (as
                # "all"; time_ms rounds follow them): NaN where a candidate was not played
                rows = np.full((R, len(cands), 3), np.nan)
                rows[:, [best, inc]] = check_raw
                W = self.worlds
                raw = np.concatenate([raw[:W], rows, raw[W:]])
                score = self._value(raw)
                worlds_used += R
            else:  # "all" (R = 0: the selection worlds themselves, as in "pair")
                paired = score[check] if R else score
                d = paired[:, best] - paired[:, inc]
            chosen, diff = self._recheck(d, best, inc)
        self.last = SearchRecord(cands, chosen, mean, np.nanmean(score, 0), raw, best, inc, diff,
                                 worlds_used)
        self.stats["searched"] += 1
        self.stats["search_s"] += time.perf_counter() - start
        return cands[chosen]

    def _greedy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The rollout policy's own (greedy) play: the candidate it makes. Read from
        ``self.rollout`` at each call, which expert iteration replaces as it trains."""
        r = self.rollout
        return (r.net if isinstance(r, SampledRollout) else r)(obs, mask)

    def _recheck(self, d: np.ndarray, best: int, inc: int) -> tuple[int, tuple]:
        """The confidence recheck: ``best`` replaces the incumbent ``inc`` only if its paired
        score difference ``d`` (float[R]) on the recheck worlds is above ``z`` standard errors
        (and above 0). Returns (chosen index, (mean, standard error))."""
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else 0.0
        chosen = best if d.mean() > self.z * se and d.mean() > 0 else inc
        return chosen, (float(d.mean()), float(se))

    def _search_bury(self, view, observation: np.ndarray, mask: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        """The dealer's bury ``int64[54]`` (option ``bury``): each candidate bury is played out
        from the first lead to the end of the hand in the same deals of the other seats' cards
        (they do not depend on what the dealer buries), by the rollout policy; chosen like a
        play (``_search``, ``recheck_play="all"``), the heuristic's bury the incumbent."""
        start = time.perf_counter()
        ctx = TrumpContext.from_rules(view.level, view.trump, self.rules)
        cands = bury_options(view.hand, ctx, self.rules.kitty_size,
                             self.rules.kitty_point_cards_allowed, self.bury)
        self.last = SearchRecord(cands)
        if len(cands) == 1:
            return cands[0]
        K, W = len(cands), self.bury_worlds
        R = W if self.recheck else 0
        # the position after each bury: the dealer (me) to lead the first trick
        after = [replace(view, phase=Phase.PLAY, hand=(view.hand - b).astype(np.uint8),
                         kitty=b.astype(np.uint8), selection=np.zeros(54, np.uint8),
                         leading=True) for b in cands]
        hands, _ = self.sampler.sample(after[0], W + R, rng)
        hands = np.repeat(hands, K, axis=0)              # world-major: row w·K + k
        own = np.stack([a.hand for a in after])           # uint8[K, 54]
        hands[:, 0] = np.tile(own, (W + R, 1))
        kitty = np.tile(np.stack([a.kitty for a in after]), (W + R, 1))
        S = world_states(self.plan_engine, after[0], hands, kitty, own_hand=False)
        t, c = time.perf_counter(), time.process_time()
        values, _ = play_out(self.plan_engine, self.roll_engine, S,
                             np.full((len(hands), 1), -1, dtype=np.int64),
                             self._near(_for_decision(self.rollout, K, rng), 0),
                             self._others_for(rng))
        self.stats["rollout_s"] += time.perf_counter() - t
        self.stats["rollout_cpu_s"] += time.process_time() - c
        self.stats["rollouts"] += len(hands)
        raw = values.reshape(W + R, K, 3)
        score = self._value(raw)
        mean = score[:W].mean(0)
        order = np.lexsort((np.arange(K), np.arange(K) != 0, -mean))  # ties: the heuristic's
        best = chosen = int(order[0])
        diff = None
        if best != 0:
            paired = score[W:] if R else score
            chosen, diff = self._recheck(paired[:, best] - paired[:, 0], best, 0)
        self.last = SearchRecord(cands, chosen, mean, score.mean(0), raw, best, 0, diff, W + R)
        self.stats["searched"] += 1
        self.stats["search_s"] += time.perf_counter() - start
        return cands[chosen]

    def _score(self, view, S, cands, rng, start) -> tuple[np.ndarray, int, np.ndarray]:
        """Play every candidate in every world of ``S``; ``(score float64[W, K], W, outcomes
        float64[W, K, 3])`` (``play_out``'s values per world and candidate) where the score
        is the level reward plus ``points_weight`` × the side's points / level step. With
        ``time_ms`` (and ``start`` given) more rounds of fresh worlds follow while time is
        left."""
        K = len(cands)
        rounds, raw = [], []
        while True:
            W = S.num_games
            R = S.take(np.repeat(np.arange(W), K))
            plans = _plan_actions(np.tile(np.stack(cands), (W, 1, 1)).reshape(W * K, 54),
                                  view.leading)
            t, c = time.perf_counter(), time.process_time()
            policy = (self.endgame_rollout if int(view.hand.sum()) <= self.endgame
                      else self.rollout)
            values, _ = play_out(self.plan_engine, self.roll_engine, R, plans,
                                 self._near(_for_decision(policy, K, rng), view.tricks_done),
                                 self._others_for(rng))
            self.stats["rollout_s"] += time.perf_counter() - t
            self.stats["rollout_cpu_s"] += time.process_time() - c
            self.stats["rollouts"] += W * K
            raw.append(values.reshape(W, K, 3))
            rounds.append(self._value(raw[-1]))
            used = sum(len(r) for r in rounds)
            if (start is None or self.time_ms is None or used >= self.max_worlds
                    or (time.perf_counter() - start) * 1e3 * (1 + 1 / len(rounds))
                    > self.time_ms):
                break
            worlds = self._worlds(view, self.worlds, rng)
            if worlds is None:
                break
            S = world_states(self.plan_engine, view, *worlds, points_won=self._won)
        score = np.concatenate(rounds)
        return score, len(score), np.concatenate(raw)

    def _worlds(self, view, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """``n`` worlds ``(hands uint8[n, 4, 54], kitty uint8[n, 54])`` for ``view`` under the
        ``belief`` option. ``"uniform"``: the sampler's. ``"consistent"``: the sampler's, kept
        only where they agree with the hand's public play so far
        (``history.consistent_worlds``); rounds of ``2n`` more are drawn while fewer than ``n``
        are kept, ``filter_rounds`` in all, and a shortfall repeats the kept worlds in turn
        (each is an exact draw from the filtered distribution). ``"likelihood"``: ``4n``
        consistent worlds weighted by the prior network's likelihood of the other seats' plays
        in the last ``window`` tricks (tempered by ``temperature``), ``n`` drawn from them by
        systematic resampling. None kept (a failed throw in the chain, or consistent worlds too
        rare to meet) restarts the chain at this decision and plays the sampler's worlds."""
        if self._friends:
            return self._friend_worlds(view, n, rng)
        if self.belief == "uniform" or len(self._chain) < 2:  # nothing to filter by
            self.stats["sampled"] += n
            self.stats["kept"] += n
            return self.sampler.sample(view, n, rng)
        want = 4 * n if self.belief == "likelihood" else n
        model = self.prior.log_probs if self.belief == "likelihood" else None
        kept, last = self._kept_rounds(
            view, want, rng,
            lambda h, k: consistent_worlds(self.plan_engine, self._chain, h, k, model, self.window))
        if kept is None:
            view0, observation = self._chain[-1]
            self._history.restart(view0, observation)
            self._chain = self._chain[-1:]
            return last[0][:n], last[1][:n]
        (kept_h, kept_k, kept_l), want = kept, min(want, len(kept[0]))
        hands, kitty = kept_h[:want], kept_k[:want]
        if model is None:
            order = np.resize(np.arange(len(hands)), n)  # repeated in turn if too few
        else:
            z = self.temperature * kept_l[:want]
            w = np.exp(z - z.max())
            edges = np.cumsum(w / w.sum())
            order = np.minimum(np.searchsorted(edges, (rng.random() + np.arange(n)) / n),
                               len(w) - 1)
            order = rng.permutation(order)  # selection and recheck rows alike
        return hands[order], kitty[order]

    def _friend_worlds(self, view, n: int, rng) -> tuple[np.ndarray, np.ndarray] | None:
        """Find-friends: ``n`` of the sampler's worlds whose friend agrees with what the seat
        knows (``core.world.friend_consistent``: rejection, so still uniform over the deals that
        agree); rounds of ``2n`` more while fewer are kept, ``filter_rounds`` in all, a shortfall
        repeating the kept worlds in turn; None when none agrees (the heuristic then plays)."""
        kept, _ = self._kept_rounds(
            view, n, rng, lambda h, k: (friend_consistent(view, h), np.zeros(len(h))))
        if kept is None:
            return None
        order = np.resize(np.arange(min(len(kept[0]), n)), n)  # repeated in turn if too few
        return kept[0][order], kept[1][order]

    def _kept_rounds(self, view, want: int, rng, judge):
        """Rejection rounds: draw ``want`` worlds from the sampler, then ``2·want`` per round,
        keeping those ``judge(hands, kitty) -> (keep bool[M], score float[M])`` passes, until
        ``want`` are kept or ``filter_rounds`` rounds are spent. Returns ``((hands, kitty,
        score) of the kept worlds in draw order, or None when none passed, (hands, kitty) of
        the last draw)``."""
        kept_h, kept_k, kept_s, got = [], [], [], 0
        for round_ in range(self.filter_rounds):
            hands, kitty = self.sampler.sample(view, 2 * want if round_ else want, rng)
            self.stats["sampled"] += len(hands)
            keep, score = judge(hands, kitty)
            kept_h.append(hands[keep])
            kept_k.append(kitty[keep])
            kept_s.append(score[keep])
            got += int(keep.sum())
            if got >= want:
                break
        self.stats["kept"] += min(got, want)
        if not got:
            return None, (hands, kitty)
        return (np.concatenate(kept_h), np.concatenate(kept_k), np.concatenate(kept_s)), None

    def _near(self, policy, tricks_done: int):
        """``policy`` for one decision's rollouts, with ``HeuristicAgent`` answering the
        ``exact_tricks`` tricks from the decision's (``tricks_done``) on; as it is when that is 0
        or the policy is the heuristic already."""
        if not self.exact_tricks or policy is self.heuristic_rollout:
            return policy
        return NearRollout(self.heuristic_rollout, policy, self.rules,
                           tricks_done + self.exact_tricks)

    def _value(self, v: np.ndarray) -> np.ndarray:
        """Score ``float64[...]`` of rollout results ``v float64[..., 3]`` (level reward, side
        points, side) under the ``value`` option: ``"levels"``: level reward + ``points_weight``
        × side points / level step; ``"win"``: ±1 for the hand won or lost + the same points
        term; ``"soft"``: ``tanh(margin / (level step / 2))``, the margin being the side's
        points past the take-over threshold (2 level steps; a smooth hand-won indicator)."""
        reward, pts, side = v[..., 0], v[..., 1], v[..., 2]
        if self.value == "soft":
            margin = pts - side * (2 * self._step - 0.5)
            return np.tanh(margin / (self._step / 2))
        base = np.sign(reward) if self.value == "win" else reward
        return base + self.points_weight * pts / self._step

    def _incumbent(self, cands) -> int:
        """Index of the play the search must beat to deviate from: HeuristicAgent's (the
        second candidate when it differs from the rollout policy's), else the first."""
        keys = [play_key(c) for c in cands]
        h = self._heuristic_last
        return keys.index(play_key(h)) if h is not None and play_key(h) in keys else 0

    def _policy_play(self, one, leading: bool, choose) -> np.ndarray:
        """The whole play ``choose`` (obs, mask → actions) makes from the one-game state ``one``
        (seat 0 to act, empty selection), built by setting the selection (no engine step)."""
        s = one.take([0])
        n = int(s.lead_n[0])
        sel = np.zeros(54, dtype=np.int64)
        while True:
            s.selection[0] = sel
            s.mask = None
            m = self.plan_engine.legal_mask(s)
            a = int(choose(self.plan_engine.observe(s), m)[0])
            if a == END:
                return sel
            if not (0 <= a < 54 and m[0, a]):
                raise RuntimeError(f"rollout policy chose illegal action {a}")
            sel[a] += 1
            if not leading and sel.sum() == n:
                return sel

    def _heuristic_play(self, one, leading: bool) -> np.ndarray:
        def choose(o, m):
            return np.array([self.heuristic.act({"observation": o[0], "action_mask": m[0]})])
        return self._policy_play(one, leading, choose)

    def _candidates(self, view, one, ours: np.ndarray) -> list[np.ndarray]:
        """At most ``candidates`` whole plays: ours, the heuristic's, then by prior."""
        ctx = TrumpContext.from_rules(view.level, view.trump, self.rules)
        if view.leading:
            unseen = self.rules.decks - view.hand.astype(np.int64) - view.played.sum(0)
            if view.dealer == 0:
                unseen = unseen - view.kitty
            pool = lead_plays(view.hand, ctx, unseen)
        else:
            lead = view.trick[view.trick_leader]
            s = one.take([0])
            root = self.prior.log_probs(self.plan_engine.observe(s), self.plan_engine.legal_mask(s))
            pool = follow_plays(view.hand, lead, ctx, self.rules, cap=self.follow_cap,
                                preference=np.nan_to_num(root[0, :54], neginf=-1e9))
        first = [ours]
        self._heuristic_last = None
        if self.candidates > 1:
            self._heuristic_last = self._heuristic_play(one, view.leading)
            first.append(self._heuristic_last)
        out, seen = [], set()
        for p in first:
            if play_key(p) not in seen:
                seen.add(play_key(p))
                out.append(p)
        if view.leading and self.throws:
            # risky throws: the prior network (an imitation of the heuristic, which never makes
            # one) ranks them last, so the best ``throws`` of them by the prior get their own
            # places, after ours and the heuristic's
            risky = [p for p in risky_throws(view.hand, ctx, np.maximum(unseen, 0))
                     if play_key(p) not in seen]
            if risky:
                prior = self._chain_log_probs(one, np.stack(risky), True)
                for i in np.argsort(-prior, kind="stable")[:self.throws]:
                    seen.add(play_key(risky[i]))
                    out.append(risky[i])
        rest = [p for p in pool if play_key(p) not in seen]
        if len(out) < self.candidates and rest:
            prior = self._chain_log_probs(one, np.stack(rest), view.leading)
            for i in np.argsort(-prior, kind="stable")[:self.candidates - len(out)]:
                out.append(rest[i])
        if len(pool) <= 1 and len(out) > 1:  # one legal play: nothing to compare
            out = out[:1]
        return out[:self.candidates]

    def _chain_log_probs(self, one, plays: np.ndarray, leading: bool) -> np.ndarray:
        """``float64[C]`` — log-probability that the prior network makes each play, card by
        card, taking the play's cards in the order it likes best (then ``END`` for a lead)."""
        C = len(plays)
        s = one.take(np.zeros(C, dtype=np.int64))
        sel = np.zeros((C, 54), dtype=np.int64)
        logp = np.zeros(C)
        n = plays.sum(1)
        ended = np.zeros(C, dtype=bool)
        for _ in range(int(n.max()) + int(leading)):
            todo = sel.sum(1) < n
            closing = ~todo & leading & ~ended
            if not (todo | closing).any():
                break
            s.selection[:] = sel
            s.mask = None
            lp = self.prior.log_probs(self.plan_engine.observe(s), self.plan_engine.legal_mask(s))
            card_lp = np.where((plays - sel) > 0, lp[:, :54], -np.inf)
            c = card_lp.argmax(1)
            rows = np.flatnonzero(todo)
            logp[rows] += card_lp[rows, c[rows]]
            sel[rows, c[rows]] += 1
            logp[closing] += lp[closing, END]
            ended |= closing
        return np.nan_to_num(logp, neginf=-1e9)


def _for_decision(policy, K: int, rng: np.random.Generator):
    """``policy`` ready for one decision's batch: a ``SampledRollout`` draws its noise from the
    decision's stream (decisions stay reproducible), shared by the ``K`` candidates of each
    world (rows are world-major); any other policy as it is."""
    if isinstance(policy, SampledRollout):
        policy.group, policy.rng = K, np.random.default_rng(rng.integers(2**63))
    return policy


def _plan_actions(plays: np.ndarray, leading: bool) -> np.ndarray:
    """``int64[B, L]`` — each play's cards as actions (ascending ids), then ``END`` for a lead;
    padded with -1."""
    n = plays.sum(1)
    L = int(n.max()) + int(leading)
    out = np.full((len(plays), L), -1, dtype=np.int64)
    for i, p in enumerate(plays):
        ids = np.repeat(np.arange(54), p)
        out[i, :ids.size] = ids
        if leading:
            out[i, ids.size] = END
    return out
