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

/// Finds `name` in a table made by [`build`]; `name_at(i)` gives the i-th name. The load factor
/// of at most one half guarantees an empty slot, so the probe always ends.
pub fn lookup<'a>(table: &[u32], name: &str, name_at: impl Fn(usize) -> &'a str) -> Option<usize> {
    if table.is_empty() {
        return None;
    }
    let mask = table.len() - 1;
    let mut slot = hash(name) as usize & mask;
    for _ in 0..table.len() {
        let entry = table[slot];
        if entry == EMPTY {
            return None;
        }
        if name_at(entry as usize) == name {
            return Some(entry as usize);
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
        for (i, name) in refs.iter().enumerate() {
            assert_eq!(lookup(&table, name, |j| refs[j]), Some(i));
        }
        for missing in ["", "skill-1000", "skill", "Skill-1"] {
            assert_eq!(lookup(&table, missing, |j| refs[j]), None);
        }
        assert_eq!(lookup(&[], "x", |j| refs[j]), None);
    }

    #[test]
    fn hash_is_stable() {
        // Baked into binaries: a change here must be deliberate.
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("code-review"), hash("code-review"));
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
