"""Fits of the measured curves (netsens.models.fit): a line, a one-breakpoint hinge, the
elasticity and the knee, against numbers derived by hand from synthetic data."""

import numpy as np
import pytest
from frames import synthetic_frame

from netsens.models.fit import elasticity, find_knee, fit_table, hinge_fit, linear_fit

US = 1_000_000  # ps per us
MS = 1_000_000_000  # ps per ms


def hinge(x, c, level, left, right):
    x = np.asarray(x, float)
    return level + left * np.minimum(x - c, 0) + right * np.maximum(x - c, 0)


def test_line_recovers_slope_and_intercept_and_r2_is_one():
    x = np.array([2.9, 10, 25, 50, 75, 103])
    fit = linear_fit(x, 0.02 + 0.0062 * x)
    assert fit.slope == pytest.approx(0.0062, rel=1e-9)
    assert fit.intercept == pytest.approx(0.02, rel=1e-9)
    assert fit.r2 == pytest.approx(1.0, abs=1e-12)


def test_r2_by_hand():
    # Through (0,0), (1,1), (2,1): slope 1/2, intercept 1/6; residuals -1/6, 1/3, -1/6
    # give SSE = 1/6; the mean is 2/3, SST = 4/9 + 1/9 + 1/9 = 2/3; R² = 1 - 1/4.
    fit = linear_fit(np.array([0.0, 1, 2]), np.array([0.0, 1, 1]))
    assert (fit.slope, fit.intercept) == pytest.approx((0.5, 1 / 6))
    assert fit.sse == pytest.approx(1 / 6)
    assert fit.r2 == pytest.approx(0.75)


def test_r2_of_a_constant_curve_is_undefined():
    assert linear_fit(np.array([1.0, 2, 3]), np.array([5.0, 5, 5])).r2 is None


@pytest.mark.parametrize(
    ("c", "left", "right"),
    [
        (37.3, 0.2, 3.0),  # between two values
        (50.0, 0.0, 1.0),  # on a value, flat left
        (12.0, 2.0, 0.5),  # steep then shallow (a saturation)
        (88.8, -1.0, 4.0),  # falling then rising, near the end
    ],
)
def test_hinge_recovers_breakpoint_and_slopes(c, left, right):
    x = np.arange(0, 101, 10.0)
    fit = hinge_fit(x, hinge(x, c, 7.0, left, right))
    assert fit.breakpoint == pytest.approx(c, rel=0.01)
    assert fit.left_slope == pytest.approx(left, rel=0.01, abs=1e-9)
    assert fit.right_slope == pytest.approx(right, rel=0.01)
    assert fit.level == pytest.approx(7.0, rel=0.01)
    assert fit.r2 == pytest.approx(1.0, abs=1e-9)


def test_hinge_recovers_random_hinges_on_uneven_grids():
    rng = np.random.default_rng(6)
    for _ in range(50):
        x = np.sort(rng.uniform(0, 1000, size=9))
        c = rng.uniform(x[1], x[-2])
        left, right = rng.uniform(-5, 5, size=2)
        if abs(left - right) < 0.5:
            continue
        fit = hinge_fit(x, hinge(x, c, rng.uniform(1, 100), left, right))
        assert fit.breakpoint == pytest.approx(c, rel=0.01)
        assert (fit.left_slope, fit.right_slope) == pytest.approx((left, right), rel=0.01)


def test_hinge_with_little_noise_stays_within_one_percent():
    # 0.01% noise on a hinge at 37.3 (slopes 0.2 and 3 per unit around a level of 100).
    rng = np.random.default_rng(1)
    x = np.arange(0, 101, 5.0)
    y = hinge(x, 37.3, 100.0, 0.2, 3.0)
    fit = hinge_fit(x, y * (1 + 1e-4 * rng.standard_normal(len(x))))
    assert fit.breakpoint == pytest.approx(37.3, rel=0.01)
    assert (fit.left_slope, fit.right_slope) == pytest.approx((0.2, 3.0), rel=0.01)


def test_hinge_needs_four_values():
    assert hinge_fit(np.array([1.0, 2, 3]), np.array([1.0, 2, 4])) is None


def test_knee_on_flat_then_rising():
    # Flat at 20 until 12, then rising 1 per unit: the knee is at 12.
    x = np.array([1.0, 4, 8, 10, 14, 20, 40, 80])
    y = hinge(x, 12.0, 20.0, 0.0, 1.0)
    knee = find_knee(x, linear_fit(x, y), hinge_fit(x, y))
    assert knee == pytest.approx(12.0, rel=0.01)


