//! MySQL's functions, added to a session's SQLite connection: what pinba_engine's users and their
//! tools (Pinboard, Grafana's MySQL data source) call and SQLite lacks or spells otherwise
//! (`statement` renames `IF`, `LEFT`, `RIGHT`, … to the names registered here).
//!
//! Times: the session's time zone is UTC (`@@time_zone` says `+00:00`); `FROM_UNIXTIME` and
//! `NOW()` give `YYYY-MM-DD HH:MM:SS` in UTC, `UNIX_TIMESTAMP` reads that form back.

use std::sync::Arc;

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Result};

/// What `sysvar` and the session functions answer.
pub struct Session {
    /// `@@version` and `VERSION()`.
    pub version: String,
    pub user: String,
    pub connection_id: u32,
    /// `@@max_allowed_packet`: `mysql.max_allowed_packet`, in bytes.
    pub max_allowed_packet: i64,
    /// `@@wait_timeout`: `mysql.wait_timeout`, in whole seconds (rounded up).
    pub wait_timeout: i64,
}

impl Session {
    /// The variables `config` sets, with the rest of the session as given.
    pub fn new(
        version: String,
        user: String,
        connection_id: u32,
        config: &crate::config::MysqlConfig,
    ) -> Session {
        let wait = config.wait_timeout.0;
        Session {
            version,
            user,
            connection_id,
            max_allowed_packet: config.max_allowed_packet.0 as i64,
            wait_timeout: (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)) as i64,
        }
    }
}

