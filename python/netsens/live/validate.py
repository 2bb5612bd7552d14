"""``netsens validate``: the same sweep simulated and live, laid side by side.

For one application and one axis (``o=0us..100us``): live runs on real MPI with the
axis's values injected, and simulated runs on the machine's calibrated platform
(``netsens calibrate --live --save``) with the same values added to it. Computation is
lined up first: a live baseline run (nothing injected) gives each rank's time outside
MPI; the program's computation is measured once (the thread CPU time of each piece of
real work, the median over ``repeats`` simulated runs), every simulated point charges
that record, so the simulated curve is computed, deterministically, and not measured
again at each point; the ratio of the recorded compute to the live baseline's becomes
the simulation's CPU speed. With more live ranks than the machine's cores the simulation
shares the cores as the live ranks do (``ranks_per_node = "all"``, ``cores_per_node`` =
this machine's cores; ranks on one core compute in turn): live, the library's injected o
is then CPU time (docs/reference/pmpi.md, "More ranks than cores"), which is what the model's
cores describe. Otherwise every rank has a core.

The calibration runs one process per core; with more ranks than cores each message
costs more than it measured, as the ranks take turns on the cores, so the machine's
o is then fitted to the live baseline (one parameter from one point; the run time is
linear in o, so two simulations give it), and reported. What a value means on each
side: o and O add to the machine's own (the library's o is
a busy CPU on top of MPI's), L, g and G are floors (the library holds a message until
its send time + L, spaces sends by at least g), so the simulation uses
``max(machine, value)``. Live runs go in ``repeats`` MPI jobs; each job runs the
application a first time to warm up, then ``repeat_in_job`` cycles of every value, each
cycle between two baseline runs (the library switches the injected values between the
runs of one job: docs/reference/pmpi.md, ``NETSENS_SCHEDULE``). In each job the
baseline's time and each value's are the fastest of their runs, and a value's slowdown
is its time over the baseline's of the same job; a point's live slowdown is the median
over the jobs. (Runs of a few milliseconds on a shared machine drift by 20 % and more
between jobs, and with more ranks than cores a whole job runs 10-20 % faster or slower
than the next, as its ranks happen to take turns on the cores: a point compared with
baseline runs of other jobs carried that into its error. Inside a job a run is only
ever slowed -- by another process taking a core, or, on a busy machine, right after a
long run at a high value, whose ranks have spent their share of the cores -- so the
fastest run is the undisturbed one.) The error of a
point is simulated slowdown / live slowdown - 1.
"""

from __future__ import annotations

import json
import statistics
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from netsens import _core
from netsens.errors import InputError
from netsens.live.calibrate import machine_cores
from netsens.live.run import run_live
from netsens.parameters import PARAMETERS
from netsens.units import format_quantity, parse_quantity

# How the live library applies each axis (see the module doc): added to the machine's
# value, or a floor under it.
ADDITIVE = {"o", "O"}
FLOORS = {"L", "g", "G"}
# The machine file's eager limit: larger than any message (see machine_toml).
EAGER_ALWAYS = 1 << 50


@dataclass
class ValidationPoint:
    value: str
    live_ps: int
    live_spread_ps: tuple[int, int]
    simulated_ps: int
    live_slowdown: float
    simulated_slowdown: float
    error: float


def parse_axis(text: str, points: int = 5) -> tuple[str, list[str]]:
    """``o=0us..100us`` (``points`` values, evenly spaced) or ``o=0us,20us,50us``."""
    name, sep, spec = text.partition("=")
    name = name.strip()
    if not sep or name not in ADDITIVE | FLOORS:
        raise InputError(
            f'--axis: "{text}" is not NAME=FROM..TO or NAME=V1,V2,...; NAME is one of '
            f"{', '.join(sorted(ADDITIVE | FLOORS))}, e.g. o=0us..100us"
        )
    kinds = ("time",) if PARAMETERS[name].kinds[0] == "time" else ("per_byte",)
    try:
        if ".." in spec:
            lo_text, hi_text = spec.split("..", 1)
            lo, hi = (parse_quantity(name, t, kinds) for t in (lo_text, hi_text))
            if lo.kind != hi.kind or lo.value >= hi.value:
                raise ValueError(f'{name}: "{spec}" must rise from its first value to its last')
            step = (hi.value - lo.value) / (points - 1)
            values = [lo.value + i * step for i in range(points)]
            unit = hi.unit
            out = [format_quantity(v, lo.kind, unit) for v in values]
        else:
            out = [t.strip() for t in spec.split(",") if t.strip()]
            for t in out:
                parse_quantity(name, t, kinds)
    except ValueError as e:
        raise InputError(f"--axis: {e}") from None
    if len(out) < 2:
        raise InputError(f"--axis: {name} needs at least two values, e.g. {name}=0us..100us")
    return name, out


