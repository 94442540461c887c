//! `pinbad import-sql`: a pinba_engine/pinba2 dump in, config that the real daemon accepts out.

use std::process::{Command, Stdio};

use crate::common::{run_pinbad, write_file, BIN};

/// A mysqldump as pinba_engine and pinba2 users have them (written for this test from the two
/// projects' documentation): default tables, tag reports with conditions, pinba2 reports, and
/// tables that cannot be converted.
const DUMP: &str = r#"-- MySQL dump 10.13  Distrib 5.7.44, for Linux (x86_64)
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
    // A file without a table (here gzip's magic bytes): an error, not an empty config.
    let gz = dir.path().join("pinba.sql.gz");
    std::fs::write(&gz, b"\x1f\x8b\x08\x00garbage").unwrap();
    let (code, stderr) = run_pinbad(&["import-sql", gz.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no CREATE TABLE statement in"), "{stderr}");
}
