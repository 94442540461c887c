//! Migration from pinba_engine's server settings (`pinbad import-mycnf FILE`): a my.cnf in,
//! pinbad's config keys out.
//!
//! pinba_engine is configured by mysqld's server variables (`pinba_port`, `pinba_stats_history`,
//! …), set in the server's groups of its option files. [`read`] reads an option file as mysqld
//! reads it: `[group]` headers (names case-insensitive), `key = value`, `key=value` and bare
//! `key` lines, whole-line `#` and `;` comments and `#` comments after a value (outside quotes),
//! a value's surrounding quotes and its escapes (`\n`, `\t`, `\s`, …), `!include FILE` and
//! `!includedir DIR` followed (its `*.cnf` files in name order, ten levels deep at most, as
//! mysqld). Only the groups mysqld reads count (`[mysqld]`, `[server]`, `[mariadb]`,
//! `[mariadbd]`, `[client-server]` and the versioned `[mysqld-X.Y]`, `[mariadb-X.Y]`,
//! `[mariadbd-X.Y]`); a pinba option anywhere else is named as not read.
//!
//! [`convert`] then reads each option's name as mysqld's option parser does (`-` and `_` alike,
//! the `loose-` and `plugin-` prefixes, a unique abbreviation, names case-sensitive) and its value
//! as mysqld reads an integer (a `K`/`M`/`G`/`T`/`P`/`E` suffix, clamped to the variable's
//! range), keeps the last setting of each variable (mysqld's rule), and maps each to pinbad's
//! keys with the units converted, naming each one pinbad cannot honour and why. The variables,
//! their units, defaults and ranges are pinba_engine 1.2.0's (`ha_pinba.cc`, its last release),
//! with the ones older releases had and later ones dropped.
//!
//! Pure: the files come in through [`Files`]; `cli::import_mycnf` reads them from disk and
//! prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{ByteSize, Config, MAX_HISTORY};

/// Where `!include` and `!includedir` read from: the disk for the command, a map in tests.
pub trait Files {
    /// The bytes of a file.
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>>;
    /// The entries of a directory, as paths.
    fn list(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>>;
}

/// Where a line was read: the file as named (by the user, or by the `!include` that named it)
/// and the line, from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    pub line: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// One pinba option line, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    /// The option's name as written (trimmed).
    pub key: String,
    /// The value, its quotes removed and its escapes applied; `None` for a bare key.
    pub value: Option<String>,
    /// The group it was under, lowercased.
    pub group: String,
    pub at: Origin,
}

impl Opt {
    /// `key = value` (or the bare key), as a comment or a message shows it.
    fn shown(&self) -> String {
        match &self.value {
            Some(v) => format!("{} = {v}", self.key),
            None => self.key.clone(),
        }
    }
}

/// What an option file holds for pinba_engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionFile {
    /// The pinba options of the groups mysqld reads, in the order it reads them.
    pub options: Vec<Opt>,
    /// Pinba options under groups mysqld does not read (`[client]`, `[mysqld_safe]`, …).
    pub elsewhere: Vec<Opt>,
    /// What was not read as mysqld would read it (an include not found, a line outside any
    /// group, …), one line each.
    pub warnings: Vec<String>,
    /// Every file read, in order: the first is the one given.
    pub files: Vec<String>,
}

/// mysqld stops following `!include` and `!includedir` this many files deep.
const MAX_INCLUDE_DEPTH: usize = 10;

/// Reads the option file `text` (named `name`, in directory `dir`: relative `!include` paths
/// start there) and every file it includes.
pub fn read(name: &str, text: &[u8], dir: &Path, files: &dyn Files) -> OptionFile {
    let mut out = OptionFile::default();
    read_into(name, text, dir, files, 0, &mut out);
    out
}

fn read_into(
    name: &str,
    text: &[u8],
    dir: &Path,
    files: &dyn Files,
    depth: usize,
    out: &mut OptionFile,
) {
    out.files.push(name.to_string());
    let text = String::from_utf8_lossy(text);
    // The group is the file's own: an included file starts outside any group, and the including
    // file's group goes on after it (mysqld's reader).
    let mut group: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let at = Origin {
            file: name.to_string(),
            line: i + 1,
        };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(directive) = line.strip_prefix('!') {
            let (word, rest) = directive
                .split_once(char::is_whitespace)
                .unwrap_or((directive, ""));
            let target = rest.trim();
            match word {
                "include" | "includedir" if target.is_empty() => out
                    .warnings
                    .push(format!("{at}: `!{word}` names no path: nothing included")),
                "include" | "includedir" if depth + 1 >= MAX_INCLUDE_DEPTH => {
                    out.warnings.push(format!(
                        "{at}: `!{word} {target}` not followed: {MAX_INCLUDE_DEPTH} files deep \
                         already, where mysqld stops too"
                    ))
                }
                "include" => include(&dir.join(target), target, files, depth, &at, out),
                "includedir" => {
                    let path = dir.join(target);
                    match files.list(&path) {
                        Ok(mut entries) => {
                            // mysqld reads only the `.cnf` files there (MariaDB in name order,
                            // which is taken here; MySQL in the directory's own order).
                            entries.retain(|p| p.extension().is_some_and(|e| e == "cnf"));
                            entries.sort();
                            for p in entries {
                                let shown = p.display().to_string();
                                include(&p, &shown, files, depth, &at, out);
                            }
                        }
                        Err(e) => out.warnings.push(format!(
                            "{at}: `!includedir {target}` not followed: cannot list {} ({e})",
                            path.display()
                        )),
                    }
                }
                _ => out.warnings.push(format!(
                    "{at}: `{line}` is not a directive mysqld knows (`!include`, \
                     `!includedir`): ignored"
                )),
            }
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            match header.find(']') {
                Some(end) => group = Some(header[..end].trim().to_ascii_lowercase()),
                None => {
                    out.warnings.push(format!(
                        "{at}: `{line}` is not a group header (no `]`): mysqld refuses to \
                         start with it; the options after it were not read"
                    ));
                    group = None;
                }
            }
            continue;
        }
        let line = strip_end_comment(line).trim_end();
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim_end(), Some(unquote(v.trim()))),
            None => (line, None),
        };
        if !is_pinba_option(key) {
            continue;
        }
        let Some(g) = &group else {
            out.warnings.push(format!(
                "{at}: `{key}` is outside any [group]: mysqld refuses to start with it; not read"
            ));
            continue;
        };
        let opt = Opt {
            key: key.to_string(),
            value,
            group: g.clone(),
            at,
        };
        if read_by_server(g) {
            out.options.push(opt);
        } else {
            out.elsewhere.push(opt);
        }
    }
}

