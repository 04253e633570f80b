//! Percentiles of a bounded set of samples (nearest rank on the sorted
//! values: every sample is kept, there are at most tens of thousands).

use std::time::Duration;

/// Latencies in milliseconds.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    ms: Vec<f64>,
}

impl Samples {
    pub fn push(&mut self, latency: Duration) {
        self.ms.push(latency.as_secs_f64() * 1000.0);
    }

    pub fn extend(&mut self, other: &Samples) {
        self.ms.extend_from_slice(&other.ms);
    }

    pub fn len(&self) -> usize {
        self.ms.len()
    }

    /// The nearest-rank percentile `q` (0 < q <= 1), or `None` when empty.
    pub fn percentile(&self, q: f64) -> Option<f64> {
        if self.ms.is_empty() {
            return None;
        }
        let mut sorted = self.ms.clone();
        sorted.sort_by(f64::total_cmp);
        let rank = (q * sorted.len() as f64).ceil() as usize;
        Some(sorted[rank.clamp(1, sorted.len()) - 1])
    }

    pub fn max(&self) -> Option<f64> {
        self.percentile(1.0)
    }

    /// `{prefix}p50_ms=.. {prefix}p99_ms=.. {prefix}max_ms=.. {prefix}n=..`
    /// (`-` for a figure of no sample).
    pub fn summary(&self, prefix: &str) -> String {
        let f = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.2}"));
        format!(
            "{prefix}p50_ms={} {prefix}p99_ms={} {prefix}max_ms={} {prefix}n={}",
            f(self.percentile(0.50)),
            f(self.percentile(0.99)),
            f(self.max()),
            self.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u64]) -> Samples {
        let mut s = Samples::default();
        for v in values {
            s.push(Duration::from_millis(*v));
        }
        s
    }

    #[test]
    fn nearest_rank_percentiles() {
        let s = of(&(1..=100).rev().collect::<Vec<_>>());
        assert_eq!(s.percentile(0.50), Some(50.0));
        assert_eq!(s.percentile(0.99), Some(99.0));
        assert_eq!(s.max(), Some(100.0));
        let one = of(&[7]);
        assert_eq!(one.percentile(0.5), Some(7.0));
        assert_eq!(one.percentile(0.99), Some(7.0));
        assert_eq!(Samples::default().percentile(0.5), None);
        assert_eq!(
            of(&[1, 2, 3]).summary("x_"),
            "x_p50_ms=2.00 x_p99_ms=3.00 x_max_ms=3.00 x_n=3"
        );
        assert_eq!(
            Samples::default().summary(""),
            "p50_ms=- p99_ms=- max_ms=- n=0"
        );
    }
}
