//! `CREATE TABLE … ENGINE=PINBA` and `DROP TABLE`: reports created and dropped over SQL through
//! the HTTP API's code paths (`Core::create_report`, `Core::drop_report`).
//!
//! In: a classified DDL statement and the session's pending drops. Out: the OK's info text or a
//! MySQL error, and what `SHOW WARNINGS` lists. Runs on the blocking pool (a creation waits for
//! the merger to fill the new report; a change writes the state file).
//!
//! A `DROP TABLE` of a report is pending until the session's next statement, and carried out
//! then (or when the session ends), unless that statement is a `CREATE TABLE` of the same name:
//! pinba_engine's `default_tables.sql` drops and creates every table it defines, and a report
//! made again would lose its window and its history. Such a CREATE resolves the drop:
//! - one that gives the report it would replace ([`same_definition`]: the same keys, filters and
//!   window, and columns that are the report's table's, or the first of them) keeps that report
//!   as it is, data and history (a no-op, said in a note);
//! - one that gives another replaces it, and says so: the OK's info text, `SHOW WARNINGS` and a
//!   log line name the old and the new definitions;
//! - one that cannot be created carries the drop out and answers its error (MySQL's order).
//!
//! The session sees MySQL's order: every statement after the DROP but that CREATE finds the table
//! gone. Other sessions see it until the dropping session's next statement or its end.
//!
//! pinba_engine's `status` table is pinbad's (`vtab`): its DDL is a note that it exists, as a
//! raw table's is. Its `active_reports` table (comment `active`), and a `status` table of
//! another name, are accepted with a warning saying what pinbad offers in their place
//! (`information_schema.TABLES`, the table `status`, the HTTP API): they hold no report, and
//! their DDL is in the scripts people run to set a server up.

use opensrv_mysql::ErrorKind;

use super::layout::layout;
use super::statement::Statement;
use super::status::StatusTable;
use super::vtab::{is_fixed_table, Raw};
use super::SqlContext;
use crate::config::import::{compat_of, convert_with, parse_tables, Outcome, Settings};
use crate::report::{Kind, ReportDef};
use crate::state::ReportChangeError;

/// How long a `CREATE TABLE` waits for the merger to fill the new report from the pool.
const FILL_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A line of `SHOW WARNINGS`.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    /// `Note` or `Warning`.
    pub level: &'static str,
    pub code: u16,
    pub message: String,
}

impl Warning {
    fn note(code: u16, message: String) -> Warning {
        Warning {
            level: "Note",
            code,
            message,
        }
    }

    /// A `Warning` under MySQL's catch-all code (`ER_UNKNOWN_ERROR`).
    fn unknown(message: String) -> Warning {
        Warning {
            level: "Warning",
            code: ER_UNKNOWN_ERROR,
            message,
        }
    }
}

const ER_UNKNOWN_ERROR: u16 = 1105;
const ER_BAD_TABLE_ERROR: u16 = 1051;

/// A DDL statement's answer: the OK's info text (its warnings' messages) or an error, and its
/// warnings.
pub struct Done {
    pub result: Result<String, (ErrorKind, String)>,
    pub warnings: Vec<Warning>,
}

impl Done {
    fn ok(warnings: Vec<Warning>) -> Done {
        let info: Vec<&str> = warnings.iter().map(|w| w.message.as_str()).collect();
        Done {
            result: Ok(info.join("; ")),
            warnings,
        }
    }

    fn error(kind: ErrorKind, message: String) -> Done {
        Done {
            result: Err((kind, message)),
            warnings: Vec::new(),
        }
    }
}

/// The name a `CREATE TABLE` statement gives its table, if it can be read.
pub fn created_name(sql: &str) -> Option<String> {
    parse_tables(sql).into_iter().next().map(|t| t.name)
}

/// Answers `statement` (a `CREATE TABLE` or `DROP TABLE`), given the session's `pending` drops
/// (which a DROP adds to and a CREATE of one of them resolves; the caller carried out the others
/// first).
pub fn run(ctx: &SqlContext, statement: Statement, pending: &mut Vec<String>) -> Done {
    if !ctx.ddl_allowed {
        return Done::error(
            ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR,
            "CREATE and DROP TABLE need a session authenticated by mysql.password, or no \
             http.token (as the HTTP API's changes do)"
                .into(),
        );
    }
    match statement {
        Statement::CreateTable(sql) => create_table(ctx, &sql, pending),
        Statement::DropTables { if_exists, tables } => drop_tables(ctx, if_exists, tables, pending),
        _ => Done::error(ErrorKind::ER_UNKNOWN_ERROR, "not DDL".into()),
    }
}

