//! `/api/v1/requests` against the real daemon, as issue 44 asks of it: status classes and
//! bounds, durations and sizes with units, the reports' `filter=COLUMN:VALUE` beside the older
//! spellings, a time range, sorting by any numeric field, CSV, and paging by cursor through every request exactly once; bad values
//! are 400s naming the parameter.

use std::collections::BTreeSet;

use crate::common::*;
use crate::sent::Sent;

fn request(i: usize) -> Sent {
    Sent {
        hostname: "web1".into(),
        server_name: "www.example.com".into(),
        script_name: format!("/s{}.php", i % 3),
        status: [200, 404, 500, 503][i % 4],
        schema: None,
        request_time: 0.05 * (i % 5) as f32,
        ru_utime: 0.0,
        ru_stime: 0.0,
        document_size: (i as u32 % 4) << 20,
        memory_footprint: 0,
        tags: vec![("country".into(), ["nl", "de"][i % 2].into())],
        timers: Vec::new(),
    }
}

#[test]
fn filters_with_classes_units_one_syntax_a_time_range_and_a_cursor() {
    let d = Daemon::start("");
    let sent: Vec<Sent> = (0..40).map(request).collect();
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    let count = |q: &str| {
        let body = d.json(&format!("/api/v1/requests?limit=1000&{q}"));
        body["requests"].as_array().unwrap().len()
    };
    let want = |f: &dyn Fn(&Sent) -> bool| sent.iter().filter(|s| f(s)).count();
    assert_eq!(count(""), 40);
    assert_eq!(count("status=5xx"), want(&|s| s.status >= 500));
    assert_eq!(count("status=%3E%3D500"), want(&|s| s.status >= 500));
    assert_eq!(count("status=%3C400"), want(&|s| s.status < 400));
    assert_eq!(count("status=404"), want(&|s| s.status == 404));
    assert_eq!(count("min_time=100ms"), want(&|s| s.request_time >= 0.1));
    assert_eq!(count("min_time=0.1"), count("min_time=100ms"));
    assert_eq!(
        count("min_size=2MiB"),
        want(&|s| s.document_size >= 2 << 20)
    );
    assert_eq!(
        count("max_size=1MiB"),
        want(&|s| s.document_size <= 1 << 20)
    );
    // The reports' syntax and the older one agree.
    let nl_5xx = want(&|s| s.status >= 500 && s.tags[0].1 == "nl");
    assert_eq!(count("filter=country:nl&filter=status:5xx"), nl_5xx);
    assert_eq!(count("tag.country=nl&status=5xx"), nl_5xx);
    assert_eq!(
        count("filter=script_name:/s1.php"),
        count("script_name=%2Fs1.php")
    );
    assert_eq!(
        count("filter=script_name:/s1.php"),
        want(&|s| s.script_name == "/s1.php")
    );

    // A time range around the whole pool holds all of it; one wholly before it, nothing.
    let all = d.json("/api/v1/requests?limit=1000");
    let stamps: Vec<f64> = all["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["timestamp"].as_f64().unwrap())
        .collect();
    let (oldest, newest) = (stamps[stamps.len() - 1], stamps[0]);
    assert_eq!(count(&format!("from={}&to={}", oldest, newest + 0.001)), 40);
    assert_eq!(count(&format!("to={}", oldest - 1.0)), 0);
    assert_eq!(count(&format!("from={}", newest + 1.0)), 0);
    assert_eq!(all["next_cursor"], serde_json::Value::Null, "{all}");

    // Pages of 7 by cursor: every request once, newest first, then no cursor.
    let mut seen = Vec::new();
    let mut cursor = None;
    for _ in 0..10 {
        let q = match cursor {
            Some(c) => format!("/api/v1/requests?limit=7&cursor={c}"),
            None => "/api/v1/requests?limit=7".to_string(),
        };
        let page = d.json(&q);
        seen.extend(
            page["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_u64().unwrap()),
        );
        cursor = page["next_cursor"].as_u64();
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 40, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0] > w[1]), "{seen:?}");
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), 40);
    // A cursor with a filter pages the matches.
    let page = d.json("/api/v1/requests?limit=3&status=5xx");
    let c = page["next_cursor"].as_u64().unwrap();
    let rest = d.json(&format!(
        "/api/v1/requests?limit=1000&status=5xx&cursor={c}"
    ));
    assert_eq!(
        3 + rest["requests"].as_array().unwrap().len(),
        want(&|s| s.status >= 500)
    );

    // Sorted by any numeric field, either way, over the whole pool.
    let times = |q: &str| -> Vec<f64> {
        d.json(&format!("/api/v1/requests?{q}"))["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["request_time"].as_f64().unwrap())
            .collect()
    };
    let slowest = times("sort=-request_time&limit=1000");
    assert_eq!(slowest.len(), 40);
    assert!(slowest.windows(2).all(|w| w[0] >= w[1]), "{slowest:?}");
    let fastest = times("sort=request_time&limit=5&status=5xx");
    assert_eq!(fastest.len(), 5);
    assert!(fastest.windows(2).all(|w| w[0] <= w[1]), "{fastest:?}");
    assert_eq!(fastest[0], 0.0);
    let mut sizes: Vec<u32> = sent.iter().map(|s| s.document_size).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let (_, top) = d.get_text("/api/v1/requests?sort=-document_size&limit=3&format=csv");
    let top: Vec<u32> = top
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(8).unwrap().parse().unwrap())
        .collect();
    assert_eq!(top, sizes[..3]);

    // CSV: a header row, a row per request, its tags last; the last row's id pages on.
    let (code, csv) = d.get_text("/api/v1/requests?format=csv&limit=5&status=404");
    assert_eq!(code, 200, "{csv}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6, "{csv}");
    assert!(lines[0].starts_with("id,timestamp,hostname,server_name,script_name,schema,status,"));
    assert!(lines[0].ends_with(",timer_count,tags"), "{csv}");
    for row in &lines[1..] {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), 16, "{row}");
        assert_eq!((cells[2], cells[6]), ("web1", "404"), "{row}");
        assert!(
            cells[15] == "country=nl" || cells[15] == "country=de",
            "{row}"
        );
    }
    let last: u64 = lines[5].split(',').next().unwrap().parse().unwrap();
    let (_, rest) = d.get_text(&format!(
        "/api/v1/requests?format=csv&status=404&cursor={last}"
    ));
    assert_eq!(
        rest.lines().count() - 1 + 5,
        want(&|s| s.status == 404),
        "{rest}"
    );

    for (q, name) in [
        ("format=xml", "format"),
        ("sort=-hostname", "sort"),
        ("sort=request_time&cursor=5", "cursor"),
        ("format=csv&timers=true", "timers"),
        ("status=5x", "status"),
        // Not one of HTTP's classes: it matched nothing, an empty 200 (issue 60).
        ("status=6xx", "`6xx`"),
        ("filter=status:6xx", "filter"),
        ("filter=status:abc", "filter"),
        ("filter=nocolon", "filter"),
        ("min_time=fast", "min_time"),
        ("min_size=big", "min_size"),
        ("from=yesterday", "from"),
        ("cursor=-1", "cursor"),
    ] {
        let (code, body) = d.get(&format!("/api/v1/requests?{q}"));
        assert_eq!(code, 400, "{q}: {body}");
        assert_eq!(body["error"], "bad_parameter", "{q}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains(name),
            "{q}: {body}"
        );
    }
}
