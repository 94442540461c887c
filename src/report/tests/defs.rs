//! Definitions: the built-ins, validation, presets, parsing, and the names they pin.

use super::*;

#[test]
fn builtins_are_info_and_20_reports() {
    let defs = builtin_defs();
    assert_eq!(defs.len(), 21);
    assert_eq!(defs[0].name, "info");
    assert_eq!(defs[0].kind(), Kind::Info);
    for d in &defs {
        d.validate().unwrap();
    }
    assert!(defs
        .iter()
        .all(|d| d.name == "info" || d.name.starts_with("report_by_")));
    let by = defs
        .iter()
        .find(|d| d.name == "report_by_hostname_status_and_schema")
        .unwrap();
    assert_eq!(by.keys, vec!["hostname", "status", "schema"]);
    // pinbad's own, after pinba_engine's 18: the status mix within a server.
    let names: Vec<&str> = defs[19..].iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "report_by_server_script_and_status",
            "report_by_hostname_server_and_status"
        ]
    );
}

#[test]
fn validation_names_what_is_wrong() {
    let cases: Vec<(ReportDef, &str)> = vec![
        (def("", &[]), "name"),
        (def("bad name", &[]), "' '"),
        (def(&"x".repeat(129), &[]), "128"),
        (def("..", &[]), "dots"),
        (def(".", &[]), "dots"),
        (def("r", &["colour"]), "colour"),
        (def("r", &["tag:"]), "empty tag name"),
        (def("r", &["script_name", "script_name"]), "twice"),
        (
            def(
                "r",
                &[
                    "tag:a", "tag:b", "tag:c", "tag:d", "tag:e", "tag:f", "tag:g", "tag:h",
                    "tag:i", "tag:j", "tag:k", "tag:l", "tag:m", "tag:n", "tag:o", "tag:p",
                ],
            ),
            "15",
        ),
        (
            with_filters(def("r", &[]), &[("colour", "red".into())]),
            "colour",
        ),
        (
            with_filters(def("r", &[]), &[("min_time", "soon".into())]),
            "min_time",
        ),
        (
            with_filters(
                def("r", &[]),
                &[("min_time", 2.0.into()), ("max_time", 1.into())],
            ),
            "min_time",
        ),
        (
            with_filters(def("r", &[]), &[("status", (-1).into())]),
            "status",
        ),
        (
            with_filters(def("r", &[]), &[("script_name", 1.5.into())]),
            "script_name",
        ),
        (
            ReportDef {
                percentiles: vec![101.0],
                ..def("r", &[])
            },
            "101",
        ),
        (
            ReportDef {
                percentiles: vec![50.0, 50.0],
                ..def("r", &[])
            },
            "twice",
        ),
        (
            ReportDef {
                percentiles: vec![f64::NAN],
                ..def("r", &[])
            },
            "NaN",
        ),
        (
            ReportDef {
                preset: Some("nope".into()),
                tags: vec!["a".into()],
                ..def("r", &[])
            },
            "nope",
        ),
        (
            ReportDef {
                preset: Some("tag_info".into()),
                ..def("r", &[])
            },
            "tags",
        ),
        (
            ReportDef {
                tags: vec!["a".into()],
                ..def("r", &[])
            },
            "preset",
        ),
    ];
    for (d, needle) in cases {
        let e = d.validate().unwrap_err().to_string();
        assert!(e.contains(needle), "{d:?}: `{e}` lacks `{needle}`");
    }
    def("ok:name.with,all-chars_1", &["tag:a:b"])
        .validate()
        .unwrap();
}

#[test]
fn presets_expand_to_the_families() {
    let p = |preset: &str| ReportDef {
        preset: Some(preset.into()),
        tags: vec!["group".into(), "server".into()],
        ..def("r", &[])
    };
    assert_eq!(
        p("timer_tag_info").resolved_keys().unwrap(),
        vec!["timer_tag:group", "timer_tag:server"]
    );
    assert_eq!(
        p("tag_report").resolved_keys().unwrap(),
        vec!["script_name", "timer_tag:group", "timer_tag:server"]
    );
    assert_eq!(
        p("timer_tag_report2").resolved_keys().unwrap(),
        vec![
            "script_name",
            "hostname",
            "server_name",
            "timer_tag:group",
            "timer_tag:server"
        ]
    );
    assert_eq!(
        p("rtag_info").resolved_keys().unwrap(),
        vec!["tag:group", "tag:server"]
    );
    assert_eq!(
        p("request_tag_report").resolved_keys().unwrap(),
        vec!["hostname", "tag:group", "tag:server"]
    );
    assert_eq!(p("timer_tag_report").kind(), Kind::Timer);
    assert_eq!(p("request_tag_report").kind(), Kind::Request);
    let mut dict = Dictionary::new(100);
    let r = Report::new(p("timer_tag_report"), &mut dict, 10).unwrap();
    assert_eq!(
        r.keys(),
        &["script_name", "timer_tag:group", "timer_tag:server"]
    );
    assert_eq!(r.kind(), Kind::Timer);
}

#[test]
fn definitions_parse_from_toml_and_json() {
    let text = r#"
        name = "slow"
        keys = ["script_name", "tag:country"]
        percentiles = [50, 99.9]
        [filters]
        min_time = 0.1
        max_time = 2
        status = 200
        "tag:country" = "nl"
        "timer_tag:group" = "db"
    "#;
    let d: ReportDef = toml::from_str(text).unwrap();
    d.validate().unwrap();
    assert_eq!(d.percentiles, vec![50.0, 99.9]);
    assert_eq!(d.filters["min_time"], FilterValue::Float(0.1));
    assert_eq!(d.filters["max_time"], FilterValue::Int(2));
    assert_eq!(d.filters["tag:country"], FilterValue::Text("nl".into()));
    // Round trips through TOML (the config prints itself) and JSON (the state file).
    let back: ReportDef = toml::from_str(&toml::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let back: ReportDef = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let j: ReportDef = serde_json::from_str(
        r#"{"name": "x", "filters": {"status": 404, "script_name": "/x.php"}}"#,
    )
    .unwrap();
    assert_eq!(j.percentiles, DEFAULT_PERCENTILES.to_vec());
    assert!(j.keys.is_empty());
    let e = serde_json::from_str::<ReportDef>(r#"{"name": "x", "kyes": []}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("kyes"), "{e}");
}

#[test]
fn new_pins_names_and_values_and_release_unpins() {
    let mut dict = Dictionary::new(100);
    let d = with_filters(
        def("r", &["tag:country"]),
        &[
            ("script_name", "/x".into()),
            ("timer_tag:group", "db".into()),
        ],
    );
    let mut r = Report::new(d, &mut dict, 10).unwrap();
    assert_eq!(dict.len(), 4);
    dict.sweep(1);
    assert_eq!(dict.len(), 4, "pinned");
    r.release(&mut dict);
    r.release(&mut dict);
    dict.sweep(1);
    assert_eq!(dict.len(), 0);
    // A full dictionary is an error, and pins taken so far are given back.
    let mut small = Dictionary::new(1);
    let e = Report::new(def("r", &["tag:a", "tag:b"]), &mut small, 10).unwrap_err();
    assert!(e.to_string().contains("dictionary full"), "{e}");
    assert_eq!(e.1, Refusal::Full, "not the definition's fault");
    small.sweep(1);
    assert_eq!(
        small.len(),
        0,
        "the pin taken before the failure was given back"
    );
}
