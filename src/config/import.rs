//! Migration from pinba_engine and pinba2 (`pinbad import-sql FILE`): SQL in, `[[report]]` out.
//!
//! In: the text of a mysqldump, or of any file of `CREATE TABLE … ENGINE=PINBA COMMENT='…'`
//! statements. Out: [`Import`], one [`Outcome`] per table, rendered by [`Import::to_toml`] as
//! config text: a `[[report]]` table for each report pinbad should create, a comment for each
//! table a built-in already covers, and a comment naming every table that cannot be converted and
//! why. Pure: no I/O, no clock; `cli::import_sql` reads the file and prints.
//!
//! The two comment syntaxes, as their projects document and parse them:
//! - pinba_engine: `TYPE[:PARAMS[:CONDITIONS[:PERCENTILES]]]`. `TYPE` is `info`, `report1` …
//!   `report18`, a tag report (`tag_info`, `tag2_info`, `tagN_info`, `tag_report`, `tag2_report`,
//!   `tagN_report`, `tag_report2`, `tag2_report2`, `tagN_report2`, `rtag_info`, `rtag2_info`,
//!   `rtagN_info`, `rtag_report`, `rtag2_report`, `rtagN_report`), a raw table (`request`,
//!   `timer`, `timertag`, `tag`), `status`, `active`, or `hv.TYPE` (a histogram view). `PARAMS`
//!   are the tag names, comma-separated. `CONDITIONS` are `name=value` pairs: `min_time`,
//!   `max_time` (seconds; 0 means none), `histogram_max_time`, `tag.NAME=VALUE` (a request tag);
//!   pinba_engine ignores any other name. `PERCENTILES` are integers 1–100, comma-separated.
//! - pinba2: `v2/KIND/WINDOW/KEYS/HISTOGRAM/FILTERS`, `KIND` one of `packet` (or `info`),
//!   `request`, `timer`, `stats`, `active`. `WINDOW` is `default_history_time` or seconds
//!   (optionally `,TICK_SECONDS`). `KEYS` is `no_keys` or key specs: `~host`, `~script`,
//!   `~server`, `~schema`, `~status`, `+request_tag`, `@timer_tag` (a bare name is a timer tag).
//!   `HISTOGRAM` is `no_percentiles` or `hv=MIN_MS:MAX_MS:BUCKETS` with `pN` items or
//!   `percentiles=A:B`. `FILTERS` is `no_filters` or `min_time=`, `max_time=` and `SPEC=VALUE`
//!   items. pinba2's README gives `min_time`/`max_time` in milliseconds, but its parser reads
//!   seconds: the conversion keeps what pinba2 did (seconds) and says so.
//!
//! Beyond the syntaxes, as the tables people have are written: pinba2's `convert_mysqldump.php`
//! lists p50 before a table's own percentiles (a 50 comes twice: taken once) and leaves
//! pinba_engine's `tag.NAME=V` condition as it was (read as the request tag filter it meant);
//! Pinboard's tag reports name `__server_name` and `__hostname`, timer tags its Stopwatch sets to
//! the request's fields (read as those fields); `active_reports` is the name pinba_engine gives
//! its `active` table.
//!
//! The same converter serves the SQL front end's `CREATE TABLE` (one code path):
//! [`Converted::sql_table`] keeps the table's comment and column names, [`comment_table`] reads
//! the comment's table kind and listed percentiles for `sql::layout`.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::report::{
    builtin_defs, Compat, FilterValue, ReportDef, SqlTable, DEFAULT_PERCENTILES, MAX_NAME_BYTES,
};

/// One `CREATE TABLE` statement of the input, with the table options that matter here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// The table's name, without database or quotes.
    pub name: String,
    /// `ENGINE=` (or the old `TYPE=`), as written.
    pub engine: Option<String>,
    /// The table's `COMMENT`, unescaped.
    pub comment: Option<String>,
    /// The columns' names, in order, unquoted: the column list without its `KEY`, `INDEX`,
    /// `PRIMARY KEY`, `UNIQUE`, `CONSTRAINT` (…) lines. pinba_engine and pinba2 fill columns by
    /// position, so the names are the user's.
    pub columns: Vec<String>,
}

/// What became of one table.
// One per imported table (a handful per import): a boxed definition would only add a step.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A report to create: printed as a `[[report]]` table.
    Report(ReportDef),
    /// A built-in report already is this table (same keys, no filters, same window).
    Builtin(String),
    /// Nothing to create; the reason says why, and where pinbad shows the same thing if it does.
    NotConverted(String),
}

/// One table and its outcome, with notes on what did not carry over exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    pub table: Table,
    pub outcome: Outcome,
    /// Things the conversion changed or dropped (histogram ranges, ignored conditions, ...).
    pub notes: Vec<String>,
    /// The table as the SQL front end shows it (its COMMENT and column names), when it is a
    /// report: a [`Outcome::Report`], or a [`Outcome::Builtin`] (a table of its own name over
    /// that built-in). `None` when not converted. The definition in `outcome` keeps its own
    /// `sql_table` empty, so `import-sql`'s config text does not carry it: the SQL DDL path
    /// attaches this one.
    pub sql_table: Option<SqlTable>,
}

/// Every table of the input, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Import {
    pub tables: Vec<Converted>,
    /// What in the input could not be read as SQL (an unterminated string or comment, with its
    /// line): what follows it was not read either, so tables may be missing.
    pub warnings: Vec<String>,
}

/// What a peer's DDL leaves to its server's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// pinba2's `pinba_default_history_time_sec` (seconds): the window of a table whose comment
    /// says `default_history_time`.
    pub default_history_time: u64,
}

/// pinba2's `pinba_default_history_time_sec` unless its my.cnf set another.
pub const PINBA2_DEFAULT_HISTORY_TIME: u64 = 60;

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            default_history_time: PINBA2_DEFAULT_HISTORY_TIME,
        }
    }
}

/// Reads every `CREATE TABLE` of `sql` and converts it, with the peers' default settings.
pub fn import(sql: &str) -> Import {
    import_with(sql, &Settings::default())
}

/// Reads every `CREATE TABLE` of `sql` and converts it under `settings`.
///
/// A table named like a built-in report that is not that built-in replaces it: it is the table
/// the peer's users query by that name (pinba2's `report_by_script_name` has pinba2's columns and
/// window), and pinbad takes a `[[report]]` of a built-in's name in its place.
pub fn import_with(sql: &str, settings: &Settings) -> Import {
    let builtins: HashSet<String> = builtin_defs().into_iter().map(|d| d.name).collect();
    let mut names: HashSet<String> = HashSet::new();
    let (tables, warnings) = parse(sql);
    let tables = tables
        .into_iter()
        .map(|table| {
            let mut c = convert_with(table, settings);
            if let Outcome::Report(def) = &mut c.outcome {
                let wanted = def.name.clone();
                let mut n = 1;
                while !names.insert(def.name.clone()) {
                    n += 1;
                    def.name = suffixed(&wanted, n);
                }
                if def.name != wanted {
                    c.notes.push(format!(
                        "renamed `{wanted}` → `{}`: the name is taken by an earlier table",
                        def.name
                    ));
                } else if builtins.contains(&def.name) {
                    c.notes.push(format!(
                        "replaces the built-in report `{wanted}` (a [[report]] of a built-in's \
                         name takes its place; pinbad logs it at start)"
                    ));
                }
            }
            c
        })
        .collect();
    Import { tables, warnings }
}

impl Import {
    /// Tables that gave a `[[report]]`.
    pub fn reports(&self) -> impl Iterator<Item = (&Converted, &ReportDef)> {
        self.tables.iter().filter_map(|c| match &c.outcome {
            Outcome::Report(d) => Some((c, d)),
            _ => None,
        })
    }

    /// Tables that were not converted, with why.
    pub fn not_converted(&self) -> impl Iterator<Item = (&Converted, &str)> {
        self.tables.iter().filter_map(|c| match &c.outcome {
            Outcome::NotConverted(why) => Some((c, why.as_str())),
            _ => None,
        })
    }

    /// The config text: a summary, then per table a comment with its source and notes and, for
    /// a report, its `[[report]]` table. Valid pinbad config (a test loads it).
    pub fn to_toml(&self, source: &str) -> String {
        let count = |f: fn(&Outcome) -> bool| self.tables.iter().filter(|c| f(&c.outcome)).count();
        let mut out = format!(
            "# Reports converted by `pinbad import-sql` from {}:\n\
             # {} tables: {} new reports, {} covered by built-in reports, {} not converted.\n\
             # Paste the [[report]] tables into pinbad's config (see config/pinbad.toml).\n",
            one_line(source),
            self.tables.len(),
            count(|o| matches!(o, Outcome::Report(_))),
            count(|o| matches!(o, Outcome::Builtin(_))),
            count(|o| matches!(o, Outcome::NotConverted(_))),
        );
        for c in &self.tables {
            out.push('\n');
            let comment = c.table.comment.as_deref().unwrap_or("");
            out.push_str(&format!(
                "# table `{}` COMMENT='{}'\n",
                one_line(&c.table.name),
                one_line(comment)
            ));
            match &c.outcome {
                Outcome::Report(_) => {}
                Outcome::Builtin(name) => out.push_str(&format!(
                    "# = the built-in report `{name}` (GET /api/v1/reports/{name}): nothing to add\n"
                )),
                Outcome::NotConverted(why) => {
                    out.push_str(&format!("# NOT CONVERTED: {}\n", one_line(why)))
                }
            }
            for note in &c.notes {
                out.push_str(&format!("# note: {}\n", one_line(note)));
            }
            if let Outcome::Report(def) = &c.outcome {
                out.push_str(&render(def));
            }
        }
        out
    }
}

/// One `[[report]]` table.
fn render(def: &ReportDef) -> String {
    #[derive(Serialize)]
    struct One<'a> {
        report: [&'a ReportDef; 1],
    }
    toml::to_string(&One { report: [def] })
        .unwrap_or_else(|e| format!("# cannot render report `{}`: {e}\n", def.name))
}

/// Text on one comment line: line breaks shown as `\n` and `\r`, any other control character
/// (which a TOML comment may not hold, tab aside) as `\xNN`. Also what `import-sql` says on
/// stderr: a dump's bytes never reach the terminal as control sequences.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push(c),
            c if c.is_control() => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn suffixed(name: &str, n: usize) -> String {
    let suffix = format!("_{n}");
    let mut base = name.to_string();
    while base.len() + suffix.len() > MAX_NAME_BYTES {
        base.pop();
    }
    base + &suffix
}

