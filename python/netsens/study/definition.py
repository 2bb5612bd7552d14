"""Studies: workloads x ranks x a grid of platform parameters, repeated over seeds.

A study is a TOML file (docs/reference/study-file.md has every key), CLI flags, or a
:class:`Study` built in Python; CLI flags override the file, the file the defaults::

    study = Study.from_toml("examples/isca97.toml", ranks=[8])
    for point in study.points(): ...   # what `netsens sweep` runs

Values carry units and are validated here, before anything runs: every error is a
:class:`StudyError` with a one-line message naming the field. Two points whose
overrides resolve to the same platform are the same point: overrides are compared by
the values the engine resolves them to (``5us`` = ``5000ns``), and an override equal
to the platform's own value is dropped.
"""

import hashlib
import itertools
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netsens import _core
from netsens.engine import app_variants, apps, is_trace, platform_toml, presets
from netsens.errors import InputError, NetsensError
from netsens.jobs import format_hosts, parse_job
from netsens.parameters import OTHER_TOML, PARAMETERS
from netsens.study.values import (
    StudyError,
    _axis_values,
    _ranks,
    _seeds,
    _unknown,
)

KEYS = (
    "name",
    "description",
    "results",
    "platform",
    "workloads",
    "size",
    "ranks",
    "seeds",
    "combine",
    "deterministic",
    "axes",
    "baseline",
    "mode",
    "mpi",
    "variants",
    "slurm",
    "beside",
)
# A study runs simulated (default) or live on real MPI (netsens.live.run), one point at a time.
MODES = ("simulate", "live")
MPI_IMPLEMENTATIONS = ("openmpi", "mpich")
COMBINE = ("each", "product")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_NUM_RANKS = re.compile(r"^\s*num_ranks\s+(\d+)\s*$")


def point_id(
    workload: str,
    size: str | None,
    ranks: int,
    platform: str,
    seed: int,
    overrides: dict[str, str],
    mode: str = "simulate",
    beside: list[str] | None = None,
) -> str:
    """First 16 hex digits of the SHA-256 of the point's canonical JSON (a live point's
    names its mode; a simulated point's is unchanged from before live mode existed)."""
    key: dict[str, Any] = {
        "workload": workload,
        "size": size,
        "ranks": ranks,
        "platform": platform,
        "seed": seed,
        "overrides": dict(sorted(overrides.items())),
    }
    if mode != "simulate":
        key["mode"] = mode
    if beside:
        key["beside"] = beside
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Point:
    """One run of a study: a workload at some ranks and seed under some overrides.

    ``overrides`` are canonical (the engine's spelling, no-ops dropped); ``axes`` are
    the curves the point belongs to: ``"baseline"``, axis names, or ``"product"``.
    """

    workload: str  # app name, or the GOAL path as the study names it
    kind: str  # "app" | "goal"
    size: str | None  # None for a GOAL file
    ranks: int
    platform: str  # as the study names it
    seed: int
    overrides: dict[str, str]
    axes: list[str]
    goal_path: str | None = None  # absolute, for the engine
    platform_path: str = ""  # preset name or absolute TOML path, for the engine
    mode: str = "simulate"  # or "live": real MPI with the platform injected
    mpi: str = "openmpi"  # a live point's MPI implementation
    # A wide-area application's variant; its workload is then labelled "water:original".
    variant: str | None = None
    # The workload's hosts on the topology (None: the first free ones) and the jobs
    # beside it, (kind, absolute path, hosts) as netsens.jobs gives them to the engine.
    hosts: list[int] | None = None
    beside: list[tuple[str, str, list[int] | None]] = field(default_factory=list)
    beside_labels: list[str] = field(default_factory=list)

    @property
    def app(self) -> str:
        """The application's name (the workload without its variant)."""
        return self.workload.split(":")[0] if self.variant else self.workload

    @property
    def axis(self) -> str:
        return self.axes[0]

    @property
    def point_id(self) -> str:
        return point_id(
            self.workload,
            self.size,
            self.ranks,
            self.platform,
            self.seed,
            self.overrides,
            self.mode,
            self.beside_labels,
        )

    def describe(self) -> str:
        """``radix 32 ranks seed 0 L=5us`` for messages."""
        over = " ".join(f"{k}={v}" for k, v in self.overrides.items()) or "baseline"
        return f"{self.workload} {self.ranks} ranks seed {self.seed} {over}"


