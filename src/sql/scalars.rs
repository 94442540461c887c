//! MySQL's functions of numbers, bits, encodings and addresses that dashboards, GUI clients,
//! cron jobs and people at the `mysql` prompt call and SQLite lacks (issue 80): `RAND`,
//! `DEGREES`, `COT`, `CONV`/`BIN`/`OCT`, `BIT_COUNT`, `CRC32`, `ORD`, `CHAR`, `UUID`,
//! `INET_ATON`/`INET_NTOA`/`IS_IPV4`/`IS_IPV6`, `TO_BASE64`/`FROM_BASE64`, `MAKE_SET`,
//! `EXPORT_SET`, `JSON_UNQUOTE`, `INTERVAL(n, …)`, `GET_FORMAT` and `SLEEP`.
//!
//! Each is written by MySQL's rule for it (MariaDB's source, checked against a MariaDB on NULL,
//! negative, empty and wrong-typed inputs): one rule per function, with the helpers they share
//! (one base conversion for `CONV`, `BIN` and `OCT`; one integer reading for every argument MySQL
//! reads with `val_int`). Their result types and column definitions are `typing`'s and
//! `coldef`'s.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Result};

use super::functions::{bits, finite, leading_integer, number, text};

/// Registers the functions (all but `SLEEP`, which [`register_sleep`] adds with its deadline).
pub fn register(conn: &Connection) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    // Not deterministic: SQLite must call them for each row (`ORDER BY RAND()`).
    let volatile = FunctionFlags::SQLITE_UTF8;
    conn.create_scalar_function("rand", 0, volatile, |_| Ok(unseeded()))?;
    conn.create_scalar_function("rand", 1, volatile, seeded)?;
    // Past a DOUBLE's range, MySQL's error 1690 (`Item_func_units`).
    for (name, f) in [
        ("degrees", f64::to_degrees as fn(f64) -> f64),
        ("radians", f64::to_radians),
    ] {
        conn.create_scalar_function(name, 1, pure, move |ctx| {
            Ok(match number(ctx.get_raw(0)) {
                Some(x) => Some(finite(f(x), || {
                    format!("{name}({})", text(ctx.get_raw(0)))
                })?),
                None => None,
            })
        })?;
    }
    conn.create_scalar_function("cot", 1, pure, |ctx| {
        let Some(x) = number(ctx.get_raw(0)) else {
            return Ok(None);
        };
        // MySQL's error 1690, as for any DOUBLE past its range.
        Ok(Some(finite(1.0 / x.tan(), || {
            format!("cot({})", text(ctx.get_raw(0)))
        })?))
    })?;
    conn.create_scalar_function("uuid", 0, volatile, |_| Ok(uuid()))?;
    conn.create_scalar_function("crc32", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(i64::from(crc32fast::hash(t))),
            v => Some(i64::from(crc32fast::hash(text(v).as_bytes()))),
        })
    })?;
    conn.create_scalar_function("conv", 3, pure, |ctx| {
        Ok(match (int_of(ctx.get_raw(1)), int_of(ctx.get_raw(2))) {
            (Some(from), Some(to)) => conv(ctx.get_raw(0), from, to),
            _ => None,
        })
    })?;
    for (name, base) in [("bin", 2), ("oct", 8)] {
        conn.create_scalar_function(name, 1, pure, move |ctx| Ok(conv(ctx.get_raw(0), 10, base)))?;
    }
    conn.create_scalar_function("ord", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            // A binary string's characters are its bytes (`ORD(CHAR(200, 1))` is 200).
            ValueRef::Blob(b) => Some(b.first().map_or(0, |b| i64::from(*b))),
            v => Some(ord(text(v).as_bytes())),
        })
    })?;
    conn.create_scalar_function("bit_count", 1, pure, |ctx| {
        Ok(bits(ctx.get_raw(0)).map(|b| i64::from(b.count_ones())))
    })?;
    conn.create_scalar_function("mysql_char", -1, pure, |ctx| {
        let mut out = Vec::with_capacity(ctx.len());
        for i in 0..ctx.len() {
            if let Some(n) = int_of(ctx.get_raw(i)) {
                out.extend(char_bytes(n as u32));
            }
        }
        Ok(Value::Blob(out))
    })?;
    conn.create_scalar_function("inet_aton", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => inet_aton(text(v).as_bytes()),
        })
    })?;
    conn.create_scalar_function("inet_ntoa", 1, pure, |ctx| {
        Ok(int_of(ctx.get_raw(0))
            .filter(|n| (0..=0xffff_ffff).contains(n))
            .map(|n| std::net::Ipv4Addr::from(n as u32).to_string()))
    })?;
    conn.create_scalar_function("is_ipv4", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => 0,
            v => i64::from(is_ipv4(text(v).as_bytes())),
        })
    })?;
    conn.create_scalar_function("is_ipv6", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => 0,
            v => i64::from(text(v).parse::<std::net::Ipv6Addr>().is_ok()),
        })
    })?;
    conn.create_scalar_function("to_base64", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(to_base64(t)),
            v => Some(to_base64(text(v).as_bytes())),
        })
    })?;
    conn.create_scalar_function("from_base64", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => from_base64(text(v).as_bytes()).map(Value::Blob),
        })
    })?;
    conn.create_scalar_function("make_set", -1, pure, |ctx| {
        let Some(set) = (!ctx.is_empty()).then(|| bits(ctx.get_raw(0))).flatten() else {
            return Ok(None);
        };
        let chosen: Vec<String> = (1..ctx.len().min(65))
            .filter(|&i| set as u64 & (1 << (i - 1)) != 0)
            .filter(|&i| !matches!(ctx.get_raw(i), ValueRef::Null))
            .map(|i| text(ctx.get_raw(i)))
            .collect();
        Ok(Some(chosen.join(",")))
    })?;
    for args in 3..=5 {
        conn.create_scalar_function("export_set", args, pure, |ctx| {
            if (0..ctx.len()).any(|i| matches!(ctx.get_raw(i), ValueRef::Null)) {
                return Ok(None);
            }
            let set = bits(ctx.get_raw(0)).unwrap_or(0) as u64;
            let (on, off) = (text(ctx.get_raw(1)), text(ctx.get_raw(2)));
            let sep = if ctx.len() > 3 {
                text(ctx.get_raw(3))
            } else {
                ",".into()
            };
            // More than 64 bits, or fewer than none, is 64 (MySQL's rule).
            let n = match ctx.len() {
                5 => int_of(ctx.get_raw(4))
                    .filter(|n| (0..=64).contains(n))
                    .unwrap_or(64),
                _ => 64,
            };
            let parts: Vec<&str> = (0..n)
                .map(|i| {
                    if set & (1 << i) != 0 {
                        &on[..]
                    } else {
                        &off[..]
                    }
                })
                .collect();
            Ok(Some(parts.join(&sep)))
        })?;
    }
    conn.create_scalar_function("json_unquote", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(json_unquote(&text(v))),
        })
    })?;
    conn.create_scalar_function("mysql_json_text", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(json_text(&text(v))),
        })
    })?;
    // `INTERVAL(n, a, b, …)` (`dialect` reads it as this call).
    conn.create_scalar_function("mysql_interval", -1, pure, |ctx| {
        let Some(n) = number(ctx.get_raw(0)) else {
            return Ok(-1);
        };
        Ok(interval_index(
            n,
            (1..ctx.len()).map(|i| number(ctx.get_raw(i))),
        ))
    })?;
    conn.create_scalar_function("get_format", 2, pure, |ctx| {
        Ok(get_format(
            &text(ctx.get_raw(0)),
            &text(ctx.get_raw(1)).to_ascii_uppercase(),
        ))
    })?;
    Ok(())
}

