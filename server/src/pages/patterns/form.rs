//! The pattern page's parameters as read: the API's and the editor's
//! ([`PatternParams`]), read for the page with what does not read kept as
//! messages ([`PatternForm`]), or for a download of the games found
//! ([`PatternParams::download_query`]).

use keil_archive::{Pattern, PatternMode, PatternQuery};
use keil_rules::BoardSpec;
use serde::Deserialize;

use crate::dto::PatternsQuery;
use crate::error::ApiError;
use crate::pages::forms::drop_empty_filter;
use crate::params::{form_board, form_pattern, nonempty};

/// `GET /patterns` parameters: the API's, plus the editor's.
#[derive(Debug, Default, Deserialize)]
pub struct PatternParams {
    /// The API's parameters (pattern, kind, size, mode, symmetry, colours,
    /// filters, page).
    #[serde(flatten)]
    pub api: PatternsQuery,
    /// `1`: edit the pattern (clicking a point cycles it; no search).
    pub edit: Option<String>,
}

impl PatternParams {
    /// The query of a download of the games found (the page's
    /// parameters; the mode `auto` unless chosen), up to
    /// [`crate::export::FOUND_MAX`] games from the first.
    ///
    /// # Errors
    /// What does not read, as the API refuses it (400).
    pub(super) fn download_query(self) -> Result<PatternQuery, ApiError> {
        let PatternParams { mut api, .. } = self;
        drop_empty_filter(&mut api.filter);
        if nonempty(&api.mode).is_none() {
            api.mode = Some("auto".into());
        }
        api.limit = Some(crate::export::FOUND_MAX.to_string());
        api.cursor = None;
        crate::params::pattern_query(api)
    }
}

/// The page's parameters as read: the board, the pattern (as drawn while
/// editing, else read for its mode), and the API's query when all of it
/// reads. What does not read is kept as a message and the form shown
/// again for editing.
pub(super) struct PatternForm {
    /// The API's parameters (the mode as read: `auto` unless chosen).
    pub(super) api: PatternsQuery,
    /// The pattern's text as given (empty: none).
    pub(super) text: String,
    /// Whether the page edits the pattern rather than searching.
    pub(super) edit: bool,
    /// The board: the kind and size asked for, else Go 19.
    pub(super) spec: BoardSpec,
    /// The mode as given (`auto` unless chosen).
    pub(super) mode_text: String,
    /// The mode the pattern was read for (none while editing).
    pub(super) mode: Option<PatternMode>,
    /// The pattern as read (none while it does not read).
    pub(super) pattern: Option<Pattern>,
    /// The whole query, as the API reads it (none while something does not
    /// read).
    pub(super) query: Option<PatternQuery>,
    /// What did not read, each naming its parameter.
    pub(super) errors: Vec<String>,
}

impl PatternForm {
    /// Reads the page's parameters ([`crate::params`]), collecting what
    /// does not read.
    pub(super) fn read(params: PatternParams) -> PatternForm {
        let PatternParams { mut api, edit } = params;
        drop_empty_filter(&mut api.filter);
        let text = nonempty(&api.pattern).unwrap_or_default().to_string();
        let edit = crate::params::editing(&edit) || text.is_empty();
        let mut errors: Vec<String> = Vec::new();
        let spec = form_board(&api.kind, &api.size, &mut errors);
        let mode_text = nonempty(&api.mode).unwrap_or("auto").to_string();
        api.mode = Some(mode_text.clone());
        let (pattern, mode) = form_pattern(spec, &text, &mode_text, edit, &mut errors);
        let query = if pattern.is_some() && errors.is_empty() {
            match crate::params::pattern_query(api.clone()) {
                Ok(q) => Some(q),
                Err(e) => {
                    errors.push(e.to_string());
                    None
                }
            }
        } else {
            None
        };
        PatternForm {
            edit: edit || !errors.is_empty(),
            api,
            text,
            spec,
            mode_text,
            mode,
            pattern,
            query,
            errors,
        }
    }
}
