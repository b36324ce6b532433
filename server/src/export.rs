//! Bulk download: `GET /api/v1/games.sgf` and `GET /api/v1/games.zip`
//! stream every game that passes the game list's filters, oldest first,
//! as one collection or a zip of one file per game, whatever their number.
//!
//! The archive is read on a thread of its own (at the searches' lower
//! priority) that writes the bundle ([`keil_container::Bundle`]) into a
//! bounded channel of chunks; the answer's body reads the channel. Memory
//! stays one game and eight 64 KiB chunks per download; a client that reads
//! slowly holds its thread back, one that goes away stops it (the channel
//! closes, the next write fails). At most [`EXPORT_SLOTS`] downloads run at
//! once; more answer 503 with `Retry-After`.

use std::io::{self, Write};

use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::{Bytes, Data};
use keil_container::{Bundle, BundleFormat};

use crate::dto::{GameFilterQuery, SelectionQuery};
use crate::error::{ApiError, Problem};
use crate::params::{Query, selection};
use crate::state::ServerState;

/// Downloads that may run at once.
pub const EXPORT_SLOTS: usize = 2;

/// Chunks a download's channel holds before its thread waits for the
/// client.
const CHUNKS: usize = 8;

/// Bytes per chunk sent to the client.
const CHUNK_BYTES: usize = 64 << 10;

/// One running download, counted in the state's
/// [`Exports`](crate::state::Exports) until it is dropped (its
/// thread ends, or the thread could not start).
struct Slot(Data<ServerState>);

impl Slot {
    /// Counts one more download; refused past [`EXPORT_SLOTS`].
    fn take(state: &Data<ServerState>) -> Result<Slot, ApiError> {
        let before = state.exports.enter();
        let slot = Slot(state.clone());
        if before >= EXPORT_SLOTS {
            return Err(ApiError::ExportsBusy(EXPORT_SLOTS));
        }
        Ok(slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.exports.leave();
    }
}

/// Writes into the download's channel, a chunk at a time; fails with
/// `BrokenPipe` once the client has gone.
struct ChannelWriter(tokio::sync::mpsc::Sender<Bytes>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .blocking_send(Bytes::copy_from_slice(buf))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client has gone"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The most games a download of what a search found holds (the first of
/// the search's list; one page of the archive's searches).
pub const FOUND_MAX: usize = keil_archive::MAX_PAGE;

/// The games of a download.
pub(crate) enum Selection {
    /// Every game that passes the filter, oldest first (the API's bulk
    /// download, the game list's).
    Filter(keil_archive::GameFilter),
    /// These games, in this order: the games a position or pattern search
    /// found (the explorer's and the pattern page's downloads).
    Found(Vec<keil_archive::GameId>),
}

/// Streams the games `selection` names as `format` (also the pages'
/// downloads, `GET /games.sgf`, `/games.zip`, `/positions.sgf`, ...).
pub(crate) fn download(
    state: Data<ServerState>,
    selection: Selection,
    format: BundleFormat,
) -> Result<HttpResponse, ApiError> {
    // Taken here, so that a refusal is an answer; the thread holds it.
    let slot = Slot::take(&state)?;
    let (send, mut receive) = tokio::sync::mpsc::channel::<Bytes>(CHUNKS);
    let worker = state.clone();
    std::thread::Builder::new()
        .name("keil-export".into())
        .spawn(move || {
            let _slot = slot;
            crate::pools::lower_priority();
            let out = io::BufWriter::with_capacity(CHUNK_BYTES, ChannelWriter(send));
            let mut bundle = Bundle::new(format, out);
            let games = worker.archive.games();
            let exported = match &selection {
                Selection::Filter(filter) => games.export_into(filter, &mut bundle),
                Selection::Found(ids) => games.export_ids_into(ids, &mut bundle),
            };
            match exported {
                Err(e) => tracing::warn!("bulk download stopped: {e}"),
                Ok((n, written)) => match (n, written.and_then(|()| bundle.finish().map(drop))) {
                    (n, Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                        tracing::info!(games = n, "bulk download: the client went away")
                    }
                    (_, Err(e)) => tracing::warn!("bulk download stopped: {e}"),
                    (n, Ok(())) => tracing::info!(games = n, "bulk download"),
                },
            }
        })
        .map_err(|e| ApiError::Internal(format!("cannot start a download: {e}")))?;
    let body = futures_util::stream::poll_fn(move |cx| {
        receive
            .poll_recv(cx)
            .map(|chunk| chunk.map(Ok::<Bytes, actix_web::Error>))
    });
    let name = match format {
        BundleFormat::Sgf => "games.sgf",
        BundleFormat::Zip => "games.zip",
    };
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .streaming(body))
}

/// Every game that passes the filters, oldest first, as one SGF
/// collection (the stored records: game information as the records wrote
/// it), streamed whatever their number.
#[utoipa::path(get, path = "/api/v1/games.sgf", tag = "games", params(SelectionQuery, GameFilterQuery),
    responses(
        (status = 200, description = "The games, one collection", content_type = "application/x-go-sgf", body = String),
        (status = 400, description = "A filter does not parse", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "As many downloads run as the server allows (`Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn export_sgf(
    state: Data<ServerState>,
    q: Query<SelectionQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = selection(q.into_inner())?;
    download(state, Selection::Filter(filter), BundleFormat::Sgf)
}

/// Every game that passes the filters, oldest first, as a zip of one file
/// per game (`{id}.sgf`, `.keil`, `.kaomi`), streamed whatever their number.
#[utoipa::path(get, path = "/api/v1/games.zip", tag = "games", params(SelectionQuery, GameFilterQuery),
    responses(
        (status = 200, description = "The games, a zip of one file per game", content_type = "application/zip", body = Vec<u8>),
        (status = 400, description = "A filter does not parse", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "As many downloads run as the server allows (`Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn export_zip(
    state: Data<ServerState>,
    q: Query<SelectionQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = selection(q.into_inner())?;
    download(state, Selection::Filter(filter), BundleFormat::Zip)
}
