//! The SQL front end with the real clients: the `mariadb` command-line client, PHP's PDO and
//! mysqli (php8.2-mysql), Python's PyMySQL (python3-pymysql), against the real daemon on port 0.
//! Each test skips, saying so, where its client is absent, unless `PINBAD_REQUIRE_MYSQL_CLIENTS`
//! is set (CI installs them and sets it).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{named, Daemon};
use crate::sent::Sent;

/// Whether `program` (run with `probe`) works here; panics where the clients are required.
pub(crate) fn have(what: &str, program: &str, probe: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(probe)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("PINBAD_REQUIRE_MYSQL_CLIENTS").is_some() {
            panic!(
                "{what} is required (PINBAD_REQUIRE_MYSQL_CLIENTS) but `{program}` does not work"
            );
        }
        eprintln!("SKIPPED: {what} is not installed (`{program}`); install mariadb-client php8.2-mysql python3-pymysql");
    }
    ok
}

/// Whether the `mariadb` client is here (see [`have`]).
pub(crate) fn have_mariadb() -> bool {
    have("the mariadb client", "mariadb", &["--version"])
}

/// With the `mariadb` client here: a daemon with `extra` in its config and `n` requests of
/// [`traffic`] merged, and those requests.
fn with_mariadb(extra: &str, n: usize) -> Option<(Daemon, Vec<Sent>)> {
    if !have_mariadb() {
        return None;
    }
    let sent = traffic(n);
    Some((loaded(extra, &sent), sent))
}

/// A Python interpreter that has PyMySQL (Debian's python3-pymysql is the system Python's).
fn python() -> Option<&'static str> {
    let found = ["/usr/bin/python3", "python3"].into_iter().find(|py| {
        Command::new(py)
            .args(["-c", "import pymysql"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        have(
            "PyMySQL (python3-pymysql)",
            "/nonexistent/python3-with-pymysql",
            &[],
        );
    }
    found
}

/// One statement through the `mariadb` client: Ok(rows of tab-separated fields, header first),
/// or Err(the client's error text).
pub(crate) fn mariadb(
    d: &Daemon,
    user: &str,
    password: Option<&str>,
    sql: &str,
) -> Result<Vec<Vec<String>>, String> {
    let port = d
        .mysql
        .expect("the daemon listens for SQL")
        .port()
        .to_string();
    let mut c = Command::new("mariadb");
    c.args([
        "-h",
        "127.0.0.1",
        "-P",
        &port,
        "-u",
        user,
        "--batch",
        "--raw",
        "pinba",
    ]);
    if let Some(p) = password {
        c.arg(format!("-p{p}"));
    }
    let out = c.args(["-e", sql]).output().expect("run mariadb");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect())
}

pub(crate) fn sql(d: &Daemon, statement: &str) -> Vec<Vec<String>> {
    mariadb(d, "tester", None, statement).unwrap_or_else(|e| panic!("{statement}: {e}"))
}

/// A deterministic mix of requests: 3 hosts, 2 servers, 4 scripts, statuses 200/404/500, a
/// request tag, timers tagged by group and op.
pub(crate) fn traffic(n: usize) -> Vec<Sent> {
    let mut rnd = crate::common::rng(0x51ab_cafe);
    (0..n)
        .map(|i| {
            let status = match rnd(10) {
                0 => 500,
                1 => 404,
                _ => 200,
            };
            let timers = (0..rnd(3))
                .map(|_| {
                    let group = ["db", "cache"][rnd(2) as usize].to_string();
                    let op = ["get", "set", "query"][rnd(3) as usize].to_string();
                    (
                        1 + rnd(4) as u32,
                        (1 + rnd(2000)) as f32 / 100_000.0,
                        0.0,
                        0.0,
                        vec![("group".to_string(), group), ("op".to_string(), op)],
                    )
                })
                .collect();
            Sent {
                hostname: format!("h{}", i % 3),
                server_name: format!("s{}.example.com", rnd(2)),
                script_name: format!("/s{}.php", rnd(4)),
                status,
                schema: Some("https".into()),
                request_time: (1 + rnd(3000)) as f32 / 1000.0,
                ru_utime: (rnd(500)) as f32 / 1000.0,
                ru_stime: (rnd(100)) as f32 / 1000.0,
                document_size: 1000 + rnd(100_000) as u32,
                memory_footprint: 4096 + rnd(1 << 20) as u32,
                tags: vec![("country".into(), ["nl", "de"][rnd(2) as usize].into())],
                timers,
            }
        })
        .collect()
}

/// A daemon with SQL on port 0, `extra` added to its config, and `sent` merged.
fn loaded(extra: &str, sent: &[Sent]) -> Daemon {
    let d = Daemon::start(&format!("stats_history = \"10m\"\n{extra}"));
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    d
}

pub(crate) fn f(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

/// The usual session chatter, the catalog (SHOW, DESCRIBE, information_schema) and errors that
/// leave the session usable, through the `mariadb` client.
#[test]
fn the_mariadb_client_sees_the_catalog_and_the_session_chatter() {
    let Some((d, _)) = with_mariadb("", 50) else {
        return;
    };
    let rows = sql(
        &d,
        "SET NAMES utf8mb4; USE pinba; SELECT @@version, @@version_comment, DATABASE()",
    );
    assert_eq!(rows[0], ["@@version", "@@version_comment", "DATABASE()"]);
    assert!(rows[1][0].contains("pinbad"), "{rows:?}");
    assert_eq!(rows[1][2], "pinba");
    let dbs = sql(&d, "SHOW DATABASES");
    assert_eq!(dbs, [["Database"], ["information_schema"], ["pinba"]]);
    let tables: Vec<String> = sql(&d, "SHOW TABLES")
        .into_iter()
        .skip(1)
        .map(|r| r[0].clone())
        .collect();
    for t in [
        "info",
        "report_by_script_name",
        "report_by_hostname_status_and_schema",
        "request",
        "timer",
        "timertag",
        "tag",
        "status",
        "stats",
        "active",
        "marks",
    ] {
        assert!(tables.iter().any(|x| x == t), "{t} missing from {tables:?}");
    }
    // The built-ins, the raw tables and pinbad's own tables (`status`, `stats`, `active`,
    // `marks`).
    assert_eq!(tables.len(), 21 + 4 + 4, "{tables:?}");
    let described = sql(&d, "DESCRIBE request");
    assert_eq!(described[0][..2], ["Field", "Type"]);
    let fields: Vec<&str> = described[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        fields,
        [
            "id",
            "hostname",
            "req_count",
            "server_name",
            "script_name",
            "doc_size",
            "mem_peak_usage",
            "req_time",
            "ru_utime",
            "ru_stime",
            "timers_cnt",
            "status",
            "memory_footprint",
            "schema",
            "tags_cnt",
            "tags",
            "timestamp"
        ]
    );
    let full = sql(
        &d,
        "SHOW FULL COLUMNS FROM report_by_script_name LIKE 'req%'",
    );
    assert_eq!(
        full[0],
        [
            "Field",
            "Type",
            "Collation",
            "Null",
            "Key",
            "Default",
            "Extra",
            "Privileges",
            "Comment"
        ]
    );
    assert!(
        full[1..].iter().all(|r| r[0].starts_with("req")),
        "{full:?}"
    );
    // (--raw leaves the statement's newlines in: its lines are rows here.)
    let create = sql(&d, "SHOW CREATE TABLE info");
    assert_eq!(create[1][0], "info", "{create:?}");
    assert!(
        create[1][1].starts_with("CREATE TABLE `info` ("),
        "{create:?}"
    );
    assert!(
        create.last().unwrap()[0].contains("ENGINE=PINBA"),
        "{create:?}"
    );
    let listed = sql(
        &d,
        "SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' \
         AND TABLE_NAME LIKE 'report_by_s%' ORDER BY TABLE_NAME",
    );
    assert!(listed[1..].iter().all(|r| r[1] == "PINBA"), "{listed:?}");
    assert_eq!(listed.len() - 1, 10, "{listed:?}");
    let columns = sql(
        &d,
        "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = \
         'pinba' AND TABLE_NAME = 'timer' ORDER BY ORDINAL_POSITION",
    );
    assert_eq!(columns[1], ["id", "bigint"]);
    assert_eq!(columns[2], ["request_id", "bigint"]);
    // Errors name what is wrong; the client's next statements in the same session still run.
    let e = mariadb(&d, "tester", None, "SELECT * FROM nope").unwrap_err();
    assert!(e.contains("1146") && e.contains("pinba.nope"), "{e}");
    let e = mariadb(&d, "tester", None, "INSERT INTO request (id) VALUES (1)").unwrap_err();
    assert!(e.contains("1290") && e.contains("read-only"), "{e}");
    let e = mariadb(&d, "tester", None, "SELECT FROM WHERE").unwrap_err();
    assert!(e.contains("1064"), "{e}");
    let e = mariadb(&d, "tester", None, "USE mysql").unwrap_err();
    assert!(e.contains("1049"), "{e}");
    let status = d.status();
    assert!(status["mysql"]["errors"].as_u64() >= Some(4), "{status}");
    assert!(status["mysql"]["sessions"].as_u64() >= Some(8), "{status}");
}

/// The raw tables hold what was sent: aggregates over `request` equal the sums of the sent
/// requests, and pinba_engine's join of `timer`, `timertag` and `tag` gives every timer's tags.
#[test]
fn raw_table_aggregates_equal_what_was_sent() {
    let Some((d, sent)) = with_mariadb("", 300) else {
        return;
    };
    let rows = sql(
        &d,
        "SELECT hostname, status, COUNT(*), SUM(req_time), SUM(doc_size), MAX(tags_cnt), \
         SUM(timers_cnt) FROM request GROUP BY hostname, status ORDER BY hostname, status",
    );
    let mut want = std::collections::BTreeMap::new();
    for s in &sent {
        let e = want
            .entry((s.hostname.clone(), s.status))
            .or_insert((0u64, 0f64, 0f64, 0u64));
        e.0 += 1;
        e.1 += s.request_time as f64;
        e.2 += s.document_size as f64 / 1024.0;
        e.3 += s.timers.len() as u64;
    }
    assert_eq!(rows.len() - 1, want.len(), "{rows:?}");
    for (row, ((host, status), (count, time, kb, timers))) in rows[1..].iter().zip(&want) {
        assert_eq!((&row[0], f(&row[1]) as u32), (host, *status), "{row:?}");
        assert_eq!(f(&row[2]) as u64, *count, "{row:?}");
        assert!((f(&row[3]) - time).abs() < 1e-3, "{row:?} vs {time}");
        assert!((f(&row[4]) - kb).abs() < 1e-3, "{row:?} vs {kb} KB");
        assert_eq!(f(&row[5]), 1.0, "{row:?}");
        assert_eq!(f(&row[6]) as u64, *timers, "{row:?}");
    }
    // Every timer, with its tags, as pinba_engine's joins give them.
    let joined = sql(
        &d,
        "SELECT tag.name, tt.value, COUNT(*), SUM(t.hit_count) FROM timer t \
         JOIN request r ON t.request_id = r.id JOIN timertag tt ON tt.timer_id = t.id \
         JOIN tag ON tt.tag_id = tag.id GROUP BY tag.name, tt.value ORDER BY 1, 2",
    );
    let mut want = std::collections::BTreeMap::new();
    for s in &sent {
        for (hits, _, _, _, tags) in &s.timers {
            for (n, v) in tags {
                let e = want.entry((n.clone(), v.clone())).or_insert((0u64, 0u64));
                e.0 += 1;
                e.1 += *hits as u64;
            }
        }
    }
    let got: Vec<(String, String, u64, u64)> = joined[1..]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), f(&r[2]) as u64, f(&r[3]) as u64))
        .collect();
    let want: Vec<(String, String, u64, u64)> = want
        .into_iter()
        .map(|((n, v), (c, h))| (n, v, c, h))
        .collect();
    assert_eq!(got, want);
    // `request.tags` as pinba_engine writes it, and the time of each request.
    let tagged = sql(&d, "SELECT DISTINCT tags FROM request ORDER BY 1");
    assert_eq!(tagged[1..], [["country=de"], ["country=nl"]]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as f64;
    let t = sql(
        &d,
        "SELECT MIN(timestamp), MAX(timestamp), FROM_UNIXTIME(MAX(timestamp)) FROM request",
    );
    assert!(
        now - f(&t[1][0]) < 600.0 && f(&t[1][1]) <= now + 1.0,
        "{t:?}"
    );
    assert_eq!(t[1][2].len(), "2026-01-01 00:00:00".len(), "{t:?}");
}

/// `max_query_time` stops a runaway query (a cross join of the raw tables) with a clear error,
/// the session stays usable; `max_connections` caps sessions; all counted.
#[test]
fn runaway_queries_are_killed_and_sessions_capped() {
    let Some(py) = python() else { return };
    let d = loaded(
        "[mysql]\nmax_query_time = \"500ms\"\nmax_connections = 2\n",
        &traffic(400),
    );
    let port = d.mysql.unwrap().port();
    let script = format!(
        r#"
import json, time, pymysql
out = {{}}
c = pymysql.connect(host="127.0.0.1", port={port}, user="u", database="pinba")
cur = c.cursor()
t = time.time()
try:
    cur.execute("SELECT COUNT(*) FROM timer a, timer b, timer c")
    out["killed"] = None
except pymysql.err.OperationalError as e:
    out["killed"] = [e.args[0], e.args[1]]
out["kill_seconds"] = time.time() - t
cur.execute("SELECT COUNT(*) FROM request")
out["after"] = cur.fetchone()[0]
c2 = pymysql.connect(host="127.0.0.1", port={port}, user="u", database="pinba")
try:
    pymysql.connect(host="127.0.0.1", port={port}, user="u", database="pinba")
    out["third"] = None
except pymysql.err.OperationalError as e:
    out["third"] = [e.args[0], str(e.args[1])]
print(json.dumps(out))
"#
    );
    let got = python_json(py, &script);
    assert_eq!(got["killed"][0], 1317, "{got}");
    assert!(
        got["killed"][1]
            .as_str()
            .unwrap()
            .contains("max_query_time"),
        "{got}"
    );
    assert!(got["kill_seconds"].as_f64().unwrap() < 10.0, "{got}");
    assert_eq!(got["after"], 400, "{got}");
    assert_eq!(got["third"][0], 1040, "{got}");
    let status = d.status();
    assert_eq!(status["mysql"]["killed"], 1, "{status}");
    assert_eq!(status["mysql"]["sessions_refused"], 1, "{status}");
    let (_, metrics) = d.get_text("/metrics");
    assert!(metrics.contains("pinbad_mysql_killed_total 1"), "{metrics}");
}

