//! Whether a change between two ranges of history is more than noise: the tests a comparison
//! (`history::compare`) runs on what the store keeps of each side, which is counts, sums and
//! histograms (no per-request values, no sums of squares).
//!
//! - Request rates: the conditional (exact) binomial test of two Poisson counts. Given `n₁`
//!   requests in `t₁` seconds and `n₂` in `t₂`, under "the rate did not change" each of the
//!   `n₁ + n₂` requests falls in the first range with probability `t₁ / (t₁ + t₂)`, so `n₁` is
//!   binomial; the two-sided p-value sums the probabilities no likelier than `n₁` (R's
//!   `poisson.test` and `binom.test`). Exact up to [`EXACT_MAX`] requests, the normal
//!   approximation (continuity-corrected) beyond, where the two agree to far below any
//!   threshold anyone sets.
//! - Error ratios: the pooled two-proportion z-test (the χ² test of the 2×2 table).
//! - Percentiles: a z-test of the difference of the two sides' quantiles, each with its
//!   standard error taken from its distribution-free confidence interval (the values of ranks
//!   `nq ∓ 1.96·√(nq(1−q))`, the binomial count of samples below the quantile), read from the
//!   histogram's bins (< 1 % wide), as Price and Bonett (2001) do for medians. A Mann-Whitney
//!   test on the binned values would say whether the whole distribution moved, not whether p95
//!   did; Mood's test (the share of each side below the pooled quantile) was tried and loses
//!   its power at high quantiles when the sides are far apart: the pooled p99 then lies in the
//!   slower side's tail, where both shares are near 1 (100 requests slowed threefold: p95's
//!   p-value 0.004, p99's 1.0).
//!
//! - CPU and memory per request: Welch's t-test of the two sides' per-step means. The store
//!   keeps their sums per step, not per request (no spread of single requests, no sums of
//!   squares), but each stored step of a row is an observation of its mean per request, so the
//!   steps' means, their mean and variance ([`Moments`], Welford's running form) give each
//!   side's mean and its standard error; Welch's t (unequal variances, Welch-Satterthwaite
//!   degrees of freedom) against Student's t distribution ([`student_t_two_sided`], by the
//!   regularized incomplete beta function). The steps' means are weighted alike (a step of 3
//!   requests as one of 3,000): unweighted, the test stays conservative where a few quiet steps
//!   are noisy, and needs nothing the store does not keep.
//!
//! Pure: no I/O.

use crate::histogram::Histogram;

/// Requests up to which the rate test is exact (its cost is linear in them).
pub const EXACT_MAX: u64 = 20_000;

