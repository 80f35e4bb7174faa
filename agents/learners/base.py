"""The ``Learner`` interface: what ``train.py`` asks of a training method.

Every update the trainer calls, for the learner of the current stage::

    lr = learner.learning_rate(update)        # set on the shared optimizer
    batch, stats = learner.collect(update)    # play hands (agents.learners.rollout)
    losses = learner.update(batch, update)    # change the network
    learner.log(writer, stats, losses, step)  # TensorBoard scalars (defaults below)
    learner.after_update(update)              # e.g. add a snapshot to an opponent pool

and ``state_dict()`` / ``load_state_dict()`` for what the learner keeps across updates (an
opponent pool, say), saved in checkpoints under its name.

A learner whose collection depends only on the network's weights and its ``state_dict()``
sets ``supports_workers = True``: then ``distributed.workers`` Ray actors
(``agents.learners.distributed``) each build the same learner around their own env and run
``collect``, and the trainer combines their batches with ``merge``. The network, the optimizer and the
random generators belong to the trainer (``TrainContext``): a schedule of learners (imitation,
then PPO) trains one network, and a resumed run continues every stream exactly.

A learner declares its options as a dataclass ``Options`` built with ``agents.config.option``
(validated and listed by ``train.py --help``); ``stats`` must hold ``"decisions"`` (decisions
played, for ``global_step``) and ``"hands"``; it may hold the collection's time breakdown
(``TIMING``: wall seconds in the engine, in the learner's choosing, in network forward passes),
which ``Learner.log`` writes under ``perf/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

__all__ = ["TIMING", "Learner", "TrainContext", "option_agent"]

#: timing keys of a learner's ``stats`` (seconds of this update's collection)
TIMING = ("engine_s", "act_s", "forward_s", "candidates_s")


def option_agent(options, key: str, rules):
    """The agent named by ``options.<key>`` (an agent spec) for ``rules``; an error names the
    key. Learners build their teachers and opponents with it in ``__init__`` and in
    ``check_runnable`` (before a run folder is made), so a bad spec is one config error."""
    from ..specs import resolve

    try:
        return resolve(getattr(options, key), rules)
    except (ValueError, TypeError, OSError) as e:
        raise type(e)(f"{key}: {e}") from None


@dataclass
class TrainContext:
    """What the trainer gives every learner.

    ``rules``; ``venv`` (a ``VecEnv`` of ``run.num_envs`` games, reseeded every update);
    ``net`` (the ``PolicyValueNet`` being trained, on the CPU: rollouts use it) and
    ``make_net()`` (a fresh one of the same shape, e.g. for opponents); ``learn_net`` (the same
    network on ``device``, what updates change — ``net`` itself on the CPU; the trainer copies
    its weights into ``net`` after every update); ``optimizer`` (over ``learn_net``);
    ``np_rng`` (numpy: draws, minibatch order) and ``gen`` (torch: action sampling) — the only
    sources of randomness; ``seed`` and
    ``hands_per_env`` (``run`` section); ``total_updates``; ``stage_start`` / ``stage_updates``
    (this stage's first update and length, 0 = until the end).
    """

    rules: object
    venv: object
    net: object
    make_net: object
    optimizer: object
    np_rng: np.random.Generator
    gen: object
    seed: int
    hands_per_env: int
    total_updates: int
    stage_start: int = 1
    stage_updates: int = 0
    learn_net: object = None
    device: str = "cpu"

    def __post_init__(self):
        if self.learn_net is None:
            self.learn_net = self.net


class Learner:
    """Base class of training methods (see the module docstring)."""

    name: ClassVar[str] = "learner"
    Options: ClassVar[type]
    supports_workers: ClassVar[bool] = False
    only_stage: ClassVar[bool] = False  #: refused inside a schedule of learners (config check)

    def __init__(self, options, ctx: TrainContext):
        self.options, self.ctx = options, ctx

    @classmethod
    def prepare(cls, options, net, optimizer) -> None:
        """Change the trainer's network and optimizer before training or resuming, e.g. add a
        head and its parameters (default: nothing); called for ``ctx.learn_net`` by the
        learner itself and for a checkpoint's check by ``runs.check_runnable``."""

    def learning_rate(self, update: int) -> float:
        """Step size for ``update`` (default: the options' ``learning_rate``)."""
        return float(self.options.learning_rate)

    def collect(self, update: int):
        raise NotImplementedError

    def update(self, batch, update: int) -> dict:
        raise NotImplementedError

    def log(self, writer, stats: dict, losses: dict, global_step: int) -> None:
        """Losses under ``losses/``, the collection's ``TIMING`` under ``perf/``; subclasses add
        their own sections."""
        for k, v in losses.items():
            writer.add_scalar(f"losses/{k}", v, global_step)
        for k in TIMING:
            if stats.get(k) is not None:
                writer.add_scalar(f"perf/{k}", stats[k], global_step)

    @staticmethod
    def log_hands(writer, stats: dict, global_step: int) -> None:
        """The finished hands' ``charts/``: mean |reward|, length, attackers' points (and the
        take-over rate when the learner counts it)."""
        names = {"abs_return": "episodic_return_abs", "length": "episodic_length",
                 "attacker_points": "attacker_points", "takeover_rate": "takeover_rate"}
        for key, tag in names.items():
            if stats.get(key) is not None:
                writer.add_scalar(f"charts/{tag}", stats[key], global_step)

    def after_update(self, update: int) -> None:
        """Called after every update of this learner's stage."""

    def progress(self, stats: dict, losses: dict) -> dict:
        """A few numbers for the progress bar."""
        return {}

    def merge(self, results: list) -> tuple:
        """One ``(batch, stats)`` from several workers' ``collect`` results (needed only with
        ``supports_workers``)."""
        raise NotImplementedError

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Restore what ``state_dict`` returned."""
