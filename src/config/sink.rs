//! `[[sink]]` tables: the keys every sink has (`name`, `enabled`, `sample`, `queue`), and each
//! kind's own (`file`, `clickhouse`), parsed so that an error names the key it is about.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

use super::ConfigError;
use crate::units::{ByteSize, HumanDuration};

/// One `[[sink]]` table: the keys every sink has, and its kind's own.
#[derive(Clone, Debug, Serialize)]
pub struct SinkConfig {
    /// Unique; names the sink in logs, status and `/api/v1/sinks/{name}`.
    pub name: String,
    /// Whether it receives requests from start-up (switchable at run time).
    pub enabled: bool,
    /// Share of requests it receives, 0..=1 (by a hash of the request id; run-time switchable).
    pub sample: f64,
    /// Requests queued for the sink's thread at most; beyond it rounds are dropped and counted.
    pub queue: usize,
    #[serde(flatten)]
    pub kind: SinkKind,
}

/// What a sink writes to, by `kind`.
// Built once per `[[sink]]` at start-up: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SinkKind {
    File(FileConfig),
    Clickhouse(ClickHouseConfig),
}

impl SinkKind {
    pub fn name(&self) -> &'static str {
        match self {
            SinkKind::File(_) => "file",
            SinkKind::Clickhouse(_) => "clickhouse",
        }
    }
}

/// The keys every sink has, apart from `kind`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Common {
    name: String,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default = "one")]
    sample: f64,
    #[serde(default = "default_queue")]
    queue: usize,
}

fn yes() -> bool {
    true
}
fn one() -> f64 {
    1.0
}
fn default_queue() -> usize {
    SinkConfig::DEFAULT_QUEUE
}

impl<'de> Deserialize<'de> for SinkConfig {
    /// The common keys are taken out of the table and the rest is the kind's, which refuses keys
    /// it does not know (serde's `flatten` cannot be combined with `deny_unknown_fields`).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        let mut common = toml::Table::new();
        for key in ["name", "enabled", "sample", "queue"] {
            if let Some(v) = table.remove(key) {
                common.insert(key.into(), v);
            }
        }
        let name = common
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string();
        let c: Common = common
            .try_into()
            .map_err(|e| D::Error::custom(format!("sink `{name}`: {e}")))?;
        let kind = kind_of(table).map_err(|e| D::Error::custom(format!("sink `{name}`: {e}")))?;
        Ok(SinkConfig {
            name: c.name,
            enabled: c.enabled,
            sample: c.sample,
            queue: c.queue,
            kind,
        })
    }
}

/// A sink's own keys (`kind` and the kind's) as its kind's config; an error names the key it is
/// about. Parsed from text, as one kind's struct: a table converted in memory, or an internally
/// tagged enum, gives serde's message without the key (`invalid type: integer `5`, expected a
/// string`), and only parsed text keeps the span that tells which key it was.
fn kind_of(mut table: toml::Table) -> Result<SinkKind, String> {
    let kind = table.remove("kind");
    let (text, keys) = keyed_text(&table)?;
    let named = |e: toml::de::Error| {
        // The key whose text holds the whole span; none when it spans several (or none).
        let key = e.span().and_then(|span| {
            keys.iter()
                .find(|(at, _)| at.start <= span.start && span.end <= at.end)
                .map(|(_, key)| key)
        });
        match key {
            Some(key) => format!("`{key}`: {}", e.message()),
            None => e.message().to_string(),
        }
    };
    match kind.as_ref().and_then(|k| k.as_str()) {
        Some("file") => toml::from_str(&text).map(SinkKind::File).map_err(named),
        Some("clickhouse") => toml::from_str(&text)
            .map(SinkKind::Clickhouse)
            .map_err(named),
        _ => Err(match kind {
            None => "missing `kind` (\"file\" or \"clickhouse\")".to_string(),
            Some(k) => format!("`kind` is {k}, not \"file\" or \"clickhouse\""),
        }),
    }
}

