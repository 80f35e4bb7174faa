"""Expert iteration: the network learns the search agent's plays and values (issue 16).

The search agent (``PIMCAgent``, ``agents/search``; any agent spec naming one, e.g.
``pimc?worlds=4&recheck=4&candidates=4``) plays better than any learned policy here; this
learner distils it into the trainer's ``PolicyValueNet``, and optionally feeds the improved
network back as the search's rollout policy (the loop of expert iteration, Anthony et al. 2017).

**Collection** (``collect_search_labels``, on the shared rollout ``agents.learners.rollout``).
Every update plays ``hands_per_env`` fresh hands in each game of the ``VecEnv``. In each (game,
hand) of the first ``labelled_games`` games (0: all; the others play unrecorded hands by
``opponent`` alone, so a schedule can keep a PPO-sized ``run.num_envs``) ``labelled_seats``
seats (1: one seat, 2: one team, 4: all) are *labelled*: at each of
their decisions the search agent says what it would play (``PIMCAgent.act_with_options``), and
the seat is played by the search — or, with probability ``student_prob`` per (game, hand,
seat), by the student (the network, sampling; its states are labelled all the same: DAgger).
The other seats are played by ``opponent`` (an agent spec, default ``heuristic``; ``student``:
the network). A search runs once per play, at its first card; the plan's later cards are
labelled from the plan without a new search (cheap), declaring, the bury and a failed throw's
unit by ``HeuristicAgent`` (what the search agent plays there). Labels are every action that
makes the search's whole play (its remaining cards in any order), as
``imitation.teacher_targets`` labels the heuristic's.

**Targets.** The *policy* learns the chosen play (cross-entropy of the set of actions that make
it, as ``imitation``) mixed with a **soft target over the candidate plays** at every searched
decision: weights ``(1 − soft_mix) · [k = chosen] + soft_mix · softmax(values_all / T)`` over
the K candidates, each candidate standing for the set of its cards (any of which starts it);
the loss is ``−Σ_k w_k log π(cards of candidate k)``. ``values_all`` is the candidate's mean
search score over every world the search played (``SearchRecord``: level reward + 0.25 × side
points per level step, in levels), ``T`` = ``soft_temperature`` in the same units. This
distils the search's ranking, not only its argmax, and leaves the critic alone.

The *value head* learns the return PPO's critic learns — the seat's final reward in the run's
``reward`` units minus ``shaping`` × the potential (``ppo.potential``), so the next PPO stage
starts with a calibrated critic. ``value_mix`` > 0 replaces that share of the target, at
searched decisions, by the search's estimate of the same quantity: the mean over the search's
worlds of the chosen play's rollout outcome converted to the run's reward (``search_returns``:
``levels`` as is, ``win`` ±1 from the take-over threshold, ``points`` as the engine's clipped
points reward), minus the same potential. It is lower-variance than one hand's result but biased
by the rollout policy and by uniform worlds; ``expert/search_value_bias`` (mean search value −
actual return at searched decisions) and ``expert/search_value_mse`` measure how far. Default 0:
calibration first.

**Cost and logs.** The search runs inside ``collect``: its time is training time. TensorBoard
gets ``expert/labels`` (labelled decisions), ``expert/searches`` (searches with a choice of
plays), ``expert/labels_per_s`` and ``expert/searches_per_s`` (per second of this update's wall
time, collection and learning; ``…_per_cpu_s``: per second of this process's CPU time, which a
shared machine does not distort), ``expert/search_s_share`` (share of the update's wall time
inside the search agent), ``expert/agreement`` (the student's greedy action is in the label, on
the fresh labelled decisions that have a choice, before the update), ``expert/agreement_searched``
(the same at searched decisions: first cards), ``expert/search_changed`` (share of searches that
left the heuristic's play), the value diagnostics above, and ``perf/`` like the other learners.

**Expert iteration's loop.** ``rollout_every`` = N > 0: after every N updates of the stage the
search's rollout policy (and candidate prior) becomes a frozen copy of the current student
(``agents.search.rollout.NetRollout`` takes any ``PolicyValueNet`` without a play head). The
copy's weights are part of the learner's state (checkpoints), so a resume is exact.

**Determinism.** The search's seed is drawn from (its spec's ``seed``, the run seed, the update)
and its plan cache cleared at every update (``PIMCAgent.reseed``), so a resumed run labels the
same states the same way; specs with ``time_ms`` or ``seed=none`` (not reproducible) are refused.

**Pilot** (README, "Learning from search"; ``configs/expert_iteration.yaml`` from the shipped
rollout network, default ``pimc`` search, 8 updates of 8 labelled hands, 7.6 minutes on a
shared core): 7.7 labels and 4.0 searches per second of training wall time (12.6 and 6.6 per
CPU second), 95% of it inside the search; the student's greedy action makes the search's
play at 77% of the labelled decisions with a choice and 65% of the searched first cards,
unchanged over those 8 updates;
against the heuristic 33% of 100 hands after, 37% before (paired: 9 vs 13 hands won by one
only — no measurable change). The recipe's full length was not run: strength not measured yet.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from shengji_env.core.observe import layout

from ..config import ConfigError, option
from .base import Learner, option_agent
from .imitation import choice_hits, target_log_prob
from .nets import MASKED_LOGIT, masked_distribution
from .ppo import potential
from .rollout import play_hands

__all__ = ["ExpertBatch", "ExpertIterationLearner", "collect_search_labels", "expert_update",
           "search_returns", "soft_weights"]

STUDENT = "student"


@dataclass
class ExpertBatch:
    """M labelled decisions: ``obs`` float32[M, N]; ``mask`` bool[M, A]; ``targets`` bool[M, A]
    (every action that makes the search's play); ``sets`` bool[M, K, A] and ``weights``
    float32[M, K] (the policy target: weight ``weights[i, k]`` on the set ``sets[i, k]``; one
    set of weight 1 — the targets — where no search ran); ``returns`` float32[M] (value target);
    ``searched`` bool[M] (a search with a choice of plays ran here)."""

    obs: np.ndarray
    mask: np.ndarray
    targets: np.ndarray
    sets: np.ndarray
    weights: np.ndarray
    returns: np.ndarray
    searched: np.ndarray

    def __len__(self) -> int:
        return int(self.targets.shape[0])


def search_returns(outcomes: np.ndarray, reward: str, level_step: float) -> np.ndarray:
    """The run's ``reward`` (``levels``, ``win``, ``points``, as the engine scores a hand) of
    rollout outcomes ``float64[..., 3]`` (``SearchRecord.outcomes``: the seat's level reward,
    its side's points, its side ±1), from the searching seat's side: ``float64[...]``."""
    level, side_points, side = outcomes[..., 0], outcomes[..., 1], outcomes[..., 2]
    if reward == "levels":
        return level
    attackers = side_points * side  # the attackers' points
    if reward == "win":
        return side * np.where(attackers >= 2 * level_step, 1.0, -1.0)
    if reward == "points":
        return side * np.clip((attackers - 2 * level_step) / (2 * level_step), -1, 1)
    raise ValueError(f"reward={reward!r}; expected 'levels', 'win' or 'points'")


def soft_weights(values: np.ndarray, chosen: int, mix: float, temperature: float) -> np.ndarray:
    """``float64[K]`` — ``(1 − mix)`` on the chosen candidate plus ``mix`` × the softmax of the
    candidates' ``values`` / ``temperature``; sums to 1."""
    z = np.asarray(values, dtype=np.float64) / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    w = mix * p
    w[chosen] += 1 - mix
    return w


def collect_search_labels(venv, search, net: nn.Module, *, seed: int, update: int,
                          hands_per_env: int, labelled_seats: int, student_prob: float,
                          labelled_games: int = 0,
                          opponent, np_rng: np.random.Generator, gen: torch.Generator,
                          reward: str, shaping: float = 0.0, soft_mix: float = 0.0,
                          soft_temperature: float = 1.0, value_mix: float = 0.0
                          ) -> tuple[ExpertBatch, dict]:
    """Play ``hands_per_env`` hands in every game of ``venv``, the labelled seats labelled (and,
    but where the student plays, played) by ``search`` (module docstring); ``opponent``: a
    ``Policy`` for the other seats, or ``None`` for the student. Returns the batch and
    statistics."""
    B, k = venv.num_envs, hands_per_env
    at = layout(venv.cfg)
    # candidate slots per label: a searched play has up to `candidates`, a searched bury `bury`
    K = max(int(search.candidates), int(getattr(search, "bury", 0)))
    step_pts = float(venv.cfg.level_step)
    rot = np_rng.integers(0, 4, size=(B, k))
    seat = np.arange(4)
    if labelled_seats == 4:
        labelled = np.ones((B, k, 4), dtype=bool)
    elif labelled_seats == 2:
        labelled = (seat[None, None, :] % 2) == (rot[..., None] % 2)
    else:
        labelled = seat[None, None, :] == rot[..., None]
    if labelled_games:  # the other games are played by the opponent alone, not recorded
        labelled[labelled_games:] = False
    student = labelled & (np_rng.random((B, k, 4)) < student_prob)
    clock = {"search_s": 0.0, "forward_s": 0.0, "searches": 0, "changed": 0}

    def sample(o, m):
        t = time.perf_counter()
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(o))
            dist = masked_distribution(logits, torch.from_numpy(m))
            out = torch.multinomial(dist.probs, 1, generator=gen).squeeze(1).numpy()
        clock["forward_s"] += time.perf_counter() - t
        return out

    def act(obs, mask, to_act, active, h, step):
        actions = mask.argmax(1).astype(np.int64)  # finished games: any legal action
        ar = np.arange(len(obs))
        lab = active & labelled[ar, h, to_act]
        rows = np.flatnonzero(lab)
        data = {}
        if rows.size:
            o, m = obs[rows], mask[rows]  # copies: the VecEnv overwrites its buffers
            t = time.perf_counter()
            acts, targets, records = search.act_with_options(o, m)
            clock["search_s"] += time.perf_counter() - t
            actions[rows] = acts
            mine = np.flatnonzero(student[rows, h[rows], to_act[rows]])
            if mine.size:
                actions[rows[mine]] = sample(o[mine], m[mine])
            sets = np.zeros((len(rows), K, m.shape[1]), dtype=bool)
            weights = np.zeros((len(rows), K), dtype=np.float32)
            sets[:, 0], weights[:, 0] = targets, 1.0
            value = np.full(len(rows), np.nan, dtype=np.float32)
            searched = np.zeros(len(rows), dtype=bool)
            for i, rec in enumerate(records):
                if rec is None or rec.values is None:
                    continue
                searched[i] = True
                clock["searches"] += 1
                clock["changed"] += int(rec.chosen != rec.incumbent)
                n = len(rec.candidates)
                sets[i], weights[i] = False, 0.0
                sets[i, :n, :54] = np.stack(rec.candidates) > 0
                sets[i, :n] &= m[i]
                weights[i, :n] = soft_weights(rec.values_all, rec.chosen, soft_mix,
                                              soft_temperature)
                value[i] = search_returns(rec.outcomes[:, rec.chosen], reward, step_pts).mean()
            data = {"obs": o, "mask": m, "targets": targets, "sets": sets, "weights": weights,
                    "search_value": value, "searched": searched}
        other = np.flatnonzero(active & ~lab)
        if other.size:
            if opponent is None:
                actions[other] = sample(obs[other], mask[other])
            else:
                actions[other] = opponent.act_batch(obs[other], mask[other], np_rng)
        return actions, rows, data

    t0, c0 = time.perf_counter(), time.process_time()
    chains = play_hands(venv, seed=seed, update=update, hands_per_env=k, act=act)
    d = chains.data
    actual = chains.final_reward_of_rows().astype(np.float64)
    phi = shaping * potential(d["obs"], at) if shaping else 0.0
    returns = actual - phi
    searched = d["searched"]
    sv = d["search_value"].astype(np.float64)
    if value_mix:
        returns = np.where(searched, (1 - value_mix) * returns + value_mix * (sv - phi), returns)
    batch = ExpertBatch(d["obs"], d["mask"], d["targets"], d["sets"], d["weights"],
                        returns.astype(np.float32), searched)
    # the student's agreement with the search before it learns from these (fresh) states
    t = time.perf_counter()
    with torch.no_grad():
        greedy = np.concatenate([
            net(torch.from_numpy(batch.obs[i:i + 4096]))[0]
            .masked_fill(~torch.from_numpy(batch.mask[i:i + 4096]), MASKED_LOGIT)
            .argmax(1).numpy() for i in range(0, len(batch), 4096)]) \
            if len(batch) else np.zeros(0, dtype=np.int64)
    clock["forward_s"] += time.perf_counter() - t
    hit = batch.targets[np.arange(len(batch)), greedy]
    choice = batch.mask.sum(1) > 1
    collect_s, collect_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    stats = {
        "hands": B * k, "decisions": chains.decisions, "labels": len(batch),
        "searches": clock["searches"], "search_s": clock["search_s"], "collect_s": collect_s,
        "collect_cpu_s": collect_cpu_s,
        "agreement": float(hit[choice].mean()) if choice.any() else None,
        "agreement_searched": float(hit[searched].mean()) if searched.any() else None,
        "search_changed": clock["changed"] / clock["searches"] if clock["searches"] else None,
        "search_value_bias": float((sv - actual)[searched].mean()) if searched.any() else None,
        "search_value_mse": float(((sv - actual) ** 2)[searched].mean())
        if searched.any() else None,
        "student_fraction": float(student.sum() / max(labelled.sum(), 1)),
        "abs_return": float(np.abs(chains.final_rewards[..., 0]).mean()),
        "length": float(chains.lengths.mean()),
        "attacker_points": float(chains.attacker_points.mean()),
        "engine_s": chains.engine_s, "act_s": chains.act_s, "forward_s": clock["forward_s"],
    }
    return batch, stats


def expert_update(net: nn.Module, optimizer: torch.optim.Optimizer, batch: ExpertBatch, *,
                  epochs: int, minibatch_size: int, vf_coef: float, max_grad_norm: float,
                  np_rng: np.random.Generator) -> dict:
    """``epochs`` passes of the policy target (``−Σ_k w_k log π(set_k)``) + ``vf_coef`` × half
    the squared value error over ``batch``; returns the last epoch's mean ``policy_loss``,
    ``hard_loss`` (the chosen play's cross-entropy, as ``imitation_loss``), ``accuracy`` (the
    argmax makes the search's play, decisions with a choice) and ``value_loss``."""
    device = next(net.parameters()).device

    def tensor(x):
        return torch.from_numpy(np.ascontiguousarray(x)).to(device)

    obs, mask, targets = tensor(batch.obs), tensor(batch.mask), tensor(batch.targets)
    sets, weights, ret = tensor(batch.sets), tensor(batch.weights), tensor(batch.returns)
    M = len(batch)
    chunks = max(1, round(M / minibatch_size))
    for _ in range(epochs):
        log = {"policy_loss": [], "hard_loss": [], "accuracy": [], "value_loss": []}
        for idx in np.array_split(np_rng.permutation(M), chunks):
            mb = torch.from_numpy(idx).to(device)
            logits, value = net(obs[mb])
            logp = masked_distribution(logits, mask[mb]).logits  # normalised log-probabilities
            # log π(set) for every candidate set [mb, K]; empty (padding) sets have weight 0
            set_lp = torch.logsumexp(logp[:, None, :].masked_fill(~sets[mb], MASKED_LOGIT), dim=2)
            pol = -(weights[mb] * set_lp).sum(1).mean()
            v_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
            loss = pol + vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                hard = -target_log_prob(logp, targets[mb]).mean()
                hit = choice_hits(logp, targets[mb], mask[mb])
            log["policy_loss"].append(pol.item())
            log["hard_loss"].append(hard.item())
            if hit.numel():
                log["accuracy"].append(hit.float().mean().item())
            log["value_loss"].append(v_loss.item())
    return {k: float(np.mean(v)) if v else float("nan") for k, v in log.items()}


@dataclass
class ExpertOptions:
    learning_rate: float = option(3.0e-4, "Adam step size", minimum=0, exclusive_min=True)
    search: str = option("pimc", "agent spec of the search agent that labels (a PIMCAgent, "
                         "e.g. pimc?worlds=4&recheck=4&candidates=4; no time_ms, no seed=none)")
    labelled_seats: int = option(2, "seats per (game, hand) labelled by the search: 1 (one "
                                 "seat), 2 (one team), 4 (all)", choices=(1, 2, 4))
    labelled_games: int = option(0, "games of the VecEnv with labelled seats (the first N); the "
                                 "others play opponent-only hands, not recorded — so a schedule "
                                 "can give PPO a larger run.num_envs than the search can label; "
                                 "0 = every game", minimum=0)
    student_prob: float = option(0.25, "share of labelled seats (per game and hand) played by "
                                 "the student instead of the search; their states are "
                                 "labelled too (DAgger)", minimum=0, maximum=1)
    opponent: str = option("heuristic", "agent spec of the unlabelled seats, or 'student' (the "
                           "network, sampling)")
    soft_mix: float = option(0.25, "weight of the softmax over the candidates' search values in "
                             "the policy target (0: the chosen play only)", minimum=0, maximum=1)
    soft_temperature: float = option(0.1, "temperature of that softmax, in the search's score "
                                     "units (levels)", minimum=0, exclusive_min=True)
    value_mix: float = option(0.0, "share of the value target, at searched decisions, taken "
                              "from the search's value of its chosen play (0: the actual "
                              "return only, as PPO's critic)", minimum=0, maximum=1)
    shaping: float = option(0.0, "potential-based shaping of the value target (as PPO's)",
                            minimum=0)
    vf_coef: float = option(0.5, "value loss coefficient", minimum=0)
    epochs: int = option(2, "passes over each update's labelled decisions", minimum=1)
    minibatch_size: int = option(512, "decisions per gradient step", minimum=1)
    max_grad_norm: float = option(0.5, "gradient norm clipping", minimum=0, exclusive_min=True)
    rollout_every: int = option(0, "every N updates of the stage the search's rollout policy and "
                                "prior become a copy of the student (expert iteration's loop); "
                                "0 = never", minimum=0)

    def check(self, where: str) -> None:
        """The search spec's syntax and reproducibility (the agent itself is checked with the
        rules by ``ExpertIterationLearner.check_runnable``)."""
        from ..specs import parse

        try:
            spec = parse(self.search, paths=False)
        except ValueError as e:
            raise ConfigError(f"learner.expert_iteration.search ({where}): {e}") from None
        if spec.options.get("time_ms") not in (None, ""):
            raise ConfigError(f"learner.expert_iteration.search={self.search!r} ({where}): "
                              "time_ms makes the labels depend on the machine's speed; resumes "
                              "could not be exact. Use worlds= instead")
        if "seed" in spec.options and spec.options["seed"] in (None, "none", ""):
            raise ConfigError(f"learner.expert_iteration.search={self.search!r} ({where}): "
                              "seed=none is not reproducible; give an int (or leave it out)")


def _search_agent(options: ExpertOptions, rules):
    """The search agent of ``options`` for ``rules``; ``ValueError`` if it is not one."""
    agent = option_agent(options, "search", rules)
    if not all(hasattr(agent, a) for a in ("act_with_options", "reseed", "candidates")):
        raise ValueError(f"learner.expert_iteration.search={options.search!r} is "
                         f"{type(agent).__name__}, not a search agent (expected a PIMCAgent: "
                         "pimc or agents.search:PIMCAgent with options)")
    return agent


class ExpertIterationLearner(Learner):
    """Distils the search agent's plays and values into the network (module docstring)."""

    name = "expert_iteration"
    Options = ExpertOptions

    def __init__(self, options: ExpertOptions, ctx):
        super().__init__(options, ctx)
        self.search = _search_agent(options, ctx.rules)
        self.opponent = (None if options.opponent == STUDENT
                         else option_agent(options, "opponent", ctx.rules))
        self.spec_seed = int(self.search.seed) if self.search.seed is not None else 0
        self.rollout_update = 0  # the update whose student is the search's rollout (0: none)
        self._rollout_state: dict | None = None
        self._update_s = self._update_cpu_s = 0.0

    @classmethod
    def check_runnable(cls, options: ExpertOptions, rules) -> None:
        """Build the search and the opponent for ``rules`` (called before a run folder is made:
        a bad spec is a config error)."""
        _search_agent(options, rules)
        if options.opponent != STUDENT:
            option_agent(options, "opponent", rules)

    def _in_stage(self, update: int) -> bool:
        c = self.ctx
        return update >= c.stage_start and (not c.stage_updates
                                            or update < c.stage_start + c.stage_updates)

    def collect(self, update: int):
        o, c = self.options, self.ctx
        seq = np.random.SeedSequence([self.spec_seed, int(c.seed), int(update)])
        self.search.reseed(int(seq.generate_state(1)[0]))
        return collect_search_labels(
            c.venv, self.search, c.net, seed=c.seed, update=update, hands_per_env=c.hands_per_env,
            labelled_seats=o.labelled_seats, student_prob=o.student_prob,
            labelled_games=o.labelled_games, opponent=self.opponent,
            np_rng=c.np_rng, gen=c.gen, reward=c.venv.engine.reward, shaping=o.shaping,
            soft_mix=o.soft_mix, soft_temperature=o.soft_temperature, value_mix=o.value_mix)

    def update(self, batch: ExpertBatch, update: int) -> dict:
        o, c = self.options, self.ctx
        t, cpu = time.perf_counter(), time.process_time()
        out = expert_update(c.learn_net, c.optimizer, batch, epochs=o.epochs,
                            minibatch_size=o.minibatch_size, vf_coef=o.vf_coef,
                            max_grad_norm=o.max_grad_norm, np_rng=c.np_rng)
        self._update_s = time.perf_counter() - t
        self._update_cpu_s = time.process_time() - cpu
        return out

    def after_update(self, update: int) -> None:
        n = self.options.rollout_every
        if n and self._in_stage(update) and (update - self.ctx.stage_start + 1) % n == 0:
            state = {k: v.detach().clone() for k, v in self.ctx.learn_net.state_dict().items()}
            self._use_rollout(state, update)

    def _use_rollout(self, state: dict, update: int) -> None:
        """The search's rollout policy and prior become the network of weights ``state``; a
        search with ``rollout_temperature`` > 0 samples the student's rollouts at that
        temperature, as it sampled the network it was built with (the prior stays greedy)."""
        from agents.search.rollout import NetRollout, SampledRollout

        net = self.ctx.make_net()
        net.load_state_dict(state)
        net.eval()
        if getattr(net, "play_head", 0):
            raise ValueError("the student has a play head (DMC); the search's rollout plays "
                             "the card-by-card policy of a PolicyValueNet without one")
        roll = NetRollout(net)
        self.search.prior = roll
        temperature = getattr(self.search, "rollout_temperature", 0.0)
        self.search.rollout = SampledRollout(roll, temperature) if temperature > 0 else roll
        self.search.rollout_name = f"student@{update}"
        self._rollout_state, self.rollout_update = state, int(update)

    def state_dict(self) -> dict:
        if self._rollout_state is None:
            return {"rollout_update": 0}
        return {"rollout_update": self.rollout_update, "rollout": copy.copy(self._rollout_state)}

    def load_state_dict(self, state: dict) -> None:
        if state.get("rollout_update"):
            self._use_rollout(state["rollout"], state["rollout_update"])

    def log(self, writer, stats: dict, losses: dict, global_step: int) -> None:
        super().log(writer, stats, losses, global_step)
        wall = stats["collect_s"] + self._update_s
        writer.add_scalar("expert/labels", stats["labels"], global_step)
        writer.add_scalar("expert/searches", stats["searches"], global_step)
        writer.add_scalar("expert/labels_per_s", stats["labels"] / wall, global_step)
        writer.add_scalar("expert/searches_per_s", stats["searches"] / wall, global_step)
        cpu = max(stats["collect_cpu_s"] + self._update_cpu_s, 1e-9)  # robust to a busy machine
        writer.add_scalar("expert/labels_per_cpu_s", stats["labels"] / cpu, global_step)
        writer.add_scalar("expert/searches_per_cpu_s", stats["searches"] / cpu, global_step)
        writer.add_scalar("expert/search_s_share", stats["search_s"] / wall, global_step)
        writer.add_scalar("expert/student_fraction", stats["student_fraction"], global_step)
        writer.add_scalar("expert/rollout_update", self.rollout_update, global_step)
        for key in ("agreement", "agreement_searched", "search_changed", "search_value_bias",
                    "search_value_mse"):
            if stats[key] is not None:
                writer.add_scalar(f"expert/{key}", stats[key], global_step)
        self.log_hands(writer, stats, global_step)

    def progress(self, stats: dict, losses: dict) -> dict:
        agree = stats["agreement_searched"]
        return {"labels": stats["labels"], "agree": "-" if agree is None else f"{agree:.3f}"}