/// `SLEEP(n)`: 0 after `n` seconds (none for NULL or a negative `n`, as MySQL's), bounded as
/// every statement is: at `deadline()` (the statement's `mysql.max_query_time`) it stops with
/// `stopped`'s error, which the engine answers as a statement past its time (1317).
pub fn register_sleep(
    conn: &Connection,
    deadline: impl Fn() -> Option<Instant> + Send + 'static,
    stopped: &'static str,
) -> Result<()> {
    conn.create_scalar_function("sleep", 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let seconds = number(ctx.get_raw(0)).unwrap_or(0.0);
        if seconds.is_nan() || seconds <= 0.0 {
            return Ok(0);
        }
        let wanted = Instant::now() + Duration::from_secs_f64(seconds.min(1e9));
        let end = match deadline() {
            Some(d) if d < wanted => d,
            _ => wanted,
        };
        let now = Instant::now();
        if end > now {
            std::thread::sleep(end - now);
        }
        if end < wanted {
            return Err(rusqlite::Error::UserFunctionError(stopped.into()));
        }
        Ok(0)
    })?;
    Ok(())
}

/// A value as MySQL's `val_int` reads it: an integer itself, a number rounded half away from
/// zero, a string its leading integer.
fn int_of(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(r) => Some(r.round() as i64),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(leading_integer(t)),
    }
}