/// Where one top-level key and its value were written in [`keyed_text`]'s text.
type KeyText = (std::ops::Range<usize>, String);

/// `table` as TOML text, with the byte range each top-level key was written in. Each key is
/// written on its own, so the key an error's span falls in is known exactly: read back from the
/// whole document's text, a table value (written as a `[key]` or `[[key]]` section) or a quoted
/// key holding `=` was named wrong. Keys written as sections come last, as TOML needs: a plain
/// key after a section would belong to it.
fn keyed_text(table: &toml::Table) -> Result<(String, Vec<KeyText>), String> {
    let mut plain = Vec::new();
    let mut sections = Vec::new();
    for (key, value) in table {
        let mut one = toml::Table::new();
        one.insert(key.clone(), value.clone());
        let written = toml::to_string(&one).map_err(|e| e.to_string())?;
        if written.starts_with('[') {
            sections.push((key, written));
        } else {
            plain.push((key, written));
        }
    }
    let mut text = String::new();
    let mut keys = Vec::new();
    for (key, written) in plain.into_iter().chain(sections) {
        let start = text.len();
        text.push_str(&written);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        keys.push((start..text.len(), key.clone()));
    }
    Ok((text, keys))
}

impl SinkConfig {
    /// `queue` when the table does not set it.
    pub const DEFAULT_QUEUE: usize = 100_000;

    /// Checks the values of `sink[i]`; the error names the key.
    pub fn validate(&self, i: usize) -> Result<(), ConfigError> {
        let key = |k: &str| format!("sink[{i}].{k}");
        let invalid = |k: &str, m: String| ConfigError::Invalid {
            key: key(k),
            message: m,
        };
        if self.name.is_empty()
            || self.name.len() > 64
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
        {
            return Err(invalid(
                "name",
                format!(
                    "`{}` must be 1 to 64 letters, digits, `_`, `-` or `.`",
                    self.name
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.sample) {
            return Err(invalid(
                "sample",
                format!("{} is not in 0..=1", self.sample),
            ));
        }
        if self.queue == 0 || self.queue > 100_000_000 {
            return Err(invalid(
                "queue",
                format!("{} is out of range 1..=100000000", self.queue),
            ));
        }
        let kind = match &self.kind {
            SinkKind::File(f) => f.validate(),
            SinkKind::Clickhouse(c) => c.validate(),
        };
        kind.map_err(|(k, m)| invalid(k, m))
    }

    /// Makes relative paths relative to `base` (the config file's directory).
    pub fn resolve_paths(&mut self, base: &Path) {
        if let SinkKind::File(f) = &mut self.kind {
            if f.path.is_relative() && !f.path.as_os_str().is_empty() {
                f.path = base.join(&f.path);
            }
        }
    }
}

/// `[[sink]]` keys of `kind = "file"`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
    /// The file written (created with its directory; appended to if it exists). Relative to the
    /// config file's directory.
    pub path: PathBuf,
    /// Whether each line carries the request's timers (with their tags).
    pub timers: bool,
    /// Rotate when the file reaches this size.
    pub max_bytes: ByteSize,
    /// Rotate when the file is this old (and not empty).
    pub max_age: HumanDuration,
    /// Rotated files kept; older ones are removed.
    pub keep: usize,
    /// Whether rotated files are gzipped.
    pub gzip: bool,
}

impl Default for FileConfig {
    fn default() -> FileConfig {
        FileConfig {
            path: PathBuf::new(),
            timers: false,
            max_bytes: ByteSize(100 << 20),
            max_age: HumanDuration(Duration::from_secs(3600)),
            keep: 24,
            gzip: true,
        }
    }
}

impl FileConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        // Absent, it defaults to empty: said as missing, not as a directory named.
        if self.path.as_os_str().is_empty() {
            return Err(("path", "is required: the file the sink writes".into()));
        }
        // `logs/` has a file name as `Path` reads it (`logs`): the slash says a directory.
        let dir_like =
            self.path.as_os_str().as_encoded_bytes().ends_with(b"/") || self.path.is_dir();
        if self.path.file_name().is_none() || dir_like {
            return Err(("path", "must name a file, not a directory".into()));
        }
        if self.max_bytes.0 < 1024 {
            return Err(("max_bytes", "must be at least 1KiB".into()));
        }
        if self.max_age.0 < Duration::from_secs(1) {
            return Err(("max_age", "must be at least 1s".into()));
        }
        if self.keep > 100_000 {
            return Err(("keep", format!("{} is above 100000", self.keep)));
        }
        Ok(())
    }
}

