"""Learners: training methods plugged into ``train.py``, and what they share.

* ``base`` — the ``Learner`` interface (collect, update, state for checkpoints) and the
  ``TrainContext`` the trainer hands every learner (rules, env, network, optimizer, rngs);
* ``rollout`` — one shared rollout: whole hands in a ``VecEnv``, per-seat decision chains;
* ``nets`` (``PolicyValueNet``), ``pool`` (opponent pool);
* ``ppo`` (``PPOLearner``: self-play PPO; ``critic`` its perfect-information critic),
  ``imitation`` (``ImitationLearner``: behaviour cloning with DAgger), ``dmc`` (``DMCLearner``:
  Deep Monte-Carlo over whole plays; ``play_q`` its Q head, action features and greedy policy),
  ``expert`` (``ExpertIterationLearner``: distils the search agent's plays and values);
* ``config`` — the trainer's config sections; ``runs`` — the run folder's logs and table;
* ``distributed`` — rollout workers on Ray (``distributed.workers``).

The config's ``learner:`` key names a learner (or a schedule of them): a built-in name
(``LEARNERS``), a name in the entry-point group ``shengji_rl.learners``, or ``module:attr``
naming a ``Learner`` subclass — so a package (or a test) adds a learner without editing this one.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from ..config import import_object

__all__ = ["ENTRY_POINT_GROUP", "LEARNERS", "learner_class"]

ENTRY_POINT_GROUP = "shengji_rl.learners"
LEARNERS: dict[str, type] = {}


def _builtin() -> dict[str, type]:
    if not LEARNERS:  # imported lazily: these modules import torch
        from .dmc import DMCLearner
        from .expert import ExpertIterationLearner
        from .imitation import ImitationLearner
        from .ppo import PPOLearner

        LEARNERS.update({"ppo": PPOLearner, "imitation": ImitationLearner, "dmc": DMCLearner,
                         "expert_iteration": ExpertIterationLearner})
    return LEARNERS


def learner_class(name: str) -> type:
    """The ``Learner`` subclass named ``name`` (built-in, entry point, or ``module:attr``)."""
    from .base import Learner

    builtin = _builtin()
    if name in builtin:
        return builtin[name]
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if found:
        cls = found[0].load()
    elif ":" in name:
        cls = import_object(name, "learner")
    else:
        raise ValueError(f"unknown learner {name!r}; expected one of {', '.join(builtin)}, a name "
                         f"in the {ENTRY_POINT_GROUP!r} entry-point group, or 'module:Class'")
    if not (isinstance(cls, type) and issubclass(cls, Learner)):
        raise ValueError(f"learner {name!r} is {cls!r}, not a subclass of "
                         "agents.learners.base.Learner")
    return cls
