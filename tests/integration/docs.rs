//! Issues 62 and 82 (item 6): the examples of README.md and docs/ cannot go stale. Every fenced
//! `toml` block is checked by the config parser (a block whose first line is `# fragment of
//! [TABLE]` inside a minimal config that opens that table); every `sh` and `sql` block runs, as
//! written but for the ports (and a scratch root for the host's files, see [`on_scratch`]),
//! against a real daemon fed known traffic, each command's output checked against it (the
//! README's fleet command against a real ClickHouse), or is run by the test of its feature
//! ([`RUN_ELSEWHERE`]), or is listed with the reason in [`NOT_RUN`]; every image the docs show
//! exists, and the dashboard's screenshots are exactly those the browser tests write with
//! `PINBAD_SCREENSHOTS=1`.
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

/// The shell commands of the first steps' `sh` blocks, comments left out: the README's `sh`
/// blocks that [`NOT_RUN`] does not list, each of which must be in the section.
fn first_step_commands() -> Vec<String> {
    let section = first_steps();
    let runnable = runnable_blocks("README.md", "sh");
    for b in &runnable {
        assert!(
            section.contains(&b.text),
            "README.md:{}: an `sh` block outside the first steps that no test runs",
            b.line
        );
    }
    runnable
        .iter()
        .flat_map(|b| block_commands(&b.text))
        .collect()
}