/// Follows one `!include` (or one file of an `!includedir`).
fn include(
    path: &Path,
    shown: &str,
    files: &dyn Files,
    depth: usize,
    at: &Origin,
    out: &mut OptionFile,
) {
    match files.read(path) {
        Ok(bytes) => {
            let dir = path.parent().unwrap_or(Path::new(""));
            read_into(shown, &bytes, dir, files, depth + 1, out);
        }
        Err(e) => out.warnings.push(format!(
            "{at}: `{shown}` not included: cannot read {} ({e})",
            path.display()
        )),
    }
}

/// The line up to a `#` outside quotes: mysqld's end-of-line comment.
fn strip_end_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escape = false;
    for (i, c) in line.char_indices() {
        if (c == '\'' || c == '"') && !escape {
            match quote {
                None => quote = Some(c),
                Some(q) if q == c => quote = None,
                Some(_) => {}
            }
        }
        if quote.is_none() && c == '#' {
            return &line[..i];
        }
        escape = quote.is_some() && c == '\\' && !escape;
    }
    line
}

/// A value as mysqld reads it: the quotes around it removed (the same quote first and last),
/// then `\b`, `\t`, `\n`, `\r`, `\\`, `\'`, `\"` and `\s` (a space) unescaped; any other
/// backslash stays as written.
fn unquote(v: &str) -> String {
    let mut chars = v.chars();
    let inner = match (chars.next(), chars.next_back()) {
        (Some(a), Some(b)) if (a == '"' || a == '\'') && a == b => &v[1..v.len() - 1],
        _ => v,
    };
    let mut out = String::with_capacity(inner.len());
    let mut it = inner.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let unescaped = match it.peek() {
            Some('b') => '\u{8}',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('s') => ' ',
            Some(&c @ ('\\' | '\'' | '"')) => c,
            _ => {
                out.push('\\');
                continue;
            }
        };
        it.next();
        out.push(unescaped);
    }
    out
}

/// Whether mysqld (MySQL or MariaDB) reads the group `g` (lowercased).
fn read_by_server(g: &str) -> bool {
    if ["mysqld", "server", "mariadb", "mariadbd", "client-server"].contains(&g) {
        return true;
    }
    versioned(g).is_some()
}

/// `mysqld-5.7` → `5.7`: a group only that server version reads.
fn versioned(g: &str) -> Option<&str> {
    ["mysqld-", "mariadb-", "mariadbd-"]
        .iter()
        .find_map(|p| g.strip_prefix(p))
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
}

/// An option's name as mysqld's option parser compares it: `-` and `_` alike, a `loose-` and a
/// `plugin-` prefix set aside. The bool: whether `loose-` was given.
fn option_name(key: &str) -> (String, bool) {
    let mut name = key.replace('-', "_");
    let loose = name.starts_with("loose_");
    if loose {
        name.drain(.."loose_".len());
    }
    if let Some(rest) = name.strip_prefix("plugin_") {
        name = rest.to_string();
    }
    (name, loose)
}

/// Whether `key` is meant for pinba_engine: its name starts with `pinba_` in any case (a name
/// in the wrong case is named, since mysqld refuses it).
fn is_pinba_option(key: &str) -> bool {
    option_name(key)
        .0
        .get(..6)
        .is_some_and(|p| p.eq_ignore_ascii_case("pinba_"))
}

/// What a variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An integer, clamped by mysqld to `min..=max`.
    Int { min: i64, max: i64, default: i64 },
    /// A string.
    Str,
}

/// `INT_MAX`: the top of most of pinba_engine's ranges.
const INT_MAX: i64 = i32::MAX as i64;

/// pinba_engine 1.2.0's server variables (`ha_pinba.cc`, `system_variables`), with their ranges
/// and defaults.
const VARIABLES: [(&str, Kind); 14] = [
    ("pinba_port", int(0, 65536, 30002)),
    ("pinba_address", Kind::Str),
    ("pinba_data_pool_size", int(0, INT_MAX, 0)),
    ("pinba_temp_pool_size", int(10, INT_MAX, 10_000)),
    ("pinba_temp_pool_size_limit", int(1000, INT_MAX, 0)),
    ("pinba_timer_pool_size", int(10, INT_MAX, 100_000)),
    ("pinba_request_pool_size", int(10, INT_MAX, 1_000_000)),
    ("pinba_stats_history", int(1, INT_MAX, 900)),
    ("pinba_stats_gathering_period", int(10, INT_MAX, 10_000)),
    ("pinba_cpu_start", int(0, INT_MAX, 0)),
    ("pinba_histogram_max_time", int(1, INT_MAX, 10)),
    ("pinba_histogram_size", int(1, INT_MAX, 1024)),
    ("pinba_data_job_size", int(1, INT_MAX, 2048)),
    ("pinba_log_level", int(0, INT_MAX, 7)),
];

