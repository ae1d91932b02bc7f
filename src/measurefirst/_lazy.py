"""The lazy package type shared by ``measurefirst`` and ``measurefirst.profiling``."""

from __future__ import annotations

import types
from typing import Any


class LazyPackage(types.ModuleType):
    """Keeps a public function bound under its name when the submodule of the same name is imported
    (``measurefirst.compare`` is the function, as it was when everything was imported eagerly). The
    package lists its public names in ``_EXPORTS`` (name -> submodule)."""

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_EXPORTS", {})
        if isinstance(value, types.ModuleType) and exports.get(name) == name and hasattr(value, name):
            value = getattr(value, name)
        super().__setattr__(name, value)