/// `erfc(x)`, relative error below 1.2e-7 everywhere (Numerical Recipes' `erfcc`, a Chebyshev
/// fit): enough for p-values, which are compared with thresholds of 1e-2 to 1e-4.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * (-z * z + poly).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The two-sided p-value of a standard normal statistic `z`.
pub fn two_sided_p(z: f64) -> f64 {
    if z.is_nan() {
        return 1.0;
    }
    erfc(z.abs() / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// The pooled two-proportion z-test of `x1` of `n1` against `x2` of `n2`: its two-sided
/// p-value; `None` when a side has no trials. Both sides all or nothing: 1 (nothing differs).
pub fn two_proportions(x1: u64, n1: u64, x2: u64, n2: u64) -> Option<f64> {
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let (x1, n1, x2, n2) = (x1 as f64, n1 as f64, x2 as f64, n2 as f64);
    let p = (x1 + x2) / (n1 + n2);
    let var = p * (1.0 - p) * (1.0 / n1 + 1.0 / n2);
    if var <= 0.0 {
        return Some(1.0);
    }
    Some(two_sided_p((x1 / n1 - x2 / n2) / var.sqrt()))
}

/// The test of two Poisson rates, `n1` events in `t1` seconds against `n2` in `t2` (see the
/// module docs): its two-sided p-value; `None` when a range has no length.
pub fn poisson_rates(n1: u64, t1: f64, n2: u64, t2: f64) -> Option<f64> {
    if !(t1 > 0.0 && t2 > 0.0 && t1.is_finite() && t2.is_finite()) {
        return None;
    }
    let n = n1.saturating_add(n2);
    if n == 0 {
        return Some(1.0);
    }
    Some(binomial_two_sided(n1.min(n), n, t1 / (t1 + t2)))
}

/// The two-sided binomial test of `k` successes in `n` trials of probability `p` (0 < p < 1):
/// the sum of the probabilities of the outcomes no likelier than `k` (R's `binom.test`), exact
/// up to [`EXACT_MAX`] trials.
fn binomial_two_sided(k: u64, n: u64, p: f64) -> f64 {
    if n > EXACT_MAX {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        let d = ((k as f64 - mean).abs() - 0.5).max(0.0);
        return two_sided_p(d / sd);
    }
    // ln P(j) by the recurrence P(j+1) = P(j) (n-j)/(j+1) p/(1-p), from P(0) = (1-p)^n.
    let (lp, lq) = (p.ln(), (1.0 - p).max(f64::MIN_POSITIVE).ln());
    let mut logs = Vec::with_capacity(n as usize + 1);
    let mut l = n as f64 * lq;
    for j in 0..=n {
        logs.push(l);
        l += ((n - j) as f64).ln() - ((j + 1) as f64).ln() + lp - lq;
    }
    // R's relative tolerance, so that outcomes as likely as `k` (a symmetric one) are counted
    // despite rounding.
    let bound = logs[k as usize] + 1e-7_f64.ln_1p();
    logs.iter()
        .filter(|&&l| l <= bound)
        .map(|l| l.exp())
        .sum::<f64>()
        .clamp(0.0, 1.0)
}

/// The normal quantile of a two-sided 95 % interval.
const Z95: f64 = 1.959_963_985;

/// The `p`-th percentile of `h` (ns) and its standard error: the distribution-free 95 %
/// confidence interval of a quantile is the values of ranks `nq ∓ 1.96·√(nq(1−q))` (the
/// binomial count of samples below it), read from the bins; its width over 2 × 1.96 is the
/// standard error, at least a bucket's width over √12 (the bins' own rounding: a side whose
/// samples all fall in one bucket still has that much). `None` when `h` is empty.
pub fn quantile_with_error(h: &Histogram, p: f64) -> Option<(f64, f64)> {
    let n = h.count();
    let x = h.percentile_ns(p)?;
    let nf = n as f64;
    let q = (p / 100.0).clamp(0.0, 1.0);
    let half = Z95 * (nf * q * (1.0 - q)).sqrt();
    let lo = (nf * q - half).floor().clamp(1.0, nf);
    let hi = (nf * q + half).ceil().clamp(1.0, nf);
    let at = |rank: f64| h.percentile_ns(100.0 * rank / nf).unwrap_or(x);
    let bucket = x / f64::from(crate::histogram::SUB_BUCKETS);
    let se = ((at(hi) - at(lo)) / (2.0 * Z95)).max(bucket / 12f64.sqrt());
    Some((x, se))
}

/// The test of the `p`-th percentile (0 < p < 100) of `a` against that of `b` (see the module
/// docs): the z-test of their difference, each with its standard error from its confidence
/// interval ([`quantile_with_error`]); its two-sided p-value; `None` when a side is empty.
pub fn quantile_test(a: &Histogram, b: &Histogram, p: f64) -> Option<f64> {
    let (xa, sa) = quantile_with_error(a, p)?;
    let (xb, sb) = quantile_with_error(b, p)?;
    let se = (sa * sa + sb * sb).sqrt();
    Some(if xa == xb {
        1.0
    } else if se > 0.0 {
        two_sided_p((xb - xa) / se)
    } else {
        0.0
    })
}

/// The mean and spread of observations (a row's per-step means of a figure), kept as they come
/// (Welford's running form: no sum of squares to cancel).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    pub n: u64,
    pub mean: f64,
    /// Σ (x − mean)².
    m2: f64,
}

impl Moments {
    /// Adds an observation; one that is not finite is left out.
    pub fn push(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// The sample variance (n − 1); `None` below two observations.
    pub fn variance(&self) -> Option<f64> {
        (self.n >= 2).then(|| (self.m2 / (self.n - 1) as f64).max(0.0))
    }
}

/// Welch's t-test of the means of `a` and `b` (see the module docs): its two-sided p-value;
/// `None` when a side has fewer than two observations. Equal means: 1; different means with no
/// spread on either side: 0 (every observation says so).
pub fn welch(a: &Moments, b: &Moments) -> Option<f64> {
    let (va, vb) = (a.variance()? / a.n as f64, b.variance()? / b.n as f64);
    let se2 = va + vb;
    if a.mean == b.mean {
        return Some(1.0);
    }
    if se2 <= 0.0 {
        return Some(0.0);
    }
    let t = (b.mean - a.mean) / se2.sqrt();
    let df = se2 * se2 / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64);
    Some(student_t_two_sided(t, df))
}

/// The two-sided p-value of Student's `t` with `df` degrees of freedom: `I_{df/(df+t²)}(df/2,
/// 1/2)`, the regularized incomplete beta function.
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return 1.0;
    }
    if t.is_infinite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms: relative error near 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function `I_x(a, b)` (Numerical Recipes' `betai`: the
/// continued fraction, on the side of `x` where it converges fast).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz), to 1e-14 or 300
/// terms.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let away = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away(1.0 - qab * x / qap);
    let mut h = d;
    // One term of the fraction: Lentz's update of `d` and `c`, and the factor it puts on `h`.
    let term = |aa: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 / away(1.0 + aa * *d);
        *c = away(1.0 + aa / *c);
        *d * *c
    };
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        h *= term(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let del = term(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= del;
        if (del - 1.0).abs() < 1e-14 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    /// erfc against values from tables (Abramowitz and Stegun 7.1).
    #[test]
    fn erfc_matches_the_tables() {
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (2.0, 0.004_677_734_981_047_266),
            (3.0, 2.209_049_699_858_544e-5),
            (-1.0, 1.842_700_792_949_715),
        ] {
            assert!(
                close(erfc(x), want, 2e-7),
                "erfc({x}) = {} not {want}",
                erfc(x)
            );
        }
        // p of |z| = 1.959964 is 0.05.
        assert!(close(two_sided_p(1.959_964), 0.05, 1e-5));
        assert!(close(two_sided_p(-1.959_964), 0.05, 1e-5));
        assert_eq!(two_sided_p(f64::NAN), 1.0);
    }

    /// Known p-values, as R's `prop.test(correct = FALSE)` and Python's exact sums give them.
    #[test]
    fn two_proportions_matches_known_p_values() {
        let p = two_proportions(30, 100, 45, 100).unwrap();
        assert!(close(p, 0.028_459_736_916_310_57, 1e-6), "{p}");
        let p = two_proportions(5, 1000, 15, 1000).unwrap();
        assert!(close(p, 0.024_618_761_380_815_24, 1e-6), "{p}");
        // Symmetric, and nothing differs at all.
        assert_eq!(
            two_proportions(45, 100, 30, 100),
            two_proportions(30, 100, 45, 100)
        );
        assert_eq!(two_proportions(0, 10, 0, 20), Some(1.0));
        assert_eq!(two_proportions(10, 10, 20, 20), Some(1.0));
        assert!(close(two_proportions(7, 70, 3, 30).unwrap(), 1.0, 1e-9));
        assert_eq!(two_proportions(1, 0, 1, 2), None);
    }

    /// Known p-values of R's `poisson.test(c(n1, n2), c(t1, t2))` (the exact binomial sums).
    #[test]
    fn poisson_rates_matches_known_p_values() {
        // poisson.test(c(10, 20)) = 0.09874.
        let p = poisson_rates(10, 1.0, 20, 1.0).unwrap();
        assert!(close(p, 0.098_737_146_705_389_02, 1e-6), "{p}");
        let p = poisson_rates(100, 60.0, 150, 60.0).unwrap();
        assert!(close(p, 0.001_883_300_935_076_157, 1e-6), "{p}");
        // binom.test(7, 20) = 0.2632: 7 events in 1 s against 13 in 1 s.
        let p = poisson_rates(7, 1.0, 13, 1.0).unwrap();
        assert!(close(p, 0.263_175_964_355_468_75, 1e-6), "{p}");
        // Equal rates over ranges of different lengths: no evidence at all.
        assert!(close(poisson_rates(10, 1.0, 20, 2.0).unwrap(), 1.0, 1e-9));
        assert!(close(poisson_rates(3, 1.0, 0, 1.0).unwrap(), 0.25, 1e-9));
        assert_eq!(poisson_rates(0, 1.0, 0, 1.0), Some(1.0));
        assert_eq!(poisson_rates(1, 0.0, 1, 1.0), None);
        assert_eq!(poisson_rates(1, f64::INFINITY, 1, 1.0), None);
    }

    /// Beyond the exact range the approximation agrees with the exact sum.
    #[test]
    fn the_normal_approximation_agrees_with_the_exact_test_where_it_takes_over() {
        let n = EXACT_MAX;
        let k = n / 2 - 150;
        let exact = binomial_two_sided(k, n, 0.5);
        let approx = {
            let mean = n as f64 * 0.5;
            let sd = (n as f64 * 0.25).sqrt();
            two_sided_p(((k as f64 - mean).abs() - 0.5).max(0.0) / sd)
        };
        assert!(close(approx, exact, 0.02), "{approx} against {exact}");
        // And the approximation is used past it: a huge count answers at once.
        let p = poisson_rates(u64::MAX / 4, 1.0, u64::MAX / 4, 1.0).unwrap();
        assert!(p > 0.99, "{p}");
    }

    fn hist(values_ms: &[(u64, u64)]) -> Histogram {
        let mut h = Histogram::new();
        for &(ms, n) in values_ms {
            h.add(ms * 1_000_000, n);
        }
        h
    }

    /// The percentiles' test, against p-values worked out by hand from the order statistics.
    #[test]
    fn quantile_test_matches_the_order_statistics() {
        // 1..100 ms against 11..110 ms, one request each. The medians: 50 and 60 ms. The 95 %
        // interval of a median of 100: ranks 50 ∓ 1.96 × 5 = 40.2..59.8, so ranks 40 to 60:
        // 40..60 ms and 50..70 ms; each SE 20 / 3.92 = 5.102 ms; z = 10 / 7.215 = 1.386;
        // p = 0.1658 (the bins' interpolation moves the values by well under 1 %).
        let a = hist(&(1..=100).map(|ms| (ms, 1)).collect::<Vec<_>>());
        let b = hist(&(11..=110).map(|ms| (ms, 1)).collect::<Vec<_>>());
        let (x, se) = quantile_with_error(&a, 50.0).unwrap();
        assert!(close(x, 50e6, 0.01), "{x}");
        assert!(close(se, 20e6 / 3.919_927_97, 0.02), "{se}");
        let p = quantile_test(&a, &b, 50.0).unwrap();
        assert!(close(p, 0.1658, 0.05), "{p}");
        // Three times slower, 100 requests each: every percentile far apart.
        let a = hist(&(0..100).map(|i| (20 + i % 21, 1)).collect::<Vec<_>>());
        let b = hist(&(0..100).map(|i| (60 + 3 * (i % 21), 1)).collect::<Vec<_>>());
        for pc in [50.0, 95.0, 99.0] {
            let p = quantile_test(&a, &b, pc).unwrap();
            assert!(p < 1e-6, "p{pc}: {p}");
        }
        // Identical sides: nothing; symmetric.
        assert_eq!(quantile_test(&a, &a.clone(), 95.0), Some(1.0));
        assert_eq!(quantile_test(&a, &b, 95.0), quantile_test(&b, &a, 95.0));
        // All in one bucket each, a bucket apart: the bins' rounding alone is the error.
        let one = hist(&[(10, 1000)]);
        let (_, se) = quantile_with_error(&one, 95.0).unwrap();
        assert!(close(se, 10e6 / 128.0 / 12f64.sqrt(), 0.02), "{se}");
        let a = hist(&[(10, 95), (100, 5)]);
        // A side with no requests has no percentile to test.
        assert_eq!(quantile_test(&a, &Histogram::new(), 50.0), None);
    }

    /// Student's t against closed forms (1 and 2 degrees of freedom) and the tables' critical
    /// values (the two-sided 5 % and 1 % points).
    #[test]
    fn student_t_matches_closed_forms_and_tables() {
        for t in [0.0, 0.5, 1.0, 3.0, 12.7062] {
            let cauchy = 1.0 - 2.0 / std::f64::consts::PI * f64::atan(t);
            assert!(close(student_t_two_sided(t, 1.0), cauchy, 1e-9), "t {t}");
            let two = 1.0 - t / (2.0 + t * t).sqrt();
            assert!(close(student_t_two_sided(-t, 2.0), two, 1e-9), "t {t}");
        }
        for (t, df, p) in [
            (2.228_138_852, 10.0, 0.05),
            (2.570_581_836, 5.0, 0.05),
            (2.845_339_710, 20.0, 0.01),
            (1.983_971_519, 100.0, 0.05),
        ] {
            let got = student_t_two_sided(t, df);
            assert!(close(got, p, 1e-6), "t {t}, df {df}: {got} not {p}");
        }
        // Many degrees of freedom: the normal.
        assert!(close(student_t_two_sided(1.959_964, 1e7), 0.05, 1e-4));
        assert_eq!(student_t_two_sided(f64::NAN, 3.0), 1.0);
        assert_eq!(student_t_two_sided(f64::INFINITY, 3.0), 0.0);
    }

    /// Welch's test worked by hand: a = 1..5 (mean 3, variance 2.5), b = 4, 6, 8, 10, 12
    /// (mean 8, variance 10): SE² = 2.5/5 + 10/5 = 2.5, t = 5/√2.5 = 3.1623, df = 2.5² /
    /// (0.5²/4 + 2²/4) = 6.25 / 1.0625 = 5.882; p = 0.02004 (the t density integrated
    /// numerically over both tails).
    #[test]
    fn welch_matches_a_worked_example() {
        let moments = |xs: &[f64]| {
            let mut m = Moments::default();
            for &x in xs {
                m.push(x);
            }
            m
        };
        let a = moments(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let b = moments(&[4.0, 6.0, 8.0, 10.0, 12.0]);
        assert_eq!((a.n, a.mean, a.variance()), (5, 3.0, Some(2.5)));
        assert_eq!((b.mean, b.variance()), (8.0, Some(10.0)));
        let t = 5.0 / 2.5f64.sqrt();
        let p = welch(&a, &b).unwrap();
        assert!(
            close(p, student_t_two_sided(t, 6.25 / 1.0625), 1e-12),
            "{p}"
        );
        assert!(close(p, 0.020_04, 1e-3), "{p}");
        // Symmetric; equal means: nothing; no spread but different means: certain.
        assert_eq!(welch(&b, &a), Some(p));
        assert_eq!(welch(&a, &moments(&[5.0, 1.0, 3.0])), Some(1.0));
        assert_eq!(
            welch(&moments(&[2.0, 2.0]), &moments(&[3.0, 3.0])),
            Some(0.0)
        );
        // One observation is no spread to test against; a value that is not finite is left out.
        assert_eq!(welch(&a, &moments(&[9.0])), None);
        assert_eq!(moments(&[1.0, f64::NAN, 3.0]).n, 2);
    }
}
