//! The dashboard's routes through the real router (no socket): types, validators, 304s, and that
//! unknown API paths still get the API's JSON 404.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use tower::ServiceExt;

use super::*;
use crate::config::Config;
use crate::ring::Ring;
use crate::state::Core;

fn router(token: Option<&str>, token_reads: bool) -> (axum::Router, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config {
        state_dir: dir.path().to_path_buf(),
        request_pool_size: 1000,
        timer_pool_size: 1000,
        tag_pool_size: 1000,
        ..Config::default()
    };
    config.http.token = token.unwrap_or_default().to_string();
    config.http.token_reads = Some(token_reads);
    let shared = Core::new(config, Arc::new(Ring::new(1 << 20)), vec![], 0).unwrap();
    (crate::api::router(crate::api::ApiState::of(shared)), dir)
}

async fn get(
    router: &axum::Router,
    uri: &str,
    etag: Option<&str>,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut req = Request::builder().method(Method::GET).uri(uri);
    if let Some(tag) = etag {
        req = req.header(header::IF_NONE_MATCH, tag);
    }
    let resp = router
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 22).await.unwrap();
    (parts.status, parts.headers, bytes.to_vec())
}

#[tokio::test]
async fn every_file_is_served_with_its_type_and_a_validator() {
    let (router, _dir) = router(None, false);
    let (code, headers, body) = get(&router, "/", None).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "text/html; charset=utf-8");
    let page = String::from_utf8(body).unwrap();
    // The page loads every script and style it needs from /dashboard/, and each is served.
    for a in ASSETS.iter().filter(|a| !a.name.starts_with("LICENSE")) {
        assert!(
            page.contains(&format!("/dashboard/{}", a.name)),
            "the page does not load {}",
            a.name
        );
    }
    for a in ASSETS {
        let (code, headers, body) = get(&router, &format!("/dashboard/{}", a.name), None).await;
        assert_eq!(code, StatusCode::OK, "{}", a.name);
        assert_eq!(headers[header::CONTENT_TYPE], a.content_type);
        assert_eq!(headers[header::CACHE_CONTROL], "no-cache");
        assert_eq!(body, a.bytes);
        let etag = headers[header::ETAG].to_str().unwrap().to_string();
        assert_eq!(etag, format!("\"{:016x}\"", fnv1a(a.bytes)));

        // Revalidation: the same tag (also weak, or in a list) gets an empty 304.
        for sent in [etag.clone(), format!("W/{etag}"), format!("\"x\", {etag}")] {
            let (code, headers, body) =
                get(&router, &format!("/dashboard/{}", a.name), Some(&sent)).await;
            assert_eq!(code, StatusCode::NOT_MODIFIED, "{sent}");
            assert_eq!(headers[header::ETAG], etag.as_str());
            assert!(body.is_empty());
        }
        let (code, _, _) = get(&router, &format!("/dashboard/{}", a.name), Some("\"old\"")).await;
        assert_eq!(code, StatusCode::OK);
    }
    // Files differ, so do their tags.
    let mut tags: Vec<&str> = ASSETS.iter().map(|a| a.etag).collect();
    tags.push(INDEX.etag);
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), ASSETS.len() + 1);
}

#[tokio::test]
async fn unknown_files_and_api_paths_get_the_json_404() {
    let (router, _dir) = router(None, false);
    for uri in [
        "/dashboard/nope.js",
        "/api/v1/nope",
        "/api/nope",
        "/index.html",
    ] {
        let (code, headers, body) = get(&router, uri, None).await;
        assert_eq!(code, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(headers[header::CONTENT_TYPE], "application/json", "{uri}");
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"], "not_found", "{uri}");
    }
}

#[tokio::test]
async fn the_page_needs_no_token_even_when_reads_do() {
    let (router, _dir) = router(Some("sekret"), true);
    for uri in ["/", "/dashboard/app.js"] {
        assert_eq!(get(&router, uri, None).await.0, StatusCode::OK, "{uri}");
    }
    assert_eq!(
        get(&router, "/api/v1/info", None).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[test]
fn fnv1a_matches_its_reference_values() {
    // Published FNV-1a 64 test vectors.
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(&quoted_hex(0x0123_4567_89ab_cdef), b"\"0123456789abcdef\"");
}
