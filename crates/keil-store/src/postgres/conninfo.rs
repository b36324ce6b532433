//! PostgreSQL connection strings, in both of libpq's forms (the URL
//! `postgres://user:password@host:port/db?key=value&…` and `key=value …`;
//! libpq's "Connection Strings"): the TLS parameters taken out for
//! [`super::tls`], and the password hidden for messages ([`redacted`]).

/// A connection string with its TLS parameters taken out.
#[derive(Debug, PartialEq, Eq)]
pub struct Split {
    /// The string without `sslmode` and `sslrootcert`.
    pub rest: String,
    /// `sslmode`'s value (the last one given, as libpq takes).
    pub mode: Option<String>,
    /// `sslrootcert`'s value.
    pub rootcert: Option<String>,
}

/// Takes `sslmode` and `sslrootcert` out of `url`: from the query of the
/// URL form (`postgres://…?sslmode=verify-full&sslrootcert=/ca.pem`, its
/// values percent-decoded) or from libpq's `key=value` form
/// (`host=db sslmode=verify-full sslrootcert='/my ca.pem'`, values quoted
/// or backslash-escaped). A string that does not tokenize is returned
/// whole, for [`postgres::Config`] to report.
pub fn split(url: &str) -> Split {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        split_url(url)
    } else {
        split_key_values(url).unwrap_or_else(|| Split {
            rest: url.to_string(),
            mode: None,
            rootcert: None,
        })
    }
}

fn split_url(url: &str) -> Split {
    let mut out = Split {
        rest: url.to_string(),
        mode: None,
        rootcert: None,
    };
    let Some((base, query)) = url.split_once('?') else {
        return out;
    };
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match percent_decode(key).as_str() {
            "sslmode" => out.mode = Some(percent_decode(value)),
            "sslrootcert" => out.rootcert = Some(percent_decode(value)),
            _ => kept.push(pair),
        }
    }
    out.rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    out
}

/// `%XX` escapes decoded (and `+` kept: libpq's URIs do not use it for a
/// space); an invalid escape is kept as it is.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// libpq's `key=value` form, tokenized as libpq's `conninfo_parse` does;
/// `None` when it does not tokenize.
fn split_key_values(s: &str) -> Option<Split> {
    let mut out = Split {
        rest: String::new(),
        mode: None,
        rootcert: None,
    };
    let mut kept: Vec<&str> = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    loop {
        i = skip_space(i);
        if i == bytes.len() {
            break;
        }
        let start = i;
        while i < bytes.len() && bytes[i] != b'=' && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = &s[start..i];
        i = skip_space(i);
        if bytes.get(i) != Some(&b'=') {
            return None;
        }
        i = skip_space(i + 1);
        let mut value = Vec::new();
        if bytes.get(i) == Some(&b'\'') {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return None,
                    Some(b'\'') => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') if i + 1 < bytes.len() => {
                        value.push(bytes[i + 1]);
                        i += 2;
                    }
                    Some(&b) => {
                        value.push(b);
                        i += 1;
                    }
                }
            }
        } else {
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                if bytes[i] == b'\\' && i + 1 < bytes.len() {
                    i += 1;
                }
                value.push(bytes[i]);
                i += 1;
            }
        }
        let value = String::from_utf8_lossy(&value).into_owned();
        match key {
            "sslmode" => out.mode = Some(value),
            "sslrootcert" => out.rootcert = Some(value),
            _ => kept.push(&s[start..i]),
        }
    }
    out.rest = kept.join(" ");
    Some(out)
}

/// `url` with every password replaced by `***`, for messages and logs:
/// the URL form's `user:password@` and a `password` parameter of either
/// form (`?password=…`, `password='…'`).
pub fn redacted(url: &str) -> String {
    let mut out = url.to_string();
    if let Some((scheme, rest)) = url.split_once("://")
        && let Some(at) = rest.rfind('@')
    {
        let (userinfo, host) = rest.split_at(at);
        if let Some((user, _)) = userinfo.split_once(':') {
            out = format!("{scheme}://{user}:***{host}");
        }
    }
    let mut from = 0;
    while let Some(found) = out[from..].find("password") {
        let start = from + found;
        let before = out[..start].chars().next_back();
        let mut i = start + "password".len();
        let bytes = out.as_bytes();
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let is_key = matches!(before, None | Some('?' | '&' | ' ' | '\t' | '\n'));
        if !is_key || bytes.get(i) != Some(&b'=') {
            from = start + "password".len();
            continue;
        }
        i += 1;
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let end = if bytes.get(i) == Some(&b'\'') {
            // Quoted (libpq's key=value form): to the closing quote.
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'\'' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(bytes.len())
        } else {
            let mut j = i;
            while j < bytes.len() && !matches!(bytes[j], b'&' | b' ' | b'\t' | b'\n') {
                j += 1;
            }
            j
        };
        out.replace_range(i..end, "***");
        from = i + 3;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Split, redacted, split};

    fn split_of(rest: &str, mode: Option<&str>, rootcert: Option<&str>) -> Split {
        Split {
            rest: rest.to_string(),
            mode: mode.map(str::to_string),
            rootcert: rootcert.map(str::to_string),
        }
    }

    #[test]
    fn the_url_form_loses_its_tls_parameters_and_keeps_the_rest() {
        assert_eq!(
            split(
                "postgresql://u:p%40ss@db:5432/keil?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"
            ),
            split_of(
                "postgresql://u:p%40ss@db:5432/keil",
                Some("verify-full"),
                Some("/etc/ca.pem")
            )
        );
        assert_eq!(
            split("postgres://db/keil?application_name=x&sslmode=require&connect_timeout=3"),
            split_of(
                "postgres://db/keil?application_name=x&connect_timeout=3",
                Some("require"),
                None
            )
        );
        assert_eq!(
            split("postgres://db/keil"),
            split_of("postgres://db/keil", None, None)
        );
        // The last value wins, as in libpq.
        assert_eq!(
            split("postgres://db/k?sslmode=disable&sslmode=verify-ca").mode,
            Some("verify-ca".to_string())
        );
    }

    #[test]
    fn the_key_value_form_loses_its_tls_parameters_quoted_or_not() {
        assert_eq!(
            split(
                "host=db  user=keil sslmode = verify-full sslrootcert='/my ca\\'s.pem' dbname=keil"
            ),
            split_of(
                "host=db user=keil dbname=keil",
                Some("verify-full"),
                Some("/my ca's.pem")
            )
        );
        assert_eq!(
            split("host=db sslrootcert=/a\\ b.pem"),
            split_of("host=db", None, Some("/a b.pem"))
        );
        // Not tokenizable: whole, for postgres::Config to report.
        assert_eq!(
            split("host=db sslmode='require"),
            split_of("host=db sslmode='require", None, None)
        );
    }

    #[test]
    fn passwords_are_hidden_in_both_forms() {
        assert_eq!(
            redacted("postgres://keil:s3cret@db:5432/keil?sslmode=require"),
            "postgres://keil:***@db:5432/keil?sslmode=require"
        );
        assert_eq!(
            redacted("postgres://keil@db/keil?password=s3cret&sslmode=require"),
            "postgres://keil@db/keil?password=***&sslmode=require"
        );
        assert_eq!(
            redacted("host=db password = 'a b\\'c' dbname=keil"),
            "host=db password = *** dbname=keil"
        );
        assert_eq!(redacted("host=db password=s3cret"), "host=db password=***");
        // A word that only contains it is not a password parameter.
        assert_eq!(
            redacted("postgres://db/keil?application_name=mypassword"),
            "postgres://db/keil?application_name=mypassword"
        );
    }
}
