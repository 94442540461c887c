//! The SQL front end against a real MariaDB: the same rows in pinbad's raw tables and in MariaDB
//! tables of the same columns, the statements of `tests/mariadb/corpus.sql` run on both through
//! PyMySQL (`tests/mariadb/compare.py`). The statements that error on pinbad are exactly those
//! the corpus marks with `!`, those that answer otherwise exactly those it marks with `~`, and
//! docs/sql.md lists each: a new difference, or one fixed, fails the test. A statement marked `=`
//! is one both refuse, with the same error code (a `SET` of a time zone or a variable MySQL does
//! not know). The statements run in order on one session, so a `SET` acts on those after it.
//!
//! MariaDB (`mariadbd`, package mariadb-server) is started from a temporary directory on a socket
//! in it and stopped by PID; absent, the test skips saying so, unless `PINBAD_REQUIRE_MARIADB`
//! is set (CI installs it and sets it). `PINBAD_DIFF_DUMP=FILE` keeps every statement's outcome
//! (JSON lines) in FILE.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{wait_ready, Daemon, Startup};
use crate::sent::Sent;

/// A MariaDB server of its own, killed (by PID) on drop.
pub(crate) struct MariaDb {
    child: Child,
    pub(crate) socket: PathBuf,
    _dir: tempfile::TempDir,
}

