//! Reports: definitions, the windowed aggregation engine, and queries over it.
//!
//! In: requests from the merge threads, a round at a time ([`Report::add_batch`], from a
//! [`PreparedBatch`] made once per round for every report), or one at a time ([`Report::add`]:
//! tests), and the time ([`Report::advance`], which moves the window). Out: [`Table`]s for the API
//! ([`Report::query`]). A merge thread updates a report under its write lock; the API queries
//! under its read lock. Pure: no I/O, no clock (times are arguments), and updates never touch the
//! dictionary (rows are keyed by ids, and the dictionary sweeps a string only after it has been
//! unused for longer than any window), so reports are updated without the dictionary's lock. Only
//! the persistence helpers ([`load_state`], [`save_state`], [`initial_defs`]) do file I/O, for the
//! API and the app.
//!
//! A report (see docs/REPORTS.md) is a set of rows keyed by the ids of its keys, each row holding
//! integer sums (nanoseconds, bytes, counts) and a histogram, plus the same for the whole report
//! (totals), over a window of ticks ([`Report`] says how a request gets in and out). Because every
//! sum is an integer and a tick leaves the window by subtracting exactly what it added (the same
//! f32 → ns conversion), a report always equals one built from scratch over the requests inside
//! its window, however many billions of updates it has seen, whatever the raw pool still holds.
//!
//! The modules, in reading order (each stage after what it stands on):
//! - `error`: why a definition, a query or the state file is refused ([`ReportError`]);
//! - `def`: definitions (keys, filters, presets, percentiles), their validation, the built-ins;
//! - `sums`: integer sums ([`Sums`]) and what one request or timer adds to them;
//! - `keys`: keys and filters interned, a request's row key built from them ([`RowSelector`]);
//! - `rows`: a row, and the hash tables holding a report's rows by key;
//! - `batch`: a merge round's requests, prepared once for every report ([`PreparedBatch`]);
//! - `window`: the [`Window`] and its ticks: the open tick closed ([`ClosedTick`]), ticks expired;
//! - `live`: the [`Report`]: its state, how it is made from a definition;
//! - `hist_log`: histogram samples logged per contribution, applied to their rows in batches;
//! - `update`: the update path, a round's requests into the open tick;
//! - `view`: a report as a query reads it, each row's closed part and open tick summed;
//! - `columns`: the metric and percentile columns, what each reads from a row's sums;
//! - `table`: a query's answer, the [`Table`] the API renders as JSON or CSV;
//! - `query`: queries: a report's rows filtered, sorted and cut into a table;
//! - `family`: reports that are projections of one aggregate, sharing its per-request work;
//! - `lattice`: a family's stage for timer reports keyed by different timer tags;
//! - `split`: a report or a family stage counted by several merge threads, in parts folded in;
//! - `set`: the [`ReportSet`] of live reports, each behind its own lock;
//! - `snapshot`: a report's window in and out of the shutdown snapshot (see the crate's
//!   `snapshot`);
//! - `state`: run-time changes persisted in `{state_dir}/reports.json`, replayed at start-up.

mod error;
mod def;
mod sums;
mod keys;
mod rows;
mod batch;
mod window;
mod live;
mod hist_log;
mod update;
mod view;
mod columns;
mod table;
mod query;
mod family;
mod lattice;
mod split;
mod set;
mod snapshot;
mod state;
#[cfg(test)]
mod tests;

pub use batch::PreparedBatch;
pub use columns::{percentile_of_column, KeyTexts, KeyValue, SumColumn};
pub use def::*;
pub use error::{Refusal, ReportError};
pub use family::{form_families, restore_stages, round_leaders, Family, LeaderRound, SavedFamily};
pub use keys::RowSelector;
pub use live::Report;
pub use query::{Query, DEFAULT_QUERY_LIMIT};
pub use set::*;
pub use snapshot::Layout;
pub use split::{Split, StageSplit};
pub use state::*;
pub(crate) use sums::ns;
pub use sums::{Sum96, Sums};
pub use table::{csv_field, csv_row, Cell, Table};
pub use window::{ClosedTick, Window, DEFAULT_TICKS};
