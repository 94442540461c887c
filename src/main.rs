//! `pinbad`: parse the command line, load the config, run the app (or a subcommand of
//! [`pinbad::cli`]), map the outcome to an exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use pinbad::cli::say;
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
    #[command(flatten)]
    config: ConfigArg<false>,
    #[command(flatten)]
    overrides: OverrideArgs<false>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--config`. `HIDDEN` after a subcommand that does not take it: accepted there only to be
/// refused by name (see [`Cli::unused_flags`]), and left out of its help.
#[derive(Args)]
struct ConfigArg<const HIDDEN: bool> {
    /// TOML config file (see config/pinbad.toml); built-in defaults without it.
    #[arg(long, hide = HIDDEN)]
    config: Option<PathBuf>,
}

/// The flags that replace config keys: the daemon's, and check-config's (on either side of its
/// name). `HIDDEN` as for [`ConfigArg`].
#[derive(Args)]
struct OverrideArgs<const HIDDEN: bool> {
    /// UDP address to listen on; repeat for several. Replaces the configured list.
    #[arg(long = "udp", value_name = "ADDR", hide = HIDDEN)]
    udp: Vec<String>,
    /// HTTP address of the API.
    #[arg(long, value_name = "ADDR", hide = HIDDEN)]
    http: Option<String>,
    /// Address of the SQL front end (the MySQL protocol); "" turns it off.
    #[arg(long, value_name = "ADDR", hide = HIDDEN)]
    mysql: Option<String>,
    /// The reports' window, e.g. "15m".
    #[arg(long, value_name = "DUR", hide = HIDDEN)]
    stats_history: Option<HumanDuration>,
    /// Directory for state kept across restarts: run-time report and sink changes, the snapshot,
    /// the requests received while stopping, the history store.
    #[arg(long, value_name = "DIR", hide = HIDDEN)]
    state_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a config file and print the effective configuration. --udp, --http, --mysql,
    /// --stats-history and --state-dir apply as at start-up; FILE takes --config's place.
    CheckConfig {
        /// The config file to check.
        file: PathBuf,
        #[command(flatten)]
        overrides: OverrideArgs<false>,
        #[command(flatten)]
        refused: ConfigArg<true>,
    },
    /// Convert pinba_engine or pinba2 tables (a mysqldump, or CREATE TABLE … ENGINE=PINBA
    /// statements) into [[report]] tables, printed on stdout; tables that cannot be converted
    /// are named, with why, in the output and on stderr. Takes none of the daemon's options.
    ImportSql {
        /// The SQL file (`-` for stdin).
        file: PathBuf,
        #[command(flatten)]
        refused_config: ConfigArg<true>,
        #[command(flatten)]
        refused: OverrideArgs<true>,
    },
    /// Convert pinba_engine's settings in a my.cnf (pinba_port, pinba_stats_history, … in its
    /// server groups, following !include and !includedir) into pinbad's config keys, printed on
    /// stdout; settings pinbad cannot honour are named, with why, in the output and on stderr.
    /// Takes none of the daemon's options.
    ImportMycnf {
        /// The option file (`-` for stdin).
        file: PathBuf,
        #[command(flatten)]
        refused_config: ConfigArg<true>,
        #[command(flatten)]
        refused: OverrideArgs<true>,
    },
}

/// The daemon's flags, in the order a usage error names the first one given.
const FLAGS: [&str; 6] = [
    "--config",
    "--udp",
    "--http",
    "--mysql",
    "--stats-history",
    "--state-dir",
];

impl<const HIDDEN: bool> ConfigArg<HIDDEN> {
    /// The flag, if given.
    fn given(&self) -> Vec<&'static str> {
        self.config.iter().map(|_| "--config").collect()
    }
}

impl<const HIDDEN: bool> OverrideArgs<HIDDEN> {
    /// The flags given, by name.
    fn given(&self) -> Vec<&'static str> {
        let given = [
            !self.udp.is_empty(),
            self.http.is_some(),
            self.mysql.is_some(),
            self.stats_history.is_some(),
            self.state_dir.is_some(),
        ];
        FLAGS[1..]
            .iter()
            .zip(given)
            .filter_map(|(&flag, set)| set.then_some(flag))
            .collect()
    }
}

impl OverrideArgs<false> {
    /// These flags, each in place of the same flag given `before` the subcommand's name.
    fn or(self, before: OverrideArgs<false>) -> OverrideArgs<false> {
        OverrideArgs {
            udp: if self.udp.is_empty() {
                before.udp
            } else {
                self.udp
            },
            http: self.http.or(before.http),
            mysql: self.mysql.or(before.mysql),
            stats_history: self.stats_history.or(before.stats_history),
            state_dir: self.state_dir.or(before.state_dir),
        }
    }
}

impl From<OverrideArgs<false>> for Overrides {
    fn from(args: OverrideArgs<false>) -> Overrides {
        let OverrideArgs {
            udp,
            http,
            mysql,
            stats_history,
            state_dir,
        } = args;
        Overrides {
            udp,
            http,
            mysql,
            stats_history,
            state_dir,
        }
    }
}

impl Cli {
    /// The daemon's flags given to a subcommand that does not take them, by name: before its
    /// name (where the daemon's flags are) or after it (where they are hidden, see
    /// [`ConfigArg`]). Ignored, they would hide a mistake (`check-config --config a.toml b.toml`
    /// would check b.toml only, `import-sql --udp nope` would succeed).
    fn unused_flags(&self) -> Vec<&'static str> {
        let mut given = self.config.given();
        given.extend(self.overrides.given());
        match &self.command {
            None => return Vec::new(),
            // Its FILE is the config; the overrides are checked as the daemon would apply them.
            Some(Command::CheckConfig { refused, .. }) => {
                given.extend(refused.given());
                given.retain(|&flag| flag == "--config");
            }
            Some(Command::ImportSql {
                refused_config,
                refused,
                ..
            })
            | Some(Command::ImportMycnf {
                refused_config,
                refused,
                ..
            }) => {
                given.extend(refused_config.given());
                given.extend(refused.given());
            }
        }
        FLAGS
            .into_iter()
            .filter(|flag| given.contains(flag))
            .collect()
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A usage error as clap's own: its message and usage on stderr, exit 2.
    if let Some(flag) = cli.unused_flags().first() {
        let name = match cli.command {
            Some(Command::CheckConfig { .. }) => "check-config",
            Some(Command::ImportMycnf { .. }) => "import-mycnf",
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
    let done = match cli.command {
        Some(Command::CheckConfig {
            file, overrides, ..
        }) => pinbad::cli::check_config(&file, &overrides.or(cli.overrides).into()),
        Some(Command::ImportSql { file, .. }) => pinbad::cli::import_sql(&file),
        Some(Command::ImportMycnf { file, .. }) => pinbad::cli::import_mycnf(&file),
        None => run(cli.config.config, cli.overrides.into()),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(format_args!("pinbad: {}", error_text(&e)));
            ExitCode::from(1)
        }
    }
}

/// The daemon: the config file (or the defaults) with the overrides, checked as check-config
/// checks it, then the app until it is stopped.
fn run(config: Option<PathBuf>, overrides: Overrides) -> anyhow::Result<()> {
    let config = match &config {
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
        if let Some(addr) = running.mysql_addr {
            let _ = writeln!(out, "listening mysql {addr}");
        }
        let _ = writeln!(out, "listening http {}", running.http_addr);
        let _ = out.flush();
    }
    // Its errors say what failed: the HTTP server, or a state file the stop could not write.
    running.serve()?;
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