/// `report_by_script_name`'s (script, req_count) rows as the HTTP API gives them, by script.
/// Runs `script` with `php -r`, asserting it succeeds (and, unless `warnings`, prints nothing on
/// stderr: no PHP warning), and returns the JSON it printed.
fn php_json(script: &str, warnings: bool) -> Value {
    let out = Command::new("php").args(["-r", script]).output().unwrap();
    assert!(
        out.status.success() && (warnings || out.stderr.is_empty()),
        "{} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What a Python `script` (run by `py`) prints, as JSON; it must succeed.
fn python_json(py: &str, script: &str) -> Value {
    let out = Command::new(py).args(["-c", script]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn http_script_counts(d: &Daemon) -> Vec<(String, u64)> {
    let http = d.json("/api/v1/reports/report_by_script_name?limit=10&sort=script_name");
    http["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["script_name"].as_str().unwrap().to_string(),
                r["req_count"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// PHP's PDO and mysqli and Python's PyMySQL connect unchanged and read a report and the raw
/// pool; the numbers equal the HTTP API's.
#[test]
fn php_and_python_clients_read_reports_as_the_http_api_gives_them() {
    let d = loaded("", &traffic(200));
    let port = d.mysql.unwrap().port();
    let want = http_script_counts(&d);
    assert_eq!(want.len(), 4);
    let query = "SELECT script_name, req_count FROM report_by_script_name ORDER BY script_name";
    if have(
        "PHP with pdo_mysql and mysqli",
        "php",
        &[
            "-r",
            "exit(extension_loaded('pdo_mysql') && extension_loaded('mysqli') ? 0 : 1);",
        ],
    ) {
        let php = format!(
            r#"
$pdo = new PDO("mysql:host=127.0.0.1;port={port};dbname=pinba", "php", "");
$pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
$pdo_rows = $pdo->query("{query}")->fetchAll(PDO::FETCH_NUM);
$count = $pdo->query("SELECT COUNT(*) FROM request")->fetchColumn();
$m = new mysqli("127.0.0.1", "php", "", "pinba", {port});
$res = $m->query("{query}");
$mysqli_rows = $res->fetch_all(MYSQLI_NUM);
try {{ $m->query("SELECT * FROM nope"); $bad = "no error"; }}
catch (mysqli_sql_exception $e) {{ $bad = $e->getCode(); }}
echo json_encode(["pdo" => $pdo_rows, "count" => $count, "mysqli" => $mysqli_rows, "bad" => $bad]);
"#
        );
        let got = php_json(&php, true);
        for client in ["pdo", "mysqli"] {
            let rows: Vec<(String, u64)> = got[client]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r[0].as_str().unwrap().to_string(),
                        r[1].to_string().trim_matches('"').parse().unwrap(),
                    )
                })
                .collect();
            assert_eq!(rows, want, "{client}: {got}");
        }
        assert_eq!(got["count"].to_string().trim_matches('"'), "200", "{got}");
        assert_eq!(got["bad"], 1146, "{got}");
    }
    if let Some(py) = python() {
        let script = format!(
            r#"
import json, pymysql
c = pymysql.connect(host="127.0.0.1", port={port}, user="py", database="pinba")
cur = c.cursor()
cur.execute("{query}")
rows = cur.fetchall()
types = [type(v).__name__ for v in rows[0]]
cur.execute("SELECT SUM(req_time), COUNT(*) FROM request")
total = cur.fetchone()
print(json.dumps({{"rows": rows, "types": types, "total": total}}))
"#
        );
        let got = python_json(py, &script);
        let rows: Vec<(String, u64)> = got["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_u64().unwrap()))
            .collect();
        assert_eq!(rows, want, "{got}");
        assert_eq!(got["types"], serde_json::json!(["str", "int"]), "{got}");
        assert_eq!(got["total"][1], 200, "{got}");
        let info = d.json("/api/v1/info");
        let http_total = info["totals"]["req_time_total"].as_f64().unwrap();
        assert!(
            (got["total"][0].as_f64().unwrap() - http_total).abs() < 1e-3,
            "{got} {info}"
        );
    }
}

/// `CREATE TABLE … ENGINE=PINBA` creates the report (filled from the pool at once, kept across
/// restarts like a POST), `DROP TABLE` drops it; with `http.token` set and no SQL password, a
/// session may not; with a password, only an authenticated session connects, and it may.
#[test]
fn create_and_drop_table_make_and_drop_reports() {
    let Some((d, sent)) = with_mariadb("", 120) else {
        return;
    };
    let created = sql(
        &d,
        "CREATE TABLE `by_group` (`tag_value` varchar(64) DEFAULT NULL, `req_count` int(11) DEFAULT NULL, \
         `req_per_sec` float DEFAULT NULL, `hit_count` int(11) DEFAULT NULL) ENGINE=PINBA \
         DEFAULT CHARSET=latin1 COMMENT='tag_info:group'",
    );
    assert!(created.is_empty(), "{created:?}");
    let def = named(&d.json("/api/v1/reports")["reports"], "by_group");
    assert_eq!(def["keys"], serde_json::json!(["timer_tag:group"]), "{def}");
    // Filled from the pool at once: the hits of every group.
    let rows = sql(
        &d,
        "SELECT tag_value, hit_count FROM by_group ORDER BY tag_value",
    );
    let mut want = std::collections::BTreeMap::new();
    for s in &sent {
        for (hits, _, _, _, tags) in &s.timers {
            *want.entry(tags[0].1.clone()).or_insert(0u64) += *hits as u64;
        }
    }
    let got: Vec<(String, u64)> = rows[1..]
        .iter()
        .map(|r| (r[0].clone(), f(&r[1]) as u64))
        .collect();
    assert_eq!(got, want.into_iter().collect::<Vec<_>>());
    let e = mariadb(
        &d,
        "tester",
        None,
        "CREATE TABLE by_group (a int) ENGINE=PINBA COMMENT='report1'",
    )
    .unwrap_err();
    assert!(e.contains("1050"), "{e}");
    let e = mariadb(
        &d,
        "tester",
        None,
        "CREATE TABLE plain (a int) ENGINE=InnoDB",
    )
    .unwrap_err();
    assert!(e.contains("1286") && e.contains("ENGINE=PINBA"), "{e}");
    // Carried out when the session ends (a CREATE of the same table next would have kept it).
    sql(&d, "DROP TABLE by_group");
    d.wait_for(
        |d| d.get("/api/v1/reports/by_group").0 == 404,
        "by_group dropped",
    );
    let e = mariadb(&d, "tester", None, "DROP TABLE by_group").unwrap_err();
    assert!(e.contains("1051"), "{e}");
    assert!(sql(&d, "DROP TABLE IF EXISTS by_group").is_empty());
    drop(d);

    // A token guards the HTTP API's changes: without a password the SQL front end may not change
    // either.
    // (HTTP reads left open: the harness reads the status.)
    let d = loaded(
        "[http]\ntoken = \"t0ken\"\ntoken_reads = false\n",
        &sent[..10],
    );
    let e = mariadb(
        &d,
        "tester",
        None,
        "CREATE TABLE x (a int) ENGINE=PINBA COMMENT='report1'",
    )
    .unwrap_err();
    assert!(e.contains("1227"), "{e}");
    drop(d);
    let d = loaded(
        "[http]\ntoken = \"t0ken\"\ntoken_reads = false\n[mysql]\nuser = \"pinba\"\npassword = \"s3cret\"\n",
        &sent[..10],
    );
    let e = mariadb(&d, "pinba", Some("wrong"), "SELECT 1").unwrap_err();
    assert!(
        e.contains("1045") || e.contains("Access denied") || e.contains("Authenticate"),
        "{e}"
    );
    let e = mariadb(&d, "other", Some("s3cret"), "SELECT 1").unwrap_err();
    assert!(!e.is_empty());
    mariadb(
        &d,
        "pinba",
        Some("s3cret"),
        "CREATE TABLE by_host (hostname varchar(32)) ENGINE=PINBA COMMENT='report3'",
    )
    .unwrap();
    let def = named(&d.json("/api/v1/reports")["reports"], "by_host");
    assert_eq!(def["keys"], serde_json::json!(["hostname"]), "{def}");
    assert!(d.status()["mysql"]["auth_failed"].as_u64() >= Some(2));
}

/// Tables made with pinba_engine's DDL compute timer percentiles and `*_per_sec` by
/// pinba_engine's definitions (a timer adds `hit_count` samples of its whole value; rates divide
/// by the span of the requests held, in whole seconds, and by 1 while a report holds fewer than 2
/// rows), and pinba2's DDL by pinba2's (samples of `value / hit_count`; rates over the whole
/// window); each computed here by hand from the datagrams and the raw table's timestamps.
#[test]
fn engine_tables_follow_their_engines_definitions() {
    if !have_mariadb() {
        return;
    }
    let d = Daemon::start("stats_history = \"10m\"\n");
    // Up for 2 s before any request: pinbad's own rates (over the time since the start) then
    // differ from pinba_engine's (over the requests' span) by more than a second's rounding.
    let up = std::time::Instant::now();
    d.wait_for(
        |_| up.elapsed() >= std::time::Duration::from_secs(2),
        "2 s of uptime",
    );
    // Each request: timers of group db (10 hits of 1 s in all, 1 hit of 0.2 s) and of group
    // cache (4 hits of 0.4 s), from one host.
    let request = |script: &str| Sent {
        hostname: "h1".into(),
        server_name: "s.example.com".into(),
        script_name: script.into(),
        status: 200,
        schema: None,
        request_time: 1.5,
        ru_utime: 0.0,
        ru_stime: 0.0,
        document_size: 1000,
        memory_footprint: 4096,
        tags: vec![],
        timers: vec![
            (10, 1.0, 0.0, 0.0, vec![("group".into(), "db".into())]),
            (1, 0.2, 0.0, 0.0, vec![("group".into(), "db".into())]),
            (4, 0.4, 0.0, 0.0, vec![("group".into(), "cache".into())]),
        ],
    };
    let batch = |n: usize| -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| request(["/a.php", "/b.php"][i % 2]).encode())
            .collect()
    };
    d.send(&batch(4));
    d.wait_merged(4);
    let unix = |d: &Daemon, q: &str| f(&sql(d, q)[1][0]) as u64;
    let first = unix(&d, "SELECT MIN(timestamp) FROM request");
    // The second batch 2 s later or more: a span of at least 2 s.
    d.wait_for(
        |_| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                >= first + 2
        },
        "2 s after the first batch",
    );
    d.send(&batch(6));
    d.wait_merged(10);
    let span = (unix(&d, "SELECT MAX(timestamp) FROM request") - first).max(1) as f64;
    assert!(span >= 2.0, "{span}");

    for ddl in [
        "CREATE TABLE pe_timers (tag_value varchar(64), req_count int, req_per_sec float, \
         hit_count int, hit_per_sec float, timer_value float, timer_median float, \
         ru_utime_value float, ru_stime_value float, index_value varchar(256), p50 float, \
         p95 float) ENGINE=PINBA COMMENT='tag_info:group::50,95'",
        "CREATE TABLE pe_scripts (req_count int, req_per_sec float, req_time_total float, \
         req_time_percent float, req_time_per_sec float) ENGINE=PINBA COMMENT='report1'",
        "CREATE TABLE pe_hosts (req_count int, req_per_sec float) ENGINE=PINBA COMMENT='report3'",
        "CREATE TABLE v2_timers (grp varchar(64), req_count int, req_per_sec float, \
         req_percent float, hit_count int, hit_per_sec float, hit_percent float, \
         time_total float, time_per_sec float, time_percent float, ru_utime_total float, \
         ru_utime_per_sec float, ru_utime_percent float, ru_stime_total float, \
         ru_stime_per_sec float, ru_stime_percent float, p50 float, p95 float, \
         histogram varchar(256)) ENGINE=PINBA \
         COMMENT='v2/timer/60/@group/hv=0:2000:2000,p50,p95/no_filters'",
    ] {
        assert!(sql(&d, ddl).is_empty(), "{ddl}");
    }
    let reports = d.json("/api/v1/reports");
    for (name, compat) in [
        ("pe_timers", "pinba_engine"),
        ("pe_scripts", "pinba_engine"),
        ("v2_timers", "pinba2"),
        ("report_by_script_name", "null"),
    ] {
        assert_eq!(
            named(&reports["reports"], name)["compat"]
                .to_string()
                .trim_matches('"'),
            compat,
            "{name}"
        );
    }

    // The nearest-rank percentile of weighted samples (value, weight).
    let percentile = |samples: &[(f64, u64)], p: f64| -> f64 {
        let mut samples = samples.to_vec();
        samples.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n: u64 = samples.iter().map(|s| s.1).sum();
        let rank = (p / 100.0 * n as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        samples
            .iter()
            .find(|s| {
                seen += s.1;
                seen >= rank
            })
            .unwrap()
            .0
    };
    let close = |got: &str, want: f64, what: &str| {
        let got = f(got);
        assert!(
            (got - want).abs() <= want.abs() * 0.01 + 1e-6,
            "{what}: {got}, want {want}"
        );
    };
    let n = 10u64;
    // The timers of one request, (hit_count, value), by group.
    let timers = |group: &str| -> Vec<(u64, f64)> {
        if group == "db" {
            vec![(10, 1.0), (1, 0.2)]
        } else {
            vec![(4, 0.4)]
        }
    };
    for group in ["cache", "db"] {
        let whole: Vec<(f64, u64)> = timers(group).iter().map(|&(h, v)| (v, h * n)).collect();
        let per_hit: Vec<(f64, u64)> = timers(group)
            .iter()
            .map(|&(h, v)| (v / h as f64, h * n))
            .collect();
        let hits = n * timers(group).iter().map(|t| t.0).sum::<u64>();

        // Each table's row of the group: its counts, and its rates and percentiles by its
        // engine's definitions.
        for (table, key, interval, samples) in [
            ("pe_timers", "tag_value", span, &whole),
            ("v2_timers", "grp", 60.0, &per_hit),
        ] {
            let rows = sql(
                &d,
                &format!(
                    "SELECT req_count, req_per_sec, hit_count, hit_per_sec, p50, p95 FROM {table} \
                     WHERE {key} = '{group}'"
                ),
            );
            let r = &rows[1];
            assert_eq!((f(&r[0]) as u64, f(&r[2]) as u64), (n, hits), "{rows:?}");
            close(&r[1], n as f64 / interval, &format!("{table} req_per_sec"));
            close(
                &r[3],
                hits as f64 / interval,
                &format!("{table} hit_per_sec"),
            );
            close(&r[4], percentile(samples, 50.0), &format!("{table} p50"));
            close(&r[5], percentile(samples, 95.0), &format!("{table} p95"));
        }
    }
    // The definitions differ where it shows: db's p95 is 1 s whole, 0.2 s per hit.
    assert_ne!(
        sql(&d, "SELECT p95 FROM pe_timers WHERE tag_value = 'db'")[1],
        sql(&d, "SELECT p95 FROM v2_timers WHERE grp = 'db'")[1]
    );

    // A request report: rates over the span; one of a single row (one host): over 1 s.
    for r in &sql(
        &d,
        "SELECT req_count, req_per_sec, req_time_total, req_time_per_sec FROM pe_scripts",
    )[1..]
    {
        close(&r[1], f(&r[0]) / span, "pe_scripts req_per_sec");
        close(&r[3], f(&r[2]) / span, "pe_scripts req_time_per_sec");
    }
    let hosts = sql(&d, "SELECT req_count, req_per_sec FROM pe_hosts");
    assert_eq!(hosts.len(), 2, "{hosts:?}");
    close(&hosts[1][1], n as f64, "pe_hosts req_per_sec");
}

/// pinba_engine's `status` table answers pinbad's figures nearest to its columns (the same as
/// `GET /api/v1/status`), and its DDL (DROP, CREATE of its comment) leaves it as it is.
#[test]
fn the_status_table_answers_pinbads_figures() {
    let Some((d, sent)) = with_mariadb("", 20) else {
        return;
    };
    let nan = Sent {
        request_time: f32::NAN,
        ..sent[0].clone()
    };
    d.send(&[vec![0xff, 0xff, 0xff], nan.encode()]);
    d.wait_merged(22);
    let rows = sql(&d, "SELECT * FROM status");
    assert_eq!(
        rows[0],
        [
            "current_temp_pool_size",
            "current_timer_pool_size",
            "lost_tmp_records",
            "invalid_packets",
            "invalid_request_data",
            "build_string",
            "dictionary_size"
        ]
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    let status = d.status();
    let n = |i: usize| f(&rows[1][i]) as u64;
    let reject = |why: &str| status["rejected_by_reason"][why].as_u64().unwrap();
    assert_eq!(n(0), 0, "the temp ring is empty once all is merged");
    assert_eq!(Some(n(1)), status["current_timer_pool_used"].as_u64());
    assert!(n(1) > 0);
    assert_eq!(Some(n(2)), status["temp_pool_dropped"].as_u64());
    assert_eq!(n(3), reject("malformed") + reject("truncated"));
    assert_eq!(n(3), 1);
    assert_eq!(n(4), reject("non_finite"));
    assert_eq!(n(4), 1);
    assert!(rows[1][5].starts_with("pinbad "), "{rows:?}");
    assert_eq!(Some(n(6)), status["dictionary_size"].as_u64());

    let ddl = sql(
        &d,
        "DROP TABLE IF EXISTS status; CREATE TABLE `status` (`current_temp_pool_size` int(11) \
         NOT NULL) ENGINE=PINBA COMMENT='status'; SHOW WARNINGS",
    );
    assert!(
        ddl.iter()
            .any(|r| r.join(" ").contains("table `status` already exists")),
        "{ddl:?}"
    );
    assert!(sql(&d, "SHOW TABLES").iter().any(|r| r[0] == "status"));
    assert_eq!(sql(&d, "SELECT COUNT(*) FROM status")[1][0], "1");
}

/// An OK packet counts the warnings its statement left (what `SHOW WARNINGS` lists), as clients
/// read them: mysqli's `warning_count`, and the `mariadb` client's `--show-warnings`, which asks
/// for them only when the count says there are some; mysqli reads its info text.
#[test]
fn ok_packets_count_the_statements_warnings() {
    if !have_mariadb() {
        return;
    }
    let d = loaded("", &traffic(5));
    let port = d.mysql.unwrap().port();
    let out = Command::new("mariadb")
        .args(["-h", "127.0.0.1", "-P", &port.to_string(), "-u", "t"])
        .args(["--show-warnings", "pinba", "-e"])
        .arg("DROP TABLE IF EXISTS nope_a, nope_b; SELECT 1 AS one")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    for table in ["nope_a", "nope_b"] {
        assert!(
            text.contains(&format!("Note (Code 1051): Unknown table 'pinba.{table}'")),
            "{text}"
        );
    }
    if have(
        "PHP with mysqli",
        "php",
        &["-r", "exit(extension_loaded('mysqli') ? 0 : 1);"],
    ) {
        let got = php_json(
            &format!(
                r#"
$m = new mysqli("127.0.0.1", "php", "", "pinba", {port});
$out = [];
$m->query("DROP TABLE IF EXISTS nope_a, nope_b");
$out[] = $m->warning_count;
$out[] = $m->info;
$m->query("CREATE TABLE `status` (`a` int) ENGINE=PINBA COMMENT='status'");
$out[] = $m->warning_count;
$m->query("SELECT 1")->fetch_all();
$out[] = $m->warning_count;
$m->query("DROP TABLE IF EXISTS request");
$out[] = $m->warning_count;
echo json_encode($out);
"#
            ),
            false,
        );
        // The OK's info text too (length-encoded, as MySQL's server sends it).
        assert_eq!(
            got,
            serde_json::json!([
                2,
                "Unknown table 'pinba.nope_a'; Unknown table 'pinba.nope_b'",
                1,
                0,
                1
            ])
        );
    }
}

/// The SQL statements of Pinboard's aggregation job (intaro/pinboard, src/Command/AggregateCommand.php,
/// the SELECT parts of its INSERT … SELECT statements, with the values its PHP substitutes) run
/// verbatim over pinba tables made by Pinboard's own DDL (its migrations' ENGINE=PINBA tables), and
/// return what the same SQL computes over the requests sent.
#[test]
fn pinboard_aggregation_selects_run_verbatim() {
    let Some((d, sent)) = with_mariadb("", 300) else {
        return;
    };
    // Pinboard's migrations create its pinba tables so (Version20231102124503.php and siblings).
    sql(
        &d,
        "CREATE TABLE IF NOT EXISTS `ipm_pinba_report_by_hostname_90_95_99` (
              `req_count` int(11) DEFAULT NULL, `req_per_sec` float DEFAULT NULL,
              `req_time_total` float DEFAULT NULL, `req_time_percent` float DEFAULT NULL,
              `req_time_per_sec` float DEFAULT NULL, `ru_utime_total` float DEFAULT NULL,
              `ru_utime_percent` float DEFAULT NULL, `ru_utime_per_sec` float DEFAULT NULL,
              `ru_stime_total` float DEFAULT NULL, `ru_stime_percent` float DEFAULT NULL,
              `ru_stime_per_sec` float DEFAULT NULL, `traffic_total` float DEFAULT NULL,
              `traffic_percent` float DEFAULT NULL, `traffic_per_sec` float DEFAULT NULL,
              `hostname` varchar(32) DEFAULT NULL, `memory_footprint_total` float DEFAULT NULL,
              `memory_footprint_percent` float DEFAULT NULL, `req_time_median` float DEFAULT NULL,
              `index_value` varchar(256) DEFAULT NULL, `p90` float DEFAULT NULL,
              `p95` float DEFAULT NULL, `p99` float DEFAULT NULL
            ) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='report3:::90,95,99'",
    );
    // The error pages Pinboard mails about (its `minErrorCode` 500).
    let errors = sql(
        &d,
        "
                    SELECT
                        server_name, script_name, status, max(hostname) AS hostname, count(*) AS count
                    FROM
                        request
                    WHERE
                        status >= 500
                    GROUP BY
                        server_name, script_name, status
                ",
    );
    let mut want = std::collections::BTreeMap::new();
    for s in sent.iter().filter(|s| s.status >= 500) {
        let e = want
            .entry((s.server_name.clone(), s.script_name.clone()))
            .or_insert((String::new(), 0u64));
        e.0 = e.0.clone().max(s.hostname.clone());
        e.1 += 1;
    }
    let got: Vec<((String, String), (String, u64))> = errors[1..]
        .iter()
        .map(|r| {
            (
                (r[0].clone(), r[1].clone()),
                (r[3].clone(), f(&r[4]) as u64),
            )
        })
        .collect();
    assert_eq!(got, want.into_iter().collect::<Vec<_>>());
    // Per server and host: the 90th percentile of req_time as Pinboard's correlated subquery
    // takes it (`ORDER BY … DESC LIMIT cnt * (1 - 0.90), 1`), and the maximum.
    let (server, host) = (&sent[0].server_name, &sent[0].hostname);
    let mut times: Vec<f32> = sent
        .iter()
        .filter(|s| &s.server_name == server && &s.hostname == host)
        .map(|s| s.request_time)
        .collect();
    let cnt = times.len();
    times.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let offset = (cnt as f64 * (1.0 - 0.90)) as usize;
    let now = "2026-11-25 12:00:00";
    let p = sql(
        &d,
        &format!(
            "
                SELECT
                    \"{server}\" AS server_name,
                    \"{host}\" AS hostname,
                    
            (
                SELECT
                    r.req_time
                FROM
                    request r
                WHERE
                    r.server_name = r2.server_name AND r.hostname = r2.hostname
                ORDER BY
                    r.req_time DESC LIMIT {offset}, 1
            )
            as req_time_90
        ,
                    max(req_time) as req_time_100,
                    '{now}'
                FROM
                    request r2
                WHERE
                    r2.server_name = \"{server}\" and r2.hostname = \"{host}\"
            "
        ),
    );
    assert_eq!(p[1][0], *server);
    assert!(
        (f(&p[1][2]) - times[offset] as f64).abs() < 1e-6,
        "{p:?} vs {}",
        times[offset]
    );
    assert!((f(&p[1][3]) - times[0] as f64).abs() < 1e-6, "{p:?}");
    assert_eq!(p[1][4], now);
    // The slowest request per script, by ROW_NUMBER() over a partition.
    let slow = sql(
        &d,
        &format!(
            "
                SELECT
                    request_id, server_name, hostname, script_name, req_time, mem_peak_usage, tags, tags_cnt, timers_cnt, created_at
                FROM
                    (
                        SELECT
                            r.id AS request_id,
                            LEFT(r.server_name, 64) AS server_name,
                            LEFT(r.hostname, 32) AS hostname,
                            LEFT(r.script_name, 128) AS script_name,
                            r.req_time,
                            r.mem_peak_usage,
                            LEFT(r.tags, 1024) AS tags,
                            r.tags_cnt,
                            r.timers_cnt,
                            FROM_UNIXTIME(r.timestamp) AS created_at,
                            ROW_NUMBER() OVER (
                                PARTITION BY r.server_name, r.hostname, r.script_name
                                ORDER BY r.req_time DESC, r.timestamp DESC, r.id DESC
                            ) AS rn
                        FROM
                            request r
                        WHERE
                            r.server_name = \"{server}\" AND r.hostname = \"{host}\" AND r.req_time > 1
                    ) ranked_request
                WHERE
                    rn = 1
                ORDER BY
                    req_time DESC
                LIMIT
                    10
            "
        ),
    );
    let mut best = std::collections::BTreeMap::new();
    for s in sent
        .iter()
        .filter(|s| &s.server_name == server && &s.hostname == host && s.request_time > 1.0)
    {
        let e = best.entry(s.script_name.clone()).or_insert(0f32);
        *e = e.max(s.request_time);
    }
    let mut want: Vec<(String, f32)> = best.into_iter().collect();
    want.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    want.truncate(10);
    let got: Vec<(String, f32)> = slow[1..]
        .iter()
        .map(|r| (r[3].clone(), f(&r[4]) as f32))
        .collect();
    assert_eq!(got, want);
    // Its timers by group and server: Pinboard's migration (Version20260309173000.php) makes
    // the table; its job copies it with this SELECT.
    sql(
        &d,
        "
            CREATE TABLE `ipm_pinba_tag_info_group_server_name` (
                `tag1_value` varchar(64) DEFAULT NULL,
                `tag2_value` varchar(64) DEFAULT NULL,
                `req_count` int(11) DEFAULT NULL,
                `req_per_sec` float DEFAULT NULL,
                `hit_count` int(11) DEFAULT NULL,
                `hit_per_sec` float DEFAULT NULL,
                `timer_value` float DEFAULT NULL,
                `timer_median` float DEFAULT NULL,
                `ru_utime_value` float DEFAULT NULL,
                `ru_stime_value` float DEFAULT NULL,
                `index_value` varchar(256) DEFAULT NULL,
                `p90` float DEFAULT NULL,
                `p95` float DEFAULT NULL,
                `p99` float DEFAULT NULL
            ) ENGINE=PINBA DEFAULT CHARSET=latin1 COMMENT='tagN_info:group,__server_name::90,95,99'
        ",
    );
    let groups = sql(
        &d,
        "
            SELECT
                    LEFT(tag1_value, 64), LEFT(tag2_value, 64), req_count, req_per_sec, hit_count,
                    hit_per_sec, timer_value, timer_median, ru_utime_value, ru_stime_value, p90, p95, p99, '2026-11-25 12:00:00'
            FROM
                ipm_pinba_tag_info_group_server_name;
        ",
    );
    let mut want = std::collections::BTreeMap::new();
    for s in &sent {
        for (hits, _, _, _, tags) in &s.timers {
            *want
                .entry((tags[0].1.clone(), s.server_name.clone()))
                .or_insert(0u64) += *hits as u64;
        }
    }
    let mut got: Vec<((String, String), u64)> = groups[1..]
        .iter()
        .map(|r| ((r[0].clone(), r[1].clone()), f(&r[4]) as u64))
        .collect();
    got.sort();
    assert_eq!(got, want.into_iter().collect::<Vec<_>>());
    // The report Pinboard's DDL made, read with its safe-percentile CASE expression.
    let hosts = sql(
        &d,
        "SELECT req_count, hostname, CASE
                WHEN TRIM(CONVERT(p90, CHAR)) REGEXP '^[-+]?[0-9]*\\\\.?[0-9]+([eE][-+]?[0-9]+)?$'
                    AND ABS(CAST(TRIM(CONVERT(p90, CHAR)) AS DOUBLE)) < 3.0e38
                    THEN LEAST(
                        GREATEST(CAST(TRIM(CONVERT(p90, CHAR)) AS DOUBLE), -1.7976931348623157e308),
                        1.7976931348623157e308
                    )
                ELSE NULL
            END AS p90 FROM ipm_pinba_report_by_hostname_90_95_99 ORDER BY hostname",
    );
    let got: Vec<(String, u64)> = hosts[1..]
        .iter()
        .map(|r| (r[1].clone(), f(&r[0]) as u64))
        .collect();
    assert_eq!(
        got,
        [("h0".into(), 100), ("h1".into(), 100), ("h2".into(), 100)]
    );
    assert!(hosts[1..].iter().all(|r| f(&r[2]) > 0.0), "{hosts:?}");
}

/// A client that sends half a packet and then nothing holds neither a stop nor other sessions up.
#[test]
fn a_half_sent_packet_never_blocks_the_stop() {
    use std::io::Write;
    let d = Daemon::start("");
    let mysql = d.mysql.expect("SQL on");
    let mut half = std::net::TcpStream::connect(mysql).unwrap();
    // A packet header announcing 100 bytes, and 3 of them.
    half.write_all(&[100, 0, 0, 1, 0x85, 0xa6]).unwrap();
    let mut idle = std::net::TcpStream::connect(mysql).unwrap();
    idle.write_all(&[]).unwrap();
    d.wait_for(
        |d| d.status()["mysql"]["current_sessions"] == 2,
        "both sessions open",
    );
    let status = d.terminate(std::time::Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
}

/// Every report table holds what the HTTP API answers for the report, in pinba_engine's columns
/// and units: a request report, a built-in with two keys, `info`, a timer-tag report and a
/// request-tag report (sizes in KB, times in seconds; the `*_per_sec` columns against the window
/// as it was at each query).
#[test]
fn every_report_table_equals_the_http_answer() {
    let Some((d, _)) = with_mariadb(
        "[[report]]\nname = \"by_group\"\nkeys = [\"timer_tag:group\"]\n\
         [[report]]\nname = \"by_country\"\nkeys = [\"tag:country\"]\n",
        250,
    ) else {
        return;
    };
    // (SQL column, HTTP column, scale) of each kind of table.
    const KB: f64 = 1.0 / 1024.0;
    let request: &[(&str, &str, f64)] = &[
        ("req_count", "req_count", 1.0),
        ("req_time_total", "req_time_total", 1.0),
        ("req_time_percent", "req_time_percent", 1.0),
        ("ru_utime_total", "ru_utime_total", 1.0),
        ("ru_utime_percent", "ru_utime_percent", 1.0),
        ("ru_stime_total", "ru_stime_total", 1.0),
        ("traffic_total", "traffic_total", KB),
        ("traffic_percent", "traffic_percent", 1.0),
        ("memory_footprint_total", "memory_footprint_total", KB),
        ("memory_footprint_percent", "memory_footprint_percent", 1.0),
        ("req_time_median", "req_time_median", 1.0),
        ("p90", "p90", 1.0),
        ("p99", "p99", 1.0),
    ];
    let timer: &[(&str, &str, f64)] = &[
        ("req_count", "req_count", 1.0),
        ("hit_count", "hit_count", 1.0),
        ("timer_value", "timer_value", 1.0),
        ("timer_median", "timer_median", 1.0),
        ("ru_utime_value", "ru_utime_value", 1.0),
        ("p95", "p95", 1.0),
    ];
    let info: &[(&str, &str, f64)] = &[
        ("req_count", "req_count", 1.0),
        ("time_total", "req_time_total", 1.0),
        ("ru_utime_total", "ru_utime_total", 1.0),
        ("kbytes_total", "traffic_total", KB),
        ("memory_footprint", "memory_footprint_total", KB),
        ("req_time_median", "req_time_median", 1.0),
    ];
    // A FLOAT column is a 32-bit float written with six significant digits, as MySQL writes
    // one: within half a unit of the sixth digit (5e-6 of the value), the float's own rounding
    // within that.
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9_f64.max(b.abs() * 5.1e-6);
    for (table, keys, columns, rate) in [
        (
            "report_by_script_name",
            &["script_name"][..],
            request,
            "req_per_sec",
        ),
        (
            "report_by_hostname_and_status",
            &["hostname", "status"][..],
            request,
            "req_per_sec",
        ),
        ("by_group", &["group"][..], timer, "hit_per_sec"),
        ("by_country", &["country"][..], request, "req_per_sec"),
        ("info", &[][..], info, ""),
    ] {
        let http = d.json(&format!("/api/v1/reports/{table}?limit=1000"));
        let http_rows: Vec<Value> = if keys.is_empty() {
            vec![http["totals"].clone()]
        } else {
            http["rows"].as_array().unwrap().clone()
        };
        let mut select: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
        select.extend(columns.iter().map(|(c, _, _)| format!("`{c}`")));
        if !rate.is_empty() {
            select.push(format!("`{rate}`"));
        }
        let order = if keys.is_empty() {
            String::new()
        } else {
            format!(" ORDER BY {}", select[..keys.len()].join(", "))
        };
        let rows = sql(
            &d,
            &format!("SELECT {} FROM `{table}`{order}", select.join(", ")),
        );
        assert_eq!(rows.len() - 1, http_rows.len(), "{table}: {rows:?}");
        for row in &rows[1..] {
            let key: Vec<&str> = row[..keys.len()].iter().map(String::as_str).collect();
            let want = http_rows
                .iter()
                .find(|r| {
                    keys.iter().zip(&key).all(|(k, v)| match &r[*k] {
                        Value::String(s) => s == v,
                        // A number or a null as the SQL side prints it.
                        other => {
                            let shown = other.to_string();
                            shown == *v
                        }
                    })
                })
                .unwrap_or_else(|| panic!("{table}: no HTTP row {key:?}"));
            for (i, (sql_col, http_col, scale)) in columns.iter().enumerate() {
                let got = &row[keys.len() + i];
                match want[*http_col].as_f64() {
                    Some(w) => assert!(
                        close(f(got), w * scale),
                        "{table} {key:?} {sql_col}: {got} vs {w} × {scale}"
                    ),
                    None => assert_eq!(got, "NULL", "{table} {key:?} {sql_col}"),
                }
            }
            if !rate.is_empty() {
                // The window moved between the two queries: the rate against the count only.
                let (count_col, _, _) = columns[if rate == "hit_per_sec" { 1 } else { 0 }];
                let i = columns
                    .iter()
                    .position(|(c, _, _)| *c == count_col)
                    .unwrap();
                let sql_ratio = f(&row[keys.len() + columns.len()]) / f(&row[keys.len() + i]);
                let http_ratio = want[rate].as_f64().unwrap() / want[count_col].as_f64().unwrap();
                assert!(
                    (sql_ratio / http_ratio - 1.0).abs() < 0.2,
                    "{table} {key:?} {rate}: {sql_ratio} vs {http_ratio}"
                );
            }
        }
    }
}

/// The Grafana queries of docs/sql.md run, with the macros expanded as Grafana's MySQL data source
/// expands them.
#[test]
fn the_documented_grafana_queries_run() {
    let Some((d, sent)) = with_mariadb("", 100) else {
        return;
    };
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sql.md")).unwrap();
    let from = readme
        .find("**Grafana.**")
        .expect("docs/sql.md's Grafana example");
    let blocks: Vec<&str> = readme[from..]
        .split("```sql\n")
        .skip(1)
        .take(2)
        .map(|b| &b[..b.find("```").unwrap()])
        .collect();
    assert_eq!(blocks.len(), 2);
    let table = sql(&d, blocks[0]);
    assert_eq!(
        table[0],
        [
            "script_name",
            "req_per_sec",
            "req_time_median",
            "p95",
            "p99"
        ]
    );
    assert_eq!(table.len() - 1, 4, "{table:?}");
    let series = sql(
        &d,
        &blocks[1]
            .replace(
                "$__unixEpochGroupAlias(timestamp, '10s')",
                "floor(timestamp/10)*10 AS \"time\"",
            )
            .replace(
                "$__unixEpochFilter(timestamp)",
                "timestamp >= 1500000000 AND timestamp <= 4102444800",
            ),
    );
    assert_eq!(series[0], ["time", "requests", "errors"]);
    let requests: u64 = series[1..].iter().map(|r| f(&r[1]) as u64).sum();
    let errors: u64 = series[1..].iter().map(|r| f(&r[2]) as u64).sum();
    assert_eq!(requests, 100);
    assert_eq!(
        errors,
        sent.iter().filter(|s| s.status >= 500).count() as u64
    );
}

/// A MySQL client speaking the protocol itself, for what the real clients cannot be made to do
/// (stop half-way through a handshake, send bytes that are not UTF-8, stop reading): the
/// handshake (mysql_native_password), `COM_QUERY` and its text result set.
pub(crate) struct Wire {
    stream: std::net::TcpStream,
    salt: Vec<u8>,
}

/// A MySQL error: its code and message.
pub(crate) type MysqlError = (u16, String);

impl Wire {
    /// Connects and reads the server's greeting.
    pub(crate) fn connect(addr: std::net::SocketAddr) -> Result<Wire, MysqlError> {
        let stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        let mut wire = Wire {
            stream,
            salt: Vec::new(),
        };
        let (_, greeting) = wire.read_packet().expect("a greeting");
        if greeting[0] == 0xff {
            return Err(error_of(&greeting));
        }
        // protocol 10, version\0, id (4), salt part 1 (8), filler, capabilities (2), charset,
        // status (2), capabilities (2), salt length, 10 reserved, salt part 2 (12) \0, plugin.
        let version_end = 1 + greeting[1..].iter().position(|&b| b == 0).unwrap();
        let p = version_end + 1 + 4;
        let mut salt = greeting[p..p + 8].to_vec();
        let q = p + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
        salt.extend_from_slice(&greeting[q..q + 12]);
        wire.salt = salt;
        Ok(wire)
    }

    /// Connects and logs in.
    pub(crate) fn login(
        addr: std::net::SocketAddr,
        user: &str,
        password: Option<&str>,
    ) -> Result<Wire, MysqlError> {
        let mut wire = Wire::connect(addr)?;
        wire.handshake(user, password)?;
        Ok(wire)
    }

    /// Connects and logs in naming collation `id` as its character set (45
    /// utf8mb4_general_ci, 33 utf8mb3_general_ci).
    pub(crate) fn login_as(
        addr: std::net::SocketAddr,
        user: &str,
        collation: u8,
    ) -> Result<Wire, MysqlError> {
        let mut wire = Wire::connect(addr)?;
        wire.handshake_as(user, None, collation)?;
        Ok(wire)
    }

    fn handshake(&mut self, user: &str, password: Option<&str>) -> Result<(), MysqlError> {
        self.handshake_as(user, password, 45)
    }

    fn handshake_as(
        &mut self,
        user: &str,
        password: Option<&str>,
        collation: u8,
    ) -> Result<(), MysqlError> {
        // CLIENT_LONG_PASSWORD | PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH
        let caps: u32 = 0x1 | 0x200 | 0x8000 | 0x80000;
        let mut p = caps.to_le_bytes().to_vec();
        p.extend_from_slice(&(16u32 << 20).to_le_bytes());
        p.push(collation);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(user.as_bytes());
        p.push(0);
        let auth = password
            .and_then(|pw| mysql_common::scramble::scramble_native(&self.salt, pw.as_bytes()))
            .map(|s| s.to_vec())
            .unwrap_or_default();
        p.push(auth.len() as u8);
        p.extend_from_slice(&auth);
        p.extend_from_slice(b"mysql_native_password\0");
        self.write_packet(1, &p);
        let (_, answer) = self.read_packet().expect("an answer to the login");
        match answer[0] {
            0x00 => Ok(()),
            0xff => Err(error_of(&answer)),
            other => panic!("unexpected login answer {other:#x}"),
        }
    }

    fn write_packet(&mut self, seq: u8, payload: &[u8]) {
        use std::io::Write;
        let len = (payload.len() as u32).to_le_bytes();
        let mut packet = vec![len[0], len[1], len[2], seq];
        packet.extend_from_slice(payload);
        self.stream.write_all(&packet).unwrap();
    }

    /// The next packet, `None` when the server closed the connection.
    pub(crate) fn read_packet(&mut self) -> Option<(u8, Vec<u8>)> {
        use std::io::Read;
        let mut header = [0u8; 4];
        self.stream.read_exact(&mut header).ok()?;
        let len = header[0] as usize | (header[1] as usize) << 8 | (header[2] as usize) << 16;
        let mut payload = vec![0; len];
        self.stream.read_exact(&mut payload).ok()?;
        Some((header[3], payload))
    }

    /// Whether the server closes the connection (within the read timeout), reading past
    /// anything it still sends.
    pub(crate) fn closed(&mut self) -> bool {
        use std::io::Read;
        let mut buf = [0u8; 4096];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) => return e.kind() == std::io::ErrorKind::ConnectionReset,
            }
        }
    }

    /// Sends `sql` (any bytes) as COM_QUERY without reading the answer.
    pub(crate) fn send_query(&mut self, sql: &[u8]) {
        let mut p = vec![0x03];
        p.extend_from_slice(sql);
        if p.len() < 0xff_ffff {
            self.write_packet(0, &p);
            return;
        }
        let mut seq = 0u8;
        for chunk in p.chunks(0xff_ffff) {
            self.write_packet(seq, chunk);
            seq = seq.wrapping_add(1);
        }
        if p.len() % 0xff_ffff == 0 {
            self.write_packet(seq, &[]);
        }
    }

    /// `sql`'s rows (each value as text, NULL as None), or its error.
    pub(crate) fn query(&mut self, sql: &[u8]) -> Result<Vec<Vec<Option<String>>>, MysqlError> {
        self.send_query(sql);
        self.text_result()
    }

    /// The next answer, read as a text result set: its rows, or its error.
    pub(crate) fn text_result(&mut self) -> Result<Vec<Vec<Option<String>>>, MysqlError> {
        let (_, first) = self.read_packet().expect("an answer");
        match first[0] {
            0x00 => return Ok(Vec::new()),
            0xff => return Err(error_of(&first)),
            _ => {}
        }
        let columns = first[0] as usize;
        for _ in 0..columns {
            self.read_packet().expect("a column");
        }
        let (_, eof) = self.read_packet().expect("the columns' end");
        assert_eq!(eof[0], 0xfe);
        let mut rows = Vec::new();
        loop {
            let (_, row) = self.read_packet().expect("a row");
            if row[0] == 0xfe && row.len() < 9 {
                return Ok(rows);
            }
            if row[0] == 0xff {
                return Err(error_of(&row));
            }
            let mut values = Vec::new();
            let mut i = 0;
            while i < row.len() {
                if row[i] == 0xfb {
                    values.push(None);
                    i += 1;
                    continue;
                }
                let (len, skip) = match row[i] {
                    0xfc => (u16::from_le_bytes([row[i + 1], row[i + 2]]) as usize, 3),
                    0xfd => (
                        u32::from_le_bytes([row[i + 1], row[i + 2], row[i + 3], 0]) as usize,
                        4,
                    ),
                    n => (n as usize, 1),
                };
                i += skip;
                values.push(Some(String::from_utf8_lossy(&row[i..i + len]).into_owned()));
                i += len;
            }
            rows.push(values);
        }
    }

    /// `sql`'s one value, panicking on an error.
    pub(crate) fn value(&mut self, sql: &str) -> String {
        let rows = self
            .query(sql.as_bytes())
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        rows[0][0].clone().unwrap_or_default()
    }
}

pub(crate) fn error_of(packet: &[u8]) -> MysqlError {
    let code = u16::from_le_bytes([packet[1], packet[2]]);
    let text = if packet.get(3) == Some(&b'#') {
        &packet[9..]
    } else {
        &packet[3..]
    };
    (code, String::from_utf8_lossy(text).into_owned())
}

/// A statement that runs for a while (a few hundred ms on a busy machine) and answers 1.
const SLOWISH: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \
                       400000) SELECT COUNT(*) >= 400000 FROM c";

