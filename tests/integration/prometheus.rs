//! `GET /metrics` against a real Prometheus server (Debian's `prometheus`, with `promtool`):
//! send known traffic, let Prometheus scrape the daemon every second, ask Prometheus, compare.
//! The Grafana dashboard's PromQL is checked against the same server.
//!
//! Skips with a visible message when `prometheus` or `promtool` is absent, unless
//! `PINBAD_REQUIRE_PROMETHEUS` is set, in which case their absence fails the test (CI sets it).
//! The server is the test's own (temporary directory, free loopback port, stopped by PID on
//! drop): a system Prometheus the package may have started is neither used nor disturbed.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::*;
use crate::sent::Sent;

/// True when `prometheus` and `promtool` can run; otherwise skips (or fails under
/// PINBAD_REQUIRE_PROMETHEUS).
pub fn prometheus_available() -> bool {
    let runs = |bin: &str| {
        Command::new(bin)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let ok = runs("prometheus") && runs("promtool");
    if !ok {
        assert!(
            std::env::var_os("PINBAD_REQUIRE_PROMETHEUS").is_none(),
            "PINBAD_REQUIRE_PROMETHEUS is set but prometheus/promtool are not installed"
        );
        eprintln!(
            "SKIPPED: prometheus and promtool are not installed (apt-get install prometheus)"
        );
    }
    ok
}

/// A Prometheus server of the test's own, scraping one target every second; killed on drop.
pub struct Prometheus {
    child: Child,
    pub url: String,
    dir: tempfile::TempDir,
    agent: ureq::Agent,
}

impl Prometheus {
    /// Starts Prometheus from a temporary directory on a free loopback port, scraping
    /// `target`'s `/metrics` every second, and waits until it is ready.
    pub fn start(target: SocketAddr) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: pinbad\n    metrics_path: /metrics\n    \
             static_configs:\n      - targets: ['{target}']\n"
        );
        let config_path = write_file(dir.path(), "prometheus.yml", &config);
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(10))
            .build();
        // The port is free when chosen; if another process takes it before Prometheus binds,
        // Prometheus exits and another port is tried.
        for _ in 0..3 {
            let port = free_port();
            let log_file = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
            let mut child = Command::new("prometheus")
                .arg(format!("--config.file={}", config_path.display()))
                .arg(format!(
                    "--storage.tsdb.path={}",
                    dir.path().join("data").display()
                ))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                .arg("--log.level=warn")
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log_file)
                .spawn()
                .expect("start prometheus");
            let url = format!("http://127.0.0.1:{port}");
            let answers = || {
                agent
                    .get(&format!("{url}/-/ready"))
                    .call()
                    .is_ok_and(|r| r.status() == 200)
            };
            match wait_ready(&mut child, Duration::from_secs(60), answers) {
                Startup::Ready => {
                    return Prometheus {
                        child,
                        url,
                        dir,
                        agent,
                    }
                }
                Startup::Exited(_) => {}
                Startup::TimedOut => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("prometheus not ready within 60 s: {}", log(dir.path()));
                }
            }
            // Exited (the port was taken meanwhile): try another.
            let _ = child.wait();
            eprintln!(
                "prometheus did not start on port {port}: {}",
                log(dir.path())
            );
        }
        panic!("prometheus did not start");
    }

    fn log(&self) -> String {
        log(self.dir.path())
    }

    /// An instant query through Prometheus's HTTP API: the result vector, or the error Prometheus
    /// gave (a PromQL that does not parse, say).
    pub fn query(&self, expr: &str) -> Result<Vec<Value>, String> {
        let q: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("query", expr)
            .finish();
        let url = format!("{}/api/v1/query?{q}", self.url);
        let text = match self.agent.get(&url).call() {
            Ok(r) => r.into_string().unwrap(),
            Err(ureq::Error::Status(_, r)) => r.into_string().unwrap(),
            Err(e) => return Err(e.to_string()),
        };
        let body: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        if body["status"] != "success" {
            return Err(format!("{}: {}", body["errorType"], body["error"]));
        }
        Ok(body["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default())
    }

    /// The value of a query that gives one sample (`None`: no sample).
    pub fn value(&self, expr: &str) -> Option<f64> {
        let result = self.query(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let v = result.first()?["value"][1].as_str()?.parse().ok()?;
        Some(v)
    }

    /// Polls `cond` every 100 ms for up to 60 s.
    pub fn wait_for(&self, what: &str, cond: impl Fn(&Prometheus) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if cond(self) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "timed out waiting for {what}; prometheus log: {}",
            self.log()
        );
    }
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default()
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        // Our own child, by its PID.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a promtool command: whether it succeeded, and what it said (stdout and stderr).
fn run_promtool(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().expect("run promtool");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// Runs `promtool check metrics` on `text`; its complaints, empty when there are none.
pub fn promtool_check(text: &str, dir: &Path) -> String {
    let file = write_file(dir, "metrics.txt", text);
    let mut promtool = Command::new("promtool");
    promtool
        .args(["check", "metrics"])
        .stdin(std::fs::File::open(&file).unwrap());
    let (ok, said) = run_promtool(&mut promtool);
    if ok {
        said
    } else {
        format!("failed: {said}")
    }
}

/// `n` requests: 5 scripts, 80 % status 200 and the rest 404 or 500, request times spread
/// log-uniformly from 0.2 ms to 5 s (every histogram bucket gets samples), 0 to 2 timers of
/// groups `db` and `cache`.
fn traffic(n: usize) -> Vec<Sent> {
    let mut rnd = rng(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            let exp = rnd(10_000) as f64 / 10_000.0;
            let request_time = (0.0002 * (25_000f64).powf(exp)) as f32;
            let timers = (0..rnd(3))
                .map(|i| {
                    let group = if i == 0 { "db" } else { "cache" };
                    let value = (1 + rnd(20_000)) as f32 * 1e-6;
                    let tags = vec![("group".to_string(), group.to_string())];
                    (1 + rnd(2) as u32, value, 0.0, 0.0, tags)
                })
                .collect();
            Sent {
                hostname: "web1".into(),
                server_name: "www.example.com".into(),
                script_name: format!("/s{}.php", rnd(5)),
                status: [200, 200, 200, 200, 200, 200, 200, 200, 404, 500][rnd(10) as usize],
                schema: None,
                request_time,
                ru_utime: request_time / 2.0,
                ru_stime: request_time / 4.0,
                document_size: 1000,
                memory_footprint: 0,
                tags: Vec::new(),
                timers,
            }
        })
        .collect()
}

const CONFIG: &str = r#"
[[report]]
name = "scripts"
keys = ["script_name", "status", "server_name", "hostname"]
prometheus = true

[[report]]
name = "timers"
keys = ["timer_tag:group"]
prometheus = true

[[report]]
name = "not_exported"
keys = ["script_name"]

# Exported, but without the keys the dashboard's per-script panels need: not offered there.
[[report]]
name = "by_server"
keys = ["server_name"]
prometheus = true
"#;

/// Index of the default bucket (`pinbad::metrics::DEFAULT_BUCKETS_SECONDS`, then +Inf) holding
/// `seconds`.
fn bucket(seconds: f64) -> usize {
    pinbad::metrics::DEFAULT_BUCKETS_SECONDS.partition_point(|&b| b < seconds)
}

fn dashboard_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contrib/grafana/pinbad.json")
}

/// Every PromQL expression of the dashboard (`expr` of every target of every panel, rows'
/// panels included), with the panel title.
fn dashboard_queries() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dashboard_path()).unwrap();
    let dash: Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    fn walk(panels: &Value, out: &mut Vec<(String, String)>) {
        for p in panels.as_array().into_iter().flatten() {
            for t in p["targets"].as_array().into_iter().flatten() {
                if let Some(e) = t["expr"].as_str() {
                    out.push((p["title"].as_str().unwrap_or("").to_string(), e.to_string()));
                }
            }
            walk(&p["panels"], out);
        }
    }
    walk(&dash["panels"], &mut out);
    out
}

