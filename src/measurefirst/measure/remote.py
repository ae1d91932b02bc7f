"""A sampler in another interpreter: the worker serves its :class:`~measurefirst.measure.engine.Sampler`
phase by phase (:func:`serve`), and the parent drives it through :class:`RemoteSampler`, which has the
sampler's phases, so that :func:`measurefirst.tools.compare.compare_samplers` interleaves the blocks of
two interpreters as it interleaves two functions of one (``pytest --mf-against``: the base tree's test
in one worker, the head tree's in another).

The rules:

* Every timing is taken in the worker, by its own timer; the parent only orders the phases. A reply
  carries the worker's time spent in the phase (``spent_ns``, on the worker's timer: simulated in
  tests), and the parent's clock (:class:`SumClock`) is the sum of those: the budget and the stopping
  rule read the time spent measuring, in the simulated world and the real one alike.
* Before each phase the worker's sampler is set to the parent's elapsed time (its ``t_begin``), so
  that the warm-up and the calibration end where the parent's budget ends.
* A phase that raises in the worker replies with the error; the parent raises :class:`RemoteError`
  (the comparison reports the candidate, the phase and the worker's words). A worker that dies or
  says nothing for ``timeout_s`` raises :class:`WorkerLost` with the tail of its output.
* Measurements travel as their JSON dictionaries (``to_dict``/``from_dict``), so two trees with
  different versions of measurefirst still understand each other.
"""

from __future__ import annotations

import math
import socket
from dataclasses import dataclass
from multiprocessing.connection import Connection as PipeConnection
from typing import Any, Callable, Protocol

from ..results.kinds import Measurement, Stop

#: The phases a worker serves (the first element of a request).
PHASES = ("overhead", "warm_up", "calibrate", "prepare", "block", "stop_at_deadline", "result")
#: Requests that end serving one measurement: the comparison is over, or it was abandoned.
ENDS = ("done", "abort")
#: The environment variable that tells a worker where to connect: ``host:port:token:side``.
ENV_VAR = "MEASUREFIRST_AGAINST"


class RemoteError(RuntimeError):
    """A phase raised in the worker: ``phase``, the exception's type name and message."""

    def __init__(self, message: str, *, phase: str, kind: str) -> None:
        super().__init__(message)
        self.phase, self.kind = phase, kind


class WorkerLost(RuntimeError):
    """The worker died or stopped answering; the message holds the tail of its output."""


class Connection(Protocol):
    def send(self, obj: Any) -> None: ...
    def recv(self) -> Any: ...
    def poll(self, timeout: float | None = ...) -> bool: ...
    def close(self) -> None: ...


class Channel:
    """Requests and replies over one connection to one worker, with a time limit per reply and the
    worker's last words when it is lost (``describe``: the tail of its output, its exit status)."""

    def __init__(self, conn: Connection, name: str, describe: Callable[[], str], timeout_s: float,
                 pid: int | None = None) -> None:
        self.conn, self.name, self.describe, self.timeout_s = conn, name, describe, timeout_s
        self.pid = pid  # the worker's process, where known (its CPUs are bound while it measures)

    def send(self, message: tuple[Any, ...]) -> None:
        try:
            self.conn.send(message)
        except (OSError, EOFError) as exc:
            raise WorkerLost(f"the {self.name} worker is gone ({exc}){self.describe()}") from exc

    def recv(self) -> Any:
        limit = self.timeout_s
        try:
            ready = self.conn.poll(limit)
            if not ready:
                raise WorkerLost(f"the {self.name} worker said nothing for {limit:.0f} s{self.describe()}")
            return self.conn.recv()
        except (OSError, EOFError) as exc:
            raise WorkerLost(f"the {self.name} worker is gone ({type(exc).__name__}){self.describe()}") from exc

    def request(self, message: tuple[Any, ...]) -> Any:
        self.send(message)
        return self.recv()


