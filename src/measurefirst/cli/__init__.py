"""The command line: the commands (``main``), the parser, the emitting of results, the Ctrl-C guard,
the loading of targets, and the ``runs`` and ``noise`` commands.

``measurefirst.cli`` was the module of the commands (now :mod:`measurefirst.cli.commands`): ``main``
stays here (``python -m measurefirst`` and old console scripts call it); its other names are served
with a DeprecationWarning, for one release."""

from .._lazy import former_names

__getattr__ = former_names(__name__, keep=frozenset({"main"}))