@dataclass(frozen=True)
class Workload:
    label: str  # app name, or GOAL path relative to the study's directory
    kind: str  # "app" | "goal"
    path: str | None = None  # absolute GOAL path
    ranks: int | None = None  # a GOAL file's num_ranks
    hosts: tuple[int, ...] | None = None  # its hosts on the topology ("file.goal@0-31")


@dataclass
class Study:
    """A study (see the module docstring and docs/reference/study-file.md).

    ``axes`` maps a parameter (``L o g G O S wan_latency wan_bandwidth cpu_speed
    clusters``) to a list of values with units or a range ``{"from": "2us", "to":
    "16us", "points": 4, "scale": "log"}``. Relative paths (``results``, GOAL files, a
    platform file) start at ``base_dir``: the study file's directory, or the working
    directory for a study built in Python.
    """

    name: str
    workloads: list[str] | str
    ranks: list[int] | int = field(default_factory=list)
    axes: dict[str, Any] = field(default_factory=dict)
    platform: str = "loggopsim"
    size: str = "small"
    seeds: int | list[int] = 1
    combine: str = "each"
    baseline: dict[str, Any] = field(default_factory=dict)
    deterministic: list[str] = field(default_factory=list)
    results: str | os.PathLike[str] | None = None
    description: str = ""
    mode: str = "simulate"
    mpi: str = "openmpi"
    base_dir: Path = field(default_factory=Path.cwd)
    # Variants of the wide-area applications to run, each its own workload.
    variants: list[str] = field(default_factory=list)
    # The Slurm executor's options (netsens.slurm.executor.SlurmOptions), checked when it runs.
    slurm: dict[str, Any] = field(default_factory=dict)
    # Jobs ("FILE[@HOSTS]") that run beside every workload on the platform's topology.
    beside: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._source: str | None = None  # the study file, to name it in errors
        self.base_dir = Path(self.base_dir).resolve()
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise StudyError(
                f"name: {self.name!r} is not a study name; use letters, digits, '.', '_' "
                "and '-', e.g. name = \"isca97\""
            )
        self._check_scalars()
        self.variants = _variants(self.variants)
        self.ranks = _ranks(self.ranks)
        self.seeds = _seeds(self.seeds)
        self._workloads = self._resolve_workloads()
        self._beside = self._resolve_beside()
        if any(w.kind == "app" for w in self._workloads) and not self.ranks:
            raise StudyError("ranks: required for applications, e.g. ranks = [32]")
        self.deterministic = self._check_deterministic()
        self.baseline = self._check_baseline()
        self._platform_path = self._resolve_platform()
        if self.mode == "live" and any(w.kind != "app" for w in self._workloads):
            raise StudyError(
                'workloads: a live study runs applications (mode = "live"), not GOAL files'
            )
        if not isinstance(self.axes, dict) or not self.axes:
            raise StudyError(
                'axes: empty grid; give at least one axis, e.g. [axes] L = ["5us", "10us"]'
            )
        self._values = {name: _axis_values(name, spec) for name, spec in self.axes.items()}

    # --- construction ----------------------------------------------------------------

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], **overrides: Any) -> "Study":
        """Read the study file at ``path``; ``overrides`` (any field, e.g. ``ranks=[8]``,
        ``seeds=1``, ``platform=...``, ``workloads=[...]``, ``results=...``; ``None`` or an
        empty list means not given) replace the file's values. Relative paths among the
        overrides start at the working directory, the file's at the file's directory."""
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StudyError(f"{path}: study file not found") from None
        except IsADirectoryError:
            raise StudyError(f"{path}: is a directory, not a study file") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise StudyError(f"{path}: not a valid TOML file: {e}") from None
        for key in data:
            if key not in KEYS:
                raise StudyError(f"{path}: {_unknown('key', key, KEYS)}")
        given = {k: v for k, v in overrides.items() if v is not None and v != [] and v != ()}
        unknown = set(given) - set(KEYS)
        if unknown:
            raise TypeError(f"unknown study field(s): {', '.join(sorted(unknown))}")
        # Flag paths are relative to where the command runs, not to the study file.
        if "results" in given:
            given["results"] = Path(given["results"]).resolve()
        if "platform" in given and given["platform"] not in _preset_names():
            given["platform"] = str(Path(given["platform"]).resolve())
        if "workloads" in given:
            given["workloads"] = [
                str(Path(w).resolve()) if _looks_like_path(w) else w
                for w in _as_list(given["workloads"])
            ]
        try:
            study = cls(**(data | given), base_dir=path.parent)
            study._source = str(path)
            return study
        except StudyError as e:
            raise StudyError(f"{path}: {e}") from None
        except TypeError as e:  # a required key is missing
            missing = re.search(r"arguments?: '(\w+)'", str(e))  # one or more
            if not missing:
                raise
            raise StudyError(f"{path}: {missing.group(1)}: required key is missing") from None

    def _check_scalars(self) -> None:
        checks = (("combine", COMBINE), ("size", _sizes()), ("mode", MODES))
        for key, allowed in checks + (("mpi", MPI_IMPLEMENTATIONS),):
            value = getattr(self, key)
            if value not in allowed:
                raise StudyError(f"{key}: {_unknown(key, str(value), list(allowed))}")
        if not isinstance(self.description, str):
            raise StudyError("description: must be a string")
        if self.results is not None and not isinstance(self.results, str | os.PathLike):
            raise StudyError('results: must be a directory path, e.g. results = "results/x"')
        if not isinstance(self.baseline, dict):
            raise StudyError('baseline: must be a table of overrides, e.g. o = "2.9us"')

    def _resolve_workloads(self) -> list[Workload]:
        known = [name for name, _, _ in apps()]
        entries = _as_list(self.workloads)
        if not entries or not all(isinstance(w, str) for w in entries):
            raise StudyError(
                'workloads: give "all", or a list of application names and GOAL files, '
                'e.g. ["radix", "examples/goal/pingpong.goal"]'
            )
        out: dict[str, Workload] = {}
        for entry in entries:
            if entry == "all":
                out |= {name: Workload(name, "app") for name in known if name not in out}
            elif entry in known:
                out.setdefault(entry, Workload(entry, "app"))
            elif "@" in entry:
                goal = self._placed(entry)
                out.setdefault(goal.label, goal)
            elif _looks_like_path(entry):
                goal = self._goal(entry)
                out.setdefault(goal.label, goal)
            else:
                raise StudyError(
                    f"workloads: {_unknown('application', entry, known)}; a GOAL file must "
                    "end in .goal"
                )
        return list(out.values())

    def _placed(self, entry: str) -> Workload:
        """A GOAL file or trace on named hosts, ``"ft.goal@0-31"``."""
        path, hosts = _parse_job(entry, "workloads:")
        if not _looks_like_path(path):
            raise StudyError(f'workloads: "{entry}": only a GOAL file or trace names its hosts')
        goal = self._goal(path)
        return Workload(
            f"{goal.label}@{format_hosts(hosts or [])}",
            "goal",
            goal.path,
            goal.ranks,
            tuple(hosts or []),
        )

    def _resolve_beside(self) -> list[tuple[str, str, list[int] | None]]:
        """The jobs beside every workload, as the engine takes them."""
        jobs = []
        for entry in _as_list(self.beside):
            if not isinstance(entry, str):
                raise StudyError(f'beside: a list of "FILE[@HOSTS]" jobs, got {entry!r}')
            path, hosts = _parse_job(entry, "beside:")
            if not (self.base_dir / path).exists():
                raise StudyError(
                    f'beside: GOAL file or trace "{path}" not found (in {self.base_dir})'
                )
            full = str((self.base_dir / path).resolve())
            jobs.append(("trace" if is_trace(full) else "goal", full, hosts))
        if jobs and (self.mode == "live" or any(w.kind == "app" for w in self._workloads)):
            raise StudyError(
                "beside: jobs run beside simulated GOAL files and traces, not applications"
            )
        return jobs

    def _goal(self, entry: str) -> Workload:
        path = (self.base_dir / entry).resolve()
        if not path.exists():
            raise StudyError(f'workloads: GOAL file "{entry}" not found (in {self.base_dir})')
        label = Path(os.path.relpath(path, self.base_dir)).as_posix()
        if is_trace(path):
            try:
                return Workload(label, "goal", str(path), _core.trace_ranks(str(path)))
            except NetsensError as e:
                raise StudyError(f"workloads: {e}") from None
        with path.open("rb") as f:
            head = f.read(20)
        if head.startswith(COMPILED_MAGIC) and len(head) == 20:
            # A compiled schedule (netsens goal compile): its rank count is in its header.
            return Workload(label, "goal", str(path), int.from_bytes(head[16:20], "little"))
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                m = _NUM_RANKS.match(line)
                if m:
                    return Workload(label, "goal", str(path), int(m.group(1)))
        raise StudyError(f'workloads: "{entry}" has no num_ranks line; is it a GOAL file?')

    def _check_deterministic(self) -> list[str]:
        names = _as_list(self.deterministic)
        known = [name for name, _, _ in apps()] + [w.label for w in self._workloads]
        for name in names:
            if name not in known:
                raise StudyError(f"deterministic: {_unknown('workload', str(name), known)}")
        return list(names)

    def _check_baseline(self) -> dict[str, str]:
        out = {}
        for key, value in self.baseline.items():
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise StudyError(f"baseline.{key}: {value!r} is not a value with a unit")
            out[key] = str(value)
        return out

    def _resolve_platform(self) -> str:
        if not isinstance(self.platform, str | os.PathLike):
            raise StudyError("platform: give a preset name or a platform TOML file")
        name = os.fspath(self.platform)
        if name in _preset_names():
            return name
        path = (self.base_dir / name).resolve()
        if not path.is_file():
            raise StudyError(
                f"platform: {_unknown('preset', name, _preset_names())}, and no file "
                f'"{name}" in {self.base_dir}'
            )
        self.platform = Path(os.path.relpath(path, self.base_dir)).as_posix()
        return str(path)

    # --- what the study holds ------------------------------------------------------------

    @property
    def workload_list(self) -> list[Workload]:
        return list(self._workloads)

    @property
    def axis_names(self) -> list[str]:
        return list(self._values)

    @property
    def axis_values(self) -> dict[str, list[str]]:
        """Each axis's values as the engine reads them (ranges expanded)."""
        return {k: list(v) for k, v in self._values.items()}

    @property
    def results_dir(self) -> Path:
        if self.results is not None:
            return (self.base_dir / self.results).resolve()
        return self.base_dir / "results" / self.name

    def seeds_for(self, workload: str) -> list[int]:
        return [0] if workload in self.deterministic else list(self.seeds)

    def to_dict(self) -> dict[str, Any]:
        """The resolved study as plain data (the results directory's manifest)."""
        return {
            "name": self.name,
            "description": self.description,
            "platform": self.platform,
            "workloads": [w.label for w in self._workloads],
            "size": self.size,
            "ranks": list(self.ranks),
            "seeds": list(self.seeds),
            "combine": self.combine,
            "deterministic": list(self.deterministic),
            "axes": self.axis_values,
            "baseline": dict(self.baseline),
            **({"mode": "live", "mpi": self.mpi} if self.mode == "live" else {}),
            **({"variants": list(self.variants)} if self.variants else {}),
            **({"beside": [os.fspath(b) for b in _as_list(self.beside)]} if self.beside else {}),
        }

    # --- points --------------------------------------------------------------------------

    def points(self) -> list[Point]:
        """Every point of the study, each once, baseline points first per (workload,
        ranks, seed). Validates the grid with the engine (``StudyError``)."""
        try:
            return self._points()
        except StudyError as e:
            raise StudyError(f"{self._source}: {e}" if self._source else str(e)) from None

    def _points(self) -> list[Point]:
        bare = _resolve(self._platform_path, {}, "platform")
        base, base_doc = _canonical(self._platform_path, bare, self.baseline, "baseline")
        cells = [(axis, over, doc) for axis, over, doc in self._cells(bare)]
        points: dict[str, Point] = {}
        for w in self._workloads:
            for ranks in [w.ranks] if w.kind == "goal" else self.ranks:
                _check_shape(base_doc, ranks, w.label, "baseline")
                for axis, _, doc in cells:
                    _check_shape(doc, ranks, w.label, f"axes.{axis}")
                for seed in self.seeds_for(w.label):
                    base_axes = ["baseline"] + (self.axis_names if self.combine == "each" else [])
                    for variant in self._variants_of(w):
                        self._add(points, w, ranks, seed, base, base_axes, variant)
                        for axis, over, _ in cells:
                            self._add(points, w, ranks, seed, over, [axis], variant)
        return list(points.values())

    def _cells(self, bare: dict[str, Any]) -> list[tuple[str, dict[str, str], dict[str, Any]]]:
        """(axis, canonical overrides, resolved platform) of each grid cell, deduplicated."""
        if self.combine == "each":
            combos = [
                (name, f"axes.{name}", {name: value})
                for name, values in self._values.items()
                for value in values
            ]
        else:
            names = self.axis_names
            combos = [
                ("product", "axes", dict(zip(names, values, strict=True)))
                for values in itertools.product(*self._values.values())
            ]
        seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        cells = []
        for axis, where, cell in combos:
            over, doc = _canonical(self._platform_path, bare, self.baseline | cell, where)
            key = (axis, tuple(over.items()))
            if key not in seen:
                seen.add(key)
                cells.append((axis, over, doc))
        return cells

    def _add(
        self,
        points: dict[str, Point],
        w: Workload,
        ranks: int,
        seed: int,
        overrides: dict[str, str],
        axes: list[str],
        variant: str | None = None,
    ) -> None:
        point = Point(
            workload=f"{w.label}:{variant}" if variant else w.label,
            kind=w.kind,
            size=self.size if w.kind == "app" else None,
            ranks=ranks,
            platform=os.fspath(self.platform),
            seed=seed,
            overrides=overrides,
            axes=list(axes),
            goal_path=w.path,
            platform_path=self._platform_path,
            mode=self.mode,
            mpi=self.mpi,
            variant=variant,
            hosts=list(w.hosts) if w.hosts is not None else None,
            beside=self._beside,
            beside_labels=[os.fspath(b) for b in _as_list(self.beside)],
        )
        known = points.setdefault(point.point_id, point)
        known.axes += [a for a in axes if a not in known.axes]

    def _variants_of(self, w: Workload) -> list[str | None]:
        """The study's variants that workload ``w`` has (all it has when it has none of
        them, e.g. fft1d's original); ``[None]`` for a workload without variants."""
        accepted = app_variants(w.label) if self.variants and w.kind == "app" else []
        if not accepted:
            return [None]
        return [v for v in self.variants if v in accepted] or list(accepted)


