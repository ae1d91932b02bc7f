"""The package's names for type checkers: the package serves them lazily at run time (``_EXPORTS``,
``__getattr__``), so its ``__init__.py`` imports none of its submodules, not even for typing."""

from .capture import BOOKKEEPING_OPS as BOOKKEEPING_OPS, KernelRow as KernelRow, OpRow as OpRow, Profile as Profile, ProfileError as ProfileError, profile as profile
from .diff import DiffRow as DiffRow, ProfileDiff as ProfileDiff, diff as diff, profile_compare as profile_compare
from .kernels import KernelInfo as KernelInfo, decode_kernel as decode_kernel
from .ranges import range as range

_EXPORTS: dict[str, str]
__all__: list[str]
def __dir__() -> list[str]: ...