/// MySQL's random number generator (`my_rnd.cc`): two seeds below 2^30 - 1, each step
/// `s1 = (3·s1 + s2) mod m`, `s2 = (s1 + s2 + 33) mod m`, the value `s1 / m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rnd(u64, u64);

const RND_MAX: u64 = 0x3FFF_FFFF;

impl Rnd {
    /// `RAND(seed)`'s generator (MySQL's `Item_func_rand::seed_random`): the seed's low 32 bits
    /// spread into the two seeds.
    pub(super) fn seeded(seed: i64) -> Rnd {
        let t = seed as u32 as u64;
        Rnd(
            (t.wrapping_mul(0x10001).wrapping_add(55_555_555) & 0xffff_ffff) % RND_MAX,
            (t.wrapping_mul(0x1000_0001) & 0xffff_ffff) % RND_MAX,
        )
    }

    pub(super) fn next(&mut self) -> f64 {
        self.0 = (self.0 * 3 + self.1) % RND_MAX;
        self.1 = (self.0 + self.1 + 33) % RND_MAX;
        self.0 as f64 / RND_MAX as f64
    }

    fn packed(self) -> u64 {
        (self.0 << 32) | self.1
    }

    fn unpacked(p: u64) -> Rnd {
        Rnd(p >> 32, p & 0xffff_ffff)
    }
}

/// `RAND(seed)`: a constant seed starts one sequence for the call in the statement, which each
/// row steps (SQLite keeps the state with the constant argument, as MySQL seeds once); a seed
/// that changes by row (a column) is seeded anew each row, as MySQL does.
fn seeded(ctx: &Context<'_>) -> Result<f64> {
    let seed = int_of(ctx.get_raw(0)).unwrap_or(0);
    let state = ctx.get_or_create_aux(0, |_| -> Result<AtomicU64> {
        Ok(AtomicU64::new(Rnd::seeded(seed).packed()))
    })?;
    // Where SQLite keeps no state (a seed of the row), the state is new on every row.
    let mut r = Rnd::unpacked(state.load(Ordering::Relaxed));
    let x = r.next();
    state.store(r.packed(), Ordering::Relaxed);
    Ok(x)
}

thread_local! {
    static UNSEEDED: std::cell::Cell<Option<Rnd>> = const { std::cell::Cell::new(None) };
}

/// `RAND()`: MySQL's generator, seeded once per thread from the clock and the thread.
fn unseeded() -> f64 {
    UNSEEDED.with(|cell| {
        let mut r = cell.get().unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            let here = &cell as *const _ as u64;
            Rnd::seeded((now ^ here.rotate_left(17)) as i64)
        });
        let x = r.next();
        cell.set(Some(r));
        x
    })
}

/// A version-1 UUID as MySQL's `UUID()` writes it: the time in 100 ns since 1582-10-15, a
/// clock sequence and a node (random here: pinbad reads no MAC address).
fn uuid() -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    static NODE: std::sync::OnceLock<(u16, u64)> = std::sync::OnceLock::new();
    let (clock, node) = *NODE.get_or_init(|| {
        let mut r = Rnd::seeded(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as i64),
        );
        let word = |r: &mut Rnd| (r.next() * 65536.0) as u64;
        let node = (word(&mut r) << 32) | (word(&mut r) << 16) | word(&mut r);
        // The multicast bit marks a node that is no MAC address (RFC 4122, 4.5).
        (word(&mut r) as u16 & 0x3fff, node | (1 << 40))
    });
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| (d.as_nanos() / 100) as u64)
        + 0x01B2_1DD2_1381_4000;
    // Never twice the same time: a later call takes the next tick.
    let t = LAST
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
            Some(now.max(last + 1))
        })
        .map_or(now, |last| now.max(last + 1));
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        t & 0xffff_ffff,
        (t >> 32) & 0xffff,
        ((t >> 48) & 0x0fff) | 0x1000,
        clock | 0x8000,
        node & 0xffff_ffff_ffff
    )
}

