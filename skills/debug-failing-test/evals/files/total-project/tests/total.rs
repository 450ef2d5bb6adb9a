use total::total;

#[test]
fn test_total() {
    // An order of exactly 100.00 gets the discount.
    assert_eq!(total(&[5_000, 5_000]), 9_000);
}