/// `DROP TABLE`: every name checked first (MySQL drops all or none), each report's drop left
/// pending (see the module's doc).
fn drop_tables(
    ctx: &SqlContext,
    if_exists: bool,
    tables: Vec<String>,
    pending: &mut Vec<String>,
) -> Done {
    let mut warnings = Vec::new();
    let mut reports = Vec::new();
    for name in tables {
        if is_fixed_table(&name) {
            warnings.push(Warning::note(
                ER_UNKNOWN_ERROR,
                format!("{name}: pinbad's raw tables and status tables always exist"),
            ));
        } else if ctx.core.reports().get(&name).is_some() {
            if !reports.contains(&name) {
                reports.push(name);
            }
        } else if if_exists {
            warnings.push(Warning::note(
                ER_BAD_TABLE_ERROR,
                format!("Unknown table 'pinba.{name}'"),
            ));
        } else {
            return Done::error(
                ErrorKind::ER_BAD_TABLE_ERROR,
                format!("Unknown table 'pinba.{name}'"),
            );
        }
    }
    pending.extend(reports);
    Done::ok(warnings)
}

/// Drops the reports `names` now (a pending drop carried out), forgetting their history.
pub fn carry_out(ctx: &SqlContext, names: Vec<String>) {
    for name in names {
        match ctx.core.drop_report(&name) {
            Ok(()) => {
                ctx.history.forget(&name);
                tracing::info!(report = %name, "Report dropped (SQL DROP TABLE)");
            }
            // Dropped meanwhile (by another session or the HTTP API).
            Err(ReportChangeError::NotFound(_)) => {}
            Err(e) => {
                tracing::warn!(report = %name, error = %e, "Report not dropped (SQL DROP TABLE)")
            }
        }
    }
}

/// Drops the report `name` now, leaving its history to the report that replaces it.
fn drop_keeping_history(ctx: &SqlContext, name: &str) {
    match ctx.core.drop_report(name) {
        Ok(()) | Err(ReportChangeError::NotFound(_)) => {}
        Err(e) => {
            tracing::warn!(report = %name, error = %e, "Report not dropped (SQL CREATE TABLE)")
        }
    }
}

/// pinba_engine's tables that are no report: their comment's table type, and what pinbad offers
/// in their place.
fn elsewhere(comment: &str) -> Option<&'static str> {
    let kind = comment.split(':').next().unwrap_or("").trim();
    match kind.to_ascii_lowercase().as_str() {
        "status" => Some(
            "pinba_engine's status table: pinbad's is the table `status` (all of its status: \
             GET /api/v1/status and /metrics)",
        ),
        "active" | "active_reports" => Some(
            "pinba_engine's active_reports table: pinbad lists its reports in \
             information_schema.TABLES and at GET /api/v1/reports, their costs at GET \
             /api/v1/status",
        ),
        _ => None,
    }
}

