//! The built-in dashboard: the page of `GET /` and the files of `GET /dashboard/{asset}` (its
//! script, styles and the vendored charting library), embedded in the binary; `api::dashboard`
//! routes them.
//!
//! In: HTTP GETs on the API's threads. Out: static bytes with their `Content-Type`, an `ETag`
//! (a hash of the bytes, computed at compile time) and `Cache-Control: no-cache`, so a browser
//! revalidates each asset and gets a bodiless 304 until the binary changes. Nothing here takes a
//! lock or reads state: the page is plain HTML, CSS and JavaScript (no framework, no build step)
//! that reads the public API (`/api/v1/info`, `/status`, `/reports`, `/requests`, the history
//! endpoint) from the browser, like any other client.
//!
//! Vendored: uPlot 1.6.32 (`npm pack uplot`, MIT, `vendor/LICENSE`): its `dist/uPlot.iife.min.js`
//! and `dist/uPlot.min.css`, unchanged.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// One embedded file: its name under `/dashboard/`, its type and its bytes.
pub struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
    /// The entity tag: FNV-1a of the bytes, quoted, computed at compile time.
    etag: &'static str,
}

/// FNV-1a over `bytes`, at compile time (no hashing crate, no work at start-up).
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// `"` + 16 lower-case hex digits of `h` + `"`, as a compile-time string.
const fn quoted_hex(h: u64) -> [u8; 18] {
    let digits = b"0123456789abcdef";
    let mut out = [b'"'; 18];
    let mut i = 0;
    while i < 16 {
        out[1 + i] = digits[((h >> (60 - 4 * i)) & 0xf) as usize];
        i += 1;
    }
    out
}

macro_rules! asset {
    ($name:literal, $path:literal, $type:literal) => {{
        const BYTES: &[u8] = include_bytes!($path);
        const TAG: [u8; 18] = quoted_hex(fnv1a(BYTES));
        Asset {
            name: $name,
            content_type: $type,
            bytes: BYTES,
            etag: match std::str::from_utf8(&TAG) {
                Ok(s) => s,
                Err(_) => panic!("hex is ASCII"),
            },
        }
    }};
}

/// The page at `/`.
pub const INDEX: Asset = asset!(
    "index.html",
    "assets/index.html",
    "text/html; charset=utf-8"
);

/// Everything under `/dashboard/`.
const ASSETS: &[Asset] = &[
    asset!("app.js", "assets/app.js", "text/javascript; charset=utf-8"),
    asset!(
        "logs.js",
        "assets/logs.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("app.css", "assets/app.css", "text/css; charset=utf-8"),
    asset!(
        "uPlot.iife.min.js",
        "vendor/uPlot.iife.min.js",
        "text/javascript; charset=utf-8"
    ),
    asset!(
        "uPlot.min.css",
        "vendor/uPlot.min.css",
        "text/css; charset=utf-8"
    ),
    asset!(
        "LICENSE.uPlot.txt",
        "vendor/LICENSE",
        "text/plain; charset=utf-8"
    ),
];

/// Whether `path` is one of the dashboard's static files: they hold no data, so they are served
/// without the token unless `http.dashboard_needs_token` (the page then asks for the token
/// itself, at its first read).
pub fn is_public(path: &str) -> bool {
    path == "/" || path.starts_with("/dashboard/")
}

/// The embedded file named `name` under `/dashboard/`, if any.
pub fn find(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.name == name)
}

/// 304 when the client holds this version (`If-None-Match` lists its tag or is `*`), else the
/// bytes.
pub fn serve(asset: &Asset, headers: &HeaderMap) -> Response {
    let etag = HeaderValue::from_static(asset.etag);
    let cache = (header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    let fresh = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == asset.etag);
    if fresh {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag), cache]).into_response();
    }
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            ),
            (header::ETAG, etag),
            cache,
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        asset.bytes,
    )
        .into_response()
}

#[cfg(test)]
mod tests;
