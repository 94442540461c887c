//! The API's query parsing on arbitrary query strings, through the real router (no socket): no
//! panic and no 5xx but the query bound's 503, whatever the raw-request or report query says.
#![no_main]

use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::Request;
use libfuzzer_sys::fuzz_target;
use pinbad::shared::Shared;
use pinbad::config::Config;
use pinbad::ring::Ring;
use tower::ServiceExt;

fn state() -> Arc<Shared> {
    static STATE: OnceLock<Arc<Shared>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let config = Config {
                state_dir: std::env::temp_dir().join("pinbad-fuzz-state"),
                request_pool_size: 1000,
                timer_pool_size: 1000,
                tag_pool_size: 1000,
                ..Config::default()
            };
            Arc::new(Shared::new(config, Arc::new(Ring::new(1 << 20)), vec![], 0).unwrap())
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else { return };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for path in [
        "/api/v1/requests",
        "/api/v1/reports/report_by_script_name",
    ] {
        let Ok(req) = Request::get(format!("{path}?{query}")).body(Body::empty()) else {
            continue; // not a valid URI: the HTTP layer refuses it before the API sees it
        };
        let router = pinbad::api::router(state());
        let resp = runtime.block_on(router.oneshot(req)).unwrap();
        // 503 is the query bound (a previous input's scan may still hold its slot); any other
        // 5xx is a bug.
        let status = resp.status();
        assert!(
            !status.is_server_error() || status.as_u16() == 503,
            "{path}?{query}: {status}"
        );
    }
});
