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

/// Installs the global subscriber. A second call (tests) leaves the first in place. A `RUST_LOG`
/// that does not parse is an error naming it (it used to fall back to `info` whole, silently
/// dropping the directives that did parse); unset or empty, the level is `info`.
pub fn init(config: &LogConfig) -> Result<(), String> {
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
