//! `GET /` and `GET /dashboard/{asset}`: the dashboard's embedded files (see `crate::dashboard`).

use axum::http::HeaderMap;
use axum::response::Response;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ApiError, AppState, PathParam};
use crate::dashboard::{find, serve, INDEX};

/// The dashboard's routes, documented like every other route (the OpenAPI test checks that every
/// route of the router is in the document). `api::documented_routes` merges them.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(page))
        .routes(routes!(asset))
}

/// The dashboard page.
#[utoipa::path(
    get,
    path = "/",
    operation_id = "dashboard",
    tag = "dashboard",
    responses(
        (status = 200, description = "The dashboard (HTML; it reads this API from the browser)", content_type = "text/html", body = String),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
    )
)]
async fn page(headers: HeaderMap) -> Response {
    serve(&INDEX, &headers)
}

/// A file of the dashboard: `app.js`, `app.css`, `uPlot.iife.min.js`, `uPlot.min.css`,
/// `LICENSE.uPlot.txt`.
#[utoipa::path(
    get,
    path = "/dashboard/{asset}",
    operation_id = "dashboard_asset",
    tag = "dashboard",
    params(("asset" = String, Path, description = "The file's name, e.g. `app.js`")),
    responses(
        (status = 200, description = "The file, with its Content-Type and ETag", body = String),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 404, response = super::openapi::NotFound),
    )
)]
async fn asset(
    PathParam(name): PathParam<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let asset = find(&name)
        .ok_or_else(|| ApiError::not_found(format!("no dashboard file named `{name}`")))?;
    Ok(serve(asset, &headers))
}
