//! Folding names for search: accents and case do not matter.

/// The search form of a name: ASCII transliteration (`ñ` → `n`, `ß` → `ss`),
/// lower case, every run of non-alphanumeric characters one space, trimmed.
///
/// ```
/// assert_eq!(keil_archive::fold("  Bolaños,  José-María "), "bolanos jose maria");
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
