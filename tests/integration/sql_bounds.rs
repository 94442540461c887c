//! SQL's memory and disk, bounded (issue 58, item 3), against the real daemon: what the sessions'
//! statements hold together (SQLite's sorts, groupings, temporary tables and values, and the
//! rows not yet sent) is capped at `mysql.max_memory` and counted in `limits.max_memory`; a
//! statement past the cap fails with 1041 while the daemon's memory stays near it; nothing goes
//! to temporary files; a row longer than `max_allowed_packet` is 1153, and a large result
//! streams in small chunks.

use std::time::{Duration, Instant};

use crate::common::Daemon;
use crate::sql::{peak_rss, MysqlError, Wire};

/// `n` rows of a recursive counter `c(x)`, for the statements below.
fn counter(n: u32) -> String {
    format!("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) ")
}

fn figure(d: &Daemon, path: &str) -> u64 {
    let s = d.status();
    path.split('.')
        .fold(&s, |v, k| &v[k])
        .as_u64()
        .unwrap_or_else(|| panic!("no `{path}` in {s}"))
}

/// `sql`'s rows read and dropped as they come: how many, and their bytes.
fn drain(c: &mut Wire, sql: &str) -> Result<(u64, u64), MysqlError> {
    c.send_query(sql.as_bytes());
    let (_, first) = c.read_packet().expect("an answer");
    match first[0] {
        0x00 => return Ok((0, 0)),
        0xff => return Err(crate::sql::error_of(&first)),
        _ => {}
    }
    for _ in 0..first[0] {
        c.read_packet().expect("a column");
    }
    assert_eq!(c.read_packet().expect("the columns' end").1[0], 0xfe);
    let (mut rows, mut bytes) = (0, 0);
    loop {
        let (_, row) = c.read_packet().expect("a row");
        match row[0] {
            0xfe if row.len() < 9 => return Ok((rows, bytes)),
            0xff => return Err(crate::sql::error_of(&row)),
            _ => {
                rows += 1;
                bytes += row.len() as u64;
            }
        }
    }
}

const MIB: u64 = 1 << 20;

/// Four statements at once that each need far more than `mysql.max_memory` (64 MiB): a sort of
/// 200 MB, a DISTINCT of nine million values, a row of twenty 4 MB values, a window over 200
/// MB. Each fails with 1041 naming the setting (they spilled to disk, or took it all, before);
/// the daemon's peak memory grows by little more than the cap; the figures say what SQL held
/// and what it refused; sessions go on.
#[test]
fn statements_past_sqls_memory_fail_with_1041_and_memory_stays_near_the_cap() {
    let d = Daemon::start(
        "[mysql]\nmax_memory = \"64MiB\"\nmax_query_time = \"120s\"\nmax_concurrent_queries = 4\n",
    );
    let mysql = d.mysql.unwrap();
    assert_eq!(figure(&d, "mysql.memory_cap_bytes"), 64 * MIB);
    let before = peak_rss(&d);
    let wide = vec!["REPEAT('x', 4000000)"; 20].join(", ");
    let statements = [
        format!(
            "{}SELECT SUM(LENGTH(b)) FROM (SELECT x, REPEAT(MD5(x), 3125) AS b FROM c \
             ORDER BY RAND() LIMIT 2000)",
            counter(2000)
        ),
        format!(
            "{}SELECT COUNT(*) FROM (SELECT DISTINCT a.x * 3001 + b.x FROM c a, c b)",
            counter(3000)
        ),
        format!("SELECT {wide}"),
        format!(
            "{}SELECT SUM(LENGTH(v)) FROM (SELECT LAG(b) OVER (ORDER BY x DESC) AS v \
             FROM (SELECT x, REPEAT(MD5(x), 31250) AS b FROM c))",
            counter(200)
        ),
    ];
    let start = std::sync::Arc::new(std::sync::Barrier::new(statements.len()));
    let clients: Vec<_> = statements
        .iter()
        .cloned()
        .map(|sql| {
            let start = std::sync::Arc::clone(&start);
            std::thread::spawn(move || {
                let mut c = Wire::login(mysql, "u", None).unwrap();
                start.wait();
                let answer = drain(&mut c, &sql);
                // The session goes on.
                let after = c.value("SELECT 7");
                (sql, answer, after)
            })
        })
        .collect();
    for client in clients {
        let (sql, answer, after) = client.join().unwrap();
        let (code, msg) = answer.expect_err(&sql);
        assert_eq!(code, 1041, "{sql}: {msg}");
        assert!(msg.contains("mysql.max_memory"), "{msg}");
        assert_eq!(after, "7");
    }
    let grown = peak_rss(&d).saturating_sub(before);
    assert!(
        grown < 128 * MIB,
        "statements capped at 64 MiB grew the peak memory by {} MiB",
        grown / MIB
    );
    let peak = figure(&d, "mysql.memory_peak_bytes");
    assert!(
        (48 * MIB..80 * MIB).contains(&peak),
        "SQL's peak {peak} is near its 64 MiB cap"
    );
    assert!(figure(&d, "mysql.out_of_memory") >= 4);
    d.wait_for(
        |d| figure(d, "mysql.memory_bytes") < MIB,
        "SQL's memory freed once its sessions ended",
    );
    let mut c = Wire::login(mysql, "u", None).unwrap();
    assert_eq!(
        c.value(&format!("{}SELECT COUNT(*) FROM c", counter(1000))),
        "1000"
    );
}

