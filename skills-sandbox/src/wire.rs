//! The policy file a call hands to its stages: [`StagePolicy`] and its byte encoding.
//!
//! The caller writes it into the call's private folder; the stages read it before they build
//! the sandbox, and the command can never see that folder. Paths, arguments and the program
//! are bytes (they need not be UTF-8), each field length-prefixed, after a header naming this
//! crate's version, since the entry program may be another binary.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use crate::confinement::Level;
use crate::policy::Limits;
use crate::protected::GitSettings;

/// The first bytes of a policy file.
const HEADER: &[u8] = concat!("skills-sandbox policy ", env!("CARGO_PKG_VERSION"), "\n").as_bytes();

/// Everything the stages need to know about a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StagePolicy {
    pub(crate) level: Level,
    /// Build the sandbox and report, but start no command.
    pub(crate) probe: bool,
    pub(crate) workdir: PathBuf,
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) read_only: Vec<PathBuf>,
    pub(crate) read_write: Vec<PathBuf>,
    pub(crate) allow_network: bool,
    pub(crate) writable_vcs: bool,
    pub(crate) limits: Limits,
    /// The caller's git settings, for what the working directory keeps read-only.
    pub(crate) git: GitSettings,
}

impl StagePolicy {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Encoder(HEADER.to_vec());
        Wire::encode(self, &mut out);
        out.0
    }

    /// The policy, or `None` if the bytes are damaged or written by another version.
    pub(crate) fn decode(bytes: &[u8]) -> Option<StagePolicy> {
        let mut input = Decoder(bytes.strip_prefix(HEADER)?);
        let policy = <StagePolicy as Wire>::decode(&mut input)?;
        input.0.is_empty().then_some(policy)
    }
}

/// How a value is written in a policy file.
trait Wire: Sized {
    fn encode(&self, out: &mut Encoder);
    fn decode(input: &mut Decoder<'_>) -> Option<Self>;
}

/// Implements [`Wire`] for a struct from one list of its fields, in the order they are written:
/// the encoding and the decoding follow the same list, so they cannot disagree on the order.
/// The encoding destructures the struct without `..` and the decoding builds it with a struct
/// literal, so a field added to the struct and not to the list is a compile error.
macro_rules! wire_record {
    ($type:ident { $($field:ident),* $(,)? }) => {
        impl Wire for $type {
            fn encode(&self, out: &mut Encoder) {
                let $type { $($field),* } = self;
                $(Wire::encode($field, out);)*
            }

            fn decode(input: &mut Decoder<'_>) -> Option<Self> {
                Some($type { $($field: Wire::decode(input)?,)* })
            }
        }
    };
}

wire_record!(StagePolicy {
    level,
    probe,
    workdir,
    program,
    args,
    read_only,
    read_write,
    allow_network,
    writable_vcs,
    limits,
    git,
});

wire_record!(Limits {
    address_space,
    processes,
    open_files,
    file_size,
    cpu_seconds,
    tmp_size,
});

wire_record!(GitSettings { files, home });

impl Wire for Level {
    fn encode(&self, out: &mut Encoder) {
        out.u64(match self {
            Level::Namespaces => 0,
            Level::Fallback => 1,
        });
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        match input.u64()? {
            0 => Some(Level::Namespaces),
            1 => Some(Level::Fallback),
            _ => None,
        }
    }
}

impl Wire for u64 {
    fn encode(&self, out: &mut Encoder) {
        out.u64(*self);
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        input.u64()
    }
}

impl Wire for bool {
    fn encode(&self, out: &mut Encoder) {
        out.bool(*self);
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        input.bool()
    }
}

impl Wire for OsString {
    fn encode(&self, out: &mut Encoder) {
        out.bytes(self.as_bytes());
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        input.os_string()
    }
}

impl Wire for PathBuf {
    fn encode(&self, out: &mut Encoder) {
        out.bytes(self.as_os_str().as_bytes());
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        input.path()
    }
}

/// A flag, then the value when there is one.
impl<T: Wire> Wire for Option<T> {
    fn encode(&self, out: &mut Encoder) {
        out.bool(self.is_some());
        if let Some(value) = self {
            value.encode(out);
        }
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        if input.bool()? {
            T::decode(input).map(Some)
        } else {
            Some(None)
        }
    }
}

/// A count, then the items.
impl<T: Wire> Wire for Vec<T> {
    fn encode(&self, out: &mut Encoder) {
        out.u64(self.len() as u64);
        for item in self {
            item.encode(out);
        }
    }
    fn decode(input: &mut Decoder<'_>) -> Option<Self> {
        input.list(T::decode)
    }
}

struct Encoder(Vec<u8>);

impl Encoder {
    fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn bool(&mut self, value: bool) {
        self.u64(u64::from(value));
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.u64(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }
}

struct Decoder<'a>(&'a [u8]);

impl Decoder<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bool(&mut self) -> Option<bool> {
        match self.u64()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn os_string(&mut self) -> Option<OsString> {
        let len = usize::try_from(self.u64()?).ok()?;
        Some(OsString::from_vec(self.take(len)?.to_vec()))
    }

    fn path(&mut self) -> Option<PathBuf> {
        self.os_string().map(PathBuf::from)
    }

    fn list<T>(&mut self, item: impl Fn(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let count = self.u64()?;
        // Each item takes at least 8 bytes (a number, or the length of its bytes), so a count
        // beyond that is damage (and
        // never a huge allocation).
        if count > (self.0.len() / 8) as u64 {
            return None;
        }
        (0..count).map(|_| item(self)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StagePolicy {
        StagePolicy {
            level: Level::Fallback,
            probe: false,
            workdir: PathBuf::from("/work dir"),
            program: OsString::from("bash"),
            args: vec![OsString::from("-c"), OsString::from_vec(vec![b'x', 0xff])],
            read_only: vec![PathBuf::from("/opt/tool")],
            read_write: Vec::new(),
            allow_network: true,
            writable_vcs: false,
            limits: Limits {
                cpu_seconds: None,
                ..Limits::default()
            },
            git: GitSettings {
                files: vec![PathBuf::from("/home/a/.gitconfig")],
                home: Some(PathBuf::from("/home/a")),
            },
        }
    }

    #[test]
    fn a_policy_comes_back_as_it_was_written() {
        let policy = sample();
        assert_eq!(StagePolicy::decode(&policy.encode()), Some(policy));
    }

    #[test]
    fn damaged_or_foreign_bytes_are_refused() {
        let bytes = sample().encode();
        for cut in [0, HEADER.len(), bytes.len() - 1] {
            assert_eq!(StagePolicy::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(StagePolicy::decode(&longer), None);
        let mut other_version = bytes.clone();
        other_version[HEADER.len() - 2] ^= 1;
        assert_eq!(StagePolicy::decode(&other_version), None);
        // A list count far beyond the bytes left is refused before anything is allocated.
        let mut huge = Encoder(HEADER.to_vec());
        huge.u64(0);
        huge.bool(false);
        huge.bytes(b"/");
        huge.bytes(b"bash");
        huge.u64(u64::MAX);
        let huge = huge.0;
        assert_eq!(StagePolicy::decode(&huge), None);
    }
}