/// The commands of one `sh` block: a line each (a line ending in `\` continued by the next, as
/// the shell reads it), comments and blank lines left out.
fn block_commands(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines().map(str::trim) {
        if open {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(line.trim_end_matches('\\').trim_end());
        } else if !line.is_empty() && !line.starts_with('#') {
            out.push(line.trim_end_matches('\\').trim_end().to_string());
        }
        open = line.ends_with('\\') && (open || !line.starts_with('#'));
    }
    out
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
    runnable_commands("docs/http-api.md")
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

/// The pages of docs/ that are design texts, not the manual: their blocks are not examples.
const DESIGN_TEXTS: [&str; 5] = [
    "docs/ARCHITECTURE.md",
    "docs/PROTOCOL.md",
    "docs/REPORTS.md",
    "docs/STYLE.md",
    "docs/SQL-ANCHORS.md",
];

/// The kinds of fenced block that are examples to run: shell, SQL and config.
const EXAMPLE_KINDS: [&str; 6] = ["sh", "bash", "shell", "console", "sql", "toml"];

/// The example blocks no test runs, as (document, the start of the block's first line, why).
/// Every other `sh`, `sql` and `toml` block of README.md and docs/ is run: by a test of this
/// file (see [`RUN_HERE`]) or one [`RUN_ELSEWHERE`] names. Keep it short: the point is to run
/// them.
const NOT_RUN: &[(&str, &str, &str)] = &[
    (
        "README.md",
        "cargo run --release                 # the daemon",
        "cargo: builds pinbad and runs the whole test suite, of which this test is part",
    ),
    (
        "README.md",
        "cargo test --release",
        "cargo: the whole test suite, of which this test is part",
    ),
    (
        "docs/testing.md",
        "cargo test --release",
        "cargo: the whole test suite, of which this test is part",
    ),
    (
        "docs/testing.md",
        "# fresh seeds, many statements",
        "minutes of generated SQL (50,000 statements) against a real MariaDB",
    ),
    (
        "docs/dashboard.md",
        "PINBAD_SCREENSHOTS=1 cargo test",
        "cargo: the browser tests (Chromium); the_dashboard_page_shows_the_screenshots_the_browser_tests_write checks what they write",
    ),
    (
        "docs/running.md",
        "cargo install --locked",
        "installs into /usr/local (root), after a whole release build",
    ),
    (
        "docs/running.md",
        "install -Dm644 contrib/sysctl",
        "root: writes /etc, runs sysctl and systemctl; tests/integration/packaging.rs runs the units",
    ),
    (
        "docs/running.md",
        "docker build",
        "needs a Docker daemon and the network",
    ),
];

/// The example blocks run by a test in another file, as (document, the start of the block's
/// first line, that file, the test): that test reads the block from the document.
const RUN_ELSEWHERE: &[(&str, &str, &str, &str)] = &[
    (
        "docs/fleets.md",
        "# requests and p95 per minute",
        "fleet.rs",
        "two_instances_answer_the_fleet_from_clickhouse_exactly_once",
    ),
    (
        "docs/fleets.md",
        "SELECT keys[1] AS script_name",
        "fleet.rs",
        "two_instances_answer_the_fleet_from_clickhouse_exactly_once",
    ),
    (
        "docs/stream-and-sinks.md",
        "SELECT script_name,",
        "sinks.rs",
        "clickhouse_sink_writes_every_request_and_timer",
    ),
    (
        "docs/stream-and-sinks.md",
        "SELECT script_name,",
        "sinks.rs",
        "clickhouse_sink_writes_every_request_and_timer",
    ),
    (
        "docs/sql.md",
        "SELECT script_name, req_per_sec, req_time_median",
        "sql.rs",
        "the_documented_grafana_queries_run",
    ),
    (
        "docs/sql.md",
        "SELECT $__unixEpochGroupAlias",
        "sql.rs",
        "the_documented_grafana_queries_run",
    ),
    (
        "docs/migrating.md",
        "mariadb -h pinbad-host -P 30306",
        "pinboard.rs",
        "pinboards_aggregation_runs_unchanged_through_federatedx",
    ),
];

/// The example blocks this file's tests run: every `toml` block (as config), and every other
/// example block of these documents that the two tables above do not list, each command
/// checked against what the traffic sent implies.
const RUN_HERE: &[(&str, &str)] = &[
    (
        "README.md",
        "the_readme_first_steps_answer_what_was_sent, the_readme_fleet_step_answers_from_clickhouse",
    ),
    ("docs/http-api.md", "the_http_api_examples_answer_what_was_sent"),
    ("docs/configuration.md", "the_configuration_commands_run_as_written"),
    ("docs/history.md", "the_history_examples_answer_what_was_sent"),
    ("docs/reports.md", "the_reports_examples_answer_what_was_sent"),
    ("docs/sql.md", "the_sql_examples_answer_what_was_sent"),
    ("docs/migrating.md", "the_migrating_commands_run_as_written"),
    (
        "docs/stream-and-sinks.md",
        "the_stream_and_sinks_examples_answer_what_was_sent, the_documented_clickhouse_tables_are_the_sinks",
    ),
    ("docs/fleets.md", "the_documented_clickhouse_tables_are_the_sinks"),
];

/// Whether `b` is the block a table's `(document, first line)` names.
fn names(first_line: &str, b: &Block) -> bool {
    b.text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start()
        .starts_with(first_line)
}

/// The example blocks of `doc` of kind `info` that the tests of this file run: those neither
/// table lists.
fn runnable_blocks(doc: &str, info: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
    blocks(&text)
        .into_iter()
        .filter(|b| b.info == info)
        .filter(|b| {
            !NOT_RUN.iter().any(|(d, l, _)| *d == doc && names(l, b))
                && !RUN_ELSEWHERE
                    .iter()
                    .any(|(d, l, _, _)| *d == doc && names(l, b))
        })
        .collect()
}

/// The commands of `doc`'s `sh` blocks this file's tests run (see [`block_commands`]).
fn runnable_commands(doc: &str) -> Vec<String> {
    runnable_blocks(doc, "sh")
        .iter()
        .flat_map(|b| block_commands(&b.text))
        .collect()
}

/// Every shell, SQL and config example of README.md and docs/ (but the design texts) is run by
/// a test or listed in [`NOT_RUN`] with the reason: a new example that is neither fails here,
/// naming its file and line. Each table entry names exactly one block, and a test elsewhere
/// named exists and reads the document.
#[test]
fn every_shell_sql_and_config_example_is_run_or_listed_as_not_run() {
    let mut unrun = Vec::new();
    let mut counts = [0usize; 4]; // toml, here, elsewhere, not run
    let docs: Vec<(String, String)> = documents()
        .into_iter()
        .filter(|(d, _)| !DESIGN_TEXTS.contains(&d.as_str()))
        .collect();
    for (doc, text) in &docs {
        let examples: Vec<Block> = blocks(text)
            .into_iter()
            .filter(|b| EXAMPLE_KINDS.contains(&b.info.as_str()))
            .collect();
        for b in &examples {
            let not_run = NOT_RUN.iter().any(|(d, l, _)| d == doc && names(l, b));
            let elsewhere = RUN_ELSEWHERE
                .iter()
                .any(|(d, l, _, _)| d == doc && names(l, b));
            let here = RUN_HERE.iter().any(|(d, _)| d == doc);
            if b.info == "toml" {
                assert!(
                    !not_run && !elsewhere,
                    "{doc}:{}: toml blocks are all checked",
                    b.line
                );
                counts[0] += 1;
            } else if not_run || elsewhere {
                counts[2 + not_run as usize] += 1;
            } else if here && ["sh", "sql"].contains(&b.info.as_str()) {
                counts[1] += 1;
            } else {
                unrun.push(format!("{doc}:{}: a `{}` block", b.line, b.info));
            }
        }
        // Each entry of the tables names as many blocks as it is listed times: one each.
        for (d, line) in NOT_RUN
            .iter()
            .map(|(d, l, _)| (d, l))
            .chain(RUN_ELSEWHERE.iter().map(|(d, l, _, _)| (d, l)))
            .filter(|(d, _)| **d == doc.as_str())
        {
            let listed = NOT_RUN
                .iter()
                .filter(|(x, l, _)| x == d && l == line)
                .count()
                + RUN_ELSEWHERE
                    .iter()
                    .filter(|(x, l, _, _)| x == d && l == line)
                    .count();
            let named = examples.iter().filter(|b| names(line, b)).count();
            assert_eq!(
                named, listed,
                "{doc}: `{line}` names {named} blocks, listed {listed} times"
            );
        }
    }
    assert!(
        unrun.is_empty(),
        "examples no test runs, not in NOT_RUN (tests/integration/docs.rs) either:\n{}",
        unrun.join("\n")
    );
    for (doc, ..) in NOT_RUN.iter().map(|(d, l, r)| (d, l, r)) {
        assert!(docs.iter().any(|(d, _)| d == doc), "NOT_RUN names {doc}");
    }
    for (doc, _, file, test) in RUN_ELSEWHERE {
        let src =
            std::fs::read_to_string(Path::new(ROOT).join("tests/integration").join(file)).unwrap();
        assert!(
            src.contains(&format!("fn {test}()")),
            "{file} has no test {test}"
        );
        assert!(src.contains(doc), "{file} does not read {doc}");
    }
    let this = std::fs::read_to_string(Path::new(ROOT).join("tests/integration/docs.rs")).unwrap();
    for (doc, tests) in RUN_HERE {
        for test in tests.split(", ") {
            assert!(
                this.contains(&format!("fn {test}()")),
                "{doc}: no test {test}"
            );
        }
    }
    // The manual has more than a handful of each: a test that found none would check nothing.
    let [toml, here, elsewhere, not_run] = counts;
    assert!(toml >= 15 && here >= 15 && elsewhere >= 7, "{counts:?}");
    assert!(not_run <= 12, "{not_run} blocks not run: run them");
}

/// A command as written, run on a scratch host whose root is `tmp` (the command runs there):
/// `d`'s ports as [`on_ports`] puts them (`:30002`, the UDP port, as `:0`); `pinbad` and `cargo
/// run --release --` are the binary built; the absolute paths of the host (`/etc/…`,
/// `/var/lib/pinbad`) are the same paths under `tmp` (`/etc/pinbad/token` is
/// `$TMP/etc/pinbad/token`): the shape of the command (its pipes, redirections, `mkdir -p`) is
/// kept, only the root moves.
fn on_scratch(command: &str, d: Option<&Daemon>, tmp: &Path) -> String {
    let mut c = match d {
        Some(d) => on_ports(command, d),
        None => command.to_string(),
    };
    let root = tmp.display().to_string();
    for path in ["/etc/", "/var/lib/pinbad"] {
        c = c.replace(&format!(" {path}"), &format!(" {root}{path}"));
        c = c.replace(&format!("\"{path}"), &format!("\"{root}{path}"));
    }
    c = c.replace(":30002", ":0");
    // The program of each command of the line: its first word after the start, `&&`, `|`
    // or `;` and any `NAME=VALUE`s.
    let words: Vec<&str> = c.split(' ').collect();
    let mut out: Vec<&str> = Vec::new();
    let mut at_program = true;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if at_program && words[i..].starts_with(&["cargo", "run", "--release"]) {
            out.push(BIN);
            i += 3 + (words.get(i + 3) == Some(&"--")) as usize;
            at_program = false;
            continue;
        }
        if at_program && w == "pinbad" {
            out.push(BIN);
        } else {
            out.push(w);
        }
        at_program = ["&&", "|", ";", "||"].contains(&w)
            || (at_program && (w.is_empty() || (w.contains('=') && !w.starts_with('-'))));
        i += 1;
    }
    c = out.join(" ");
    c
}