/// A pinbad report name for a table name: characters pinbad does not allow become `_`.
fn report_name(table: &str) -> String {
    let mut name: String = table
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_:.,-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    while name.len() > MAX_NAME_BYTES {
        name.pop();
    }
    if name.is_empty() {
        name.push('_');
    }
    name
}

/// Converts one table, whatever its engine and comment, with the peers' default settings.
pub fn convert(table: Table) -> Converted {
    convert_with(table, &Settings::default())
}

/// Converts one table, whatever its engine and comment, under `settings`. A report keeps the
/// table (its comment and column names, `sql_table`) and its server's definitions of rates and
/// timer percentiles (`compat`), so that the SQL front end shows the table the peer's users
/// query, whether it is made by this DDL or by `import-sql`'s `[[report]]`.
pub fn convert_with(table: Table, settings: &Settings) -> Converted {
    let mut notes = Vec::new();
    let engine = table.engine.clone().unwrap_or_default();
    let mut outcome = if !engine.eq_ignore_ascii_case("pinba") {
        Outcome::NotConverted(if engine.is_empty() {
            "not a Pinba table (no ENGINE=PINBA)".to_string()
        } else {
            format!("not a Pinba table (ENGINE={engine})")
        })
    } else {
        let comment = table.comment.clone().unwrap_or_default();
        let parsed = if comment.starts_with("v2/") || comment == "v2" {
            pinba2(&comment, settings, &mut notes)
        } else {
            pinba_engine(&comment, &mut notes)
        };
        match parsed {
            Err(why) => Outcome::NotConverted(why),
            Ok(Parsed::Elsewhere(why)) => Outcome::NotConverted(why.to_string()),
            Ok(Parsed::Report(spec)) => spec.into_outcome(&table.name, &mut notes),
        }
    };
    let sql_table = match (&outcome, &table.comment) {
        (Outcome::Report(_) | Outcome::Builtin(_), Some(comment)) => Some(SqlTable {
            comment: comment.clone(),
            columns: table.columns.clone(),
        }),
        _ => None,
    };
    if let Outcome::Report(def) = &mut outcome {
        def.compat = Some(compat_of(table.comment.as_deref().unwrap_or("")));
        def.sql_table = sql_table.clone();
    }
    Converted {
        table,
        outcome,
        notes,
        sql_table,
    }
}

/// Whose definitions of rates and timer percentiles a table of this comment has: the server
/// whose syntax the comment is.
pub fn compat_of(comment: &str) -> Compat {
    if comment.starts_with("v2") {
        Compat::Pinba2
    } else {
        Compat::PinbaEngine
    }
}

/// A report as a peer defined it, before naming and validation.
#[derive(Default)]
struct Spec {
    keys: Vec<String>,
    filters: BTreeMap<String, FilterValue>,
    percentiles: Option<Vec<f64>>,
    history_seconds: Option<u64>,
}

enum Parsed {
    Report(Spec),
    /// Not a report: what pinbad offers instead.
    Elsewhere(&'static str),
}

const RAW: &str = "raw data, not a report: pinbad keeps raw requests in its pool and serves them \
                   at GET /api/v1/requests (timers=true adds each request's timers and tags)";
const STATUS: &str =
    "server status, not a report: pinbad shows its own at GET /api/v1/status (and /metrics), \
     and over SQL in its own `status` table";
const ACTIVE: &str = "the list of reports and their costs, not a report: pinbad lists its reports \
                      at GET /api/v1/reports (and, over SQL, in information_schema.TABLES), their \
                      costs at GET /api/v1/status and GET /api/v1/instruments";
const PINBA2_STATS: &str = "server status, not a report: pinbad has pinba2's `stats` table (its \
                            columns, pinbad's figures) over SQL, and all of its status at GET \
                            /api/v1/status (and /metrics)";
const PINBA2_ACTIVE: &str = "the list of reports and their costs, not a report: pinbad has \
                             pinba2's `active` table (its columns, pinbad's figures) over SQL, \
                             and lists its reports at GET /api/v1/reports";
const ACTIVE_REPORTS: &str = "pinba_engine's active_reports table (pinba_engine knows it by the \
                      COMMENT `active`, and opens no table of `active_reports`): the list of \
                      reports and their costs, not a report: pinbad lists its reports at GET /api/v1/reports (and, over SQL, in \
                      information_schema.TABLES), their costs at GET /api/v1/status and \
                      GET /api/v1/instruments";

impl Spec {
    fn into_outcome(self, table: &str, notes: &mut Vec<String>) -> Outcome {
        if self.filters.is_empty() && self.history_seconds.is_none() {
            if let Some(b) = builtin_defs().into_iter().find(|b| b.keys == self.keys) {
                let name = b.name;
                if let Some(ps) = self.percentiles.filter(|ps| ps[..] != DEFAULT_PERCENTILES) {
                    let list: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
                    notes.push(format!(
                        "its percentiles: ask `?percentiles={}` when querying `{name}`",
                        list.join(",")
                    ));
                }
                return Outcome::Builtin(name);
            }
        }
        let name = report_name(table);
        if name != table {
            notes.push(format!(
                "report name `{name}`: pinbad names use A-Z a-z 0-9 _ : . , - (up to {MAX_NAME_BYTES} bytes)"
            ));
        }
        let def = ReportDef {
            name,
            keys: self.keys,
            percentiles: self
                .percentiles
                .unwrap_or_else(|| DEFAULT_PERCENTILES.to_vec()),
            preset: None,
            tags: Vec::new(),
            filters: self.filters,
            history: self
                .history_seconds
                .map(|s| crate::units::HumanDuration(std::time::Duration::from_secs(s))),
            prometheus: false,
            prometheus_buckets: None,
            history_retention: None,
            history_step: None,
            history_rows: None,
            sql_table: None,
            compat: None,
        };
        match def.validate_new() {
            Ok(()) => Outcome::Report(def),
            Err(e) => Outcome::NotConverted(format!("pinbad cannot hold this report: {e}")),
        }
    }
}

/// A peer's percentiles, each once: pinba2's `convert_mysqldump.php` puts p50 before the table's
/// own, so a table that listed 50 lists it twice (`hv=0:60000:32768,p50,p50,p95`), and both
/// servers fill a column per listed percentile. pinbad shows each percentile once.
fn each_once(ps: Vec<f64>, notes: &mut Vec<String>) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::with_capacity(ps.len());
    for p in ps {
        if out.contains(&p) {
            notes.push(format!(
                "percentile {p} is listed twice: taken once (the table's columns are filled as \
                 listed, so both show the same value)"
            ));
        } else {
            out.push(p);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// pinba_engine

/// pinba_engine's `reportN` numbering: the keys of `report1` … `report18`, in the order of its
/// default tables (the same order as pinbad's built-ins).
pub const ENGINE_REPORTS: [&[&str]; 18] = [
    &["script_name"],
    &["server_name"],
    &["hostname"],
    &["server_name", "script_name"],
    &["hostname", "script_name"],
    &["hostname", "server_name"],
    &["hostname", "server_name", "script_name"],
    &["status"],
    &["script_name", "status"],
    &["server_name", "status"],
    &["hostname", "status"],
    &["hostname", "script_name", "status"],
    &["schema"],
    &["script_name", "schema"],
    &["server_name", "schema"],
    &["hostname", "schema"],
    &["hostname", "script_name", "schema"],
    &["hostname", "status", "schema"],
];

/// How many tag names a tag report type takes.
enum TagCount {
    Exactly(usize),
    AtLeastOne,
}

/// A pinba_engine tag report type: its fixed keys, the prefix of its tag keys, its tag count.
/// The prefix of a timer tag key.
const TIMER_TAG: &str = "timer_tag:";

fn engine_tag_report(kind: &str) -> Option<(&'static [&'static str], &'static str, TagCount)> {
    const TIMER: &str = TIMER_TAG;
    const REQUEST: &str = "tag:";
    const SCRIPT: &[&str] = &["script_name"];
    const SCRIPT_HOST_SERVER: &[&str] = &["script_name", "hostname", "server_name"];
    const HOST: &[&str] = &["hostname"];
    use TagCount::*;
    Some(match kind {
        "tag_info" => (&[], TIMER, Exactly(1)),
        "tag2_info" => (&[], TIMER, Exactly(2)),
        "tagN_info" => (&[], TIMER, AtLeastOne),
        "tag_report" => (SCRIPT, TIMER, Exactly(1)),
        "tag2_report" => (SCRIPT, TIMER, Exactly(2)),
        "tagN_report" => (SCRIPT, TIMER, AtLeastOne),
        "tag_report2" => (SCRIPT_HOST_SERVER, TIMER, Exactly(1)),
        "tag2_report2" => (SCRIPT_HOST_SERVER, TIMER, Exactly(2)),
        "tagN_report2" => (SCRIPT_HOST_SERVER, TIMER, AtLeastOne),
        "rtag_info" => (&[], REQUEST, Exactly(1)),
        "rtag2_info" => (&[], REQUEST, Exactly(2)),
        "rtagN_info" => (&[], REQUEST, AtLeastOne),
        "rtag_report" => (HOST, REQUEST, Exactly(1)),
        "rtag2_report" => (HOST, REQUEST, Exactly(2)),
        "rtagN_report" => (HOST, REQUEST, AtLeastOne),
        _ => return None,
    })
}

fn pinba_engine(comment: &str, notes: &mut Vec<String>) -> Result<Parsed, String> {
    let mut parts = comment.splitn(4, ':');
    let kind = parts.next().unwrap_or("").trim();
    let params = parts.next().unwrap_or("");
    let conditions = parts.next().unwrap_or("");
    let percentiles = parts.next().unwrap_or("");
    if let Some(viewed) = kind.strip_prefix("hv.") {
        return Err(format!(
            "a pinba_engine histogram view (of a `{viewed}` table): pinbad keeps a histogram in \
             every report row and serves any percentile of it at query time \
             (GET /api/v1/reports/NAME?percentiles=50,99.9), so there is no separate table"
        ));
    }
    let mut spec = Spec::default();
    match kind {
        "request" | "timer" | "timertag" | "tag" => return Ok(Parsed::Elsewhere(RAW)),
        "status" => return Ok(Parsed::Elsewhere(STATUS)),
        "active" => return Ok(Parsed::Elsewhere(ACTIVE)),
        "active_reports" => return Ok(Parsed::Elsewhere(ACTIVE_REPORTS)),
        "" => {
            return Err(
                "no COMMENT: pinba_engine needs one to know what the table is (e.g. `report1`)"
                    .into(),
            )
        }
        _ => {}
    }
    let params: Vec<&str> = if params.is_empty() {
        Vec::new()
    } else {
        params.split(',').collect()
    };
    if params.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "empty tag name in `{}` (pinba_engine refuses it too)",
            params.join(",")
        ));
    }
    if kind == "info" {
        spec.keys = Vec::new();
    } else if let Some(n) = kind
        .strip_prefix("report")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| (1..=18).contains(n) && kind == format!("report{n}"))
    {
        spec.keys = ENGINE_REPORTS[n - 1]
            .iter()
            .map(|k| k.to_string())
            .collect();
    } else if let Some((fixed, prefix, count)) = engine_tag_report(kind) {
        let ok = match count {
            TagCount::Exactly(n) => params.len() == n,
            TagCount::AtLeastOne => !params.is_empty(),
        };
        if !ok {
            let wanted = match count {
                TagCount::Exactly(1) => "one tag name".to_string(),
                TagCount::Exactly(n) => format!("{n} tag names"),
                TagCount::AtLeastOne => "at least one tag name".to_string(),
            };
            return Err(format!(
                "`{kind}` needs {wanted} after the colon (e.g. `{kind}:group`), got {}",
                params.len()
            ));
        }
        spec.keys = fixed.iter().map(|k| k.to_string()).collect();
        let field_of = |t: &str| match t {
            "__server_name" if prefix == TIMER_TAG => Some("server_name"),
            "__hostname" if prefix == TIMER_TAG => Some("hostname"),
            _ => None,
        };
        // A timer report needs a timer tag key: with none besides the pseudo-tags, they stay
        // timer tags, as pinba_engine reads them.
        let as_fields = params.iter().any(|t| field_of(t).is_none());
        if !as_fields && params.iter().any(|t| field_of(t).is_some()) {
            notes.push(format!(
                "`{}` kept as timer tags, as pinba_engine reads them: a timer report needs a \
                 timer tag key (alone, they would name request fields)",
                params.join(",")
            ));
        }
        for t in &params {
            match field_of(t).filter(|_| as_fields) {
                Some(field) => {
                    notes.push(format!(
                        "`{t}` keys by the request's {field}: pinba_engine has no such \
                         pseudo-tag and reads it as a timer tag, which Pinboard's Stopwatch \
                         sets on every timer to the request's {field}; so the rows are the \
                         same, except that timers without that tag count too"
                    ));
                    spec.keys.push(field.to_string());
                }
                None => spec.keys.push(format!("{prefix}{t}")),
            }
        }
    } else {
        return Err(format!(
            "unknown pinba_engine table type `{kind}` (expected info, report1 … report18, a \
             tag/rtag report, request, timer, timertag, tag, status, active or hv.*)"
        ));
    }
    if (kind == "info" || kind.starts_with("report")) && !params.is_empty() {
        notes.push(format!(
            "pinba_engine ignores parameters (`{}`) on `{kind}`; so does the conversion",
            params.join(",")
        ));
    }
    if !conditions.is_empty() {
        for cond in conditions.split(',') {
            let Some((name, value)) = cond.split_once('=') else {
                return Err(format!(
                    "condition `{cond}` is not `name=value` (pinba_engine refuses it too)"
                ));
            };
            match name {
                "min_time" | "max_time" => {
                    let v: f64 = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("condition `{cond}`: not a number of seconds"))?;
                    // pinba_engine applies a time condition only when it is above 0.
                    if v > 0.0 {
                        spec.filters.insert(name.to_string(), FilterValue::Float(v));
                    }
                }
                "histogram_max_time" => notes.push(format!(
                    "dropped `{cond}`: pinbad's histograms need no range (within 1 % from 1 µs \
                     to 1000 s)"
                )),
                _ => match name.strip_prefix("tag.").filter(|t| !t.is_empty()) {
                    Some(tag) => {
                        spec.filters
                            .insert(format!("tag:{tag}"), FilterValue::Text(value.to_string()));
                    }
                    None => notes.push(format!(
                        "dropped condition `{cond}`: pinba_engine ignores conditions other than \
                         min_time, max_time, histogram_max_time and tag.NAME, so it never \
                         filtered this table"
                    )),
                },
            }
        }
    }
    if !percentiles.is_empty() {
        spec.percentiles = Some(each_once(engine_percentiles(percentiles)?, notes));
    }
    Ok(Parsed::Report(spec))
}

