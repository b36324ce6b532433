//! The upload form (`GET /upload`), whose script posts to the API.

use actix_web::HttpRequest;
use actix_web::web::Data;
use askama::Template;

use super::respond::{PageResult, render};
use crate::assets::{Assets, assets};
use crate::state::ServerState;

#[derive(Template)]
#[template(path = "upload.html")]
struct UploadPage<'a> {
    a: &'a Assets,
    /// The archive's name ([`crate::state::Site`]).
    site: crate::assets::SiteName,
    title: &'a str,
    enabled: bool,
    origin: String,
}

/// `GET /upload`: the upload form (its script posts to the API).
pub async fn upload_page(req: HttpRequest, state: Data<ServerState>) -> PageResult {
    let info = req.connection_info();
    render(&UploadPage {
        a: assets(),
        site: state.site.name(),
        title: "Upload",
        enabled: state.tokens.enabled(),
        origin: format!("{}://{}", info.scheme(), info.host()),
    })
}
