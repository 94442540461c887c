//! Why the engine refuses something: a [`ReportError`] says what is wrong (a definition's field,
//! key or filter, a query's column, the state file, a limit that left no room) and whose fault
//! it is ([`Refusal`]), which the API answers with its status code.

/// Why a definition, a query or the state file was refused. Display is the reason, naming the
/// field, key, filter or column that is wrong, or the limit that left no room.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ReportError(pub String, pub Refusal);

/// Whose fault a [`ReportError`] is: what the API answers it with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The definition or the query is wrong (a 400).
    Invalid,
    /// The definition is right but pinbad has no room for it now: the dictionary is full, so a
    /// name or value the report needs cannot be kept (a 507: it may fit once unused strings
    /// are swept).
    Full,
}

impl ReportError {
    /// A refusal of what was asked (the usual kind).
    pub fn invalid(reason: impl Into<String>) -> ReportError {
        ReportError(reason.into(), Refusal::Invalid)
    }
}

pub(super) fn err(reason: impl Into<String>) -> ReportError {
    ReportError::invalid(reason)
}
