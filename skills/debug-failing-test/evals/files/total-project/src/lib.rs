//! Totals of an order.

/// The total of `prices`, in cents, after a 10% discount on orders over 100.00.
pub fn total(prices: &[u64]) -> u64 {
    let sum: u64 = prices.iter().sum();
    if sum > 10_000 { sum - sum / 10 } else { sum }
}
