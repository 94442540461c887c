//! Issue 62: the examples of README.md and docs/ cannot go stale. Every fenced `toml` block is
//! checked by the config parser (a block whose first line is `# fragment of [TABLE]` inside a
//! minimal config that opens that table); the README's first steps run their `curl` and `mysql`
//! commands, as written but for the ports, against a real daemon fed known traffic (the fleet
//! command against a real ClickHouse); every image the docs show exists, and the dashboard's
//! screenshots are exactly those the browser tests write with `PINBAD_SCREENSHOTS=1`.
//!
//! The commands need `curl` and the MySQL client (`mysql`, run as `mariadb`): the SQL ones skip,
//! saying so, without it unless `PINBAD_REQUIRE_MYSQL_CLIENTS` is set (as tests/integration/sql.rs
//! does); ClickHouse as tests/integration/clickhouse.rs says.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::clickhouse::ClickHouse;
use crate::common::*;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every page of docs/, as (path relative to the repository, text).
fn documents() -> Vec<(String, String)> {
    let mut paths = vec![PathBuf::from(ROOT).join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    paths.extend(pages);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.strip_prefix(ROOT).unwrap().display().to_string(), text)
        })
        .collect()
}

/// A fenced block: its info string, its first line's number (1-based, the line after the fence)
/// and its text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

/// Every fenced block of `markdown`, in order.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut open, line.trim_start().strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    line: i + 2,
                    text: String::new(),
                })
            }
            (Some(_), Some(rest)) if rest.trim().is_empty() => out.push(open.take().unwrap()),
            (Some(b), _) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    out
}

/// The config a documented block stands for: the block itself, or a `# fragment of [TABLE]`
/// inside the least config that opens TABLE (a report or a sink needs its name and kind first).
fn as_config(block: &str) -> String {
    let first = block.lines().next().unwrap_or_default();
    let Some(table) = first.strip_prefix("# fragment of ") else {
        return block.to_string();
    };
    let table = table
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':');
    let opening = match table {
        "[[report]]" => "[[report]]\nname = \"doc_fragment\"\nkeys = [\"script_name\"]\n".to_string(),
        "[[sink]]" => "[[sink]]\nname = \"doc_fragment\"\nkind = \"file\"\npath = \"/tmp/doc_fragment.ndjson\"\n".to_string(),
        t if t.starts_with('[') && t.ends_with(']') && !t.starts_with("[[") => format!("{t}\n"),
        t => panic!("`# fragment of {t}`: not a table this test can open"),
    };
    opening + block
}

/// Every `toml` block of the README and the manual is a configuration pinbad accepts, and says
/// something: it differs from the defaults.
#[test]
fn every_documented_toml_block_is_valid_config() {
    let default = pinbad::config::Config::default().to_toml();
    let mut checked = 0;
    let mut fragments = 0;
    for (path, text) in documents() {
        for b in blocks(&text).into_iter().filter(|b| b.info == "toml") {
            let config = as_config(&b.text);
            fragments += (config != b.text) as usize;
            let parsed = pinbad::config::Config::parse(&config).unwrap_or_else(|e| {
                panic!(
                    "{path}:{}: the toml block is not valid config: {e}\n{config}",
                    b.line
                )
            });
            assert_ne!(
                parsed.to_toml(),
                default,
                "{path}:{}: the toml block changes nothing",
                b.line
            );
            checked += 1;
        }
    }
    // The README's own, the manual's pages' (reports, history, request logs, sinks, fleets,
    // rewrite rules, Prometheus): a test that found none would check nothing.
    assert!(checked >= 15, "only {checked} toml blocks found");
    assert!(fragments >= 1, "no `# fragment of` block found");
}

/// A fragment is checked inside its table, and a wrong one fails.
#[test]
fn a_fragment_is_checked_inside_its_table() {
    let ok = as_config("# fragment of [[report]]\nprometheus = true\n");
    let c = pinbad::config::Config::parse(&ok).unwrap();
    assert!(c.report[0].prometheus, "{ok}");
    let bad = as_config("# fragment of [http]\nlisten = \"nowhere\"\n");
    let e = pinbad::config::Config::parse(&bad).unwrap_err().to_string();
    assert!(e.contains("http.listen"), "{e}");
}

