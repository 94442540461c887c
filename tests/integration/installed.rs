//! The installed base, unchanged: pinba2's own files (`scripts/default_reports.sql`, its
//! `scripts/default_tables/`, a mysqldump of a pinba2 database: tests/fixtures/sql) run through
//! the `mariadb` client and through `pinbad import-sql`, and the queries of pinba2's README,
//! against the real daemon.

use std::collections::BTreeMap;
use std::process::Command;

use crate::common::{fixture_dir, write_file, Daemon, BIN};
use crate::sent::Sent;
use crate::sql::{f, have_mariadb, sql, traffic};

/// pinba2's files as its users run them: the status tables and `info`, then its default reports.
fn pinba2_files() -> String {
    let dir = fixture_dir().join("sql");
    [
        "pinba2_default_tables/info.sql",
        "pinba2_default_tables/active.sql",
        "pinba2_default_tables/stats.sql",
        "pinba2_default_reports.sql",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(dir.join(f)).unwrap() + "\n")
    .collect()
}

/// `script` through the `mariadb` client with `--show-warnings` (each statement's warnings
/// printed after it): (success, stdout, stderr).
fn run_script(d: &Daemon, script: &str) -> (bool, String, String) {
    crate::sql::mariadb_script_with(d, &["--show-warnings"], script)
}