const fn int(min: i64, max: i64, default: i64) -> Kind {
    Kind::Int { min, max, default }
}

/// Variables of older pinba_engine releases, dropped since (mysqld refuses to start with them
/// under a release without them), and what they did.
const DROPPED: [(&str, &str); 2] = [
    (
        "pinba_tag_report_timeout",
        "pinba_engine 1.1.0 dropped it (mysqld refuses to start with it since); before, a tag \
         report nobody read for that many seconds stopped being updated: pinbad keeps every \
         report up to date",
    ),
    (
        "pinba_show_protobuf_errors",
        "pinba_engine dropped it in 2012 (mysqld refuses to start with it since); pinbad counts \
         every datagram it cannot decode, by reason, in /api/v1/status and logs them at debug",
    ),
];

/// pinba_engine's timer pool is never smaller than this (`PINBA_TIMER_POOL_GROW_SIZE`), and it
/// grows by as much whenever it is full.
const ENGINE_TIMER_POOL_STEP: i64 = 2_621_440;

/// What one PHP request takes in pinbad's temp ring, decoded (docs/configuration.md,
/// `temp_pool_memory`: ~1.9 KiB), rounded up.
const TEMP_POOL_REQUEST_BYTES: u64 = 2 << 10;

/// What a name resolves to.
enum Resolved {
    Var(&'static str, Kind),
    Dropped(&'static str),
    /// Why mysqld knows no such variable.
    Unknown(String),
}

/// A name as mysqld resolves it among pinba_engine's variables: the exact name, else a unique
/// abbreviation (MySQL 5.x and MariaDB take one; MySQL 8.0 refuses it).
fn resolve(name: &str) -> (Resolved, Option<&'static str>) {
    if let Some((n, k)) = VARIABLES.iter().find(|(n, _)| *n == name) {
        return (Resolved::Var(n, *k), None);
    }
    if let Some((_, why)) = DROPPED.iter().find(|(n, _)| *n == name) {
        return (Resolved::Dropped(why), None);
    }
    let prefixed: Vec<_> = VARIABLES
        .iter()
        .filter(|(n, _)| n.starts_with(name))
        .collect();
    match prefixed.as_slice() {
        [(n, k)] => (
            Resolved::Var(n, *k),
            Some("an abbreviation, which MySQL 5.x and MariaDB take (MySQL 8.0 refuses it)"),
        ),
        [] => {
            let lower = name.to_ascii_lowercase();
            let why = if lower != name && VARIABLES.iter().any(|(n, _)| *n == lower) {
                format!("mysqld's option names are case-sensitive: `{lower}` is the variable")
            } else {
                "not a pinba_engine variable".to_string()
            };
            (Resolved::Unknown(why), None)
        }
        many => {
            let names: Vec<&str> = many.iter().map(|(n, _)| *n).collect();
            (
                Resolved::Unknown(format!("ambiguous: it abbreviates {}", names.join(", "))),
                None,
            )
        }
    }
}

/// An integer as mysqld reads one (`eval_num_suffix`): decimal, with an optional sign and one
/// suffix letter (`K` = 1024, `M`, `G`, `T`, `P`, `E`, either case); an empty value is 0.
fn parse_int(v: &str) -> Result<i64, String> {
    let t = v.trim_start();
    let digits_end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    let (num, suffix) = t.split_at(digits_end);
    let n: i64 = match num {
        "" | "-" | "+" => 0,
        n => n
            .parse()
            .map_err(|_| format!("`{v}` is out of a 64-bit integer's range"))?,
    };
    let mut letters = suffix.chars();
    let shift = match letters.next() {
        None => 0,
        Some('k' | 'K') => 10,
        Some('m' | 'M') => 20,
        Some('g' | 'G') => 30,
        Some('t' | 'T') => 40,
        Some('p' | 'P') => 50,
        Some('e' | 'E') => 60,
        Some(c) => {
            return Err(format!(
                "`{v}` is not an integer: unknown suffix `{c}` (mysqld refuses to start with it)"
            ))
        }
    };
    if letters.next().is_some() {
        return Err(format!(
            "`{v}`: mysqld reads one suffix letter (write `{num}{}`); what follows it is read \
             differently by MySQL and MariaDB releases",
            &suffix[..1]
        ));
    }
    Ok(n.saturating_mul(1 << shift))
}

/// One variable's setting, resolved: the last line that set it (mysqld's rule).
#[derive(Clone, Debug)]
struct Setting {
    opt: Opt,
    /// An integer variable's value, clamped as mysqld clamps it.
    int: Option<i64>,
    /// What reading it said (clamped, abbreviated, versioned group, overridden lines).
    said: Vec<String>,
}

impl Setting {
    fn int_or(&self, default: i64) -> i64 {
        self.int.unwrap_or(default)
    }
}

/// One line of pinbad config, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The key, dotted for a table's (`udp.listen`).
    pub key: &'static str,
    pub value: toml::Value,
    /// The comment above it: the settings it comes from and how it was converted.
    pub comment: Vec<String>,
}

/// A setting with no pinbad equal, or one pinbad cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotHonoured {
    /// The line as written (`pinba_cpu_start = 2`).
    pub setting: String,
    pub at: Origin,
    pub why: String,
}

/// pinbad's configuration from an option file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Converted {
    /// The keys to set, top-level ones first, then `udp.*`.
    pub keys: Vec<Key>,
    /// Settings converted (each variable once, its last line), including those that equal
    /// pinbad's defaults and need no key.
    pub converted: usize,
    pub not_honoured: Vec<NotHonoured>,
    /// Comments for settings converted to pinbad's default (no key needed).
    pub kept_defaults: Vec<String>,
}