/// Twelve statements at once (a Grafana dashboard) over two slots all answer: they wait for a
/// slot in the queue; one beyond the queue's bound is refused at once with 1203. And SQL's
/// slots are its own: while they are all taken, an HTTP report query answers.
#[test]
fn statements_wait_for_sql_slots_of_their_own() {
    let d = loaded(
        "[http]\nmax_concurrent_queries = 1\n[mysql]\nmax_concurrent_queries = 2\n\
         max_queued_queries = 10\nmax_query_time = \"60s\"\n",
        &traffic(50),
    );
    let mysql = d.mysql.unwrap();
    let start = std::sync::Arc::new(std::sync::Barrier::new(12));
    let clients: Vec<_> = (0..12)
        .map(|_| {
            let start = std::sync::Arc::clone(&start);
            std::thread::spawn(move || {
                let mut c = Wire::login(mysql, "grafana", None).unwrap();
                start.wait();
                c.query(SLOWISH.as_bytes())
            })
        })
        .collect();
    let answers: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    for a in &answers {
        assert_eq!(a, &Ok(vec![vec![Some("1".to_string())]]), "{answers:?}");
    }
    let status = d.status();
    assert_eq!(status["mysql"]["busy"], 0, "{status}");

    // Two statements hold both slots for seconds; ten more wait; the thirteenth is refused,
    // and HTTP's one slot is free throughout.
    let long = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
                SELECT COUNT(*) FROM c";
    let statements = d.status()["mysql"]["statements"].as_u64().unwrap();
    let mut waiting: Vec<Wire> = (0..12)
        .map(|_| Wire::login(mysql, "grafana", None).unwrap())
        .collect();
    for c in &mut waiting {
        c.send_query(long.as_bytes());
    }
    // Two running and ten in the queue (a statement is counted before it reaches the queue).
    d.wait_for(
        |d| {
            let s = d.status();
            s["mysql"]["statements"].as_u64().unwrap() == statements + 12
                && s["mysql"]["queued"] == 10
        },
        "two statements running and ten waiting",
    );
    let (code, body) = d.get("/api/v1/reports/report_by_script_name?limit=10");
    assert_eq!(code, 200, "HTTP waits for no SQL slot: {body}");
    let mut thirteenth = Wire::login(mysql, "grafana", None).unwrap();
    let refused = thirteenth.query(b"SELECT 1").unwrap_err();
    assert_eq!(refused.0, 1203, "{refused:?}");
    assert!(refused.1.contains("max_queued_queries"), "{refused:?}");
}