def _machine(platform: str) -> dict[str, Any]:
    try:
        return json.loads(_core.platform_json(platform, {}))
    except _core.InputError as e:
        raise InputError(f"--machine: {e}") from None


def _sim_override(axis: str, value: str, machine: dict[str, Any]) -> str:
    """The simulated platform's value of ``axis`` when ``value`` is injected live."""
    param = PARAMETERS[axis]
    q = parse_quantity(axis, value, ("time",) if param.kinds[0] == "time" else ("per_byte",))
    key = {
        "L": "latency",
        "o": "overhead",
        "g": "gap",
        "G": "gap_per_byte",
        "O": "overhead_per_byte",
    }
    own = Fraction(machine["cluster"][key[axis]])
    injected = q.value if q.kind != "bandwidth" else Fraction(10**15) / q.value
    total = own + injected if axis in ADDITIVE else max(own, injected)
    if param.kinds[0] == "time":
        return f"{int(total)}ps"
    return f"{float(total) / 1000:.3f}ps/B"  # fs/B, in a unit the platform parser reads


def _recorded_work(runs: Sequence[dict[str, Any]]) -> list[list[int]]:
    """Per rank, the median cost of each piece of work over measured runs of one
    program (the upper one of an even count): one measured computation that every
    simulated point then charges, so that the simulated curve is computed, not
    measured again at each point."""
    per_run = [r["measured_work"] for r in runs]
    shapes = {tuple(len(rank) for rank in work) for work in per_run}
    if len(shapes) != 1:
        raise InputError(
            "validate: the program's work differed between runs of the same input; "
            "its computation cannot be measured once"
        )
    return [
        [sorted(costs)[len(costs) // 2] for costs in zip(*ranks, strict=True)]
        for ranks in zip(*per_run, strict=True)
    ]


def _round_schedule(axis: str, values: Sequence[str], cycles: int) -> list[dict[str, str]]:
    """One round's runs, in the order one job runs them: a warm-up (a job's first run
    is its slow one), then ``cycles`` cycles of every value, each cycle between two
    baseline runs and every other cycle in reverse order."""
    runs: list[dict[str, str]] = [{}, {}]
    for c in range(cycles):
        order = values if c % 2 == 0 else list(reversed(values))
        runs += [{axis: v} for v in order] + [{}]
    return runs


def _live_rounds(
    job: Callable[[list[dict[str, str]]], list[int]],
    axis: str,
    values: Sequence[str],
    rounds: int,
    cycles: int,
    say: Callable[[str], None],
) -> tuple[int, tuple[int, int], list[tuple[float, int, tuple[int, int]]]]:
    """Live runs in ``rounds`` jobs, each running the baseline and every value in turn
    (see _round_schedule). In each job, the baseline's time and each value's are the
    fastest of their runs (a run is only ever slowed: by another process taking its
    core, or, after a long run at a high value, by the ranks' spent share of the cores),
    and a value's slowdown is its time over the baseline's of the same job: a change of
    the machine's load between jobs, or of how a job's ranks happen to share the cores,
    falls on both. A point's slowdown is the median over the jobs. Returns the
    baseline's median (over the jobs) and spread (over all runs), and per value
    (slowdown, median time, spread)."""
    schedule = _round_schedule(axis, values, cycles)
    runs = schedule[1:]  # the warm-up left out
    # Where in a job's runs the baseline and each value stand (the same in every job).
    base_at = [i for i, entry in enumerate(runs) if not entry]
    value_at = [[i for i, entry in enumerate(runs) if entry.get(axis) == v] for v in values]
    base_best: list[int] = []
    best: list[list[int]] = [[] for _ in values]
    base_all: list[int] = []
    every: list[list[int]] = [[] for _ in values]
    for r in range(rounds):
        say(f"round {r + 1}/{rounds}: one job, {cycles} cycles of {axis} = {', '.join(values)}")
        made = job(schedule)[1:]
        mine = [made[i] for i in base_at]
        base_all += mine
        base_best.append(min(mine))
        for k, at in enumerate(value_at):
            ts = [made[i] for i in at]
            every[k] += ts
            best[k].append(min(ts))
    per_value = [
        (
            statistics.median(t / b for t, b in zip(ts, base_best, strict=True)),
            int(statistics.median(ts)),
            (min(a), max(a)),
        )
        for ts, a in zip(best, every, strict=True)
    ]
    return int(statistics.median(base_best)), (min(base_all), max(base_all)), per_value


def _mean_compute(result: dict[str, Any]) -> float:
    return statistics.fmean(r["compute_ps"] for r in result["ranks"])


def validate(
    app: str,
    ranks: int,
    axis: str,
    values: Sequence[str],
    machine: str,
    *,
    size: str = "tiny",
    seed: int = 0,
    mpi: str = "openmpi",
    repeats: int = 5,
    repeat_in_job: int = 9,
    say: Callable[[str], None] = lambda _line: None,
) -> dict[str, Any]:
    """Sweep ``axis`` over ``values`` live and simulated (see the module doc)."""
    platform = _machine(machine)
    if platform["shape"].get("clusters"):
        raise InputError("--machine: validate compares one cluster; the platform has several")

    def live(schedule: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
        runs = len(schedule) or repeat_in_job
        return run_live(
            ranks,
            app=app,
            size=size,
            seed=seed,
            overrides={},
            mpi=mpi,
            matrix=False,
            repeat=runs,
            schedule=schedule,
        )

    say(
        f"live: {app} on {ranks} ranks, {repeats} jobs of {repeat_in_job} cycles of the "
        f"baseline and {len(values)} values, in turn"
    )
    live0, spread0, live_points = _live_rounds(
        lambda schedule: live(schedule)["makespans_ps"], axis, values, repeats, repeat_in_job, say
    )
    say("live: the baseline's computation per rank (one job)")
    live_base = live()
    cores = machine_cores()
    # The live ranks' cores (see the module doc).
    own_cores = (
        {"ranks_per_node": "all", "cores_per_node": str(cores)}
        if ranks > cores
        else {"cores_per_node": str(ranks)}
    )

    def sim_run(over: dict[str, str], **how: Any) -> dict[str, Any]:
        """One simulated run on the live ranks' cores (``how``: measured or recorded work)."""
        result = _core.run_app(
            app, ranks, size, machine, {**own_cores, **over}, seed, False, None, **how
        )
        return json.loads(result)

    say(f"measuring {app}'s computation ({repeats} runs; every simulation charges their median)")
    record = _recorded_work([sim_run({}, measured_compute=True) for _ in range(repeats)])

    def simulated(over: dict[str, str], cpu: float | None = None) -> int:
        """The simulated makespan (ps): deterministic, as the computation is the record."""
        over = {"cpu_speed": f"{cpu or speed:.6g}", **over}
        return sim_run(over, recorded_work=record)["makespan_ps"]

    probe = sim_run({}, recorded_work=record)
    speed = _mean_compute(probe) / max(_mean_compute(live_base), 1.0)

    # The calibration runs one process per core; with more ranks than cores every
    # message costs more (the ranks take turns on the cores). So the simulation is
    # fitted to the live baseline -- one point -- and every other point is a
    # prediction: first the machine's o (the run time is linear in o, so two
    # simulations give it); when even o = 0 leaves the simulation slower than the live
    # baseline, the computation is the part to scale (T = C / speed + M, two
    # simulations again).
    own_o = platform["cluster"]["overhead"]
    step = 10 * 10**6  # 10 us, ps
    t_own = simulated({"o": f"{own_o}ps"})
    t_step = simulated({"o": f"{own_o + step}ps"})
    slope = (t_step - t_own) / step
    fitted_o = own_o + (live0 - t_own) / slope if slope > 0 else own_o
    if fitted_o < 0:
        fitted_o = 0
        t_slow = simulated({"o": "0ps"})
        t_fast = simulated({"o": "0ps"}, 2 * speed)
        compute = 2 * (t_slow - t_fast)  # C / speed at the current speed
        rest = t_slow - compute
        if live0 > rest and compute > 0:
            speed *= compute / (live0 - rest)
    platform["cluster"]["overhead"] = round(fitted_o)
    fitted, calibrated = f"{fitted_o / 1e6:.3f} us", f"{own_o / 1e6:.3f} us"
    fit = f"machine o {fitted} (calibrated {calibrated}), CPU speed {speed:.3g}"
    say(f"fitted to the live baseline: {fit}")
    base_o = {"o": f"{round(fitted_o)}ps"}
    sim0 = simulated(base_o)
    points = []
    for value, (s_live, t_live, spread) in zip(values, live_points, strict=True):
        sim_over = base_o | {axis: _sim_override(axis, value, platform)}
        t_sim = simulated(sim_over)
        s_sim = t_sim / sim0
        points.append(
            ValidationPoint(value, t_live, spread, t_sim, s_live, s_sim, s_sim / s_live - 1)
        )
    return {
        "app": app,
        "ranks": ranks,
        "size": size,
        "axis": axis,
        "machine": machine,
        "mpi": mpi,
        "repeats": repeats,
        "cpu_speed": speed,
        "calibrated_o_ps": own_o,
        "fitted_cpu_speed": speed,
        "fitted_o_ps": round(fitted_o),
        "live_baseline_ps": live0,
        "live_baseline_spread_ps": list(spread0),
        "simulated_baseline_ps": sim0,
        "points": [asdict(p) for p in points],
        "max_abs_error": max(abs(p.error) for p in points),
    }


def saved_values(calibration: dict[str, Any]) -> dict[str, float]:
    """What ``machine_toml`` writes of a calibration (ps, ps/B): L, g, G and O as
    measured, a value the method could not observe as its proven bound (0 for a
    per-byte cost it showed to be hidden), a negative one (noise around 0) as 0, and
    o the mean of the streaming o_s and o_r (what a rank pays per message when messages
    stream; a calibration without them: the mean of o_s and o_r), with ``o_ping_pong``
    the mean of the single message's o_s and o_r beside it; G the long messages' per-byte
    cost (``G_long``, LogGP's G: their slope, measured or the bound it proves where the
    eager sizes' O is as large), with ``G_short`` the eager sizes' slope beside it (a
    calibration without long sizes: that slope)."""
    values: dict[str, float] = {}
    for p in calibration["parameters"]:
        if p["name"] == "G_long":
            continue
        v = p["measured"]
        if v is None:
            v = p["bound"]["value"] if p["name"] != "G" else 0.0
        values[p["name"]] = max(float(v), 0.0)
    single = (values.pop("o_s") + values.pop("o_r")) / 2
    stream = [values.pop(k) for k in ("o_s_stream", "o_r_stream") if k in values]
    values["o"] = sum(stream) / 2 if len(stream) == 2 else single
    values["o_ping_pong"] = single
    values.pop("S", None)
    long = next((_long_gap(p) for p in calibration["parameters"] if p["name"] == "G_long"), None)
    if long is not None:
        values["G_short"] = values["G"]
        values["G"] = max(float(long), 0.0)
    return values


def _long_gap(param: dict[str, Any]) -> float | None:
    """The long messages' cost per byte: measured, or the slope that bounds G."""
    if param["measured"] is not None:
        return param["measured"]
    bound = param.get("bound") or {}
    return bound.get("value") if bound.get("kind") == "at_most" else None


def machine_toml(
    calibration: dict[str, Any],
    name: str = "machine",
    cores: int | None = None,
    copy_limit: int | None = None,
) -> str:
    """A platform file of the measured machine (``calibrate --live --save``): L, o (the
    mean of the streaming o_s and o_r, see ``saved_values``), g, G and O as measured;
    a value the method could not observe is its proven bound (or 0 for a per-byte cost
    it showed to be hidden). The measured S is left out (see below). With ``cores``,
    the machine is one node of every rank with that many cores (ranks on one core
    compute in turn). With ``copy_limit`` (bytes, the MPI's shared-memory eager limit,
    ``netsens.live.copy_limit``) and the long messages' slope measured, see
    ``long_messages``."""
    values, long = saved_platform(calibration, copy_limit)
    lines = [
        f'name = "{name}"',
        'base = "loggopsim"',
        'rendezvous = "handshake"',
        "",
        "[cluster]",
        f'L = "{round(values["L"])}ps"',
        f'o = "{round(values["o"])}ps"',
        f'g = "{round(values["g"])}ps"',
        f'G = "{values["G"]:.3f}ps/B"',
        f'O = "{values["O"]:.3f}ps/B"',
    ]
    if long is None:
        lines += [
            # The library charges o once per message at each end, whatever its size
            # (the MPI's own rendezvous is inside the measured costs), so without the
            # MPI's copy limit the simulated machine sends every message eagerly.
            f'S = "{EAGER_ALWAYS}B"',
        ]
    else:
        lines += [
            f'S = "{long["S"]}B"',
            f'o_control = "{round(long["o_control"])}ps"',
        ]
    if cores is not None:
        lines += ["", "[shape]", 'ranks_per_node = "all"', f"cores_per_node = {cores}"]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)
    return text


def saved_platform(
    calibration: dict[str, Any], copy_limit: int | None
) -> tuple[dict[str, float], dict[str, float] | None]:
    """What ``machine_toml`` writes: ``saved_values``, and where long messages get
    their own cost (``long_messages``, else None) O the long messages' slope, with the
    eager sizes' O kept as ``O_eager``."""
    values = saved_values(calibration)
    long = long_messages(calibration, values, copy_limit)
    if long is not None:
        values["O_eager"] = values["O"]
        values["O"] = long["O"]
    return values, long


def long_messages(
    calibration: dict[str, Any], values: dict[str, float], copy_limit: int | None
) -> dict[str, float] | None:
    """What the saved platform charges messages above the MPI's copy limit, or None
    (every message eager): S the limit with the handshake (the MPI's rendezvous), its
    control messages at the machine's o (``o_control``: an injected o is charged once
    per MPI message, on the data), and O the long messages' per-byte cost (their
    slope, G_long, or the slope that bounds G where the eager O hides it: the slope is
    measured either way; a message above the limit is copied once, and the eager O of
    bursts of 256-byte messages is noise on this scale). Needs the limit and long
    sizes in the calibration."""
    slope = next((_long_gap(p) for p in calibration["parameters"] if p["name"] == "G_long"), None)
    if copy_limit is None or slope is None:
        return None
    return {"S": copy_limit, "O": max(float(slope), 0.0), "o_control": values["o"]}


def validation_figure(result: dict[str, Any]) -> Any:
    """The live and simulated slowdown curves of one validation (a figures.LineFigure)."""
    from netsens.report.figures import LineFigure, Series  # noqa: PLC0415

    axis, pts = result["axis"], result["points"]
    # ps → µs, or fs/B → ns/B: both a factor of 10^6.
    x_unit = "µs" if PARAMETERS[axis].kinds[0] == "time" else "ns/B"
    x = [float(parse_quantity(axis, p["value"], ("time", "per_byte")).value) / 1e6 for p in pts]
    return LineFigure(
        name=f"validate_{result['app']}_{axis}",
        title=f"{result['app']}, {result['ranks']} ranks: live vs simulated",
        x_title=f"injected {axis} ({x_unit})",
        y_title="slowdown (×)",
        series=[
            Series("live", x, [p["live_slowdown"] for p in pts], "#1f77b4"),
            Series("simulated", x, [p["simulated_slowdown"] for p in pts], "#ff7f0e", "s", True),
        ],
        caption=(
            "Slowdown against the run with nothing injected; live: median of "
            f"{result['repeats']} jobs on {result['mpi']}; simulated on the calibrated machine "
            f"{result['machine']} with compute lined up to the live baseline."
        ),
    )


def points_table_html(result: dict[str, Any]) -> str:
    """The per-point table of one validation, as HTML."""
    import html  # noqa: PLC0415

    rows = "".join(
        f"<tr><td>{html.escape(p['value'])}</td><td>{p['live_slowdown']:.3f}</td>"
        f"<td>{p['simulated_slowdown']:.3f}</td><td>{100 * p['error']:+.1f} %</td></tr>"
        for p in result["points"]
    )
    axis = html.escape(result["axis"])
    return (
        f"<table border=1><tr><th>{axis}</th><th>live slowdown (×)</th>"
        f"<th>simulated slowdown (×)</th><th>error</th></tr>{rows}</table>"
    )


def write_outputs(result: dict[str, Any], directory: Path) -> list[Path]:
    """``validation.json``, the figure as PNG and PDF, and an HTML page with both."""
    from netsens.report.draw import save_matplotlib, to_plotly  # noqa: PLC0415

    directory.mkdir(parents=True, exist_ok=True)
    fig = validation_figure(result)
    paths = [directory / "validation.json"]
    paths[0].write_text(json.dumps(result, indent=1))
    paths += save_matplotlib(fig, directory)
    # The page works offline, like the study report: plotly.js is inlined.
    html = to_plotly(fig).to_html(full_html=False, include_plotlyjs=True)
    page = directory / "validation.html"
    page.write_text(
        f"<html><head><meta charset='utf-8'><title>{fig.title}</title></head><body>"
        f"<h1>{fig.title}</h1>{html}<p>{fig.caption}</p>{points_table_html(result)}"
        "</body></html>"
    )
    return [*paths, page]
