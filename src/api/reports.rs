//! Report endpoints (stub: being implemented).
use axum::Router;

use super::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
}
