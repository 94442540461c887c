//! A real ClickHouse server for the sink tests: started from a temporary directory with its own
//! minimal config on free loopback ports, waited for until `/ping` answers, stopped by PID on
//! drop. Absent (no `clickhouse-server` binary), the tests skip with a message, unless
//! `PINBAD_REQUIRE_CLICKHOUSE` is set (CI), in which case they fail.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::{free_port, wait_ready, Startup};

pub struct ClickHouse {
    child: Option<Child>,
    binary: PathBuf,
    dir: tempfile::TempDir,
    pub http_port: u16,
    agent: ureq::Agent,
}

fn binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|d| d.join("clickhouse-server"))
        .find(|p| p.is_file())
}

impl ClickHouse {
    /// A fresh server, or `None` (after saying so) when ClickHouse is not installed.
    pub fn start() -> Option<ClickHouse> {
        let Some(binary) = binary() else {
            assert!(
                std::env::var_os("PINBAD_REQUIRE_CLICKHOUSE").is_none(),
                "PINBAD_REQUIRE_CLICKHOUSE is set but clickhouse-server is not installed"
            );
            eprintln!(
                "SKIPPED: clickhouse-server is not installed (apt-get install clickhouse-server)"
            );
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let (http_port, tcp_port) = (free_port(), free_port());
        let root = dir.path().display().to_string();
        std::fs::write(
            dir.path().join("config.xml"),
            format!(
                r#"<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>{http_port}</http_port>
  <tcp_port>{tcp_port}</tcp_port>
  <path>{root}/data/</path>
  <tmp_path>{root}/tmp/</tmp_path>
  <user_files_path>{root}/user_files/</user_files_path>
  <format_schema_path>{root}/format_schemas/</format_schema_path>
  <users_config>{root}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>16777216</mark_cache_size>
  <uncompressed_cache_size>16777216</uncompressed_cache_size>
</yandex>
"#
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("users.xml"),
            r#"<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
"#,
        )
        .unwrap();
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(30))
            .build();
        let mut ch = ClickHouse {
            child: None,
            binary,
            dir,
            http_port,
            agent,
        };
        ch.run();
        Some(ch)
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    /// Starts the server process (again) on the same ports and data, and waits for `/ping`.
    fn run(&mut self) {
        let config = self.dir.path().join("config.xml");
        let child = Command::new(&self.binary)
            .arg(format!("--config-file={}", config.display()))
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start clickhouse-server");
        let ping = format!("{}/ping", self.url());
        let child = self.child.insert(child);
        match wait_ready(child, Duration::from_secs(60), || {
            self.agent.get(&ping).call().is_ok()
        }) {
            Startup::Ready => {}
            Startup::Exited(status) => panic!("clickhouse-server exited: {status}"),
            Startup::TimedOut => panic!("clickhouse-server did not answer /ping"),
        }
    }

    /// Kills the server (SIGKILL, by PID) and waits for it: the port refuses connections.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it again after [`ClickHouse::kill`].
    pub fn restart(&mut self) {
        self.run();
    }

    /// Runs `sql` and returns the answer, trimmed.
    pub fn query(&self, sql: &str) -> String {
        match self.agent.post(&self.url()).send_string(sql) {
            Ok(r) => r.into_string().unwrap().trim().to_string(),
            Err(e) => panic!("ClickHouse `{sql}`: {e}"),
        }
    }

    /// A number the query answers.
    pub fn number(&self, sql: &str) -> f64 {
        let text = self.query(sql);
        text.parse()
            .unwrap_or_else(|_| panic!("`{sql}` answered `{text}`"))
    }

    /// Waits until no INSERT runs. A daemon's stop waits for ClickHouse's answer only until the
    /// stop's deadline, so on a busy machine the last insert a stopped daemon sent can still be
    /// running, and its rows appear after the daemon has gone: a test counts rows once none is.
    pub fn wait_inserts_done(&self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let running = "SELECT count() FROM system.processes WHERE startsWith(query, 'INSERT')";
        while self.number(running) > 0.0 {
            assert!(
                std::time::Instant::now() < deadline,
                "inserts still running after 60 s: {}",
                self.query("SELECT query FROM system.processes")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ClickHouse {
    fn drop(&mut self) {
        self.kill();
    }
}
