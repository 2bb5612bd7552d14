//! Noise distributions: parsing, display, seeded sampling, means and bounds.

use super::msg;
use netsens_core::platform::Dist;
use netsens_core::time::{NS, US};
use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

// ---------------------------------------------------------------- noise

#[test]
fn dist_parse_and_display() {
    let cases = [
        ("none", Dist::None),
        ("constant(2us)", Dist::Constant(2 * US)),
        ("uniform(0ns, 5us)", Dist::Uniform(0, 5 * US)),
        ("exponential(2us)", Dist::Exponential(2 * US)),
        ("normal(5us, 1us)", Dist::Normal(5 * US, US)),
        ("lognormal(5us, 1us)", Dist::LogNormal(5 * US, US)),
        ("exponential(1.5ms)", Dist::Exponential(1_500 * US)),
    ];
    for (text, dist) in cases {
        assert_eq!(Dist::parse("noise.x", text).unwrap(), dist, "{text}");
        assert_eq!(dist.to_string(), text);
        assert_eq!(Dist::parse("noise.x", &dist.to_string()).unwrap(), dist);
    }
    assert_eq!(Dist::parse("n", " uniform( 1us ,2us ) ").unwrap(), Dist::Uniform(US, 2 * US));
    assert!(Dist::None.is_none());
    assert!(!Dist::Constant(0).is_none());
}

#[test]
fn dist_errors() {
    let e = msg(Dist::parse("noise.latency_jitter", "gamma(1us)"));
    assert!(e.starts_with(r#"noise.latency_jitter: unknown distribution "gamma" in "gamma(1us)"; write none,"#), "{e}");
    assert_eq!(
        msg(Dist::parse("noise.latency_jitter", "exponential(5)")),
        r#"noise.latency_jitter: "5" has no unit; write a time such as 5us"#
    );
    assert!(msg(Dist::parse("n", "exponential(1us, 2us)")).contains("exponential takes 1 time, got 2"));
    assert!(msg(Dist::parse("n", "normal(1us)")).contains("normal takes 2 times, got 1"));
    assert!(msg(Dist::parse("n", "uniform()")).contains("uniform takes 2 times, got 0"));
    assert!(msg(Dist::parse("n", "uniform(5us, 1us)")).contains("lower bound above its upper bound"));
    assert!(msg(Dist::parse("n", "constant(1us")).contains("closing parenthesis"));
    assert!(msg(Dist::parse("n", "5us")).contains("is not a distribution"));
    assert!(msg(Dist::parse("n", "constant(-1us)")).contains("negative"));
    assert!(msg(Dist::parse("n", "lognormal(0ns, 1us)")).contains("positive mean"));
}

fn draws(d: &Dist, seed: u64, n: usize) -> Vec<u64> {
    let mut rng = ChaCha12Rng::seed_from_u64(seed);
    (0..n).map(|_| d.sample(&mut rng)).collect()
}

#[test]
fn dist_sampling_is_deterministic() {
    for d in
        [Dist::Uniform(0, 5 * US), Dist::Exponential(2 * US), Dist::Normal(5 * US, US), Dist::LogNormal(5 * US, US)]
    {
        assert_eq!(draws(&d, 42, 1000), draws(&d, 42, 1000), "{d}");
        assert_ne!(draws(&d, 42, 1000), draws(&d, 43, 1000), "{d}");
    }
    assert_eq!(draws(&Dist::None, 1, 10), vec![0; 10]);
    assert_eq!(draws(&Dist::Constant(7 * NS), 1, 10), vec![7_000; 10]);
}

fn mean(d: &Dist, n: usize) -> f64 {
    draws(d, 7, n).iter().map(|&x| x as f64).sum::<f64>() / n as f64
}

#[test]
fn dist_means() {
    // Exponential with mean 2 us: the sample mean of 100k draws has a relative standard
    // error of 1/sqrt(1e5) = 0.3%, so 2% is more than six standard errors.
    let m = mean(&Dist::Exponential(2 * US), 100_000);
    assert!((m / 2e6 - 1.0).abs() < 0.02, "mean {m}");
    // Lognormal with mean 5 us and sd 1 us: relative standard error 0.2 / sqrt(1e5).
    let m = mean(&Dist::LogNormal(5 * US, US), 100_000);
    assert!((m / 5e6 - 1.0).abs() < 0.02, "mean {m}");
    // Uniform on [0, 5 us]: mean 2.5 us, relative sd 0.577 / sqrt(1e5).
    let m = mean(&Dist::Uniform(0, 5 * US), 100_000);
    assert!((m / 2.5e6 - 1.0).abs() < 0.02, "mean {m}");
    // Normal(5us, 1us) hardly clamps (5 sd above 0): mean 5 us.
    let m = mean(&Dist::Normal(5 * US, US), 100_000);
    assert!((m / 5e6 - 1.0).abs() < 0.02, "mean {m}");
}

#[test]
fn dist_bounds_and_clamping() {
    assert!(draws(&Dist::Uniform(US, 2 * US), 3, 10_000).iter().all(|&x| (US..=2 * US).contains(&x)));
    // Normal(0, 1us): every negative draw clamps to 0, about half of them.
    let d = draws(&Dist::Normal(0, US), 3, 10_000);
    let zeros = d.iter().filter(|&&x| x == 0).count();
    assert!((4_500..5_500).contains(&zeros), "{zeros} zeros");
}
