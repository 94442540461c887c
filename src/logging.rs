//! Logs: `tracing` events to stderr, as text or as one JSON object per line (`log.format`).
//!
//! In: the `[log]` config and `RUST_LOG` (an `EnvFilter`, `info` when unset). Out: the global
//! subscriber, installed once by `main` after the config is loaded. Text is coloured only when
//! stderr is a terminal (never in files, pipes or journald); JSON is never coloured and puts every
//! field at the top level of its object (`{"timestamp", "level", "message", "target", "report",
//! "client", …}`), which is what log shippers index. A line that cannot be written is lost, never
//! reported through `eprintln!` (which would panic and end the daemon on a closed stderr).

use serde::{Deserialize, Serialize};

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines (coloured at a terminal).
    #[default]
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// `[log]` in the config.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// `"text"` or `"json"`.
    pub format: LogFormat,
}

/// One log line per interval for something that can happen at every packet or attempt (a flood
/// must not become a flood of lines): [`Throttle::note`] counts each occurrence and says when a
/// line is due, with how many occurred since the last one.
#[derive(Debug)]
pub struct Throttle {
    every: std::time::Duration,
    last: Option<std::time::Instant>,
    since: u64,
}

impl Throttle {
    pub const fn new(every: std::time::Duration) -> Throttle {
        Throttle {
            every,
            last: None,
            since: 0,
        }
    }

    /// Counts `n` occurrences; `Some(total since the last line)` when a line is due (the first
    /// occurrence, then at most one per interval).
    pub fn note(&mut self, n: u64) -> Option<u64> {
        self.since += n;
        let now = std::time::Instant::now();
        if self
            .last
            .is_some_and(|t| now.duration_since(t) < self.every)
        {
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.since))
    }
}

/// Refuses a `RUST_LOG` directive that is a bare word but neither a level nor one of pinbad's
/// modules: the filter reads it as a module name to log at every level, so a mistyped level
/// (`RUST_LOG=warning`, `debg`) turned every line off, errors included, without a word. Another
/// crate's logs are asked for as `CRATE=LEVEL`.
fn check_bare_words(rust_log: &str) -> Result<(), String> {
    for d in rust_log.split(',').map(str::trim) {
        let bare = !d.is_empty() && !d.contains(['=', '[', '{']);
        let known = d.parse::<tracing_subscriber::filter::LevelFilter>().is_ok()
            || d == "pinbad"
            || d.starts_with("pinbad::");
        if bare && !known {
            return Err(format!(
                "RUST_LOG: `{d}` is not a level (trace, debug, info, warn, error, off); a \
                 module's level is written MODULE=LEVEL, e.g. RUST_LOG=pinbad=debug,info"
            ));
        }
    }
    Ok(())
}

/// Installs the global subscriber. A second call (tests) leaves the first in place. A `RUST_LOG`
/// that does not parse, or holds a bare word that is no level (see `check_bare_words`), is an
/// error naming it (falling back to `info` would silently drop the directives that did parse);
/// unset or empty, the level is `info`.
pub fn init(config: &LogConfig) -> Result<(), String> {
    check_bare_words(&std::env::var("RUST_LOG").unwrap_or_default())?;
    let filter = tracing_subscriber::EnvFilter::builder()
        .with_default_directive(tracing_subscriber::filter::LevelFilter::INFO.into())
        .from_env()
        .map_err(|e| {
            format!(
                "RUST_LOG: {e} (it is {:?}; e.g. RUST_LOG=info or RUST_LOG=pinbad=debug,info)",
                std::env::var("RUST_LOG").unwrap_or_default()
            )
        })?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .log_internal_errors(false)
        .with_writer(std::io::stderr);
    let _ = match config.format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        LogFormat::Json => builder
            .with_ansi(false)
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_word_must_be_a_level_or_a_pinbad_module() {
        for ok in [
            "",
            "info",
            "WARN",
            "off",
            "3",
            "pinbad",
            "pinbad::merger",
            "hyper=debug,info",
        ] {
            assert!(check_bare_words(ok).is_ok(), "{ok}");
        }
        for bad in ["warning", "debg", "info,hyper", "pinbad=debug, verbose"] {
            let e = check_bare_words(bad).unwrap_err();
            assert!(
                e.contains("RUST_LOG") && e.contains("not a level"),
                "{bad}: {e}"
            );
        }
    }
}