/// Registers every function on `conn`.
pub fn register(conn: &Connection, session: Arc<Session>) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let volatile = FunctionFlags::SQLITE_UTF8;
    conn.create_scalar_function("from_unixtime", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(|s| datetime(s as i64)))
    })?;
    conn.create_scalar_function("from_unixtime", 2, pure, |ctx| {
        let fmt = text(ctx.get_raw(1));
        Ok(number(ctx.get_raw(0)).map(|s| date_format(s as i64, &fmt)))
    })?;
    conn.create_scalar_function("unix_timestamp", 0, volatile, |_| Ok(now_secs()))?;
    conn.create_scalar_function("unix_timestamp", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(t) => parse_datetime(&String::from_utf8_lossy(t)),
            v => number(v).map(|x| x as i64),
        })
    })?;
    conn.create_scalar_function("now", 0, volatile, |_| Ok(datetime(now_secs())))?;
    conn.create_scalar_function("curdate", 0, volatile, |_| {
        Ok(datetime(now_secs())[..10].to_string())
    })?;
    conn.create_scalar_function("date_format", 2, pure, |ctx| {
        let t = match ctx.get_raw(0) {
            ValueRef::Text(t) => parse_datetime(&String::from_utf8_lossy(t)),
            v => number(v).map(|x| x as i64),
        };
        let fmt = text(ctx.get_raw(1));
        Ok(t.map(|t| date_format(t, &fmt)))
    })?;
    conn.create_scalar_function("mysql_left", 2, pure, |ctx| {
        Ok(substr(ctx, |s, n| s.chars().take(n).collect()))
    })?;
    conn.create_scalar_function("mysql_right", 2, pure, |ctx| {
        Ok(substr(ctx, |s, n| {
            let len = s.chars().count();
            s.chars().skip(len.saturating_sub(n)).collect()
        }))
    })?;
    conn.create_scalar_function("mysql_isnull", 1, pure, |ctx| {
        Ok(matches!(ctx.get_raw(0), ValueRef::Null) as i64)
    })?;
    conn.create_scalar_function("mysql_mod", 2, pure, |ctx| {
        Ok(match (ctx.get_raw(0), ctx.get_raw(1)) {
            (ValueRef::Integer(a), ValueRef::Integer(b)) if b != 0 => Value::Integer(a % b),
            (a, b) => match (number(a), number(b)) {
                (Some(a), Some(b)) if b != 0.0 => Value::Real(a % b),
                _ => Value::Null,
            },
        })
    })?;
    // MySQL's CONCAT is NULL when any argument is (SQLite's skips NULLs).
    conn.create_scalar_function("concat", -1, pure, |ctx| {
        let mut out = String::new();
        for i in 0..ctx.len() {
            match ctx.get_raw(i) {
                ValueRef::Null => return Ok(None),
                v => out.push_str(&text(v)),
            }
        }
        Ok(Some(out))
    })?;
    conn.create_scalar_function("concat_ws", -1, pure, |ctx| {
        if ctx.is_empty() || matches!(ctx.get_raw(0), ValueRef::Null) {
            return Ok(None);
        }
        let sep = text(ctx.get_raw(0));
        let parts: Vec<String> = (1..ctx.len())
            .map(|i| ctx.get_raw(i))
            .filter(|v| !matches!(v, ValueRef::Null))
            .map(text)
            .collect();
        Ok(Some(parts.join(&sep)))
    })?;
    for (name, pick) in [
        ("least", std::cmp::Ordering::Less),
        ("greatest", std::cmp::Ordering::Greater),
    ] {
        conn.create_scalar_function(name, -1, pure, move |ctx| {
            let mut best: Option<Value> = None;
            for i in 0..ctx.len() {
                let v = ctx.get_raw(i);
                if matches!(v, ValueRef::Null) {
                    return Ok(Value::Null);
                }
                let v = Value::from(v);
                best = Some(match best {
                    Some(b) if compare(&v, &b) != pick => b,
                    _ => v,
                });
            }
            Ok(best.unwrap_or(Value::Null))
        })?;
    }
    conn.create_scalar_function("regexp", 2, pure, |ctx| {
        let pattern = match ctx.get_raw(0) {
            ValueRef::Null => return Ok(None),
            v => text(v),
        };
        let subject = match ctx.get_raw(1) {
            ValueRef::Null => return Ok(None),
            v => text(v),
        };
        // Compiled once per statement and pattern; MySQL's REGEXP is case-insensitive.
        let re = ctx.get_or_create_aux(0, |_| {
            regex::RegexBuilder::new(&pattern)
                .case_insensitive(true)
                .size_limit(1 << 20)
                .build()
        })?;
        Ok(Some(re.is_match(&subject) as i64))
    })?;
    conn.create_scalar_function("locate", 2, pure, |ctx| {
        let (needle, hay) = (text(ctx.get_raw(0)), text(ctx.get_raw(1)));
        Ok(hay
            .find(&needle)
            .map_or(0, |at| hay[..at].chars().count() + 1) as i64)
    })?;
    conn.create_scalar_function("substring_index", 3, pure, |ctx| {
        let (s, delim) = (text(ctx.get_raw(0)), text(ctx.get_raw(1)));
        let count = number(ctx.get_raw(2)).unwrap_or(0.0) as i64;
        if delim.is_empty() || count == 0 {
            return Ok(String::new());
        }
        let parts: Vec<&str> = s.split(delim.as_str()).collect();
        let n = count.unsigned_abs() as usize;
        Ok(if n >= parts.len() {
            s.clone()
        } else if count > 0 {
            parts[..n].join(&delim)
        } else {
            parts[parts.len() - n..].join(&delim)
        })
    })?;
    for (name, f) in [
        ("floor", f64::floor as fn(f64) -> f64),
        ("ceil", f64::ceil),
        ("ceiling", f64::ceil),
    ] {
        conn.create_scalar_function(name, 1, pure, move |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Integer(i) => Value::Integer(i),
                v => number(v).map_or(Value::Null, |x| Value::Integer(f(x) as i64)),
            })
        })?;
    }
    let s = Arc::clone(&session);
    conn.create_scalar_function("sysvar", 1, volatile, move |ctx| {
        Ok(system_variable(&text(ctx.get_raw(0)), &s))
    })?;
    let s = Arc::clone(&session);
    conn.create_scalar_function("version", 0, volatile, move |_| Ok(s.version.clone()))?;
    conn.create_scalar_function("database", 0, pure, |_| Ok("pinba"))?;
    for name in ["user", "current_user", "session_user", "system_user"] {
        let s = Arc::clone(&session);
        conn.create_scalar_function(name, 0, volatile, move |_| {
            Ok(format!("{}@localhost", s.user))
        })?;
    }
    let s = Arc::clone(&session);
    conn.create_scalar_function("connection_id", 0, volatile, move |_| {
        Ok(s.connection_id as i64)
    })?;
    conn.create_scalar_function("last_insert_id", 0, volatile, |_| Ok(0i64))?;
    conn.create_scalar_function("found_rows", 0, volatile, |_| Ok(0i64))?;
    Ok(())
}

