"""measurefirst in a notebook: ``%load_ext measurefirst`` registers the ``%mf`` line magic and the ``%%mf``
cell magic (:mod:`measurefirst.notebook.magics`); every result displays itself as HTML
(``_repr_html_``, the report's sections)."""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """Called by IPython on ``%load_ext measurefirst``: register the magics."""
    from .magics import MeasureMagics

    ipython.register_magics(MeasureMagics(ipython))
