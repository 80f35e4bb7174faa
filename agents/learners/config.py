"""The trainer's config: sections ``run``, ``rules``, ``model``, ``learner``, ``eval``, ``device``.

    run:     {name: quickstart, seed: 0, num_envs: 64, total_updates: 400}
    rules:   {decks: 2}                       # RULES.md §11 options; empty = the default rules
    model:   {hidden: 128, card_head: 16}
    learner:                                  # one learner, or a schedule of them
      - {name: imitation, updates: 30, learning_rate: 1.0e-3}
      - {name: ppo, learning_rate: 1.0e-4, sparring_prob: 0.5}
    eval:    {every: 40, opponents: {random: 25, heuristic: 10}, final_deals: 50}
    device:  {torch_threads: 1}

``learner`` is a name (``ppo``), a mapping (``name`` plus that learner's options) or a list of
stages; a stage runs for ``updates`` updates (the last one until ``run.total_updates``). Each
learner documents its own options (``Learner.Options``): ``python train.py --help`` lists them.
``--set SECTION.KEY=VALUE`` overrides one key (``learner.KEY`` for the only stage or the only
stage that has KEY, ``learner.STAGE.KEY`` by stage name, ``rules.OPTION``).

Flat configs of revision ``f438bb7`` and before (``num_envs: 64``, ``imitation_updates: 30`` …)
still load: ``from_flat`` maps every old key to its section and says which new key it became.
"""

from __future__ import annotations

import copy
import io
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..config import ConfigError, build, describe, option, parse_set, to_dict
from . import learner_class

__all__ = ["DeviceSection", "DistributedSection", "EvalSection", "ModelSection", "RunSection",
           "Stage", "TrainConfig", "from_flat", "load", "resolve"]

SECTIONS = ("run", "rules", "model", "learner", "eval", "device", "distributed")


@dataclass
class RunSection:
    name: str = option("ppo", "experiment name; the run folder is <run_root>/<name>__<seed>__<unix time>")
    seed: int = option(0, "seed of everything: games, network init, action sampling, minibatch order",
                       minimum=0, maximum=2**31 - 1)
    run_root: str = option("runs", "folder under which run folders are created")
    total_updates: int = option(100, "number of updates to run (all learner stages together)",
                                minimum=1)
    time_limit_minutes: float = option(0.0, "stop (with a checkpoint and the final evaluation) "
                                       "after this much wall time; 0 = none", minimum=0)
    num_envs: int = option(128, "games played in lockstep (VecEnv batch)", minimum=1)
    hands_per_env: int = option(1, "hands each game plays per update", minimum=1)
    reward: str = option("levels", "training reward (DESIGN.md §4); evaluation counts hands won",
                         choices=("levels", "points", "win"))
    checkpoint_every: int = option(10, "updates between checkpoints (one is always written at "
                                   "the end)", minimum=1)
    keep_checkpoints: int = option(3, "newest checkpoints kept in the run folder", minimum=1)


@dataclass
class ModelSection:
    hidden: int = option(256, "width of the network's trunk", minimum=1)
    blocks: int = option(1, "residual MLP blocks after the input layer", minimum=0)
    card_head: int = option(0, "width of the per-card head (agents.learners.nets); 0 = off",
                            minimum=0)
    init: str = option("", "start from the network of this checkpoint file or run folder "
                       "(e.g. agents/search/weights/rollout.pt); its shape must equal this "
                       "section's and its rules' layout these rules'; '' = random weights. "
                       "Ignored on --resume (the checkpoint holds the weights)")


@dataclass
class EvalSection:
    every: int = option(10, "updates between evaluations; 0 = only at the end", minimum=0)
    opponents: dict = option({"random": 50, "heuristic": 20}, "agent spec → duplicate deals "
                             "(2 hands each) per periodic evaluation (agents.specs); 0 = only "
                             "in the final table")
    final_deals: int = option(100, "duplicate deals per opponent in the final table", minimum=1)
    seed: int = option(12345, "seed of the fixed evaluation deals and the opponents' randomness",
                       minimum=0, maximum=2**31 - 1)
    sample: bool = option(False, "evaluate the sampled policy instead of the greedy one")