/// Maps the option file's pinba settings to pinbad's keys.
pub fn convert(file: &OptionFile) -> Converted {
    let mut out = Converted::default();
    let mut settings: BTreeMap<&'static str, Setting> = BTreeMap::new();
    for opt in &file.options {
        let (name, loose) = option_name(&opt.key);
        let not = |why: String| NotHonoured {
            setting: opt.shown(),
            at: opt.at.clone(),
            why,
        };
        let (resolved, abbreviation) = resolve(&name);
        let (var, kind) = match resolved {
            Resolved::Var(var, kind) => (var, kind),
            Resolved::Dropped(why) => {
                out.not_honoured.push(not(why.to_string()));
                continue;
            }
            Resolved::Unknown(why) => {
                let tail = if loose {
                    "; `loose-` made mysqld ignore it"
                } else {
                    " (mysqld refuses to start with it; `loose-` would make it ignore it)"
                };
                out.not_honoured.push(not(format!("{why}{tail}")));
                continue;
            }
        };
        let mut said = Vec::new();
        said.extend(abbreviation.map(|a| format!("`{}` is {a}", opt.key)));
        if let Some(v) = versioned(&opt.group) {
            said.push(format!(
                "from [{}], which only a {v} server reads: taken as that server's",
                opt.group
            ));
        }
        let int = match (kind, &opt.value) {
            (_, None) => {
                out.not_honoured.push(not(
                    "no value: mysqld refuses to start with it (the option requires an argument)"
                        .to_string(),
                ));
                continue;
            }
            (Kind::Str, Some(_)) => None,
            (Kind::Int { min, max, .. }, Some(v)) => match parse_int(v) {
                Ok(n) => {
                    let clamped = n.clamp(min, max);
                    if clamped != n {
                        said.push(format!(
                            "{n} is out of {min}..={max}: mysqld adjusted it to {clamped}"
                        ));
                    }
                    Some(clamped)
                }
                Err(why) => {
                    out.not_honoured.push(not(why));
                    continue;
                }
            },
        };
        if let Some(earlier) = settings.get(var) {
            said.push(format!("replaces {} (the last one counts)", earlier.opt.at));
        }
        settings.insert(
            var,
            Setting {
                opt: opt.clone(),
                int,
                said,
            },
        );
    }
    map(&settings, &mut out);
    out
}

/// The comment lines of a setting: its line and what reading it said.
fn from(s: &Setting, unit: &str) -> Vec<String> {
    let mut lines = vec![format!("{} ({}){unit}", s.opt.shown(), s.opt.at)];
    lines.extend(s.said.iter().map(|l| format!("  {l}")));
    lines
}