/// Per value of `key`: the requests, their bytes and their time, as sent.
fn sums(sent: &[Sent], key: fn(&Sent) -> &str) -> BTreeMap<String, (u64, u64, f64)> {
    let mut out: BTreeMap<String, (u64, u64, f64)> = BTreeMap::new();
    for s in sent {
        let e = out.entry(key(s).to_string()).or_default();
        e.0 += 1;
        e.1 += s.document_size as u64;
        e.2 += s.request_time as f64;
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    crate::common::close(a, b, 1e-5)
}

/// The tables pinba2's files give, each checked against what was sent: pinba2's names,
/// columns (`host`, `script`, `traffic_total` in bytes), window (60 s: rates are counts / 60,
/// over SQL and over HTTP), and its status tables answering its README's queries.
fn check_pinba2_tables(d: &Daemon, sent: &[Sent]) {
    let columns: Vec<String> = sql(d, "DESCRIBE report_by_host_name")[1..]
        .iter()
        .map(|r| r[0].clone())
        .collect();
    let file =
        std::fs::read_to_string(fixture_dir().join("sql/pinba2_default_reports.sql")).unwrap();
    let declared = &crate_parse_columns(&file, "report_by_host_name");
    assert_eq!(&columns, declared);

    let hosts = sql(
        d,
        "SELECT host, req_count, traffic_total FROM report_by_host_name ORDER BY host",
    );
    let want = sums(sent, |s| &s.hostname);
    assert_eq!(hosts.len() - 1, want.len(), "{hosts:?}");
    for row in &hosts[1..] {
        let (n, bytes, _) = want[&row[0]];
        assert_eq!(f(&row[1]) as u64, n, "{row:?}");
        assert_eq!(
            f(&row[2]) as u64,
            bytes,
            "{row:?}: pinba2's traffic is bytes"
        );
    }

    let scripts = sql(
        d,
        "SELECT script, req_count, req_per_sec, req_time_total FROM report_by_script_name ORDER BY script",
    );
    let want = sums(sent, |s| &s.script_name);
    assert_eq!(scripts.len() - 1, want.len(), "{scripts:?}");
    let http = d.json("/api/v1/reports/report_by_script_name?limit=100");
    for row in &scripts[1..] {
        let (n, _, time) = want[&row[0]];
        assert_eq!(f(&row[1]) as u64, n, "{row:?}");
        // pinba2's window: 60 s, its rates over the whole of it.
        assert!(close(f(&row[2]), n as f64 / 60.0), "{row:?}");
        assert!(close(f(&row[3]), time), "{row:?} vs {time}");
        let api = http["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["script_name"] == row[0].as_str())
            .unwrap_or_else(|| panic!("{} not in {http}", row[0]));
        assert!(
            close(api["req_per_sec"].as_f64().unwrap(), n as f64 / 60.0),
            "{api}"
        );
    }
    let def = crate::common::named(
        &d.json("/api/v1/reports")["reports"],
        "report_by_script_name",
    );
    assert_eq!(def["history"].as_f64(), Some(60.0), "{def}");

    // pinba2's `info` columns.
    let info = sql(d, "SELECT req_count, timer_count, time_total FROM info");
    assert_eq!(f(&info[1][0]) as u64, sent.len() as u64, "{info:?}");
    let total: f64 = sent.iter().map(|s| s.request_time as f64).sum();
    assert!(close(f(&info[1][2]), total), "{info:?} vs {total}");

    // pinba2's README queries of its status tables.
    let active = sql(
        d,
        "select *, packets_received/uptime as packets_per_sec, timers_scanned/uptime as \
         timers_per_sec, ru_utime/uptime utime_per_sec from active",
    );
    let header = &active[0];
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let row = active[1..]
        .iter()
        .find(|r| r[at("table_name")] == "./pinba/report_by_script_name")
        .unwrap_or_else(|| panic!("{active:?}"));
    assert_eq!(row[at("kind")], "report_by_request_data");
    assert_eq!(row[at("time_window_sec")], "60");
    assert_eq!(
        f(&row[at("approx_row_count")]) as usize,
        want.len(),
        "{row:?}"
    );
    assert_eq!(
        f(&row[at("packets_received")]) as u64,
        sent.len() as u64,
        "{row:?}"
    );
    let stats = sql(
        d,
        "select *, (repacker_ru_utime/uptime) as repacker_ru_utime_per_sec from stats",
    );
    assert_eq!(stats.len(), 2, "{stats:?}");
    let at = |name: &str| stats[0].iter().position(|c| c == name).unwrap();
    assert_eq!(
        f(&stats[1][at("udp_recv_packets")]) as u64,
        sent.len() as u64,
        "{stats:?}"
    );
    assert!(f(&stats[1][at("uptime")]) > 0.0, "{stats:?}");
    assert!(f(&stats[1][at("udp_recv_bytes")]) > 0.0, "{stats:?}");
    assert!(
        stats[1][at("build_string")].starts_with("pinbad "),
        "{stats:?}"
    );
}

/// The column names of table `name` in a file of CREATE TABLE statements (a line each,
/// backquoted, as pinba2's files have them).
fn crate_parse_columns(file: &str, name: &str) -> Vec<String> {
    let start = file
        .find(&format!("CREATE TABLE `{name}`"))
        .unwrap_or_else(|| panic!("{name} not in the file"));
    file[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with(')'))
        .filter_map(|l| l.trim().strip_prefix('`'))
        .map(|l| l.split('`').next().unwrap().to_string())
        .collect()
}

/// pinba2's `scripts/default_tables/*.sql` and `scripts/default_reports.sql`, unchanged,
/// through the `mariadb` client against pinbad as it starts (its built-ins on): every
/// statement succeeds, each built-in the files name gives way to pinba2's table (saying so,
/// its history kept: the same keys), and pinba2's README queries answer from what was sent.
#[test]
fn pinba2_default_files_run_unchanged_and_give_pinba2s_tables() {
    if !have_mariadb() {
        return;
    }
    let d = Daemon::start_logged("stats_history = \"15m\"\n", "pinbad=info");
    let sent = traffic(600);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(600);

    let (ok, out, err) = run_script(&d, &pinba2_files());
    assert!(ok && err.is_empty(), "{out}\n{err}");
    for name in ["info", "report_by_script_name", "report_by_server_name"] {
        assert!(
            out.contains(&format!(
                "table `{name}` replaced the built-in report of that name (its history kept"
            )),
            "{name}: {out}"
        );
    }
    for name in ["stats", "active"] {
        assert!(
            out.contains(&format!("table `{name}` already exists")),
            "{out}"
        );
    }
    check_pinba2_tables(&d, &sent);

    // Run again (a second setup run, a cron job): every table is kept as it is.
    let (ok, out, err) = run_script(
        &d,
        &pinba2_files().replace("CREATE TABLE `", "CREATE TABLE IF NOT EXISTS `"),
    );
    assert!(ok && err.is_empty(), "{out}\n{err}");
    check_pinba2_tables(&d, &sent);
}

/// A built-in replaced by pinba2's table of the same keys keeps its history: the steps written
/// before the CREATE are the new report's (readable: it keeps the built-in's history settings),
/// and the requests the new report is filled with from the pool are not written twice.
#[test]
fn a_builtin_replaced_by_pinba2s_table_keeps_its_history() {
    if !have_mariadb() {
        return;
    }
    // 1 s ticks (the built-ins' and pinba2's 60 s window's), history steps of 2 s beside the
    // built-ins' own.
    let d = Daemon::start(
        "stats_history = \"60s\"\nreport_ticks = 60\n[history]\nfine_step = \"2s\"\n\
         fine_retention = \"15m\"\n",
    );
    let sent = traffic(300);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(300);
    let total = |d: &Daemon| crate::history::total_requests(d, "report_by_script_name");
    d.wait_for(|d| total(d) == 300, "the built-in's history");
    let builtin = crate::common::named(
        &d.json("/api/v1/reports")["reports"],
        "report_by_script_name",
    );

    let file =
        std::fs::read_to_string(fixture_dir().join("sql/pinba2_default_reports.sql")).unwrap();
    let (ok, out, err) = run_script(&d, &file);
    assert!(ok && err.is_empty(), "{out}\n{err}");
    assert!(
        out.contains("table `report_by_script_name` replaced the built-in report of that name (its history kept"),
        "{out}"
    );
    let def = crate::common::named(
        &d.json("/api/v1/reports")["reports"],
        "report_by_script_name",
    );
    assert_eq!(def["history"].as_f64(), Some(60.0), "{def}");
    assert_eq!(
        def["history_retention"], builtin["history_retention"],
        "{def}"
    );
    assert!(!def["history_retention"].is_null(), "{def}");
    // Requests sent after the CREATE reach history after whatever the new report's first ticks
    // wrote (ticks close in order): once they are in, a request written twice would show.
    let more = traffic(50);
    d.send(&more.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(350);
    d.wait_for(|d| total(d) >= 350, "the later requests in the history");
    assert_eq!(total(&d), 350);
}

/// A mysqldump of a pinba2 database (made by mariadb-dump of pinba2's default tables and
/// reports: tests/fixtures/README.md), replayed with its DROP TABLE IF EXISTS lines, gives the
/// same tables; `pinbad import-sql` of it gives the config of the same tables, which a daemon
/// started with it serves.
#[test]
fn a_pinba2_mysqldump_replays_and_imports_to_pinba2s_tables() {
    if !have_mariadb() {
        return;
    }
    let dump = std::fs::read_to_string(fixture_dir().join("sql/pinba2_mysqldump.sql")).unwrap();
    let sent = traffic(400);
    let datagrams: Vec<Vec<u8>> = sent.iter().map(Sent::encode).collect();

    let d = Daemon::start("stats_history = \"15m\"\n");
    d.send(&datagrams);
    d.wait_merged(400);
    let (ok, out, err) = run_script(&d, &dump);
    assert!(ok && err.is_empty(), "{out}\n{err}");
    check_pinba2_tables(&d, &sent);
    drop(d);

    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "pinba.sql", &dump);
    let imported = Command::new(BIN)
        .args(["import-sql", path.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    assert!(imported.status.success(), "{imported:?}");
    let config = String::from_utf8(imported.stdout).unwrap();
    assert!(
        config
            .contains("# 6 tables: 4 new reports, 0 covered by built-in reports, 2 not converted."),
        "{config}"
    );
    let d = Daemon::start_logged(&format!("stats_history = \"15m\"\n{config}"), "pinbad=info");
    d.wait_log("A configured report takes the place of the built-in of its name");
    d.send(&datagrams);
    d.wait_merged(400);
    check_pinba2_tables(&d, &sent);
}