/// The daemon's peak resident memory (VmHWM), in bytes.
pub(crate) fn peak_rss(d: &Daemon) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", d.child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib << 10
}

/// A statement longer than `max_allowed_packet` gets 1153 and is never held whole (peak memory
/// grows far less than its size); one that is not UTF-8 gets 1300; the session goes on after
/// both. `@@max_allowed_packet` says the bound, and no value a statement makes may pass it.
#[test]
fn oversized_and_non_utf8_statements_get_errors_and_the_session_goes_on() {
    let d = Daemon::start("[mysql]\nmax_allowed_packet = \"64KiB\"\n");
    let mut c = Wire::login(d.mysql.unwrap(), "u", None).unwrap();
    assert_eq!(c.value("SELECT @@max_allowed_packet"), "65536");
    assert_eq!(c.value("select @@max_allowed_packet"), "65536");

    let before = peak_rss(&d);
    let mut huge = b"SELECT '".to_vec();
    huge.resize(64 << 20, b'x');
    huge.extend_from_slice(b"'");
    let (code, msg) = c.query(&huge).unwrap_err();
    assert_eq!(code, 1153, "{msg}");
    assert!(msg.contains("max_allowed_packet"), "{msg}");
    let grown = peak_rss(&d).saturating_sub(before);
    assert!(
        grown < 32 << 20,
        "a 64 MiB statement grew the peak memory by {grown} bytes"
    );
    assert_eq!(c.value("SELECT 1"), "1");

    let (code, msg) = c.query(b"SELECT 'caf\xe9'").unwrap_err();
    assert_eq!(code, 1300, "{msg}");
    assert!(msg.contains("utf8mb4"), "{msg}");
    assert_eq!(c.value("SELECT 2"), "2");

    let (code, msg) = c.query(b"SELECT LENGTH(REPEAT('x', 100000))").unwrap_err();
    assert_eq!(code, 1105, "{msg}");
    assert!(msg.contains("max_allowed_packet"), "{msg}");
    assert_eq!(c.value("SELECT LENGTH(REPEAT('x', 60000))"), "60000");
}

