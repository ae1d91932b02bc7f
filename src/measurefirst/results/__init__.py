"""What measuring produces and keeps: the protocol of every result, the result kinds, the findings
catalogue, the store and its history, loading and importing, safe writes and the error types.

``measurefirst.results`` was the module of the result kinds (now :mod:`measurefirst.results.kinds`):
its names are still served here, with a DeprecationWarning, for one release."""

from .._lazy import former_names

__getattr__ = former_names(__name__)
