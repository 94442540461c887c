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