/// A connection that never logs in is closed after `handshake_timeout`, so half-open ones that
/// fill `max_connections` lock a new client out only that long; a session that sends nothing is
/// closed after `wait_timeout`, which `@@wait_timeout` says.
#[test]
fn half_open_and_idle_connections_are_closed() {
    let d = Daemon::start(
        "[mysql]\nmax_connections = 3\nhandshake_timeout = \"500ms\"\nwait_timeout = \"2s\"\n",
    );
    let mysql = d.mysql.unwrap();
    let mut half_open: Vec<Wire> = (0..3).map(|_| Wire::connect(mysql).unwrap()).collect();
    // Refused while they are open (unless they were closed already on a busy machine).
    if let Err((code, _)) = Wire::connect(mysql) {
        assert_eq!(code, 1040);
    }
    for c in &mut half_open {
        assert!(c.closed(), "a half-open connection is closed");
    }
    d.wait_for(
        |d| d.status()["mysql"]["current_sessions"] == 0,
        "the half-open sessions gone",
    );
    let mut c = Wire::login(mysql, "u", None).expect("a new client logs in");
    assert_eq!(c.value("SELECT @@wait_timeout"), "2");
    let idle = std::time::Instant::now();
    assert!(c.closed(), "an idle session is closed");
    assert!(
        idle.elapsed() >= std::time::Duration::from_millis(1900),
        "closed after {:?}, before wait_timeout",
        idle.elapsed()
    );
    // A session that keeps talking stays.
    let mut busy = Wire::login(mysql, "u", None).unwrap();
    for i in 0..4 {
        assert_eq!(busy.value(&format!("SELECT {i}")), i.to_string());
        std::thread::sleep(std::time::Duration::from_millis(700));
    }
}

/// A wrong password gets MySQL's 1045 with MySQL's text, later each time from one address
/// (100 ms, 200 ms, 400 ms, …), and a warning naming the client and the user (never the
/// password); the right one logs in.
#[test]
fn wrong_passwords_get_1045_slower_each_time_and_a_log_line() {
    let d = Daemon::start_logged(
        "[mysql]\nuser = \"pinba\"\npassword = \"s3cret\"\n",
        "pinbad=info",
    );
    let mysql = d.mysql.unwrap();
    let mut took = Vec::new();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let (code, msg) = Wire::login(mysql, "pinba", Some("guess")).err().unwrap();
        took.push(t.elapsed());
        assert_eq!(code, 1045, "{msg}");
        assert_eq!(
            msg,
            "Access denied for user 'pinba'@'127.0.0.1' (using password: YES)"
        );
    }
    assert!(took[0] >= std::time::Duration::from_millis(100), "{took:?}");
    assert!(took[2] >= std::time::Duration::from_millis(400), "{took:?}");
    let line = d.wait_log("SQL login refused");
    assert!(
        line.contains("127.0.0.1") && line.contains("pinba"),
        "{line}"
    );
    assert!(d
        .logs()
        .iter()
        .all(|l| !l.contains("guess") && !l.contains("s3cret")));
    let mut c = Wire::login(mysql, "pinba", Some("s3cret")).expect("the right password");
    assert_eq!(c.value("SELECT 1"), "1");
}

/// A client that sends a statement with a large result and never reads it holds its slot only
/// until `max_query_time`: another statement gets the one slot after that.
#[test]
fn a_client_that_stops_reading_frees_its_slot_at_max_query_time() {
    let d = Daemon::start("[mysql]\nmax_concurrent_queries = 1\nmax_query_time = \"1s\"\n");
    let mysql = d.mysql.unwrap();
    let mut stuck = Wire::login(mysql, "u", None).unwrap();
    stuck.send_query(
        b"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
          SELECT x, REPEAT('00', 2000) FROM c",
    );
    d.wait_for(
        |d| d.status()["mysql"]["statements"] == 1,
        "the statement that is never read running",
    );
    // Its rows fill the socket's buffers (megabytes) long before its deadline.
    let mut other = Wire::login(mysql, "u", None).unwrap();
    let t = std::time::Instant::now();
    let answered = loop {
        match other.query(b"SELECT 42") {
            Ok(rows) => break rows,
            Err((1317, _)) if t.elapsed() < std::time::Duration::from_secs(30) => continue,
            Err(e) => panic!("the slot never freed: {e:?} after {:?}", t.elapsed()),
        }
    };
    assert_eq!(answered, vec![vec![Some("42".to_string())]]);
    // The slot is freed as the statement is killed. Where its rows had filled the socket's
    // buffers (the write still blocked at the deadline) the session is closed; where a busy
    // machine ran it too slowly to fill them, its answer ends in the kill's error instead.
    let t = std::time::Instant::now();
    loop {
        match stuck.read_packet() {
            Some((_, p)) if p[0] == 0xff => {
                assert_eq!(error_of(&p).0, 1317, "{:?}", error_of(&p));
                break;
            }
            Some(_) => continue,
            None => {
                assert!(
                    t.elapsed() < std::time::Duration::from_secs(50),
                    "the stuck session was neither closed nor told its statement was killed"
                );
                break;
            }
        }
    }
    let status = d.status();
    assert!(status["mysql"]["killed"].as_u64().unwrap() >= 1, "{status}");
}

/// `SHOW STATUS` `Uptime` is in seconds since the start (it was the Unix time); `SHOW ENGINES`
/// and `information_schema.ENGINES` name the engine the tables show (`PINBA`).
#[test]
fn uptime_and_engines_answer_as_mysql_does() {
    let d = Daemon::start("");
    let mut c = Wire::login(d.mysql.unwrap(), "u", None).unwrap();
    let rows = c.query(b"SHOW STATUS LIKE 'Uptime'").unwrap();
    let uptime: u64 = rows[0][1].clone().unwrap().parse().unwrap();
    assert!(uptime < 3600, "Uptime {uptime}");
    let engines = c.query(b"SHOW ENGINES").unwrap();
    assert_eq!(engines.len(), 1, "{engines:?}");
    assert_eq!(engines[0][0].as_deref(), Some("PINBA"));
    assert_eq!(engines[0][1].as_deref(), Some("DEFAULT"));
    assert_eq!(
        c.value("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_NAME = 'request'"),
        "PINBA"
    );
    assert_eq!(
        c.value("SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'pinba'"),
        "DEFAULT"
    );
}

