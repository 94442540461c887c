//! The command-line subcommands beside the daemon: `pinbad check-config FILE`,
//! `pinbad import-sql FILE` and `pinbad import-mycnf FILE`.
//!
//! - **In**: what `main` parsed: the file, and for check-config the flags that override config
//!   keys. **Out**: text on stdout (the effective config, the converted reports); what was not
//!   converted on stderr; a failure as the error `main` reports with exit status 1.
//! - **Thread**: the main thread, instead of the daemon: no other thread is started.
//! - **Never**: binds a socket, writes state (check-config creates no state directory), prints
//!   the secrets of a config.
//!
//! The conversions themselves are [`import`] and [`mycnf`]: pure (SQL or an option file in,
//! config text out), so that any front end can call them; this module only reads the files and
//! prints.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;

use crate::config::{mycnf, Config, Overrides};

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
    let bytes = gunzip_if_gzip(bytes)
        .with_context(|| format!("cannot decompress {} (gzip)", file.display()))?;
    let sql = String::from_utf8_lossy(&bytes);
    let import = crate::config::import::import(&sql);
    let one_line = crate::config::import::one_line;
    for w in &import.warnings {
        say(format_args!("pinbad: {}: {}", file.display(), one_line(w)));
    }
    // Nothing to convert is a failure, not an empty config: the wrong file.
    if import.tables.is_empty() {
        anyhow::bail!(
            "no CREATE TABLE statement in {} (a mysqldump of the Pinba database is expected, \
             plain or gzipped)",
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

/// The most a gzipped dump may inflate to: a Pinba database's dump is table definitions (its
/// tables hold no rows a dump keeps), kilobytes; the bound keeps a wrong file from filling memory.
const MAX_DUMP_BYTES: u64 = 256 << 20;

/// `bytes` decompressed when they are gzip (its magic bytes `1f 8b`, whatever the file is named:
/// `mysqldump | gzip > dump`, stdin), every member of it as `gzip -d` does; else as they are.
fn gunzip_if_gzip(bytes: Vec<u8>) -> anyhow::Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes.as_slice())
        .take(MAX_DUMP_BYTES + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > MAX_DUMP_BYTES {
        anyhow::bail!(
            "it inflates past {} MiB, more than a Pinba dump's table definitions",
            MAX_DUMP_BYTES >> 20
        );
    }
    Ok(out)
}

/// `pinbad import-mycnf FILE`: pinbad's config keys from pinba_engine's settings in a my.cnf
/// (and the files it includes) on stdout; each setting not honoured, and what was not read as
/// mysqld reads it, on stderr. FILE `-` is stdin (its includes relative to the working
/// directory).
pub fn import_mycnf(file: &Path) -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    let (read, dir) = if file.as_os_str() == "-" {
        (
            std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
            Path::new(""),
        )
    } else {
        let dir = file.parent().unwrap_or(Path::new(""));
        (std::fs::read(file).map(|b| bytes = b), dir)
    };
    read.with_context(|| format!("cannot read {}", file.display()))?;
    let name = file.display().to_string();
    let options = mycnf::read(&name, &bytes, dir, &Disk);
    let one_line = crate::config::import::one_line;
    for w in &options.warnings {
        say(format_args!("pinbad: {}", one_line(w)));
    }
    // Nothing to convert is a failure, as for import-sql: the wrong file, or includes not found.
    if options.options.is_empty() {
        anyhow::bail!(
            "no pinba_ setting in the server groups ([mysqld], [server], [mariadb], …) of {} \
             (files read: {}): not the server's option file, or pinba_engine ran with its \
             defaults, which are pinbad's (port 30002, a 15-minute window, 10 ms, 1,000,000 \
             requests): no config is needed",
            file.display(),
            one_line(&options.files.join(", "))
        );
    }
    let converted = mycnf::convert(&options);
    std::io::stdout()
        .write_all(converted.to_toml(&options).as_bytes())
        .context("cannot write the output")?;
    for line in converted.messages(&options) {
        say(format_args!("pinbad: {}", one_line(&line)));
    }
    Ok(())
}

/// The files `!include` and `!includedir` name, on disk.
struct Disk;

impl mycnf::Files for Disk {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
    fn list(&self, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.path()))
            .collect()
    }
}

/// A line on stderr. Written, not `eprintln!`'d: a closed stderr (`pinbad check-config f 2>&-`,
/// a pipe whose reader is gone) must not turn an exit 0 or 1 into a panic's 101.
pub fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
