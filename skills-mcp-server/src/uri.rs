//! The `skill://<name>/<path>` URIs every served file and folder has.

/// The URI scheme of every served file: `skill://<name>/<path>`.
pub const URI_SCHEME: &str = "skill://";

/// `skill://<name>/<path>`, each byte outside the unreserved set and `/` percent-encoded.
pub(crate) fn uri_of(name: &str, path: &str) -> String {
    let mut uri = String::from(URI_SCHEME);
    for byte in name.bytes().chain([b'/']).chain(path.bytes()) {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// `skill://<name>` for the skill's own folder (`path` empty), else `skill://<name>/<path>`.
pub(crate) fn folder_uri(name: &str, path: &str) -> String {
    let mut uri = uri_of(name, path);
    if path.is_empty() {
        uri.pop();
    }
    uri
}

/// A percent-decoded path, for the error message of a path that is not served.
pub(crate) fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_encode_what_a_uri_cannot_hold() {
        assert_eq!(uri_of("s", "a b/ü.md"), "skill://s/a%20b/%C3%BC.md");
    }
}
