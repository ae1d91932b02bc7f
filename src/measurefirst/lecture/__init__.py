"""The runnable lecture: pitfalls, scaling, profiler; narrated in Chinese and English."""

from .demos import DEMOS, DemoResult, run
from ..render.words import default_lang  # the one locale rule
from .narration import LANGS

__all__ = ["DEMOS", "DemoResult", "LANGS", "default_lang", "run"]
