//! The collection each game of an import goes to (docs/collections.md,
//! "Collections"): the name the import was given (`keil import
//! --collection NAME`), else an upload's token name, else the folder or
//! archive named as the game's source: `kgs/` gives `kgs`,
//! `KGS-2004-19-12345.tar.bz2` gives `KGS-2004-19-12345`, standard input
//! `standard input`.

use std::collections::HashMap;

use super::{ImportOptions, ImportSource};
use crate::error::{Error, Result};
use keil_store::{Write, Writer};

/// The longest collection name taken, in characters.
pub const MAX_COLLECTION_CHARS: usize = 100;

/// The extensions a file's name loses to name its collection (record
/// files and the containers `keil_container` opens), as a file's name
/// ends: `gogod.sgf` is `gogod`, `kgs.tar.bz2` is `kgs`.
const EXTENSIONS: &[&str] = &[
    "sgf", "keil", "kaomi", "zip", "tar", "tgz", "tbz", "tbz2", "txz", "gz", "bz2", "xz", "zst",
    "7z",
];

/// A collection name as given (`--collection`, an upload token's name):
/// trimmed; refused when empty, longer than [`MAX_COLLECTION_CHARS`] or
/// holding a control character.
///
/// # Errors
/// [`Error::BadCollection`] saying which.
pub fn collection_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::BadCollection("a collection name is empty".into()));
    }
    if name.chars().count() > MAX_COLLECTION_CHARS {
        return Err(Error::BadCollection(format!(
            "a collection name has at most {MAX_COLLECTION_CHARS} characters"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::BadCollection(
            "a collection name holds no control characters".into(),
        ));
    }
    Ok(name.to_string())
}

/// The collection a source names by default: a folder's name, a file's
/// name without its record and container extensions (`.sgf`, `.zip`,
/// `.tar.bz2`…; `-`: `standard input`). `is_dir` says whether the source is a folder (`None`: not known, as for the
/// sources an old import logged; then a name with a known extension is a
/// file's).
pub fn default_collection(source: &str, is_dir: Option<bool>) -> String {
    if source == "-" {
        return "standard input".into();
    }
    let path = std::path::Path::new(source);
    // `.`, `..` and `/` name no folder: the folder they stand for.
    let whole = match path.file_name() {
        Some(_) => path.to_path_buf(),
        None => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
    };
    let name = whole
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.to_string());
    let mut stem = name.as_str();
    if is_dir != Some(true) {
        while let Some((head, ext)) = stem.rsplit_once('.') {
            if head.is_empty() || !EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
                break;
            }
            stem = head;
        }
    }
    collection_name(stem).unwrap_or_else(|_| "records".into())
}

/// An import's collections: the name every game takes, or the sources'
/// names with the collection each names; and the ids met so far.
#[derive(Debug, Default)]
pub(crate) struct Collections {
    /// The name every game takes (`--collection`, an upload's token).
    given: Option<String>,
    /// The sources as the import logged them, with their collections.
    roots: Vec<(String, String)>,
    /// Collection ids by name, as this import's transactions met them.
    ids: HashMap<String, i64>,
}

impl Collections {
    /// The collections of an import of `sources` with `options`.
    ///
    /// # Errors
    /// [`Error::BadCollection`] for a `--collection` that
    /// [`collection_name`] refuses.
    pub(crate) fn of_import(sources: &[ImportSource], options: &ImportOptions) -> Result<Self> {
        let given = match (&options.collection, &options.uploader) {
            (Some(c), _) => Some(collection_name(c)?),
            (None, Some(token)) => Some(collection_name(token)?),
            (None, None) => None,
        };
        let roots = sources
            .iter()
            .map(|s| {
                let (name, dir) = match s {
                    ImportSource::Path(p) => (p.display().to_string(), Some(p.is_dir())),
                    ImportSource::Stdin => ("-".to_string(), Some(false)),
                    ImportSource::Bytes { name, .. } => (name.clone(), Some(false)),
                };
                let collection = default_collection(&name, dir);
                (name, collection)
            })
            .collect();
        Ok(Collections {
            given,
            roots,
            ids: HashMap::new(),
        })
    }

    /// The collections of an earlier import, from its log: its sources
    /// (one a line) and its uploader.
    pub(crate) fn of_log(sources: &str, uploader: Option<&str>) -> Self {
        Collections {
            given: uploader.and_then(|u| collection_name(u).ok()),
            roots: sources
                .lines()
                .map(|s| (s.to_string(), default_collection(s, None)))
                .collect(),
            ids: HashMap::new(),
        }
    }

    /// The collections of import `import_id`, from its log in `read`
    /// ([`Collections::of_log`]; an import not logged has none but the
    /// fallback's).
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn of_logged(read: keil_store::Read<'_>, import_id: i64) -> Result<Self> {
        let (sources, uploader) =
            keil_store::collections::import_source(read, import_id)?.unwrap_or_default();
        Ok(Collections::of_log(&sources, uploader.as_deref()))
    }

