//! `pinbad`: parse the command line, load the config, run the app, map the outcome to an exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};
use pinbad::config::{Config, HumanDuration, Overrides};

/// `pinbad --version`: the crate version and the git revision it was built from (build.rs).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("PINBAD_GIT_REV"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "pinbad",
    version = VERSION,
    about = "A Pinba server: UDP in, live reports and raw requests over HTTP/JSON"
)]
struct Cli {
    /// TOML config file (see config/pinbad.toml); built-in defaults without it.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// UDP address to listen on; repeat for several. Replaces the configured list.
    #[arg(long = "udp", value_name = "ADDR", global = true)]
    udp: Vec<String>,
    /// HTTP address of the API.
    #[arg(long, value_name = "ADDR", global = true)]
    http: Option<String>,
    /// The reports' window, e.g. "15m".
    #[arg(long, value_name = "DUR", global = true)]
    stats_history: Option<HumanDuration>,
    /// Directory for state kept across restarts: run-time report and sink changes, the snapshot,
    /// the requests received while stopping, the history store.
    #[arg(long, value_name = "DIR", global = true)]
    state_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a config file and print the effective configuration. --udp, --http,
    /// --stats-history and --state-dir apply as at start-up; FILE takes --config's place.
    CheckConfig { file: PathBuf },
    /// Convert pinba_engine or pinba2 tables (a mysqldump, or CREATE TABLE … ENGINE=PINBA
    /// statements) into [[report]] tables, printed on stdout; tables that cannot be converted
    /// are named, with why, in the output and on stderr. Takes none of the daemon's options.
    ImportSql {
        /// The SQL file (`-` for stdin).
        file: PathBuf,
    },
}

impl Cli {
    /// The daemon's flags given to a subcommand that does not use them, by name. The flags are
    /// global (check-config takes them before or after its name), so clap accepts them
    /// everywhere; ignored, they hid a mistake (`check-config --config a.toml b.toml` checked
    /// b.toml only, `import-sql --udp nope` succeeded).
    fn unused_flags(&self) -> Vec<&'static str> {
        let given = [
            ("--config", self.config.is_some()),
            ("--udp", !self.udp.is_empty()),
            ("--http", self.http.is_some()),
            ("--stats-history", self.stats_history.is_some()),
            ("--state-dir", self.state_dir.is_some()),
        ];
        let used: &[&str] = match self.command {
            None => return Vec::new(),
            // Its FILE is the config; the overrides are checked as the daemon would apply them.
            Some(Command::CheckConfig { .. }) => {
                &["--udp", "--http", "--stats-history", "--state-dir"]
            }
            Some(Command::ImportSql { .. }) => &[],
        };
        given
            .into_iter()
            .filter(|&(flag, set)| set && !used.contains(&flag))
            .map(|(flag, _)| flag)
            .collect()
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A usage error as clap's own: its message and usage on stderr, exit 2.
    if let Some(flag) = cli.unused_flags().first() {
        let name = match cli.command {
            Some(Command::CheckConfig { .. }) => "check-config",
            _ => "import-sql",
        };
        let why = match *flag {
            "--config" => " (the file to check is its argument: pinbad check-config FILE)",
            _ => "",
        };
        let message = format!("the argument '{flag}' cannot be used with '{name}'{why}");
        let kind = clap::error::ErrorKind::ArgumentConflict;
        let mut cli = Cli::command();
        // Built, so that the subcommand's usage line starts with `pinbad`.
        cli.build();
        let error = match cli.find_subcommand_mut(name) {
            Some(command) => command.error(kind, message),
            None => Cli::command().error(kind, message),
        };
        error.exit();
    }
    // A panic in any thread ends the process: pinbad is never half alive.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::exit(101);
    }));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(format_args!("pinbad: {}", error_text(&e)));
            ExitCode::from(1)
        }
    }
}

/// A line on stderr. Written, not `eprintln!`'d: a closed stderr (`pinbad check-config f 2>&-`,
/// a pipe whose reader is gone) must not turn an exit 0 or 1 into a panic's 101.
fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // The same overrides for the daemon and for check-config: checked as it would start (the
    // state directory's saved reports, a window the history steps must fit).
    let overrides = Overrides {
        udp: cli.udp,
        http: cli.http,
        stats_history: cli.stats_history,
        state_dir: cli.state_dir,
    };
    if let Some(Command::CheckConfig { file }) = &cli.command {
        let config = Config::load(file)?.apply(&overrides)?;
        pinbad::logging::init(&config.log).map_err(anyhow::Error::msg)?;
        // Everything start-up checks but binding: reports, the state directory, the token.
        pinbad::app::check(&config)?;
        // Written, not print!'d (see `say`): `pinbad check-config f | head -1` ends well.
        let _ = std::io::Write::write_all(
            &mut std::io::stdout().lock(),
            config.to_toml_redacted().as_bytes(),
        );
        return Ok(());
    }
    if let Some(Command::ImportSql { file }) = &cli.command {
        return import_sql(file);
    }
    let config = match &cli.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    let config = config.apply(&overrides)?;
    pinbad::logging::init(&config.log).map_err(anyhow::Error::msg)?;
    tracing::info!(version = VERSION, "Starting");
    // Before any thread starts: a stop signal during start-up waits for the handlers `serve`
    // installs (see `hold_stop_signals`).
    pinbad::shutdown::hold_stop_signals();
    let running = pinbad::app::start(config, pinbad::shutdown::Shutdown::new())?;
    // Machine-readable lines for scripts and tests (ports may have been 0). Written, not
    // println!'d: a closed or full stdout must not panic the daemon.
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        for addr in running.core.udp_addrs() {
            let _ = writeln!(out, "listening udp {addr}");
        }
        let _ = writeln!(out, "listening http {}", running.http_addr);
        let _ = out.flush();
    }
    // Its errors say what failed: the HTTP server, or a state file the stop could not write.
    running.serve()?;
    Ok(())
}

/// `pinbad import-sql FILE`: the converted config on stdout, what was not converted on stderr.
fn import_sql(file: &std::path::Path) -> anyhow::Result<()> {
    use std::io::{Read, Write};
    // Bytes, then UTF-8 leniently, from a file or stdin alike: a latin1 dump holds raw bytes.
    let mut bytes = Vec::new();
    let read = if file.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(file).map(|b| bytes = b)
    };
    read.with_context(|| format!("cannot read {}", file.display()))?;
    let sql = String::from_utf8_lossy(&bytes);
    let import = pinbad::import::import(&sql);
    let one_line = pinbad::import::one_line;
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

/// The error and its causes, each said once: our errors already name their cause in their own
/// message (`cannot bind UDP …: Address already in use`), so a cause the text already contains
/// is not repeated.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}