/// `[[sink]]` keys of `kind = "clickhouse"`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClickHouseConfig {
    /// The HTTP interface, e.g. `http://127.0.0.1:8123`, or `https://…` (certificates verified).
    pub url: String,
    /// PEM file of the CA(s) an `https://` server's certificate must chain to; empty: the
    /// public web PKI's roots (Mozilla's, built in).
    pub ca_file: String,
    pub database: String,
    pub user: String,
    pub password: String,
    pub requests_table: String,
    pub timers_table: String,
    /// Create the database and both tables (if missing) before the first insert.
    pub create_tables: bool,
    /// A batch is sent when it holds this many requests...
    pub batch_rows: usize,
    /// ...or is this old.
    pub batch_time: HumanDuration,
    /// Requests kept for retry while the server is away; beyond it the oldest are dropped.
    pub max_buffered_rows: usize,
    /// Time an insert may take before it counts as failed.
    pub timeout: HumanDuration,
    /// Written in every row's `instance` column, to tell pinbad instances apart in one cluster.
    /// Empty: the machine's host name.
    pub instance: String,
    /// `create_tables` adds `TTL time + INTERVAL …` (rows older are deleted by the server);
    /// zero: no TTL.
    pub ttl: HumanDuration,
    /// The reports whose closed ticks are written to `ticks_table`, one row per report row
    /// (`"*"`: every report); none by default.
    pub reports: TickReports,
    /// The table of report ticks (see `sink::clickhouse::ticks_ddl`).
    pub ticks_table: String,
}

/// `reports` of a ClickHouse sink: report names, or `"*"` for every report (written as the
/// string `"*"` or a list of names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TickReports(pub Vec<String>);

impl TickReports {
    /// Whether the ticks of the report named `name` are written.
    pub fn includes(&self, name: &str) -> bool {
        self.0.iter().any(|n| n == "*" || n == name)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for TickReports {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.len() == 1 && self.0[0] == "*" {
            s.serialize_str("*")
        } else {
            self.0.serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for TickReports {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            One(String),
            Many(Vec<String>),
        }
        match Form::deserialize(d) {
            Ok(Form::One(s)) => Ok(TickReports(vec![s])),
            Ok(Form::Many(v)) => Ok(TickReports(v)),
            Err(_) => Err(serde::de::Error::custom(
                "must be \"*\" or a list of report names",
            )),
        }
    }
}

/// Whether any of `sinks` writes the closed ticks of the report named `name` (the report then
/// keeps its closed ticks for the merge threads to hand over; see `state::new_report`).
pub fn writes_ticks_of(sinks: &[SinkConfig], name: &str) -> bool {
    sinks.iter().any(|s| match &s.kind {
        SinkKind::Clickhouse(c) => c.reports.includes(name),
        SinkKind::File(_) => false,
    })
}

impl Default for ClickHouseConfig {
    fn default() -> ClickHouseConfig {
        ClickHouseConfig {
            url: String::new(),
            ca_file: String::new(),
            database: "default".into(),
            user: "default".into(),
            password: String::new(),
            requests_table: "pinba_requests".into(),
            timers_table: "pinba_timers".into(),
            create_tables: false,
            batch_rows: 10_000,
            batch_time: HumanDuration(Duration::from_secs(1)),
            max_buffered_rows: 1_000_000,
            timeout: HumanDuration(Duration::from_secs(10)),
            instance: String::new(),
            ttl: HumanDuration(Duration::ZERO),
            reports: TickReports::default(),
            ticks_table: "pinba_report_ticks".into(),
        }
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether `a` is `HOST` or `HOST:PORT` (an IPv6 address in brackets), `PORT` a number up to
/// 65535: what ureq can connect to, so a typo stops start-up instead of failing every insert.
fn is_host_port(a: &str) -> bool {
    let (host_ok, port) = match a.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, port)) => (addr.parse::<std::net::Ipv6Addr>().is_ok(), port),
            None => return false,
        },
        None => {
            let (host, port) = a.split_at(a.find(':').unwrap_or(a.len()));
            let name = |c: char| c.is_ascii_alphanumeric() || ".-_".contains(c);
            (!host.is_empty() && host.chars().all(name), port)
        }
    };
    host_ok
        && match port.strip_prefix(':') {
            Some(p) => p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok(),
            None => port.is_empty(),
        }
}