/// `CONV(n, from, to)` (and `BIN`, `OCT`: to 2 and 8 from 10), MySQL's `Item_func_conv`: `n`'s
/// text read in base `|from|` (after spaces, a sign, the longest run of digits; signed where
/// `from` is negative, else unsigned, past 64 bits the largest), written in base `|to|`, signed
/// where `to` is negative, upper case. NULL for a base outside 2 to 36 or an empty `n`.
pub(super) fn conv(n: ValueRef<'_>, from: i64, to: i64) -> Option<String> {
    if matches!(n, ValueRef::Null) || ![from, to].iter().all(|b| (2..=36).contains(&b.abs())) {
        return None;
    }
    // A DOUBLE as MySQL writes it (`1e0` is `1`).
    let digits = text(n);
    if digits.is_empty() {
        return None;
    }
    let value = read_in_base(&digits, from.unsigned_abs() as u32, from < 0);
    Some(write_in_base(value, to.unsigned_abs() as u32, to < 0))
}

/// `s` read as MySQL's `my_strntoull` (or, `signed`, `my_strntoll`) reads it, as 64 bits.
fn read_in_base(s: &str, base: u32, signed: bool) -> u64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut value: u128 = 0;
    let mut overflow = false;
    for c in s.chars() {
        let Some(d) = c.to_digit(base) else { break };
        value = value * u128::from(base) + u128::from(d);
        if value > u128::from(u64::MAX) {
            overflow = true;
            value = u128::from(u64::MAX);
        }
    }
    if signed {
        let limit = if negative {
            1u128 << 63
        } else {
            (1u128 << 63) - 1
        };
        let v = if overflow { limit } else { value.min(limit) };
        if negative {
            (v as u64).wrapping_neg()
        } else {
            v as u64
        }
    } else if overflow {
        u64::MAX
    } else if negative {
        (value as u64).wrapping_neg()
    } else {
        value as u64
    }
}

/// 64 bits written in `base`, upper case, as a signed number where `signed`.
fn write_in_base(value: u64, base: u32, signed: bool) -> String {
    let (negative, mut v) = if signed && (value as i64) < 0 {
        (true, (value as i64).unsigned_abs())
    } else {
        (false, value)
    };
    let mut out = Vec::new();
    loop {
        let d = (v % u64::from(base)) as u32;
        out.push(
            char::from_digit(d, base)
                .unwrap_or('0')
                .to_ascii_uppercase(),
        );
        v /= u64::from(base);
        if v == 0 {
            break;
        }
    }
    if negative {
        out.push('-');
    }
    out.iter().rev().collect()
}

/// `ORD(s)`: the first character's bytes as a big-endian number (its code for one byte).
fn ord(s: &[u8]) -> i64 {
    let len = match s.first() {
        None => return 0,
        Some(b) if *b < 0x80 => 1,
        Some(b) if *b >= 0xf0 => 4,
        Some(b) if *b >= 0xe0 => 3,
        Some(b) if *b >= 0xc0 => 2,
        Some(_) => 1,
    };
    s.iter()
        .take(len)
        .fold(0i64, |acc, b| (acc << 8) | i64::from(*b))
}

/// `CHAR(n)`'s bytes for one argument: `n`'s 32 bits big-endian, without leading zero bytes
/// (`CHAR(256)` is `0x0100`, `CHAR(0)` one zero byte).
fn char_bytes(n: u32) -> Vec<u8> {
    let b = n.to_be_bytes();
    let skip = b.iter().take(3).take_while(|x| **x == 0).count();
    b[skip..].to_vec()
}

/// `INET_ATON(s)`, MySQL's: up to 255 per dotted part, a short form's last part the lowest byte
/// (`127.1` is 127.0.0.1), more than four parts kept as 64 bits; NULL for anything else.
fn inet_aton(s: &[u8]) -> Option<i64> {
    let (mut result, mut part, mut dots) = (0u64, 0u64, 0);
    let mut last = b'.';
    for &c in s {
        last = c;
        match c {
            b'0'..=b'9' => {
                part = part * 10 + u64::from(c - b'0');
                if part > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8).wrapping_add(part);
                part = 0;
            }
            _ => return None,
        }
    }
    if last == b'.' {
        return None;
    }
    let shift = match dots {
        1 => 16,
        2 => 8,
        _ => 0,
    };
    Some(((result << shift << 8).wrapping_add(part)) as i64)
}

