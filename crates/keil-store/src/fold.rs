//! Folding names for search: accents and case do not matter.

/// The search form of a name: ASCII transliteration (`ñ` → `n`, `ß` → `ss`),
/// lower case, every run of non-alphanumeric characters one space, trimmed.
///
/// ```
/// assert_eq!(keil_store::fold::fold("  Bolaños,  José-María "), "bolanos jose maria");
/// ```
pub fn fold(name: &str) -> String {
    let ascii = deunicode::deunicode(name);
    let mut out = String::with_capacity(ascii.len());
    for ch in ascii.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// The person key of a name: the spellings of one person share it
/// (docs/collections.md, "Players"). Letters and digits only, lower case;
/// Latin letters (with accents, and full-width forms) as ASCII (`ñ` → `n`);
/// every other script kept as written (`柯洁` stays `柯洁`, not its pinyin:
/// different people share a transliteration). Spaces and punctuation are
/// dropped, so `Ke Jie`, `KeJie` and `ke-jie` are one key; a name of
/// punctuation only is its own key (trimmed, lower case).
///
/// ```
/// use keil_store::fold::person_key;
/// assert_eq!(person_key("Ke Jie"), person_key("KeJie"));
/// assert_eq!(person_key("HanDol"), "handol");
/// assert_eq!(person_key("Bolaños, José"), "bolanosjose");
/// assert_eq!(person_key("ＫｅＪｉｅ"), "kejie");
/// assert_ne!(person_key("柯洁"), person_key("Ke Jie"));
/// ```
pub fn person_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars().filter(|c| c.is_alphanumeric()) {
        let latin = matches!(u32::from(ch), 0..=0x024F | 0x1E00..=0x1EFF | 0xFF00..=0xFFEF);
        if latin {
            let ascii = deunicode::deunicode_char(ch).unwrap_or("");
            out.extend(
                ascii
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .map(|c| c.to_ascii_lowercase()),
            );
        } else {
            out.extend(ch.to_lowercase());
        }
    }
    if out.is_empty() {
        name.trim().to_lowercase()
    } else {
        out
    }
}
