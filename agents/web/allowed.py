"""Which agent specs the web page may ask for: the server, not the page, decides what it runs.

A spec from the page is resolved only if it is

* a built-in or registered agent name (``random``, ``heuristic``, ``pimc``, ``bot``, entry
  points), with options that are numbers, booleans or plain words
  (``pimc?worlds=8&rollout=heuristic``; a string with ``/``, ``.`` or ``:`` could name a file
  or a module, e.g. weights to unpickle);
* a checkpoint file or run folder *under one of the server's agent folders*
  (``shengji-web --agent-dir runs``, the default; ``runs/x`` or ``x`` for ``runs/x``);
* ``module:attr`` (which imports any module), or options that are not plain words, only when the
  server was started with ``--allow-import``.

    policy = SpecPolicy(agent_dirs=(Path("runs"),), allow_import=False)
    spec = policy.check("runs/quickstart__0?sample=true")   # the spec to resolve, or ValueError
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..specs import AgentSpec, known_names, parse


@dataclass(frozen=True)
class SpecPolicy:
    """What the page may name. ``agent_dirs``: folders whose checkpoints and run folders may be
    loaded; ``allow_import``: also ``module:attr`` specs and any string option (trusted pages)."""

    agent_dirs: tuple[Path, ...] = (Path("runs"),)
    allow_import: bool = False

    def check(self, spec: str) -> str:
        """The spec to hand to ``agents.specs.resolve`` (a checkpoint made a full path), or
        ``ValueError`` saying why the page may not ask for it."""
        parsed = parse(spec, paths=False)  # the page must not learn which files exist
        name, options = parsed.name, parsed.options
        if not self.allow_import:
            for key, value in options.items():
                if isinstance(value, str) and value and not value.isidentifier():
                    raise ValueError(f"agent {spec!r}: option {key}={value!r} is a string that "
                                     "could name a file or module; the page may give numbers, "
                                     "true/false and plain words (start the server with "
                                     "--allow-import to allow more)")
        if name in known_names():
            return str(parsed)
        path = self._under_agent_dirs(name)
        if path is not None:
            return str(AgentSpec(str(path), options))
        if ":" in name:
            if self.allow_import:
                return str(parsed)
            raise ValueError(f"agent {spec!r}: 'module:attr' specs import code and are refused; "
                             "start shengji-web with --allow-import to allow them")
        dirs = ", ".join(str(d) for d in self.agent_dirs) or "none"
        raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(known_names())} "
                         f"or a checkpoint / run folder under the server's agent folders ({dirs})")

    def _under_agent_dirs(self, name: str) -> Path | None:
        """``name`` as an existing file or folder inside one of ``agent_dirs`` (``..`` and
        symbolic links resolved first), else ``None``."""
        for folder in self.agent_dirs:
            root = folder.resolve()
            for candidate in (Path(name), folder / name):
                try:
                    full = candidate.resolve()
                except (OSError, RuntimeError):
                    continue
                if full.is_relative_to(root) and full.exists():
                    return full
        return None

    def describe(self) -> dict:
        """For the page: what it may ask for."""
        return {"names": known_names(), "agent_dirs": [str(d) for d in self.agent_dirs],
                "allow_import": self.allow_import}


__all__ = ["SpecPolicy"]