/// The metric and label of every `label_values(METRIC, LABEL)` variable of the dashboard (a
/// Grafana function, not PromQL: the test asks Prometheus for `count by (LABEL) (METRIC)`).
fn dashboard_variables() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dashboard_path()).unwrap();
    let dash: Value = serde_json::from_str(&text).unwrap();
    dash["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| {
            let q = v["query"]["query"].as_str()?;
            let args = q.strip_prefix("label_values(")?.strip_suffix(')')?;
            let (metric, label) = args.rsplit_once(',')?;
            Some((metric.trim().to_string(), label.trim().to_string()))
        })
        .collect()
}

/// The dashboard's variables replaced the way Grafana does: `$report`, `$timer_report` by the
/// test's report names, `$top` by 3 scripts (of the 5 sent), `$__rate_interval` by a range that
/// holds several 1 s scrapes, `$instance`, `$server`, `$host` by the one value each that the
/// traffic has (as a pick of one value; "All" is `.*`).
fn instantiate(expr: &str, instance: &str) -> String {
    expr.replace("$__rate_interval", "1m")
        .replace("$top", "3")
        .replace("$timer_report", "timers")
        .replace("$report", "scripts")
        .replace("$instance", instance)
        .replace("$server", "www.example.com")
        .replace("$host", "web1")
}

