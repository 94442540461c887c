//! The SQL front end against a real MariaDB on generated statements: `tests/mariadb/generate.py`
//! builds expressions and queries from a grammar over typed leaves (every raw table's columns,
//! literals of every type at their edges) and the operators and functions docs/sql.md lists,
//! runs each on pinbad and on MariaDB holding the same rows (`sql_mariadb::loaded`), and fails on
//! the first differences, each printed reduced to its smallest failing form.
//!
//! The generator is Python, beside `compare.py`, and not Rust: it compares answers exactly as the
//! corpus's test does (it imports `compare.py`'s comparison, PyMySQL's view of a value being the
//! reference), its reducer reruns statements on both servers hundreds of times, which a client
//! library in the test binary would need a MySQL client crate for, and its grammar changes
//! without rebuilding the test binary.
//!
//! A fixed seed by default (CI: thousands of statements in about a minute);
//! `PINBAD_SQLGEN_SEED` (a number, or `random` for a fresh one, printed) and
//! `PINBAD_SQLGEN_COUNT` run others; `PINBAD_SQLGEN_ALL=1` drops the grammar's exclusions (the
//! differences not fixed yet, docs/testing.md lists each) to see what they hide and, with
//! `PINBAD_SQLGEN_KEEP_GOING=1`, reports every distinct difference instead of stopping.

use std::process::Command;

use serde_json::Value;

use crate::sql_mariadb::{loaded, repo, PYTHON};

/// The generator's statements on pinbad and MariaDB: no difference, and enough statements that
/// MariaDB answered (not errors) for the run to have tested something.
#[test]
fn generated_statements_answer_as_mariadb_does() {
    let Some((maria, d)) = loaded() else {
        return;
    };
    let var = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let seed = var("PINBAD_SQLGEN_SEED", "80");
    let count = var("PINBAD_SQLGEN_COUNT", "3000");
    let port = d.mysql.expect("SQL listens").port().to_string();
    let mut args = vec![
        repo("tests/mariadb/generate.py").display().to_string(),
        port,
        maria.socket.display().to_string(),
        "--seed".into(),
        seed,
        "--count".into(),
        count.clone(),
    ];
    if std::env::var_os("PINBAD_SQLGEN_ALL").is_some() {
        args.push("--all".into());
    }
    if std::env::var_os("PINBAD_SQLGEN_KEEP_GOING").is_some() {
        args.push("--keep-going".into());
    }
    let out = Command::new(PYTHON)
        .args(&args)
        .output()
        .expect("run generate.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("generate.py printed no summary:\n{stdout}\n{stderr}"));
    assert!(
        out.status.success() && summary["differences"] == 0,
        "generated statements that answer otherwise than MariaDB (each reduced):\n{stdout}"
    );
    let statements = summary["statements"].as_u64().unwrap();
    assert_eq!(
        summary["cases"].as_u64().unwrap(),
        count.parse::<u64>().unwrap(),
        "{summary}"
    );
    assert!(
        summary["answered"].as_u64().unwrap() * 10 >= statements * 8,
        "MariaDB answered too few of the generated statements: {summary}"
    );
    // Each exclusion the grammar makes is named, with its reduced statement, in docs/testing.md.
    let testing = std::fs::read_to_string(repo("docs/testing.md")).unwrap();
    for x in summary["exclusions"].as_array().unwrap() {
        let (name, sql) = (x["name"].as_str().unwrap(), x["sql"].as_str().unwrap());
        assert!(
            testing.contains(&format!("`{name}`")) && testing.contains(&format!("`{sql}`")),
            "docs/testing.md does not list the generator's exclusion `{name}` with `{sql}`"
        );
    }
}