@dataclass
class DeviceSection:
    device: str = option("cpu", "where the network learns: cpu, cuda, or auto (cuda when a GPU is "
                         "available); rollouts always run on the CPU", choices=("cpu", "cuda", "auto"))
    torch_threads: int = option(1, "torch threads for the updates (2 helps on an idle 2-core "
                                "machine, hurts when busy)", minimum=1)
    collect_threads: int = option(1, "torch threads while playing hands", minimum=1)


def torch_device(section: DeviceSection) -> str:
    """The torch device of ``section.device``; ``ConfigError`` for cuda without a GPU."""
    import torch

    if section.device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if section.device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device.device=cuda, but torch finds no CUDA GPU "
                          "(torch.cuda.is_available() is False); use cpu or auto")
    return section.device


@dataclass
class DistributedSection:
    workers: int = option(0, "Ray actors collecting hands for the learner (agents.learners."
                          "distributed); 0 = collect in the training process", minimum=0)
    address: str = option("", "Ray cluster: '' starts a local Ray; 'auto' joins the running "
                          "cluster (RAY_ADDRESS or `ray start --head`); or 'host:port'")
    num_cpus: int = option(0, "CPUs of a local Ray (0: workers + 1)", minimum=0)
    worker_threads: int = option(1, "torch threads in each worker", minimum=1)
    max_policy_lag: int = option(1, "a batch collected with weights more than this many updates "
                                 "old is dropped and collected again", minimum=0)
    batches_per_update: int = option(0, "worker batches (each run.num_envs × run.hands_per_env "
                                     "hands) per update; 0 = one per worker", minimum=0)
    timeout_s: float = option(300.0, "seconds to wait for any worker before failing with an error",
                              minimum=0, exclusive_min=True)
    kill_worker_at_update: int = option(0, "test hook: kill worker 0 after this update (it is "
                                        "replaced); 0 = never", minimum=0)


@dataclass
class Stage:
    """One learner of the schedule: its name, how many updates it runs (0: until the end) and
    its options (an instance of the learner's ``Options``)."""

    name: str
    updates: int
    options: object

    def as_dict(self) -> dict:
        return {"name": self.name, "updates": self.updates, **to_dict(self.options)}


@dataclass
class TrainConfig:
    run: RunSection = field(default_factory=RunSection)
    rules: dict = field(default_factory=dict)
    model: ModelSection = field(default_factory=ModelSection)
    learner: list = field(default_factory=list)  # list[Stage]
    eval: EvalSection = field(default_factory=EvalSection)
    device: DeviceSection = field(default_factory=DeviceSection)
    distributed: DistributedSection = field(default_factory=DistributedSection)

    def as_dict(self) -> dict:
        """Plain python: what ``config.yaml`` and checkpoints hold."""
        return {"run": to_dict(self.run), "rules": dict(self.rules), "model": to_dict(self.model),
                "learner": [s.as_dict() for s in self.learner], "eval": to_dict(self.eval),
                "device": to_dict(self.device), "distributed": to_dict(self.distributed)}

    def stage_at(self, update: int) -> tuple[int, int]:
        """(stage index, first update of that stage) for 1-based ``update``."""
        start = 1
        for i, s in enumerate(self.learner):
            if i == len(self.learner) - 1 or update < start + s.updates:
                return i, start
            start += s.updates
        raise AssertionError("unreachable")


# ----------------------------------------------------------------------------- flat configs

