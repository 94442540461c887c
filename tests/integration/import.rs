//! `pinbad import-sql`: a pinba_engine/pinba2 dump in, config that the real daemon accepts out.

use std::process::{Command, Stdio};

use crate::common::{run_pinbad, write_file, BIN};

/// A mysqldump as pinba_engine and pinba2 users have them (written for this test from the two
/// projects' documentation): default tables, tag reports with conditions, pinba2 reports, and
/// tables that cannot be converted.
pub(crate) const DUMP: &str = r#"-- MySQL dump 10.13  Distrib 5.7.44, for Linux (x86_64)
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
DROP TABLE IF EXISTS `report_by_script_name`;
/*!40101 SET character_set_client = utf8 */;
CREATE TABLE `report_by_script_name` (
  `req_count` int(11) DEFAULT NULL,
  `script_name` varchar(128) DEFAULT NULL,
  `index_value` varchar(256) DEFAULT NULL
) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='report1';
CREATE TABLE `request` (
  `id` int(11) NOT NULL DEFAULT '0',
  PRIMARY KEY (`id`)
) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='request';
CREATE TABLE `tag_report_db` (
  `script_name` varchar(128) DEFAULT NULL,
  `tag1_value` varchar(64) DEFAULT NULL,
  `tag2_value` varchar(64) DEFAULT NULL,
  `p95` float DEFAULT NULL
) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='tag2_report:group,server:min_time=0.01,tag.app=shop:95,99';
CREATE TABLE `hv_tag_report_db` (
  `index_value` varchar(256) NOT NULL
) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='hv.tag2_report:group,server';
CREATE TABLE `timers_by_server` (
  `host` varchar(64) NOT NULL,
  `server` varchar(64) NOT NULL
) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='v2/timer/300/~host,@server/hv=0:2000:20000,p50,p99.9/+app=shop';
CREATE TABLE `sessions` (`id` int) ENGINE=InnoDB;
"#;

