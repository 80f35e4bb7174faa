"""Typed config sections from YAML and ``--set``: dataclasses with a doc per field.

A section is a dataclass whose fields are declared with ``option(default, "what it means")``;
``build(Section, mapping, where)`` checks every key and type (``ConfigError`` naming the key,
the value and what is allowed), ``parse_set("a.b=VALUE")`` reads one override, and
``describe(Section)`` lists the fields for ``--help``. Values are read with ``yaml.safe_load``
only. The trainer's sections live in ``agents.learners.config``; learners declare their own
options the same way, so a plug-in learner's options are validated and documented like the
built-in ones.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import MISSING, field, fields

import yaml

__all__ = ["ConfigError", "build", "check_value", "describe", "docs", "import_object", "option",
           "parse_scalar", "parse_set", "to_dict"]


class ConfigError(ValueError):
    """A config file, ``--set`` or field value that is not allowed."""


def option(default, doc: str, *, minimum=None, maximum=None, choices=None, exclusive_min=False):
    """A config field: its default, its meaning, and optional bounds or choices (checked by
    ``build``). Mutable defaults (dicts, lists) are copied per instance."""
    meta = {"doc": doc, "minimum": minimum, "maximum": maximum, "choices": choices,
            "exclusive_min": exclusive_min}
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def import_object(path: str, what: str):
    """The object ``module:attr`` names (an agent factory, a learner class, ...); ``ValueError``
    naming ``what`` it was meant to be when it cannot be imported."""
    import importlib

    module_name, _, attr = path.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as e:
        raise ValueError(f"cannot load {what} {path!r}: {e}") from None


def docs(section) -> dict[str, str]:
    """Field name → its documentation."""
    return {f.name: f.metadata.get("doc", "") for f in fields(section)}


def _types(section) -> dict:
    return typing.get_type_hints(section)


def _kind(tp) -> type:
    origin = typing.get_origin(tp)
    return origin if origin is not None else tp


def check_value(section, key: str, value, where: str):
    """``value`` as the type of ``section``'s field ``key``, within its bounds; or
    ``ConfigError`` naming the key, the value and what is allowed."""
    types = _types(section)
    if key not in types:
        raise ConfigError(f"unknown config key {key!r} ({where}); allowed keys: "
                          f"{', '.join(types)}")
    want = _kind(types[key])
    if want is float and isinstance(value, str):  # YAML 1.1 reads 3e-4 as a string
        try:
            value = float(value)
        except ValueError:
            pass
    ok = {int: isinstance(value, int) and not isinstance(value, bool),
          float: isinstance(value, (int, float)) and not isinstance(value, bool),
          bool: isinstance(value, bool), str: isinstance(value, str),
          dict: isinstance(value, dict), list: isinstance(value, (list, dict))}.get(want, True)
    if not ok:
        raise ConfigError(f"config key {key!r} ({where}) must be {want.__name__}, got "
                          f"{value!r} ({type(value).__name__})")
    if want is float:
        value = float(value)
        if not math.isfinite(value):
            raise ConfigError(f"config key {key!r} ({where}) must be a finite number, got {value!r}")
    meta = next(f.metadata for f in fields(section) if f.name == key)
    lo, hi, choices = meta.get("minimum"), meta.get("maximum"), meta.get("choices")
    if choices is not None and value not in choices:
        raise ConfigError(f"{key}={value!r} ({where}): expected one of {', '.join(map(str, choices))}")
    if lo is not None and (value <= lo if meta.get("exclusive_min") else value < lo):
        rel = ">" if meta.get("exclusive_min") else ">="
        raise ConfigError(f"{key}={value!r} ({where}): expected a number {rel} {lo}")
    if hi is not None and value > hi:
        raise ConfigError(f"{key}={value!r} ({where}): expected a number <= {hi}")
    return value


def build(section, values: dict, where: str):
    """A validated instance of dataclass ``section`` from a mapping of its fields."""
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ConfigError(f"{where} must be a mapping of {section.__name__} keys, got "
                          f"{type(values).__name__}")
    checked = {k: check_value(section, k, v, where) for k, v in values.items()}
    return section(**checked)


def to_dict(obj) -> dict:
    """A section instance as plain python (YAML- and checkpoint-safe)."""
    return dataclasses.asdict(obj)


def parse_scalar(raw: str):
    """A ``--set`` value as YAML reads it (``1e-3`` and ``3`` are numbers, ``true`` a bool)."""
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw
    if isinstance(value, str):
        try:  # YAML 1.1 leaves 1e-3 a string
            return float(value) if any(c.isdigit() for c in value) else value
        except ValueError:
            return value
    return value


def parse_set(text: str) -> tuple[list[str], object]:
    """``a.b.c=VALUE`` → (``["a", "b", "c"]``, typed value); ``ConfigError`` on bad syntax."""
    if not isinstance(text, str) or "=" not in text:
        raise ConfigError(f"--set {text!r}: expected KEY=VALUE, e.g. run.num_envs=64")
    key, _, raw = (t.strip() for t in text.partition("="))
    path = key.split(".")
    if not all(p.isidentifier() or p.isdigit() for p in path):
        raise ConfigError(f"--set {text!r}: {key!r} is not a config key (SECTION.KEY, e.g. "
                          "run.num_envs)")
    return path, parse_scalar(raw)


HELP_KEY, HELP_TYPE, HELP_DEFAULT, HELP_WIDTH = 30, 6, 12, 110


def describe(section, prefix: str = "") -> list[str]:
    """Help lines per field: key, type, default, meaning in columns. A key or default wider than
    its column ends its line and the meaning starts on the next one, at its column; meanings wrap
    at ``HELP_WIDTH``, so no two columns ever run together."""
    import textwrap

    lines, types = [], _types(section)
    indent = " " * (2 + HELP_KEY + 1 + HELP_TYPE + 1 + HELP_DEFAULT + 1)
    for f in fields(section):
        default = f.default if f.default is not MISSING else f.default_factory()
        doc = " ".join(f.metadata.get("doc", "").split())
        key, kind, shown = prefix + f.name, _kind(types[f.name]).__name__, repr(default)
        head = f"  {key:<{HELP_KEY}} {kind:<{HELP_TYPE}} {shown:<{HELP_DEFAULT}} "
        wrapped = textwrap.wrap(doc, HELP_WIDTH - len(indent)) or [""]
        if len(key) > HELP_KEY or len(kind) > HELP_TYPE or len(shown) > HELP_DEFAULT:
            lines += [head.rstrip(), *(indent + w for w in wrapped)]
        else:
            lines += [head + wrapped[0], *(indent + w for w in wrapped[1:])]
    return lines
