//! Pages of a listing and the cursors that ask for the next one.
//!
//! A cursor is `<offset>.<tag>`: where the next page starts, and a tag of the listing it belongs
//! to (its kind, the page size and every entry's identity). The server accepts only a cursor it
//! could have issued for the listing asked for: one whose tag matches and whose offset starts a
//! later page. Anything else (another server's cursor, one of another listing, an edited one) is
//! invalid params (-32602), as the protocol says for an invalid cursor, rather than silently
//! read as the first page.

use rmcp::ErrorData;

/// One listing: what it is called in errors, its tag and its page size.
#[derive(Clone, Debug)]
pub(crate) struct Listing {
    what: &'static str,
    tag: String,
    page_size: usize,
}

impl Listing {
    /// A listing of `len` entries identified by `keys` (in order), paged by `page_size`.
    pub(crate) fn new<'a>(
        what: &'static str,
        keys: impl IntoIterator<Item = &'a str>,
        page_size: usize,
    ) -> Self {
        // FNV-1a over the kind, the page size and the keys: a cursor is not a secret, only a
        // way to tell this listing's cursors from any other's.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut add = |bytes: &[u8]| {
            for &byte in bytes.iter().chain([0xff].iter()) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        };
        add(what.as_bytes());
        add(&page_size.to_le_bytes());
        for key in keys {
            add(key.as_bytes());
        }
        Listing {
            what,
            tag: format!("{hash:016x}"),
            page_size: page_size.max(1),
        }
    }

    /// The page of `items` that `cursor` asks for (the first without one), and the cursor of
    /// the page after it, if any.
    pub(crate) fn page<T: Clone>(
        &self,
        items: &[T],
        cursor: Option<&str>,
    ) -> Result<(Vec<T>, Option<String>), ErrorData> {
        let start = match cursor {
            None => 0,
            Some(cursor) => self.offset(cursor, items.len())?,
        };
        let end = start.saturating_add(self.page_size).min(items.len());
        let next = (end < items.len()).then(|| format!("{end}.{}", self.tag));
        Ok((items[start..end].to_vec(), next))
    }

    /// Where the page `cursor` names starts, if this listing issued it.
    fn offset(&self, cursor: &str, len: usize) -> Result<usize, ErrorData> {
        let issued = cursor
            .split_once('.')
            .filter(|(_, tag)| *tag == self.tag)
            .and_then(|(offset, _)| offset.parse::<usize>().ok())
            .filter(|&offset| offset > 0 && offset < len && offset % self.page_size == 0);
        issued.ok_or_else(|| {
            ErrorData::invalid_params(
                format!(
                    "invalid cursor {cursor:?}: this server did not issue it for {}; ask \
                     without a cursor for the first page, then pass each page's nextCursor",
                    self.what
                ),
                None,
            )
        })
    }
}

/// The error for a cursor given to a listing that is never paged.
pub(crate) fn unpaged(what: &str, cursor: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "invalid cursor {cursor:?}: {what} is answered in one page, so this server issues \
             no cursor for it"
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_in_turn_and_only_issued_cursors() {
        let items: Vec<u32> = (0..7).collect();
        let keys = ["a", "b", "c", "d", "e", "f", "g"];
        let listing = Listing::new("skills/list", keys, 3);
        let (first, next) = listing.page(&items, None).unwrap();
        assert_eq!(first, [0, 1, 2]);
        let next = next.unwrap();
        let (second, next) = listing.page(&items, Some(&next)).unwrap();
        assert_eq!(second, [3, 4, 5]);
        let (last, next) = listing.page(&items, Some(&next.unwrap())).unwrap();
        assert_eq!((last, next), (vec![6], None));

        let cursor = listing.page(&items, None).unwrap().1.unwrap();
        let tag = cursor.split_once('.').unwrap().1;
        let other_kind = Listing::new("resources/list", keys, 3);
        let other_bundle = Listing::new("skills/list", ["a", "b"], 3);
        let other_size = Listing::new("skills/list", keys, 2);
        for (listing, cursor) in [
            (&other_kind, cursor.clone()),
            (&other_bundle, cursor.clone()),
            (&other_size, cursor.clone()),
            (&listing, format!("4.{tag}")),
            (&listing, format!("0.{tag}")),
            (&listing, format!("9.{tag}")),
            (&listing, format!("-3.{tag}")),
            (&listing, "3".to_owned()),
            (&listing, String::new()),
        ] {
            let error = listing.page(&items, Some(&cursor)).unwrap_err();
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{cursor}"
            );
            assert!(error.message.contains("did not issue"), "{}", error.message);
        }
    }

    #[test]
    fn an_empty_listing_is_one_empty_page() {
        let listing = Listing::new("skills/list", [], 5);
        assert_eq!(listing.page::<u8>(&[], None).unwrap(), (vec![], None));
    }
}
