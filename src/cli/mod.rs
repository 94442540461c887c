//! The command-line subcommands beside the daemon: `pinbad check-config FILE` and
//! `pinbad import-sql FILE`.
//!
//! - **In**: what `main` parsed: the file, and for check-config the flags that override config
//!   keys. **Out**: text on stdout (the effective config, the converted reports); what was not
//!   converted on stderr; a failure as the error `main` reports with exit status 1.
//! - **Thread**: the main thread, instead of the daemon: no other thread is started.
//! - **Never**: binds a socket, writes state (check-config creates no state directory), prints
//!   the secrets of a config.
//!
//! The conversion itself is [`import`]: pure (SQL text in, report definitions and config text
//! out), so that any front end can call it; this module only reads the file and prints.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;

use crate::config::{Config, Overrides};

/// `pinbad check-config FILE`: loads FILE with the overrides, checks everything a start checks
/// but binding (reports, the state directory's saved reports, sinks, the token), and prints the
/// effective config with its secrets redacted.
pub fn check_config(file: &Path, overrides: &Overrides) -> anyhow::Result<()> {
    let config = Config::load(file)?.apply(overrides)?;
    // The warnings of a start (a window the ticks do not divide, ...), not its INFO lines: the
    // output is the config. `RUST_LOG`, when set, still decides. Set before any thread exists
    // (`main` runs this on the only one), so no other thread reads the environment meanwhile.
    if std::env::var_os("RUST_LOG").is_none_or(|v| v.is_empty()) {
        std::env::set_var("RUST_LOG", "warn");
    }
    crate::logging::init(&config.log).map_err(anyhow::Error::msg)?;
    crate::app::check(&config)?;
    // Written, not print!'d (see `say`): `pinbad check-config f | head -1` ends well.
    let _ = std::io::stdout()
        .lock()
        .write_all(config.to_toml_redacted().as_bytes());
    Ok(())
}

/// `pinbad import-sql FILE`: the converted config on stdout, what was not converted on stderr.
/// FILE `-` is stdin.
pub fn import_sql(file: &Path) -> anyhow::Result<()> {
    // Bytes, then UTF-8 leniently, from a file or stdin alike: a latin1 dump holds raw bytes.
    let mut bytes = Vec::new();
    let read = if file.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(file).map(|b| bytes = b)
    };
    read.with_context(|| format!("cannot read {}", file.display()))?;
    let sql = String::from_utf8_lossy(&bytes);
    let import = crate::config::import::import(&sql);
    let one_line = crate::config::import::one_line;
    for w in &import.warnings {
        say(format_args!("pinbad: {}: {}", file.display(), one_line(w)));
    }
    // Nothing to convert is a failure, not an empty config: a compressed dump, the wrong file.
    if import.tables.is_empty() {
        anyhow::bail!(
            "no CREATE TABLE statement in {} (a mysqldump of the Pinba database is expected; \
             decompress a .gz dump first)",
            file.display()
        );
    }
    std::io::stdout()
        .write_all(import.to_toml(&file.display().to_string()).as_bytes())
        .context("cannot write the output")?;
    for (c, why) in import.not_converted() {
        say(format_args!(
            "pinbad: not converted: table `{}`: {}",
            one_line(&c.table.name),
            one_line(why)
        ));
    }
    Ok(())
}

/// A line on stderr. Written, not `eprintln!`'d: a closed stderr (`pinbad check-config f 2>&-`,
/// a pipe whose reader is gone) must not turn an exit 0 or 1 into a panic's 101.
pub fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