/// Each variable to pinbad's keys.
fn map(settings: &BTreeMap<&'static str, Setting>, out: &mut Converted) {
    let defaults = Config::default();
    let get = |name: &str| settings.get(name);
    let int_default = |name: &str| match VARIABLES.iter().find(|(n, _)| *n == name) {
        Some((_, Kind::Int { default, .. })) => *default,
        _ => 0,
    };
    let key = |out: &mut Converted, key: &'static str, value: toml::Value, comment| {
        out.keys.push(Key {
            key,
            value,
            comment,
        })
    };
    let duration = |d: Duration| toml::Value::String(humantime::format_duration(d).to_string());

    if let Some(s) = get("pinba_stats_history") {
        let mut comment = from(s, ": seconds");
        let mut d = Duration::from_secs(s.int_or(900) as u64);
        if d > MAX_HISTORY {
            comment.push(format!(
                "  pinbad's longest window is {}: taken instead",
                humantime::format_duration(MAX_HISTORY)
            ));
            d = MAX_HISTORY;
        }
        out.converted += 1;
        key(out, "stats_history", duration(d), comment);
    }
    if let Some(s) = get("pinba_stats_gathering_period") {
        let mut comment = from(s, ": microseconds");
        let asked = Duration::from_micros(s.int_or(10_000) as u64);
        let (lo, hi) = (Duration::from_millis(1), Duration::from_secs(10));
        let d = asked.clamp(lo, hi);
        if d != asked {
            comment.push(format!(
                "  pinbad merges every 1ms to 10s: {} taken instead",
                humantime::format_duration(d)
            ));
        }
        out.converted += 1;
        key(out, "stats_gathering_period", duration(d), comment);
    }

    // pinba_engine's timer pool grows as its requests need (from at least
    // ENGINE_TIMER_POOL_STEP); pinbad's pools are fixed: sized for the requests kept, at the
    // timers and tag pairs per request of pinbad's defaults, and never below pinba_engine's
    // starting size.
    let requests = get("pinba_request_pool_size");
    let timers = get("pinba_timer_pool_size");
    if let Some(s) = requests {
        let n = s.int_or(int_default("pinba_request_pool_size"));
        out.converted += 1;
        key(
            out,
            "request_pool_size",
            toml::Value::Integer(n),
            from(s, ": requests"),
        );
    }
    if requests.is_some() || timers.is_some() {
        let per_request = |pool: usize| (pool / defaults.request_pool_size) as i64;
        let n = requests.map_or(defaults.request_pool_size as i64, |s| s.int_or(0));
        let engine_timers = timers
            .map_or(int_default("pinba_timer_pool_size"), |s| s.int_or(0))
            .max(ENGINE_TIMER_POOL_STEP);
        let cap = u32::MAX as i64;
        let timer_pool = (n.saturating_mul(per_request(defaults.timer_pool_size)))
            .max(engine_timers)
            .min(cap);
        let tag_pool = n
            .saturating_mul(per_request(defaults.tag_pool_size))
            .min(cap);
        let mut comment: Vec<String> = timers.map(|s| from(s, ": timers")).unwrap_or_default();
        if timers.is_some() {
            out.converted += 1;
        }
        comment.push(format!(
            "pinba_engine's timer pool grew as its requests needed (from {ENGINE_TIMER_POOL_STEP} \
             at least); pinbad's pools are fixed: {} timers and {} tag pairs per request kept, \
             as its defaults",
            per_request(defaults.timer_pool_size),
            per_request(defaults.tag_pool_size)
        ));
        if timer_pool as usize != defaults.timer_pool_size {
            key(
                out,
                "timer_pool_size",
                toml::Value::Integer(timer_pool),
                comment,
            );
            comment = Vec::new();
        }
        if tag_pool as usize != defaults.tag_pool_size {
            key(
                out,
                "tag_pool_size",
                toml::Value::Integer(tag_pool),
                comment,
            );
        } else if !comment.is_empty() && timer_pool as usize == defaults.timer_pool_size {
            comment.push(format!(
                "= pinbad's default timer_pool_size ({}): nothing to set",
                defaults.timer_pool_size
            ));
            out.kept_defaults.extend(comment);
        }
    }

    // The temp pool: requests (growing up to its limit: 10 × its size unless a larger limit is
    // set) in pinba_engine, bytes in pinbad.
    let temp = get("pinba_temp_pool_size");
    let limit = get("pinba_temp_pool_size_limit");
    if temp.is_some() || limit.is_some() {
        let size = temp.map_or(int_default("pinba_temp_pool_size"), |s| s.int_or(0));
        let limit_n = limit.map_or(0, |s| s.int_or(0));
        let most = if limit_n < size { size * 10 } else { limit_n };
        let mut comment = Vec::new();
        for s in [temp, limit].into_iter().flatten() {
            out.converted += 1;
            comment.extend(from(s, ": requests"));
        }
        let bytes = (most as u64)
            .saturating_mul(TEMP_POOL_REQUEST_BYTES)
            .min(64 << 30)
            .div_ceil(1 << 20)
            << 20;
        comment.push(format!(
            "pinba_engine queued up to {most} requests; pinbad's queue is bounded in bytes: \
             {} KiB per request",
            TEMP_POOL_REQUEST_BYTES >> 10
        ));
        if bytes > defaults.temp_pool_memory.0 {
            let value = toml::Value::try_from(ByteSize(bytes))
                .unwrap_or(toml::Value::Integer(bytes as i64));
            key(out, "temp_pool_memory", value, comment);
        } else {
            comment.push(format!(
                "pinbad's default temp_pool_memory ({} MiB) holds more: kept",
                defaults.temp_pool_memory.0 >> 20
            ));
            out.kept_defaults.extend(comment);
        }
    }

    // Where to listen: pinba_engine bound one IPv4 socket (`inet_aton` of the address, any
    // address when it is empty or does not parse).
    let port = get("pinba_port");
    let address = get("pinba_address");
    if port.is_some() || address.is_some() {
        let mut comment = Vec::new();
        let mut p = 30002;
        if let Some(s) = port {
            out.converted += 1;
            comment.extend(from(s, ""));
            p = s.int_or(30002);
            if p == 65536 {
                comment.push(
                    "  65536 is port 0 as pinba_engine bound it (any free port): taken so"
                        .to_string(),
                );
                p = 0;
            }
        }
        let mut ip = std::net::Ipv4Addr::UNSPECIFIED;
        if let Some(s) = address {
            out.converted += 1;
            comment.extend(from(s, ""));
            let text = s.opt.value.as_deref().unwrap_or("");
            match inet_aton(text) {
                Some(a) => ip = a,
                None if text.is_empty() => {}
                None => comment.push(format!(
                    "  `{text}` is not an IPv4 address: pinba_engine listened on every \
                     address then (saying so in its log), and so does this"
                )),
            }
        }
        comment.push(
            "pinba_engine listened on IPv4 only; add \"[::]:PORT\" for IPv6 clients".to_string(),
        );
        key(
            out,
            "udp.listen",
            toml::Value::Array(vec![toml::Value::String(format!("{ip}:{p}"))]),
            comment,
        );
    }

    let not_honoured = [
        (
            "pinba_data_pool_size",
            "pinbad's receivers queue datagrams in the ring that also holds decoded requests, \
             bounded by temp_pool_memory as a whole",
        ),
        (
            "pinba_data_job_size",
            "pinbad's receivers hand over what each recvmmsg() call reads (up to udp.batch \
             datagrams), and the merger merges every stats_gathering_period: there is no queue \
             length to wait for",
        ),
        (
            "pinba_cpu_start",
            "pinbad pins no thread to a CPU; udp.readers and merge.threads set how many run",
        ),
        (
            "pinba_histogram_max_time",
            "pinbad's histograms have no range to set: they hold every time from 1 µs to \
             1000 s within 1 %, so a percentile past pinba_engine's range is the real time, \
             not the range's top",
        ),
        (
            "pinba_histogram_size",
            "pinbad's histograms have no size to set: they hold every time from 1 µs to 1000 s \
             within 1 %",
        ),
        (
            "pinba_log_level",
            "pinbad's log is chosen by the RUST_LOG environment variable (error, warn, info, \
             debug), not by its config",
        ),
    ];
    for (name, why) in not_honoured {
        if let Some(s) = get(name) {
            let mut why = why.to_string();
            for l in &s.said {
                why.push_str(&format!("; {l}"));
            }
            out.not_honoured.push(NotHonoured {
                setting: s.opt.shown(),
                at: s.opt.at.clone(),
                why,
            });
        }
    }
    // The key order of the text: top-level keys before `udp.*` (a TOML table ends them).
    out.keys.sort_by_key(|k| k.key.contains('.'));
}