fn create_table(ctx: &SqlContext, sql: &str, pending: &mut Vec<String>) -> Done {
    let if_not_exists = sql.to_ascii_uppercase().contains("IF NOT EXISTS");
    let Some(table) = parse_tables(sql).into_iter().next() else {
        return Done::error(
            ErrorKind::ER_PARSE_ERROR,
            "CREATE TABLE: cannot read the statement".into(),
        );
    };
    let name = table.name.clone();
    // A drop of this name waiting for this statement: resolved here, whatever the outcome.
    let replacing = match pending.iter().position(|p| *p == name) {
        Some(i) => {
            pending.remove(i);
            true
        }
        None => false,
    };
    let raw = Raw::of(&name);
    let status_table = StatusTable::of(&name);
    let status = status_table.is_some();
    // A built-in as pinbad made it is no table of the user's: a CREATE of its name (pinba2's
    // `report_by_script_name`, with pinba2's columns and window) takes its place, as a DROP
    // before it would have let it.
    let builtin = !replacing
        && raw.is_none()
        && !status
        && ctx.core.reports().get(&name).is_some_and(|c| c.builtin());
    if !replacing
        && !builtin
        && (raw.is_some() || status || ctx.core.reports().get(&name).is_some())
    {
        let comment = table.comment.as_deref().unwrap_or("");
        // A raw or status table's own DDL (pinba_engine's `request` …, `status`, pinba2's
        // `v2/stats`, `v2/active`) is the table pinbad has; so is any status table's under
        // the name of one (pinba_engine's `active` by pinba2's name).
        let own = raw.map_or(status_table.map_or("", StatusTable::comment), Raw::name);
        let status_ddl = status
            && (elsewhere(comment).is_some()
                || StatusTable::ALL
                    .iter()
                    .any(|t| t.comment().eq_ignore_ascii_case(comment.trim())));
        if if_not_exists || status_ddl || (!own.is_empty() && comment.eq_ignore_ascii_case(own)) {
            return Done::ok(vec![Warning::note(
                1050,
                format!("table `{name}` already exists"),
            )]);
        }
        return exists(&name);
    }
    let settings = Settings {
        default_history_time: ctx.config.pinba2_default_history_time.0.as_secs(),
    };
    let (new, notes) = match new_definition(table, &name, &settings) {
        Ok(converted) => converted,
        // A table that is no report leaves the built-in of its name as it was.
        Err(_) if builtin => {
            if if_not_exists {
                return Done::ok(vec![Warning::note(
                    1050,
                    format!("table `{name}` already exists"),
                )]);
            }
            return exists(&name);
        }
        Err(NotReport::Elsewhere(what)) if !replacing => {
            return Done::ok(vec![Warning::unknown(format!(
                "table `{name}` not created: {what}"
            ))])
        }
        Err(e) => {
            if replacing {
                carry_out(ctx, vec![name.clone()]);
            }
            return e.into_done(&name);
        }
    };
    let notes = notes
        .into_iter()
        .map(|n| Warning::note(ER_UNKNOWN_ERROR, n))
        .collect();
    if replacing || builtin {
        return replace(ctx, &name, new, notes);
    }
    create(ctx, new, notes)
}

fn exists(name: &str) -> Done {
    Done::error(
        ErrorKind::ER_TABLE_EXISTS_ERROR,
        format!("Table '{name}' already exists"),
    )
}

