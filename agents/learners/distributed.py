"""Distributed rollouts on Ray: ``distributed.workers`` actors collect hands for one learner.

The actor-learner shape of DouZero and DanZero, on Ray core (not RLlib). Each worker is a Ray
actor owning a ``VecEnv`` of ``run.num_envs`` games, its own network and its own random
streams, and a copy of the stage's learner built from the config (so it collects exactly as the
learner would, ``Learner.collect``). The learner process keeps one task in flight per worker:

1. the current weights and the learner's worker state (the PPO opponent pool) are put in Ray's
   object store once per *version* (one version per update);
2. every worker collects a batch with the newest version it was given and returns it with that
   version; the learner takes ``batches_per_update`` finished batches (``ray.wait``), drops any
   whose version is more than ``max_policy_lag`` updates old (that worker collects again), and
   ``Learner.merge`` combines the rest; PPO's ratio uses the behaviour log-probabilities stored
   with every decision, which is what corrects for the lag;
3. each worker whose batch was taken gets a new task with the new version.

Workers are stateless (everything they need comes with the task) and restartable: a worker that
dies is replaced and its task resubmitted; the learner never blocks for more than
``timeout_s`` (then a clear error). Learner state and checkpoints stay exact; which hands are
collected is not deterministic (it depends on timing), so determinism tests use ``workers: 0``.

Supported learners: those with ``supports_workers`` (``ppo``); the others are refused at start.
Three ways with one config: ``workers: 0`` (no Ray), a local Ray started here
(``address: ""``, ``num_cpus``), or a running cluster (``address: auto`` with ``RAY_ADDRESS``,
or after ``ray start --head``).
"""

from __future__ import annotations

import time

import numpy as np

from ..config import ConfigError

__all__ = ["WorkerPool", "check_supported", "require_ray"]

TASK_BASE = 1 << 20  # task ids (the "update" seeding worker hands) start above any update count


def require_ray():
    """The ``ray`` module, or ``ConfigError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError('distributed.workers > 0 needs Ray: pip install -e ".[distributed]" '
                          '(Ray core; not ray[rllib])') from None
    return ray


def check_supported(cfg, first_update: int) -> None:
    """Refuse, before anything starts, a schedule stage that would run with workers but whose
    learner cannot collect in them."""
    from . import learner_class

    if cfg.distributed.workers == 0:
        return
    start = 1
    for i, stage in enumerate(cfg.learner):
        end = start + stage.updates - 1 if i < len(cfg.learner) - 1 else cfg.run.total_updates
        if end >= first_update and not learner_class(stage.name).supports_workers:
            raise ConfigError(
                f"learner {stage.name!r} cannot collect in distributed workers (it needs the "
                "learner process; ppo can); run that stage with distributed.workers: 0, then "
                "--resume RUN_DIR --set distributed.workers=N")
        start += stage.updates


def _worker_class(ray):
    @ray.remote(max_restarts=0)
    class RolloutWorker:
        """One collector: a VecEnv, a network and the stage's learner, rebuilt from the config."""

        def __init__(self, worker_id: int, config: dict, stage: int, threads: int):
            import torch

            from shengji_env import Rules
            from shengji_env.vector import VecEnv

            from . import config as train_config
            from . import learner_class
            from .base import TrainContext
            from .nets import PolicyValueNet

            torch.set_num_threads(threads)
            cfg = train_config.resolve(config, where="worker config")
            rules = Rules(**cfg.rules)
            m = cfg.model
            self.worker_id = worker_id

            def make_net():
                return PolicyValueNet(rules, hidden=m.hidden, blocks=m.blocks, card_head=m.card_head)

            self.net = make_net()
            seed = cfg.run.seed
            ctx = TrainContext(rules, VecEnv(cfg.run.num_envs, rules, seed=0, reward=cfg.run.reward),
                               self.net, make_net, None,
                               np.random.default_rng([seed, 7, worker_id]),
                               torch.Generator().manual_seed(seed * 7919 + worker_id), seed,
                               cfg.run.hands_per_env, cfg.run.total_updates)
            s = cfg.learner[stage]
            self.learner = learner_class(s.name)(s.options, ctx)

        def collect(self, task: int, version: int, weights, learner_state):
            start = time.perf_counter()
            self.net.load_state_dict(weights)
            self.learner.load_state_dict(learner_state)
            batch, stats = self.learner.collect(TASK_BASE + task)
            return {"batch": batch, "stats": stats, "version": version, "worker": self.worker_id,
                    "seconds": time.perf_counter() - start}

    return RolloutWorker