#[test]
fn import_sql_output_is_a_config_the_daemon_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let dump = write_file(dir.path(), "pinba.sql", DUMP);
    let out = Command::new(BIN)
        .args(["import-sql", dump.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let config = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    for table in ["request", "hv_tag_report_db", "sessions"] {
        assert!(
            stderr.contains(&format!("not converted: table `{table}`")),
            "{table}: {stderr}"
        );
    }
    assert!(
        config
            .contains("# 6 tables: 2 new reports, 1 covered by built-in reports, 3 not converted."),
        "{config}"
    );

    let path = write_file(dir.path(), "imported.toml", &config);
    let state = dir.path().join("state");
    let check = Command::new(BIN)
        .args(["check-config", path.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .env("STATE_DIRECTORY", &state)
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}\n{config}");
    let effective: toml::Value = toml::from_str(&String::from_utf8(check.stdout).unwrap()).unwrap();
    let reports = effective["report"].as_array().unwrap();
    let names: Vec<&str> = reports
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tag_report_db", "timers_by_server"]);
    assert_eq!(reports[0]["filters"]["tag:app"].as_str(), Some("shop"));
    assert_eq!(reports[1]["history"].as_str(), Some("5m"));
}

#[test]
fn import_sql_reads_stdin_and_fails_clearly_on_a_missing_file() {
    let mut child = Command::new(BIN)
        .args(["import-sql", "-"])
        .env("RUST_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            // A latin1 byte (a dump of raw client strings): read leniently, as from a file.
            .write_all(
                b"-- caf\xe9\nCREATE TABLE t (a int) ENGINE=PINBA COMMENT='rtag_info:country';",
            )
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("keys = [\"tag:country\"]"), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let (code, stderr) = run_pinbad(&["import-sql", "/nonexistent/pinba.sql"], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("cannot read /nonexistent/pinba.sql"),
        "{stderr}"
    );
    // A file without a table: an error, not an empty config.
    let empty = write_file(dir.path(), "notes.sql", "-- nothing here\n");
    let (code, stderr) = run_pinbad(&["import-sql", empty.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no CREATE TABLE statement in"), "{stderr}");
    // gzip's magic bytes then garbage: the decompression's error, naming the file.
    let gz = dir.path().join("pinba.sql.gz");
    std::fs::write(&gz, b"\x1f\x8b\x08\x00garbage").unwrap();
    let (code, stderr) = run_pinbad(&["import-sql", gz.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot decompress") && stderr.contains("pinba.sql.gz"),
        "{stderr}"
    );
}

/// A dump as operators keep it, `mysqldump | gzip` (here the real `gzip`, two members as `cat a.gz
/// b.gz` makes), converts as the plain dump does: detected by gzip's magic bytes, so a file
/// named without `.gz` and stdin work too.
#[test]
fn import_sql_reads_a_gzipped_dump() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write_file(dir.path(), "pinba.sql", DUMP);
    let convert = |args: &[&str], stdin: Option<&[u8]>| -> std::process::Output {
        let mut child = Command::new(BIN)
            .args(args)
            .env("RUST_LOG", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(bytes) = stdin {
            use std::io::Write;
            input.write_all(bytes).unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    };
    let want = convert(&["import-sql", plain.to_str().unwrap()], None);
    assert!(want.status.success(), "{want:?}");
    // The dump split in two, each half gzipped: `gzip -d` reads the members in turn.
    let (a, b) = DUMP.split_at(DUMP.find("CREATE TABLE `tag_report_db`").unwrap());
    let mut gz = Vec::new();
    for half in [a, b] {
        let mut child = Command::new("gzip")
            .arg("-c")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("gzip");
        {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(half.as_bytes())
                .unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        gz.extend(out.stdout);
    }
    assert_eq!(&gz[..2], b"\x1f\x8b");
    let named = dir.path().join("pinba-2026-11-29.dump");
    std::fs::write(&named, &gz).unwrap();
    // The output names the file it read (its header line and the warnings' prefix): compared
    // with the plain dump's, that name aside.
    let text = |o: &std::process::Output, name: &str| {
        let out = String::from_utf8(o.stdout.clone()).unwrap();
        let out: Vec<&str> = out
            .lines()
            .filter(|l| !l.contains("converted by `pinbad import-sql` from"))
            .collect();
        let err = String::from_utf8(o.stderr.clone())
            .unwrap()
            .replace(&format!("pinbad: {name}: "), "pinbad: FILE: ");
        (out.join("\n"), err)
    };
    let plain_text = text(&want, plain.to_str().unwrap());
    assert!(plain_text.0.contains("[[report]]"), "{plain_text:?}");
    for (args, stdin, name) in [
        (
            vec!["import-sql", named.to_str().unwrap()],
            None,
            named.to_str().unwrap(),
        ),
        (vec!["import-sql", "-"], Some(gz.as_slice()), "-"),
    ] {
        let got = convert(&args, stdin);
        assert!(got.status.success(), "{args:?}: {got:?}");
        assert_eq!(text(&got, name), plain_text, "{args:?}");
    }
}

/// The option files of a pinba_engine host (tests/fixtures/mycnf: Debian's layout, every
/// variable of pinba_engine 1.2.0 set).
fn mycnf_fixture() -> std::path::PathBuf {
    crate::common::fixture_dir().join("mycnf/my.cnf")
}

/// `pinbad import-mycnf FILE`: (exit code, stdout, stderr).
fn import_mycnf(file: &str) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(["import-mycnf", file])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn import_mycnf_output_is_a_config_check_config_takes() {
    let (code, config, stderr) = import_mycnf(mycnf_fixture().to_str().unwrap());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        config.contains("# 14 pinba_engine settings: 8 converted, 6 not honoured."),
        "{config}"
    );
    // Each setting pinbad cannot honour is named on stderr, with its line.
    for name in [
        "pinba_data_pool_size",
        "pinba_data_job_size",
        "pinba_cpu_start",
        "pinba_histogram_max_time",
        "pinba_histogram_size",
        "pinba_log_level",
    ] {
        assert!(
            stderr.contains("pinba.cnf:") && stderr.contains(&format!("not honoured: {name} = ")),
            "{name}: {stderr}"
        );
    }
    assert_eq!(stderr.lines().count(), 6, "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "pinbad.toml", &config);
    let check = Command::new(BIN)
        .args(["check-config", path.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .env("STATE_DIRECTORY", dir.path().join("state"))
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}\n{config}");
    let effective: toml::Value = toml::from_str(&String::from_utf8(check.stdout).unwrap()).unwrap();
    let expect = [
        ("stats_history", toml::Value::from("5m")),
        ("stats_gathering_period", toml::Value::from("20ms")),
        ("request_pool_size", toml::Value::from(500_000)),
        // pinba_engine's timer pool (3,000,000) exceeds 4 per request kept.
        ("timer_pool_size", toml::Value::from(3_000_000)),
        ("tag_pool_size", toml::Value::from(6_000_000)),
        // 400,000 requests (pinba_temp_pool_size_limit) × 2 KiB.
        ("temp_pool_memory", toml::Value::from("782MiB")),
    ];
    for (key, value) in expect {
        assert_eq!(effective[key], value, "{key}\n{config}");
    }
    assert_eq!(
        effective["udp"]["listen"],
        toml::Value::from(vec!["0.0.0.0:30002"]),
        "{config}"
    );
}

#[test]
fn import_mycnf_config_starts_a_daemon_on_the_port_it_names() {
    let dir = tempfile::tempdir().unwrap();
    // The fixture included by a file that then moves the listener to a free loopback port, as
    // a later line does in mysqld (the last setting counts), with the names spelt as mysqld also
    // takes them. The port could be taken by another process before the daemon binds it: a few
    // tries, each with another port.
    let mut started = None;
    for _ in 0..3 {
        let port = std::net::UdpSocket::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .unwrap()
            .port();
        let cnf = write_file(
            dir.path(),
            "my.cnf",
            &format!(
                "[mysqld]\n!include {}\n[server]\npinba-address = \"127.0.0.1\"  # loopback\n\
                 loose-plugin-pinba-port = {port}\n",
                mycnf_fixture().display()
            ),
        );
        let (code, config, stderr) = import_mycnf(cnf.to_str().unwrap());
        assert_eq!(code, Some(0), "{stderr}");
        assert!(
            config.contains(&format!("listen = [\"127.0.0.1:{port}\"]")),
            "{config}"
        );
        let daemon =
            std::panic::catch_unwind(|| crate::common::Daemon::start_with(&config, &[], None));
        if let Ok(d) = daemon {
            started = Some((d, port));
            break;
        }
    }
    let (d, port) = started.expect("the daemon started on a free port within 3 tries");
    assert_eq!(d.udp, [std::net::SocketAddr::from(([127, 0, 0, 1], port))]);
    d.send(&[crate::common::request("/from-mycnf.php")]);
    d.wait_merged(1);
    let rows = d.strings(
        "/api/v1/reports/report_by_script_name",
        "rows",
        "script_name",
    );
    assert_eq!(rows, ["/from-mycnf.php"]);
}

#[test]
fn import_mycnf_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = import_mycnf("/nonexistent/my.cnf");
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("cannot read /nonexistent/my.cnf"),
        "{stderr}"
    );
    // A server's option file without pinba_engine's settings (its includes not found): an
    // error naming the files read, not an empty config.
    let cnf = write_file(
        dir.path(),
        "my.cnf",
        "[mysqld]\nport = 3306\n!includedir /nonexistent/conf.d/\n[client]\npinba_port = 1\n",
    );
    let (code, out, stderr) = import_mycnf(cnf.to_str().unwrap());
    assert_eq!(code, Some(1), "{out}");
    assert!(out.is_empty(), "{out}");
    assert!(
        stderr.contains("not followed: cannot list /nonexistent/conf.d/"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no pinba_ setting in the server groups"),
        "{stderr}"
    );
    // The daemon's flags are refused by name, as import-sql's (a usage error).
    let (code, stderr) = run_pinbad(
        &["import-mycnf", "--udp", "x", cnf.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("'--udp' cannot be used with 'import-mycnf'"),
        "{stderr}"
    );
}
