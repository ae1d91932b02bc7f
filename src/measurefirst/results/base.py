"""The one protocol shell of every result kind (:data:`measurefirst.results.protocol.KINDS`).

:class:`ResultBase` gives each kind, once: ``to_json`` (strict JSON of its ``to_dict``), ``from_json`` (a
file's text read back through its ``from_dict``), ``save`` (the JSON written whole or not at all, through
:mod:`measurefirst.results.safeio`), ``str()`` and the notebook's ``_repr_html_``. The words and the HTML
come from the one dispatch by kind in :mod:`measurefirst.render.dispatch`, imported when a result is
first shown: results never import a renderer when they are imported.

A kind writes only what is its own: its fields, ``kind``, ``schema_version``, ``complete``, ``findings``,
``to_dict`` and ``from_dict`` (which reads through :func:`measurefirst.results.protocol.build`).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from .protocol import parse_json
from .safeio import strict_json, write_atomic

R = TypeVar("R", bound="ResultBase")


def shown(obj: Any, kind: str | None = None, *args: Any) -> str:
    """``obj`` in words, by the renderer :data:`measurefirst.render.dispatch.TEXT` names for ``kind`` (default:
    ``obj.kind``), given ``args`` (a language): the one way a result, or a part of one, reaches a renderer."""
    from ..render.dispatch import text

    return text(obj, kind, *args)


class ResultBase(ABC):
    """The shell every result kind is built on (see the module docstring)."""

    kind: ClassVar[str]

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The result's stored form: plain JSON types, with ``kind`` and ``schema_version``."""

    @classmethod
    @abstractmethod
    def from_dict(cls: type[R], d: dict[str, Any]) -> R:
        """The result from its stored form, of any version; anything malformed is a ``ValueError``."""

    def to_json(self, indent: int | None = 2) -> str:
        """Strict JSON (non-finite numbers become null, noted in the object; see :mod:`measurefirst.results.safeio`)."""
        return strict_json(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls: type[R], text: str | bytes) -> R:
        """The result a JSON text of this kind holds; anything else is a one-line ``ValueError``."""
        data = parse_json(text)
        if not isinstance(data, dict) or data.get("kind") != cls.kind:
            raise ValueError(f'not a measurefirst {cls.kind} (missing "kind": "{cls.kind}")')
        return cls.from_dict(data)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_json` to ``path`` whole or not at all (``measurefirst.load`` reads it back); a path
        that cannot be written raises :class:`~measurefirst.results.safeio.DestinationError` saying why."""
        return write_atomic(path, self.to_json() + "\n", f"{self.kind} result")

    def __str__(self) -> str:
        return shown(self)

    def _repr_html_(self) -> str:
        from ..render.dispatch import html

        return html(self)

    def _repr_markdown_(self) -> str | None:
        """Markdown where it serves (a pytest run, a regression check: the tables of a CI summary, which a
        Markdown cell or a rendered notebook without scripts shows); ``None`` (no Markdown) for the others."""
        from ..render.dispatch import markdown

        return markdown(self)