/// An IPv4 address as `inet_aton` reads one: one to four parts, each decimal, octal (`0…`) or
/// hexadecimal (`0x…`), the last filling the bytes left (`127.1` is 127.0.0.1).
fn inet_aton(s: &str) -> Option<std::net::Ipv4Addr> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut values = Vec::with_capacity(4);
    for p in &parts {
        let (digits, radix) = if let Some(h) = p.strip_prefix("0x").or(p.strip_prefix("0X")) {
            (h, 16)
        } else if p.len() > 1 && p.starts_with('0') {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        if (digits.is_empty() && radix != 8) || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let v = if digits.is_empty() {
            0
        } else {
            u32::from_str_radix(digits, radix).ok()?
        };
        values.push(v);
    }
    let (last, head) = values.split_last()?;
    if head.iter().any(|&v| v > 255) {
        return None;
    }
    let rest_bits = 8 * (4 - head.len() as u32);
    if rest_bits < 32 && *last >= 1 << rest_bits {
        return None;
    }
    let mut n: u32 = *last;
    for (i, &v) in head.iter().enumerate() {
        n |= v << (24 - 8 * i as u32);
    }
    Some(std::net::Ipv4Addr::from(n))
}

impl Converted {
    /// What the command says on stderr: each setting not honoured and each pinba option under
    /// a group mysqld does not read, with its line.
    pub fn messages(&self, file: &OptionFile) -> Vec<String> {
        let not_honoured = self
            .not_honoured
            .iter()
            .map(|n| format!("{}: not honoured: {}: {}", n.at, n.setting, n.why));
        let not_read = file.elsewhere.iter().map(|o| {
            format!(
                "{}: not read: {} is under [{}], which mysqld does not read",
                o.at, o.key, o.group
            )
        });
        not_honoured.chain(not_read).collect()
    }