class SumClock:
    """The parent's clock: the time its workers spent in the phases it asked for (nanoseconds)."""

    def __init__(self) -> None:
        self.total_ns = 0.0

    def now_ns(self) -> int:
        return int(self.total_ns)

    def advance(self, spent_ns: float) -> None:
        if spent_ns > 0 and math.isfinite(spent_ns):
            self.total_ns += spent_ns


@dataclass(frozen=True)
class RemoteCalibration:
    """What the comparison reads of a remote sampler's calibration."""

    number: int
    per_call_estimate_ns: float


class RemoteSampler:
    """The parent's side of a sampler served by a worker (see the module docstring)."""

    def __init__(self, channel: Channel, label: str, clock: SumClock, budget_s: float) -> None:
        self.channel, self.label, self.clock, self.budget_s = channel, label, clock, budget_s
        self.t_begin = clock.now_ns()
        self.phase = "start"
        self.index: int | None = None
        self.t_sampling = self.t_begin
        self.calibration: RemoteCalibration | None = None
        self.samples: list[float] = []
        self.numbers: list[int] = []
        #: a request was sent and its reply not read (Ctrl-C came between): the channel is out of step
        self.out_of_step = False

    def _call(self, phase: str, *args: Any) -> Any:
        if self.out_of_step:  # a Ctrl-C came between a request and its reply
            raise WorkerLost(f"the {self.channel.name} worker's answer to an interrupted request is still pending")
        elapsed_s = (self.clock.now_ns() - self.t_begin) / 1e9
        self.out_of_step = True
        reply = self.channel.request((phase, elapsed_s, *args))
        self.out_of_step = False
        if not (isinstance(reply, tuple) and len(reply) >= 3):
            raise WorkerLost(f"the {self.channel.name} worker answered {reply!r} to {phase!r}")
        status, value, spent = reply[0], reply[1], reply[2]
        self.clock.advance(float(spent))
        if status == "error":
            kind, message = value
            raise RemoteError(f"{kind}: {message}", phase=phase, kind=str(kind))
        return value

    def begin(self, options: dict[str, Any]) -> None:
        """The worker builds its sampler with the comparison's ``options`` (budget, precision, min_time)."""
        self._call("options", options)

    def measure_overhead(self) -> float:
        self.phase = "overhead"
        return float(self._call("overhead"))

    def warm_up(self, cold_ns: float | None = None) -> None:
        self.phase = "warm-up"
        self._call("warm_up", cold_ns)

    def calibrate(self, overhead_ns: float) -> int:
        self.phase = "calibration"
        number, estimate = self._call("calibrate", overhead_ns)
        self.calibration = RemoteCalibration(int(number), float(estimate))
        return int(number)

    def past_deadline(self) -> bool:
        return self.clock.now_ns() >= self.t_begin + self.budget_s * 1e9

    def prepare(self) -> None:
        self._call("prepare")

    def take_block(self, count: int, deadline_ns: float = math.inf) -> float:
        left_s = (deadline_ns - self.clock.now_ns()) / 1e9 if math.isfinite(deadline_ns) else math.inf
        value, samples, numbers = self._call("block", int(count), left_s)
        self.samples.extend(float(s) for s in samples)
        self.numbers.extend(int(n) for n in numbers)
        return float(value)

    def stop_at_deadline(self) -> Stop:
        sample, number = self._call("stop_at_deadline")
        self.samples.append(float(sample))
        self.numbers.append(int(number))
        return Stop("budget", False, 0.0, 0.0)

    def result(self, stop: Stop, complete: bool) -> Measurement:
        d = self._call("result", stop.reason, stop.target_met, stop.precision, stop.seconds, complete)
        return Measurement.from_dict(d)


class Served(Protocol):
    """What :func:`serve` drives: :class:`~measurefirst.measure.engine.Sampler`."""

    t_begin: int
    samples: list[float]
    numbers: list[int]
    timer: Any
    calibration: Any
    #: the time of calls that compiled (kept off the budget; of it, a cold call timed by the caller), and the
    #: time off the budget for other reasons
    compile_ns: float
    compile_given_ns: float
    off_budget_ns: float

    def measure_overhead(self) -> float: ...
    def warm_up(self, cold_ns: float | None = None) -> None: ...
    def calibrate(self, overhead_ns: float, recent_ns: list[float] | None = None) -> int: ...
    def prepare(self) -> Callable[[], object]: ...
    def take_block(self, count: int, deadline_ns: float = ...) -> float: ...
    def stop_at_deadline(self) -> Stop: ...
    def result(self, stop: Stop, complete: bool) -> Measurement: ...


