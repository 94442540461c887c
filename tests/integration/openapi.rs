//! `GET /api/v1/openapi.json` against the real daemon: the documented schemas have exactly the
//! fields the real answers have.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::common::{fixtures, Daemon};

/// The property names of a schema of the document.
fn properties(doc: &Value, schema: &str) -> BTreeSet<String> {
    doc["components"]["schemas"][schema]["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("no schema {schema} in the document"))
        .keys()
        .cloned()
        .collect()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .cloned()
        .collect()
}

#[test]
fn documented_schemas_match_real_answers() {
    let d = Daemon::start("");
    let php: Vec<Vec<u8>> = fixtures()
        .into_iter()
        .filter(|(name, _, json)| name.starts_with("php/") && json["accepted"] != false)
        .map(|(_, bytes, _)| bytes)
        .collect();
    assert!(!php.is_empty());
    d.send(&php);
    d.wait_merged(php.len() as u64);

    let doc = d.json("/api/v1/openapi.json");
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"), "{doc}");
    assert!(doc["paths"]["/api/v1/reports/{name}"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "percentiles"));

    assert_eq!(keys(&d.json("/healthz")), properties(&doc, "Health"));
    let (code, created) = d.post(
        "/api/v1/reports",
        &json!({"name": "groups", "keys": ["script_name", "timer_tag:group"]}),
    );
    assert_eq!(code, 201, "{created}");
    assert_eq!(keys(&created), properties(&doc, "ReportEntry"));
    let list = d.json("/api/v1/reports");
    assert_eq!(keys(&list), properties(&doc, "ReportList"), "{list}");
    for entry in list["reports"].as_array().unwrap() {
        assert_eq!(keys(entry), properties(&doc, "ReportEntry"), "{entry}");
    }
    for path in [
        "/api/v1/reports/report_by_script_name",
        "/api/v1/info",
        "/api/v1/reports/groups",
    ] {
        assert_eq!(
            keys(&d.json(path)),
            properties(&doc, "ReportTable"),
            "{path}"
        );
    }

    let requests = d.json("/api/v1/requests?timers=true&limit=1000");
    let requests = requests["requests"].as_array().unwrap();
    assert!(!requests.is_empty());
    let mut timers = 0;
    for r in requests {
        assert_eq!(keys(r), properties(&doc, "RawRequest"), "{r}");
        for t in r["timers"].as_array().unwrap() {
            assert_eq!(keys(t), properties(&doc, "RawTimer"), "{t}");
            timers += 1;
        }
    }
    assert!(timers > 0, "the PHP fixtures carry timers");
    let (code, error) = d.get("/api/v1/reports/nope");
    assert_eq!(code, 404);
    assert_eq!(keys(&error), properties(&doc, "ErrorBody"));
    // The fleet endpoint is documented; without a ClickHouse sink writing ticks, a 404 body.
    assert!(doc["paths"]["/api/v1/fleet/reports/{name}"]["get"].is_object());
    let (code, error) = d.get("/api/v1/fleet/reports/report_by_script_name");
    assert_eq!(code, 404);
    assert_eq!(keys(&error), properties(&doc, "ErrorBody"));
    // So is the fleet's history, answered in the history endpoint's shape.
    let fleet_history = &doc["paths"]["/api/v1/fleet/reports/{name}/history"]["get"];
    assert_eq!(
        fleet_history["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/HistoryAnswer",
        "{fleet_history}"
    );
    let (code, error) = d.get("/api/v1/fleet/reports/report_by_script_name/history");
    assert_eq!(code, 404);
    assert_eq!(keys(&error), properties(&doc, "ErrorBody"));
}
