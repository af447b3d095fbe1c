//! Checks of the `[metrics]` section that a [`super::Plan`] resolves:
//! the sampling interval, the series-only metrics, the size statistics.

use super::MetricsCfg;
use crate::config::{duration_ms, err, ConfigError};
use crate::metrics::size_stats::SizeStatsSpec;
use crate::sim::{ms_to_ns, secs_to_ns, Time};

/// The sampling interval (`metrics.interval_ms`), at least a microsecond.
pub(super) fn interval_ns(m: &MetricsCfg) -> Result<Time, ConfigError> {
    let interval_ms = duration_ms("metrics.interval_ms", m.interval_ms, true)?;
    Ok(ms_to_ns(interval_ms).max(1))
}

/// Series-only metrics are asked for only with the series.
pub(super) fn series_metrics(m: &MetricsCfg) -> Result<(), ConfigError> {
    if m.utilization_pkts && !m.series {
        return err(
            "metrics.utilization_pkts",
            "is a series metric: it needs metrics.series = true",
        );
    }
    if m.utilization_retx && !m.series {
        return err(
            "metrics.utilization_retx",
            "is a series metric: it needs metrics.series = true",
        );
    }
    Ok(())
}

/// The streaming FCT statistics, if asked for (their settings are checked
/// either way).
pub(super) fn size_stats(m: &MetricsCfg) -> Result<Option<SizeStatsSpec>, ConfigError> {
    let from_s = m.size_stats_from_s;
    if !(from_s.is_finite() && from_s >= 0.0) {
        return err(
            "metrics.size_stats_from_s",
            format!("must be a time >= 0 in seconds, got {from_s}"),
        );
    }
    if let Some(u) = m.size_stats_until_s {
        if !(u.is_finite() && u > from_s) {
            return err(
                "metrics.size_stats_until_s",
                format!("must be a time in seconds after size_stats_from_s ({from_s}), got {u}"),
            );
        }
    }
    let spec = SizeStatsSpec::new(&m.size_stats_quantiles, m.size_stats_alpha, "metrics")?;
    Ok(m.size_stats
        .then(|| spec.window(secs_to_ns(from_s), m.size_stats_until_s.map(secs_to_ns))))
}
