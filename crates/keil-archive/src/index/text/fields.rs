//! What the text index holds of one game: its fields read from a record,
//! or from a stored record again (catch-up, reindex).

use keil_record::Record;

use crate::error::{Error, Result};
use keil_store::ids::GameId;

/// Reads the text fields back from a stored record (catch-up, reindex).
pub(crate) fn text_of_stored(game: GameId, blob: &[u8]) -> Result<TextFields> {
    let text = keil_store::records::decompress(game, blob)?;
    let mut records = keil_record::read_records(text.as_bytes());
    match records.pop() {
        Some(Ok(r)) if records.is_empty() => Ok(text_fields(&r)),
        _ => Err(Error::Corrupt {
            game,
            reason: "stored record does not read back as one game".into(),
        }),
    }
}

/// The text fields of a record.
pub(crate) fn text_fields(record: &Record) -> TextFields {
    let info = &record.info;
    let mut comments = String::new();
    let game_comment = info.comment.as_deref().map(std::borrow::Cow::Borrowed);
    for c in game_comment.into_iter().chain(record.comments()) {
        if !comments.is_empty() {
            comments.push('\n');
        }
        comments.push_str(&c);
    }
    let players = [&info.black, &info.white, &info.black_team, &info.white_team]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n");
    TextFields {
        players,
        event: info.event.clone(),
        place: info.place.clone(),
        game_name: info.game_name.clone(),
        comments,
    }
}

/// What the text index holds for one game.
#[derive(Clone, Debug, Default)]
pub(crate) struct TextFields {
    /// The players' names and teams (`PB`, `PW`, `BT`, `WT`), one per line.
    pub players: String,
    pub event: Option<String>,
    pub place: Option<String>,
    pub game_name: Option<String>,
    /// The game comment (`GC`) and every node comment, one per line.
    pub comments: String,
}
