"""The runnable lecture: pitfalls, scaling, profiler; narrated in Chinese and English."""

from .demos import DEMOS, DemoResult, run
from .narration import LANGS, default_lang

__all__ = ["DEMOS", "DemoResult", "LANGS", "default_lang", "run"]