# --- helpers ---------------------------------------------------------------------------


def _parse_job(entry: str, what: str) -> tuple[str, list[int] | None]:
    try:
        return parse_job(entry, what)
    except InputError as e:
        raise StudyError(str(e)) from None


def _variants(value: Any) -> list[str]:
    values = _as_list(value)
    for v in values:
        if v not in ("original", "optimized", "original-messages"):
            raise StudyError(
                f"variants: unknown variant {v!r}; write variants = "
                '["original", "optimized"] (or "original-messages")'
            )
    return list(dict.fromkeys(values))


def _preset_names() -> list[str]:
    return [name for name, _ in presets()]


def _sizes() -> list[str]:
    sizes: list[str] = []
    for _, _, app_sizes in apps():
        sizes += [s for s in app_sizes if s not in sizes]
    return sizes


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, str | os.PathLike):
        return [os.fspath(value)]
    return list(value) if isinstance(value, list | tuple) else [value]


# The first bytes of a compiled schedule (crates/netsens-core/src/schedule/compiled.rs).
COMPILED_MAGIC = b"NSGSCHED"


def _looks_like_path(entry: Any) -> bool:
    text = os.fspath(entry)
    liballprof = os.path.basename(text).startswith(("pmpi-trace-rank-", "htor-coll-rank-"))
    named = text.endswith((".goal", ".nsg", ".otf2", ".meta"))
    return named or liballprof or "/" in text or os.sep in text