_FLAT = {  # old key → (section, new key); learner keys: (stage, key)
    **{k: ("run", k) for k in ("name", "seed", "run_root", "total_updates", "time_limit_minutes",
                               "num_envs", "hands_per_env", "reward", "checkpoint_every",
                               "keep_checkpoints")},
    **{k: ("model", k) for k in ("hidden", "blocks", "card_head")},
    "torch_threads": ("device", "torch_threads"), "collect_threads": ("device", "collect_threads"),
    "eval_every": ("eval", "every"), "final_eval_deals": ("eval", "final_deals"),
    "eval_seed": ("eval", "seed"), "eval_sample": ("eval", "sample"),
    "eval_deals_random": ("eval", "opponents.random"),
    "eval_deals_heuristic": ("eval", "opponents.heuristic"),
    **{k: ("ppo", k) for k in ("learning_rate", "anneal_lr", "gamma", "gae_lambda",
                               "update_epochs", "minibatch_size", "clip_coef", "clip_vloss",
                               "ent_coef", "target_kl", "norm_adv", "pool_prob", "pool_size",
                               "pool_every", "sparring_prob")},
    **{k: ("ppo+imitation", k) for k in ("shaping", "vf_coef", "max_grad_norm")},
    "imitation_updates": ("imitation", "updates"),
    "imitation_learning_rate": ("imitation", "learning_rate"),
    "imitation_epochs": ("imitation", "epochs"),
    "imitation_minibatch_size": ("imitation", "minibatch_size"),
    "imitation_student_prob": ("imitation", "student_prob"),
}


def _new_name(old: str) -> str:
    section, key = _FLAT[old]
    if section in ("ppo", "ppo+imitation"):
        return f"learner.ppo.{key}"
    return f"learner.imitation.{key}" if section == "imitation" else f"{section}.{key}"


def from_flat(flat: dict, where: str, warn=True) -> dict:
    """A flat (old-style) config mapping in sections; unknown keys are named with the new keys."""
    out: dict = {"run": {}, "rules": dict(flat.get("rules") or {}), "model": {}, "eval": {},
                 "device": {}}
    ppo: dict = {}
    imitation: dict = {}
    opponents = {"random": 50, "heuristic": 20}
    for key, value in flat.items():
        if key == "rules":
            continue
        if key not in _FLAT:
            raise ConfigError(f"unknown config key {key!r} ({where}); allowed keys: "
                              f"{', '.join(SECTIONS)} (sections) or the old flat keys "
                              f"{', '.join(_FLAT)}")
        section, new = _FLAT[key]
        if section == "ppo":
            ppo[new] = value
        elif section == "ppo+imitation":
            ppo[new] = imitation[new] = value
        elif section == "imitation":
            imitation[new] = value
        elif new.startswith("opponents."):
            opponents[new.split(".", 1)[1]] = value
        else:
            out[section][new] = value
    out["eval"]["opponents"] = opponents
    stages = []
    if imitation.get("updates", 0):
        stages.append({"name": "imitation", **imitation})
    stages.append({"name": "ppo", **ppo})
    out["learner"] = stages
    if warn and flat:
        renamed = ", ".join(f"{k} → {_new_name(k)}" for k in flat if k != "rules")
        print(f"note: {where} uses the flat config of shengji-rl 0.1; read as sections "
              f"({renamed})", file=sys.stderr)
    return out


# ----------------------------------------------------------------------------- loading

def _stages(raw, where: str) -> list[dict]:
    if raw is None:
        return [{"name": "ppo"}]
    if isinstance(raw, str):
        return [{"name": raw}]
    if isinstance(raw, dict):
        return [dict(raw)]
    if isinstance(raw, list) and raw and all(isinstance(s, (dict, str)) for s in raw):
        return [{"name": s} if isinstance(s, str) else dict(s) for s in raw]
    raise ConfigError(f"learner ({where}) must be a learner name, a mapping with 'name', or a "
                      f"non-empty list of them; got {raw!r}")


