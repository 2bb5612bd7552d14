//! Dispersion statistics over cycles and the α–β least-squares line.

/// Mean, standard deviation (population: the cycles are all there is), extremes and
/// coefficient of variation of a series of times in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    /// sd / mean (0 when the mean is 0).
    pub cv: f64,
}

impl Summary {
    pub fn of(values: &[f64]) -> Summary {
        if values.is_empty() {
            return Summary::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Summary { mean, sd, min, max, cv: if mean > 0.0 { sd / mean } else { 0.0 } }
    }
}

/// The α–β model `T(n) = α + β·n` fitted by least squares, with its R².
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AlphaBeta {
    /// Start-up cost, ps.
    pub alpha: f64,
    /// Cost per byte, ps/B.
    pub beta: f64,
    /// Share of the variance of T the line explains (1 when T is constant and fitted).
    pub r2: f64,
}

impl AlphaBeta {
    /// Fit `(bytes, ps)` points; one distinct size gives β = 0.
    pub fn fit(points: &[(f64, f64)]) -> AlphaBeta {
        let n = points.len() as f64;
        if points.is_empty() {
            return AlphaBeta::default();
        }
        let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
        let beta = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let alpha = my - beta * mx;
        let sse: f64 = points.iter().map(|p| (p.1 - alpha - beta * p.0).powi(2)).sum();
        let r2 = if syy > 0.0 { 1.0 - sse / syy } else { 1.0 };
        AlphaBeta { alpha, beta, r2 }
    }

    pub fn at(&self, bytes: f64) -> f64 {
        self.alpha + self.beta * bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population sd 2 (the textbook example).
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!((s.mean, s.sd, s.min, s.max, s.cv), (5.0, 2.0, 2.0, 9.0, 0.4));
    }

    #[test]
    fn fit_recovers_a_line_and_scores_noise() {
        let exact = AlphaBeta::fit(&[(1.0, 13.0), (2.0, 16.0), (4.0, 22.0)]);
        assert!((exact.alpha - 10.0).abs() < 1e-9 && (exact.beta - 3.0).abs() < 1e-9 && exact.r2 == 1.0);
        // y = 0, 2, 0, 2 at x = 0..3: β = 0.4, α = 0.4, R² = 1 − 3.2/4 = 0.2.
        let noisy = AlphaBeta::fit(&[(0.0, 0.0), (1.0, 2.0), (2.0, 0.0), (3.0, 2.0)]);
        assert!((noisy.beta - 0.4).abs() < 1e-9 && (noisy.alpha - 0.4).abs() < 1e-9 && (noisy.r2 - 0.2).abs() < 1e-9);
    }
}
