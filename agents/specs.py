"""Agent specs: one grammar and one resolver for every place that names an agent.

``shengji-eval``, ``shengji-play``, the trainer's evaluation and the web table all turn a
text *spec* into a ``Policy`` with ``resolve(spec, rules)``. A spec is::

    NAME[?KEY=VALUE[&KEY=VALUE ...]]

where ``NAME`` is, in the order tried:

* a built-in agent: ``random``, ``heuristic``, ``pimc`` (the search agent, ``agents.search``),
  ``bot`` (the shipped trained network, ``agents.bot``) (``BUILTIN``; more are added with
  ``register``);
* a name registered by an installed package in the entry-point group ``shengji_rl.agents``
  (``[project.entry-points."shengji_rl.agents"] mybot = "mypkg.bots:make_bot"``);
* a checkpoint file written by ``train.py``, or a run folder (its newest checkpoint);
* ``module:attr`` — a ``Policy`` instance, or a class / factory called with the ``Rules``.

Options after ``?`` are passed to the factory as keyword arguments; values are read as YAML
scalars (``worlds=32`` is an int, ``sample=true`` a bool, ``name=x`` a string), e.g.
``heuristic?strict=true`` or ``runs/x?sample=true``. ``?`` cannot clash with ``module:attr``
(no Python name holds it). A factory that does not take an option gets a clear error naming it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

from shengji_env import Rules

from .base import Policy
from .config import import_object, parse_scalar

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "AgentSpec", "parse", "register", "resolve"]

ENTRY_POINT_GROUP = "shengji_rl.agents"


#: built-in name → factory (called with the rules and the options), or its "module:attr"
#: (imported when first named: baselines are cheap, search and trained bots import torch)
BUILTIN: dict[str, str | Callable[..., Policy]] = {
    "random": "agents.baselines.random:RandomAgent",
    "heuristic": "agents.baselines.heuristic:HeuristicAgent",
    "pimc": "agents.search:PIMCAgent",  # Monte-Carlo search, e.g. pimc?worlds=24&candidates=6
    "bot": "agents.bot:BotAgent",  # the shipped trained network (agents/bot), e.g. bot?sample=true
}


def register(name: str, factory: str | Callable[..., Policy]) -> None:
    """Make ``name`` a spec: ``factory(rules, **options)`` (or the ``"module:attr"`` naming it)
    builds the policy."""
    if not name.isidentifier():
        raise ValueError(f"agent name {name!r} must be an identifier (letters, digits, _)")
    BUILTIN[name] = factory


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: ``name`` and its ``options`` (keyword arguments for the factory)."""

    name: str
    options: dict = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + "?" + "&".join(f"{k}={v}" for k, v in self.options.items())


def parse(spec: str, paths: bool = True) -> AgentSpec:
    """Split ``NAME?KEY=VALUE&...`` into name and typed options; ``ValueError`` on bad syntax.

    ``paths=False``: never look at the file system (an existing path holding ``?`` is split like
    any spec), so the answer says nothing about which files exist — for untrusted callers."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec {spec!r}: expected a name such as 'heuristic'")
    if paths and Path(spec).exists():  # a path that happens to hold '?' is still a path
        return AgentSpec(spec)
    name, sep, query = spec.partition("?")
    options = {}
    if sep:
        for part in query.split("&"):
            key, eq, raw = part.partition("=")
            if not eq or not key.strip().isidentifier():
                raise ValueError(f"agent spec {spec!r}: option {part!r} must be KEY=VALUE "
                                 "(e.g. heuristic?strict=true)")
            options[key.strip()] = parse_scalar(raw) if raw.strip() else ""
    return AgentSpec(name.strip(), options)


def _entry_point(name: str):
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return ep
    return None


def known_names() -> list[str]:
    """Built-in and registered agent names (for messages and ``--help``)."""
    return sorted(set(BUILTIN) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def resolve(spec: str | AgentSpec, rules: Rules) -> Policy:
    """The policy named by ``spec`` for ``rules`` (see the module docstring)."""
    parsed = parse(spec) if isinstance(spec, str) else spec
    name, options = parsed.name, parsed.options
    if name in BUILTIN:
        factory = BUILTIN[name]
        if isinstance(factory, str):
            factory = import_object(factory, "agent")
        return _as_policy(_build(factory, rules, options, str(parsed)), str(parsed))
    ep = _entry_point(name)
    if ep is not None:
        try:
            factory = ep.load()
        except Exception as e:  # noqa: BLE001 — a broken plug-in must not crash the caller
            raise ValueError(f"agent {name!r} (entry point {ep.value}) failed to load: {e}") from None
        return _as_policy(_build(factory, rules, options, str(parsed)), str(parsed))
    path = Path(name)
    if path.exists():
        from .checkpoint import load_policy  # imports torch: only when a checkpoint is named

        return load_policy(path, rules, **options)
    if ":" in name:
        obj = import_object(name, "agent")
        if inspect.isclass(obj) or (callable(obj) and not isinstance(obj, Policy)):
            obj = _build(obj, rules, options, str(parsed))
        elif options:
            raise ValueError(f"agent {str(parsed)!r}: {name} is an instance; options need a "
                             "class or factory")
        return _as_policy(obj, str(parsed))
    raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(known_names())}, a "
                     "'module:attr' naming a Policy, or a checkpoint file or run folder "
                     "(options: NAME?KEY=VALUE&...)")


def _as_policy(obj, spec: str) -> Policy:
    if not isinstance(obj, Policy):
        raise ValueError(f"{spec!r} is a {type(obj).__name__}, not a Policy (it needs "
                         "act(obs, rng) and act_batch(obs, mask, rng); see agents.base)")
    return obj


def _build(factory: Callable, rules: Rules, options: dict, spec: str):
    """Call a class or factory with the rules (if it takes an argument) and the options."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return factory(rules, **options)
    for args in ((rules,), ()):
        try:
            sig.bind(*args, **options)
        except TypeError:
            continue
        return factory(*args, **options)
    raise ValueError(f"{spec!r}: {getattr(factory, '__name__', factory)}{sig} does not take the "
                     f"Rules and the options {sorted(options)}")