/// pinba_engine's PERCENTILES part (not empty), as listed (repeats kept: pinba_engine fills a
/// column for each).
fn engine_percentiles(percentiles: &str) -> Result<Vec<f64>, String> {
    percentiles
        .split(',')
        .map(|p| match p.trim().parse::<u32>() {
            Ok(v) if (1..=100).contains(&v) => Ok(v as f64),
            _ => Err(format!(
                "percentile `{p}` is not an integer from 1 to 100 (pinba_engine refuses it too)"
            )),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// pinba2

/// A pinba2 key spec as a pinbad key: `~host` → `hostname`, `+t` → `tag:t`, `@t` or `t` →
/// `timer_tag:t`.
fn pinba2_key(spec: &str) -> Result<String, String> {
    if let Some(field) = spec.strip_prefix('~') {
        return Ok(match field {
            "host" => "hostname",
            "script" => "script_name",
            "server" => "server_name",
            "schema" => "schema",
            "status" => "status",
            _ => {
                return Err(format!(
                    "unknown request field `{spec}` (pinba2 knows ~host, ~script, ~server, \
                     ~schema, ~status)"
                ))
            }
        }
        .to_string());
    }
    if let Some(tag) = spec.strip_prefix('+') {
        return Ok(format!("tag:{tag}"));
    }
    Ok(format!(
        "timer_tag:{}",
        spec.strip_prefix('@').unwrap_or(spec)
    ))
}

/// A pinba2 HISTOGRAM part (not `no_percentiles`): its percentiles as listed (repeats kept:
/// pinba2 fills a column for each) and its `hv=` items.
fn pinba2_histogram(histogram: &str) -> Result<(Vec<f64>, Vec<&str>), String> {
    let mut ps = Vec::new();
    let mut ranges = Vec::new();
    for item in histogram.split(',') {
        if item.starts_with("hv=") {
            ranges.push(item);
        } else if let Some(list) = item.strip_prefix("percentiles=") {
            for p in list.split(':') {
                ps.push(
                    p.parse::<f64>()
                        .map_err(|_| format!("percentile `{p}` in `{item}` is not a number"))?,
                );
            }
        } else if let Some(p) = item.strip_prefix('p') {
            ps.push(
                p.parse::<f64>()
                    .map_err(|_| format!("percentile `{item}` is not p<number>"))?,
            );
        } else {
            return Err(format!(
                "histogram part `{item}`: expected hv=MIN:MAX:BUCKETS, pN or percentiles=A:B"
            ));
        }
    }
    Ok((ps, ranges))
}

fn pinba2(comment: &str, settings: &Settings, notes: &mut Vec<String>) -> Result<Parsed, String> {
    let parts: Vec<&str> = comment.split('/').collect();
    let kind = parts.get(1).copied().unwrap_or("");
    match kind {
        "stats" => return Ok(Parsed::Elsewhere(PINBA2_STATS)),
        "active" => return Ok(Parsed::Elsewhere(PINBA2_ACTIVE)),
        "packet" | "info" | "request" | "timer" => {}
        _ => {
            return Err(format!(
                "unknown pinba2 report kind `{kind}` (expected packet, info, request, timer, \
                 stats or active)"
            ))
        }
    }
    if parts.len() != 6 {
        return Err(format!(
            "a pinba2 `{kind}` comment has 6 parts separated by `/` \
             (v2/{kind}/WINDOW/KEYS/HISTOGRAM/FILTERS), this one has {} (pinba2 refuses it too; a \
             `/` inside a filter value splits it)",
            parts.len()
        ));
    }
    let (window, keys, histogram, filters) = (parts[2], parts[3], parts[4], parts[5]);
    let mut spec = Spec::default();

    let mut window_parts = window.split(',');
    match window_parts.next().unwrap_or("") {
        "default_history_time" => {
            let s = settings.default_history_time;
            spec.history_seconds = Some(s);
            notes.push(format!(
                "window `default_history_time`: history = \"{s}s\" (pinba2's \
                 pinba_default_history_time_sec{}; [mysql] pinba2_default_history_time sets \
                 another)",
                if s == PINBA2_DEFAULT_HISTORY_TIME {
                    ", 60 by default"
                } else {
                    ""
                }
            ));
        }
        seconds => {
            let s: u64 = seconds.parse().map_err(|_| {
                format!("window `{window}`: expected default_history_time or a number of seconds")
            })?;
            spec.history_seconds = Some(s);
        }
    }
    if let Some(tick) = window_parts.next() {
        notes.push(format!(
            "tick width `{tick}` s dropped: pinbad cuts every window into report_ticks ticks"
        ));
    }

    if keys != "no_keys" {
        for k in keys.split(',').filter(|k| !k.is_empty()) {
            let key = pinba2_key(k)?;
            if let Some(field) = ["server_name", "hostname"]
                .into_iter()
                .find(|f| key.strip_prefix(TIMER_TAG) == Some(&format!("__{f}")))
            {
                notes.push(format!(
                    "`{k}` stays a timer tag, as pinba2 reads it (Pinboard's Stopwatch sets it \
                     on every timer to the request's {field}; ~{short} keys by that field \
                     itself, and so does `__{field}` in a pinba_engine comment here)",
                    short = if field == "hostname" {
                        "host"
                    } else {
                        "server"
                    }
                ));
            }
            spec.keys.push(key);
        }
    }
    let timer_keys = spec
        .keys
        .iter()
        .filter(|k| k.starts_with("timer_tag:"))
        .count();
    match kind {
        "packet" | "info" if !spec.keys.is_empty() => {
            return Err(format!(
                "a pinba2 `{kind}` report takes no keys (`no_keys`), got `{keys}`"
            ))
        }
        "request" if timer_keys > 0 => {
            return Err(format!(
                "a pinba2 request report cannot have timer tag keys, got `{keys}` (a bare name \
                 is a timer tag: write +name for a request tag)"
            ))
        }
        "timer" if timer_keys == 0 => {
            return Err(format!(
                "a pinba2 timer report needs at least one timer tag key (@name), got `{keys}`"
            ))
        }
        _ => {}
    }

    if histogram != "no_percentiles" {
        let (ps, ranges) = pinba2_histogram(histogram)?;
        for item in ranges {
            notes.push(format!(
                "dropped `{item}`: pinbad's histograms need no range or bucket count \
                 (within 1 % from 1 µs to 1000 s)"
            ));
        }
        if !ps.is_empty() {
            spec.percentiles = Some(each_once(ps, notes));
        }
    }

    if filters != "no_filters" {
        for item in filters.split(',') {
            let Some((name, value)) = item.split_once('=') else {
                return Err(format!("filter `{item}` is not `name=value`"));
            };
            match name {
                "min_time" | "max_time" => {
                    let v: f64 = value
                        .parse()
                        .map_err(|_| format!("filter `{item}`: not a number"))?;
                    // pinba2 applies a time filter only when it is not 0.
                    if v != 0.0 {
                        spec.filters.insert(name.to_string(), FilterValue::Float(v));
                        notes.push(format!(
                            "`{item}` read as seconds, as pinba2's parser does (its README says \
                             milliseconds)"
                        ));
                    }
                }
                _ => {
                    let key = match name.strip_prefix("tag.").filter(|t| !t.is_empty()) {
                        Some(tag) => {
                            notes.push(format!(
                                "`{item}` read as the request tag filter +{tag}={value}: it is \
                                 pinba_engine's condition, which pinba2's convert_mysqldump.php \
                                 leaves as it was (pinba2 reads it as a timer tag named \
                                 `{name}`)"
                            ));
                            format!("tag:{tag}")
                        }
                        None => pinba2_key(name)?,
                    };
                    if key.starts_with("timer_tag:") && kind != "timer" {
                        return Err(format!(
                            "filter `{item}`: pinba2 filters on timer tags only in timer reports"
                        ));
                    }
                    let value = if key == "status" {
                        FilterValue::Int(
                            value
                                .parse()
                                .map_err(|_| format!("filter `{item}`: status is an integer"))?,
                        )
                    } else {
                        FilterValue::Text(value.to_string())
                    };
                    spec.filters.insert(key, value);
                }
            }
        }
    }
    Ok(Parsed::Report(spec))
}

// ---------------------------------------------------------------------------------------------
// Report tables, for the SQL front end

/// What kind of report table a COMMENT defines, as far as what its server puts in each column
/// goes (`sql::layout` maps the columns from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableKind {
    /// pinba_engine `info`.
    EngineInfo,
    /// pinba_engine `report1` … `report18`: the number.
    EngineReport(usize),
    /// A pinba_engine tag report, by its type: `tag_info` … `tagN_report2`, `rtag_info` …
    /// `rtagN_report`.
    EngineTag(&'static str),
    /// pinba2 `v2/packet/…` (or `v2/info/…`).
    Pinba2Packet,
    /// pinba2 `v2/request/…`.
    Pinba2Request,
    /// pinba2 `v2/timer/…`.
    Pinba2Timer,
}

/// A report table's COMMENT, read for the layout of its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct CommentTable {
    pub kind: TableKind,
    /// The percentiles as the comment lists them, repeats kept: both servers fill one column
    /// for each, in this order, after the fixed columns.
    pub percentiles: Vec<f64>,
}

/// pinba_engine's tag report types.
const ENGINE_TAG_TYPES: [&str; 15] = [
    "tag_info",
    "tag2_info",
    "tagN_info",
    "tag_report",
    "tag2_report",
    "tagN_report",
    "tag_report2",
    "tag2_report2",
    "tagN_report2",
    "rtag_info",
    "rtag2_info",
    "rtagN_info",
    "rtag_report",
    "rtag2_report",
    "rtagN_report",
];

/// The report table `comment` defines (the kind and the listed percentiles), read as
/// [`import`] reads it; `None` when it defines no report (a raw or status table, a histogram
/// view, an unknown type) or its percentiles do not parse.
pub fn comment_table(comment: &str) -> Option<CommentTable> {
    if let Some(rest) = comment.strip_prefix("v2/") {
        let parts: Vec<&str> = rest.split('/').collect();
        let kind = match parts.first().copied()? {
            "packet" | "info" => TableKind::Pinba2Packet,
            "request" => TableKind::Pinba2Request,
            "timer" => TableKind::Pinba2Timer,
            _ => return None,
        };
        let histogram = parts.get(3).copied()?;
        let percentiles = if histogram == "no_percentiles" {
            Vec::new()
        } else {
            pinba2_histogram(histogram).ok()?.0
        };
        return Some(CommentTable { kind, percentiles });
    }
    let mut parts = comment.splitn(4, ':');
    let kind = parts.next().unwrap_or("").trim();
    let kind = if kind == "info" {
        TableKind::EngineInfo
    } else if let Some(n) = kind
        .strip_prefix("report")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| (1..=18).contains(n) && kind == format!("report{n}"))
    {
        TableKind::EngineReport(n)
    } else {
        TableKind::EngineTag(ENGINE_TAG_TYPES.into_iter().find(|t| *t == kind)?)
    };
    let percentiles = match parts.nth(2).unwrap_or("") {
        "" => Vec::new(),
        ps => engine_percentiles(ps).ok()?,
    };
    Some(CommentTable { kind, percentiles })
}

// ---------------------------------------------------------------------------------------------
// SQL

/// A token of MySQL's lexical syntax, as far as `CREATE TABLE` needs.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// A keyword, bare identifier or number.
    Word(String),
    /// A `'…'` or `"…"` string, unescaped.
    Text(String),
    /// A `` `…` `` identifier.
    Quoted(String),
    Punct(char),
}