/// A session's `SET`s act on its later statements and on no other session's; what GUI clients
/// send at connect answers (`SHOW PROCESSLIST` lists the real sessions, `SHOW … WHERE` filters,
/// executable comments run); refusals are MySQL's errors, never SQLite's words.
#[test]
fn session_variables_act_and_connect_chatter_answers() {
    let d = Daemon::start("");
    let addr = d.mysql.unwrap();
    let mut a = Wire::login(addr, "alice", None).unwrap();
    let mut b = Wire::login(addr, "bob", None).unwrap();
    assert_eq!(
        a.query(b"SET time_zone = '+05:00', @x = 2 * 21")
            .unwrap()
            .len(),
        0
    );
    assert_eq!(a.value("SELECT FROM_UNIXTIME(0)"), "1970-01-01 05:00:00");
    assert_eq!(b.value("SELECT FROM_UNIXTIME(0)"), "1970-01-01 00:00:00");
    assert_eq!(a.value("SELECT @x + 1"), "43");
    assert_eq!(b.query(b"SELECT @x").unwrap(), vec![vec![None]]);
    assert_eq!(a.value("SELECT @@time_zone"), "+05:00");
    let (code, msg) = a.query(b"SET time_zone = 'Mars/Olympus'").unwrap_err();
    assert_eq!(code, 1298, "{msg}");
    let (code, msg) = a.query(b"SET no_such_variable = 1").unwrap_err();
    assert_eq!(
        (code, msg.as_str()),
        (1193, "Unknown system variable 'no_such_variable'")
    );
    // Executable comments run; a later version's does not.
    a.query(b"/*!40101 SET @y = 7 */").unwrap();
    a.query(b"/*!99999 SET @y = 8 */").unwrap_err();
    assert_eq!(a.value("SELECT @y"), "7");
    // The real sessions, each with what it runs.
    // Bob's last answer reaches him just before his session is marked asleep (as in MySQL):
    // wait for that, with a deadline.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let list = loop {
        let list = a.query(b"SHOW FULL PROCESSLIST").unwrap();
        let bob_sleeps = list
            .iter()
            .any(|r| r[1].as_deref() == Some("bob") && r[4].as_deref() == Some("Sleep"));
        if bob_sleeps || std::time::Instant::now() > deadline {
            break list;
        }
        std::thread::yield_now();
    };
    let users: Vec<&str> = list.iter().filter_map(|r| r[1].as_deref()).collect();
    assert!(
        users.contains(&"alice") && users.contains(&"bob"),
        "{list:?}"
    );
    let mine = list
        .iter()
        .find(|r| r[1].as_deref() == Some("alice"))
        .unwrap();
    assert_eq!(mine[4].as_deref(), Some("Query"), "{mine:?}");
    assert_eq!(
        mine[7].as_deref(),
        Some("SHOW FULL PROCESSLIST"),
        "{mine:?}"
    );
    let theirs = list
        .iter()
        .find(|r| r[1].as_deref() == Some("bob"))
        .unwrap();
    assert_eq!(
        (theirs[4].as_deref(), &theirs[7]),
        (Some("Sleep"), &None),
        "{theirs:?}"
    );
    drop(b);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while a.query(b"SHOW PROCESSLIST").unwrap().len() > 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "bob's session is still listed"
        );
        std::thread::yield_now();
    }
    let rows = a
        .query(b"SHOW VARIABLES WHERE Variable_name = 'time_zone' OR Variable_name LIKE 'sql_sel%'")
        .unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(a
        .query(b"SHOW FULL TABLES WHERE Table_type = 'VIEW'")
        .unwrap()
        .is_empty());
    assert_eq!(
        a.query(b"SHOW COLLATION LIKE 'utf8mb4_bin'").unwrap().len(),
        1
    );
    // The character set a client logs in with is the session's, as `SET NAMES` would make it:
    // the `mysql` client's utf8mb3 makes literals utf8mb3 (and `COLLATE utf8mb4_bin` of one
    // MariaDB's 1253); utf8mb4's is the default.
    let mut mb3 = Wire::login_as(addr, "grafana", 33).unwrap();
    assert_eq!(mb3.value("SELECT CHARSET('a')"), "utf8mb3");
    assert_eq!(
        mb3.value("SELECT @@collation_connection"),
        "utf8mb3_general_ci"
    );
    assert!(matches!(
        mb3.query(b"SELECT 'a' COLLATE utf8mb4_bin"),
        Err((1253, _))
    ));
    let mut mb4 = Wire::login_as(addr, "grafana", 45).unwrap();
    assert_eq!(mb4.value("SELECT CHARSET('a')"), "utf8mb4");
    assert_eq!(
        a.value("SELECT COUNT(*) FROM information_schema.ROUTINES"),
        "0"
    );
    // A fault SQLite finds is MySQL's error, in MySQL's words.
    let (code, msg) = a.query(b"SELECT COUNT(COUNT(*)) FROM request").unwrap_err();
    assert_eq!(
        (code, msg.as_str()),
        (1111, "Invalid use of group function")
    );
    let (code, msg) = a.query(b"SELECT 1 FROM request ORDER BY 3").unwrap_err();
    assert!(
        code == 1054 && msg.ends_with("in 'order clause'"),
        "{code} {msg}"
    );
}

/// Server-side prepared statements with the real clients: mysqli's `prepare()`/`bind_param()`
/// (binary protocol rows read by `get_result()` and by `bind_result()`), PDO with
/// `ATTR_EMULATE_PREPARES` off (named and positional parameters, a string parameter carrying a
/// quote that must stay a value). Every answer equals the same statement sent as a query (and
/// the HTTP API's numbers), a DECIMAL's text and a temporal's type included; an unknown statement id and a statement with an error get MySQL's
/// errors at prepare.
#[test]
fn prepared_statements_answer_as_the_same_query_does() {
    let php_ok = have(
        "PHP with pdo_mysql and mysqli",
        "php",
        &[
            "-r",
            "exit(extension_loaded('pdo_mysql') && extension_loaded('mysqli') ? 0 : 1);",
        ],
    );
    if !php_ok {
        return;
    }
    let d = loaded("", &traffic(300));
    let port = d.mysql.unwrap().port();
    let want = http_script_counts(&d);
    assert_eq!(want.len(), 4);
    let php = format!(
        r#"
mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
$m = new mysqli("127.0.0.1", "php", "", "pinba", {port});
$q = "SELECT script_name, req_count FROM report_by_script_name WHERE req_count >= ? AND script_name <> ? ORDER BY script_name";
$st = $m->prepare($q);
$min = 1; $not = "x' OR '1'='1";
$st->bind_param("is", $min, $not);
$st->execute();
$prepared = $st->get_result()->fetch_all(MYSQLI_NUM);
$st->execute();
$st->bind_result($name, $count);
$bound = [];
while ($st->fetch()) {{ $bound[] = [$name, $count]; }}
$st->close();
$text = $m->query("SELECT script_name, req_count FROM report_by_script_name WHERE req_count >= 1 AND script_name <> 'x'' OR ''1''=''1' ORDER BY script_name")->fetch_all(MYSQLI_NUM);
$agg = $m->prepare("SELECT COUNT(*), SUM(req_time), MAX(status), AVG(status), 7 / 2 FROM request WHERE status = ? OR script_name = ?");
$status = 500; $script = "/s1.php";
$agg->bind_param("is", $status, $script);
$agg->execute();
$agg_rows = $agg->get_result()->fetch_all(MYSQLI_NUM);
$agg_text = $m->query("SELECT COUNT(*), SUM(req_time), MAX(status), AVG(status), 7 / 2 FROM request WHERE status = 500 OR script_name = '/s1.php'")->fetch_all(MYSQLI_NUM);
$tq = "SELECT FROM_UNIXTIME(?), DATE('2024-03-05'), TIMEDIFF('10:00:00', '12:30:15'), STR_TO_DATE('5/3/2024 10:20:30', '%e/%c/%Y %H:%i:%s'), CURDATE() = DATE(NOW())";
$ts = $m->prepare($tq);
$day = 86400;
$ts->bind_param("i", $day);
$ts->execute();
$tr = $ts->get_result();
$temporal = $tr->fetch_all(MYSQLI_NUM);
$temporal_types = array_map(fn($f) => $f->type, $tr->fetch_fields());
$tt = $m->query(str_replace("?", "86400", $tq));
$temporal_text = $tt->fetch_all(MYSQLI_NUM);
$temporal_text_types = array_map(fn($f) => $f->type, $tt->fetch_fields());
try {{ $m->prepare("SELECT * FROM nope WHERE a = ?"); $bad = "no error"; }}
catch (mysqli_sql_exception $e) {{ $bad = $e->getCode(); }}
$bad_kept = $m->query("SHOW ERRORS")->fetch_all(MYSQLI_NUM);
$bad_count = $m->query("SELECT @@error_count")->fetch_all(MYSQLI_NUM);
try {{ $m->select_db("nodb"); $init = "no error"; }}
catch (mysqli_sql_exception $e) {{ $init = $e->getCode(); }}
$init_kept = $m->query("SHOW ERRORS")->fetch_all(MYSQLI_NUM);
$pdo = new PDO("mysql:host=127.0.0.1;port={port};dbname=pinba", "php", "");
$pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
$pdo->setAttribute(PDO::ATTR_EMULATE_PREPARES, false);
$ps = $pdo->prepare("SELECT script_name, req_count FROM report_by_script_name WHERE req_count >= :min ORDER BY script_name");
$ps->execute([":min" => 1]);
$pdo_rows = $ps->fetchAll(PDO::FETCH_NUM);
$cnt = $pdo->prepare("SELECT COUNT(*) FROM request WHERE script_name = ? AND status IN (?, ?)");
$cnt->execute(["/s2.php", 200, 404]);
$pdo_count = $cnt->fetchColumn();
$pdo_text = $pdo->query("SELECT COUNT(*) FROM request WHERE script_name = '/s2.php' AND status IN (200, 404)")->fetchColumn();
$lim = $pdo->prepare("SELECT script_name FROM report_by_script_name ORDER BY script_name LIMIT ? OFFSET ?");
$lim->execute(["2", "1"]);
$pdo_limit = $lim->fetchAll(PDO::FETCH_COLUMN);
$pdo->setAttribute(PDO::ATTR_EMULATE_PREPARES, true);
try {{ $e = $pdo->prepare("SELECT script_name FROM report_by_script_name LIMIT ?"); $e->execute(["2"]); $emulated = "no error"; }}
catch (PDOException $x) {{ $emulated = $x->errorInfo[1]; }}
echo json_encode(["prepared" => $prepared, "bound" => $bound, "text" => $text,
  "agg" => $agg_rows, "agg_text" => $agg_text, "bad" => $bad,
  "bad_kept" => $bad_kept, "bad_count" => $bad_count, "init" => $init, "init_kept" => $init_kept,
  "pdo" => $pdo_rows, "pdo_count" => $pdo_count, "pdo_text" => $pdo_text,
  "pdo_limit" => $pdo_limit, "emulated_limit" => $emulated,
  "temporal" => $temporal, "temporal_types" => $temporal_types,
  "temporal_text" => $temporal_text, "temporal_text_types" => $temporal_text_types]);
"#
    );
    let got = php_json(&php, true);
    let pairs = |v: &Value| -> Vec<(String, u64)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap().to_string(),
                    r[1].to_string().trim_matches('"').parse().unwrap(),
                )
            })
            .collect()
    };
    for rows in ["prepared", "bound", "text", "pdo"] {
        assert_eq!(pairs(&got[rows]), want, "{rows}: {got}");
    }
    // A bound `LIMIT ? OFFSET ?` takes its parameters, strings too (server-side prepares); the
    // same written into the text as strings (PDO's emulated prepares: `LIMIT '2'`) is MySQL's
    // syntax error, as every PHP developer meets it.
    let names: Vec<&str> = want[1..3].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(got["pdo_limit"], serde_json::json!(names), "{got}");
    assert_eq!(got["emulated_limit"], 1064, "{got}");
    // The binary protocol's numbers are the text protocol's (as the clients convert them).
    let agg = &got["agg"][0];
    let agg_text = &got["agg_text"][0];
    assert_eq!(
        agg[0].to_string().trim_matches('"'),
        agg_text[0].to_string().trim_matches('"'),
        "{got}"
    );
    assert!(
        agg[0].to_string().trim_matches('"').parse::<u64>().unwrap() > 0,
        "{got}"
    );
    let sum = |v: &Value| v.to_string().trim_matches('"').parse::<f64>().unwrap();
    assert!((sum(&agg[1]) - sum(&agg_text[1])).abs() < 1e-6, "{got}");
    assert_eq!(agg[2].to_string().trim_matches('"'), "500", "{got}");
    // DECIMALs are MySQL's text in both protocols, their scale shown (`AVG` of an integer
    // column: 4 decimals; `7 / 2`: 3.5000).
    for row in [agg, agg_text] {
        let avg = row[3].as_str().unwrap_or_default();
        assert!(
            avg.split_once('.').is_some_and(|(_, d)| d.len() == 4),
            "{got}"
        );
        assert_eq!(row[4], "3.5000", "{got}");
    }
    assert_eq!(agg[3], agg_text[3], "{got}");
    assert_eq!(got["bad"], 1146, "{got}");
    // A failed prepare's error, and a failed `COM_INIT_DB`'s, are kept for `SHOW ERRORS` and
    // counted in `@@error_count`, as MySQL keeps a statement's.
    assert_eq!(got["bad_kept"][0][0], "Error", "{got}");
    assert_eq!(got["bad_kept"][0][1], "1146", "{got}");
    assert_eq!(got["bad_count"][0][0], "1", "{got}");
    assert_eq!(got["init"], 1049, "{got}");
    assert_eq!(got["init_kept"][0][1], "1049", "{got}");
    // Temporal results are declared DATETIME (12), DATE (10) and TIME (11) in both protocols,
    // the binary protocol's values MySQL's binary form that mysqlnd reads back to the same text.
    let day = got["temporal"][0][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(day.starts_with("1970-01-0") && day.len() == 19, "{got}");
    assert_eq!(got["temporal"][0][1], "2024-03-05", "{got}");
    assert_eq!(got["temporal"][0][2], "-02:30:15", "{got}");
    assert_eq!(got["temporal"][0][3], "2024-03-05 10:20:30", "{got}");
    assert_eq!(
        got["temporal"][0][4].to_string().trim_matches('"'),
        "1",
        "{got}"
    );
    assert_eq!(
        got["temporal"][0].as_array().unwrap()[..4],
        got["temporal_text"][0].as_array().unwrap()[..4],
        "{got}"
    );
    for types in ["temporal_types", "temporal_text_types"] {
        assert_eq!(
            got[types].as_array().unwrap()[..4],
            [12, 10, 11, 12],
            "{got}"
        );
    }
    assert_eq!(
        got["pdo_count"].to_string().trim_matches('"'),
        got["pdo_text"].to_string().trim_matches('"'),
        "{got}"
    );
    assert!(
        got["pdo_count"]
            .to_string()
            .trim_matches('"')
            .parse::<u64>()
            .unwrap()
            > 0
    );
}