/// The README's "First steps" section.
fn first_steps() -> String {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let from = readme
        .find("\n## First steps\n")
        .expect("the README has a First steps section");
    let rest = &readme[from + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

/// The shell commands of the first steps' `sh` blocks, comments left out.
fn first_step_commands() -> Vec<String> {
    sh_commands(&first_steps())
}

/// The commands of `markdown`'s `sh` blocks, one a line, comments and blank lines left out.
fn sh_commands(markdown: &str) -> Vec<String> {
    blocks(markdown)
        .into_iter()
        .filter(|b| b.info == "sh")
        .flat_map(|b| {
            b.text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The first steps' `toml` blocks but the ClickHouse sink's: the daemon the commands run against.
fn first_steps_config() -> String {
    blocks(&first_steps())
        .into_iter()
        .filter(|b| b.info == "toml" && !b.text.contains("kind = \"clickhouse\""))
        .map(|b| as_config(&b.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A command as written, on `d`'s ports: `localhost:30080` is its HTTP address, `-P 30306` its
/// SQL port, and the `mysql` client is run as `mariadb` (Debian's name; the same options).
fn on_ports(command: &str, d: &Daemon) -> String {
    let mut c = command.replace("localhost:30080", &d.http.to_string());
    if let Some(sql) = d.mysql {
        c = c.replace("-P 30306", &format!("-P {}", sql.port()));
    }
    match c.strip_prefix("mysql ") {
        Some(rest) => format!("mariadb {rest}"),
        None => c,
    }
}

/// Runs a command line with bash (pipes as written): its stdout, or a panic with its stderr.
fn run(command: &str) -> String {
    let out = Command::new("bash")
        .args(["-o", "pipefail", "-c", command])
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "`{command}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The first value named `key` anywhere in `v` (depth first).
fn find<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) => m.get(key).or_else(|| m.values().find_map(|x| find(x, key))),
        Value::Array(a) => a.iter().find_map(|x| find(x, key)),
        _ => None,
    }
}

/// The traffic the first steps look at: 30 quick requests of /index.php, 10 slow ones of
/// /search.php (the most time in all), 5 of /api/user; all on web1, each with a `db` timer.
fn first_steps_traffic() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    out.extend((0..30).map(|_| request_with_db_timer("/index.php", 0.02, 0.01)));
    out.extend((0..10).map(|_| request_with_db_timer("/search.php", 0.8, 0.5)));
    out.extend((0..5).map(|_| request_with_db_timer("/api/user", 0.05, 0.02)));
    out
}

/// Whether the `mariadb` client works here; panics where the clients are required.
fn have_mariadb() -> bool {
    let ok = Command::new("mariadb")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("PINBAD_REQUIRE_MYSQL_CLIENTS").is_none(),
            "the mariadb client is required (PINBAD_REQUIRE_MYSQL_CLIENTS) but `mariadb` does not work"
        );
        eprintln!("SKIPPED: the README's SQL steps: the mariadb client is not installed (apt-get install mariadb-client)");
    }
    ok
}

/// Checks what one first-steps command printed against the traffic sent (45 requests, see
/// [`first_steps_traffic`]). Every command of the section must be one of these: a new one needs
/// its check here.
fn check_first_step(command: &str, out: &str) {
    let json = || -> Value {
        serde_json::from_str(out).unwrap_or_else(|e| panic!("`{command}`: not JSON ({e}): {out}"))
    };
    if command.contains("/api/v1/reports/report_by_script_name") {
        let v = json();
        let rows = v["rows"].as_array().expect("rows");
        let scripts: Vec<&str> = rows
            .iter()
            .map(|r| r["script_name"].as_str().unwrap())
            .collect();
        assert_eq!(scripts, ["/search.php", "/index.php", "/api/user"], "{out}");
        assert_eq!(rows[0]["req_count"], 10, "{out}");
        for p in ["p50", "p95"] {
            assert!(
                rows[0][p].as_f64().is_some_and(|x| (x - 0.8).abs() < 0.01),
                "{p}: {out}"
            );
        }
    } else if command.contains("/api/v1/info") {
        let v = json();
        assert_eq!(
            find(&v, "req_count").and_then(Value::as_u64),
            Some(45),
            "{out}"
        );
    } else if command.contains("/api/v1/requests?min_time=0.5") {
        let v = json();
        let requests = v["requests"].as_array().expect("requests");
        assert_eq!(requests.len(), 5, "{out}");
        for r in requests {
            assert_eq!(r["script_name"], "/search.php", "{out}");
            assert!(r["request_time"].as_f64().unwrap() >= 0.5, "{out}");
            assert_eq!(r["timers"][0]["tags"]["group"], "db", "{out}");
        }
    } else if command.contains("FROM report_by_script_name") {
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("script_name\treq_count"), "{out}");
        let scripts: Vec<&str> = lines[1..]
            .iter()
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        assert_eq!(scripts, ["/search.php", "/index.php", "/api/user"], "{out}");
        assert!(lines[1].starts_with("/search.php\t10\t"), "{out}");
    } else if command.contains("FROM request GROUP BY hostname") {
        assert_eq!(out, "hostname\trequests\nweb1\t45\n");
    } else if command.contains("/metrics") {
        assert_eq!(out.trim(), "pinbad_requests_merged_total 45", "{out}");
    } else {
        panic!("the README's first steps have a command this test does not check: `{command}`");
    }
}

/// The README's first steps, as written (but for the ports), against a real daemon configured
/// with the section's own config blocks: each command answers what the traffic sent.
#[test]
fn the_readme_first_steps_answer_what_was_sent() {
    let commands = first_step_commands();
    assert!(
        commands.iter().any(|c| c.starts_with("curl"))
            && commands.iter().any(|c| c.starts_with("mysql")),
        "the first steps have curl and mysql commands: {commands:?}"
    );
    let sql = have_mariadb();
    let d = Daemon::start(&first_steps_config());
    let traffic = first_steps_traffic();
    d.send(&traffic);
    d.wait_merged(traffic.len() as u64);
    let mut ran = 0;
    for command in commands.iter().filter(|c| !c.contains("/api/v1/fleet/")) {
        if command.starts_with("mysql") && !sql {
            continue;
        }
        assert!(
            command.starts_with("curl ") || command.starts_with("mysql "),
            "a first step that is neither curl nor mysql: `{command}`"
        );
        let out = run(&on_ports(command, &d));
        check_first_step(command, &out);
        ran += 1;
    }
    assert!(ran >= 4, "only {ran} commands ran");
}

/// The README's fleet step: its sink block, pointed at a real ClickHouse (1-second ticks, so
/// that one closes soon), and its `curl` answering the traffic from the ticks written there.
#[test]
fn the_readme_fleet_step_answers_from_clickhouse() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    let sink = blocks(&first_steps())
        .into_iter()
        .find(|b| b.info == "toml" && b.text.contains("kind = \"clickhouse\""))
        .expect("the first steps have a ClickHouse fleet block")
        .text;
    let url = sink
        .lines()
        .find(|l| l.starts_with("url = "))
        .expect("the fleet block has a url");
    let sink = sink.replace(url, &format!("url = \"{}\"", ch.url()));
    let config =
        format!("stats_history = \"20s\"\nreport_ticks = 20\n\n{sink}batch_time = \"100ms\"\n");
    let d = Daemon::start(&config);
    let command = first_step_commands()
        .into_iter()
        .find(|c| c.contains("/api/v1/fleet/"))
        .expect("the first steps have a fleet command");
    let traffic = first_steps_traffic();
    d.send(&traffic);
    d.wait_merged(traffic.len() as u64);
    // The ticks reach ClickHouse once they close (1 s) and the sink's batch goes (0.1 s).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = run(&on_ports(&command, &d));
        let v: Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
        let rows = v["rows"].as_array().cloned().unwrap_or_default();
        let count = |s: &str| {
            rows.iter()
                .filter(|r| r["script_name"] == s)
                .map(|r| r["req_count"].as_u64().unwrap())
                .sum::<u64>()
        };
        if (
            count("/search.php"),
            count("/index.php"),
            count("/api/user"),
        ) == (10, 30, 5)
        {
            assert_eq!(rows[0]["script_name"], "/search.php", "{out}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the fleet answer never held the traffic: {out}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The images the README and the manual show, as (document, path relative to the repository).
fn images() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (doc, text) in documents() {
        let dir = Path::new(&doc).parent().unwrap().to_path_buf();
        for part in text.split("![").skip(1) {
            let Some(target) = part.split_once("](").and_then(|(_, t)| t.split_once(')')) else {
                continue;
            };
            let target = target.0;
            if target.starts_with("http") {
                continue;
            }
            let path = dir.join(target);
            out.push((doc.clone(), path.display().to_string()));
        }
    }
    out
}

/// Every image the docs show is in the repository.
#[test]
fn every_documented_image_exists() {
    let images = images();
    assert!(!images.is_empty(), "the docs show no image");
    for (doc, path) in images {
        assert!(
            Path::new(ROOT).join(&path).is_file(),
            "{doc} shows {path}, which does not exist"
        );
    }
}

/// The dashboard's screenshots are the browser tests' (`shot(&b, "NAME")` in
/// tests/integration/dashboard.rs and request_logs.rs writes docs/screenshots/NAME.png with
/// `PINBAD_SCREENSHOTS=1`): docs/dashboard.md shows every one they write and no other, so a
/// screenshot of a view that is gone, or one no test refreshes, fails here.
#[test]
fn the_dashboard_page_shows_the_screenshots_the_browser_tests_write() {
    let written: BTreeSet<String> = ["dashboard.rs", "request_logs.rs"]
        .iter()
        .flat_map(|f| {
            let src =
                std::fs::read_to_string(Path::new(ROOT).join("tests/integration").join(f)).unwrap();
            src.split("shot(&b, \"")
                .skip(1)
                .map(|s| format!("docs/screenshots/{}.png", s.split('"').next().unwrap()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(written.len() >= 8, "{written:?}");
    let shown: BTreeSet<String> = images()
        .into_iter()
        .filter(|(doc, p)| doc == "docs/dashboard.md" && p.starts_with("docs/screenshots/"))
        .map(|(_, p)| p)
        .collect();
    assert_eq!(
        shown, written,
        "docs/dashboard.md's screenshots against the ones the browser tests write"
    );
    let in_repo: BTreeSet<String> = std::fs::read_dir(Path::new(ROOT).join("docs/screenshots"))
        .unwrap()
        .map(|e| {
            format!(
                "docs/screenshots/{}",
                e.unwrap().file_name().to_string_lossy()
            )
        })
        .collect();
    assert_eq!(
        in_repo, written,
        "docs/screenshots/ holds exactly the screenshots the tests write"
    );
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown file's headings (outside fenced blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every relative link of the README, the manual and BENCHMARKS.md reaches a file, and a
/// heading where it names one: moving a section cannot leave a link behind.
#[test]
fn every_relative_link_resolves() {
    let mut docs = documents();
    let bench = std::fs::read_to_string(Path::new(ROOT).join("BENCHMARKS.md")).unwrap();
    docs.push(("BENCHMARKS.md".to_string(), bench));
    let mut checked = 0;
    for (doc, text) in &docs {
        // Links outside fenced blocks only: a block's `](` is code.
        let prose: String = blocks_removed(text);
        let dir = Path::new(doc).parent().unwrap();
        for part in prose.split("](").skip(1) {
            let Some(target) = part
                .split(')')
                .next()
                .filter(|t| !t.contains(char::is_whitespace))
            else {
                continue;
            };
            if target.starts_with("http:")
                || target.starts_with("https:")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                PathBuf::from(doc)
            } else {
                dir.join(file)
            };
            let full = Path::new(ROOT).join(&path);
            assert!(
                full.exists(),
                "{doc}: the link `{target}` names {}, which does not exist",
                path.display()
            );
            if !fragment.is_empty() && full.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&full).unwrap();
                assert!(
                    anchors(&text).contains(fragment),
                    "{doc}: the link `{target}`: {} has no heading `#{fragment}`",
                    path.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} links checked");
}

/// `markdown` without its fenced blocks.
fn blocks_removed(markdown: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(
        anchor(" Report ticks: fleets in ClickHouse"),
        "report-ticks-fleets-in-clickhouse"
    );
    assert_eq!(anchor(" SQL (MySQL protocol)"), "sql-mysql-protocol");
    assert_eq!(
        anchor(" Migrating from pinba_engine or pinba2"),
        "migrating-from-pinba_engine-or-pinba2"
    );
}

/// The commands of docs/http-api.md's `sh` blocks, comments left out.
fn http_api_commands() -> Vec<String> {
    sh_commands(&std::fs::read_to_string(Path::new(ROOT).join("docs/http-api.md")).unwrap())
}

/// A request as the API examples look for: `script` on `host`/`server`, `seconds` long, `status`,
/// `memory_peak`, a `country` tag when given, and a timer of group `db` (`timer_seconds`) when
/// given.
fn api_example_request(
    (script, host, server): (&str, &str, &str),
    seconds: f32,
    status: u32,
    memory_peak: u32,
    country: Option<&str>,
    timer_seconds: Option<f32>,
) -> Vec<u8> {
    use prost::Message;
    let mut dictionary = vec![b"group".to_vec(), b"db".to_vec()];
    let mut r = pinbad::proto::Request {
        hostname: host.into(),
        server_name: server.into(),
        script_name: script.into(),
        request_count: 1,
        request_time: seconds,
        status: Some(status),
        memory_peak,
        ..Default::default()
    };
    if let Some(c) = country {
        dictionary.extend([b"country".to_vec(), c.as_bytes().to_vec()]);
        r.tag_name = vec![2];
        r.tag_value = vec![3];
    }
    if let Some(t) = timer_seconds {
        r.timer_hit_count = vec![1];
        r.timer_value = vec![t];
        r.timer_ru_utime = vec![0.0];
        r.timer_ru_stime = vec![0.0];
        r.timer_tag_count = vec![1];
        r.timer_tag_name = vec![0];
        r.timer_tag_value = vec![1];
    }
    r.dictionary = dictionary;
    r.encode_to_vec()
}

/// The traffic docs/http-api.md's examples look at (18 requests):
/// - 4 slow failures of /index.php (0.8 s, 500, 100 MiB, nl, a 0.3 s db timer) on web1;
/// - 6 quick successes of /index.php (50 ms, 200, 1 MiB, nl, a 20 ms db timer) on web1;
/// - 5 of /api.php on web2 / api.example.com (0.2 s, 503, 2 MiB, de, no timer);
/// - 3 slow /search.php (1.5 s, 404, 200 MiB, no tag, a 1 s db timer) on web1.
fn http_api_traffic() -> Vec<Vec<u8>> {
    let www = |script| (script, "web1", "www.example.com");
    let mib = 1 << 20;
    let mut out = Vec::new();
    for _ in 0..4 {
        out.push(api_example_request(
            www("/index.php"),
            0.8,
            500,
            100 * mib,
            Some("nl"),
            Some(0.3),
        ));
    }
    for _ in 0..6 {
        out.push(api_example_request(
            www("/index.php"),
            0.05,
            200,
            mib,
            Some("nl"),
            Some(0.02),
        ));
    }
    for _ in 0..5 {
        out.push(api_example_request(
            ("/api.php", "web2", "api.example.com"),
            0.2,
            503,
            2 * mib,
            Some("de"),
            None,
        ));
    }
    for _ in 0..3 {
        out.push(api_example_request(
            www("/search.php"),
            1.5,
            404,
            200 * mib,
            None,
            Some(1.0),
        ));
    }
    out
}

/// Checks what one docs/http-api.md command printed against [`http_api_traffic`]. Every command
/// of the page must be one of these: a new one needs its check here.
fn check_http_api_example(command: &str, out: &str) {
    let json = || -> Value {
        serde_json::from_str(out).unwrap_or_else(|e| panic!("`{command}`: not JSON ({e}): {out}"))
    };
    // The requests of a `/api/v1/requests` answer, as (script, status, request_time).
    let requests = || -> Vec<(String, u64, f64)> {
        let v = json();
        v["requests"]
            .as_array()
            .unwrap_or_else(|| panic!("`{command}`: no requests: {out}"))
            .iter()
            .map(|r| {
                (
                    r["script_name"].as_str().unwrap().to_string(),
                    r["status"].as_u64().unwrap(),
                    r["request_time"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let count = |script: &str, status: u64| {
        requests()
            .iter()
            .filter(|r| r.0 == script && r.1 == status)
            .count()
    };
    let query = command
        .split("/api/v1/requests?")
        .nth(1)
        .map(|q| q.trim_end_matches('\''));
    match query {
        None if command.ends_with("/healthz") => assert_eq!(json()["status"], "ok", "{out}"),
        None if command.contains("/api/v1/status | jq .") => {
            assert_eq!(json()["requests_merged"], 18, "{out}")
        }
        Some("limit=10") => assert_eq!(requests().len(), 10, "{out}"),
        Some("script_name=/index.php&status=500&min_time=0.5&timers=true") => {
            assert_eq!(requests().len(), 4, "{out}");
            assert_eq!(count("/index.php", 500), 4, "{out}");
            for r in json()["requests"].as_array().unwrap() {
                assert_eq!(r["timers"][0]["tags"]["group"], "db", "{out}");
            }
        }
        Some("hostname=web1&server_name=www.example.com&tag.country=nl") => {
            assert_eq!(requests().len(), 10, "{out}");
            assert_eq!(
                count("/index.php", 500) + count("/index.php", 200),
                10,
                "{out}"
            );
        }
        Some("timer_tag.group=db&max_time=0.1") => {
            assert_eq!(requests().len(), 6, "{out}");
            assert_eq!(count("/index.php", 200), 6, "{out}");
        }
        Some("filter=country:nl&filter=status:5xx&min_time=100ms&min_memory=64MiB") => {
            assert_eq!(requests().len(), 4, "{out}");
            assert_eq!(count("/index.php", 500), 4, "{out}");
        }
        Some("status=%3E%3D500&from=-10m") | Some("status=5xx&limit=100&cursor=123456") => {
            assert_eq!(requests().len(), 9, "{out}");
            assert_eq!(
                count("/index.php", 500) + count("/api.php", 503),
                9,
                "{out}"
            );
        }
        // Before the traffic: none of it, and no error.
        Some("from=2026-11-25T21:00:00Z&to=1795644000") => {
            assert_eq!(requests().len(), 0, "{out}")
        }
        Some("sort=-memory_peak&limit=20&format=csv") => {
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 1 + 18, "{out}");
            let header: Vec<&str> = lines[0].split(',').collect();
            let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
            let (script, memory) = (col("script_name"), col("memory_peak"));
            let scripts: Vec<&str> = lines[1..8]
                .iter()
                .map(|l| l.split(',').nth(script).unwrap())
                .collect();
            assert_eq!(
                scripts,
                ["/search.php"; 3]
                    .into_iter()
                    .chain(["/index.php"; 4])
                    .collect::<Vec<_>>(),
                "{out}"
            );
            let peaks: Vec<u64> = lines[1..]
                .iter()
                .map(|l| l.split(',').nth(memory).unwrap().parse().unwrap())
                .collect();
            assert!(peaks.windows(2).all(|w| w[0] >= w[1]), "{out}");
        }
        // Marks: each POST answers the mark it made (the daemon has no token: the header is
        // not needed), the list holds the one made now, the DELETE answers 204 (no body).
        None if command.contains("-X POST") && command.contains("/api/v1/marks") => {
            let mark = json();
            let text = mark["text"].as_str().unwrap_or_else(|| panic!("{out}"));
            assert!(command.contains(&format!("\"text\": \"{text}\"")), "{out}");
            assert!(mark["id"].is_u64(), "{out}");
        }
        None if command.contains("/api/v1/marks?from=-24h") => {
            let marks = json()["marks"].as_array().cloned().unwrap_or_default();
            assert!(marks.iter().any(|m| m["text"] == "deploy v1.4.2"), "{out}");
        }
        None if command.contains("-X DELETE") && command.contains("/api/v1/marks/0") => {
            assert_eq!(out, "", "a 204 has no body")
        }
        _ => panic!("docs/http-api.md has a command this test does not check: `{command}`"),
    }
}

/// docs/http-api.md's commands, as written (but for the port), against a real daemon fed
/// [`http_api_traffic`]: each answers what was sent.
#[test]
fn the_http_api_examples_answer_what_was_sent() {
    let commands = http_api_commands();
    assert!(commands.len() >= 10, "{commands:?}");
    let jq = Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let d = Daemon::start("");
    let traffic = http_api_traffic();
    d.send(&traffic);
    d.wait_merged(traffic.len() as u64);
    for command in &commands {
        assert!(
            command.starts_with("curl "),
            "docs/http-api.md: a command that is not curl: `{command}`"
        );
        if command.contains("| jq") && !jq {
            eprintln!("SKIPPED: `{command}`: jq is not installed");
            continue;
        }
        let out = run(&on_ports(command, &d));
        check_http_api_example(command, &out);
    }
}