/// Splits SQL into statements of tokens, skipping whitespace and comments (`-- `, `#`, `/* */`,
/// including mysqldump's `/*!40101 … */` version comments, which never hold a `CREATE TABLE`),
/// and hands each `CREATE` statement's tokens (without the `;`) to `statement`. Other statements
/// are scanned, not kept: a dump with its data (a pinba_engine `request` table's `INSERT`s) took
/// 20× its size in tokens (1.2 GB for 62 MB). A string or comment still open at the end
/// swallowed the rest of the input: said in `warnings`, with the line it opened on.
fn statements(sql: &str, warnings: &mut Vec<String>, mut statement: impl FnMut(&[Token])) {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    // Whether the statement being read is kept: until its first token says otherwise.
    let mut keep = true;
    let mut push = |out: &mut Vec<Token>, keep: &mut bool, t: Token| {
        if t == Token::Punct(';') {
            if *keep && !out.is_empty() {
                statement(out);
            }
            out.clear();
            *keep = true;
        } else if *keep {
            *keep =
                !out.is_empty() || matches!(&t, Token::Word(w) if w.eq_ignore_ascii_case("create"));
            if *keep {
                out.push(t);
            }
        }
    };
    let mut i = 0;
    let line_of = |i: usize| 1 + chars[..i].iter().filter(|&&c| c == '\n').count();
    let mut unterminated = |what: &str, at: usize| {
        warnings.push(format!(
            "{what} opened on line {} is never closed: the input after it was not read",
            line_of(at)
        ));
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '#'
            || (c == '-' && next == Some('-') && chars.get(i + 2).is_none_or(|c| c.is_whitespace()))
        {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = i;
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            if i >= chars.len() {
                unterminated("a /* comment", start);
            }
            i += 2;
        } else if c == '\'' || c == '"' || c == '`' {
            let (text, end) = quoted(&chars, i, c, c != '`', keep);
            if end > chars.len() {
                unterminated(&format!("a {c}…{c} string"), i);
            }
            let t = if c == '`' {
                Token::Quoted(text)
            } else {
                Token::Text(text)
            };
            push(&mut out, &mut keep, t);
            i = end;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            let word = if keep {
                chars[start..i].iter().collect()
            } else {
                String::new()
            };
            push(&mut out, &mut keep, Token::Word(word));
        } else {
            push(&mut out, &mut keep, Token::Punct(c));
            i += 1;
        }
    }
    push(&mut out, &mut keep, Token::Punct(';'));
}

/// The string opened by `quote` at `start`: its unescaped text (empty unless `kept`) and the
/// index after it (past the end of `chars` when it is never closed). A doubled quote is one
/// quote; with `backslash`, MySQL's backslash escapes apply too.
fn quoted(
    chars: &[char],
    start: usize,
    quote: char,
    backslash: bool,
    kept: bool,
) -> (String, usize) {
    let mut text = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == quote {
            if chars.get(i + 1) == Some(&quote) {
                text.push(quote);
                i += 2;
                continue;
            }
            return (text, i + 1);
        }
        if !kept {
            // Only the end matters: skip an escaped character whole.
            i += if backslash && c == '\\' { 2 } else { 1 };
            continue;
        }
        if backslash && c == '\\' {
            if let Some(&e) = chars.get(i + 1) {
                // `\%` and `\_` keep their backslash (MySQL: they are LIKE escapes).
                if e == '%' || e == '_' {
                    text.push('\\');
                }
                text.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    'Z' => '\x1a',
                    'b' => '\x08',
                    other => other,
                });
                i += 2;
                continue;
            }
        }
        text.push(c);
        i += 1;
    }
    (text, chars.len() + 1)
}

/// Every `CREATE TABLE … (…) options` statement of `sql`, in order. Other statements (DROP,
/// INSERT, SET, LOCK, views) are skipped; `CREATE TABLE … LIKE`/`AS SELECT` have no options to read
/// and come out with neither engine nor comment.
pub fn parse_tables(sql: &str) -> Vec<Table> {
    parse(sql).0
}

/// [`parse_tables`], with what could not be read (see [`Import::warnings`]).
fn parse(sql: &str) -> (Vec<Table>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut tables = Vec::new();
    statements(sql, &mut warnings, |statement| {
        if let Some(t) = create_table(statement) {
            tables.push(t);
        }
    });
    (tables, warnings)
}

fn is_word(t: Option<&Token>, w: &str) -> bool {
    matches!(t, Some(Token::Word(x)) if x.eq_ignore_ascii_case(w))
}

/// The column a column-list item's first token names: a quoted or bare name, not a keyword that
/// starts an index or a constraint.
fn column_name(t: &Token) -> Option<String> {
    const NOT_COLUMNS: [&str; 10] = [
        "key",
        "index",
        "primary",
        "unique",
        "constraint",
        "foreign",
        "fulltext",
        "spatial",
        "check",
        "period",
    ];
    match t {
        Token::Quoted(name) | Token::Text(name) => Some(name.clone()),
        Token::Word(w) if !NOT_COLUMNS.iter().any(|k| w.eq_ignore_ascii_case(k)) => Some(w.clone()),
        _ => None,
    }
}