/// Commands sent together in one segment, as mysqlnd sends `$st->close()` (which has no answer)
/// and the statement after it: each statement gets its own answer, the closes none, whatever
/// the timing (the protocol library, handed two commands in one read, read the first from freed
/// memory and answered an OK the client took for the next statement's answer).
#[test]
fn commands_sent_together_are_each_answered_once() {
    use std::io::Write;
    let d = Daemon::start("");
    let mut w = Wire::login(d.mysql.expect("SQL on"), "u", None).unwrap();
    let mut ids = Vec::new();
    for i in 0..16 {
        w.write_packet(0, format!("\x16SELECT {i} AS n, ? AS p").as_bytes());
        let (_, ok) = w.read_packet().expect("an answer to the prepare");
        assert_eq!(ok[0], 0, "{:?}", error_of(&ok));
        ids.push(u32::from_le_bytes(ok[1..5].try_into().unwrap()));
        let columns = u16::from_le_bytes([ok[5], ok[6]]);
        let params = u16::from_le_bytes([ok[7], ok[8]]);
        assert_eq!((columns, params), (2, 1));
        // Each list of definitions ends with an EOF packet.
        for _ in 0..columns + params + 2 {
            w.read_packet().expect("a definition");
        }
    }
    let packet = |payload: &[u8]| {
        let mut p = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        p.push(0);
        p.extend_from_slice(payload);
        p
    };
    let mut together = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let mut close = vec![0x19];
        close.extend_from_slice(&id.to_le_bytes());
        together.extend(packet(&close));
        together.extend(packet(format!("\x03SELECT {}", 100 + i).as_bytes()));
    }
    w.stream.write_all(&together).unwrap();
    for i in 0..ids.len() {
        let rows = w
            .text_result()
            .unwrap_or_else(|e| panic!("statement {i}: {e:?}"));
        assert_eq!(rows, [[Some((100 + i).to_string())]], "statement {i}");
    }
    // Nothing more was answered, and the statements are closed.
    assert_eq!(w.value("SELECT 'last'"), "last");
    let mut execute = vec![0x17];
    execute.extend_from_slice(&ids[0].to_le_bytes());
    execute.extend_from_slice(&[0, 1, 0, 0, 0, 1, 1, 0x06, 0]);
    w.write_packet(0, &execute);
    let (_, answer) = w.read_packet().expect("an answer to the execution");
    assert_eq!(error_of(&answer).0, 1243, "{answer:?}");
}

/// `COM_SET_OPTION` gets MySQL's EOF packet (mysqli's `multi_query` sends it first, and read the
/// OK it got as a malformed reply); an unknown option gets error 1047; the session goes on.
#[test]
fn set_option_is_answered_as_mysql_does() {
    let d = Daemon::start("");
    let mysql = d.mysql.expect("SQL on");
    let mut w = Wire::login(mysql, "u", None).unwrap();
    for option in [0u16, 1] {
        let mut p = vec![0x1b];
        p.extend_from_slice(&option.to_le_bytes());
        w.write_packet(0, &p);
        let (seq, eof) = w.read_packet().expect("an answer");
        assert_eq!((seq, eof[0]), (1, 0xfe), "{eof:?}");
        assert!(eof.len() < 9, "an EOF packet: {eof:?}");
        // Its warnings and status, as an EOF packet is read: none.
        assert_eq!(&eof[1..5], &[0, 0, 0, 0], "{eof:?}");
    }
    w.write_packet(0, &[0x1b, 9, 0]);
    let (_, error) = w.read_packet().expect("an answer");
    assert_eq!(error_of(&error).0, 1047);
    assert_eq!(w.value("SELECT 'on'"), "on");
    if !have(
        "PHP with mysqli",
        "php",
        &["-r", "exit(extension_loaded('mysqli') ? 0 : 1);"],
    ) {
        return;
    }
    let php = format!(
        r#"
mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
$m = new mysqli("127.0.0.1", "php", "", "pinba", {port});
$m->multi_query("SELECT 1 + 1 AS two");
$rows = $m->store_result()->fetch_all(MYSQLI_NUM);
$more = $m->more_results();
$next = $m->query("SELECT 'next'")->fetch_all(MYSQLI_NUM);
echo json_encode([$rows, $more, $next]);
"#,
        port = mysql.port()
    );
    let got = php_json(&php, false);
    assert_eq!(got, serde_json::json!([[["2"]], false, [["next"]]]));
}

/// `timer.id` fits pinba_engine's and Pinboard's `int(11)` (a signed 32-bit column) however many
/// requests came before, unique among the pool's timers, and `timertag.timer_id` finds its timer
/// either way round a join (it was the request's id × 65,536 + the place: past 2^31 after 32,768
/// requests).
#[test]
fn timer_ids_fit_a_signed_32_bit_column() {
    let d = Daemon::start("stats_history = \"10m\"\nrequest_pool_size = 1000\n");
    let batch: Vec<Vec<u8>> = traffic(1000).iter().map(Sent::encode).collect();
    for _ in 0..34 {
        d.send(&batch);
    }
    d.wait_merged(34_000);
    let mut c = Wire::login(d.mysql.unwrap(), "u", None).unwrap();
    let n = |c: &mut Wire, sql: &str| -> u64 { c.value(sql).parse().unwrap() };
    assert!(n(&mut c, "SELECT MIN(id) FROM request") >= 33_000);
    let timers = n(&mut c, "SELECT COUNT(*) FROM timer");
    assert!(timers > 500, "{timers}");
    assert!(n(&mut c, "SELECT MAX(id) FROM timer") < 1 << 31);
    assert_eq!(n(&mut c, "SELECT COUNT(DISTINCT id) FROM timer"), timers);
    let tags = n(&mut c, "SELECT COUNT(*) FROM timertag");
    assert!(tags > 0);
    assert_eq!(
        n(
            &mut c,
            "SELECT COUNT(*) FROM timer t JOIN timertag tt ON tt.timer_id = t.id \
             AND tt.value IS NOT NULL"
        ),
        tags
    );
    assert_eq!(
        n(
            &mut c,
            "SELECT COUNT(*) FROM timertag tt JOIN timer t ON t.id = tt.timer_id \
             WHERE t.request_id >= 33000"
        ),
        tags
    );
}

/// A script through the `mariadb` client's standard input, as `mariadb pinba < file` runs it
/// (no `--force`: it stops at the first error): (whether it exited 0, its output, its errors).
fn mariadb_script(d: &Daemon, script: &str) -> (bool, String, String) {
    mariadb_script_with(d, &[], script)
}

/// [`mariadb_script`] with more of the client's options (`--show-warnings`).
pub fn mariadb_script_with(d: &Daemon, options: &[&str], script: &str) -> (bool, String, String) {
    let port = d.mysql.expect("SQL on").port().to_string();
    let mut args = vec!["-h", "127.0.0.1", "-P", &port, "-u", "tester", "--batch"];
    args.extend_from_slice(options);
    args.push("pinba");
    mariadb_piped(&args, script)
}

