//! pinbad's own figures on `/metrics` (declared once in `crate::status`), followed by the report
//! series.

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;

use super::Metrics;
use crate::status::Sources;

/// One scrape's collector: the status figures, then the report series.
pub(super) struct StatusCollector {
    pub(super) sources: Sources,
    pub(super) metrics: Arc<Metrics>,
}

impl std::fmt::Debug for StatusCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusCollector")
    }
}

impl Collector for StatusCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        crate::status::encode_prometheus(&self.sources, &mut enc)?;
        self.metrics.state.lock().encode(&mut enc)
    }
}