impl ClickHouseConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let https = self.url.starts_with("https://");
        let rest = (self.url.strip_prefix("http://"))
            .or(self.url.strip_prefix("https://"))
            .unwrap_or("");
        let authority = rest.split('/').next().unwrap_or("");
        if authority.contains('@') {
            return Err((
                "url",
                "must not hold credentials (they would show in the status): use `user` and `password`"
                    .into(),
            ));
        }
        if rest.contains(['?', '#', ' ']) || !is_host_port(authority) {
            return Err((
                "url",
                format!(
                    "`{}` is not a plain http:// or https:// URL like http://127.0.0.1:8123",
                    self.url
                ),
            ));
        }
        for (key, v) in [
            ("database", &self.database),
            ("requests_table", &self.requests_table),
            ("timers_table", &self.timers_table),
            ("ticks_table", &self.ticks_table),
        ] {
            if !is_identifier(v) {
                return Err((key, format!("`{v}` must be letters, digits and `_`")));
            }
        }
        if !self.ca_file.is_empty() {
            if !https {
                return Err(("ca_file", "is only for an https:// url".into()));
            }
            self.ca_certificates().map_err(|e| ("ca_file", e))?;
        }
        for name in &self.reports.0 {
            if name.is_empty() || name.len() > 128 || name.contains(['\'', '\\']) {
                return Err((
                    "reports",
                    format!("`{name}` is not a report name (1 to 128 bytes, no quotes)"),
                ));
            }
            if name == "*" && self.reports.0.len() > 1 {
                return Err((
                    "reports",
                    "\"*\" stands alone: it names every report".into(),
                ));
            }
        }
        if !self.ttl.0.is_zero() && self.ttl.0 < Duration::from_secs(3600) {
            return Err(("ttl", "must be at least 1h (or \"0s\": no TTL)".into()));
        }
        if self.batch_rows == 0 || self.batch_rows > 1_000_000 {
            return Err(("batch_rows", "must be in 1..=1000000".into()));
        }
        if self.batch_time.0 < Duration::from_millis(10)
            || self.batch_time.0 > Duration::from_secs(3600)
        {
            return Err(("batch_time", "must be between 10ms and 1h".into()));
        }
        if self.max_buffered_rows < self.batch_rows || self.max_buffered_rows > 100_000_000 {
            return Err((
                "max_buffered_rows",
                "must be at least batch_rows and at most 100000000".into(),
            ));
        }
        if self.timeout.0 < Duration::from_millis(100) || self.timeout.0 > Duration::from_secs(600)
        {
            return Err(("timeout", "must be between 100ms and 10m".into()));
        }
        Ok(())
    }

    /// The certificates of `ca_file` (PEM), or why they cannot be had (unreadable, none in it).
    pub fn ca_certificates(
        &self,
    ) -> Result<Vec<rustls_pki_types::CertificateDer<'static>>, String> {
        use rustls_pki_types::pem::PemObject;
        let path = Path::new(&self.ca_file);
        let certs = rustls_pki_types::CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if certs.is_empty() {
            return Err(format!("{}: holds no PEM certificate", path.display()));
        }
        Ok(certs)
    }
}
