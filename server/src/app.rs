//! The application: the API's routes ([`routes`](mod@crate::routes)) and
//! the pages ([`crate::pages`]) registered together, with `GET /metrics`,
//! on one actix `ServiceConfig`. The routes know nothing of the pages;
//! this module alone wires both.

use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};

use crate::error::ApiError;
use crate::http::RouteEntry;
use crate::http::entry;
use crate::state::ServerState;

/// Every route of the API ([`crate::routes::route_table`]) and the
/// OpenAPI document's, fixed paths before those with a `{}` segment.
fn api_routes() -> Vec<RouteEntry> {
    let mut table = crate::routes::route_table();
    let at = table
        .iter()
        .position(|e| e.path.contains('{'))
        .unwrap_or(table.len());
    table.insert(
        at,
        entry("GET", "/openapi.json", crate::openapi::openapi_json),
    );
    table
}

/// The `(method, path)` of every API route, as [`app_config`] registers
/// them (the pages, `/metrics` and the static files are not the API).
pub fn routes() -> Vec<(&'static str, &'static str)> {
    api_routes().iter().map(|e| (e.method, e.path)).collect()
}

/// Registers the state, every route of [`routes`] and of the pages
/// (each path's resource answers other methods 405 with `Allow`, and
/// carries its pattern for the metrics), `GET /metrics`, problem documents
/// for malformed paths (query strings are read by [`crate::params`]), and a
/// 404 for unknown paths.
pub fn app_config(state: Data<ServerState>) -> impl FnOnce(&mut ServiceConfig) {
    move |cfg: &mut ServiceConfig| {
        cfg.app_data(state).app_data(
            web::PathConfig::default()
                .error_handler(|e, _| ApiError::BadRequest(format!("path: {e}")).into()),
        );
        let metrics = entry("GET", crate::metrics::PATH, serve_metrics);
        // Several methods on one path share one resource.
        let mut resources: Vec<(&'static str, Vec<&'static str>, actix_web::Resource)> = Vec::new();
        for e in api_routes()
            .into_iter()
            .chain(crate::pages::page_table())
            .chain([metrics])
        {
            match resources.iter_mut().find(|(p, ..)| *p == e.path) {
                Some((_, methods, r)) => {
                    let resource = std::mem::replace(r, web::resource(e.path));
                    *r = resource.route(e.route);
                    methods.push(e.method);
                }
                None => resources.push((
                    e.path,
                    vec![e.method],
                    web::resource(e.path)
                        .app_data(crate::metrics::RoutePattern(e.path))
                        .route(e.route),
                )),
            }
        }
        for (_, methods, r) in resources {
            let allow = methods.join(", ");
            cfg.service(r.default_service(web::to(move |req: HttpRequest| {
                let allow = allow.clone();
                async move {
                    Err::<HttpResponse, _>(ApiError::MethodNotAllowed {
                        method: req.method().to_string(),
                        allow,
                    })
                }
            })));
        }
        cfg.default_service(web::to(not_found));
    }
}

/// `GET /metrics`: the state's metrics in the text format, the archive
/// gauges refreshed when due ([`crate::metrics::Metrics::answer`]).
async fn serve_metrics(state: Data<ServerState>) -> Result<HttpResponse, ApiError> {
    state.metrics.answer(&state.archive).await
}

/// An unknown path: 404 (a problem document, or an HTML page for a
/// browser: [`crate::documents`]).
async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!(
        "no route for {} {}",
        req.method(),
        req.path()
    )))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_route_is_documented_with_its_method() {
        let doc: serde_json::Value = serde_json::from_str(&crate::openapi::json()).unwrap();
        for (method, path) in super::routes() {
            let op = &doc["paths"][path][method.to_ascii_lowercase()];
            assert!(
                op.is_object(),
                "{method} {path} is not in the OpenAPI document"
            );
        }
        let documented: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum();
        assert_eq!(documented, super::routes().len());
    }
}