fn create_table(ts: &[Token]) -> Option<Table> {
    let mut i = 0;
    if !is_word(ts.first(), "create") {
        return None;
    }
    i += 1;
    if is_word(ts.get(i), "temporary") {
        i += 1;
    }
    if !is_word(ts.get(i), "table") {
        return None;
    }
    i += 1;
    if is_word(ts.get(i), "if") && is_word(ts.get(i + 1), "not") && is_word(ts.get(i + 2), "exists")
    {
        i += 3;
    }
    // A `"…"` name is an identifier in dumps made with ANSI_QUOTES.
    let ident = |t: Option<&Token>| match t {
        Some(Token::Word(w) | Token::Quoted(w) | Token::Text(w)) => Some(w.clone()),
        _ => None,
    };
    let mut name = ident(ts.get(i))?;
    i += 1;
    // `db`.`table`: the table's own name is the last part.
    while ts.get(i) == Some(&Token::Punct('.')) {
        name = ident(ts.get(i + 1))?;
        i += 2;
    }
    // The column list: each definition's first token is a column's name, unless it starts an
    // index or constraint. Its column COMMENTs are not the table's.
    let mut columns = Vec::new();
    if ts.get(i) == Some(&Token::Punct('(')) {
        let mut depth = 0usize;
        let mut first = false;
        while let Some(t) = ts.get(i) {
            match t {
                Token::Punct('(') if depth == 0 => {
                    depth = 1;
                    first = true;
                    i += 1;
                    continue;
                }
                Token::Punct('(') => depth += 1,
                Token::Punct(')') => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Token::Punct(',') if depth == 1 => {
                    first = true;
                    i += 1;
                    continue;
                }
                _ if first && depth == 1 => {
                    if let Some(c) = column_name(t) {
                        columns.push(c);
                    }
                }
                _ => {}
            }
            first = false;
            i += 1;
        }
    }
    let mut table = Table {
        name,
        engine: None,
        comment: None,
        columns,
    };
    let options = &ts[i.min(ts.len())..];
    let mut j = 0;
    while j < options.len() {
        let value_at = if options.get(j + 1) == Some(&Token::Punct('=')) {
            j + 2
        } else {
            j + 1
        };
        if is_word(options.get(j), "engine") || is_word(options.get(j), "type") {
            if let Some(Token::Word(e) | Token::Text(e) | Token::Quoted(e)) = options.get(value_at)
            {
                table.engine = Some(e.clone());
            }
        } else if is_word(options.get(j), "comment") {
            if let Some(Token::Text(c)) = options.get(value_at) {
                table.comment = Some(c.clone());
            }
        }
        j += 1;
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// A pinba_engine table as its docs and default tables write it (columns shortened: only the
    /// table options matter here).
    fn engine_table(name: &str, comment: &str) -> String {
        format!(
            "DROP TABLE IF EXISTS `{name}`;\n/*!40101 SET character_set_client = utf8 */;\n\
             CREATE TABLE `{name}` (\n  `req_count` int(11) DEFAULT NULL,\n  \
             `script_name` varchar(128) DEFAULT NULL COMMENT 'a column comment; not the table''s',\n  \
             KEY `script_name` (`script_name`(85))\n) ENGINE=PINBA DEFAULT CHARSET=latin1 \
             COMMENT='{}';\n",
            comment.replace('\'', "''")
        )
    }

    fn outcome<'a>(imp: &'a Import, table: &str) -> &'a Converted {
        imp.tables
            .iter()
            .find(|c| c.table.name == table)
            .unwrap_or_else(|| panic!("no table {table} in {imp:#?}"))
    }

    fn report<'a>(imp: &'a Import, table: &str) -> &'a ReportDef {
        match &outcome(imp, table).outcome {
            Outcome::Report(d) => d,
            other => panic!("{table}: expected a report, got {other:?}"),
        }
    }

    fn not_converted(imp: &Import, table: &str) -> String {
        match &outcome(imp, table).outcome {
            Outcome::NotConverted(why) => why.clone(),
            other => panic!("{table}: expected not converted, got {other:?}"),
        }
    }

    fn keys(d: &ReportDef) -> Vec<&str> {
        d.keys.iter().map(String::as_str).collect()
    }

    /// The output parses as pinbad config through the real loader, with every report in it.
    fn loads(imp: &Import) -> Config {
        let text = imp.to_toml("test.sql");
        let config = Config::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(config.report.len(), imp.reports().count(), "{text}");
        config
    }

    /// Control characters a dump can carry (a `\Z` or `\0` escape in a comment, raw bytes in a
    /// name) are shown escaped in the output's comment lines, which a TOML comment could not hold:
    /// the output still loads.
    #[test]
    fn control_characters_in_names_and_comments_still_give_config_that_loads() {
        let sql = "CREATE TABLE `odd\u{1}name` (a int) ENGINE=PINBA COMMENT='report1\\Z\\0';\n\
                   CREATE TABLE t (a int) ENGINE=PINBA COMMENT='rtag_info:country';";
        let imp = import(sql);
        let text = imp.to_toml("dump\u{7}.sql");
        assert!(text.contains("dump\\x07.sql"), "{text}");
        assert!(text.contains("odd\\x01name"), "{text}");
        assert!(text.contains("report1\\x1A\\x00"), "{text}");
        Config::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        loads(&imp);
    }

    #[test]
    fn sql_tables_are_found_in_a_dump_whatever_the_quoting() {
        let sql = "-- MySQL dump 10.13\n# a hash comment; with a semicolon\n\
            /*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n\
            CREATE TABLE IF NOT EXISTS `pinba`.`my``t` (`a` int COMMENT 'x(') \
              COMMENT = 'tag_info:a\\'b' ENGINE = pinba;\n\
            create table plain (id int) engine=InnoDB;\n\
            INSERT INTO plain VALUES (1, 'CREATE TABLE x (y int) ENGINE=PINBA;'), \
              (2, 'it\\'s; CREATE TABLE y (z int) ENGINE=PINBA;', 'a''b;c', `q;`);\n\
            CREATE TABLE t2 LIKE plain;\n\
            CREATE TABLE \"dq\" (a int) TYPE=PINBA COMMENT=\"report1\";\n";
        let t = parse_tables(sql);
        assert_eq!(
            t,
            vec![
                Table {
                    name: "my`t".into(),
                    engine: Some("pinba".into()),
                    comment: Some("tag_info:a'b".into()),
                    columns: vec!["a".into()],
                },
                Table {
                    name: "plain".into(),
                    engine: Some("InnoDB".into()),
                    comment: None,
                    columns: vec!["id".into()],
                },
                Table {
                    name: "t2".into(),
                    engine: None,
                    comment: None,
                    columns: Vec::new(),
                },
                Table {
                    name: "dq".into(),
                    engine: Some("PINBA".into()),
                    comment: Some("report1".into()),
                    columns: vec!["a".into()],
                },
            ]
        );
    }

    /// pinba_engine's default tables: report1 … report18 and info are pinbad's built-ins, the raw
    /// tables and status are served elsewhere; nothing is created twice.
    #[test]
    fn pinba_engine_default_tables_map_to_the_builtins() {
        let mut sql = String::new();
        for (name, comment) in [
            ("request", "request"),
            ("timer", "timer"),
            ("timertag", "timertag"),
            ("tag", "tag"),
            ("info", "info"),
            ("status", "status"),
            ("active", "active"),
        ] {
            sql += &engine_table(name, comment);
        }
        for n in 1..=18 {
            sql += &engine_table(&format!("t{n}"), &format!("report{n}"));
        }
        let imp = import(&sql);
        let builtins = builtin_defs();
        // pinba_engine's 18 (the built-ins after them are pinbad's own).
        for (n, builtin) in builtins.iter().enumerate().take(19).skip(1) {
            assert_eq!(
                outcome(&imp, &format!("t{n}")).outcome,
                Outcome::Builtin(builtin.name.clone()),
                "report{n}"
            );
        }
        assert_eq!(
            outcome(&imp, "t1").outcome,
            Outcome::Builtin("report_by_script_name".into())
        );
        assert_eq!(
            outcome(&imp, "t18").outcome,
            Outcome::Builtin("report_by_hostname_status_and_schema".into())
        );
        assert_eq!(
            outcome(&imp, "info").outcome,
            Outcome::Builtin("info".into())
        );
        for raw in ["request", "timer", "timertag", "tag"] {
            assert!(
                not_converted(&imp, raw).contains("/api/v1/requests"),
                "{raw}"
            );
        }
        assert!(not_converted(&imp, "status").contains("/api/v1/status"));
        assert!(not_converted(&imp, "active").contains("/api/v1/instruments"));
        assert_eq!(imp.reports().count(), 0);
        let text = imp.to_toml("dump.sql");
        assert!(
            text.contains("# = the built-in report `report_by_status`"),
            "{text}"
        );
        loads(&imp);
    }

    /// Every pinba_engine tag report type, with its keys as docs/REPORTS.md gives them.
    #[test]
    fn pinba_engine_tag_reports_become_timer_and_request_tag_reports() {
        let cases: &[(&str, &[&str])] = &[
            ("tag_info:group", &["timer_tag:group"]),
            (
                "tag2_info:group,server",
                &["timer_tag:group", "timer_tag:server"],
            ),
            (
                "tagN_info:a,b,c",
                &["timer_tag:a", "timer_tag:b", "timer_tag:c"],
            ),
            ("tag_report:group", &["script_name", "timer_tag:group"]),
            (
                "tag2_report:group,op",
                &["script_name", "timer_tag:group", "timer_tag:op"],
            ),
            (
                "tagN_report:a,b,c",
                &["script_name", "timer_tag:a", "timer_tag:b", "timer_tag:c"],
            ),
            (
                "tag_report2:group",
                &["script_name", "hostname", "server_name", "timer_tag:group"],
            ),
            (
                "tag2_report2:group,op",
                &[
                    "script_name",
                    "hostname",
                    "server_name",
                    "timer_tag:group",
                    "timer_tag:op",
                ],
            ),
            (
                "tagN_report2:a,b,c",
                &[
                    "script_name",
                    "hostname",
                    "server_name",
                    "timer_tag:a",
                    "timer_tag:b",
                    "timer_tag:c",
                ],
            ),
            ("rtag_info:country", &["tag:country"]),
            ("rtag2_info:country,app", &["tag:country", "tag:app"]),
            ("rtagN_info:a,b,c", &["tag:a", "tag:b", "tag:c"]),
            ("rtag_report:country", &["hostname", "tag:country"]),
            (
                "rtag2_report:country,app",
                &["hostname", "tag:country", "tag:app"],
            ),
            (
                "rtagN_report:a,b,c",
                &["hostname", "tag:a", "tag:b", "tag:c"],
            ),
        ];
        let sql: String = cases
            .iter()
            .enumerate()
            .map(|(i, (comment, _))| engine_table(&format!("t{i}"), comment))
            .collect();
        let imp = import(&sql);
        for (i, (comment, want)) in cases.iter().enumerate() {
            let d = report(&imp, &format!("t{i}"));
            assert_eq!(keys(d), *want, "{comment}");
            assert_eq!(d.percentiles, DEFAULT_PERCENTILES, "{comment}");
            assert!(d.filters.is_empty() && d.history.is_none(), "{comment}");
        }
        let config = loads(&imp);
        assert_eq!(config.report[3].name, "t3");
        assert_eq!(config.report[3].kind(), crate::report::Kind::Timer);
        assert_eq!(config.report[12].kind(), crate::report::Kind::Request);
    }

    /// `TYPE:PARAMS:CONDITIONS:PERCENTILES`: conditions become filters, percentiles carry over,
    /// what pinba_engine ignored is said and dropped, a base report with conditions becomes a
    /// report of its own.
    #[test]
    fn pinba_engine_conditions_and_percentiles() {
        let sql = [
            engine_table(
                "slow_tags",
                "tag2_report:group,server:min_time=0.5,max_time=2.5,tag.country=nl:50,95,99",
            ),
            engine_table("slow_scripts", "report1::min_time=1.5:75"),
            engine_table("zero_time", "report2::min_time=0,max_time=0"),
            engine_table("scripts_p", "report1:::50,99"),
            engine_table(
                "hist",
                "tag_info:group:histogram_max_time=10,script=/index.php,host=web1:90",
            ),
            engine_table("info_tag", "info::tag.app=shop"),
            engine_table("report_by_script_name", "report1::tag.app=shop"),
        ]
        .concat();
        let imp = import(&sql);
        let d = report(&imp, "slow_tags");
        assert_eq!(
            keys(d),
            ["script_name", "timer_tag:group", "timer_tag:server"]
        );
        assert_eq!(d.filters["min_time"], FilterValue::Float(0.5));
        assert_eq!(d.filters["max_time"], FilterValue::Float(2.5));
        assert_eq!(d.filters["tag:country"], FilterValue::Text("nl".into()));
        assert_eq!(d.percentiles, [50.0, 95.0, 99.0]);

        let d = report(&imp, "slow_scripts");
        assert_eq!(keys(d), ["script_name"]);
        assert_eq!(d.filters.len(), 1);
        assert_eq!(d.percentiles, [75.0]);
        // min_time=0 and max_time=0 mean "no condition" to pinba_engine: the built-in it is.
        assert_eq!(
            outcome(&imp, "zero_time").outcome,
            Outcome::Builtin("report_by_server_name".into())
        );
        let c = outcome(&imp, "scripts_p");
        assert_eq!(c.outcome, Outcome::Builtin("report_by_script_name".into()));
        assert!(c.notes[0].contains("?percentiles=50,99"), "{:?}", c.notes);

        let c = outcome(&imp, "hist");
        let d = report(&imp, "hist");
        assert!(
            d.filters.is_empty(),
            "pinba_engine never filtered on script= or host="
        );
        assert_eq!(d.percentiles, [90.0]);
        let notes = c.notes.join("\n");
        for dropped in ["histogram_max_time=10", "script=/index.php", "host=web1"] {
            assert!(notes.contains(dropped), "{dropped} in {notes}");
        }
        let d = report(&imp, "info_tag");
        assert!(d.keys.is_empty());
        assert_eq!(d.filters["tag:app"], FilterValue::Text("shop".into()));
        // A built-in's name with a different definition: the built-in replaced, said.
        let c = outcome(&imp, "report_by_script_name");
        assert_eq!(
            report(&imp, "report_by_script_name").name,
            "report_by_script_name"
        );
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("replaces the built-in report `report_by_script_name`")),
            "{:?}",
            c.notes
        );
        let text = imp.to_toml("x.sql");
        assert!(
            text.contains("# note: dropped condition `script=/index.php`"),
            "{text}"
        );
        let config = loads(&imp);
        let defs = crate::report::static_defs(config.builtin_reports, &config.report);
        let named: Vec<_> = defs
            .iter()
            .filter(|d| d.name == "report_by_script_name")
            .collect();
        assert_eq!(named.len(), 1);
        assert_eq!(named[0], report(&imp, "report_by_script_name"));
    }

    /// Each table pinba_engine would refuse or pinbad cannot hold is named, with why.
    #[test]
    fn pinba_engine_tables_that_cannot_be_converted_say_why() {
        let sixteen: Vec<String> = (0..16).map(|i| format!("t{i}")).collect();
        let sql = [
            engine_table("hv_scripts", "hv.report1::min_time=1"),
            engine_table("hv_tags", "hv.tag_info:group"),
            engine_table("two_short", "tag2_info:group"),
            engine_table("no_tags", "tagN_report"),
            engine_table("bad_pct", "report1:::0,95"),
            engine_table("bad_cond", "report1::min_time"),
            engine_table("bad_time", "report1::min_time=soon"),
            engine_table("unknown", "report19"),
            engine_table("empty_tag", "tag2_info:a,,b"),
            engine_table("too_many", &format!("tagN_report:{}", sixteen.join(","))),
            "CREATE TABLE `no_comment` (a int) ENGINE=PINBA;\n".to_string(),
            "CREATE TABLE `innodb` (a int) ENGINE=InnoDB COMMENT='report1';\n".to_string(),
        ]
        .concat();
        let imp = import(&sql);
        for (table, why) in [
            ("hv_scripts", "histogram view"),
            ("hv_tags", "percentiles=50,99.9"),
            ("two_short", "needs 2 tag names"),
            ("no_tags", "at least one tag name"),
            ("bad_pct", "percentile `0`"),
            ("bad_cond", "not `name=value`"),
            ("bad_time", "not a number"),
            ("unknown", "unknown pinba_engine table type `report19`"),
            ("empty_tag", "empty tag name"),
            ("too_many", "at most 15 keys"),
            ("no_comment", "no COMMENT"),
            ("innodb", "not a Pinba table (ENGINE=InnoDB)"),
        ] {
            let got = not_converted(&imp, table);
            assert!(got.contains(why), "{table}: {got}");
        }
        assert_eq!(imp.not_converted().count(), 12);
        let text = imp.to_toml("x.sql");
        assert!(text.contains("# table `bad_pct` COMMENT='report1:::0,95'\n# NOT CONVERTED: "));
        loads(&imp);
    }

    /// pinba2's comment syntax, from its README: every kind, key spec, window, histogram and
    /// filter form.
    #[test]
    fn pinba2_reports() {
        let sql = [
            engine_table("info", "v2/packet/default_history_time/no_keys/no_percentiles/no_filters"),
            engine_table("info_60", "v2/info/60/no_keys/hv=0:1000:1000,p50/+app=shop"),
            engine_table("report_by_script_name", "v2/request/default_history_time/~script/no_percentiles/no_filters"),
            engine_table("by_host_script", "v2/request/300/~host,~script,~server,~schema,~status,+app/hv=0:2000:20000,percentiles=99:99.9:100/min_time=0.25,max_time=3,~server=www.example.com,~status=200,+browser=chrome"),
            engine_table("pinger", "v2/timer/60,5/@pinger_dst_cluster,@pinger_src_host,pinger_dst_host/hv=0:1000:100000,p50,p75,p95,p99,p100/+pinger_phase=call,+pinger_src_cluster=wwwbma.mlan,@op=select,min_time=0"),
            engine_table("stats", "v2/stats"),
            engine_table("active", "v2/active"),
        ]
        .concat();
        let imp = import(&sql);
        // `default_history_time`: pinba2's window, 60 s; the table takes the built-in's place.
        let d = report(&imp, "info");
        assert!(d.keys.is_empty());
        assert_eq!(d.history.unwrap().0.as_secs(), 60);
        assert_eq!(d.compat, Some(Compat::Pinba2));
        let notes = outcome(&imp, "info").notes.join("\n");
        assert!(notes.contains("history = \"60s\""), "{notes}");
        assert!(
            notes.contains("replaces the built-in report `info`"),
            "{notes}"
        );
        let d = report(&imp, "info_60");
        assert_eq!(d.name, "info_60");
        assert!(d.keys.is_empty());
        assert_eq!(d.history.unwrap().0.as_secs(), 60);
        assert_eq!(d.percentiles, [50.0]);
        assert_eq!(d.filters["tag:app"], FilterValue::Text("shop".into()));
        let d = report(&imp, "report_by_script_name");
        assert_eq!(keys(d), ["script_name"]);
        assert_eq!(d.history.unwrap().0.as_secs(), 60);
        assert_eq!(
            d.sql_table.as_ref().unwrap().columns,
            ["req_count", "script_name"]
        );

        let d = report(&imp, "by_host_script");
        assert_eq!(
            keys(d),
            [
                "hostname",
                "script_name",
                "server_name",
                "schema",
                "status",
                "tag:app"
            ]
        );
        assert_eq!(d.history.unwrap().0.as_secs(), 300);
        assert_eq!(d.percentiles, [99.0, 99.9, 100.0]);
        assert_eq!(d.filters["min_time"], FilterValue::Float(0.25));
        assert_eq!(d.filters["max_time"], FilterValue::Float(3.0));
        assert_eq!(
            d.filters["server_name"],
            FilterValue::Text("www.example.com".into())
        );
        assert_eq!(d.filters["status"], FilterValue::Int(200));
        assert_eq!(d.filters["tag:browser"], FilterValue::Text("chrome".into()));
        let notes = outcome(&imp, "by_host_script").notes.join("\n");
        assert!(
            notes.contains("hv=0:2000:20000") && notes.contains("read as seconds"),
            "{notes}"
        );

        let d = report(&imp, "pinger");
        assert_eq!(
            keys(d),
            [
                "timer_tag:pinger_dst_cluster",
                "timer_tag:pinger_src_host",
                "timer_tag:pinger_dst_host"
            ]
        );
        assert_eq!(d.kind(), crate::report::Kind::Timer);
        assert_eq!(d.percentiles, [50.0, 75.0, 95.0, 99.0, 100.0]);
        assert_eq!(
            d.filters.len(),
            3,
            "min_time=0 is no filter: {:?}",
            d.filters
        );
        assert_eq!(
            d.filters["timer_tag:op"],
            FilterValue::Text("select".into())
        );
        assert_eq!(
            d.filters["tag:pinger_phase"],
            FilterValue::Text("call".into())
        );
        assert!(outcome(&imp, "pinger")
            .notes
            .iter()
            .any(|n| n.contains("tick width `5`")));

        assert!(not_converted(&imp, "stats").contains("/api/v1/status"));
        assert!(not_converted(&imp, "active").contains("/api/v1/reports"));
        // info, info_60, report_by_script_name (pinba2's, in the built-ins' places), by_host_script, pinger.
        let config = loads(&imp);
        assert_eq!(config.report.len(), 5);
    }

    #[test]
    fn pinba2_tables_that_cannot_be_converted_say_why() {
        let sql = [
            engine_table(
                "timer_no_tag",
                "v2/timer/60/~script/no_percentiles/no_filters",
            ),
            engine_table(
                "request_timer_tag",
                "v2/request/60/~script,group/no_percentiles/no_filters",
            ),
            engine_table(
                "packet_keys",
                "v2/packet/60/~host/no_percentiles/no_filters",
            ),
            engine_table(
                "slash",
                "v2/request/60/~script/no_percentiles/~script=/index.php",
            ),
            engine_table(
                "unknown_field",
                "v2/request/60/~uri/no_percentiles/no_filters",
            ),
            engine_table(
                "unknown_kind",
                "v2/histogram/60/~script/no_percentiles/no_filters",
            ),
            engine_table(
                "bad_window",
                "v2/request/forever/~script/no_percentiles/no_filters",
            ),
            engine_table(
                "long_window",
                "v2/request/99999999/~script/no_percentiles/no_filters",
            ),
            engine_table(
                "bad_pct",
                "v2/request/60/~script/hv=0:100:100,p9x/no_filters",
            ),
            engine_table(
                "request_timer_filter",
                "v2/request/60/~script/no_percentiles/@group=db",
            ),
            engine_table("bad_filter", "v2/timer/60/@group/no_percentiles/+app"),
        ]
        .concat();
        let imp = import(&sql);
        for (table, why) in [
            ("timer_no_tag", "needs at least one timer tag key"),
            ("request_timer_tag", "cannot have timer tag keys"),
            ("packet_keys", "takes no keys"),
            ("slash", "6 parts"),
            ("unknown_field", "unknown request field `~uri`"),
            ("unknown_kind", "unknown pinba2 report kind `histogram`"),
            ("bad_window", "window `forever`"),
            ("long_window", "history"),
            ("bad_pct", "`p9x`"),
            ("request_timer_filter", "only in timer reports"),
            ("bad_filter", "`+app` is not `name=value`"),
        ] {
            let got = not_converted(&imp, table);
            assert!(got.contains(why), "{table}: {got}");
        }
        loads(&imp);
    }

    #[test]
    fn table_names_become_valid_report_names() {
        let sql = engine_table("pinba stats/é", "tag_info:group")
            + &engine_table("pinba_stats__", "tag_info:group");
        let imp = import(&sql);
        let names: Vec<&str> = imp.reports().map(|(_, d)| d.name.as_str()).collect();
        assert_eq!(names, ["pinba_stats__", "pinba_stats___2"]);
        assert!(outcome(&imp, "pinba stats/é").notes[0].contains("report name `pinba_stats__`"));
        loads(&imp);
    }

    #[test]
    fn an_unclosed_string_or_comment_is_reported_with_its_line() {
        let first = engine_table("first", "tag_info:group");
        for (broken, what) in [
            ("INSERT INTO x VALUES ('it\\'s;\n", "'…' string"),
            ("SELECT `x;\n", "`…` string"),
            ("/* a comment\n", "/* comment"),
        ] {
            // (What follows has no quote, which would close the string and shift the rest.)
            let sql = format!("{first}\n\n{broken}CREATE TABLE lost (a int) ENGINE=PINBA;\n");
            let line = 1 + first.matches('\n').count() + 2;
            let imp = import(&sql);
            assert_eq!(imp.tables.len(), 1, "{what}: only the table before it");
            assert_eq!(
                imp.warnings,
                [format!(
                    "a {what} opened on line {line} is never closed: the input after it was not read"
                )],
                "{what}"
            );
        }
        assert!(import(&(first + "SELECT 'it''s', `a``b`; /* closed */"))
            .warnings
            .is_empty());
    }

    #[test]
    fn an_empty_input_gives_an_empty_valid_config() {
        let imp = import("-- nothing here\n");
        assert!(imp.tables.is_empty());
        let text = imp.to_toml("empty.sql");
        assert!(text.contains("0 tables"), "{text}");
        loads(&imp);
    }

    /// The outcome a test expects for a table.
    enum Want<'a> {
        /// The built-in of this name covers it.
        Builtin(&'a str),
        /// A report with these keys and percentiles.
        Report(&'a [&'a str], &'a [f64]),
        /// Not converted, the reason containing this.
        Not(&'a str),
    }

    /// Each table's outcome, and every reason true: none calls a known table type unknown.
    fn check(tables: &[(&str, &str, Want)]) -> Import {
        let sql: String = tables
            .iter()
            .map(|(name, comment, _)| engine_table(name, comment))
            .collect();
        let imp = import(&sql);
        assert_eq!(imp.tables.len(), tables.len());
        for (name, comment, want) in tables {
            let c = outcome(&imp, name);
            match (want, &c.outcome) {
                (Want::Builtin(b), Outcome::Builtin(got)) => assert_eq!(got, b, "{name}"),
                (Want::Report(keys, ps), Outcome::Report(d)) => {
                    assert_eq!(d.keys, *keys, "{name}");
                    assert_eq!(d.percentiles, *ps, "{name}");
                }
                (Want::Not(why), Outcome::NotConverted(got)) => {
                    assert!(got.contains(why), "{name}: {got}");
                    assert!(!got.contains("unknown"), "{name}: {got}");
                }
                (_, got) => panic!("{name} COMMENT='{comment}': got {got:?}"),
            }
            // The SQL front end gets the table of every report, built-ins' too.
            let is_report = !matches!(c.outcome, Outcome::NotConverted(_));
            assert_eq!(c.sql_table.is_some(), is_report, "{name}");
            if let Some(t) = &c.sql_table {
                assert_eq!(t.comment, *comment);
                assert_eq!(t.columns, ["req_count", "script_name"]);
            }
        }
        loads(&imp);
        imp
    }

    /// pinba_engine's keys of report1 … report18, as pinba2's convert_mysqldump.php writes them.
    const MYSQLDUMP_KEYS: [&str; 18] = [
        "~script",
        "~server",
        "~host",
        "~server,~script",
        "~host,~script",
        "~host,~server",
        "~host,~server,~script",
        "~status",
        "~script,~status",
        "~server,~status",
        "~host,~status",
        "~host,~script,~status",
        "~schema",
        "~script,~schema",
        "~server,~schema",
        "~host,~schema",
        "~host,~script,~schema",
        "~host,~status,~schema",
    ];

    /// Every table of pinba_engine's default_tables.sql (names and comments as test data), and
    /// what pinba2's convert_mysqldump.php makes of each: a built-in, or a true reason.
    #[test]
    fn pinba_engine_default_tables_and_their_pinba2_conversions() {
        let builtins: Vec<String> = builtin_defs().into_iter().map(|d| d.name).collect();
        let engine_comments: Vec<String> = (1..=18).map(|n| format!("report{n}")).collect();
        let v2_comments: Vec<String> = MYSQLDUMP_KEYS
            .iter()
            .map(|k| format!("v2/request/default_history_time/{k}/hv=0:60000:32768,p50/no_filters"))
            .collect();
        // pinba_engine's 18 (the built-ins after them are pinbad's own).
        let v2_names: Vec<String> = builtins[1..=18].iter().map(|b| format!("{b}_v2")).collect();
        let mut tables = vec![
            ("request", "request", Want::Not("/api/v1/requests")),
            ("tag", "tag", Want::Not("/api/v1/requests")),
            ("timer", "timer", Want::Not("/api/v1/requests")),
            ("timertag", "timertag", Want::Not("/api/v1/requests")),
            ("info", "info", Want::Builtin("info")),
            ("status", "status", Want::Not("/api/v1/status")),
            // convert_mysqldump.php swaps info for pinba2's info table, leaves the others:
            // pinba2's tables have pinba2's window, 60 s (`default_history_time`).
            (
                "info_v2",
                "v2/packet/default_history_time/no_keys/no_percentiles/no_filters",
                Want::Report(&[], &DEFAULT_PERCENTILES),
            ),
        ];
        let defs = builtin_defs();
        let builtin_keys: Vec<Vec<&str>> = defs[1..=18].iter().map(keys).collect();
        for (i, b) in builtins[1..=18].iter().enumerate() {
            tables.push((b, &engine_comments[i], Want::Builtin(b)));
            tables.push((
                &v2_names[i],
                &v2_comments[i],
                Want::Report(&builtin_keys[i], &[50.0]),
            ));
        }
        let imp = check(&tables);
        for name in v2_names.iter().chain([&"info_v2".to_string()]) {
            assert_eq!(
                report(&imp, name).history.unwrap().0.as_secs(),
                60,
                "{name}"
            );
            let notes = outcome(&imp, name).notes.join("\n");
            assert!(notes.contains("default_history_time"), "{name}: {notes}");
        }
    }

    /// pinba2's scripts/default_reports.sql and scripts/default_tables/*.sql.
    #[test]
    fn pinba2_default_reports_and_tables() {
        let by =
            |k: &str| format!("v2/request/default_history_time/~{k}/no_percentiles/no_filters");
        let (host, script, server) = (by("host"), by("script"), by("server"));
        let imp = check(&[
            (
                "report_by_host_name",
                &host,
                Want::Report(&["hostname"], &DEFAULT_PERCENTILES),
            ),
            (
                "report_by_script_name",
                &script,
                Want::Report(&["script_name"], &DEFAULT_PERCENTILES),
            ),
            (
                "report_by_server_name",
                &server,
                Want::Report(&["server_name"], &DEFAULT_PERCENTILES),
            ),
            ("active", "v2/active", Want::Not("GET /api/v1/reports")),
            (
                "info",
                "v2/packet/default_history_time/no_keys/no_percentiles/no_filters",
                Want::Report(&[], &DEFAULT_PERCENTILES),
            ),
            ("stats", "v2/stats", Want::Not("/api/v1/status")),
        ]);
        // The built-ins of pinba2's names give way, each saying so.
        for name in ["report_by_script_name", "report_by_server_name", "info"] {
            let notes = outcome(&imp, name).notes.join("\n");
            assert!(
                notes.contains("replaces the built-in report"),
                "{name}: {notes}"
            );
        }
    }

    /// Pinboard's migrations (table names and comments as test data): its ENGINE=PINBA tables,
    /// as written and as convert_mysqldump.php would make them, and its InnoDB table.
    #[test]
    fn pinboard_tables() {
        const P: &[f64] = &[90.0, 95.0, 99.0];
        const P50: &[f64] = &[50.0, 90.0, 95.0, 99.0];
        let imp = check(&[
            (
                "ipm_pinba_report_by_hostname_and_server_90_95_99",
                "report6:::90,95,99",
                Want::Builtin("report_by_hostname_and_server"),
            ),
            (
                "ipm_pinba_report_by_server_90_95_99",
                "report2:::90,95,99",
                Want::Builtin("report_by_server_name"),
            ),
            (
                "ipm_pinba_report_by_hostname_90_95_99",
                "report3:::90,95,99",
                Want::Builtin("report_by_hostname"),
            ),
            (
                "ipm_pinba_tag_info_group_server_name",
                "tagN_info:group,__server_name::90,95,99",
                Want::Report(&["timer_tag:group", "server_name"], P),
            ),
            (
                "ipm_pinba_tag_info_group_server_server_name",
                "tagN_info:group,server,__server_name::90,95,99",
                Want::Report(&["timer_tag:group", "timer_tag:server", "server_name"], P),
            ),
            (
                "ipm_pinba_tag_info_group_server_name_hostname",
                "tagN_info:group,__server_name,__hostname::90,95,99",
                Want::Report(&["timer_tag:group", "server_name", "hostname"], P),
            ),
            (
                "ipm_pinba_tag_info_group_server_server_name_hostname",
                "tagN_info:group,server,__server_name,__hostname::90,95,99",
                Want::Report(
                    &["timer_tag:group", "timer_tag:server", "server_name", "hostname"],
                    P,
                ),
            ),
            (
                "ipm_pinba_tag_info_category_server_name",
                "tagN_info:category,__server_name::90,95,99",
                Want::Report(&["timer_tag:category", "server_name"], P),
            ),
            (
                "ipm_pinba_tag_info_category_server_server_name",
                "tagN_info:category,server,__server_name::90,95,99",
                Want::Report(&["timer_tag:category", "timer_tag:server", "server_name"], P),
            ),
            (
                "ipm_pinba_tag_info_category_server_name_hostname",
                "tagN_info:category,__server_name,__hostname::90,95,99",
                Want::Report(&["timer_tag:category", "server_name", "hostname"], P),
            ),
            (
                "ipm_pinba_tag_info_category_server_server_name_hostname",
                "tagN_info:category,server,__server_name,__hostname::90,95,99",
                Want::Report(
                    &["timer_tag:category", "timer_tag:server", "server_name", "hostname"],
                    P,
                ),
            ),
            (
                "report6_v2",
                "v2/request/default_history_time/~host,~server/hv=0:60000:32768,p50,p90,p95,p99/no_filters",
                Want::Report(&["hostname", "server_name"], &[50.0, 90.0, 95.0, 99.0]),
            ),
            (
                "tag_info_v2",
                "v2/timer/default_history_time/@group,@__server_name/hv=0:60000:32768,p50,p90,p95,p99/no_filters",
                Want::Report(&["timer_tag:group", "timer_tag:__server_name"], P50),
            ),
        ]);
        assert_eq!(
            import("CREATE TABLE `ipm_report2` (`id` int) ENGINE=InnoDB COMMENT='ipm_report2';")
                .tables[0]
                .outcome,
            Outcome::NotConverted("not a Pinba table (ENGINE=InnoDB)".into())
        );
        let notes = outcome(&imp, "ipm_pinba_tag_info_group_server_name")
            .notes
            .join("\n");
        assert!(
            notes.contains("`__server_name` keys by the request's server_name"),
            "{notes}"
        );
        assert!(notes.contains("Pinboard's Stopwatch"), "{notes}");
        let notes = outcome(&imp, "tag_info_v2").notes.join("\n");
        assert!(
            notes.contains("`@__server_name` stays a timer tag"),
            "{notes}"
        );
    }

    /// The definitions issue 46 found refused, each converted.
    #[test]
    fn the_refusals_issue_46_found_convert() {
        let imp = check(&[
            // convert_mysqldump.php adds p50 before a table's own 50.
            (
                "dup_pct",
                "v2/request/default_history_time/~script/hv=0:60000:32768,p50,p50,p95/no_filters",
                Want::Report(&["script_name"], &[50.0, 95.0]),
            ),
            (
                "dup_pct_filtered",
                "v2/request/300/~script/hv=0:60000:32768,p50,p50,p95/min_time=1",
                Want::Report(&["script_name"], &[50.0, 95.0]),
            ),
            (
                "engine_dup_pct",
                "report2:::50,50",
                Want::Builtin("report_by_server_name"),
            ),
            // pinba_engine's `tag.country=nl` condition, as convert_mysqldump.php leaves it.
            (
                "country",
                "v2/request/default_history_time/~script/hv=0:60000:32768,p50/tag.country=nl",
                Want::Report(&["script_name"], &[50.0]),
            ),
            (
                "country_timers",
                "v2/timer/default_history_time/~script,@group/hv=0:60000:32768,p50/tag.country=nl",
                Want::Report(&["script_name", "timer_tag:group"], &[50.0]),
            ),
            (
                "country_engine",
                "report1::tag.country=nl",
                Want::Report(&["script_name"], &DEFAULT_PERCENTILES),
            ),
            (
                "active_reports",
                "active_reports",
                Want::Not("GET /api/v1/reports (and, over SQL, in information_schema.TABLES)"),
            ),
            (
                "by_server",
                "tag2_report:__server_name,group",
                Want::Report(
                    &["script_name", "server_name", "timer_tag:group"],
                    &DEFAULT_PERCENTILES,
                ),
            ),
            (
                "by_host2",
                "tag2_report2:group,__hostname",
                Want::Not("key `hostname` is listed twice"),
            ),
            (
                "only_pseudo",
                "tag_info:__server_name",
                Want::Report(&["timer_tag:__server_name"], &DEFAULT_PERCENTILES),
            ),
            (
                "request_tag_named_so",
                "rtag_info:__server_name",
                Want::Report(&["tag:__server_name"], &DEFAULT_PERCENTILES),
            ),
        ]);
        let c = outcome(&imp, "dup_pct");
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("percentile 50 is listed twice")),
            "{:?}",
            c.notes
        );
        let c = outcome(&imp, "engine_dup_pct");
        assert!(
            c.notes.iter().any(|n| n.contains("?percentiles=50")),
            "{:?}",
            c.notes
        );
        for name in ["country", "country_timers", "country_engine"] {
            let d = report(&imp, name);
            assert_eq!(d.filters.len(), 1, "{name}");
            assert_eq!(
                d.filters["tag:country"],
                FilterValue::Text("nl".into()),
                "{name}"
            );
        }
        assert!(outcome(&imp, "country")
            .notes
            .iter()
            .any(|n| n.contains("request tag filter +country=nl")));
        assert!(not_converted(&imp, "active_reports").contains("`active`"));
        assert!(outcome(&imp, "only_pseudo")
            .notes
            .iter()
            .any(|n| n.contains("kept as timer tags")));
    }

    /// pinba2's `default_history_time` is its my.cnf's window (60 s unless set): each table
    /// keeps it, under its own name, and the config text loads with the tables in the
    /// built-ins' places.
    #[test]
    fn default_history_time_is_pinba2s_window() {
        let sql = [
            engine_table(
                "report_by_script_name",
                "v2/request/default_history_time/~script/no_percentiles/no_filters",
            ),
            engine_table(
                "by_country",
                "v2/request/default_history_time/+country/no_percentiles/no_filters",
            ),
        ]
        .concat();
        for (settings, seconds) in [
            (Settings::default(), 60),
            (
                Settings {
                    default_history_time: 300,
                },
                300,
            ),
        ] {
            let imp = import_with(&sql, &settings);
            for name in ["report_by_script_name", "by_country"] {
                let d = report(&imp, name);
                assert_eq!(d.history.unwrap().0.as_secs(), seconds, "{name}");
                assert_eq!(d.compat, Some(Compat::Pinba2), "{name}");
            }
            let config = loads(&imp);
            let defs = crate::report::static_defs(config.builtin_reports, &config.report);
            let by_script: Vec<_> = defs
                .iter()
                .filter(|d| d.name == "report_by_script_name")
                .collect();
            assert_eq!(by_script.len(), 1);
            assert_eq!(by_script[0].history.unwrap().0.as_secs(), seconds);
            assert_eq!(
                by_script[0].sql_table.as_ref().unwrap().comment,
                "v2/request/default_history_time/~script/no_percentiles/no_filters"
            );
        }
    }

    /// Column names are read in order, unquoted, without index and constraint lines.
    #[test]
    fn column_names_are_read_in_order() {
        let t = &parse_tables(
            "CREATE TABLE t (\n  `id` int(11) NOT NULL DEFAULT '0',\n  name varchar(3)              COMMENT 'a, b',\n  \"q\" float,\n  `key` int,\n  v decimal(10,2),\n               PRIMARY KEY (`id`),\n  UNIQUE KEY `n` (`name`),\n  KEY `x` (`v`(3)),\n               INDEX i (v),\n  CONSTRAINT c CHECK (v > 0)\n) ENGINE=PINBA COMMENT='report1';",
        )[0];
        assert_eq!(t.columns, ["id", "name", "q", "key", "v"]);
    }

    #[test]
    fn comment_tables_read_kind_and_listed_percentiles() {
        for (comment, kind, ps) in [
            (
                "report7:::90,90",
                TableKind::EngineReport(7),
                &[90.0, 90.0][..],
            ),
            ("info", TableKind::EngineInfo, &[]),
            (
                "tagN_report2:a,b::50",
                TableKind::EngineTag("tagN_report2"),
                &[50.0],
            ),
            (
                "rtag_info:a:min_time=1",
                TableKind::EngineTag("rtag_info"),
                &[],
            ),
            (
                "v2/timer/60/@a/hv=0:10:10,p50,percentiles=99:99.9/no_filters",
                TableKind::Pinba2Timer,
                &[50.0, 99.0, 99.9],
            ),
            (
                "v2/request/60/~host/no_percentiles/no_filters",
                TableKind::Pinba2Request,
                &[],
            ),
            (
                "v2/info/60/no_keys/no_percentiles/no_filters",
                TableKind::Pinba2Packet,
                &[],
            ),
        ] {
            assert_eq!(
                comment_table(comment),
                Some(CommentTable {
                    kind,
                    percentiles: ps.to_vec()
                }),
                "{comment}"
            );
        }
        for not in [
            "request",
            "status",
            "active",
            "hv.report1",
            "report19",
            "v2/stats",
            "report1:::x",
        ] {
            assert_eq!(comment_table(not), None, "{not}");
        }
    }
}