/// `script` through the standard input of the `mariadb` client run with `args`: (whether it
/// exited 0, its output, its errors).
pub(crate) fn mariadb_piped(args: &[&str], script: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut child = Command::new("mariadb")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run mariadb");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// pinba_engine's whole `default_tables.sql` (tests/fixtures/sql, as its repository has it)
/// runs through the `mariadb` client without `--force`: each DROP + CREATE of a built-in keeps
/// the report as it was (it still counts requests the raw pool no longer holds, which a report
/// made again, filled from the pool, would have lost), a report's history goes on across a DROP
/// and CREATE of its definition (pinba_engine's definitions of rates and percentiles included:
/// `compat`), and the `status` table is accepted with a warning.
#[test]
fn pinba_engine_default_tables_run_whole_and_keep_the_builtins() {
    if !have_mariadb() {
        return;
    }
    let d = Daemon::start(
        "stats_history = \"120s\"\nreport_ticks = 120\nrequest_pool_size = 1000\n\
         [[report]]\nname = \"by_script_kept\"\nkeys = [\"script_name\"]\n\
         history_retention = \"1h\"\nhistory_step = \"1s\"\ncompat = \"pinba_engine\"\n",
    );
    let sent: Vec<Vec<u8>> = traffic(3000).iter().map(Sent::encode).collect();
    for (i, part) in sent.chunks(500).enumerate() {
        d.send(part);
        d.wait_merged(500 * (i as u64 + 1));
    }
    let merged = d.status()["requests_merged"].as_u64().unwrap();
    assert!(merged > 2000, "{merged}");
    d.wait_for(
        |d| crate::history::total_requests(d, "by_script_kept") == merged,
        "the requests in by_script_kept's history",
    );
    let scripts = |d: &Daemon| {
        sql(
            d,
            "SELECT script_name, req_count FROM report_by_script_name ORDER BY script_name",
        )
    };
    let before = scripts(&d);
    let total = |rows: &[Vec<String>]| rows[1..].iter().map(|r| f(&r[1]) as u64).sum::<u64>();
    assert_eq!(total(&before), merged, "{before:?}");
    let pool = f(&sql(&d, "SELECT COUNT(*) FROM request")[1][0]) as u64;
    assert!(
        pool <= 1000,
        "the pool holds fewer requests than were merged: {pool}"
    );

    let file = std::fs::read_to_string(
        crate::common::fixture_dir().join("sql/pinba_engine_default_tables.sql"),
    )
    .unwrap();
    let script = format!(
        "{file}\nSHOW WARNINGS;\nDROP TABLE IF EXISTS by_script_kept;\nCREATE TABLE \
         by_script_kept (`req_count` int(11) DEFAULT NULL, `req_per_sec` float DEFAULT NULL) \
         ENGINE=PINBA COMMENT='report1';\n"
    );
    let (ok, out, err) = mariadb_script(&d, &script);
    assert!(ok && err.is_empty(), "{out}\n{err}");
    // The last statement of the file (`status`): pinbad's own table, which exists.
    assert!(
        out.contains("Note\t1050\ttable `status` already exists"),
        "{out}"
    );

    // Every built-in of the file is still there, each holding what it held.
    let names = |rows: Vec<Vec<String>>| -> Vec<String> {
        rows.into_iter().skip(1).map(|r| r[0].clone()).collect()
    };
    let tables = names(sql(&d, "SHOW TABLES"));
    for table in file
        .lines()
        .filter_map(|l| l.strip_prefix("CREATE TABLE `"))
        .map(|l| l.split('`').next().unwrap().to_string())
    {
        assert!(tables.contains(&table), "{table} not in {tables:?}");
    }
    assert_eq!(scripts(&d), before);
    let info = sql(&d, "SELECT req_count FROM info");
    assert_eq!(f(&info[1][0]) as u64, merged, "{info:?}");
    let by_status = sql(&d, "SELECT SUM(req_count) FROM report_by_status");
    assert_eq!(f(&by_status[1][0]) as u64, merged, "{by_status:?}");

    // The history goes on (a report dropped and made again starts one anew).
    let more: Vec<Vec<u8>> = traffic(300).iter().map(Sent::encode).collect();
    d.send(&more);
    d.wait_merged(3300);
    let now = d.status()["requests_merged"].as_u64().unwrap();
    d.wait_for(
        |d| crate::history::total_requests(d, "by_script_kept") == now,
        "the earlier and the later requests in by_script_kept's history",
    );
}

/// A DROP + CREATE TABLE of another definition replaces the report and says so (the OK's
/// info, SHOW WARNINGS, a log line naming both definitions); one of the same definition keeps
/// it (a note); a DROP alone drops the report, and a statement after it in the same session
/// finds the table gone, as MySQL's.
#[test]
fn drop_and_create_of_another_definition_replace_the_report_and_say_so() {
    if !have_mariadb() {
        return;
    }
    let d = Daemon::start_logged("stats_history = \"10m\"\n", "pinbad=info");
    let sent = traffic(100);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(100);
    let rows = sql(
        &d,
        "DROP TABLE report_by_hostname; CREATE TABLE report_by_hostname (`req_count` int(11) \
         DEFAULT NULL, `req_per_sec` float DEFAULT NULL) ENGINE=PINBA COMMENT='report1'; \
         SHOW WARNINGS",
    );
    assert_eq!(rows[0], ["Level", "Code", "Message"], "{rows:?}");
    assert_eq!(rows.len(), 2, "{rows:?}");
    let message = &rows[1][2];
    assert_eq!(rows[1][..2], ["Warning", "1105"], "{rows:?}");
    assert!(
        message.contains("replaced")
            && message.contains(r#""keys":["hostname"]"#)
            && message.contains(r#""keys":["script_name"]"#),
        "{message}"
    );
    let def = named(&d.json("/api/v1/reports")["reports"], "report_by_hostname");
    assert_eq!(def["keys"], serde_json::json!(["script_name"]), "{def}");
    // Its columns are the statement's (pinba_engine fills them by position), its rows one per
    // script, filled from the pool.
    let rows = sql(&d, "SELECT * FROM report_by_hostname ORDER BY req_count");
    assert_eq!(rows[0], ["req_count", "req_per_sec"], "{rows:?}");
    let mut want: Vec<u64> = ["/s0.php", "/s1.php", "/s2.php", "/s3.php"]
        .iter()
        .map(|n| sent.iter().filter(|s| s.script_name == *n).count() as u64)
        .collect();
    want.sort();
    let got: Vec<u64> = rows[1..].iter().map(|r| f(&r[0]) as u64).collect();
    assert_eq!(got, want);
    let logged = d.wait_log("Report replaced");
    assert!(
        logged.contains(r#"old={"name":"report_by_hostname","keys":["hostname"]"#)
            && logged.contains(r#"new={"name":"report_by_hostname","keys":["script_name"]"#),
        "{logged}"
    );

    // The same definition (the first of the table's columns): the report kept, and a note.
    let rows = sql(
        &d,
        "DROP TABLE report_by_server_name; CREATE TABLE report_by_server_name (`req_count` \
         int(11) DEFAULT NULL, `req_per_sec` float DEFAULT NULL) ENGINE=PINBA \
         COMMENT='report2'; SHOW WARNINGS",
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1][..2], ["Note", "1105"], "{rows:?}");
    assert!(rows[1][2].contains("kept"), "{rows:?}");
    let columns = sql(&d, "SELECT * FROM report_by_server_name LIMIT 1");
    assert!(
        columns[0].contains(&"server_name".to_string()),
        "{columns:?}"
    );

    // A statement after a DROP finds the table gone, in the same session and, once it ended,
    // elsewhere.
    let e = mariadb(
        &d,
        "tester",
        None,
        "DROP TABLE report_by_schema; SELECT COUNT(*) FROM report_by_schema",
    )
    .unwrap_err();
    assert!(e.contains("1146"), "{e}");
    sql(&d, "DROP TABLE report_by_status");
    d.wait_for(
        |d| d.get("/api/v1/reports/report_by_status").0 == 404,
        "report_by_status dropped",
    );
    let (code, _) = d.get("/api/v1/reports/report_by_schema");
    assert_eq!(code, 404);
}

/// Several statements in one query (`CLIENT_MULTI_STATEMENTS`, or `COM_SET_OPTION` turning it
/// on) get one result each, in order, through the `mariadb` client (a line of two statements
/// under another DELIMITER), mysqli's `multi_query` and PyMySQL; an error ends the answer there
/// (the statements after it not run); without the capability such a query is a syntax error
/// (1064), as in MySQL.
#[test]
fn several_statements_in_one_query_answer_as_mysql_does() {
    let d = Daemon::start("");
    let port = d.mysql.expect("SQL on").port();
    if have_mariadb() {
        let (ok, out, err) = mariadb_script(
            &d,
            "DELIMITER //\nSELECT 1 AS a; SELECT 'two' AS b; SET @x = 1; SELECT 3 AS c//\n\
             SELECT 5 AS e; SELECT nope FROM request; SELECT 6 AS f//\nSELECT 7 AS g//\n",
        );
        assert!(!ok, "{out}");
        assert_eq!(out, "a\n1\nb\ntwo\nc\n3\ne\n5\n", "{err}");
        assert!(err.contains("1054"), "{err}");
        assert!(err.contains("Unknown column 'nope' in 'SELECT'"), "{err}");
    }
    if have(
        "PHP with mysqli",
        "php",
        &["-r", "exit(extension_loaded('mysqli') ? 0 : 1);"],
    ) {
        let php = format!(
            r#"
mysqli_report(MYSQLI_REPORT_OFF);
$m = new mysqli("127.0.0.1", "php", "", "pinba", {port});
function results($m, $sql) {{
    $sets = [];
    $ok = $m->multi_query($sql);
    while ($ok) {{
        $r = $m->store_result();
        $sets[] = $r ? $r->fetch_all(MYSQLI_NUM) : "ok";
        if (!$m->more_results()) break;
        $ok = $m->next_result();
    }}
    return [$sets, $m->errno];
}}
$all = results($m, "SELECT 1 AS a; SET @x = 1; SELECT 'two', 3; SELECT 4");
$failed = results($m, "SELECT 1; SELECT nope FROM request; SELECT 3");
$after = $m->query("SELECT 'after'")->fetch_all(MYSQLI_NUM);
$single = $m->query("SELECT 1; SELECT 2");
echo json_encode([$all, $failed, $after, $single, $m->errno]);
"#
        );
        let got = php_json(&php, false);
        assert_eq!(
            got,
            serde_json::json!([
                [[[["1"]], "ok", [["two", "3"]], [["4"]]], 0],
                [[[["1"]]], 1054],
                [["after"]],
                false,
                1064
            ])
        );
    }
    if let Some(py) = python() {
        let script = format!(
            r#"
import json, pymysql
from pymysql.constants import CLIENT
c = pymysql.connect(host="127.0.0.1", port={port}, user="py", database="pinba",
                    client_flag=CLIENT.MULTI_STATEMENTS)
cur = c.cursor()
cur.execute("SELECT 1 AS a; DO 1; SELECT 'two', 3; SELECT 4")
sets = [list(cur.fetchall())]
while cur.nextset():
    sets.append(list(cur.fetchall()))
cur.execute("SELECT 1; SELECT nope FROM request; SELECT 3")
failed = [list(cur.fetchall())]
try:
    while cur.nextset():
        failed.append(list(cur.fetchall()))
except pymysql.MySQLError as e:
    failed.append(e.args[0])
cur.execute("SELECT 'after'")
after = cur.fetchall()
plain = pymysql.connect(host="127.0.0.1", port={port}, user="py", database="pinba")
try:
    plain.cursor().execute("SELECT 1; SELECT 2")
    single = "no error"
except pymysql.MySQLError as e:
    single = e.args[0]
print(json.dumps([sets, failed, after, single]))
"#
        );
        let got = python_json(py, &script);
        assert_eq!(
            got,
            serde_json::json!([
                [[[1]], [], [["two", 3]], [[4]]],
                [[[1]], 1054],
                [["after"]],
                1064
            ])
        );
    }
}

/// Debian's MariaDB Connector/J (libmariadb-java).
const CONNECTOR_J: &str = "/usr/share/java/mariadb-java-client.jar";

/// A Java client's server-side prepared statements (MariaDB Connector/J, Debian's
/// libmariadb-java, with `useServerPrepStmts=true`): a parameterized SELECT prepared once and
/// executed with two sets of parameters gives the rows of the same query sent as text, a string
/// parameter staying a value; an unknown table gets MySQL's error (the driver then prepares on
/// its side, as it does with MySQL, so the error comes at the execution). Skips, saying so, without `javac`
/// and the driver, unless `PINBAD_REQUIRE_JAVA` is set (CI installs them and sets it).
#[test]
fn java_server_side_prepared_statements_answer_as_the_same_query_does() {
    let javac = Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !javac || !std::path::Path::new(CONNECTOR_J).exists() {
        if std::env::var_os("PINBAD_REQUIRE_JAVA").is_some() {
            panic!("javac and {CONNECTOR_J} are required (PINBAD_REQUIRE_JAVA)");
        }
        eprintln!(
            "SKIPPED: javac or {CONNECTOR_J} is missing; install default-jdk-headless \
             libmariadb-java"
        );
        return;
    }
    let d = loaded("", &traffic(300));
    let port = d.mysql.unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Prepared.java"),
        r#"
import java.sql.*;
public class Prepared {
    public static void main(String[] args) throws Exception {
        String url = "jdbc:mariadb://127.0.0.1:" + args[0]
            + "/pinba?user=java&useServerPrepStmts=true";
        try (Connection c = DriverManager.getConnection(url)) {
            PreparedStatement p = c.prepareStatement(
                "SELECT script_name, req_count FROM report_by_script_name "
                + "WHERE req_count >= ? AND script_name <> ? ORDER BY script_name");
            System.out.println("class\t" + p.getClass().getSimpleName());
            for (int min : new int[] {1, 1000000}) {
                p.setInt(1, min);
                p.setString(2, "x' OR '1'='1");
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        System.out.println(min + "\t" + r.getString(1) + "\t" + r.getLong(2));
                    }
                }
            }
            p.close();
            try {
                PreparedStatement bad = c.prepareStatement("SELECT * FROM nope WHERE a = ?");
                bad.setInt(1, 1);
                bad.executeQuery();
                System.out.println("bad\tno error");
            } catch (SQLException e) {
                System.out.println("bad\t" + e.getErrorCode());
            }
        }
    }
}
"#,
    )
    .unwrap();
    let compiled = Command::new("javac")
        .args(["-cp", CONNECTOR_J, "Prepared.java"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let out = Command::new("java")
        .args([
            "-cp",
            &format!("{CONNECTOR_J}:."),
            "Prepared",
            &port.to_string(),
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        lines[0],
        ["class", "ServerSidePreparedStatement"],
        "{stdout}"
    );
    let rows: Vec<(String, u64)> = lines
        .iter()
        .filter(|l| l[0] == "1")
        .map(|l| (l[1].to_string(), l[2].parse().unwrap()))
        .collect();
    assert_eq!(rows, http_script_counts(&d), "{stdout}");
    assert!(!lines.iter().any(|l| l[0] == "1000000"), "{stdout}");
    assert_eq!(lines.last().unwrap(), &["bad", "1146"], "{stdout}");
}

/// Named locks are the server's, as MariaDB's: a lock one session holds is refused to another
/// (`IS_USED_LOCK` names its holder), waited for until released or the timeout, and released
/// when its session ends. (A wait stopped at the statement's bound: `sql::locks`' tests.)
#[test]
fn named_locks_are_shared_by_the_sessions() {
    let d = loaded("", &traffic(10));
    let mysql = d.mysql.unwrap();
    let mut a = Wire::login(mysql, "cron", None).unwrap();
    let mut b = Wire::login(mysql, "cron", None).unwrap();
    let a_id = a.value("SELECT CONNECTION_ID()");
    let b_id = b.value("SELECT CONNECTION_ID()");
    assert_eq!(a.value("SELECT GET_LOCK('report-job', 0)"), "1");
    assert_eq!(b.value("SELECT GET_LOCK('report-job', 0)"), "0");
    assert_eq!(b.value("SELECT IS_USED_LOCK('report-job')"), a_id);
    assert_eq!(b.value("SELECT RELEASE_LOCK('report-job')"), "0");
    // B waits for the lock (seen waiting in the process list), and takes it once A releases.
    b.send_query(b"SELECT GET_LOCK('report-job', 25)");
    let deadline = Instant::now() + Duration::from_secs(20);
    let seen = loop {
        let listed = a.query(b"SHOW PROCESSLIST").unwrap();
        if listed.iter().any(|r| {
            r[0].as_deref() == Some(b_id.as_str())
                && r[7].as_deref().is_some_and(|i| i.contains("GET_LOCK"))
        }) {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(seen, "B's GET_LOCK never seen running");
    assert_eq!(a.value("SELECT RELEASE_LOCK('report-job')"), "1");
    match b.text_result() {
        Ok(rows) => assert_eq!(rows[0][0].as_deref(), Some("1")),
        Err((code, _)) => panic!("B's wait failed with {code}"),
    }
    assert_eq!(a.value("SELECT IS_USED_LOCK('report-job')"), b_id);
    // A waits past its timeout: 0.
    assert_eq!(a.value("SELECT GET_LOCK('report-job', 0.2)"), "0");
    assert_eq!(a.value("SELECT IS_FREE_LOCK('report-job')"), "0");
    // B's session ends: its lock is released.
    drop(b);
    let deadline = Instant::now() + Duration::from_secs(30);
    while a.value("SELECT IS_FREE_LOCK('report-job')") != "1" {
        assert!(Instant::now() < deadline, "the lock outlived its session");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(a.value("SELECT GET_LOCK('report-job', 0)"), "1");
    assert_eq!(a.value("SELECT RELEASE_ALL_LOCKS()"), "1");
}

/// `SLEEP` stays within the statement's bound: past `max_query_time` the statement stops with
/// 1317 and the session goes on; a shorter one answers 0. `ORDER BY RAND()` shuffles the pool
/// (every row once), `RAND(seed)` is MySQL's sequence, `ROW_COUNT()` the last statement's.
#[test]
fn sleep_is_bounded_and_rand_shuffles() {
    let Some(py) = python() else { return };
    let d = loaded("[mysql]\nmax_query_time = \"500ms\"\n", &traffic(50));
    let port = d.mysql.unwrap().port();
    let script = format!(
        r#"
import json, time, pymysql
cur = pymysql.connect(host="127.0.0.1", port={port}, user="u", database="pinba").cursor()
def stopped(sql):
    start = time.time()
    try:
        cur.execute(sql)
        return None, time.time() - start
    except pymysql.err.OperationalError as e:
        return e.args[0], time.time() - start
out = {{}}
out["killed"], out["kill_seconds"] = stopped("SELECT SLEEP(5)")
cur.execute("SELECT SLEEP(0.05), ROW_COUNT()")
out["short"] = list(cur.fetchone())
cur.execute("SELECT id FROM request ORDER BY RAND()")
out["shuffled"] = [r[0] for r in cur.fetchall()]
cur.execute("SELECT id FROM request ORDER BY id")
out["ordered"] = [r[0] for r in cur.fetchall()]
cur.execute("SELECT RAND(1), RAND(3) FROM request LIMIT 2")
out["seeded"] = [list(r) for r in cur.fetchall()]
cur.execute("SET @a = 1")
cur.execute("SELECT ROW_COUNT()")
out["after_set"] = cur.fetchone()[0]
# Bytes that are no UTF-8, made text by SQLite: answered, not a crash.
cur.execute("SELECT CAST(CHAR(255) AS CHAR), CAST(UNHEX('FF') AS CHAR) IS NULL")
out["bytes"] = list(cur.fetchone())
cur.execute("SELECT 1")
out["after_bytes"] = cur.fetchone()[0]
print(json.dumps(out))
"#
    );
    let got = python_json(py, &script);
    assert_eq!(got["killed"], 1317, "{got}");
    let took = got["kill_seconds"].as_f64().unwrap();
    assert!((0.4..4.0).contains(&took), "stopped at its bound: {got}");
    assert_eq!(got["short"][0], 0, "{got}");
    assert_eq!(got["short"][1], -1, "after a result set: {got}");
    let mut shuffled: Vec<i64> = serde_json::from_value(got["shuffled"].clone()).unwrap();
    let ordered: Vec<i64> = serde_json::from_value(got["ordered"].clone()).unwrap();
    assert_eq!(shuffled.len(), 50, "{got}");
    assert_ne!(
        shuffled, ordered,
        "50 rows shuffled into their own order: {got}"
    );
    shuffled.sort();
    assert_eq!(shuffled, ordered, "every row once: {got}");
    // MariaDB's answers (as the text protocol writes them: 16 digits): a constant seed steps
    // once a row.
    for (row, col, want) in [
        (0, 0, 0.40540353712197724),
        (0, 1, 0.9057697559760601),
        (1, 1, 0.37307905813034536),
    ] {
        let x = got["seeded"][row][col].as_f64().unwrap();
        assert!((x - want).abs() < 1e-15, "{row} {col}: {got}");
    }
    assert_eq!(got["after_set"], 0, "{got}");
    assert_eq!(
        got["bytes"],
        serde_json::json!(["?", 0]),
        "as MariaDB converts them: {got}"
    );
    assert_eq!(got["after_bytes"], 1, "{got}");
}