fn find(name: &str) -> Option<PathBuf> {
    ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

impl MariaDb {
    /// A fresh server, or `None` (after saying so) when mariadb-server is not installed.
    pub(crate) fn start() -> Option<MariaDb> {
        let (Some(server), Some(install)) = (find("mariadbd"), find("mariadb-install-db")) else {
            assert!(
                std::env::var_os("PINBAD_REQUIRE_MARIADB").is_none(),
                "PINBAD_REQUIRE_MARIADB is set but mariadb-server is not installed"
            );
            eprintln!("SKIPPED: mariadb-server is not installed (apt-get install mariadb-server)");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        // Temporary files in the server's own directory: servers started at once (the tests
        // run in parallel) never meet in /tmp.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        // `--user` names the user running the test: mariadbd refuses to run as root otherwise.
        let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        let out = Command::new(install)
            .args([
                "--no-defaults",
                &format!("--datadir={}", data.display()),
                &format!("--tmpdir={}", tmp.display()),
                &format!("--user={user}"),
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ])
            .output()
            .expect("run mariadb-install-db");
        assert!(
            out.status.success(),
            "mariadb-install-db: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let socket = dir.path().join("sock");
        let mut child = Command::new(server)
            .args([
                "--no-defaults".to_string(),
                format!("--datadir={}", data.display()),
                format!("--tmpdir={}", tmp.display()),
                format!("--socket={}", socket.display()),
                format!("--pid-file={}", dir.path().join("pid").display()),
                format!("--log-error={}", dir.path().join("error.log").display()),
                format!("--user={user}"),
                "--skip-networking".into(),
                "--skip-grant-tables".into(),
                "--character-set-server=utf8mb4".into(),
                "--collation-server=utf8mb4_general_ci".into(),
                "--innodb-buffer-pool-size=16M".into(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mariadbd");
        let probe = || std::os::unix::net::UnixStream::connect(&socket).is_ok();
        match wait_ready(&mut child, Duration::from_secs(60), probe) {
            Startup::Ready => {}
            other => {
                let log = std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default();
                panic!(
                    "mariadbd did not start ({}): {log}",
                    match other {
                        Startup::Exited(s) => s.to_string(),
                        _ => "no socket within 60 s".into(),
                    }
                );
            }
        }
        Some(MariaDb {
            child,
            socket,
            _dir: dir,
        })
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `sql.rs`'s mix of requests, with names that differ only in case (`/Admin/Edit.php`,
/// `S1.example.com`, tag value `Mail`), more statuses (302) and both schemas, for the
/// statements that compare, group and sort text.
pub(crate) fn traffic(n: usize) -> Vec<Sent> {
    const SCRIPTS: [&str; 4] = [
        "/index.php",
        "/api/user.php",
        "/Admin/Edit.php",
        "/cron.php",
    ];
    let mut sent = crate::sql::traffic(n);
    for (i, s) in sent.iter_mut().enumerate() {
        let script: usize = s.script_name[2..3].parse().unwrap();
        s.script_name = SCRIPTS[script].to_string();
        if s.server_name.starts_with("s1") {
            s.server_name = "S1.example.com".into();
        }
        if i % 7 == 3 {
            s.status = 302;
        }
        if i % 2 == 1 {
            s.schema = Some("http".into());
        }
        s.tags[0].1 = ["nl", "de", "fr"][i % 3].to_string();
        for (k, timer) in s.timers.iter_mut().enumerate() {
            if (i + k) % 4 == 0 {
                timer.4[0].1 = "Mail".into();
            }
        }
    }
    sent
}

pub(crate) fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The Python that runs the differential clients (PyMySQL beside it: asserted, since the test
/// cannot compare without it).
pub(crate) const PYTHON: &str = "/usr/bin/python3";

/// A MariaDB of its own and a daemon holding [`traffic`]`(240)`, merged; `None` (after saying
/// so) when mariadb-server is not installed.
pub(crate) fn loaded() -> Option<(MariaDb, Daemon)> {
    let maria = MariaDb::start()?;
    let pymysql = Command::new(PYTHON)
        .args(["-c", "import pymysql"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        pymysql,
        "the differential test needs PyMySQL (python3-pymysql)"
    );
    let sent = traffic(240);
    let d = Daemon::start("");
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    Some((maria, d))
}

/// Every statement of the corpus on pinbad and on MariaDB: the ones that error on pinbad are the
/// corpus's `!` lines, the ones that answer otherwise its `~` lines, docs/sql.md lists each of
/// those, and at least 97 % answer as MariaDB does.
#[test]
fn statements_answer_as_mariadb_does() {
    let Some((maria, d)) = loaded() else {
        return;
    };
    let port = d.mysql.expect("SQL listens").port().to_string();
    let out = Command::new(PYTHON)
        .arg(repo("tests/mariadb/compare.py"))
        .args([
            port.as_str(),
            &maria.socket.display().to_string(),
            &repo("tests/mariadb/corpus.sql").display().to_string(),
        ])
        .output()
        .expect("run compare.py");
    assert!(
        out.status.success(),
        "compare.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(path) = std::env::var_os("PINBAD_DIFF_DUMP") {
        std::fs::write(path, &out.stdout).unwrap();
    }
    let results: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |outcome: &str| -> Vec<&Value> {
        results.iter().filter(|r| r["outcome"] == outcome).collect()
    };
    let show = |rs: &[&Value]| -> String {
        rs.iter()
            .map(|r| format!("  {}\n    {}\n", r["sql"], r["detail"]))
            .collect()
    };
    let (equal, different, pinbad_error, mariadb_error) = (
        of("equal"),
        of("different"),
        of("pinbad_error"),
        of("mariadb_error"),
    );
    let renamed = results.iter().filter(|r| !r["names"].is_null()).count();
    eprintln!(
        "differential: {} statements, {} equal, {} error on pinbad, {} different, \
         {} with other column names",
        results.len(),
        equal.len(),
        pinbad_error.len(),
        different.len(),
        renamed
    );
    assert!(
        results.len() >= 300,
        "the corpus has {} statements",
        results.len()
    );
    assert!(
        mariadb_error.is_empty(),
        "the corpus's statements must run on MariaDB:\n{}",
        show(&mariadb_error)
    );
    let marked = |outcome: &str, mark: &str| -> Vec<&Value> {
        results
            .iter()
            .filter(|r| (r[mark] == true) != (r["outcome"] == outcome))
            .collect()
    };
    let unmarked_differences = marked("different", "known_difference");
    assert!(
        unmarked_differences.is_empty(),
        "answers that differ and are not marked `~` in the corpus, or are marked and no \
         longer differ (drop the mark and docs/sql.md's line):\n{}",
        show(&unmarked_differences)
    );
    let unmarked_errors = marked("pinbad_error", "known_error");
    assert!(
        unmarked_errors.is_empty(),
        "statements that error on pinbad and are not marked `!` in the corpus, or are marked \
         and now answer (drop the mark and docs/sql.md's line):\n{}",
        show(&unmarked_errors)
    );
    let readme = std::fs::read_to_string(repo("docs/sql.md")).unwrap();
    for r in pinbad_error.iter().chain(&different) {
        let sql = r["sql"].as_str().unwrap();
        assert!(
            readme.contains(&format!("`{sql}`")),
            "docs/sql.md does not list `{sql}`, which {} on pinbad",
            if r["outcome"] == "different" {
                "answers otherwise"
            } else {
                "errors"
            }
        );
    }
    assert!(
        equal.len() * 100 >= results.len() * 97,
        "{} of {} equal",
        equal.len(),
        results.len()
    );
}

/// pinbad's tables of utf8mb4_general_ci's weights and cases (`sql::collation`) and of
/// utf8mb4_unicode_ci's weights (`sql::uca`) are MariaDB's: every character of the Basic
/// Multilingual Plane weighs what `WEIGHT_STRING` says under each, and one beyond it U+FFFD;
/// `UPPER` and `LOWER` map each as MariaDB's do.
#[test]
fn the_collations_weights_are_mariadbs() {
    let Some(maria) = MariaDb::start() else {
        return;
    };
    let script = r#"
import sys, pymysql
c = pymysql.connect(unix_socket=sys.argv[1], user="root", charset="utf8mb4")
cur = c.cursor()
cur.execute("CREATE DATABASE IF NOT EXISTS w")
cur.execute("USE w")
cur.execute("SELECT seq, HEX(WEIGHT_STRING(CONVERT(CONVERT(UNHEX(LPAD(HEX(seq), 8, '0')) "
            "USING utf32) USING utf8mb4) COLLATE utf8mb4_general_ci)) FROM seq_0_to_65535 "
            "WHERE seq < 55296 OR seq > 57343 UNION ALL SELECT 128512, "
            "HEX(WEIGHT_STRING(_utf8mb4 0xF09F9880 COLLATE utf8mb4_general_ci))")
for seq, w in cur.fetchall():
    print(seq, w)
cur.execute("SELECT seq, HEX(WEIGHT_STRING(CONVERT(CONVERT(UNHEX(LPAD(HEX(seq), 8, '0')) "
            "USING utf32) USING utf8mb4) COLLATE utf8mb4_unicode_ci)) FROM seq_0_to_65535 "
            "WHERE seq < 55296 OR seq > 57343 UNION ALL SELECT 128512, "
            "HEX(WEIGHT_STRING(_utf8mb4 0xF09F9880 COLLATE utf8mb4_unicode_ci))")
for seq, w in cur.fetchall():
    print("UCA", seq, w)
cps = [cp for cp in range(1, 0x10000) if not 0xD800 <= cp < 0xE000] + [0x1F600]
for fn in ("UPPER", "LOWER"):
    for i in range(0, len(cps), 4000):
        s = "".join(chr(cp) for cp in cps[i:i + 4000])
        cur.execute("SELECT %s(%%s)" % fn, (s,))
        for a, b in zip(s, cur.fetchone()[0]):
            print(fn, ord(a), ord(b))
"#;
    let out = Command::new(PYTHON)
        .args(["-c", script, &maria.socket.display().to_string()])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "weights from MariaDB: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut checked = 0;
    let mut wrong = Vec::new();
    let mut cased = 0;
    let mut unicode = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        if let Some(rest) = line.strip_prefix("UCA ") {
            let (cp, w) = rest.split_once(' ').unwrap_or((rest, ""));
            let c = char::from_u32(cp.parse().unwrap()).unwrap();
            let ours: String = pinbad::sql::uca::weights(c)
                .as_slice()
                .iter()
                .map(|w| format!("{w:04X}"))
                .collect();
            if ours != w {
                wrong.push(format!(
                    "unicode_ci U+{:04X}: MariaDB {w:?}, pinbad {ours:?}",
                    c as u32
                ));
            }
            unicode += 1;
            continue;
        }
        if let Some((f, rest)) = line.split_once(' ').filter(|(f, _)| f.ends_with("ER")) {
            let (a, b) = rest.split_once(' ').unwrap();
            let a = char::from_u32(a.parse().unwrap()).unwrap().to_string();
            let b = char::from_u32(b.parse().unwrap()).unwrap().to_string();
            let ours = match f {
                "UPPER" => pinbad::sql::collation::upper(&a),
                _ => pinbad::sql::collation::lower(&a),
            };
            if ours != b {
                wrong.push(format!("{f}({a:?}): MariaDB {b:?}, pinbad {ours:?}"));
            }
            cased += 1;
            continue;
        }
        let (cp, w) = line.split_once(' ').unwrap();
        let c = char::from_u32(cp.parse().unwrap()).unwrap();
        let w = u16::from_str_radix(w, 16).unwrap();
        if pinbad::sql::collation::weight(c) != w {
            wrong.push(format!("U+{:04X}: MariaDB {w:04X}", c as u32));
        }
        checked += 1;
    }
    assert_eq!(
        checked, 63_489,
        "every BMP character but the surrogates, and an emoji"
    );
    assert_eq!(
        cased,
        2 * 63_488,
        "UPPER and LOWER of every BMP character and an emoji"
    );
    assert_eq!(
        unicode, 63_489,
        "utf8mb4_unicode_ci's weights of every BMP character but the surrogates, and an emoji"
    );
    assert!(
        wrong.is_empty(),
        "weights and cases unlike MariaDB's: {wrong:?}"
    );
}
