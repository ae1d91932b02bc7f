"""The lazy package type shared by ``measurefirst`` and its subpackages, and the one mechanism that keeps
the import paths of the flat layout working for a release (see docs/architecture.md)."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from importlib.abc import Loader as _Loader
else:  # the loader protocol, without importing importlib.abc at every start of the command
    _Loader = object

#: The modules that moved into the folders by concept: old dotted path -> new one. Importing an old
#: path gives the very module of the new one (one object under two names), with a DeprecationWarning.
MOVED: dict[str, str] = {f"measurefirst.{old}": f"measurefirst.{new}" for old, new in {
    "devices": "measure.devices", "timers": "measure.timers", "engine": "measure.engine", "stats": "results.stats",
    "counting": "measure.counting", "_counters": "measure._counters", "reference": "results.reference",
    "simulate": "measure.simulate", "defaults": "results.defaults", "dtypes": "measure.dtypes",
    "progress": "measure.progress", "noise": "measure.noise", "workers": "measure.workers",
    "_worker": "measure._worker",
    "protocol": "results.protocol", "findings": "results.findings", "store": "results.store",
    "store_pg": "results.store_pg", "compact": "results.compact", "history": "results.history",
    "loading": "results.loading", "importers": "results.importers", "safeio": "results.safeio",
    "errors": "results.errors",
    "compare": "tools.compare", "sweep": "tools.sweep", "fit": "results.fitting", "roofline": "tools.roofline",
    "step": "tools.step", "doctor": "tools.doctor", "selfcheck": "tools.selfcheck",
    "regression": "results.regression_checks",
    "cli_parser": "cli.parser", "emit": "cli.emit", "guard": "cli.guard", "targets": "tools.targets",
    "runs_cli": "cli.runs", "noise_cli": "cli.noise",
    "pytest_plugin": "pytest.plugin", "pytest_run": "pytest.run", "render.pytest_report": "pytest.report",
    "distributed.layout": "results.layout",
    # issue 39: the ground floor holds the arithmetic a result needs to describe itself
    "measure.stats": "results.stats", "measure.defaults": "results.defaults", "measure.reference": "results.reference",
    "tools.fit": "results.fitting", "tools.regression": "results.regression_checks",
    "distributed.bandwidth": "results.bandwidth", "distributed.saved": "results.group_checks",
    "distributed.cli": "cli.distributed", "cli.targets": "tools.targets",
}.items()}
#: The two modules whose old path is now a package: ``measurefirst.results`` (the result kinds, now
#: ``results.kinds``) and ``measurefirst.cli`` (now ``cli.commands``); the package serves their names.
FORMER = {"measurefirst.results": "measurefirst.results.kinds", "measurefirst.cli": "measurefirst.cli.commands"}


def _moved(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new}: import it from there (the old path goes in the next release)",
                  DeprecationWarning, stacklevel=3)


class MovedModules(_Loader):
    """Finds an old module path of :data:`MOVED` and loads it as the module at its new path (a meta path
    finder and a loader by their protocols: ``importlib.abc`` costs every start of the command)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        new = MOVED[module.__name__]
        _moved(module.__name__, new)
        sys.modules[module.__name__] = importlib.import_module(new)  # the import system returns this one


def install() -> None:
    """Put the finder of old paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.append(MovedModules())


def former_names(package: str, keep: frozenset[str] = frozenset()) -> Callable[[str], Any]:
    """The ``__getattr__`` of a package that took the path of a module (:data:`FORMER`): the module's
    public names, imported from their new place on first use; those in ``keep`` without a warning."""

    def __getattr__(name: str) -> Any:
        # a submodule of the package (``from . import stats``) is the import system's to load, not a former name
        if name.startswith("_") or importlib.util.find_spec(f"{package}.{name}") is not None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(FORMER[package])
        if not hasattr(module, name):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if name not in keep:
            _moved(f"{package}.{name}", f"{FORMER[package]}.{name}")
        value = getattr(module, name)
        setattr(sys.modules[package], name, value)  # served, and warned about, once
        return value

    return __getattr__


def exported(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of a package whose public names (``exports``: name -> submodule, or a module's
    full path where the name lives on a lower floor, as the bandwidth formulas do) are imported from
    their module on first use, then kept on the package."""

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        path = where if where.startswith("measurefirst.") else f"{package}.{where}"
        value = getattr(importlib.import_module(path), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


class _Deferred:
    """See :func:`deferred`."""

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self._name, self._namespace, self._alias = name, namespace, alias

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module  # from now on the name is the module itself
        return getattr(module, attr)


def deferred(name: str, namespace: dict[str, Any], alias: str) -> Any:
    """A stand-in for the module ``name`` under ``alias`` in ``namespace`` (a module's globals): the first
    attribute read through it imports the module and puts it in its place. For a module whose functions
    need numpy but whose names (constants, types) are read by commands that never call them: ``runs`` and
    ``history`` start without paying for numpy."""
    return _Deferred(name, namespace, alias)


class LazyPackage(types.ModuleType):
    """Keeps a public function bound under its name when the submodule of the same name is imported
    (``measurefirst.compare`` is the function, as it was when everything was imported eagerly, also
    after the old path ``measurefirst.compare`` was imported). The package lists its public names in
    ``_EXPORTS`` (name -> submodule)."""

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_EXPORTS", {})
        if isinstance(value, types.ModuleType) and name in exports and hasattr(value, name):
            value = getattr(value, name)
        super().__setattr__(name, value)