@pytest.mark.parametrize(
    "y",
    [
        lambda x: 3 + 2 * x,  # a straight line
        lambda x: 5 + 0 * x,  # constant
        lambda x: hinge(x, 12.0, 20.0, 1.0, 0.0),  # rising then flat: a ceiling
        lambda x: hinge(x, 12.0, 20.0, 0.5, 1.0),  # two slopes, neither flat
        lambda x: hinge(x, 12.0, 20.0, 0.0, 1e-4),  # flat: a rise of 0.03% only
    ],
    ids=["line", "constant", "ceiling", "bend", "flat"],
)
def test_no_knee(y):
    x = np.array([1.0, 4, 8, 10, 14, 20, 40, 80])
    values = y(x)
    assert find_knee(x, linear_fit(x, values), hinge_fit(x, values)) is None


def test_elasticity_by_hand():
    # T = 10 ms + 2 ms/us · o at o0 = 5 us: T0 = 20 ms, d ln T / d ln o = 2·5/20 = 0.5.
    assert elasticity(2.0, 5.0, 20.0) == pytest.approx(0.5)
    assert elasticity(2.0, 0.0, 20.0) is None


def test_fit_table_units_slope_elasticity_and_knee():
    # o: T = 10 ms + 2·1000·o (m = 1000 messages, 2 ms of run time per us of o), the
    # baseline at o0 = 2.9 us: T0 = 15.8 ms. Slope 0.002 s per us; elasticity
    # 0.002 · 2.9 / 0.0158.
    # g: flat at 15.8 ms up to g = 20 us, then 1000 messages · Δg: knee at 20 us.
    def t_o(o_us):
        return 10 * MS + 2 * 1000 * o_us * US

    def t_g(g_us):
        return 15.8 * MS + 1000 * max(g_us - 20, 0) * US

    o_values = [10, 25, 50, 75, 103]
    g_values = [1, 10, 15, 30, 60, 100]
    df = synthetic_frame(
        {
            "o": [(v * US, t_o(v)) for v in o_values],
            "g": [(v * US, t_g(v)) for v in g_values],
            "G": [(100_000.0, 20 * MS), (1_000_000.0, 40 * MS)],
        },
        baseline_makespan_ps=t_o(2.9),
    )
    fits = {r["axis"]: r for r in fit_table(df).to_dicts()}
    o = fits["o"]
    assert (o["x_unit"], o["slope_unit"], o["points"]) == ("us", "s per us", 6)
    assert (o["x_min"], o["x_max"], o["baseline_x"]) == pytest.approx((2.9, 103, 2.9))
    assert o["slope"] == pytest.approx(0.002)
    assert o["intercept_s"] == pytest.approx(0.010)
    assert o["r2"] == pytest.approx(1.0)
    assert o["elasticity"] == pytest.approx(0.002 * 2.9 / 0.0158)
    assert o["max_slowdown"] == pytest.approx(t_o(103) / t_o(2.9))
    assert o["max_slowdown_at"] == pytest.approx(103)
    assert o["knee"] is None
    g = fits["g"]
    assert g["points"] == 7  # the six values and the baseline's 5.8 us
    assert g["knee"] == pytest.approx(20, rel=0.01)
    assert g["hinge_breakpoint"] == pytest.approx(20, rel=0.01)
    assert g["hinge_slope_left"] == pytest.approx(0, abs=1e-9)
    assert g["hinge_slope_right"] == pytest.approx(1e-3)  # 1000 messages: 1 ms per us
    # G in ns/B: 26.315789, 100 and 1000 ns/B; three points: no hinge.
    assert (fits["G"]["x_unit"], fits["G"]["slope_unit"]) == ("ns/B", "s per ns/B")
    assert fits["G"]["x_max"] == pytest.approx(1000)
    assert fits["G"]["hinge_breakpoint"] is None


def test_bandwidth_is_fitted_as_time_per_byte():
    # A wide-area bandwidth B is fitted against 1/B in ns/B, so a bandwidth-bound
    # run is a line: T = 10 ms + 1 MB · (1/B) gives 1 ms per ns/B.
    def t(bandwidth):
        return 10 * MS + 1e6 * (1e9 / bandwidth) * 1000  # 1e6 B at 1/B ns each, in ps

    values = [1e6, 3e6, 1e7, 3e7]  # B/s
    df = synthetic_frame(
        {"wan_bandwidth": [(v, t(v)) for v in values]},
        baseline_makespan_ps=t(1e8),
        params={"wan_bandwidth_Bps": 1e8, "wan_latency_ps": 1e9, "clusters": "2x4"},
    )
    (row,) = fit_table(df).to_dicts()
    assert (row["x_name"], row["x_unit"]) == ("1/wan_bandwidth", "ns/B")
    assert (row["x_min"], row["x_max"]) == pytest.approx((10, 1000))
    assert row["slope"] == pytest.approx(1e-3)
    assert row["r2"] == pytest.approx(1.0)