/// The DISTINCT over a cartesian join that wrote 805 MB of temporary files in 15 s: it now
/// fails with 1041 once it has used SQL's memory, and no temporary file is ever open while it
/// runs (SQLite's are unlinked at once: seen only among the daemon's open files).
#[test]
fn a_cartesian_distinct_fails_with_1041_and_opens_no_temporary_file() {
    let d = Daemon::start("[mysql]\nmax_memory = \"32MiB\"\nmax_query_time = \"120s\"\n");
    let mysql = d.mysql.unwrap();
    let pid = d.child.id();
    let sql = format!(
        "{}SELECT COUNT(*) FROM (SELECT DISTINCT a.x, b.x, c.x FROM c a, c b, c c)",
        counter(400)
    );
    let started = Instant::now();
    let query = std::thread::spawn(move || {
        let mut c = Wire::login(mysql, "u", None).unwrap();
        c.query(sql.as_bytes())
    });
    let temp_files = || -> Vec<String> {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|dir| {
                dir.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                    .map(|p| p.to_string_lossy().into_owned())
                    .filter(|p| p.contains("etilqs") || p.contains("(deleted)"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut seen = Vec::new();
    while !query.is_finished() {
        seen.extend(temp_files());
        std::thread::sleep(Duration::from_millis(5));
    }
    let (code, msg) = query.join().unwrap().unwrap_err();
    assert_eq!(code, 1041, "{msg}");
    assert!(
        started.elapsed() < Duration::from_secs(100),
        "it ended at its memory cap, not at max_query_time"
    );
    assert!(seen.is_empty(), "temporary files open: {seen:?}");
}

/// A row longer than `max_allowed_packet` is MySQL's 1153 and the session goes on; a result of
/// 270 MB in rows of 900 KB reaches a client that reads it, whole, while the daemon's memory
/// grows by a few chunks of it (it was read 512 rows at a time: the whole result here).
#[test]
fn a_row_past_max_allowed_packet_is_1153_and_a_large_result_streams() {
    let d = Daemon::start("[mysql]\nmax_allowed_packet = \"1MiB\"\n");
    let mut c = Wire::login(d.mysql.unwrap(), "u", None).unwrap();
    let (code, msg) = c
        .query(b"SELECT REPEAT('a', 600000), REPEAT('b', 600000)")
        .unwrap_err();
    assert_eq!(code, 1153, "{msg}");
    assert!(msg.contains("max_allowed_packet"), "{msg}");
    assert_eq!(c.value("SELECT 1"), "1");

    let before = peak_rss(&d);
    let (rows, bytes) = drain(
        &mut c,
        &format!("{}SELECT x, REPEAT(MD5(x), 28125) FROM c", counter(300)),
    )
    .unwrap();
    assert_eq!(rows, 300);
    assert!(bytes > 270_000_000, "{bytes}");
    let grown = peak_rss(&d).saturating_sub(before);
    assert!(
        grown < 64 * MIB,
        "a streamed 270 MB result grew the peak memory by {} MiB",
        grown / MIB
    );
}

/// Rows read and not yet sent are SQL's memory, in the budget's figure: a client that stops
/// reading a result of large rows leaves a few chunks charged (`mysql.memory_bytes`), and
/// `memory.used_bytes` holds them; once `max_query_time` ends that session, both fall back.
#[test]
fn rows_not_yet_sent_are_counted_in_the_memory_budget() {
    let d = Daemon::start("[mysql]\nmax_query_time = \"8s\"\n");
    let mysql = d.mysql.unwrap();
    // An engine made, so that only the stuck statement's rows differ below.
    let mut probe = Wire::login(mysql, "u", None).unwrap();
    assert_eq!(probe.value("SELECT 1"), "1");
    let used_before = figure(&d, "memory.used_bytes");
    let sql_before = figure(&d, "mysql.memory_bytes");
    let mut stuck = Wire::login(mysql, "u", None).unwrap();
    stuck.send_query(
        b"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
          SELECT x, REPEAT(MD5(x), 15625) FROM c",
    );
    // Once the statement is blocked (its rows wait for the client), the budget holds what SQL
    // holds (they differ while it is still reading rows: settled every chunk).
    d.wait_for(
        |d| {
            let s = d.status();
            let (held, used) = (
                s["mysql"]["memory_bytes"].as_u64().unwrap(),
                s["memory"]["used_bytes"].as_u64().unwrap(),
            );
            held >= sql_before + 2 * MIB && used >= used_before + (held - sql_before) - MIB / 4
        },
        "the unread rows charged to SQL's memory, and counted in the budget",
    );
    // Read once it has been stopped: reading before would let it go on.
    d.wait_for(
        |d| figure(d, "mysql.killed") >= 1,
        "the stuck statement stopped at max_query_time",
    );
    assert!(
        stuck.closed(),
        "the stuck session is closed at max_query_time"
    );
    d.wait_for(
        |d| figure(d, "mysql.memory_bytes") < sql_before + MIB,
        "the stuck statement's rows released",
    );
    assert!(figure(&d, "memory.used_bytes") < used_before + MIB);
}

/// A value grows past `max_allowed_packet` only as far as the bound: a replacement by groups
/// that would make 900 MB is refused as it passes 64 KiB (it was made whole first), as is a
/// concatenation; the session goes on.
#[test]
fn a_value_is_refused_as_it_passes_max_allowed_packet() {
    let d = Daemon::start("[mysql]\nmax_allowed_packet = \"64KiB\"\n");
    let mut c = Wire::login(d.mysql.unwrap(), "u", None).unwrap();
    let before = peak_rss(&d);
    for sql in [
        "SELECT length(regexp_replace(repeat('a', 30000), 'a', repeat('b', 30000)))",
        "SELECT length(regexp_replace(repeat('ab', 15000), '(a)', repeat('\\\\1', 30000)))",
        "SELECT length(concat(repeat('a', 40000), repeat('b', 40000)))",
        "SELECT length(concat_ws(repeat(',', 40000), 'a', 'b', 'c'))",
    ] {
        let (code, msg) = c.query(sql.as_bytes()).unwrap_err();
        assert_eq!(code, 1105, "{sql}: {msg}");
        assert!(msg.contains("max_allowed_packet"), "{sql}: {msg}");
    }
    let grown = peak_rss(&d).saturating_sub(before);
    assert!(
        grown < 32 * MIB,
        "grew the peak memory by {} MiB",
        grown / MIB
    );
    assert_eq!(
        c.value("SELECT regexp_replace('a1b22', '([0-9]+)', '<\\\\1>$')"),
        "a<1>$b<22>$"
    );
}

/// A query's syntax tree is bounded before it is parsed: its memory (charged to
/// `mysql.max_memory`, 1 KB a byte of text: 1041 past it), its operators (1235 past 10,000); a long chain of
/// operators, each a level of the tree, is read (9,000 overflowed the worker's stack, taking
/// the daemon down, before); the session goes on after each.
#[test]
fn a_querys_syntax_tree_is_bounded() {
    let d = Daemon::start("[mysql]\nmax_memory = \"64MiB\"\n");
    let mut c = Wire::login(d.mysql.unwrap(), "u", None).unwrap();
    // 100 KB: its tree may take 100 MB.
    let list = format!(
        "SELECT COUNT(*) FROM request WHERE script_name IN ('a'{})",
        ", 'a'".repeat(20_000)
    );
    let (code, msg) = c.query(list.as_bytes()).unwrap_err();
    assert_eq!(code, 1041, "{msg}");
    assert!(msg.contains("mysql.max_memory"), "{msg}");
    let chain = |n: usize| format!("SELECT 1{}", " + 1".repeat(n));
    // Past 128 operators a query is read on a thread with a deep stack.
    assert_eq!(
        c.query(chain(900).as_bytes()).unwrap(),
        [[Some("901".to_string())]]
    );
    // Read, and then refused by SQLite, whose expressions nest at most 1,000 deep: MySQL's
    // "not supported" (1235), saying why.
    let (code, msg) = c.query(chain(9_000).as_bytes()).unwrap_err();
    assert!(code == 1235 && msg.contains("too large"), "{code} {msg}");
    let (code, msg) = c.query(chain(10_001).as_bytes()).unwrap_err();
    assert_eq!(code, 1235, "{msg}");
    assert!(msg.contains("10000 operators"), "{msg}");
    let short = "SELECT COUNT(*) FROM request WHERE script_name IN ('a', 'b')";
    assert_eq!(
        c.query(short.as_bytes()).unwrap(),
        [[Some("0".to_string())]]
    );
}