/// The system variables a client may ask for (`SELECT @@x`, `SHOW VARIABLES`), and their values.
pub fn variables(session: &Session) -> Vec<(&'static str, Value)> {
    let text = |s: &str| Value::Text(s.to_string());
    vec![
        ("version", text(&session.version)),
        ("version_comment", text("pinbad (Pinba server)")),
        ("version_compile_os", text("Linux")),
        ("version_compile_machine", text(std::env::consts::ARCH)),
        ("character_set_client", text("utf8mb4")),
        ("character_set_connection", text("utf8mb4")),
        ("character_set_results", text("utf8mb4")),
        ("character_set_server", text("utf8mb4")),
        ("character_set_database", text("utf8mb4")),
        ("collation_connection", text("utf8mb4_general_ci")),
        ("collation_server", text("utf8mb4_general_ci")),
        ("collation_database", text("utf8mb4_general_ci")),
        ("time_zone", text("+00:00")),
        ("system_time_zone", text("UTC")),
        ("sql_mode", text("")),
        ("autocommit", Value::Integer(1)),
        ("auto_increment_increment", Value::Integer(1)),
        (
            "max_allowed_packet",
            Value::Integer(session.max_allowed_packet),
        ),
        ("net_write_timeout", Value::Integer(60)),
        ("wait_timeout", Value::Integer(session.wait_timeout)),
        ("interactive_timeout", Value::Integer(session.wait_timeout)),
        ("lower_case_table_names", Value::Integer(0)),
        ("transaction_isolation", text("READ-COMMITTED")),
        ("tx_isolation", text("READ-COMMITTED")),
        ("transaction_read_only", Value::Integer(1)),
        ("tx_read_only", Value::Integer(1)),
        ("read_only", Value::Integer(1)),
        ("license", text("MIT")),
        ("protocol_version", Value::Integer(10)),
        ("init_connect", text("")),
        ("performance_schema", Value::Integer(0)),
        ("have_ssl", text("DISABLED")),
        ("query_cache_type", text("OFF")),
        ("query_cache_size", Value::Integer(0)),
        ("default_storage_engine", text("PINBA")),
        ("storage_engine", text("PINBA")),
        ("hostname", text("localhost")),
        ("port", Value::Integer(0)),
    ]
}

/// `@@name`: its value, NULL when pinbad has none.
fn system_variable(name: &str, session: &Session) -> Value {
    variables(session)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map_or(Value::Null, |(_, v)| v)
}

fn compare(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) => x.cmp(y),
        _ => {
            let (x, y) = (value_number(a), value_number(b));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

fn value_number(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(t) => t.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// A value as a number, as MySQL reads one (text's leading number; NULL stays NULL).
fn number(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(r) => Some(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            let s = s.trim();
            let len = s
                .char_indices()
                .take_while(|&(i, c)| {
                    c.is_ascii_digit()
                        || c == '.'
                        || ((c == '-' || c == '+') && i == 0)
                        || c == 'e'
                        || c == 'E'
                })
                .count();
            Some(s[..len].parse().unwrap_or(0.0))
        }
    }
}

/// A value as text, as MySQL shows it.
fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}