/// `IS_IPV4(s)`, MariaDB's: four dotted parts of one to three digits, each at most 255.
fn is_ipv4(s: &[u8]) -> bool {
    if !(7..=15).contains(&s.len()) {
        return false;
    }
    let parts: Vec<&[u8]> = s.split(|c| *c == b'.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.iter().all(u8::is_ascii_digit)
                && p.iter().fold(0u32, |a, c| a * 10 + u32::from(c - b'0')) <= 255
        })
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `TO_BASE64(s)`: padded with `=`, a line break after every 76 characters (MySQL's).
fn to_base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4 + data.len() / 57);
    for (i, chunk) in data.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out.push('\n');
        }
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `FROM_BASE64(s)`, MySQL's: spaces, tabs and line breaks between characters skipped, whole
/// groups of four (the last padded with `=`); NULL for anything else.
fn from_base64(s: &[u8]) -> Option<Vec<u8>> {
    let chars: Vec<u8> = s
        .iter()
        .copied()
        .filter(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        .collect();
    if !chars.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(chars.len() / 4 * 3);
    let groups = chars.len() / 4;
    for (g, group) in chars.chunks(4).enumerate() {
        let pad = group.iter().rev().take_while(|c| **c == b'=').count();
        if pad > 2 || (pad > 0 && g + 1 != groups) {
            return None;
        }
        let mut n = 0u32;
        for &c in &group[..4 - pad] {
            let v = BASE64.iter().position(|b| *b == c)? as u32;
            n = (n << 6) | v;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// `JSON_UNQUOTE(s)`: a JSON string's value (its escapes read); anything else, a string not
/// closed included, as it is.
fn json_unquote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'"' || b[b.len() - 1] != b'"' {
        return s.to_string();
    }
    serde_json::from_str::<String>(s).unwrap_or_else(|_| s.to_string())
}

/// Minified JSON (SQLite's) as MySQL writes a JSON value: a space after each `,` and `:`
/// between values, the members in their order.
fn json_text(minified: &str) -> String {
    let mut out = String::with_capacity(minified.len() + minified.len() / 4);
    let (mut in_string, mut escaped) = (false, false);
    for c in minified.chars() {
        out.push(c);
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' || c == ':' {
            out.push(' ');
        }
    }
    out
}

/// `INTERVAL(n, a, b, …)`: the index of the first of `a, b, …` above `n` (MariaDB's
/// `Item_func_interval`, a NULL among them read as 0), their count where none is, so how many
/// of them (ascending) are at most `n`; -1 where `n` is NULL (the caller's).
fn interval_index(n: f64, bounds: impl Iterator<Item = Option<f64>>) -> i64 {
    let mut count = 0;
    for b in bounds {
        if n < b.unwrap_or(0.0) {
            return count;
        }
        count += 1;
    }
    count
}

/// `GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, 'EUR'|'USA'|'JIS'|'ISO'|'INTERNAL')`: the format
/// MySQL's table gives; NULL for another.
fn get_format(kind: &str, standard: &str) -> Option<&'static str> {
    let column = match standard {
        "EUR" => 0,
        "USA" => 1,
        "JIS" => 2,
        "ISO" => 3,
        "INTERNAL" => 4,
        _ => return None,
    };
    let row: [&str; 5] = match kind.to_ascii_uppercase().as_str() {
        "DATE" => ["%d.%m.%Y", "%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%Y%m%d"],
        "TIME" => ["%H.%i.%s", "%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H%i%s"],
        "DATETIME" | "TIMESTAMP" => [
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y%m%d%H%i%s",
        ],
        _ => return None,
    };
    Some(row[column])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rand_is_mysqls_generator() {
        // MariaDB's answers.
        assert_eq!(Rnd::seeded(1).next(), 0.40540353712197724);
        assert_eq!(Rnd::seeded(0).next(), 0.15522042769493574);
        assert_eq!(Rnd::seeded(-1).next(), 0.9050373219931845);
        let mut r = Rnd::seeded(3);
        let three: Vec<f64> = (0..3).map(|_| r.next()).collect();
        assert_eq!(
            three,
            [0.9057697559760601, 0.37307905813034536, 0.14808605345719125]
        );
    }

    #[test]
    fn conv_reads_and_writes_64_bits_in_any_base() {
        let c = |n: &str, f, t| conv(ValueRef::Text(n.as_bytes()), f, t);
        assert_eq!(c("a", 16, 2).as_deref(), Some("1010"));
        assert_eq!(c("-1", 10, 16).as_deref(), Some("FFFFFFFFFFFFFFFF"));
        assert_eq!(c("-ff", -16, -10).as_deref(), Some("-255"));
        assert_eq!(c("zz", 36, 10).as_deref(), Some("1295"));
        assert_eq!(
            c("18446744073709551616", 10, 16).as_deref(),
            Some("FFFFFFFFFFFFFFFF")
        );
        assert_eq!(
            c("-9223372036854775809", -10, -10).as_deref(),
            Some("-9223372036854775808")
        );
        assert_eq!(c(" 12x", 10, 10).as_deref(), Some("12"));
        assert_eq!(c("2.7", 10, 2).as_deref(), Some("10"));
        assert_eq!(c("x", 10, 2).as_deref(), Some("0"));
        assert_eq!(c("", 10, 2), None);
        assert_eq!(c("10", 1, 2), None);
        assert_eq!(c("10", 10, 37), None);
        assert_eq!(
            conv(ValueRef::Integer(-8), 10, 8).as_deref(),
            Some("1777777777777777777770")
        );
        assert_eq!(conv(ValueRef::Real(1.0), 10, 8).as_deref(), Some("1"));
    }

    #[test]
    fn codes_and_addresses() {
        assert_eq!(ord(b"a"), 97);
        assert_eq!(ord("é".as_bytes()), 50089);
        assert_eq!(ord("😀".as_bytes()), 4036991104);
        assert_eq!(ord(b""), 0);
        assert_eq!(char_bytes(256), vec![1, 0]);
        assert_eq!(char_bytes(65), vec![65]);
        assert_eq!(char_bytes(0), vec![0]);
        assert_eq!(inet_aton(b"10.0.5.9"), Some(167773449));
        assert_eq!(inet_aton(b"127.1"), Some(2130706433));
        assert_eq!(inet_aton(b"1.2.3.4.5"), Some(4328719365));
        assert_eq!(inet_aton(b"1.2.3.256"), None);
        assert_eq!(inet_aton(b""), None);
        assert_eq!(inet_aton(b"1.2.3."), None);
        assert!(is_ipv4(b"01.2.3.4"));
        assert!(!is_ipv4(b"10.0.0"));
        assert!(!is_ipv4(b" 1.2.3.4"));
    }

    #[test]
    fn base64_as_mysql() {
        assert_eq!(to_base64(b"abc"), "YWJj");
        assert_eq!(to_base64(b"12"), "MTI=");
        assert_eq!(to_base64(b""), "");
        let long = to_base64(&[b'x'; 60]);
        assert_eq!(long.find('\n'), Some(76));
        assert_eq!(long.len(), 80 + 1);
        assert_eq!(from_base64(b"YWJj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(from_base64(b"YW Jj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(from_base64(b"YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(from_base64(b"YQ"), None);
        assert_eq!(from_base64(b"!!"), None);
        assert_eq!(from_base64(long.as_bytes()), Some(vec![b'x'; 60]));
    }

    #[test]
    fn json_unquote_reads_a_json_string_only() {
        assert_eq!(json_unquote("\"abc\""), "abc");
        assert_eq!(json_unquote("abc"), "abc");
        assert_eq!(json_unquote("\"a\\nb\""), "a\nb");
        assert_eq!(json_unquote("\"\\u00e9\""), "é");
        assert_eq!(json_unquote("\"abc"), "\"abc");
    }

    #[test]
    fn json_is_written_as_mysql_writes_it() {
        assert_eq!(json_text(r#"[1,2]"#), "[1, 2]");
        assert_eq!(
            json_text(r#"{"a":[1,{"b":"x,y: \"z"}],"c":null}"#),
            r#"{"a": [1, {"b": "x,y: \"z"}], "c": null}"#
        );
        assert_eq!(json_text(r#""x""#), r#""x""#);
    }

    #[test]
    fn interval_counts_the_bounds_at_most_n() {
        let i = |n: f64, b: &[Option<f64>]| interval_index(n, b.iter().copied());
        let b = [1.0, 15.0, 17.0, 30.0, 44.0, 200.0].map(Some);
        assert_eq!(i(23.0, &b), 3);
        assert_eq!(i(10.0, &[Some(1.0), Some(10.0), Some(100.0)]), 2);
        assert_eq!(i(0.0, &[Some(1.0)]), 0);
        assert_eq!(i(1.0, &[None, Some(2.0)]), 1);
    }

    #[test]
    fn get_format_is_mysqls_table() {
        assert_eq!(get_format("DATE", "EUR"), Some("%d.%m.%Y"));
        assert_eq!(get_format("TIME", "USA"), Some("%h:%i:%s %p"));
        assert_eq!(get_format("TIMESTAMP", "JIS"), Some("%Y-%m-%d %H:%i:%s"));
        assert_eq!(get_format("DATE", "x"), None);
    }
}
