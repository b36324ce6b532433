//! The pages' static files (CSS and JavaScript modules), embedded in the
//! binary and served under content-hashed names (`app.3f2a9c1d0b7e.css`)
//! with immutable caching: a new build with a changed file gets a new name,
//! so a browser never keeps a stale one. The pages serve them
//! (`GET /static/{name}`); the error pages link them too, so this module
//! depends on neither.

use std::sync::OnceLock;

/// The product's name: the pages' title and header for a Keil archive,
/// a mixed one, and wherever the archive is not at hand (the error
/// pages). An archive of one other kind is named for it
/// (`crate::state::Site`).
pub const PRODUCT: &str = "Keil archive";

/// One embedded file.
struct File {
    /// The name in the source tree (`app.css`).
    name: &'static str,
    /// Its media type.
    content_type: &'static str,
    /// Its bytes.
    bytes: &'static [u8],
}

const FILES: &[File] = &[
    File {
        name: "app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../static/app.css"),
    },
    File {
        name: "common.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../static/common.js"),
    },
    File {
        name: "viewer.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../static/viewer.js"),
    },
    File {
        name: "pattern.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../static/pattern.js"),
    },
    File {
        name: "upload.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../static/upload.js"),
    },
];

/// The URLs of the embedded files, as templates link them.
pub struct Assets {
    /// The stylesheet.
    pub css: String,
    /// Theme toggle and typeahead, on every page.
    pub common_js: String,
    /// The game viewer's replay.
    pub viewer_js: String,
    /// The upload form.
    pub upload_js: String,
    /// The pattern editor's clicks without reloads.
    pub pattern_js: String,
    /// `(hashed name, file index)`.
    served: Vec<(String, usize)>,
}

/// The hashed name of a file: its stem, 12 hex digits of its FNV-1a hash,
/// its extension.
fn hashed(f: &File) -> String {
    let hash = crate::http::fnv1a(f.bytes);
    let (stem, ext) = f.name.rsplit_once('.').unwrap_or((f.name, ""));
    format!("{stem}.{:012x}.{ext}", hash & 0xffff_ffff_ffff)
}

/// The assets, hashed once per process.
pub fn assets() -> &'static Assets {
    static ASSETS: OnceLock<Assets> = OnceLock::new();
    ASSETS.get_or_init(|| {
        let served: Vec<(String, usize)> = FILES
            .iter()
            .enumerate()
            .map(|(i, f)| (hashed(f), i))
            .collect();
        let url = |name: &str| {
            let i = FILES.iter().position(|f| f.name == name).expect("embedded");
            format!("/static/{}", served[i].0)
        };
        Assets {
            css: url("app.css"),
            common_js: url("common.js"),
            viewer_js: url("viewer.js"),
            upload_js: url("upload.js"),
            pattern_js: url("pattern.js"),
            served,
        }
    })
}

/// The media type and bytes of the embedded file served as `name` (its
/// hashed name), if any.
pub fn find(name: &str) -> Option<(&'static str, &'static [u8])> {
    let a = assets();
    a.served
        .iter()
        .find(|(n, _)| *n == *name)
        .map(|&(_, i)| (FILES[i].content_type, FILES[i].bytes))
}

/// The archive's name as the pages show it (`crate::state::Site::name`):
/// `Go archive`, `Kaomi archive` or the product's ([`PRODUCT`]; its
/// `Display`), and what its records are (`SiteName::records`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SiteName {
    /// The one kind of game the archive holds; `None` for none or several.
    kind: Option<keil_rules::GameKind>,
}

impl SiteName {
    /// The product's name, for an answer that knows no archive.
    pub(crate) const PRODUCT: SiteName = SiteName { kind: None };

    /// The name of an archive that holds games of `kind` alone (`None`:
    /// none or several kinds).
    pub(crate) fn of(kind: Option<keil_rules::GameKind>) -> SiteName {
        SiteName { kind }
    }

    /// What the archive's records are, as the footer says:
    /// `Go game records`, or `Keil, Go and Kaomi game records` for a
    /// mixed or empty archive.
    pub(crate) fn records(&self) -> &'static str {
        match self.kind {
            Some(keil_rules::GameKind::Go) => "Go game records",
            Some(keil_rules::GameKind::Kaomi) => "Kaomi game records",
            Some(keil_rules::GameKind::Keil) => "Keil game records",
            _ => "Keil, Go and Kaomi game records",
        }
    }
}

impl std::fmt::Display for SiteName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.kind {
            Some(keil_rules::GameKind::Go) => "Go archive",
            Some(keil_rules::GameKind::Kaomi) => "Kaomi archive",
            _ => PRODUCT,
        })
    }
}