def _apply_set(raw: dict, text: str) -> None:
    path, value = parse_set(text)
    head = path[0]
    if head not in SECTIONS:
        if len(path) == 1 and head in _FLAT:  # an old flat key
            print(f"note: --set {head}=… is the old flat key; it is {_new_name(head)} now",
                  file=sys.stderr)
            section, new = _FLAT[head]
            if section in ("ppo", "ppo+imitation", "imitation"):
                names = ["ppo", "imitation"] if section == "ppo+imitation" else [section]
                hit = [s for s in raw["learner"] if s.get("name") in names]
                if not hit and section == "imitation" and new == "updates":
                    raw["learner"].insert(0, {"name": "imitation"})
                    hit = raw["learner"][:1]
                for s in hit:
                    s[new] = value
                return
            path = [section, *new.split(".")]
        else:
            raise ConfigError(f"--set {text!r}: unknown section {head!r}; sections: "
                              f"{', '.join(SECTIONS)} (e.g. run.num_envs=64)")
    if path[0] == "learner":
        stages = raw["learner"]
        if len(path) == 3:
            hit = [s for s in stages if s.get("name") == path[1]]
            if not hit:
                raise ConfigError(f"--set {text!r}: no learner stage named {path[1]!r}; stages: "
                                  f"{', '.join(str(s.get('name')) for s in stages)}")
            hit[0][path[2]] = value
            return
        if len(path) != 2:
            raise ConfigError(f"--set {text!r}: expected learner.KEY or learner.STAGE.KEY")
        key = path[1]
        if len(stages) == 1:
            stages[0][key] = value
            return
        having = [s for s in stages if key in _option_names(s.get("name"))]
        if len(having) != 1:
            raise ConfigError(f"--set {text!r}: {key!r} is an option of "
                              f"{len(having)} stages; name one: learner.STAGE.{key}")
        having[0][key] = value
        return
    target = raw.setdefault(path[0], {})
    for part in path[1:-1]:
        target = target.setdefault(part, {})
    if len(path) < 2:
        raise ConfigError(f"--set {text!r}: expected SECTION.KEY=VALUE")
    target[path[-1]] = value


def _option_names(name) -> set[str]:
    try:
        cls = learner_class(str(name))
    except ValueError:
        return set()
    return {f for f in cls.Options.__dataclass_fields__} | {"updates"}


