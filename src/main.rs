//! `pinbad`: parse the command line, load the config, run the app, map the outcome to an exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use pinbad::config::{Config, HumanDuration, Overrides};

#[derive(Parser)]
#[command(
    name = "pinbad",
    version,
    about = "A Pinba server: UDP in, live reports and raw requests over HTTP/JSON"
)]
struct Cli {
    /// TOML config file (see config/pinbad.toml); built-in defaults without it.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// UDP address to listen on; repeat for several. Replaces the configured list.
    #[arg(long = "udp", value_name = "ADDR")]
    udp: Vec<String>,
    /// HTTP address of the API.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// How long requests are kept, e.g. "15m".
    #[arg(long, value_name = "DUR")]
    stats_history: Option<HumanDuration>,
    /// Directory for state kept across restarts (run-time report changes).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a config file and print the effective configuration.
    CheckConfig { file: PathBuf },
}

/// mimalloc gives freed pages back to the OS, so memory taken by a burst (dictionary strings,
/// report rows, batches) is returned once the burst has expired.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    // A panic in any thread ends the process: pinbad is never half alive.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::exit(101);
    }));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pinbad: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    if let Some(Command::CheckConfig { file }) = &cli.command {
        let config = Config::load(file)?;
        // Everything start-up checks but binding: reports, the state directory, the token.
        pinbad::app::check(&config)?;
        print!("{}", config.to_toml());
        return Ok(());
    }
    let config = match &cli.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    let overrides = Overrides {
        udp: cli.udp,
        http: cli.http,
        stats_history: cli.stats_history,
        state_dir: cli.state_dir,
    };
    let config = config.apply(&overrides)?;
    let running = pinbad::app::start(config, pinbad::shutdown::Shutdown::new())?;
    // Machine-readable lines for scripts and tests (ports may have been 0).
    for addr in &running.shared.udp_addrs {
        println!("listening udp {addr}");
    }
    println!("listening http {}", running.http_addr);
    running.serve().context("HTTP server failed")?;
    Ok(())
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
