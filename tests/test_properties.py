"""Property tests (Hypothesis): any study file and any arguments of the Python API give
a result or a netsens error with a one-line message -- never another exception, and
never a hang (each input has a time limit)."""

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import netsens
from netsens.errors import NetsensError
from netsens.parameters import PARAMETERS
from netsens.study.definition import KEYS, Study

ROOT = Path(__file__).resolve().parent.parent
PINGPONG = ROOT / "examples/goal/pingpong.goal"

# Values that look like the real ones (units, presets, app names) and values that do not.
WORDS = ["5us", "6ns/B", "1MB/s", "64KiB", "tiny", "small", "radix", "loggopsim", "each"]
WORDS += ["product", "log", "linear", "pingpong.goal", "all", "-1us", "0ns", "1e400us", ""]
scalars = st.one_of(
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)
values = st.one_of(scalars, st.lists(scalars, max_size=4))
axis_specs = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=3),
    st.fixed_dictionaries(
        {}, optional={k: scalars for k in ("from", "to", "points", "scale", "values")}
    ),
)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if -(2**63) <= v < 2**63 else json.dumps(str(v))
    if isinstance(v, float):
        return (
            "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
        )
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    return "[" + ", ".join(toml_value(x) for x in v) + "]"


study_files = st.one_of(
    st.text(max_size=200),  # anything at all, most of it not TOML
    st.builds(
        lambda top, axes: (
            "\n".join(f"{k} = {toml_value(v)}" for k, v in top.items())
            + "\n[axes]\n"
            + "\n".join(f"{k} = {toml_value(v)}" for k, v in axes.items())
            + "\n"
        ),
        st.dictionaries(st.sampled_from([*KEYS, "bogus"]), values, max_size=6),
        st.dictionaries(st.sampled_from([*PARAMETERS, "bogus"]), axis_specs, max_size=3),
    ),
)


def assert_one_line(e: NetsensError) -> None:
    message = str(e)
    assert message and "\n" not in message, repr(message)


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(study_files)
def test_any_study_file_gives_points_or_one_error_line(text: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "study.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        (Path(directory) / "pingpong.goal").write_text(PINGPONG.read_text())
        try:
            points = Study.from_toml(path).points()
        except NetsensError as e:
            assert_one_line(e)
        else:
            assert all(p.point_id for p in points)


@settings(max_examples=200, deadline=10_000, suppress_health_check=[HealthCheck.too_slow])
@given(
    workload=st.one_of(st.sampled_from(["radix", "stencil", str(PINGPONG)]), st.text(max_size=10)),
    ranks=st.one_of(
        st.none(),
        st.integers(min_value=-4, max_value=16),
        st.integers(min_value=2**31, max_value=2**70),
        st.sampled_from([True, 2.5, "4"]),
    ),
    size=st.one_of(st.sampled_from(["tiny", "small", "paper"]), st.text(max_size=6)),
    seed=st.one_of(st.integers(min_value=-(2**65), max_value=2**65), st.sampled_from([1.5, "1"])),
    overrides=st.dictionaries(
        st.one_of(st.sampled_from(list(PARAMETERS)), st.text(max_size=4)),
        st.one_of(st.sampled_from(WORDS), st.text(max_size=8)),
        max_size=3,
    ),
)
def test_any_api_arguments_give_a_result_or_one_error_line(
    workload: str, ranks: Any, size: str, seed: Any, overrides: dict[str, str]
) -> None:
    if size == "paper" and isinstance(ranks, int):
        size = "tiny"  # the paper inputs take minutes: not a property-test budget
    try:
        result = netsens.run(workload, ranks=ranks, size=size, seed=seed, overrides=overrides)
    except NetsensError as e:
        # A message quotes the input it refuses, newlines and all (the command line
        # prints it on one line); its own text is one line.
        if not any("\n" in str(x) for x in (workload, size, *overrides, *overrides.values())):
            assert_one_line(e)
    else:
        assert result.makespan_ps >= 0