class WorkerPool:
    """The learner's side: workers, their tasks in flight, weight versions (module docstring)."""

    def __init__(self, cfg, stage: int):
        ray = self.ray = require_ray()
        d = cfg.distributed
        if not ray.is_initialized():
            if d.address:
                ray.init(address=d.address, log_to_driver=False)
            else:
                ray.init(num_cpus=d.num_cpus or d.workers + 1, include_dashboard=False,
                         log_to_driver=False)
        self.cfg, self.stage, self.config = cfg, stage, cfg.as_dict()
        self.Worker = _worker_class(ray)
        self.workers = [self._start(i) for i in range(d.workers)]
        self.in_flight: dict = {}  # object ref → worker index
        self.version, self.refs, self.tasks = -1, None, 0
        self.replaced = 0

    def _start(self, i: int):
        d = self.cfg.distributed
        return self.Worker.options(num_cpus=1).remote(i, self.config, self.stage, d.worker_threads)

    def publish(self, version: int, weights: dict, learner_state: dict) -> None:
        """Weights and learner state of ``version`` (put once, shared by every task)."""
        self.version = version
        self.refs = (self.ray.put(weights), self.ray.put(learner_state))

    def _submit(self, i: int) -> None:
        self.tasks += 1
        ref = self.workers[i].collect.remote(self.tasks, self.version, *self.refs)
        self.in_flight[ref] = i

    def collect(self) -> tuple[list, dict]:
        """``batches_per_update`` worker results no staler than ``max_policy_lag``, and perf
        numbers (lag, hands/s per worker, waiting time)."""
        d = self.cfg.distributed
        busy = set(self.in_flight.values())
        for i in range(len(self.workers)):
            if i not in busy:
                self._submit(i)
        want = d.batches_per_update or len(self.workers)
        got, lags, dropped, start = [], [], 0, time.perf_counter()
        while len(got) < want:
            ready, _ = self.ray.wait(list(self.in_flight), num_returns=1, timeout=d.timeout_s)
            if not ready:
                raise TimeoutError(f"no distributed worker returned hands within "
                                   f"distributed.timeout_s={d.timeout_s} s ({len(self.workers)} "
                                   "workers); is the Ray cluster alive and has it free CPUs?")
            ref = ready[0]
            i = self.in_flight.pop(ref)
            try:
                result = self.ray.get(ref)
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.WorkerCrashedError):
                self.workers[i] = self._start(i)  # replaced; collects again with the newest weights
                self.replaced += 1
                self._submit(i)
                continue
            lag = self.version - result["version"]
            if lag > d.max_policy_lag:
                dropped += 1
            else:
                got.append(result)
                lags.append(lag)
            if len(got) < want or lag > d.max_policy_lag:
                self._submit(i)
        perf = {"policy_lag": float(np.mean(lags)), "dropped_batches": dropped,
                "wait_s": time.perf_counter() - start, "replaced_workers": self.replaced,
                "hands_per_s": {r["worker"]: r["stats"]["hands"] / r["seconds"] for r in got}}
        return got, perf

    def kill(self, i: int) -> None:
        """Test hook: kill worker ``i`` (its task fails and it is replaced)."""
        self.ray.kill(self.workers[i], no_restart=True)

    def close(self) -> None:
        for w in self.workers:
            self.ray.kill(w)
        self.workers, self.in_flight = [], {}
