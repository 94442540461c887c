//! Reports (interface stub: being implemented).
use std::sync::Arc;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use crate::dictionary::Dictionary;
use crate::record::RequestView;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReportDef {
    pub name: String,
    #[serde(default)]
    pub keys: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ReportError(pub String);

pub struct Report {
    pub def: ReportDef,
}

impl Report {
    pub fn new(def: ReportDef, _dict: &mut Dictionary, _max_rows: usize) -> Result<Report, ReportError> {
        Ok(Report { def })
    }
    pub fn add(&mut self, _req: &RequestView<'_>) {}
    pub fn subtract(&mut self, _req: &RequestView<'_>) {}
    pub fn release(&mut self, _dict: &mut Dictionary) {}
}

pub struct ReportCell {
    pub report: RwLock<Report>,
}

impl ReportCell {
    pub fn record_update(&self, _ns: u64, _requests: u64) {}
}

#[derive(Default)]
pub struct ReportSet {
    list: RwLock<Vec<Arc<ReportCell>>>,
}

impl ReportSet {
    pub fn snapshot(&self) -> Vec<Arc<ReportCell>> {
        self.list.read().clone()
    }
    pub fn insert(&self, report: Report) -> Result<(), ReportError> {
        self.list.write().push(Arc::new(ReportCell { report: RwLock::new(report) }));
        Ok(())
    }
}

pub fn builtin_defs() -> Vec<ReportDef> {
    Vec::new()
}

impl ReportDef {
    pub fn validate(&self) -> Result<(), ReportError> {
        Ok(())
    }
}

impl ReportCell {
    pub fn name(&self) -> String {
        self.report.read().def.name.clone()
    }
    pub fn update_ns_per_request(&self) -> f64 {
        0.0
    }
}
impl Report {
    pub fn rows(&self) -> usize {
        0
    }
    pub fn rows_lost(&self) -> u64 {
        0
    }
}
pub fn initial_defs(config: &crate::config::Config) -> Result<Vec<ReportDef>, ReportError> {
    Ok(config.report.clone())
}