/// Why a `CREATE TABLE` gives no report.
enum NotReport {
    /// Not `ENGINE=PINBA`.
    Engine,
    /// A pinba_engine table that is no report, and what pinbad offers in its place.
    Elsewhere(&'static str),
    /// Cannot be made a report: why.
    Refused(String),
}

impl NotReport {
    fn into_done(self, name: &str) -> Done {
        match self {
            NotReport::Engine => Done::error(
                ErrorKind::ER_UNKNOWN_STORAGE_ENGINE,
                format!(
                    "table `{name}`: only ENGINE=PINBA tables can be created (pinbad keeps no \
                     other data)"
                ),
            ),
            NotReport::Elsewhere(why) => cant(name, why.to_string()),
            NotReport::Refused(why) => cant(name, why),
        }
    }
}

fn cant(name: &str, why: String) -> Done {
    Done::error(
        ErrorKind::ER_CANT_CREATE_TABLE,
        format!("Can't create table 'pinba.{name}': {why}"),
    )
}

/// The report `table` defines, named `name`, with its SQL table, and the conversion's notes.
fn new_definition(
    table: crate::config::import::Table,
    name: &str,
    settings: &Settings,
) -> Result<(ReportDef, Vec<String>), NotReport> {
    if !table
        .engine
        .as_deref()
        .is_some_and(|e| e.eq_ignore_ascii_case("PINBA"))
    {
        return Err(NotReport::Engine);
    }
    if let Some(what) = table.comment.as_deref().and_then(elsewhere) {
        return Err(NotReport::Elsewhere(what));
    }
    let converted = convert_with(table, settings);
    let mut def = match converted.outcome {
        Outcome::Report(def) => def,
        Outcome::Builtin(builtin) => crate::report::builtin_defs()
            .into_iter()
            .find(|d| d.name == builtin)
            .ok_or_else(|| NotReport::Refused(format!("built-in report `{builtin}` not found")))?,
        Outcome::NotConverted(why) => return Err(NotReport::Refused(why)),
    };
    def.name = name.to_string();
    // Its numbers mean what they meant on the server whose DDL made it (`Compat`).
    def.compat = converted.sql_table.as_ref().map(|t| compat_of(&t.comment));
    def.sql_table = converted.sql_table;
    def.validate()
        .map_err(|e| NotReport::Refused(e.to_string()))?;
    Ok((def, converted.notes))
}

/// Creates `def`'s report, answering with `warnings` and the conversion's notes.
fn create(ctx: &SqlContext, def: ReportDef, warnings: Vec<Warning>) -> Done {
    let name = def.name.clone();
    match ctx.core.create_report(def, FILL_WAIT) {
        Ok(_) => {
            tracing::info!(report = %name, "Report created (SQL CREATE TABLE)");
            Done::ok(warnings)
        }
        Err(ReportChangeError::Exists(_)) => exists(&name),
        Err(e) => cant(&name, e.to_string()),
    }
}

/// A pending drop of `name` resolved by a CREATE of `new`: the report kept if `new` is its
/// definition, replaced (and said so) if not.
fn replace(ctx: &SqlContext, name: &str, new: ReportDef, notes: Vec<Warning>) -> Done {
    let old = ctx.core.reports().get(name).map(|cell| {
        let report = cell.report.read();
        let def = cell.def_of(&report);
        let same = same_definition(&def, report.kind(), report.key_columns(), &new);
        (def, same)
    });
    match old {
        Some((_, true)) => {
            tracing::info!(report = %name, "Report kept: SQL DROP + CREATE TABLE of its own definition");
            Done::ok(vec![Warning::note(
                ER_UNKNOWN_ERROR,
                format!(
                    "table `{name}` kept as it was (data and history): the CREATE gives the \
                     definition of the report it replaces"
                ),
            )])
        }
        Some((old, false)) => {
            let (was, now) = (describe(&old), describe(&new));
            // The history holds each tick's rows: the same rows (keys, filters) mean the same
            // under another window, columns or rates, so they stay the new report's.
            let mut same_rows = old.keys == new.keys
                && old.preset == new.preset
                && old.tags == new.tags
                && old.filters == new.filters;
            // A CREATE TABLE says nothing of history: the new report keeps the old one's
            // settings, without which its history could not be read (a built-in has history
            // by default), where they fit its window.
            let mut new = new;
            if same_rows && new.history_retention.is_none() && old.history_retention.is_some() {
                let mut with = new.clone();
                with.history_retention = old.history_retention;
                with.history_step = old.history_step;
                with.history_rows = old.history_rows;
                match with.validate() {
                    Ok(()) => new = with,
                    Err(_) => same_rows = false,
                }
            }
            if same_rows {
                drop_keeping_history(ctx, name);
            } else {
                carry_out(ctx, vec![name.to_string()]);
            }
            let history = if same_rows {
                "its history kept: the same keys and filters"
            } else {
                "its data and history gone: other keys or filters"
            };
            let builtin = if crate::report::builtin_defs().contains(&old) {
                "the built-in report"
            } else {
                "the report"
            };
            tracing::warn!(report = %name, old = %was, new = %now, history, "Report replaced: SQL CREATE TABLE of another definition");
            let replaced = Warning::unknown(format!(
                "table `{name}` replaced {builtin} of that name ({history}): it was {was}, it \
                 is now {now}"
            ));
            let mut warnings = vec![replaced];
            warnings.extend(notes);
            create(ctx, new, warnings)
        }
        // Dropped meanwhile: an ordinary creation.
        None => create(ctx, new, notes),
    }
}

/// A definition as the warnings and the log show it: its JSON, the SQL table's comment for its
/// columns.
fn describe(def: &ReportDef) -> String {
    let mut shown = def.clone();
    let table = shown.sql_table.take();
    let json = serde_json::to_string(&shown).unwrap_or_default();
    match table {
        Some(t) => format!(
            "{json} (table COMMENT '{}', {} columns)",
            t.comment,
            t.columns.len()
        ),
        None => json,
    }
}

/// Whether `new` (a CREATE TABLE's definition) gives the report `old` is (of `kind`, its key
/// columns `key_columns`): the same keys, filters, window and definitions of rates and timer
/// percentiles (`compat`; what the statement can say: a definition's history, Prometheus export
/// and default percentiles are not in a CREATE TABLE), and the statement's columns are the
/// report table's, in order, or the first of them (a report defined otherwise shows
/// pinba_engine's columns and then one per percentile). A built-in is its own table's
/// definition whatever the `compat`: pinba_engine's `default_tables.sql` keeps the built-ins,
/// with pinbad's definitions.
pub fn same_definition(
    old: &ReportDef,
    kind: Kind,
    key_columns: &[String],
    new: &ReportDef,
) -> bool {
    let builtin = || crate::report::builtin_defs().iter().any(|b| b == old);
    if old.keys != new.keys
        || old.preset != new.preset
        || old.tags != new.tags
        || old.filters != new.filters
        || old.history != new.history
        || (old.compat != new.compat && !builtin())
    {
        return false;
    }
    let had = layout(old, kind, key_columns);
    let has = layout(new, kind, key_columns);
    has.len() <= had.len() && had[..has.len()] == has[..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Compat;

    fn converted(sql: &str) -> ReportDef {
        let table = parse_tables(sql).into_iter().next().expect("a table");
        let name = table.name.clone();
        match new_definition(table, &name, &Settings::default()) {
            Ok((def, _)) => def,
            Err(_) => panic!("not a report: {sql}"),
        }
    }

    /// Every report table of pinba_engine's default_tables.sql is its built-in report: a DROP and
    /// CREATE of it keeps the report.
    #[test]
    fn default_tables_are_the_builtins() {
        let file = include_str!("../../tests/fixtures/sql/pinba_engine_default_tables.sql");
        let builtins = crate::report::builtin_defs();
        let mut seen = 0;
        for table in parse_tables(file) {
            let Some(old) = builtins.iter().find(|b| b.name == table.name) else {
                continue;
            };
            let name = table.name.clone();
            let new = match new_definition(table, &name, &Settings::default()) {
                Ok((def, _)) => def,
                Err(_) => panic!("{name}: not converted"),
            };
            // The built-ins' keys are request fields: their columns are named as the keys.
            let key_columns = old.keys.clone();
            assert!(
                same_definition(old, old.kind(), &key_columns, &new),
                "{name}: {old:?} vs {new:?}"
            );
            seen += 1;
        }
        assert_eq!(seen, 19, "info and the 18 report_by_* tables");
    }

    #[test]
    fn another_definition_is_not_the_same() {
        let old = converted(
            "CREATE TABLE t (script_name varchar(64), req_count int) ENGINE=PINBA \
             COMMENT='report1'",
        );
        let cols = vec!["script_name".to_string()];
        // Columns in another order, other keys, a filter: another table.
        for other in [
            "CREATE TABLE t (req_count int, script_name varchar(64)) ENGINE=PINBA COMMENT='report1'",
            "CREATE TABLE t (hostname varchar(64), req_count int) ENGINE=PINBA COMMENT='report3'",
            "CREATE TABLE t (script_name varchar(64), req_count int) ENGINE=PINBA \
             COMMENT='report1::min_time=1.5'",
        ] {
            let new = converted(other);
            assert!(!same_definition(&old, old.kind(), &cols, &new), "{other}");
        }
        // The first of its columns, or all of them: the same.
        for same in [
            "CREATE TABLE t (script_name varchar(64), req_count int) ENGINE=PINBA COMMENT='report1'",
            "CREATE TABLE t (script_name varchar(64)) ENGINE=PINBA COMMENT='report1'",
        ] {
            let new = converted(same);
            assert!(same_definition(&old, old.kind(), &cols, &new), "{same}");
        }
    }

    /// A table's DDL gives its engine's definitions of rates and timer percentiles, and a
    /// report of other definitions is another table (but a built-in's own: see
    /// `default_tables_are_the_builtins`).
    #[test]
    fn the_engine_of_the_ddl_is_part_of_the_definition() {
        let pe = converted(
            "CREATE TABLE t (tag_value varchar(64)) ENGINE=PINBA COMMENT='tag_info:group'",
        );
        assert_eq!(pe.compat, Some(Compat::PinbaEngine));
        let v2 = converted(
            "CREATE TABLE t (grp varchar(64)) ENGINE=PINBA \
             COMMENT='v2/timer/60/@group/no_percentiles/no_filters'",
        );
        assert_eq!(v2.compat, Some(Compat::Pinba2));
        let cols = vec!["group".to_string()];
        let own = ReportDef {
            compat: None,
            sql_table: None,
            ..pe.clone()
        };
        assert!(!same_definition(&own, own.kind(), &cols, &pe));
        assert!(same_definition(&pe, pe.kind(), &cols, &pe));
    }

    #[test]
    fn status_and_active_reports_are_elsewhere() {
        for comment in ["status", "active", "active_reports"] {
            let sql = format!("CREATE TABLE x (a int) ENGINE=PINBA COMMENT='{comment}'");
            let table = parse_tables(&sql).into_iter().next().unwrap();
            assert!(matches!(
                new_definition(table, "x", &Settings::default()),
                Err(NotReport::Elsewhere(_))
            ));
        }
    }
}
