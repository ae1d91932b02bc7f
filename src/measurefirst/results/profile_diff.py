"""The result of :func:`measurefirst.profile_compare`: a :class:`ProfileDiff`, several profiles lined up op
by op (kernel by kernel) in :class:`DiffRow`. The types live with the results (renderers read them);
:mod:`measurefirst.profiling.diff` profiles the candidates and re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from .base import ResultBase
from .profile import Profile
from .protocol import migrate

@dataclass(frozen=True)
class DiffRow:
    """One op (or kernel) across implementations; values per step, ``None`` where it does not appear."""

    name: str
    calls: tuple[float | None, ...]
    time_s: tuple[float | None, ...]
    bytes_est: tuple[float | None, ...]

    def only_in(self) -> int | None:
        """Index of the only implementation that runs this op, else None."""
        present = [i for i, c in enumerate(self.calls) if c]
        return present[0] if len(present) == 1 else None


#: Version of a :class:`ProfileDiff`'s stored form; version 0 (none written) is the same form.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ProfileDiff(ResultBase):
    labels: tuple[str, ...]
    profiles: tuple[Profile, ...]
    rows: tuple[DiffRow, ...]
    unit: str  # "ops" (CPU work view) or "kernels" (device activity)

    kind: ClassVar[str] = "profile_diff"
    schema_version: ClassVar[int] = SCHEMA_VERSION
    complete: ClassVar[bool] = True
    findings: ClassVar[tuple[()]] = ()

    def counts(self) -> dict[str, int | float]:
        """Work ops (or kernels) launched per step, per implementation."""
        return {label: p.work_count for label, p in zip(self.labels, self.profiles)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ProfileDiff":
        """Load a diff written by :meth:`to_dict`: its profiles are lined up again."""
        if not isinstance(d, dict) or d.get("kind") != cls.kind:
            raise ValueError("not a measurefirst profile diff (missing \"kind\": \"profile_diff\")")
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        labels, stored = d.get("labels"), d.get("profiles")
        if not (isinstance(labels, (list, tuple)) and all(isinstance(x, str) for x in labels)):
            raise ValueError(f"profile_diff.labels must be a list of text; got {labels!r:.40}")
        if not isinstance(stored, (list, tuple)):
            raise ValueError(f"profile_diff.profiles must be a list of profiles; got {type(stored).__name__}")
        profiles = [Profile.from_dict(p) for p in stored]
        if len(labels) != len(profiles) or len(set(labels)) != len(labels):
            raise ValueError("profile diff: labels and profiles differ in number, or labels repeat")
        return diff(dict(zip(labels, profiles)))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "labels": list(self.labels),
                "unit": self.unit,
                "profiles": [p.to_dict() for p in self.profiles],
                "rows": [{"name": r.name, "calls": list(r.calls), "time_s": list(r.time_s),
                          "bytes_est": list(r.bytes_est)} for r in self.rows]}


def diff(profiles: Mapping[str, Profile]) -> ProfileDiff:
    """Line up several profiles op by op (kernel by kernel when every profile has device kernels)."""
    labels = tuple(profiles)
    ps = tuple(profiles.values())
    use_kernels = all(p.kernels for p in ps)
    names: list[str] = []
    per: list[dict[str, tuple[float, float, float]]] = []
    for p in ps:
        d: dict[str, tuple[float, float, float]] = {}
        if use_kernels:
            for k in p.kernels:
                c, t, b = d.get(k.name, (0.0, 0.0, 0.0))
                d[k.name] = (c + k.calls, t + k.total_s, b)
        else:
            for r in p.work:
                c, t, b = d.get(r.name, (0.0, 0.0, 0.0))
                d[r.name] = (c + r.calls, t + r.self_s, b + r.bytes_est)
        per.append(d)
        names += [n for n in d if n not in names]
    rows = []
    for n in names:
        vals = [d.get(n) for d in per]
        rows.append(DiffRow(n, tuple(None if v is None else v[0] for v in vals),
                            tuple(None if v is None else v[1] for v in vals),
                            tuple(None if v is None else v[2] for v in vals)))
    rows.sort(key=lambda r: -max(t or 0.0 for t in r.time_s))
    return ProfileDiff(labels, ps, tuple(rows), "kernels" if use_kernels else "ops")
