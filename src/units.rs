//! Units the configuration, the reports' definitions and the API write in human form: durations
//! like `"15m"` and sizes like `"8MiB"`. A leaf: it imports nothing of pinbad's.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A duration written like `"15m"`, `"10ms"`, `"1h 30m"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

impl std::str::FromStr for HumanDuration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        humantime::parse_duration(s)
            .map(HumanDuration)
            .map_err(|e| format!("`{s}` is not a duration like \"15m\" or \"10ms\" ({e})"))
    }
}

impl<'de> Deserialize<'de> for HumanDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for HumanDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&humantime::format_duration(self.0).to_string())
    }
}

/// A size written like `"8MiB"`, `"512KiB"` or a plain number of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(ByteSize(n)),
            Raw::Text(s) => s
                .parse::<bytesize::ByteSize>()
                .map(|b| ByteSize(b.as_u64()))
                .map_err(|_| {
                    serde::de::Error::custom(format!("`{s}` is not a size like \"8MiB\""))
                }),
        }
    }
}

impl Serialize for ByteSize {
    /// Exactly: in the largest binary unit that divides it (`"8MiB"`), else as a number of bytes.
    /// `check-config` prints what the daemon will use, and `bytesize`'s display rounds (it showed
    /// `1.4MiB` for 1,500,000). A number of bytes above `i64::MAX` (accepted from a string such
    /// as `"9223372036854775809"`, or `"20EiB"` saturated to `u64::MAX`) is beyond a TOML
    /// integer, so it is written as a string of digits, which reads back the same.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if self.0 > 0 && self.0.trailing_zeros() >= shift {
                return s.serialize_str(&format!("{}{unit}", self.0 >> shift));
            }
        }
        match i64::try_from(self.0) {
            Ok(n) => s.serialize_i64(n),
            Err(_) => s.serialize_str(&self.0.to_string()),
        }
    }
}

/// A point in time as every `from`/`to` of the API takes it, in unix milliseconds: `now`,
/// relative to now (`-15m`, `-1h 30m`), unix seconds (`1764100000.5`) or RFC 3339
/// (`2026-11-25T21:00:00Z`). One parser, so that raw requests, history, request logs and fleet
/// reports read the same text as the same time. Nothing before 1970 nor past year 5138
/// (unix seconds below 1e11): no store holds such times, and the bound keeps `to - from` from
/// overflowing. `Err` says what was expected.
pub fn parse_time_ms(v: &str, now_ms: i64) -> Result<i64, String> {
    if v == "now" {
        return Ok(now_ms);
    }
    if let Some(ago) = v.strip_prefix('-') {
        let d = humantime::parse_duration(ago)
            .map_err(|e| format!("`{v}` is not a time like -15m ({e})"))?;
        return i64::try_from(d.as_millis())
            .ok()
            .and_then(|ago| now_ms.checked_sub(ago))
            .filter(|t| *t >= 0)
            .ok_or_else(|| format!("`{v}` reaches back before 1970"));
    }
    if let Ok(s) = v.parse::<f64>() {
        if s.is_finite() && (0.0..1e11).contains(&s) {
            return Ok((s * 1000.0).round() as i64);
        }
    }
    humantime::parse_rfc3339_weak(v)
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .filter(|ms| *ms < 100_000_000_000_000)
        .ok_or_else(|| {
            format!(
                "`{v}` is not unix seconds (`1764100000.5`), RFC 3339 (`2026-11-25T21:00:00Z`), \
                 `now` or relative to now (`-15m`, `-1h`)"
            )
        })
}

/// A status or a class of them, as inclusive bounds: `200`, `5xx`, `>=500`, `>399`, `<300`,
/// `<=299`; the API's `status` parameters and the reports' `status` filter read it. A class is
/// one of HTTP's five (`1xx` to `5xx`): `6xx` matched nothing, and its empty answer read as "no
/// such requests", so it is refused naming the value (statuses past 599, which PHP may send, are
/// found with a bound: `>=600`). A status and a bound take any number, as the protocol's status
/// field does. `Err` says what was expected.
pub fn parse_status(v: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "`{v}`: expected a status (`404`), a class (`1xx` to `5xx`) or a bound (`>=500`, \
             `<400`)"
        )
    };
    let n = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
    if let Some(rest) = v.strip_prefix(">=") {
        return Ok((n(rest)?, u32::MAX));
    }
    if let Some(rest) = v.strip_prefix("<=") {
        return Ok((0, n(rest)?));
    }
    if let Some(rest) = v.strip_prefix('>') {
        return Ok((n(rest)?.checked_add(1).ok_or_else(bad)?, u32::MAX));
    }
    if let Some(rest) = v.strip_prefix('<') {
        return Ok((0, n(rest)?.checked_sub(1).ok_or_else(bad)?));
    }
    if let Some(class) = v
        .strip_suffix("xx")
        .or_else(|| v.strip_suffix("XX"))
        .filter(|c| c.len() == 1)
    {
        let c = n(class)?;
        if !(1..=5).contains(&c) {
            return Err(bad());
        }
        return Ok((c * 100, c * 100 + 99));
    }
    let s = n(v)?;
    Ok((s, s))
}