/// The names of the dashboard's variables, in order.
fn dashboard_variable_names(dash: &Value) -> Vec<String> {
    dash["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect()
}

/// The shipped dashboard parses; every variable an operator picks (instance, server, host,
/// the reports, `top`) is used by queries of its panels, and every `$name` the queries use is a
/// variable of the dashboard (or one of Grafana's own `$__` names). Every series a query reads is
/// filtered by instance; the request report's by server and host too. Needs no Prometheus.
#[test]
fn the_grafana_dashboard_uses_each_of_its_variables() {
    let dash: Value =
        serde_json::from_str(&std::fs::read_to_string(dashboard_path()).unwrap()).unwrap();
    let names = dashboard_variable_names(&dash);
    for want in [
        "instance",
        "server",
        "host",
        "report",
        "timer_report",
        "top",
    ] {
        assert!(names.iter().any(|n| n == want), "{want}: {names:?}");
    }
    let queries = dashboard_queries();
    // The variables' own queries may use the variables before them (server and host offer the
    // chosen report's values on the chosen instances).
    let variable_queries: Vec<String> = dash["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["query"]["query"].as_str().map(str::to_string))
        .collect();
    let used = |name: &str| -> Vec<&str> {
        queries
            .iter()
            .filter(|(_, e)| {
                e.match_indices(&format!("${name}")).any(|(i, m)| {
                    !e[i + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
            .map(|(t, _)| t.as_str())
            .collect()
    };
    for name in &names {
        assert!(!used(name).is_empty(), "no panel uses ${name}");
    }
    let var_ref = variable_refs(
        queries
            .iter()
            .map(|(_, e)| e.as_str())
            .chain(variable_queries.iter().map(String::as_str)),
    );
    for r in &var_ref {
        assert!(
            r.starts_with("__") || names.contains(r),
            "`${r}` is no variable of the dashboard ({names:?})"
        );
    }
    for (title, expr) in &queries {
        for selector in selectors(expr) {
            assert!(
                selector.contains("instance=~\"$instance\""),
                "{title:?}: `{selector}` is not filtered by instance"
            );
            if selector.contains("report=\"$report\"") {
                for filter in ["server_name=~\"$server\"", "hostname=~\"$host\""] {
                    assert!(
                        selector.contains(filter),
                        "{title:?}: `{selector}` lacks {filter}"
                    );
                }
            }
        }
    }
    // A panel of each family uses server and host: every request panel.
    assert!(used("server").len() >= 7, "{:?}", used("server"));
    assert_eq!(used("server"), used("host"));
}

/// The `$name`s of `texts` (`${name}` too).
fn variable_refs<'a>(texts: impl Iterator<Item = &'a str>) -> std::collections::BTreeSet<String> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    texts
        .flat_map(|t| t.split('$').skip(1))
        .map(|after| after.trim_start_matches('{'))
        .map(|after| after[..after.find(|c| !word(c)).unwrap_or(after.len())].to_string())
        .filter(|name| !name.is_empty())
        .collect()
}

/// Each series selector of a PromQL expression: a metric name with its `{…}` (or none).
fn selectors(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = expr.as_bytes();
    let mut i = 0;
    while let Some(at) = expr[i..].find("pinba").map(|k| k + i) {
        let start_ok = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        let mut end = at;
        while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
            end += 1;
        }
        if start_ok {
            if b.get(end) == Some(&b'{') {
                end += expr[end..].find('}').map_or(expr.len() - end, |k| k + 1);
            }
            out.push(expr[at..end].to_string());
        }
        i = end.max(at + 1);
    }
    out
}

#[test]
fn prometheus_scrapes_exact_counters_rates_and_quantiles_and_the_dashboard_queries_work() {
    if !prometheus_available() {
        return;
    }
    let d = Daemon::start(CONFIG);
    let p = Prometheus::start(d.http);
    p.wait_for("the first scrape", |p| {
        p.value(r#"up{job="pinbad"}"#) == Some(1.0)
    });

    // Two halves with a scrape between them, so that rate() sees the counter grow.
    let sent = traffic(2000);
    let (first, second) = sent.split_at(1000);
    let datagrams = |s: &[Sent]| s.iter().map(Sent::encode).collect::<Vec<_>>();
    let total = r#"sum(pinba_requests_total{report="scripts"})"#;
    d.send(&datagrams(first));
    p.wait_for("Prometheus to count the first half", |p| {
        p.value(total) == Some(1000.0)
    });
    d.send(&datagrams(second));
    p.wait_for("Prometheus to count every request", |p| {
        p.value(total) == Some(2000.0)
    });
    let s = d.status();
    assert_eq!(s["metrics"]["requests_dropped"], 0, "{s}");
    assert_eq!(s["metrics"]["series_lost"], 0, "{s}");

    // Per row, exactly: the requests of one script and status.
    let want = sent
        .iter()
        .filter(|r| r.script_name == "/s1.php" && r.status == 404)
        .count() as f64;
    assert_eq!(
        p.value(r#"pinba_requests_total{report="scripts",script_name="/s1.php",status="404"}"#),
        Some(want)
    );
    // Timer hits, exactly.
    let hits: u64 = sent
        .iter()
        .flat_map(|r| &r.timers)
        .filter(|t| t.4[0].1 == "db")
        .map(|t| t.0 as u64)
        .sum();
    assert_eq!(
        p.value(r#"pinba_timer_hits_total{report="timers",group="db"}"#),
        Some(hits as f64)
    );
    // A report without `prometheus = true` exports nothing.
    assert_eq!(
        p.query(r#"pinba_requests_total{report="not_exported"}"#),
        Ok(vec![])
    );

    let rate = p
        .value(r#"sum(rate(pinba_requests_total{report="scripts"}[1m]))"#)
        .unwrap();
    assert!(rate > 0.0, "rate {rate}");

    // The p95 of the buckets lands within one bucket of the true p95.
    let times: Vec<(f64, u64)> = sent.iter().map(|r| (r.request_time as f64, 1)).collect();
    let true_p95 = nearest_rank(&times, 95.0);
    let est = p
        .value(
            r#"histogram_quantile(0.95, sum by (le) (pinba_request_time_seconds_bucket{report="scripts"}))"#,
        )
        .unwrap();
    assert!(
        bucket(est).abs_diff(bucket(true_p95)) <= 1,
        "histogram_quantile {est} vs true p95 {true_p95}"
    );

    // promtool finds nothing to complain about in what the daemon serves.
    let (code, metrics) = d.get_text("/metrics");
    assert_eq!(code, 200);
    assert!(
        metrics.contains("pinba_request_time_seconds_bucket{"),
        "{metrics}"
    );
    let said = promtool_check(&metrics, p.dir.path());
    assert!(said.trim().is_empty(), "promtool check metrics: {said}");

    // Every query of the Grafana dashboard parses and returns data.
    let queries = dashboard_queries();
    assert!(queries.len() >= 8, "{queries:?}");
    let instance = d.http.to_string();
    for (title, expr) in &queries {
        let e = instantiate(expr, &instance);
        let result = p
            .query(&e)
            .unwrap_or_else(|err| panic!("dashboard panel {title:?}: `{e}`: {err}"));
        assert!(
            !result.is_empty(),
            "dashboard panel {title:?}: `{e}` returns no data"
        );
        // A per-script panel shows `$top` scripts, not all of them.
        if title.contains("by script") {
            assert!(expr.contains("topk($top,"), "{title:?}: `{expr}`");
            assert!(result.len() <= 3, "{title:?}: `{e}`: {result:?}");
        }
    }
    let variables = dashboard_variables();
    assert_eq!(variables.len(), 5, "{variables:?}");
    // The instance scraped, the servers and hosts of the chosen report, and only the reports
    // with the keys their panels need.
    let mut offered = Vec::new();
    for (metric, label) in variables {
        let e = format!("count by ({label}) ({})", instantiate(&metric, &instance));
        let values: Vec<Value> = p
            .query(&e)
            .unwrap()
            .iter()
            .map(|r| r["metric"][&label].clone())
            .collect();
        offered.push(values);
    }
    assert_eq!(
        offered,
        [
            vec![json!(instance)],
            vec![json!("scripts")],
            vec![json!("www.example.com")],
            vec![json!("web1")],
            vec![json!("timers")]
        ]
    );
}

/// Every figure of `/api/v1/status` is on `/metrics` (named by docs/prometheus.md's rule), and a report
/// created over the API with `"prometheus": true` is exported. Needs no Prometheus.
#[test]
fn metrics_show_every_status_figure_and_run_time_reports() {
    let d = Daemon::start("");
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "api_scripts", "keys": ["script_name"], "prometheus": true}),
    );
    assert_eq!(code, 201, "{body}");
    let def = named(&d.json("/api/v1/reports")["reports"], "api_scripts");
    assert_eq!(def["prometheus"], true, "{def}");
    let sent = traffic(50);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(50);
    // The metrics thread folds rounds shortly after the merger: wait for its counts.
    let total = |text: &str| -> f64 {
        text.lines()
            .filter(|l| l.starts_with("pinba_requests_total{report=\"api_scripts\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    d.wait_for(
        |d| total(&d.get_text("/metrics").1) == 50.0,
        "the api_scripts series to count 50 requests",
    );
    let (_, text) = d.get_text("/metrics");
    assert!(
        text.contains("pinba_requests_total{report=\"api_scripts\",script_name=\"/s"),
        "{def} {text}"
    );

    let names: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .collect();
    let status = d.status();
    let mut missing = Vec::new();
    let check = |key: &str, missing: &mut Vec<String>| {
        let name = match key {
            "requests_rejected" => "pinbad_requests_rejected_total".to_string(),
            "temp_pool_memory" => "pinbad_temp_pool_memory_bytes".to_string(),
            "merge_last_ms" => "pinbad_merge_last_seconds".to_string(),
            "merge_max_ms" => "pinbad_merge_max_seconds".to_string(),
            "merge_waited_ms" => "pinbad_merge_waited_seconds".to_string(),
            "merge_turn_waited_ms" => "pinbad_merge_turn_waited_seconds".to_string(),
            "metrics_series" => "pinbad_metric_series".to_string(),
            "metrics_rows_folded" => "pinbad_metric_rows_folded".to_string(),
            // A gauge named `_count` is a summary's to promtool.
            "marks_count" => "pinbad_marks".to_string(),
            // Times of the snapshot in seconds, as Prometheus wants them.
            "snapshot_restore_ms" | "snapshot_write_ms" => {
                format!("pinbad_{}_seconds", key.trim_end_matches("_ms"))
            }
            "snapshot_saved_at" => "pinbad_snapshot_saved_at_seconds".to_string(),
            k if k.starts_with("metrics_") => {
                format!("pinbad_metric_{}_total", &k["metrics_".len()..])
            }
            "reports_update_ns_per_request" => {
                "pinbad_report_update_seconds_per_request".to_string()
            }
            k if k.starts_with("reports_") => format!("pinbad_report_{}", &k["reports_".len()..]),
            k => format!("pinbad_{}", k.strip_prefix("current_").unwrap_or(k)),
        };
        let found =
            names.contains(name.as_str()) || names.contains(format!("{name}_total").as_str());
        if !found {
            missing.push(format!("{key} (as {name})"));
        }
    };
    for (k, v) in status.as_object().unwrap() {
        match v {
            Value::Number(_) => check(k, &mut missing),
            Value::Object(o) if k == "rejected_by_reason" => {
                for reason in o.keys() {
                    let line = format!("pinbad_requests_rejected_total{{reason=\"{reason}\"}}");
                    if !text.contains(&line) {
                        missing.push(line);
                    }
                }
            }
            Value::Object(o) => {
                for (sub, sv) in o {
                    if sv.is_number() {
                        check(&format!("{k}_{sub}"), &mut missing);
                    }
                }
            }
            Value::Array(a) if k == "reports" => {
                for (field, fv) in a[0].as_object().unwrap() {
                    if fv.is_number() {
                        check(&format!("reports_{field}"), &mut missing);
                    }
                }
            }
            _ => {} // strings: udp_listen
        }
    }
    assert!(
        missing.is_empty(),
        "status figures missing on /metrics: {missing:?}"
    );
    assert!(text.contains("pinbad_report_rows{report=\"report_by_script_name\"}"));
}

/// `limits.max_metric_series` bounds the export: rows beyond it get no series, the loss is counted
/// on `/metrics` and in the status, and the rows that have series count every request of theirs.
#[test]
fn metric_series_beyond_the_limit_are_not_created_and_counted() {
    // Room for two rows of 61 series.
    let d = Daemon::start(
        "[limits]\nmax_metric_series = 122\n\n[[report]]\nname = \"scripts\"\nkeys = [\"script_name\"]\nprometheus = true\n",
    );
    let sent = traffic(200);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(200);
    d.wait_for(
        |d| {
            let m = &d.status()["metrics"];
            m["series"] == 122 && m["series_lost"].as_u64().unwrap_or(0) > 0
        },
        "the series limit and its loss counter",
    );
    let (_, text) = d.get_text("/metrics");
    let rows: Vec<(&str, f64)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("pinba_requests_total{report=\"scripts\",script_name=\""))
        .filter_map(|l| {
            let (script, rest) = l.split_once('"')?;
            Some((script, rest.rsplit(' ').next()?.parse().ok()?))
        })
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for (script, count) in rows {
        let want = sent.iter().filter(|r| r.script_name == script).count() as f64;
        assert_eq!(count, want, "{script}");
    }
    let lost = text
        .lines()
        .find_map(|l| l.strip_prefix("pinbad_metric_series_lost_total "))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap();
    let row = pinbad::metrics::REQUEST_ROW_SERIES as u64;
    assert!(lost > 0 && lost % row == 0, "{lost}");
}

/// A realistic mix: pages of four servers, each a few scripts whose request times are
/// log-normal (medians from 4 ms to 300 ms, spreads of 0.4 to 0.9), about 1 % of them slow
/// outliers of 1 to 8 s.
fn realistic_mix(n: usize) -> Vec<Sent> {
    let mut rnd = rng(0x5eed_f1a7e);
    // (server, script, median seconds, sigma), by popularity.
    let pages: [(&str, &str, f64, f64); 8] = [
        ("shop.example.com", "/index.php", 0.018, 0.5),
        ("shop.example.com", "/cart.php", 0.060, 0.7),
        ("api.example.com", "/v1/items", 0.004, 0.4),
        ("api.example.com", "/v1/search", 0.090, 0.9),
        ("blog.example.com", "/post.php", 0.030, 0.6),
        ("blog.example.com", "/feed.php", 0.012, 0.5),
        ("admin.example.com", "/report.php", 0.300, 0.8),
        ("admin.example.com", "/login.php", 0.025, 0.4),
    ];
    let weights = [30u64, 10, 25, 8, 12, 6, 2, 7];
    let total: u64 = weights.iter().sum();
    let mut uniform = move || (rnd(1 << 30) as f64 + 0.5) / (1u64 << 30) as f64;
    (0..n)
        .map(|_| {
            let mut pick = (uniform() * total as f64) as u64;
            let mut i = 0;
            while pick >= weights[i] {
                pick -= weights[i];
                i += 1;
            }
            let (server, script, median, sigma) = pages[i];
            // Box-Muller.
            let z = (-2.0 * uniform().ln()).sqrt() * (2.0 * std::f64::consts::PI * uniform()).cos();
            let mut t = median * (sigma * z).exp();
            if uniform() < 0.01 {
                t = 1.0 + 7.0 * uniform();
            }
            Sent {
                hostname: "web1".into(),
                server_name: server.into(),
                script_name: script.into(),
                status: 200,
                schema: None,
                request_time: t as f32,
                ru_utime: (t / 2.0) as f32,
                ru_stime: (t / 8.0) as f32,
                document_size: 1000,
                memory_footprint: 0,
                tags: Vec::new(),
                timers: Vec::new(),
            }
        })
        .collect()
}

/// `histogram_quantile()` over the default buckets lands within 10 % of pinbad's own percentiles
/// (the report query's) for a realistic mix, per server and over everything; a report's own
/// `prometheus_buckets` are the `le` it exports, and a bad one is refused naming the field.
#[test]
fn histogram_quantile_agrees_with_pinbads_own_percentiles() {
    if !prometheus_available() {
        return;
    }
    let d = Daemon::start(
        r#"
[[report]]
name = "servers"
keys = ["server_name"]
percentiles = [50, 90, 95, 99]
prometheus = true

[[report]]
name = "coarse"
keys = ["server_name"]
prometheus = true
prometheus_buckets = [0.01, 0.1, 1]
"#,
    );
    let p = Prometheus::start(d.http);
    p.wait_for("the first scrape", |p| {
        p.value(r#"up{job="pinbad"}"#) == Some(1.0)
    });
    let sent = realistic_mix(20_000);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    p.wait_for("Prometheus to count every request", |p| {
        p.value(r#"sum(pinba_requests_total{report="servers"})"#) == Some(sent.len() as f64)
    });

    let ours = d.json("/api/v1/reports/servers?percentiles=50,90,95,99");
    let info = d.json("/api/v1/reports/info?percentiles=50,90,95,99");
    let mut compared = Vec::new();
    for q in [50.0, 90.0, 95.0, 99.0] {
        let col = format!("p{q}");
        let want = info["rows"][0][&col].as_f64().unwrap();
        let expr = format!(
            r#"histogram_quantile({}, sum by (le) (pinba_request_time_seconds_bucket{{report="servers"}}))"#,
            q / 100.0
        );
        compared.push(("all".to_string(), q, want, p.value(&expr).unwrap()));
        for row in ours["rows"].as_array().unwrap() {
            let server = row["server_name"].as_str().unwrap();
            let want = row[&col].as_f64().unwrap();
            let expr = format!(
                r#"histogram_quantile({}, sum by (le) (pinba_request_time_seconds_bucket{{report="servers",server_name="{server}"}}))"#,
                q / 100.0
            );
            compared.push((server.to_string(), q, want, p.value(&expr).unwrap()));
        }
    }
    assert_eq!(compared.len(), 4 * 5, "{ours}");
    let worst = compared
        .iter()
        .map(|(_, _, want, got)| (got - want).abs() / want)
        .fold(0.0, f64::max);
    eprintln!("histogram_quantile vs pinbad, worst relative difference {worst:.3}: {compared:?}");
    for (server, q, want, got) in &compared {
        assert!(
            (got - want).abs() <= 0.10 * want,
            "{server} p{q}: histogram_quantile {got} vs pinbad {want}"
        );
    }

    // The coarse report's own buckets are its `le`, and the listing says so.
    let (_, text) = d.get_text("/metrics");
    let les: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| l.starts_with(r#"pinba_request_time_seconds_bucket{"#))
        .filter(|l| l.contains(r#"report="coarse""#))
        .filter_map(|l| l.split("le=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(
        les,
        ["+Inf", "0.01", "0.1", "1.0"].into_iter().collect(),
        "{text}"
    );
    let listed = named(&d.json("/api/v1/reports")["reports"], "coarse");
    assert_eq!(
        listed["prometheus_buckets"],
        json!([0.01, 0.1, 1.0]),
        "{listed}"
    );
    let listed = named(&d.json("/api/v1/reports")["reports"], "servers");
    assert_eq!(
        listed["prometheus_buckets"].as_array().map(Vec::len),
        Some(pinbad::metrics::DEFAULT_BUCKETS_SECONDS.len()),
        "{listed}"
    );
    for (buckets, needle) in [
        (json!([0.1, 0.01]), "go up"),
        (json!([-1]), "above 0"),
        (json!("fine"), "expected a list"),
    ] {
        let (code, body) = d.post(
            "/api/v1/reports",
            &json!({"name": "bad", "keys": ["script_name"], "prometheus": true, "prometheus_buckets": buckets}),
        );
        assert_eq!(code, 400, "{body}");
        assert!(body["detail"].as_str().unwrap().contains(needle), "{body}");
    }
}

fn alerts_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contrib/prometheus")
}

/// `contrib/prometheus/alerts.yml` passes `promtool test rules` (its tests fire each alert on
/// the series that should and not before), and against a real daemon configured with the reports
/// its header asks for, scraped by a real Prometheus, its queries find the series they alert on:
/// a page's first 500 is an error page at once, a server's p95 is there to compare.
#[test]
fn alerts_pass_promtool_and_read_the_daemons_series() {
    if !prometheus_available() {
        return;
    }
    let (ok, said) = run_promtool(
        Command::new("promtool")
            .args(["test", "rules", "alerts.test.yml"])
            .current_dir(alerts_dir()),
    );
    assert!(ok, "promtool test rules: {said}");
    assert!(said.contains("SUCCESS"), "{said}");

    // The reports the header documents, as written there (`#   ` before each line).
    let alerts = std::fs::read_to_string(alerts_dir().join("alerts.yml")).unwrap();
    let config: String = alerts
        .lines()
        .filter_map(|l| l.strip_prefix("#   "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(config.contains("name = \"pages\""), "{config}");
    let d = Daemon::start(&config);
    let p = Prometheus::start(d.http);
    p.wait_for("the first scrape", |p| {
        p.value(r#"up{job="pinbad"}"#) == Some(1.0)
    });
    let mut sent = traffic(200);
    for s in &mut sent {
        s.status = 200;
    }
    sent[107].status = 503;
    sent[107].script_name = "/broken.php".into();
    // Two halves with a scrape between them, so that rate() sees the counters grow.
    let total = r#"sum(pinba_requests_total{report="servers"})"#;
    d.send(&sent[..100].iter().map(Sent::encode).collect::<Vec<_>>());
    p.wait_for("Prometheus to count the first half", |p| {
        p.value(total) == Some(100.0)
    });
    d.send(&sent[100..].iter().map(Sent::encode).collect::<Vec<_>>());
    p.wait_for("Prometheus to count every request", |p| {
        p.value(total) == Some(200.0)
    });
    // The error page's expression, as the alert has it, without the rule around it.
    let expr = |name: &str| -> String {
        let start = alerts.find(&format!("- alert: {name}")).unwrap();
        let block = &alerts[start..];
        let body = block.split("expr: |\n").nth(1).unwrap();
        body.lines()
            .take_while(|l| l.starts_with("          ") || l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let errors = p.query(&expr("PinbaErrorPages")).unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["metric"]["script_name"], "/broken.php");
    assert_eq!(errors[0]["metric"]["status"], "503");
    // The slow-server expression compares a real p95 (no alert: the threshold is 1 s).
    let p95 = expr("PinbaServerSlow").replace(") > 1", ")");
    p.wait_for("a rate over two scrapes", |p| {
        !p.query(&p95).unwrap().is_empty()
    });
    let slow = p.query(&expr("PinbaServerSlow")).unwrap();
    let p95v = p.value(&p95).unwrap();
    assert_eq!(slow.is_empty(), p95v <= 1.0, "p95 {p95v}: {slow:?}");
    // pinbad's own drop counters are there, at 0.
    let drops = expr("PinbadDroppingDatagrams").replace(" > 0", "");
    p.wait_for("two scrapes of the drop counters", |p| {
        !p.query(&drops).unwrap().is_empty()
    });
    let drops = p.query(&drops).unwrap();
    assert_eq!(drops.len(), 1, "{drops:?}");
    assert_eq!(drops[0]["value"][1], "0", "{drops:?}");
}

/// `metrics.max_report_rows` (200 by default) with the alerts' reports and the dashboard's
/// `scripts` report over 1,000 scripts, 352 of them with errors: once ranked, the 200 pages with
/// the most errors have series of their own and `PinbaErrorPages` names them, the other pages'
/// errors alert as `(other)` with their status, the error count summed over the series is exact
/// (nothing counts nowhere), the fold is counted, and a scrape stays under 2 MB.
#[test]
fn rows_past_the_cap_fold_into_other_and_the_error_alert_keeps_the_most_errors() {
    if !prometheus_available() {
        return;
    }
    let alerts = std::fs::read_to_string(alerts_dir().join("alerts.yml")).unwrap();
    let mut config: String = alerts
        .lines()
        .filter_map(|l| l.strip_prefix("#   "))
        .map(|l| format!("{l}\n"))
        .collect();
    config.push_str(CONFIG);
    let d = Daemon::start(&config);
    let p = Prometheus::start(d.http);
    p.wait_for("the first scrape", |p| {
        p.value(r#"up{job="pinbad"}"#) == Some(1.0)
    });
    // Page i: two 200s; every 5th page (200 of them) 4 to 10 errors (500), 152 others one 503.
    let heavy = |i: usize| i.is_multiple_of(5);
    let light = |i: usize| i % 5 == 1 && i < 760;
    let page = |i: usize, status: u32| Sent {
        hostname: "web1".into(),
        server_name: "shop".into(),
        script_name: format!("/p{i}.php"),
        status,
        schema: None,
        request_time: 0.01,
        ru_utime: 0.005,
        ru_stime: 0.001,
        document_size: 1000,
        memory_footprint: 0,
        tags: Vec::new(),
        timers: Vec::new(),
    };
    let round = || -> Vec<Sent> {
        let mut out = Vec::new();
        for i in 0..1000 {
            out.push(page(i, 200));
            out.push(page(i, 200));
            if heavy(i) {
                out.extend((0..4 + i % 7).map(|_| page(i, 500)));
            }
            if light(i) {
                out.push(page(i, 503));
            }
        }
        out
    };
    let sent = round();
    assert_eq!(
        (0..1000).filter(|&i| heavy(i) || light(i)).count(),
        352,
        "pages with errors"
    );
    let errors = sent.iter().filter(|s| s.status >= 500).count() as f64;
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);

    // The pages report's series of pages (not `(other)`) on /metrics: (script, status).
    let shown = |d: &Daemon| -> Vec<(String, String)> {
        let prefix = "pinba_requests_total{report=\"pages\",server_name=\"shop\",script_name=\"";
        d.get_text("/metrics")
            .1
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .filter_map(|l| {
                let (script, rest) = l.split_once('"')?;
                let status = rest.split("status=\"").nth(1)?.split('"').next()?;
                Some((script.to_string(), status.to_string()))
            })
            .collect()
    };
    let is_heavy = |s: &(String, String)| {
        let i: usize = s.0[2..s.0.len() - 4].parse().unwrap();
        heavy(i) && s.1 == "500"
    };
    // Ranked (every 10 s): only pages of the most errors keep series of their own.
    d.wait_for(
        |d| {
            let s = shown(d);
            !s.is_empty() && s.iter().all(is_heavy)
        },
        "the rank to keep the pages with the most errors",
    );
    let sum = r#"sum(pinba_requests_total{report="pages",status=~"5.."})"#;
    let own_sum = |d: &Daemon| -> f64 {
        d.get_text("/metrics")
            .1
            .lines()
            .filter(|l| l.starts_with("pinba_requests_total{report=\"pages\""))
            .filter(|l| l.contains("status=\"5"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    let before = own_sum(&d);
    p.wait_for("Prometheus to read the ranked series", |p| {
        p.value(sum) == Some(before)
    });

    // The same traffic again: the admitted pages get their series at their next request.
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(2 * sent.len() as u64);
    p.wait_for(
        "every error of the second round summed over the series",
        |p| p.value(sum) == Some(before + errors),
    );
    let expr = |name: &str| -> String {
        let start = alerts.find(&format!("- alert: {name}")).unwrap();
        let body = alerts[start..].split("expr: |\n").nth(1).unwrap();
        body.lines()
            .take_while(|l| l.starts_with("          ") || l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let firing = p.query(&expr("PinbaErrorPages")).unwrap();
    let named: std::collections::BTreeSet<(String, String)> = firing
        .iter()
        .map(|r| {
            let m = &r["metric"];
            (
                m["script_name"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: std::collections::BTreeSet<(String, String)> = (0..1000)
        .filter(|&i| heavy(i))
        .map(|i| (format!("/p{i}.php"), "500".to_string()))
        .collect();
    let pages: std::collections::BTreeSet<(String, String)> = named
        .iter()
        .filter(|(script, _)| script != "(other)")
        .cloned()
        .collect();
    assert_eq!(pages, want, "{firing:?}");
    assert!(
        named.contains(&("(other)".to_string(), "503".to_string())),
        "the other pages' 503s alert as (other): {firing:?}"
    );
    let s = d.status();
    assert_eq!(s["metrics"]["series_lost"], 0, "{s}");
    assert!(s["metrics"]["requests_folded"].as_u64().unwrap() > 0, "{s}");
    p.wait_for("the fold counted on /metrics", |p| {
        p.value("pinbad_metric_rows_folded")
            .is_some_and(|v| v > 0.0)
    });
    let folded = expr("PinbadMetricRowsFolded");
    assert_eq!(p.query(&folded).unwrap().len(), 1, "{folded}");
    // A scrape of the alerts' and the dashboard's reports over 1,000 scripts stays small.
    let (_, text) = d.get_text("/metrics");
    assert!(text.len() < 2_000_000, "{} bytes", text.len());
    let said = promtool_check(&text, p.dir.path());
    assert!(said.trim().is_empty(), "promtool check metrics: {said}");
}
