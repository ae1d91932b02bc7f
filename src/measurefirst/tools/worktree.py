"""The other side of a comparison of code against code: a temporary git worktree of a REF (a branch,
tag or commit), or another checkout given by its path.

A worktree is made with ``git worktree add --detach`` in a fresh temporary folder, so the user's own
tree (its files, its index, its branch) is never touched; :meth:`Tree.close` removes it (``git worktree
remove --force``, then the folder, then ``git worktree prune``), and it runs on every way out: the end,
an error, Ctrl-C (``with Tree.of(...)``), and at interpreter exit for a tree left open.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

#: Seconds at most for one git command (a worktree of a large repository takes a while).
GIT_TIMEOUT_S = 300.0
#: The prefix of the temporary folders, so that a leftover one is recognisable.
TEMP_PREFIX = "measurefirst-worktree-"


class WorktreeError(RuntimeError):
    """The REF cannot be checked out: the message says why and what to do."""


def git(args: list[str], cwd: Path) -> str:
    """Run git; its stdout stripped, or :class:`WorktreeError` with git's own words."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise WorktreeError("git is not installed (needed to check out the other side of the comparison); "
                            "install git, or give the path of another checkout instead of a REF") from exc
    except subprocess.TimeoutExpired as exc:
        raise WorktreeError(f"git {' '.join(args)} took more than {GIT_TIMEOUT_S:.0f} s") from exc
    if done.returncode != 0:
        raise WorktreeError(f"git {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


def toplevel(path: Path) -> Path:
    """The top of the git checkout that holds ``path``, or :class:`WorktreeError`."""
    try:
        return Path(git(["rev-parse", "--show-toplevel"], path)).resolve()
    except WorktreeError as exc:
        raise WorktreeError(f"{path} is not inside a git checkout ({exc}); run from your repository, or give the "
                            f"path of another checkout") from exc


def resolve_commit(ref: str, repo: Path) -> str:
    """The full commit id of ``ref`` in ``repo``, or :class:`WorktreeError` naming the fix."""
    if not ref or ref.startswith("-"):
        raise WorktreeError(f"expected a branch, tag or commit such as origin/main; got {ref!r}")
    try:
        return git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], repo)
    except WorktreeError:
        raise WorktreeError(f"{ref!r} is not a branch, tag or commit of {repo} (on a CI runner with a shallow "
                            f"clone, fetch it first: git fetch --depth=1 origin {ref.removeprefix('origin/')})") from None


def dirty(repo: Path) -> list[str]:
    """The tracked files with uncommitted changes in ``repo``, staged or not (untracked files left out)."""
    return git(["diff", "--name-only", "HEAD"], repo).splitlines()


def here(top: Path) -> Tree:
    """The user's own checkout at ``top`` as a tree (nothing made, nothing removed)."""
    return Tree(top, None, made=False, repo=None, label="this tree")


def validate_ref(ref: str, start: Path) -> None:
    """Check ``ref`` before anything is measured: a folder, or a commit of the checkout holding ``start``."""
    if Path(ref).expanduser().is_dir():
        return
    resolve_commit(ref, toplevel(start))


class Tree:
    """A tree to run the other side in: ``root`` mirrors the user's checkout top; ``commit`` is what it
    holds (``None`` for a plain folder); ``made`` says whether it is a temporary worktree to remove."""

    def __init__(self, root: Path, commit: str | None, made: bool, repo: Path | None, label: str) -> None:
        self.root, self.commit, self.made, self.repo, self.label = root, commit, made, repo, label
        self._temp = root.parent if made else None
        self.closed = False
        if made:
            atexit.register(self.close)

    @classmethod
    def of(cls, ref: str, start: Path) -> "Tree":
        """A worktree of ``ref`` (a branch, tag or commit of the checkout that holds ``start``), or the
        checkout at ``ref`` when ``ref`` is a folder."""
        given = Path(ref).expanduser()
        if given.is_dir() and not (ref.startswith(("origin/", "refs/")) and not given.is_absolute()):
            root = given.resolve()
            try:
                top = toplevel(root)
                commit: str | None = git(["rev-parse", "HEAD"], top)
            except WorktreeError:
                top, commit = root, None
            return cls(top, commit, made=False, repo=None, label=str(ref))
        repo = toplevel(start)
        commit = resolve_commit(ref, repo)
        temp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
        root = temp / "tree"
        try:
            git(["worktree", "add", "--detach", "--force", str(root), commit], repo)
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        return cls(root, commit, made=True, repo=repo, label=ref)

    def close(self) -> None:
        """Remove a worktree this made (idempotent; never raises: a leftover is pruned by git later)."""
        if self.closed or not self.made:
            self.closed = True
            return
        self.closed = True
        if self.repo is not None:
            try:
                git(["worktree", "remove", "--force", str(self.root)], self.repo)
            except WorktreeError:
                pass
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
        if self.repo is not None:
            try:
                git(["worktree", "prune"], self.repo)
            except WorktreeError:
                pass
        try:
            atexit.unregister(self.close)
        except Exception:  # pragma: no cover - interpreter shutting down
            pass

    @property
    def label_commit(self) -> str:
        """``REF (1a2b3c4d5e)``: the REF as given and the commit it holds (the commit alone when the REF is
        that commit's id)."""
        if self.commit and self.commit.startswith(self.label):
            return self.commit[:10]
        return f"{self.label} ({self.commit[:10]})" if self.commit else self.label

    def mirror(self, path: Path, top: Path) -> Path:
        """``path`` (inside the user's checkout ``top``) at the same place in this tree."""
        return self.root / os.path.relpath(path.resolve(), top)

    def __enter__(self) -> "Tree":
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
