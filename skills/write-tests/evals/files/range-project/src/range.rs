/// Parses `"a..b"` into the half-open range `a..b`.
pub fn parse_range(text: &str) -> Option<std::ops::Range<u32>> {
    let (start, end) = text.split_once("..")?;
    let start: u32 = start.trim().parse().ok()?;
    let end: u32 = end.trim().parse().ok()?;
    Some(start..end)
}
