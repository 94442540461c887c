//! `[[rewrite]]` rules against the real daemon: a name folded by a rule is the folded name
//! everywhere (reports, `/api/v1/requests`, the live stream), a `drop = true` rule keeps its
//! requests out of everything, each rule's hits are counted in the status and on `/metrics`, and
//! a rule that does not compile stops start-up naming it.

use serde_json::Value;

use crate::common::*;
use crate::sent::Sent;
use crate::stream::{collect, subscribe};

const CONFIG: &str = r#"
[[rewrite]]
name = "user-ids"
field = "script_name"
regex = '^/user/\d+'
replacement = "/user/:id"

[[rewrite]]
field = "script_name"
regex = '^/healthz$'
drop = true

[[rewrite]]
name = "country"
field = "tag:country"
regex = '^(..)-..$'
replacement = "$1"

[[rewrite]]
name = "shards"
field = "timer_tag:table"
regex = '_\d+$'
replacement = ""

[[rewrite]]
name = "hosts"
field = "hostname"
regex = '\.internal$'
replacement = ""
"#;

fn request(script: &str, country: &str) -> Sent {
    Sent {
        hostname: "web1.internal".into(),
        server_name: "www.example.com".into(),
        script_name: script.into(),
        status: 200,
        schema: None,
        request_time: 0.01,
        ru_utime: 0.0,
        ru_stime: 0.0,
        document_size: 100,
        memory_footprint: 0,
        tags: vec![("country".into(), country.into())],
        timers: vec![(
            1,
            0.002,
            0.0,
            0.0,
            vec![("table".into(), "users_17".into())],
        )],
    }
}

#[test]
fn rewritten_names_are_what_every_view_shows_and_hits_are_counted() {
    let d = Daemon::start(&format!(
        "{CONFIG}\n[[report]]\nname = \"tables\"\nkeys = [\"timer_tag:table\"]\n"
    ));
    let (stream, _) = subscribe(&d, "timers=true", "*/*", None);
    d.wait_for(
        |d| d.status()["stream"]["current_clients"] == 1,
        "the stream client",
    );
    let sent: Vec<Sent> = vec![
        request("/user/1", "nl-NL"),
        request("/user/22", "nl-BE"),
        request("/user/333/edit", "de-DE"),
        request("/healthz", "nl-NL"),
        Sent {
            // Two timers on one shard, one on another: the rule counts the request once.
            timers: ["users_17", "users_17", "users_3"]
                .iter()
                .map(|t| (1, 0.001, 0.0, 0.0, vec![("table".into(), t.to_string())]))
                .collect(),
            ..request("/about", "fr")
        },
    ];
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);

    // Reports: one row for the three users, none for the dropped request.
    let scripts = d.strings(
        "/api/v1/reports/report_by_script_name",
        "rows",
        "script_name",
    );
    let mut scripts = scripts.clone();
    scripts.sort();
    assert_eq!(scripts, ["/about", "/user/:id", "/user/:id/edit"]);
    let rows = d.json("/api/v1/reports/report_by_script_name?filter=script_name:/user/:id");
    assert_eq!(rows["rows"][0]["req_count"], 2, "{rows}");
    let hosts = d.strings("/api/v1/reports/report_by_hostname", "rows", "hostname");
    assert_eq!(hosts, ["web1"]);
    let tables = d.strings("/api/v1/reports/tables", "rows", "table");
    assert_eq!(tables, ["users"]);
    assert_eq!(info_count(&d), 4);

    // The raw pool: the rewritten names and tag values, the dropped request absent.
    let raw = d.json("/api/v1/requests?timers=true");
    let raw = raw["requests"].as_array().unwrap();
    assert_eq!(raw.len(), 4, "{raw:?}");
    // Sorted: the readers (one per core, each datagram to one at random) hand the datagrams
    // over in any order, and the pool keeps them in the order they were merged.
    let mut shown: Vec<(&str, &str)> = raw
        .iter()
        .map(|r| {
            (
                r["script_name"].as_str().unwrap(),
                r["tags"]["country"].as_str().unwrap(),
            )
        })
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            ("/about", "fr"),
            ("/user/:id", "nl"),
            ("/user/:id", "nl"),
            ("/user/:id/edit", "de")
        ]
    );
    for r in raw {
        assert_eq!(r["hostname"], "web1", "{r}");
        for t in r["timers"].as_array().unwrap() {
            assert_eq!(t["tags"]["table"], "users", "{r}");
        }
    }
    // A filter by the rewritten name finds them; by the original, nothing.
    let (_, by_new) = d.get("/api/v1/requests?script_name=/user/:id");
    assert_eq!(by_new["requests"].as_array().unwrap().len(), 2);
    let (_, by_old) = d.get("/api/v1/requests?script_name=/user/1");
    assert_eq!(by_old["requests"].as_array().unwrap().len(), 0);

    // The stream saw the same.
    let mut lines = Vec::new();
    collect(&stream, &mut lines, |got| got.len() >= 4);
    // Sorted, as the raw requests above.
    let mut streamed: Vec<&str> = lines
        .iter()
        .map(|l| l["script_name"].as_str().unwrap())
        .collect();
    streamed.sort();
    assert_eq!(
        streamed,
        ["/about", "/user/:id", "/user/:id", "/user/:id/edit"]
    );
    assert!(lines
        .iter()
        .all(|l| l["timers"][0]["tags"]["table"] == "users"));

    // Hits per rule (requests in which it matched), the drop counted apart.
    let s = d.status();
    let hits: Vec<(String, u64)> = s["rewrite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["hits"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [
        ("user-ids", 3),
        ("rewrite[1]", 1),
        ("country", 3),
        ("shards", 4),
        // Not the dropped request: the script name is looked at first, and a dropped request
        // no further.
        ("hosts", 4),
    ]
    .iter()
    .map(|(n, h)| (n.to_string(), *h))
    .collect();
    assert_eq!(hits, want, "{s}");
    assert_eq!(s["rewrite_dropped"], 1, "{s}");
    assert_eq!(s["requests_merged"], 4, "{s}");
    let (_, metrics) = d.get_text("/metrics");
    assert!(
        metrics.contains("pinbad_rewrite_hits_total{rule=\"user-ids\"} 3\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("pinbad_rewrite_dropped_total 1\n"),
        "{metrics}"
    );
    // The originals never reached the dictionary: nothing can show them.
    let (_, scripts) = d.get("/api/v1/reports/report_by_script_name?match=script_name:[0-9]");
    assert_eq!(scripts["rows"], Value::Array(Vec::new()), "{scripts}");
}

#[test]
fn a_rule_that_does_not_compile_stops_start_up_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_file(
        dir.path(),
        "bad.toml",
        "[[rewrite]]\nfield = \"script_name\"\nregex = \"/user/(\\\\d+\"\nreplacement = \"x\"\n",
    );
    for args in [
        vec!["--config", config.to_str().unwrap()],
        vec!["check-config", config.to_str().unwrap()],
    ] {
        let (code, err) = run_pinbad(&args, dir.path());
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("rewrite[0].regex"), "{err}");
        assert!(err.contains("/user/(\\d+"), "{err}");
    }
    let good = write_file(dir.path(), "good.toml", CONFIG);
    let (code, err) = run_pinbad(&["check-config", good.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "{err}");
}
