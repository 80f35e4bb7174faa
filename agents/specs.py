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
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
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
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"agent name {name!r} must be an identifier (letters, digits, _)")
    if not (callable(factory) or (isinstance(factory, str) and ":" in factory)):
        # found only when the name was first resolved, as "'int' object is not callable"
        raise TypeError(f"agent {name!r}: factory {factory!r} ({type(factory).__name__}) must be "
                        "callable or a 'module:attr' string naming one")
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
    if not name.strip():  # Path("") is the working folder: it would be loaded as a run folder
        raise ValueError(f"agent spec {spec!r}: no agent name before '?'; expected a name such "
                         "as 'heuristic?strict=true'")
    options = {}
    if sep:
        for part in query.split("&"):
            key, eq, raw = part.partition("=")
            if not eq or not key.strip().isidentifier():
                raise ValueError(f"agent spec {spec!r}: option {part!r} must be KEY=VALUE "
                                 "(e.g. heuristic?strict=true)")
            if key.strip() in options:  # the last would silently win
                raise ValueError(f"agent spec {spec!r}: option {key.strip()!r} is given twice; "
                                 "give each option once")
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
    if not isinstance(spec, str | AgentSpec):  # was "'int' object has no attribute 'name'"
        raise TypeError(f"agent spec {spec!r} ({type(spec).__name__}): expected a str such as "
                        "'heuristic?strict=true' or an AgentSpec")
    if rules is not None and not isinstance(rules, Rules):  # failed inside the agent
        raise TypeError(f"rules must be a shengji_env.Rules (or None: the defaults, or a "
                        f"checkpoint's training rules), got {type(rules).__name__} {rules!r:.60}")
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

        # through _build: its options are checked like a built-in's (runs/x?sample=maybe)
        return _build(partial(load_policy, path), rules, options, str(parsed))
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
        return factory(*args, **_checked_options(sig, options, spec))
    named = getattr(factory, "func", factory)  # a checkpoint's partial(load_policy, path)
    raise ValueError(f"{spec!r}: {getattr(named, '__name__', named)}{sig} does not take the "
                     f"Rules and the options {sorted(options)}")


#: the annotations an option's value is checked against (as written in a signature), and how a
#: message names what each allows
_KINDS = {"bool": "true or false", "int": "an integer", "float": "a finite number",
          "str": "a string", "None": "none", "NoneType": "none"}


def _kinds(annotation) -> list[str] | None:
    """``'int | None'`` (or ``int | None``) → ``['int', 'None']``; ``None`` when the annotation
    names anything else (then the factory checks the value itself)."""
    if annotation is inspect.Parameter.empty:
        return None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None) \
        if isinstance(annotation, type) else str(annotation)
    kinds = [k.strip() for k in (text or "").split("|")]
    return kinds if all(k in _KINDS for k in kinds) else None


def _fits(value, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if kind == "str":
        return isinstance(value, str)
    return value is None


def _checked_options(sig: inspect.Signature, options: dict, spec: str) -> dict:
    """``options`` checked against the factory's annotations: a spec's value is text, and a
    factory's ``int(worlds)`` or ``if sample:`` would silently turn ``worlds=2.5`` into 2 and
    ``sample=maybe`` into True (DESIGN.md §7). ``none`` or an empty value is ``None`` where
    ``None`` is allowed (``seed=none``)."""
    out = dict(options)
    for key, value in options.items():
        param = sig.parameters.get(key)
        kinds = None if param is None else _kinds(param.annotation)
        if kinds is None:
            continue
        allows_none = "None" in kinds or "NoneType" in kinds
        if allows_none and "str" not in kinds and isinstance(value, str) \
                and value.strip().lower() in ("", "none"):
            out[key] = None
        elif not any(_fits(value, k) for k in kinds):
            allowed = " or ".join(dict.fromkeys(_KINDS[k] for k in kinds))
            raise ValueError(f"agent {spec!r}: option {key}={value!r} is not allowed; expected "
                             f"{allowed}")
    return out