fn substr(ctx: &Context<'_>, f: impl Fn(&str, usize) -> String) -> Option<String> {
    if matches!(ctx.get_raw(0), ValueRef::Null) || matches!(ctx.get_raw(1), ValueRef::Null) {
        return None;
    }
    let n = number(ctx.get_raw(1)).unwrap_or(0.0).max(0.0) as usize;
    Some(f(&text(ctx.get_raw(0)), n))
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Days since 1970-01-01 as (year, month, day), proleptic Gregorian (Howard Hinnant's
/// `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// (year, month, day) as days since 1970-01-01 (`days_from_civil`).
fn days(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` (UTC).
pub fn datetime(secs: i64) -> String {
    date_format(secs, "%Y-%m-%d %H:%i:%s")
}

/// MySQL's `DATE_FORMAT` specifiers over Unix seconds (UTC): `%Y %y %m %c %d %e %H %k %i %s %S
/// %f %p %j %M %b %W %a %T %%`; others are kept as written.
fn date_format(secs: i64, fmt: &str) -> String {
    let (day, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil(day);
    let (hh, mi, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const DAYS: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    let weekday = DAYS[day.rem_euclid(7) as usize];
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        let piece = match spec {
            'Y' => format!("{y:04}"),
            'y' => format!("{:02}", y.rem_euclid(100)),
            'm' => format!("{m:02}"),
            'c' => m.to_string(),
            'd' => format!("{d:02}"),
            'e' => d.to_string(),
            'H' => format!("{hh:02}"),
            'k' => hh.to_string(),
            'h' | 'I' => format!("{:02}", (hh + 11) % 12 + 1),
            'i' => format!("{mi:02}"),
            's' | 'S' => format!("{ss:02}"),
            'f' => "000000".to_string(),
            'p' => (if hh < 12 { "AM" } else { "PM" }).to_string(),
            'j' => format!("{:03}", day - days(y, 1, 1) + 1),
            'M' => MONTHS[(m - 1) as usize].to_string(),
            'b' => MONTHS[(m - 1) as usize][..3].to_string(),
            'W' => weekday.to_string(),
            'a' => weekday[..3].to_string(),
            'T' => format!("{hh:02}:{mi:02}:{ss:02}"),
            '%' => "%".to_string(),
            other => format!("%{other}"),
        };
        out.push_str(&piece);
    }
    out
}

/// `YYYY-MM-DD[ HH:MM[:SS]]` (UTC) as Unix seconds; `None` when it does not read as one.
fn parse_datetime(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = s.split_once([' ', 'T']).unwrap_or((s, "00:00:00"));
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, dd) = (d.next()??, d.next()??, d.next()??);
    let mut t = time
        .split(':')
        .map(|p| p.split('.').next().unwrap_or("").parse::<i64>().ok());
    let hh = t.next().flatten().unwrap_or(0);
    let mi = t.next().flatten().unwrap_or(0);
    let ss = t.next().flatten().unwrap_or(0);
    if !(1..=12).contains(&m) || !(1..=31).contains(&dd) {
        return None;
    }
    Some(days(y, m as u32, dd as u32) * 86_400 + hh * 3600 + mi * 60 + ss)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        register(
            &c,
            Arc::new(Session::new(
                "8.0.0-pinbad".into(),
                "u".into(),
                7,
                &crate::config::MysqlConfig::default(),
            )),
        )
        .unwrap();
        c
    }

    fn one(c: &Connection, sql: &str) -> Value {
        c.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn dates_round_trip_in_utc() {
        assert_eq!(datetime(0), "1970-01-01 00:00:00");
        assert_eq!(datetime(1_700_000_000), "2023-11-14 22:13:20");
        assert_eq!(parse_datetime("2023-11-14 22:13:20"), Some(1_700_000_000));
        assert_eq!(parse_datetime("2000-02-29"), Some(951_782_400));
        assert_eq!(parse_datetime("nope"), None);
        let c = conn();
        assert_eq!(
            one(&c, "SELECT from_unixtime(1700000000)"),
            Value::Text("2023-11-14 22:13:20".into())
        );
        assert_eq!(
            one(&c, "SELECT unix_timestamp('2023-11-14 22:13:20')"),
            Value::Integer(1_700_000_000)
        );
        assert_eq!(
            one(&c, "SELECT date_format(1700000000, '%Y/%c/%e %T %a')"),
            Value::Text("2023/11/14 22:13:20 Tue".into())
        );
    }

    #[test]
    fn mysql_semantics_where_sqlite_differs() {
        let c = conn();
        assert_eq!(one(&c, "SELECT concat('a', NULL)"), Value::Null);
        assert_eq!(
            one(&c, "SELECT concat('a', 1, 2.5)"),
            Value::Text("a12.5".into())
        );
        assert_eq!(
            one(&c, "SELECT concat_ws('-', 'a', NULL, 'b')"),
            Value::Text("a-b".into())
        );
        assert_eq!(
            one(&c, "SELECT mysql_left('héllo', 2)"),
            Value::Text("hé".into())
        );
        assert_eq!(
            one(&c, "SELECT mysql_right('hello', 3)"),
            Value::Text("llo".into())
        );
        assert_eq!(one(&c, "SELECT greatest(1, 3.5, 2)"), Value::Real(3.5));
        assert_eq!(one(&c, "SELECT least(3, NULL)"), Value::Null);
        assert_eq!(one(&c, "SELECT 'ABC' REGEXP '^a'"), Value::Integer(1));
        assert_eq!(
            one(&c, "SELECT substring_index('a.b.c', '.', -2)"),
            Value::Text("b.c".into())
        );
        assert_eq!(one(&c, "SELECT floor(2.7)"), Value::Integer(2));
        assert_eq!(
            one(&c, "SELECT sysvar('version_comment')"),
            Value::Text("pinbad (Pinba server)".into())
        );
        assert_eq!(one(&c, "SELECT sysvar('nope')"), Value::Null);
        assert_eq!(one(&c, "SELECT database()"), Value::Text("pinba".into()));
        assert_eq!(one(&c, "SELECT mysql_mod(7, 3)"), Value::Integer(1));
    }
}
