//! Pinboard (intaro/pinboard), unchanged, against pinbad through FederatedX: Pinboard's
//! ENGINE=PINBA tables made in pinbad by its own DDL, their federated twins printed by pinbad's
//! SQL (the query docs/migrating.md gives) and created in a real MariaDB with `ha_federatedx`,
//! Pinboard's aggregate tables beside them, and Pinboard's aggregation statement run there; the
//! rows it inserts are checked against pinbad's own tables and against the datagrams sent.

use std::collections::BTreeMap;

use crate::common::{fixture_dir, Daemon};
use crate::sent::Sent;
use crate::sql::{f, sql, traffic};
use crate::sql_mariadb::MariaDb;

/// The query docs/migrating.md gives: every pinbad table's FederatedX twin, one statement a
/// row, its CONNECTION `@pinbad` followed by the table's name.
pub(crate) const TWINS: &str = "SET SESSION group_concat_max_len = 1048576;
SELECT CONCAT('CREATE TABLE `', TABLE_NAME, '` (', GROUP_CONCAT(CONCAT('`', COLUMN_NAME, '` ', COLUMN_TYPE) ORDER BY ORDINAL_POSITION SEPARATOR ', '), ') ENGINE=FEDERATED CONNECTION=''', @pinbad, '/', TABLE_NAME, ''';') FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' GROUP BY TABLE_NAME;";

/// `script` through the `mariadb` client, connected by `conn` (its connection arguments), in
/// `--batch --skip-column-names --raw` mode: the output lines, or the client's error text.
fn client(conn: &[String], script: &str) -> Result<String, String> {
    let mut args: Vec<&str> = conn.iter().map(String::as_str).collect();
    args.extend(["--batch", "--skip-column-names", "--raw"]);
    match crate::sql::mariadb_piped(&args, script) {
        (true, out, err) if err.is_empty() => Ok(out),
        (_, out, err) => Err(format!("{err}{out}")),
    }
}

fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_dir().join("sql").join(name)).unwrap()
}

#[test]
fn pinboards_aggregation_runs_unchanged_through_federatedx() {
    if !crate::sql::have_mariadb() {
        return;
    }
    let Some(maria) = MariaDb::start() else {
        return;
    };
    let m = |db: &str, script: &str| {
        let mut conn = vec![
            format!("--socket={}", maria.socket.display()),
            "-u".into(),
            "root".into(),
        ];
        if !db.is_empty() {
            conn.push(db.into());
        }
        client(&conn, script)
    };
    // The recipe is the documented one.
    let doc = std::fs::read_to_string(crate::sql_mariadb::repo("docs/migrating.md")).unwrap();
    for line in TWINS.lines() {
        assert!(doc.contains(line), "docs/migrating.md lacks {line}");
    }
    m(
        "",
        "INSTALL SONAME 'ha_federatedx'; CREATE DATABASE pinboard;",
    )
    .expect("ha_federatedx");

    let d = Daemon::start("");
    let port = d.mysql.expect("SQL listens").port();
    let p = |script: &str| {
        let conn = vec![
            "-h".into(),
            "127.0.0.1".into(),
            "-P".into(),
            port.to_string(),
            "-u".into(),
            "tester".into(),
            "pinba".into(),
        ];
        client(&conn, script)
    };
    // Pinboard's ENGINE=PINBA tables, made in pinbad by Pinboard's own DDL.
    p(&fixture("pinboard_pinba_tables.sql")).expect("Pinboard's pinba tables");
    let sent = traffic(400);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(400);

    // The twins, printed by pinbad, created in MariaDB: one per pinbad table.
    let twins = p(&format!(
        "SET @pinbad = 'mysql://tester@127.0.0.1:{port}/pinba';\n{TWINS}"
    ))
    .expect("the twins");
    let tables = sql(&d, "SHOW TABLES");
    assert_eq!(twins.lines().count(), tables.len() - 1, "{twins}");
    m("pinboard", &twins).unwrap_or_else(|e| panic!("{e}\n{twins}"));

    // Pinboard's aggregate tables and its aggregation, unchanged.
    m("pinboard", &fixture("pinboard_ipm_tables.sql")).expect("Pinboard's ipm_ tables");
    m("pinboard", &fixture("pinboard_aggregate.sql")).expect("Pinboard's aggregation");

    // ipm_report_by_server_name: a row per server, as pinbad's table and the datagrams say.
    let mut want: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    for s in &sent {
        let e = want.entry(s.server_name.clone()).or_default();
        e.0 += 1;
        e.1 += s.request_time as f64;
    }
    let got = rows(
        &m(
            "pinboard",
            "SELECT server_name, req_count, req_time_total, p95 FROM ipm_report_by_server_name \
             ORDER BY server_name",
        )
        .unwrap(),
    );
    let own = sql(
        &d,
        "SELECT server_name, req_count, req_time_total, p95 FROM \
         ipm_pinba_report_by_server_90_95_99 ORDER BY server_name",
    );
    assert_eq!(got.len(), want.len(), "{got:?}");
    assert_eq!(got.len(), own.len() - 1, "{own:?}");
    for (row, (server, (n, time))) in got.iter().zip(&want) {
        assert_eq!(&row[0], server, "{got:?}");
        assert_eq!(f(&row[1]) as u64, *n, "{row:?}");
        assert!(
            crate::common::close(f(&row[2]), *time, 1e-5),
            "{row:?} vs {time}"
        );
    }
    for (row, mine) in got.iter().zip(&own[1..]) {
        assert_eq!(row[..2], mine[..2], "{got:?} vs {own:?}");
        // FLOAT columns: the same float, through MariaDB's copy.
        for i in [2, 3] {
            assert!(
                crate::common::close(f(&row[i]), f(&mine[i]), 1e-5),
                "{row:?} vs {mine:?}"
            );
        }
    }
    let by_host = m(
        "pinboard",
        "SELECT COUNT(*), SUM(req_count) FROM ipm_report_by_hostname",
    )
    .unwrap();
    let hosts: std::collections::BTreeSet<&str> =
        sent.iter().map(|s| s.hostname.as_str()).collect();
    assert_eq!(by_host.trim(), format!("{}\t{}", hosts.len(), sent.len()));
    let pairs = m(
        "pinboard",
        "SELECT COUNT(*), SUM(req_count) FROM ipm_report_by_hostname_and_server",
    )
    .unwrap();
    let both: std::collections::BTreeSet<(&str, &str)> = sent
        .iter()
        .map(|s| (s.hostname.as_str(), s.server_name.as_str()))
        .collect();
    assert_eq!(pairs.trim(), format!("{}\t{}", both.len(), sent.len()));

    // What FederatedX sends on: WHERE (LIKE), ORDER BY … LIMIT, an INSERT … SELECT with a
    // condition, and SHOW TABLE STATUS, each as pinbad answers it itself.
    for q in [
        "SELECT script_name, req_count FROM report_by_script_name WHERE script_name LIKE '/s%' \
         ORDER BY req_count DESC, script_name LIMIT 2",
        "SELECT script_name, req_count FROM report_by_script_name WHERE script_name LIKE '%1.php'",
        "SELECT server_name, req_count FROM report_by_server_name ORDER BY req_count DESC, \
         server_name LIMIT 1",
    ] {
        let twin = rows(&m("pinboard", q).unwrap());
        let own = sql(&d, q);
        assert!(!twin.is_empty(), "{q}");
        assert_eq!(twin, own[1..], "{q}");
    }
    let counts = sql(
        &d,
        "SELECT script_name, req_count FROM report_by_script_name ORDER BY req_count",
    );
    // Above the least: some rows, not all.
    let threshold = f(&counts[1][1]) as u64;
    m(
        "pinboard",
        &format!(
            "CREATE TABLE ipm_x (script_name varchar(128), req_count int);\n\
             INSERT INTO ipm_x SELECT script_name, req_count FROM report_by_script_name \
             WHERE req_count > {threshold};"
        ),
    )
    .unwrap();
    let copied = rows(
        &m(
            "pinboard",
            "SELECT script_name, req_count FROM ipm_x ORDER BY script_name",
        )
        .unwrap(),
    );
    let own = sql(
        &d,
        &format!(
            "SELECT script_name, req_count FROM report_by_script_name WHERE req_count > \
             {threshold} ORDER BY script_name"
        ),
    );
    assert!(
        !copied.is_empty() && copied.len() < counts.len() - 1,
        "{copied:?}"
    );
    assert_eq!(copied, own[1..]);
    let status = rows(
        &m(
            "pinboard",
            "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinboard' \
             AND TABLE_NAME = 'report_by_script_name'",
        )
        .unwrap(),
    );
    assert_eq!(f(&status[0][0]) as usize, counts.len() - 1, "{status:?}");
}
