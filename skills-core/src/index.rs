//! The name index of a registry: an open-addressing hash table built by the macro at compile
//! time and probed at run time, so `Registry::get` costs one hash and usually one string
//! comparison, whatever the number of skills. Dependency-free, like [`crate::render`]: the
//! table is built and read by this one implementation.

/// An empty slot.
pub const EMPTY: u32 = u32::MAX;

/// FNV-1a, 64 bits: fast on short keys, and stable across platforms and releases (the table is
/// baked into binaries, so the function must never change silently).
pub fn hash(name: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Builds the table for `names` (distinct): a power of two at least twice their number, each
/// slot the index of a name or [`EMPTY`], linear probing. Empty for no names.
pub fn build(names: &[&str]) -> Vec<u32> {
    if names.is_empty() {
        return Vec::new();
    }
    let size = (names.len() * 2).next_power_of_two();
    let mask = size - 1;
    let mut table = vec![EMPTY; size];
    for (index, name) in names.iter().enumerate() {
        let mut slot = hash(name) as usize & mask;
        while table[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        table[slot] = index as u32;
    }
    table
}

/// The table as generated code embeds it: one byte giving the width of a slot (2 when every
/// index fits in 16 bits, else 4), then the slots, little-endian, [`EMPTY`] as all ones. One
/// byte-string literal, so the table costs rustc one token and the binary 2 bytes a slot for
/// up to 65,535 skills (indices 0 to 65,534; all ones is [`EMPTY`]).
pub fn encode(table: &[u32]) -> Vec<u8> {
    let narrow = table
        .iter()
        .all(|&slot| slot == EMPTY || slot < u32::from(u16::MAX));
    let width: u8 = if narrow { 2 } else { 4 };
    let mut bytes = Vec::with_capacity(1 + table.len() * usize::from(width));
    bytes.push(width);
    for &slot in table {
        if narrow {
            // `EMPTY` (all ones) truncates to all ones in 16 bits.
            bytes.extend_from_slice(&(slot as u16).to_le_bytes());
        } else {
            bytes.extend_from_slice(&slot.to_le_bytes());
        }
    }
    bytes
}

/// Finds `name` in a table made by [`build`] and [`encode`]; `name_at(i)` gives the i-th name.
/// The load factor of at most one half guarantees an empty slot, so the probe always ends.
pub fn lookup<'a>(encoded: &[u8], name: &str, name_at: impl Fn(usize) -> &'a str) -> Option<usize> {
    let (&width, slots) = encoded.split_first()?;
    let width = usize::from(width);
    let (empty, len) = match width {
        2 => (usize::from(u16::MAX), slots.len() / 2),
        _ => (EMPTY as usize, slots.len() / 4),
    };
    if len == 0 || !len.is_power_of_two() {
        return None;
    }
    let slot_at = |slot: usize| -> usize {
        let at = slot * width;
        match slots.get(at..at + width) {
            Some(&[a, b]) => usize::from(u16::from_le_bytes([a, b])),
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]) as usize,
            _ => empty,
        }
    };
    let mask = len - 1;
    let mut slot = hash(name) as usize & mask;
    for _ in 0..len {
        let entry = slot_at(slot);
        if entry == empty {
            return None;
        }
        if name_at(entry) == name {
            return Some(entry);
        }
        slot = (slot + 1) & mask;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_and_nothing_else() {
        let names: Vec<String> = (0..1000).map(|i| format!("skill-{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let table = build(&refs);
        assert_eq!(table.len(), 2048);
        let encoded = encode(&table);
        assert_eq!(encoded.len(), 1 + 2 * 2048, "narrow slots");
        for (i, name) in refs.iter().enumerate() {
            assert_eq!(lookup(&encoded, name, |j| refs[j]), Some(i));
        }
        for missing in ["", "skill-1000", "skill", "Skill-1"] {
            assert_eq!(lookup(&encoded, missing, |j| refs[j]), None);
        }
        assert_eq!(lookup(&encode(&[]), "x", |j| refs[j]), None);
        assert_eq!(lookup(&[], "x", |j| refs[j]), None);
    }

    #[test]
    fn wide_slots_past_65535_names() {
        let names: Vec<String> = (0..70_000).map(|i| format!("s{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let encoded = encode(&build(&refs));
        assert_eq!(encoded[0], 4);
        for i in [0, 65_534, 65_535, 69_999] {
            assert_eq!(lookup(&encoded, refs[i], |j| refs[j]), Some(i));
        }
        assert_eq!(lookup(&encoded, "s70000", |j| refs[j]), None);
    }

    #[test]
    fn hash_is_stable() {
        // Baked into binaries: a change here must be deliberate.
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("code-review"), hash("code-review"));
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