def resolve(raw: dict, overrides=(), where: str = "config") -> TrainConfig:
    """A validated ``TrainConfig`` from a mapping (sections, or an old flat config) plus
    ``--set`` overrides."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must hold a mapping of config sections, got "
                          f"{type(raw).__name__}")
    if raw and not set(raw) <= set(SECTIONS):
        raw = from_flat(raw, where)
    # a deep copy: --set eval.opponents.random=3 wrote into the caller's nested dict (a second
    # resolve of the same mapping then started from the first one's overrides)
    raw = copy.deepcopy(raw)
    raw["learner"] = _stages(raw.get("learner"), where)
    for text in overrides:
        _apply_set(raw, text)
    unknown = set(raw) - set(SECTIONS)
    if unknown:
        raise ConfigError(f"unknown config section(s) {sorted(unknown)} ({where}); sections: "
                          f"{', '.join(SECTIONS)}")
    run = build(RunSection, raw.get("run"), f"{where}: run")
    rules = raw.get("rules") or {}
    if not isinstance(rules, dict):
        raise ConfigError(f"rules ({where}) must be a mapping of rules options, got {rules!r}")
    from shengji_env import Rules
    from shengji_env.rules.game import check_supported

    try:
        check_supported(Rules(**rules))
    except (ValueError, TypeError) as e:
        raise ConfigError(f"rules: {e}") from None
    except NotImplementedError as e:
        raise ConfigError(f"rules {rules} ({where}) are valid but cannot be played yet: {e}") \
            from None
    _check_name(run.name, where)
    stages = []
    for i, s in enumerate(raw["learner"]):
        name = s.pop("name", None)
        if not isinstance(name, str):
            raise ConfigError(f"learner stage {i + 1} ({where}) needs a 'name' (e.g. ppo)")
        try:
            cls = learner_class(name)
        except ValueError as e:
            raise ConfigError(f"learner stage {i + 1} ({where}): {e}") from None
        updates = s.pop("updates", 0)
        if not isinstance(updates, int) or isinstance(updates, bool) or updates < 0:
            raise ConfigError(f"learner.{name}.updates={updates!r} ({where}): expected an int >= 0")
        if getattr(cls, "only_stage", False) and len(raw["learner"]) > 1:
            raise ConfigError(f"learner {name} ({where}) must be the only stage of the schedule: "
                              "it changes what the shared network plays")
        if updates == 0 and i < len(raw["learner"]) - 1:
            raise ConfigError(f"learner stage {i + 1} ({name}) needs updates > 0: only the last "
                              "stage runs until the end")
        stages.append(Stage(name, updates, build(cls.Options, s, f"{where}: learner.{name}")))
    cfg = TrainConfig(run=run, rules=dict(rules), model=build(ModelSection, raw.get("model"),
                                                              f"{where}: model"),
                      learner=stages, eval=build(EvalSection, raw.get("eval"), f"{where}: eval"),
                      device=build(DeviceSection, raw.get("device"), f"{where}: device"),
                      distributed=build(DistributedSection, raw.get("distributed"),
                                        f"{where}: distributed"))
    for spec, n in cfg.eval.opponents.items():
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ConfigError(f"eval.opponents.{spec}={n!r} ({where}): expected a number of "
                              "duplicate deals >= 0 (0: only in the final table)")
    for s in cfg.learner:
        if hasattr(s.options, "check"):
            s.options.check(where)
    return cfg


def _check_name(name: str, where: str) -> None:
    """``run.name`` becomes one folder name under ``run_root``: no separators, no ``..``."""
    bad = [c for c in ("/", "\\", "\0", os.sep, os.altsep) if c and c in name]
    if not name.strip() or name in (".", "..") or bad:
        why = (f"it holds {bad[0]!r}" if bad else "it is empty" if not name.strip()
               else "it names a folder outside run_root")
        raise ConfigError(f"run.name={name!r} ({where}): {why}; the name becomes one folder under "
                          "run.run_root (letters, digits, - _ . without path separators)")


def load(path, overrides=()) -> TrainConfig:
    """Read a YAML config (a ``yaml.SafeLoader`` that refuses repeated keys), apply ``--set``
    overrides, validate."""
    import yaml

    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"--config {str(path)!r} is a folder; expected a YAML file such as "
                          "configs/quickstart.yaml")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"--config {str(path)!r}: no such file") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not a text YAML file (byte 0x{e.object[e.start]:02x} at "
                          f"offset {e.start} is not UTF-8)") from None
    except OSError as e:
        raise ConfigError(f"cannot read --config {str(path)!r}: {e.strerror or e}") from None
    try:
        stream = io.StringIO(text)
        stream.name = str(path)  # PyYAML names the file in its errors
        data = yaml.load(stream, Loader=_unique_key_loader())  # a SafeLoader subclass
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {' '.join(str(e).split())}") from None
    return resolve(data, list(overrides), where=str(path))


def _unique_key_loader():
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping: PyYAML keeps the last
    one silently (``run: {num_envs: 64}`` then ``run: {seed: 1}`` lost num_envs), while YAML
    requires keys to be unique. Merge keys (``<<``) may still be overridden."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            seen = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    first = seen.setdefault(key, key_node.start_mark)
                except TypeError:  # an unhashable key: construct_mapping says so
                    continue
                if first is not key_node.start_mark:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", node.start_mark,
                        f"key {key!r} is given twice (first on line {first.line + 1}); give "
                        "each key once", key_node.start_mark)
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader


def help_text() -> str:
    """Every section's keys with type, default and meaning, and each built-in learner's options."""
    from . import _builtin

    lines = ["config sections (YAML, or --set SECTION.KEY=VALUE):"]
    for name, section in (("run", RunSection), ("model", ModelSection), ("eval", EvalSection),
                          ("device", DeviceSection), ("distributed", DistributedSection)):
        lines += describe(section, prefix=f"{name}.")
    lines.append("  rules.OPTION                   any Rules option (RULES.md §11)")
    for name, cls in _builtin().items():  # imported here: the built-ins are loaded lazily
        lines.append(f"learner {name!r} options (learner.{name}.KEY):")
        lines += describe(cls.Options, prefix=f"learner.{name}.")
    return "\n".join(lines)