def _resolve(platform: str, overrides: dict[str, str], where: str) -> dict[str, Any]:
    """The resolved platform as a dict (through its TOML, which has every value in the
    engine's exact spelling)."""
    try:
        return tomllib.loads(platform_toml(platform, overrides))
    except InputError as e:
        message = str(e)
        name = where.removeprefix("axes.")
        message = message.removeprefix(f"{name}: ") if where.startswith("axes.") else message
        raise StudyError(f"{where}: {message}") from None


def _lookup(doc: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def _engine_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return value if isinstance(value, str) else repr(value)


def _canonical(
    platform: str, bare: dict[str, Any], overrides: dict[str, str], where: str
) -> tuple[dict[str, str], dict[str, Any]]:
    """Overrides in the engine's spelling, without those the platform already has, and
    the platform they resolve to."""
    doc = _resolve(platform, overrides, where)
    out = {}
    for key, raw in overrides.items():
        path = PARAMETERS[key].toml if key in PARAMETERS else OTHER_TOML.get(key)
        if path is None:
            out[key] = raw
        elif (value := _lookup(doc, path)) != _lookup(bare, path):
            # A platform made one cluster has no cluster list: the engine spells it "all".
            out[key] = "all" if value is None and key == "clusters" else _engine_text(value)
    return dict(sorted(out.items())), doc


def _check_shape(doc: dict[str, Any], ranks: int, workload: str, where: str) -> None:
    """The platform's clusters, if it has several, must hold exactly the ranks."""
    clusters = _lookup(doc, ("shape", "clusters"))
    if clusters is None:
        return
    if isinstance(clusters, str):
        count, _, size = clusters.partition("x")
        total = int(count) * int(size)
    else:
        total = sum(clusters)
    if total != ranks:
        raise StudyError(
            f"ranks: {workload} at {ranks} ranks does not fit the clusters of {where} "
            f"({clusters}, {total} ranks); set ranks to {total} or change clusters"
        )