def _phase(sampler: Served, phase: str, args: tuple[Any, ...]) -> tuple[Any, Measurement | None]:
    if phase == "overhead":
        return float(sampler.measure_overhead()), None
    if phase == "warm_up":
        sampler.warm_up(args[0])
        return None, None
    if phase == "calibrate":
        number = sampler.calibrate(float(args[0]))
        return (number, float(sampler.calibration.per_call_estimate_ns)), None
    if phase == "prepare":
        sampler.prepare()
        return None, None
    if phase == "block":
        count, left_s = int(args[0]), float(args[1])
        first = len(sampler.samples)
        deadline = sampler.timer.now_ns() + left_s * 1e9 if math.isfinite(left_s) else math.inf
        value = sampler.take_block(count, deadline)
        return (value, sampler.samples[first:], sampler.numbers[first:]), None
    if phase == "stop_at_deadline":
        sampler.stop_at_deadline()
        return (sampler.samples[-1], sampler.numbers[-1]), None
    if phase == "result":
        reason, met, precision, seconds, complete = args
        m = sampler.result(Stop(str(reason), bool(met), float(precision), float(seconds)), bool(complete))
        return m.to_dict(), m
    raise ValueError(f"unknown phase {phase!r}; known: {', '.join(PHASES)}")


def serve(conn: Connection, make: Callable[[dict[str, Any]], Served]) -> tuple[str, Measurement | None]:
    """Serve one measurement to the parent: its first request, ``("options", elapsed, {...})``, builds the
    sampler (``make``, from the comparison's budget, precision and minimum time); then each phase is
    answered until the parent says ``done`` or ``abort``. Returns that word and the last measurement
    asked for (``None`` if none was). A phase that raises is answered with the error (the parent decides
    what follows); Ctrl-C is not caught."""
    last: Measurement | None = None
    sampler: Served | None = None
    while True:
        message = conn.recv()
        phase = message[0]
        if phase in ENDS:
            return phase, last
        elapsed_s = float(message[1])
        t0 = sampler.timer.now_ns() if sampler is not None else 0
        try:
            if phase == "options":
                sampler = make(dict(message[2]))
                sampler.t_begin = int(sampler.timer.now_ns() - elapsed_s * 1e9)
                conn.send(("ok", None, 0))
                continue
            if sampler is None:
                raise RuntimeError(f"phase {phase!r} before the options")
            # the parent's clock is the budget's: it never saw this worker's compiles (kept off the budget,
            # reported as no time spent), so they must not move the deadline here a second time
            compiled0, timed0 = sampler.compile_ns, sampler.compile_ns - sampler.compile_given_ns
            sampler.t_begin = int(t0 - elapsed_s * 1e9)
            sampler.off_budget_ns = -compiled0
            value, m = _phase(sampler, phase, tuple(message[2:]))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the test's function failed: the parent reports it
            spent = sampler.timer.now_ns() - t0 if sampler is not None else 0
            conn.send(("error", (type(exc).__name__, str(exc)), spent))
            continue
        if m is not None:
            last = m
        compiled_here = (sampler.compile_ns - sampler.compile_given_ns) - timed0  # calls timed in this phase
        conn.send(("ok", value, sampler.timer.now_ns() - t0 - compiled_here))


def connect_back(value: str) -> tuple[PipeConnection, str, str]:
    """The worker's side of :class:`WorkerPool`: connect to ``host:port`` (the value of :data:`ENV_VAR`);
    the connection, the token to say hello with and this worker's side."""
    host, port, token, side = value.rsplit(":", 3)
    sock = socket.create_connection((host, int(port)), timeout=60)
    sock.settimeout(None)
    return PipeConnection(sock.detach()), token, side
