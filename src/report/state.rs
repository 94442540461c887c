//! Persistence of run-time changes: `{state_dir}/reports.json`, replayed at start-up.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::err;
use super::*;

/// The state file, in `state_dir`, holding run-time report changes.
pub const STATE_FILE: &str = "reports.json";

/// `{state_dir}/reports.json`: the report changes made at run time, replayed at start-up by
/// [`initial_defs`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    #[serde(default = "state_version")]
    pub version: u32,
    /// Reports created at run time (`POST`), in creation order. They win over a static (built-in
    /// or configured) report of the same name.
    #[serde(default)]
    pub created: Vec<ReportDef>,
    /// Static reports (built-in or configured) deleted at run time.
    #[serde(default)]
    pub deleted: Vec<String>,
}

pub(super) fn state_version() -> u32 {
    1
}

impl Default for StateFile {
    fn default() -> StateFile {
        StateFile {
            version: state_version(),
            created: Vec::new(),
            deleted: Vec::new(),
        }
    }
}

impl StateFile {
    /// A report was created at run time.
    pub fn record_create(&mut self, def: &ReportDef) {
        self.created.retain(|d| d.name != def.name);
        self.created.push(def.clone());
    }

    /// A report was deleted at run time; `is_static` says whether the name is one of
    /// [`static_defs`] (which must then stay deleted across restarts).
    pub fn record_delete(&mut self, name: &str, is_static: bool) {
        self.created.retain(|d| d.name != name);
        if is_static && !self.deleted.iter().any(|n| n == name) {
            self.deleted.push(name.to_string());
        }
    }
}

/// `{dir}/reports.json`.
pub fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// What `{state_dir}/reports.json` holds ([`read_state`]).
#[derive(Debug, PartialEq)]
pub enum SavedState {
    /// No file: no run-time change was made yet.
    Absent,
    Read(StateFile),
    /// The file is there but cannot be used (not JSON, not this file's shape, a definition in it
    /// invalid), with why. A start sets it aside (`durable::set_aside`) and goes on with the
    /// configured reports.
    Damaged(String),
}

/// Reads `{dir}/reports.json`; an error (naming the file) only when it cannot be read at all
/// (permissions, a directory in its place): a damaged content is [`SavedState::Damaged`].
pub fn read_state(dir: &Path) -> Result<SavedState, ReportError> {
    let path = state_path(dir);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(SavedState::Absent),
        Err(e) => return Err(err(format!("{}: {e}", path.display()))),
    };
    let state: StateFile = match serde_json::from_slice(&bytes) {
        Ok(s) => s,
        Err(e) => return Ok(SavedState::Damaged(e.to_string())),
    };
    for (i, d) in state.created.iter().enumerate() {
        if let Err(e) = d.validate() {
            return Ok(SavedState::Damaged(format!(
                "created[{i}] `{}`: {e}",
                d.name
            )));
        }
    }
    Ok(SavedState::Read(state))
}

/// Reads `{dir}/reports.json`: `None` when it does not exist, an error naming the file when it
/// cannot be read or parsed (or a definition in it is invalid).
pub fn load_state(dir: &Path) -> Result<Option<StateFile>, ReportError> {
    match read_state(dir)? {
        SavedState::Absent => Ok(None),
        SavedState::Read(state) => Ok(Some(state)),
        SavedState::Damaged(why) => Err(err(format!("{}: {why}", state_path(dir).display()))),
    }
}

/// Writes `{dir}/reports.json` whole and durably (see `durable`), creating `dir`.
pub fn save_state(dir: &Path, state: &StateFile) -> Result<(), ReportError> {
    let path = state_path(dir);
    crate::durable::write_json(&path, state).map_err(|e| err(format!("{}: {e}", path.display())))
}

/// The reports the configuration defines: the built-ins (if `builtin_reports`), then the
/// `[[report]]` tables (`configured`); a `[[report]]` of a built-in's name takes the built-in's
/// place (pinba2's `report_by_script_name`, with pinba2's columns and window, is the table its
/// users query by that name).
pub fn static_defs(builtin_reports: bool, configured: &[ReportDef]) -> Vec<ReportDef> {
    let mut defs = if builtin_reports {
        builtin_defs()
    } else {
        Vec::new()
    };
    for c in configured {
        match defs.iter_mut().find(|d| d.name == c.name) {
            Some(builtin) => *builtin = c.clone(),
            None => defs.push(c.clone()),
        }
    }
    defs
}

/// The configured reports that take a built-in's place, by name (logged at start).
pub fn replaced_builtins(builtin_reports: bool, configured: &[ReportDef]) -> Vec<String> {
    if !builtin_reports {
        return Vec::new();
    }
    let builtins = builtin_defs();
    configured
        .iter()
        .filter(|c| builtins.iter().any(|b| b.name == c.name))
        .map(|c| c.name.clone())
        .collect()
}

/// Replays run-time changes over static definitions: drops every name in `deleted`, then adds
/// each `created` definition, replacing a static one of the same name in place.
///
/// Where the config and the saved changes disagree, the run-time change wins (it is the newer
/// decision of the operator) and a warning says so: a configured report deleted at run time stays
/// deleted, and a report created at run time replaces a configured one of the same name, even if
/// the config file changed since. To return to the config's definition, drop the name from
/// `reports.json` (or DELETE the report and re-create it).
pub fn apply_state(mut defs: Vec<ReportDef>, state: &StateFile) -> Vec<ReportDef> {
    defs.retain(|d| {
        let deleted = state.deleted.contains(&d.name);
        if deleted {
            tracing::warn!(report = %d.name, "Configured report stays deleted (deleted at run time, see reports.json)");
        }
        !deleted
    });
    for c in &state.created {
        match defs.iter_mut().find(|d| d.name == c.name) {
            Some(d) => {
                if d != c {
                    tracing::warn!(report = %c.name, "The definition created at run time (reports.json) replaces the configured one");
                }
                *d = c.clone();
            }
            None => defs.push(c.clone()),
        }
    }
    defs
}

/// The definitions to create at start-up, in order:
/// 1. the built-ins (`info` + 20 `report_by_*`) if `builtin_reports`, then `configured`;
/// 2. then the run-time changes of `{state_dir}/reports.json`, if it exists: reports deleted at
///    run time (built-ins and configured ones too) are dropped, reports created at run time are
///    added (replacing a static report of the same name).
///
/// So a report created or deleted through the API stays so across restarts, while edits to the
/// config file take effect for every report the API has not touched. An unreadable or invalid
/// state file is an error (start-up should fail rather than silently lose reports).
pub fn initial_defs(
    builtin_reports: bool,
    configured: &[ReportDef],
    state_dir: &Path,
) -> Result<Vec<ReportDef>, ReportError> {
    let defs = static_defs(builtin_reports, configured);
    let path = state_path(state_dir);
    Ok(match load_state(state_dir)? {
        Some(state) => {
            tracing::info!(
                path = %path.display(),
                created = state.created.len(),
                deleted = state.deleted.len(),
                "SavedState run-time report changes"
            );
            apply_state(defs, &state)
        }
        None => {
            tracing::info!(path = %path.display(), "No run-time report changes saved yet");
            defs
        }
    })
}