/// Runs a command line with bash in `dir` (pipes as written, `TOKEN` set to `token` when
/// given): its stdout, or a panic with its stderr.
fn run_in(command: &str, dir: &Path, token: Option<&str>) -> String {
    let mut c = Command::new("bash");
    c.args(["-o", "pipefail", "-c", command]).current_dir(dir);
    if let Some(t) = token {
        c.env("TOKEN", t);
    }
    let out = c.output().expect("run bash");
    assert!(
        out.status.success(),
        "`{command}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The daemon a documented command starts (`[RUST_LOG=…] BIN [flags]`, already through
/// [`on_scratch`]), started as the tests start one: `--config FILE` becomes the config it
/// starts with (FILE read from `tmp`), a port the command names is 0, no `--udp` is
/// `--udp 127.0.0.1:0` (the default port is shared by every test), a `RUST_LOG` is its log.
fn daemon_of(command: &str, tmp: &Path) -> Daemon {
    let command = command.split(" #").next().unwrap().trim();
    let mut words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    let log = words[0].strip_prefix("RUST_LOG=").map(str::to_string);
    if log.is_some() {
        words.remove(0);
    }
    assert_eq!(words[0], BIN, "`{command}` does not start pinbad");
    words.remove(0);
    let mut config = String::new();
    if let Some(i) = words.iter().position(|w| w == "--config") {
        config = std::fs::read_to_string(tmp.join(&words[i + 1])).unwrap();
        words.drain(i..i + 2);
    }
    let mut args: Vec<String> = words
        .into_iter()
        .map(|w| match w.rsplit_once(':') {
            Some((host, "30080" | "30306" | "30002")) => format!("{host}:0"),
            _ => w,
        })
        .collect();
    if !args.iter().any(|a| a == "--udp") {
        args.extend(["--udp".to_string(), "127.0.0.1:0".to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match log {
        Some(log) => Daemon::start_logged_with(&config, &args, None, &log),
        None => Daemon::start_with(&config, &args, None),
    }
}

/// A scratch host's root: the repository's `config/` reachable as from the repository.
fn scratch() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(Path::new(ROOT).join("config"), tmp.path().join("config")).unwrap();
    tmp
}

/// The HTTP status of `path` on `d` with the bearer `token` (none: no header).
fn status_with(d: &Daemon, path: &str, token: Option<&str>) -> String {
    let auth = token.map_or(String::new(), |t| format!("-H 'Authorization: Bearer {t}'"));
    run(&format!(
        "curl -s -o /dev/null -w '%{{http_code}}' {auth} 'http://{}{path}'",
        d.http
    ))
}

/// docs/configuration.md's commands, as written on a scratch host (see [`on_scratch`]): each
/// daemon starts with the flags and files the command gives, the token file the `mkdir` and
/// `base64` line writes is the one the daemon then asks for, and `check-config` accepts the
/// shipped config, which is the defaults as the comment says.
#[test]
fn the_configuration_commands_run_as_written() {
    let tmp = scratch();
    let commands = runnable_commands("docs/configuration.md");
    assert!(commands.len() >= 6, "{commands:?}");
    let mut token = None;
    for command in &commands {
        let c = on_scratch(command, None, tmp.path());
        let daemon = !["check-config", " > ", "import-"]
            .iter()
            .any(|w| c.contains(w));
        if !daemon {
            let out = run_in(&c, tmp.path(), None);
            if command.contains("check-config config/pinbad.toml") {
                // The effective configuration, the same as with no file at all.
                let empty = write_file(tmp.path(), "empty.toml", "");
                let defaults = run(&format!("{BIN} check-config {}", empty.display()));
                assert!(out.contains("stats_history"), "{out}");
                assert_eq!(out, defaults, "config/pinbad.toml is not the defaults");
            } else if command.contains("/etc/pinbad/token") {
                let config = std::fs::read_to_string(tmp.path().join("pinbad.toml")).unwrap();
                let file = tmp.path().join("etc/pinbad/token");
                assert!(config.contains(&*file.to_string_lossy()), "{config}");
                let t = std::fs::read_to_string(&file).unwrap().trim().to_string();
                assert_eq!(t.len(), 32, "24 bytes in base64: {t}");
                token = Some(t);
            } else {
                panic!("docs/configuration.md has a command this test does not check: `{command}`");
            }
            continue;
        }
        let d = daemon_of(&c, tmp.path());
        if !command.contains("--config pinbad.toml") {
            d.send(&[request("/index.php")]);
            d.wait_merged(1);
        }
        if command.contains("--config pinbad.toml") {
            // The token the line before wrote is needed, and taken.
            let t = token.as_deref().expect("the token line runs first");
            assert_eq!(status_with(&d, "/api/v1/status", None), "401");
            assert_eq!(status_with(&d, "/api/v1/status", Some("wrong")), "401");
            assert_eq!(status_with(&d, "/api/v1/status", Some(t)), "200");
            assert_eq!(status_with(&d, "/healthz", None), "200");
        } else if command.contains("--state-dir /var/lib/pinbad") {
            // Its state where the flag says, its window 5 minutes (a report's `window`).
            let state = tmp.path().join("var/lib/pinbad");
            assert!(
                state.join("history.sqlite").is_file(),
                "no state in {state:?}"
            );
            let info = d.json("/api/v1/reports");
            assert_eq!(info["reports"][0]["history"], 300.0, "{info}");
        } else if command.starts_with("RUST_LOG=debug") {
            d.wait_log(" DEBUG ");
        } else if command.contains("--config config/pinbad.toml") {
            assert_eq!(d.status()["requests_merged"], 1, "{}", d.status());
        } else {
            panic!("docs/configuration.md has a command this test does not check: `{command}`");
        }
    }
}

/// Runs `doc`'s commands (see [`runnable_commands`]) on a scratch host in `tmp` against `d`
/// (with `TOKEN` set to `token` when given), checking each one's output with `check`.
fn run_doc(
    doc: &str,
    d: &Daemon,
    tmp: &Path,
    token: Option<&str>,
    check: impl Fn(&str, &str),
) -> usize {
    let commands = runnable_commands(doc);
    for command in &commands {
        let out = run_in(&on_scratch(command, Some(d), tmp), tmp, token);
        check(command, &out);
    }
    commands.len()
}

/// The series of a history answer, as (key, the sum of the points' first column).
fn history_sums(v: &Value) -> Vec<(String, f64)> {
    v["series"]
        .as_array()
        .unwrap_or_else(|| panic!("no series: {v}"))
        .iter()
        .map(|s| {
            let key = s["key"].as_array().map_or(String::new(), |k| {
                k.iter()
                    .map(|x| x.as_str().unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join(",")
            });
            let sum = s["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[1].as_f64().unwrap_or(0.0))
                .sum();
            (key, sum)
        })
        .collect()
}

/// A compare answer's rows, as (key, B's request count).
fn compare_rows(v: &Value) -> Vec<(String, u64)> {
    v["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("no rows: {v}"))
        .iter()
        .map(|r| {
            (
                r["key"].to_string(),
                r["b"]["requests"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// docs/history.md's commands, as written but for the port, against a daemon fed
/// [`http_api_traffic`] and restarted (so that the steps being summed are written, as at every
/// shutdown, without waiting for a minute to end): each answers what was sent.
#[test]
fn the_history_examples_answer_what_was_sent() {
    let state = tempfile::tempdir().unwrap();
    let tmp = scratch();
    // No snapshot: the open tick is closed at shutdown and written, with the steps being summed.
    // Fine steps of a second: a comparison's range ends with the last whole step.
    let config = "stats_history = \"20s\"\nreport_ticks = 20\n\n[snapshot]\nenabled = false\n\n\
                  [history]\nfine_step = \"1s\"\n";
    let args = ["--udp", "127.0.0.1:0"];
    let d = Daemon::start_with(config, &args, Some(state.path()));
    let traffic = http_api_traffic();
    d.send(&traffic);
    d.wait_merged(traffic.len() as u64);
    assert!(d.terminate(Duration::from_secs(20)).success());
    let d = Daemon::start_with(config, &args, Some(state.path()));
    d.wait_for(
        |d| {
            let v = d.json("/api/v1/reports/info/history?from=-1h&group=total&columns=req_count");
            history_sums(&v).iter().map(|s| s.1).sum::<f64>() == 18.0
        },
        "the traffic in history",
    );
    let ran = run_doc("docs/history.md", &d, tmp.path(), None, |command, out| {
        eprintln!("{command}\n{out}");
        let json = || -> Value {
            serde_json::from_str(out)
                .unwrap_or_else(|e| panic!("`{command}`: not JSON ({e}): {out}"))
        };
        let query = command
            .split("/api/v1/")
            .nth(1)
            .unwrap()
            .trim_end_matches('\'');
        match query {
            "reports/report_by_script_name/history?filter=script_name:/index.php" => {
                assert_eq!(history_sums(&json()), [("/index.php".to_string(), 10.0)], "{out}");
            }
            "reports/info/history?from=-7d&step=1h&columns=req_per_sec,p50,p95,p99&format=csv" => {
                let lines: Vec<&str> = out.lines().collect();
                assert_eq!(lines[0], "t,req_per_sec,p50,p95,p99", "{out}");
                let per_sec: f64 = lines[1..].iter().map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap()).sum();
                assert!((per_sec * 3600.0 - 18.0).abs() < 1e-6, "{out}");
            }
            "reports/report_by_script_name/history?from=-1d&step=30m&limit=5&columns=req_count,req_time_per_sec,p99" => {
                let mut sums = history_sums(&json());
                sums.sort_by(|a, b| a.0.cmp(&b.0));
                assert_eq!(sums, [("/api.php".to_string(), 5.0), ("/index.php".to_string(), 10.0), ("/search.php".to_string(), 3.0)], "{out}");
            }
            "compare?report=report_by_script_name&vs=1h" => {
                let mut rows = compare_rows(&json());
                rows.sort();
                assert_eq!(rows.len(), 3, "{out}");
                assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 18, "{out}");
            }
            "compare?report=report_by_script_name&vs=1d&span=15m&by=p95&format=csv" => {
                assert_eq!(out.lines().count(), 1 + 3, "{out}");
                for s in ["/index.php", "/api.php", "/search.php"] {
                    assert!(out.contains(s), "{s}: {out}");
                }
            }
            // Long before the traffic: no row, and no error.
            "compare?report=report_by_script_and_status&at=2026-11-23T10:00:00Z" => {
                assert_eq!(compare_rows(&json()), [], "{out}");
            }
            "compare?report=report_by_server_name&a_from=-3h&a_to=-2h&b_from=-1h&b_to=now" => {
                let mut rows = compare_rows(&json());
                rows.sort();
                assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 18, "{out}");
                assert_eq!(rows.len(), 2, "{out}");
            }
            "request_logs/slow?server_name=www.example.com&from=-1d&sort=value" => {
                let v = json();
                let times: Vec<f64> = v["entries"].as_array().unwrap().iter().map(|e| e["request"]["request_time"].as_f64().unwrap()).collect();
                assert_eq!(times.len(), 7, "{out}");
                assert!(times.windows(2).all(|w| w[0] >= w[1]) && times[0] == 1.5, "{out}");
            }
            "request_logs/errors?server_name=www.example.com&status=5xx&limit=50" => {
                let v = json();
                let entries = v["entries"].as_array().unwrap();
                assert_eq!(entries.len(), 4, "{out}");
                assert!(entries.iter().all(|e| e["request"]["status"] == 500), "{out}");
            }
            // A page after a cursor older than the traffic: nothing older.
            "request_logs/errors?server_name=www.example.com&status=5xx&limit=50&cursor=1764100000123_812" => {
                assert_eq!(json()["entries"], serde_json::json!([]), "{out}");
            }
            _ => panic!("docs/history.md has a command this test does not check: `{command}`"),
        }
    });
    assert!(ran >= 10, "only {ran} commands");
}

/// docs/reports.md's commands, as written but for the port, against a daemon fed
/// [`http_api_traffic`]: each answers what was sent, the report created is filled from the raw
/// requests and dropped, the CSV lands in the file the command names.
#[test]
fn the_reports_examples_answer_what_was_sent() {
    let tmp = scratch();
    let d = Daemon::start("");
    let traffic = http_api_traffic();
    d.send(&traffic);
    d.wait_merged(traffic.len() as u64);
    let ran = run_doc("docs/reports.md", &d, tmp.path(), None, |command, out| {
        eprintln!("{command}\n{out}");
        let json = || -> Value {
            serde_json::from_str(out)
                .unwrap_or_else(|e| panic!("`{command}`: not JSON ({e}): {out}"))
        };
        let rows = || {
            json()["rows"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| panic!("{out}"))
        };
        let column =
            |rows: &[Value], c: &str| rows.iter().map(|r| r[c].clone()).collect::<Vec<_>>();
        if command
            .contains("report_by_script_name?sort=-req_time_total&limit=10&percentiles=50,99.9")
        {
            let rows = rows();
            assert_eq!(
                column(&rows, "script_name"),
                ["/search.php", "/index.php", "/api.php"],
                "{out}"
            );
            assert_eq!(column(&rows, "req_count"), [3, 10, 5], "{out}");
            assert!(
                rows[0]["p50"]
                    .as_f64()
                    .is_some_and(|p| (p - 1.5).abs() < 0.015),
                "{out}"
            );
            assert!(
                rows[0]["p99.9"]
                    .as_f64()
                    .is_some_and(|p| (p - 1.5).abs() < 0.015),
                "{out}"
            );
        } else if command.ends_with("/api/v1/info") {
            assert_eq!(
                find(&json(), "req_count").and_then(Value::as_u64),
                Some(18),
                "{out}"
            );
        } else if command.ends_with("/api/v1/reports") {
            let names: Vec<Value> = column(
                json()["reports"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{out}")),
                "name",
            );
            assert!(names.contains(&"report_by_script_name".into()), "{out}");
        } else if command.contains("-XPOST") {
            assert_eq!(json()["name"], "groups_by_script", "{out}");
        } else if command.contains("groups_by_script?filter=script_name:/index.php") {
            let rows = rows();
            assert_eq!(rows.len(), 1, "{out}");
            assert_eq!(
                (
                    &rows[0]["script_name"],
                    &rows[0]["group"],
                    &rows[0]["req_count"]
                ),
                (&"/index.php".into(), &"db".into(), &10.into()),
                "{out}"
            );
            assert!(
                rows[0]["timer_value"]
                    .as_f64()
                    .is_some_and(|t| (t - 1.32).abs() < 1e-3),
                "{out}"
            );
        } else if command.contains("match=script_name:^/api/&offset=100") {
            // One row matches (web2's /api.php): none past the 100th.
            assert_eq!(rows(), Vec::<Value>::new(), "{out}");
        } else if command.contains("report_by_status?format=csv") {
            let csv = std::fs::read_to_string(tmp.path().join("by_status.csv")).unwrap();
            let lines: Vec<&str> = csv.lines().collect();
            assert!(lines[0].starts_with("status,req_count"), "{csv}");
            let mut counts: Vec<String> = lines[1..]
                .iter()
                .map(|l| l.splitn(3, ',').take(2).collect::<Vec<_>>().join(":"))
                .collect();
            counts.sort();
            assert_eq!(counts, ["200:6", "404:3", "500:4", "503:5"], "{csv}");
        } else if command.contains("-XDELETE") {
            assert_eq!(d.get("/api/v1/reports/groups_by_script").0, 404, "{out}");
        } else {
            panic!("docs/reports.md has a command this test does not check: `{command}`");
        }
    });
    assert!(ran >= 8, "only {ran} commands");
}

/// docs/sql.md's commands and queries, as written but for the port, through the `mariadb`
/// client against a daemon fed [`http_api_traffic`] and given a mark; the Grafana query with
/// `$__unixEpochFilter(time)` expanded as Grafana's MySQL data source expands it
/// (`time >= FROM AND time <= TO`, unix seconds).
#[test]
fn the_sql_examples_answer_what_was_sent() {
    if !have_mariadb() {
        return;
    }
    let tmp = scratch();
    let d = Daemon::start("");
    let traffic = http_api_traffic();
    d.send(&traffic);
    d.wait_merged(traffic.len() as u64);
    let (code, mark) = d.post(
        "/api/v1/marks",
        &serde_json::json!({"text": "deploy v1.4.2", "server_name": "www.example.com", "script_name": "/index.php"}),
    );
    assert!(code < 300, "{mark}");
    let ran = run_doc("docs/sql.md", &d, tmp.path(), None, |command, out| {
        eprintln!("{command}\n{out}");
        assert!(
            command.contains("FROM report_by_script_name"),
            "docs/sql.md has a command this test does not check: `{command}`"
        );
        // The rows by total time, each p95 its requests' time within 1 %.
        let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows[0], ["script_name", "req_count", "p95"], "{out}");
        let want = [
            ("/search.php", "3", 1.5),
            ("/index.php", "10", 0.8),
            ("/api.php", "5", 0.2),
        ];
        assert_eq!(rows.len(), 1 + want.len(), "{out}");
        for (row, (script, count, p95)) in rows[1..].iter().zip(want) {
            assert_eq!((row[0], row[1]), (script, count), "{out}");
            assert!(
                (row[2].parse::<f64>().unwrap() / p95 - 1.0).abs() < 0.01,
                "{out}"
            );
        }
    });
    let queries = runnable_blocks("docs/sql.md", "sql");
    assert_eq!(
        ran + queries.len(),
        2,
        "docs/sql.md: a new example needs its check here"
    );
    let now = mark["time"].as_f64().unwrap() as i64;
    for q in queries {
        assert!(
            q.text.contains("FROM marks"),
            "docs/sql.md:{}: a query this test does not check",
            q.line
        );
        let sql = q.text.replace(
            "$__unixEpochFilter(time)",
            &format!("time >= {} AND time <= {}", now - 3600, now + 60),
        );
        write_file(tmp.path(), "query.sql", &sql);
        let port = d.mysql.unwrap().port();
        let out = run_in(
            &format!("mariadb -h 127.0.0.1 -P {port} pinba < query.sql"),
            tmp.path(),
            None,
        );
        assert_eq!(
            out,
            format!("time\ttext\ttags\n{now}\tdeploy v1.4.2\twww.example.com,/index.php\n"),
            "{sql}"
        );
    }
}

/// docs/migrating.md's commands, as written on a scratch host (see [`on_scratch`]):
/// `mysqldump --no-data pinba`, which needs a MySQL server holding pinba's tables, is the dump
/// such a server prints (`cat pinba-mysqldump.sql`, tests/integration/import.rs's dump);
/// `/etc/mysql/my.cnf` is tests/fixtures/mycnf (a pinba_engine host's, with its conf.d/);
/// pinba2's `scripts/` files and `pinba-dump.sql` are its files kept in tests/fixtures/sql. Each
/// prints the config its input implies, the gzipped dump the same, and pinba2's files make
/// their tables in a real daemon (through the `mariadb` client, when there is one).
#[test]
fn the_migrating_commands_run_as_written() {
    let tmp = scratch();
    let root = tmp.path();
    write_file(root, "pinba-mysqldump.sql", crate::import::DUMP);
    let fixtures = fixture_dir();
    run(&format!(
        "mkdir -p {r}/etc/mysql {r}/scripts/default_tables && cp -r {f}/mycnf/. {r}/etc/mysql/ \
         && cp {f}/sql/pinba2_default_tables/*.sql {r}/scripts/default_tables/ \
         && cp {f}/sql/pinba2_default_reports.sql {r}/scripts/default_reports.sql \
         && cp {f}/sql/pinba2_mysqldump.sql {r}/pinba-dump.sql",
        r = root.display(),
        f = fixtures.display()
    ));
    let sql = have_mariadb();
    let d = Daemon::start("");
    let mut imported = None;
    let mut ran = 0;
    for command in runnable_commands("docs/migrating.md") {
        if command.starts_with("mariadb ") && !sql {
            continue;
        }
        let c = on_scratch(&command, Some(&d), root)
            .replace("mysqldump --no-data pinba", "cat pinba-mysqldump.sql");
        let out = run_in(&c, root, None);
        eprintln!("{command}\n{out}");
        let file = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();
        if command.starts_with("mysqldump") {
            let written = root.join(command.rsplit(' ').next().unwrap());
            assert!(
                std::fs::metadata(&written).unwrap().len() > 100,
                "{written:?}"
            );
        } else if command.contains("import-sql pinba.sql >") && command.contains("imported.toml") {
            let toml = file("imported.toml");
            for name in ["tag_report_db", "timers_by_server"] {
                assert!(toml.contains(&format!("name = \"{name}\"")), "{toml}");
            }
            imported = Some(toml);
        } else if command.contains("import-sql pinba.sql.gz") {
            // The same reports; the first line names the file read.
            let body = |t: &str| t.split_once('\n').unwrap().1.to_string();
            assert_eq!(
                Some(body(&file("imported.toml"))),
                imported.as_deref().map(body),
                "the gzipped dump's output"
            );
        } else if command.contains("check-config imported.toml") {
            assert!(out.contains("name = \"tag_report_db\""), "{out}");
        } else if command.contains("import-mycnf") {
            assert!(
                file("pinbad.toml").contains("stats_history = "),
                "{}",
                file("pinbad.toml")
            );
        } else if command.contains("import-sql pinba.sql >> pinbad.toml") {
            let toml = file("pinbad.toml");
            assert!(
                toml.contains("stats_history = ") && toml.contains("name = \"tag_report_db\""),
                "{toml}"
            );
        } else if command.contains("check-config pinbad.toml") {
            assert!(out.contains("name = \"tag_report_db\""), "{out}");
        } else if command.starts_with("mariadb ") && command.contains(" < ") {
            // Each file's tables, made.
            let path = command
                .split(" < ")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap();
            let reports = d.json("/api/v1/reports").to_string();
            for name in file(path)
                .split("CREATE TABLE `")
                .skip(1)
                .map(|t| t.split('`').next().unwrap())
            {
                if !["stats", "active"].contains(&name) {
                    assert!(
                        reports.contains(&format!("\"name\":\"{name}\"")),
                        "{name}: {reports}"
                    );
                }
            }
        } else {
            panic!("docs/migrating.md has a command this test does not check: `{command}`");
        }
        ran += 1;
    }
    assert!(ran >= 9, "only {ran} commands");
}

/// The lines a streaming command prints while `traffic` is sent again and again, until `enough`
/// holds of them (within 20 s); the command (its process group) is then ended. `$TOKEN` is
/// `token`. An error answered instead of the stream (a JSON `error`: a 401 without the token)
/// fails at once.
fn stream_lines(
    command: &str,
    dir: &Path,
    d: &Daemon,
    token: &str,
    traffic: &[Vec<u8>],
    enough: usize,
) -> Vec<String> {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("bash")
        .args(["-c", command])
        .env("TOKEN", token)
        .current_dir(dir)
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while lines.iter().filter(|l: &&String| !l.is_empty()).count() < enough {
        assert!(Instant::now() < deadline, "`{command}`: {lines:?}");
        send_to(d.udp[0], traffic);
        while let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            let error = serde_json::from_str::<Value>(&l).is_ok_and(|v| v.get("error").is_some());
            if error {
                unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
                child.wait().unwrap();
                panic!("`{command}` answered an error: {l}");
            }
            lines.push(l);
        }
    }
    unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
    child.wait().unwrap();
    reader.join().unwrap();
    lines
}

/// docs/stream-and-sinks.md's commands, as written but for the port, against a daemon with the
/// sinks they name (a ClickHouse sink at an address nothing listens on: changing it needs no
/// server) and a token, which reads need too: each stream prints the requests its filter lets
/// through while traffic is sent (its process ended once it has), the sinks' list and changes
/// answer. Every command sends `$TOKEN`: one that did not would be answered a 401.
#[test]
fn the_stream_and_sinks_examples_answer_what_was_sent() {
    let tmp = scratch();
    let root = tmp.path();
    let token = "docs-example-token";
    let config = format!(
        "[http]\ntoken = \"{token}\"\n\n[[sink]]\nname = \"clickhouse\"\nkind = \"clickhouse\"\n\
         url = \"http://127.0.0.1:9\"\n\n[[sink]]\nname = \"requests_log\"\nkind = \"file\"\npath = \"{r}/requests.ndjson\"\n",
        r = root.display()
    );
    let d = Daemon::start(&config);
    // Every stream's filter lets some through: /index.php of a second, one of 2.5 s, 50 in nl.
    let mut traffic: Vec<Vec<u8>> = (0..5).flat_map(|_| http_api_traffic()).collect();
    traffic.push(api_example_request(
        ("/index.php", "web1", "www.example.com"),
        1.2,
        200,
        1 << 20,
        Some("nl"),
        Some(0.5),
    ));
    traffic.push(api_example_request(
        ("/slow.php", "web1", "www.example.com"),
        2.5,
        200,
        1 << 20,
        None,
        None,
    ));
    let mut ran = 0;
    for command in runnable_commands("docs/stream-and-sinks.md") {
        let c = on_scratch(&command, Some(&d), root);
        let json = |line: &str| -> Value {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("`{command}`: not JSON ({e}): {line}"))
        };
        // A read as a change: with a token set, the stream and the sinks' list need it as much
        // as the sinks' switches do (docs/running.md, Security).
        assert!(
            command.contains("-H \"Authorization: Bearer $TOKEN\""),
            "`{command}` sends no token"
        );
        if command.starts_with("curl -N") {
            // jq's output to a pipe goes in 4 KiB blocks: enough requests of 2.5 s to fill one.
            let slow: Vec<Vec<u8>> = (0..500).map(|_| traffic.last().unwrap().clone()).collect();
            let feed = if command.contains("| jq") {
                &slow
            } else {
                &traffic
            };
            let lines = stream_lines(&c, root, &d, token, feed, 2);
            eprintln!("{command}\n{}", lines.join("\n"));
            let requests: Vec<Value> = if command.contains("text/event-stream") {
                lines
                    .iter()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .map(json)
                    .collect()
            } else if command.contains("| jq") {
                assert!(lines.iter().all(|l| l == "/slow.php"), "{lines:?}");
                ran += 1;
                continue;
            } else {
                lines.iter().map(|l| json(l)).collect()
            };
            assert!(requests.len() >= 2, "{lines:?}");
            let query = command
                .split('?')
                .nth(1)
                .unwrap_or("")
                .split('\'')
                .next()
                .unwrap();
            for r in &requests {
                match query {
                    "" => assert!(
                        ["/index.php", "/api.php", "/search.php", "/slow.php"]
                            .contains(&r["script_name"].as_str().unwrap_or_default()),
                        "{r}"
                    ),
                    "script_name=/index.php&min_time=1&timers=true" => {
                        assert_eq!(r["script_name"], "/index.php", "{r}");
                        assert!(r["request_time"].as_f64().unwrap() >= 1.0, "{r}");
                        assert_eq!(r["timers"][0]["tags"]["group"], "db", "{r}");
                    }
                    "sample=0.01&tag.country=nl" => assert_eq!(r["tags"]["country"], "nl", "{r}"),
                    "status=500" => assert_eq!(r["status"], 500, "{r}"),
                    _ => panic!("docs/stream-and-sinks.md has a stream this test does not check: `{command}`"),
                }
            }
        } else {
            let out = run_in(&c, root, Some(token));
            eprintln!("{command}\n{out}");
            let v = json(&out);
            if command.contains("/api/v1/sinks | jq") {
                let names: Vec<&str> = v["sinks"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{out}"))
                    .iter()
                    .map(|s| s["name"].as_str().unwrap())
                    .collect();
                assert_eq!(names, ["clickhouse", "requests_log"], "{out}");
            } else if command.contains("sinks/clickhouse") {
                assert_eq!(v["enabled"], false, "{out}");
            } else if command.contains("sinks/requests_log") {
                assert_eq!(v["sample"], 0.1, "{out}");
            } else {
                panic!(
                    "docs/stream-and-sinks.md has a command this test does not check: `{command}`"
                );
            }
        }
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} commands");
}

/// `sql` with its whitespace as one space, none inside parentheses, no final `;`.
fn normal_sql(sql: &str) -> String {
    sql.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace(" )", ")")
        .trim_end_matches(';')
        .to_string()
}

/// The ClickHouse tables docs/fleets.md and docs/stream-and-sinks.md show are, statement for
/// statement, the ones the sink creates (`create_tables`, run against a real ClickHouse by
/// tests/integration/sinks.rs and fleet.rs): an operator who makes them by hand gets the
/// columns the sink writes.
#[test]
fn the_documented_clickhouse_tables_are_the_sinks() {
    use pinbad::sink::clickhouse::{requests_ddl, ticks_ddl, timers_ddl};
    let none = Duration::ZERO;
    let sinks = [
        requests_ddl("default", "pinba_requests", none),
        timers_ddl("default", "pinba_timers", none),
        ticks_ddl("default", "pinba_report_ticks", none),
    ];
    let mut checked = 0;
    for doc in ["docs/fleets.md", "docs/stream-and-sinks.md"] {
        for b in runnable_blocks(doc, "sql") {
            for statement in b.text.split(";\n").filter(|s| !s.trim().is_empty()) {
                let documented = normal_sql(statement);
                let table = documented
                    .strip_prefix("CREATE TABLE IF NOT EXISTS ")
                    .and_then(|t| t.split(' ').next())
                    .unwrap_or_else(|| panic!("{doc}:{}: an sql block no test runs", b.line));
                let sink = sinks
                    .iter()
                    .find(|s| s.contains(&format!(" {table} ")))
                    .unwrap_or_else(|| panic!("{doc}:{}: no sink creates {table}", b.line));
                assert_eq!(documented, normal_sql(sink), "{doc}:{}", b.line);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3);
}
