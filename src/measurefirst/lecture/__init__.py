"""The runnable lecture: pitfalls, scaling, profiler; narrated in Chinese and English."""

from .demos import DEMOS, DemoResult, run
from ..render.words import LANGS, default_lang  # the one list of languages, the one locale rule

__all__ = ["DEMOS", "DemoResult", "LANGS", "default_lang", "run"]