    /// The config text: a summary, the top-level keys, then `[udp]`, each key under the
    /// comment saying where it came from, and the settings not honoured as comments. Valid
    /// pinbad config (a test loads it and check-config takes it).
    pub fn to_toml(&self, file: &OptionFile) -> String {
        let one_line = super::import::one_line;
        let mut text = format!(
            "# pinbad's settings converted by `pinbad import-mycnf` from {}:\n\
             # {} pinba_engine settings: {} converted, {} not honoured.\n\
             # Top-level keys: paste them above any [table] of pinbad's config (import-sql's \
             [[report]] tables may follow).\n",
            one_line(&file.files.join(", ")),
            self.converted + self.not_honoured.len(),
            self.converted,
            self.not_honoured.len(),
        );
        let mut table = "";
        for k in &self.keys {
            let (head, name) = k.key.split_once('.').unwrap_or(("", k.key));
            if head != table {
                text.push_str(&format!("\n[{head}]\n"));
                table = head;
            } else {
                text.push('\n');
            }
            for c in &k.comment {
                text.push_str(&format!("# {}\n", one_line(c)));
            }
            text.push_str(&format!("{name} = {}\n", k.value));
        }
        if !self.kept_defaults.is_empty() {
            text.push('\n');
            for c in &self.kept_defaults {
                text.push_str(&format!("# {}\n", one_line(c)));
            }
        }
        for n in &self.not_honoured {
            text.push_str(&format!(
                "\n# NOT HONOURED: {} ({}): {}\n",
                one_line(&n.setting),
                one_line(&n.at.to_string()),
                one_line(&n.why)
            ));
        }
        for o in &file.elsewhere {
            text.push_str(&format!(
                "\n# NOT READ: {} ({}): under [{}], which mysqld does not read\n",
                one_line(&o.shown()),
                one_line(&o.at.to_string()),
                one_line(&o.group)
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Files in memory, by path.
    struct Mem(HashMap<PathBuf, String>);

    impl Files for Mem {
        fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
            self.0
                .get(path)
                .map(|s| s.as_bytes().to_vec())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        }
        fn list(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
            let mut out: Vec<PathBuf> = self
                .0
                .keys()
                .filter(|p| p.parent() == Some(dir))
                .cloned()
                .collect();
            if out.is_empty() {
                return Err(std::io::ErrorKind::NotFound.into());
            }
            // Not in name order: the reader sorts.
            out.sort();
            out.reverse();
            Ok(out)
        }
    }

    fn mem(files: &[(&str, &str)]) -> Mem {
        Mem(files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect())
    }

    fn read_text(text: &str) -> OptionFile {
        read(
            "my.cnf",
            text.as_bytes(),
            Path::new("/etc/mysql"),
            &mem(&[]),
        )
    }

    fn values(f: &OptionFile) -> Vec<(String, Option<String>)> {
        f.options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect()
    }

    fn pair(k: &str, v: Option<&str>) -> (String, Option<String>) {
        (k.to_string(), v.map(str::to_string))
    }

    #[test]
    fn reads_lines_as_mysqld() {
        let f = read_text(
            "# a comment\n; another\n[client]\npinba_port = 1\n\
             [MySQLd]\n  pinba_port=30003 # the port\npinba-address = \"127.0.0.1\"\n\
             pinba_temp_pool_size\nport = 3306\npinba_log_level='a#b' # c\n\
             pinba_x = \"a\\tb\\sc\\\\d\\qe\"\r\n[mysqld_safe]\npinba_cpu_start = 3\n",
        );
        assert_eq!(
            values(&f),
            [
                pair("pinba_port", Some("30003")),
                pair("pinba-address", Some("127.0.0.1")),
                pair("pinba_temp_pool_size", None),
                pair("pinba_log_level", Some("a#b")),
                pair("pinba_x", Some("a\tb c\\d\\qe")),
            ]
        );
        assert_eq!(f.options[0].group, "mysqld");
        assert_eq!(f.options[0].at.to_string(), "my.cnf:6");
        let elsewhere: Vec<&str> = f.elsewhere.iter().map(|o| o.group.as_str()).collect();
        assert_eq!(elsewhere, ["client", "mysqld_safe"]);
        let messages = convert(&f).messages(&f);
        assert!(
            messages.contains(
                &"my.cnf:4: not read: pinba_port is under [client], which mysqld does not read"
                    .to_string()
            ),
            "{messages:?}"
        );
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    }

    #[test]
    fn reads_the_server_groups_only() {
        for g in [
            "mysqld",
            "server",
            "mariadb",
            "mariadbd",
            "client-server",
            "mysqld-5.7",
        ] {
            let f = read_text(&format!("[{g}]\npinba_port = 1\n"));
            assert_eq!(f.options.len(), 1, "{g}");
        }
        for g in [
            "mysql",
            "client",
            "mysqld_safe",
            "mysqld-multi",
            "mysqldump",
        ] {
            let f = read_text(&format!("[{g}]\npinba_port = 1\n"));
            assert!(f.options.is_empty(), "{g}");
            assert_eq!(f.elsewhere.len(), 1, "{g}");
        }
    }

    #[test]
    fn follows_includes_and_names_what_it_cannot() {
        let files = mem(&[
            ("/etc/mysql/conf.d/b.cnf", "[mysqld]\npinba_port = 2\n"),
            (
                "/etc/mysql/conf.d/a.cnf",
                "[mysqld]\npinba_port = 1\n!include /etc/mysql/x.cnf\n",
            ),
            ("/etc/mysql/conf.d/c.txt", "[mysqld]\npinba_port = 9\n"),
            (
                "/etc/mysql/x.cnf",
                "pinba_port = 7\n[server]\npinba_stats_history = 60\n",
            ),
            ("/etc/mysql/loop.cnf", "!include loop.cnf\n"),
        ]);
        let text = "[mysqld]\n!includedir conf.d\npinba_address = 10.0.0.1\n\
                    !include missing.cnf\n!include loop.cnf\n!exec x\n";
        let f = read(
            "/etc/mysql/my.cnf",
            text.as_bytes(),
            Path::new("/etc/mysql"),
            &files,
        );
        // The including file's group goes on after the include.
        assert_eq!(
            values(&f),
            [
                pair("pinba_port", Some("1")),
                pair("pinba_stats_history", Some("60")),
                pair("pinba_port", Some("2")),
                pair("pinba_address", Some("10.0.0.1")),
            ]
        );
        let w = f.warnings.join("\n");
        assert!(
            w.contains("x.cnf:1: `pinba_port` is outside any [group]"),
            "{w}"
        );
        assert!(w.contains("`missing.cnf` not included"), "{w}");
        assert!(w.contains("10 files deep"), "{w}");
        assert!(w.contains("`!exec x` is not a directive"), "{w}");
        assert_eq!(f.files[0], "/etc/mysql/my.cnf");
        assert_eq!(f.files[1], "/etc/mysql/conf.d/a.cnf");
        assert_eq!(
            f.files.iter().filter(|n| n.ends_with("loop.cnf")).count(),
            9
        );
    }

    #[test]
    fn reads_names_and_integers_as_mysqld() {
        assert_eq!(
            option_name("loose-pinba-stats-history"),
            ("pinba_stats_history".into(), true)
        );
        assert_eq!(
            option_name("plugin-pinba_port"),
            ("pinba_port".into(), false)
        );
        assert!(is_pinba_option("loose_plugin-PINBA-port"));
        assert!(!is_pinba_option("pinbaport"));
        for (v, n) in [
            ("10", 10),
            ("10k", 10240),
            ("2M", 2 << 20),
            ("1G", 1 << 30),
            ("", 0),
            ("-5", -5),
        ] {
            assert_eq!(parse_int(v), Ok(n), "{v}");
        }
        for v in ["10KB", "abc", "1.5", "99999999999999999999"] {
            assert!(parse_int(v).is_err(), "{v}");
        }
        let why = parse_int("10KB").unwrap_err();
        assert!(why.contains("write `10K`"), "{why}");
        assert!(matches!(
            resolve("pinba_stats_hist"),
            (Resolved::Var("pinba_stats_history", _), Some(_))
        ));
        assert!(
            matches!(resolve("pinba_stats"), (Resolved::Unknown(w), None) if w.contains("ambiguous"))
        );
        assert!(
            matches!(resolve("pinba_Port"), (Resolved::Unknown(w), None) if w.contains("case-sensitive"))
        );
        assert!(matches!(
            resolve("pinba_tag_report_timeout"),
            (Resolved::Dropped(..), None)
        ));
        for (s, ip) in [
            ("127.0.0.1", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("0x7f.0.0.01", "127.0.0.1"),
            ("10.65535", "10.0.255.255"),
            ("3232235777", "192.168.1.1"),
        ] {
            assert_eq!(
                inet_aton(s).map(|a| a.to_string()).as_deref(),
                Some(ip),
                "{s}"
            );
        }
        for s in [
            "",
            "localhost",
            "1.2.3.4.5",
            "256.1.1.1",
            "1.2.65536",
            "08.1.1.1",
            "+1.2.3.4",
        ] {
            assert_eq!(inet_aton(s), None, "{s}");
        }
    }

    fn convert_text(text: &str) -> (Converted, OptionFile) {
        let f = read_text(text);
        (convert(&f), f)
    }

    fn value(c: &Converted, key: &str) -> Option<toml::Value> {
        c.keys
            .iter()
            .find(|k| k.key == key)
            .map(|k| k.value.clone())
    }

    fn config_of(c: &Converted, f: &OptionFile) -> Config {
        let text = c.to_toml(f);
        let config: Config = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        config.validate().unwrap_or_else(|e| panic!("{e}\n{text}"));
        config
    }

    #[test]
    fn maps_each_variable_with_its_units() {
        let (c, f) = convert_text(
            "[mysqld]\npinba_port = 30003\npinba_address = 127.0.0.1\n\
             pinba_stats_history = 300\npinba_stats_gathering_period = 50000\n\
             pinba_request_pool_size = 2M\npinba_timer_pool_size = 100000\n\
             pinba_temp_pool_size = 20000\npinba_histogram_max_time = 30\n\
             pinba_cpu_start = 2\npinba_tag_report_timeout = 600\n",
        );
        let config = config_of(&c, &f);
        assert_eq!(config.udp.listen, ["127.0.0.1:30003"]);
        assert_eq!(config.stats_history.0, Duration::from_secs(300));
        assert_eq!(config.stats_gathering_period.0, Duration::from_millis(50));
        assert_eq!(config.request_pool_size, 2 << 20);
        assert_eq!(config.timer_pool_size, 4 * (2 << 20));
        assert_eq!(config.tag_pool_size, 12 * (2 << 20));
        // 10 × 20000 requests × 2 KiB.
        assert_eq!(config.temp_pool_memory.0, 391 << 20);
        let named: Vec<&str> = c.not_honoured.iter().map(|n| n.setting.as_str()).collect();
        assert_eq!(
            named,
            [
                "pinba_tag_report_timeout = 600",
                "pinba_cpu_start = 2",
                "pinba_histogram_max_time = 30",
            ]
        );
        assert_eq!(c.converted, 7);
        let text = c.to_toml(&f);
        assert!(
            text.contains("# 10 pinba_engine settings: 7 converted, 3 not honoured."),
            "{text}"
        );
        assert!(
            text.contains("# NOT HONOURED: pinba_cpu_start = 2 (my.cnf:10): pinbad pins"),
            "{text}"
        );
        let messages = c.messages(&f);
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[1].starts_with("my.cnf:10: not honoured: pinba_cpu_start = 2: pinbad pins"),
            "{messages:?}"
        );
    }

    #[test]
    fn reads_what_mysqld_would_keep() {
        let (c, f) = convert_text(
            "[mysqld]\npinba_port = 1\n[mysqld-5.7]\nloose-plugin-pinba-port = 65536\n\
             [server]\npinba_stats_history = 0\npinba_stats_gathering_period = 10\n\
             pinba_address = nowhere\nloose-pinba-foo = 1\npinba_bar = 2\npinba_port\n\
             pinba_stats_history = 99999999999\npinba_histogram_size = 1x\n\
             PINBA_PORT = 5\n",
        );
        let config = config_of(&c, &f);
        // The last valid line counts; 65536 is clamped to by mysqld and bound as port 0.
        assert_eq!(config.udp.listen, ["0.0.0.0:0"]);
        // 99999999999 s clamped to INT_MAX by mysqld, then to pinbad's 30 days.
        assert_eq!(config.stats_history.0, MAX_HISTORY);
        assert_eq!(config.stats_gathering_period.0, Duration::from_millis(1));
        let text = c.to_toml(&f);
        for said in [
            "which only a 5.7 server reads",
            "replaces my.cnf:2",
            "`nowhere` is not an IPv4 address",
            "pinbad merges every 1ms to 10s",
            "mysqld adjusted it to 2147483647",
        ] {
            assert!(text.contains(said), "{said}: {text}");
        }
        let why: Vec<(&str, &str)> = c
            .not_honoured
            .iter()
            .map(|n| (n.setting.as_str(), n.why.as_str()))
            .collect();
        let expect = [
            ("loose-pinba-foo = 1", "`loose-` made mysqld ignore it"),
            ("pinba_bar = 2", "mysqld refuses to start with it"),
            ("pinba_port", "no value"),
            ("pinba_histogram_size = 1x", "unknown suffix"),
            ("PINBA_PORT = 5", "case-sensitive"),
        ];
        assert_eq!(why.len(), expect.len(), "{why:?}");
        for ((s, w), (es, ew)) in why.iter().zip(expect) {
            assert_eq!(*s, es);
            assert!(w.contains(ew), "{s}: {w}");
        }
    }

    #[test]
    fn pools_at_or_below_pinbads_defaults_are_kept() {
        let (c, f) = convert_text(
            "[mysqld]\npinba_temp_pool_size = 10000\npinba_request_pool_size = 1000000\n",
        );
        assert!(
            c.keys.iter().all(|k| k.key == "request_pool_size"),
            "{:?}",
            c.keys
        );
        let config = config_of(&c, &f);
        let d = Config::default();
        assert_eq!(config.temp_pool_memory, d.temp_pool_memory);
        assert_eq!(config.timer_pool_size, d.timer_pool_size);
        let text = c.to_toml(&f);
        assert!(text.contains("holds more: kept"), "{text}");
        assert!(text.contains("nothing to set"), "{text}");
        assert_eq!(
            value(&c, "request_pool_size"),
            Some(toml::Value::Integer(1_000_000))
        );
        // An explicit temp pool limit above 10 × the size counts.
        let (c, _) = convert_text(
            "[mysqld]\npinba_temp_pool_size = 1000\npinba_temp_pool_size_limit = 1000000\n",
        );
        assert_eq!(
            value(&c, "temp_pool_memory"),
            Some(toml::Value::String("1954MiB".into()))
        );
    }
}
