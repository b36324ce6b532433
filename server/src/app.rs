//! The application: the API's routes ([`routes`](mod@crate::routes)) and
//! the pages ([`crate::pages`]) registered together, with `GET /metrics`,
//! on one actix `ServiceConfig`. The routes know nothing of the pages;
//! this module alone wires both.

use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};

use crate::ServerState;
use crate::error::ApiError;
use crate::http::entry;
use crate::routes::route_table;

/// Registers the state, every route of [`route_table`] and of the pages
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
        let metrics = entry("GET", crate::metrics::PATH, crate::metrics::serve);
        // Several methods on one path share one resource.
        let mut resources: Vec<(&'static str, Vec<&'static str>, actix_web::Resource)> = Vec::new();
        for e in route_table()
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

/// An unknown path: 404 (a problem document, or an HTML page for a
/// browser: [`crate::documents`]).
async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!(
        "no route for {} {}",
        req.method(),
        req.path()
    )))
}