    /// The collection of a game from `source` (a file or archive member
    /// under one of the import's sources).
    pub(crate) fn name(&self, source: &str) -> &str {
        if let Some(given) = &self.given {
            return given;
        }
        let under = |root: &str| {
            source.strip_prefix(root).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with(['/', '\\', '!']) || root.ends_with('/')
            })
        };
        self.roots
            .iter()
            .filter(|(root, _)| under(root))
            .max_by_key(|(root, _)| root.len())
            .or(self.roots.first())
            .map_or("records", |(_, name)| name.as_str())
    }

    /// The id of the collection of a game from `source`, created in `tx`
    /// when new.
    ///
    /// # Errors
    /// Storage errors.
    pub(crate) fn id(&mut self, tx: Write<'_>, source: &str) -> Result<i64> {
        let name = self.name(source).to_string();
        if let Some(&id) = self.ids.get(&name) {
            return Ok(id);
        }
        let id = keil_store::collections::collection_id(tx, &name)?;
        self.ids.insert(name, id);
        Ok(id)
    }

    /// Forgets the ids met: a transaction that created some rolled back.
    pub(crate) fn forget(&mut self) {
        self.ids.clear();
    }
}

/// The open-time upgrade of schema 16 (`upgrades` row `collections 16`).
const UPGRADE: &str = "collections 16";

/// Games labelled a transaction by [`label_earlier_games`].
const LABEL_CHUNK: usize = 20_000;

/// Puts the games stored before collections in the collections their
/// imports' logs name ([`Collections::of_log`]), a chunk of ids a
/// transaction (an interrupted upgrade goes on where it stopped); once
/// done, never again.
///
/// # Errors
/// Storage errors.
pub(crate) fn label_earlier_games(writer: &mut Writer) -> Result<()> {
    if !keil_store::import::upgrade_pending(writer.read(), UPGRADE)? {
        return Ok(());
    }
    let logs = keil_store::collections::import_sources(writer.read())?;
    let mut of_import: HashMap<Option<i64>, Collections> = HashMap::new();
    let mut after = 0;
    loop {
        let games = keil_store::collections::unlabelled(writer.read(), after, LABEL_CHUNK)?;
        let Some(last) = games.last() else {
            break;
        };
        after = last.id;
        writer.transaction(|tx| -> Result<()> {
            let mut by_collection: HashMap<i64, Vec<i64>> = HashMap::new();
            for g in &games {
                let collections = of_import.entry(g.import_id).or_insert_with(|| {
                    match g.import_id.and_then(|i| logs.get(&i)) {
                        Some((sources, uploader)) => {
                            Collections::of_log(sources, uploader.as_deref())
                        }
                        None => Collections::of_log("records", None),
                    }
                });
                let id = collections.id(tx, g.source.as_deref().unwrap_or(""))?;
                by_collection.entry(id).or_default().push(g.id);
            }
            for (collection, ids) in by_collection {
                keil_store::collections::set_collection(tx, collection, &ids)?;
            }
            Ok(())
        })?;
    }
    keil_store::import::finish_upgrade(writer.autocommit(), UPGRADE, &keil_store::model::now())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_names_its_collection_by_its_folder_or_file() {
        assert_eq!(default_collection("data/kgs", Some(true)), "kgs");
        assert_eq!(default_collection("data/kgs/", Some(true)), "kgs");
        assert_eq!(
            default_collection("/x/KGS-2004-19-12345.tar.bz2", Some(false)),
            "KGS-2004-19-12345"
        );
        assert_eq!(default_collection("gogod.SGF", None), "gogod");
        // A folder keeps its dots; a file only loses known extensions.
        assert_eq!(default_collection("games.v2", Some(true)), "games.v2");
        assert_eq!(default_collection("Go Seigen.v2.sgf", None), "Go Seigen.v2");
        assert_eq!(default_collection("-", None), "standard input");
    }

    #[test]
    fn a_game_takes_the_collection_of_the_source_it_came_from() {
        let c = Collections::of_log("data/kgs\ndata/kgs-extra.zip\ntygem.sgf", None);
        assert_eq!(c.name("data/kgs/2004/a.sgf"), "kgs");
        assert_eq!(c.name("data/kgs-extra.zip!b/c.sgf"), "kgs-extra");
        assert_eq!(c.name("tygem.sgf"), "tygem");
        // A name no source prefixes takes the first source's.
        assert_eq!(c.name("elsewhere.sgf"), "kgs");
        let uploaded = Collections::of_log("upload.sgf", Some("club"));
        assert_eq!(uploaded.name("upload.sgf"), "club");
    }

    #[test]
    fn collection_names_are_bounded() {
        assert_eq!(collection_name("  KGS ").unwrap(), "KGS");
        assert!(collection_name(" ").is_err());
        assert!(collection_name("a\u{7}b").is_err());
        assert!(collection_name(&"x".repeat(MAX_COLLECTION_CHARS + 1)).is_err());
    }
}
