//! Quantities with units: times, per-byte costs and bandwidths, sizes, their
//! formatting and round trips.

use super::msg;
use netsens_core::time::{PerByte, MS, S, US};
use netsens_core::units::{format_per_byte, format_size, format_time, parse_per_byte, parse_size, parse_time};
use proptest::prelude::*;

// ---------------------------------------------------------------- time

#[test]
fn time_units() {
    assert_eq!(parse_time("L", "5us").unwrap(), 5_000_000);
    assert_eq!(parse_time("L", "2.5µs").unwrap(), 2_500_000); // U+00B5 micro sign
    assert_eq!(parse_time("L", "2.5μs").unwrap(), 2_500_000); // U+03BC greek mu
    assert_eq!(parse_time("L", "3ms").unwrap(), 3_000_000_000);
    assert_eq!(parse_time("L", "40ps").unwrap(), 40);
    assert_eq!(parse_time("L", "1.5ns").unwrap(), 1_500);
    assert_eq!(parse_time("L", "2s").unwrap(), 2_000_000_000_000);
    assert_eq!(parse_time("L", "0ns").unwrap(), 0);
    assert_eq!(parse_time("L", "5 us").unwrap(), 5_000_000);
    assert_eq!(parse_time("L", " 7ns ").unwrap(), 7_000);
    assert_eq!(parse_time("L", "0.000001s").unwrap(), 1_000_000); // 1e-6 s = 1 us
    assert_eq!(parse_time("L", "1.375ms").unwrap(), 1_375_000_000);
    assert_eq!(parse_time("L", ".5ns").unwrap(), 500);
    assert_eq!(parse_time("L", "2.500us").unwrap(), 2_500_000);
}

#[test]
fn time_errors() {
    assert_eq!(msg(parse_time("L", "5")), r#"L: "5" has no unit; write a time such as 5us"#);
    assert_eq!(
        msg(parse_time("L", "5 parsecs")),
        r#"L: unknown unit "parsecs" in "5 parsecs"; write a time such as 5us"#
    );
    assert_eq!(msg(parse_time("L", "5uss")), r#"L: unknown unit "uss" in "5uss"; write a time such as 5us"#);
    assert_eq!(msg(parse_time("L", "5US")), r#"L: unknown unit "US" in "5US"; write a time such as 5us"#);
    assert_eq!(msg(parse_time("L", "-5us")), r#"L: "-5us" is negative; write a time such as 5us"#);
    assert_eq!(msg(parse_time("L", "0.5ps")), r#"L: "0.5ps" is not a whole number of picoseconds"#);
    assert_eq!(msg(parse_time("L", "1.0005ns")), r#"L: "1.0005ns" is not a whole number of picoseconds"#);
    assert_eq!(msg(parse_time("L", "")), "L: empty value; write a time such as 5us");
    assert_eq!(msg(parse_time("L", "us")), r#"L: "us" is not a number followed by a unit; write a time such as 5us"#);
    assert!(msg(parse_time("L", "1.2.3us")).starts_with(r#"L: "1.2.3us" is not a number"#));
    assert_eq!(msg(parse_time("L", "99999999999s")), r#"L: "99999999999s" is too large"#);
    assert!(msg(parse_time("L", "6ns/B")).contains(r#"unknown unit "ns/B""#));
}

// ---------------------------------------------------------------- per byte

#[test]
fn per_byte_units() {
    let fs = |t: &str| parse_per_byte("G", t).unwrap().fs_per_byte();
    assert_eq!(fs("6ns/B"), 6_000_000);
    assert_eq!(fs("0ns/B"), 0);
    assert_eq!(fs("40ps/B"), 40_000);
    assert_eq!(fs("1us/B"), 1_000_000_000);
    assert_eq!(fs("333.333ps/B"), 333_333);
    assert_eq!(fs("0.1ns/B"), 100_000);
    // 10 Gbit/s = 1.25e9 B/s; 1e15 fs / 1.25e9 = 800_000 fs/B = 800 ps/B.
    assert_eq!(fs("10Gbit/s"), 800_000);
    // 1 MB/s = 1e6 B/s: 1 us/B = 1e9 fs/B.
    assert_eq!(fs("1MB/s"), 1_000_000_000);
    // 12.5 GB/s = 1.25e10 B/s: 80 ps/B.
    assert_eq!(fs("12.5GB/s"), 80_000);
    // 100 Gbit/s = 1.25e10 B/s: 80 ps/B.
    assert_eq!(fs("100Gbit/s"), 80_000);
    // 38 MB/s: 1e15 / 3.8e7 = 26_315_789.47... → 26_315_789.
    assert_eq!(fs("38MB/s"), 26_315_789);
    // 3 GB/s: 1e15 / 3e9 = 333_333.33... → 333_333.
    assert_eq!(fs("3GB/s"), 333_333);
    // 1.5 TB/s: 1e15 / 1.5e12 = 666.66... → 667 (rounded to nearest).
    assert_eq!(fs("1.5TB/s"), 667);
    // 100 MiB/s = 104_857_600 B/s: 1e15 / 104_857_600 = 9_536_743.16... → 9_536_743.
    assert_eq!(fs("100MiB/s"), 9_536_743);
    // 1 KiB/s = 1024 B/s: 1e15 / 1024 = 976_562_500_000 exactly.
    assert_eq!(fs("1KiB/s"), 976_562_500_000);
    // 8 bit/s = 1 B/s: 1e15 fs/B.
    assert_eq!(fs("8bit/s"), 1_000_000_000_000_000);
    // 1 Mbit/s = 125_000 B/s: 8 us/B.
    assert_eq!(fs("1Mbit/s"), 8_000_000_000);
    // 0.55 MB/s = 550_000 B/s: 1e15 / 550_000 = 1_818_181_818.18... → 1_818_181_818.
    assert_eq!(fs("0.55MB/s"), 1_818_181_818);
    assert_eq!(fs("1 GB/s"), 1_000_000);
    assert_eq!(fs("1kB/s"), 1_000_000_000_000);
}

#[test]
fn per_byte_errors() {
    let example = "write a per-byte cost such as 6ns/B or a bandwidth such as 10Gbit/s";
    assert_eq!(msg(parse_per_byte("G", "5")), format!(r#"G: "5" has no unit; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "5x")), format!(r#"G: unknown unit "x" in "5x"; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "5Gb/s")), format!(r#"G: unknown unit "Gb/s" in "5Gb/s"; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "5xs/B")), format!(r#"G: unknown unit "xs/B" in "5xs/B"; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "-1MB/s")), format!(r#"G: "-1MB/s" is negative; {example}"#));
    assert_eq!(
        msg(parse_per_byte("G", "0MB/s")),
        r#"G: bandwidth "0MB/s" is zero; write a positive bandwidth such as 10Gbit/s, or 0ns/B for no per-byte cost"#
    );
    assert!(msg(parse_per_byte("G", "0.0Gbit/s")).contains("is zero"));
    assert_eq!(
        msg(parse_per_byte("G", "0.0001ps/B")),
        r#"G: "0.0001ps/B" is not a whole number of femtoseconds per byte"#
    );
    assert_eq!(
        msg(parse_per_byte("G", "6ns")),
        r#"G: "6ns" is a time, not a per-byte cost; write 6ns/B, or a bandwidth such as 10Gbit/s"#
    );
    // 1e16 B/s would be 0.1 fs/B: not expressible, and not silently free.
    assert!(msg(parse_per_byte("G", "10000TB/s")).contains("too high"));
}

// ---------------------------------------------------------------- sizes

#[test]
fn size_units() {
    assert_eq!(parse_size("S", "64KiB").unwrap(), 65_536);
    assert_eq!(parse_size("S", "65535B").unwrap(), 65_535);
    assert_eq!(parse_size("S", "100b").unwrap(), 100);
    assert_eq!(parse_size("S", "1MB").unwrap(), 1_000_000);
    assert_eq!(parse_size("S", "1MiB").unwrap(), 1_048_576);
    assert_eq!(parse_size("S", "2GiB").unwrap(), 2_147_483_648);
    assert_eq!(parse_size("S", "3GB").unwrap(), 3_000_000_000);
    assert_eq!(parse_size("S", "1.5KiB").unwrap(), 1_536);
    assert_eq!(parse_size("S", "0B").unwrap(), 0);
    assert_eq!(parse_size("S", "16 KB").unwrap(), 16_000);
}

#[test]
fn size_errors() {
    assert_eq!(msg(parse_size("S", "5")), r#"S: "5" has no unit; write a size such as 64KiB"#);
    assert_eq!(msg(parse_size("S", "5kg")), r#"S: unknown unit "kg" in "5kg"; write a size such as 64KiB"#);
    assert_eq!(msg(parse_size("S", "-5B")), r#"S: "-5B" is negative; write a size such as 64KiB"#);
    assert_eq!(msg(parse_size("S", "1.5B")), r#"S: "1.5B" is not a whole number of bytes"#);
    assert_eq!(msg(parse_size("S", "0.0001KB")), r#"S: "0.0001KB" is not a whole number of bytes"#);
}

// ---------------------------------------------------------------- formatting

#[test]
fn formatting() {
    assert_eq!(format_time(1_500_000), "1.5us");
    assert_eq!(format_time(0), "0ns");
    assert_eq!(format_time(40), "40ps");
    assert_eq!(format_time(1_000), "1ns");
    assert_eq!(format_time(1_500), "1.5ns");
    assert_eq!(format_time(5 * US), "5us");
    assert_eq!(format_time(3 * MS), "3ms");
    // Shortest wins: "1375us" (6 chars) over "1.375ms" (7).
    assert_eq!(format_time(1_375 * US), "1375us");
    assert_eq!(format_time(1_500 * US), "1.5ms");
    assert_eq!(format_time(2 * S), "2s");
    // Never a leading "0." when a smaller unit is exact: 0.5 s is 500ms.
    assert_eq!(format_time(S / 2), "500ms");
    // 12_345 ps: "12345ps" (7 chars) beats "12.345ns" (8).
    assert_eq!(format_time(12_345), "12345ps");

    assert_eq!(format_per_byte(PerByte(6_000_000)), "6ns/B");
    assert_eq!(format_per_byte(PerByte(80_000)), "80ps/B");
    assert_eq!(format_per_byte(PerByte(333_333)), "333.333ps/B");
    assert_eq!(format_per_byte(PerByte(0)), "0ns/B");
    assert_eq!(format_per_byte(PerByte(1)), "0.001ps/B");
    assert_eq!(format_per_byte(PerByte(1_000_000_000)), "1us/B");
    assert_eq!(format_per_byte(PerByte(26_315_789)), "26.315789ns/B");

    assert_eq!(format_size(65_536), "64KiB");
    assert_eq!(format_size(65_535), "65535B");
    assert_eq!(format_size(0), "0B");
    assert_eq!(format_size(1_000), "1KB");
    assert_eq!(format_size(1 << 20), "1MiB");
    assert_eq!(format_size(16 * 1024), "16KiB");
}

proptest! {
    #[test]
    fn time_round_trip(ps in any::<u64>()) {
        prop_assert_eq!(parse_time("L", &format_time(ps)).unwrap(), ps);
    }

    #[test]
    fn per_byte_round_trip(fs in any::<u64>()) {
        prop_assert_eq!(parse_per_byte("G", &format_per_byte(PerByte(fs))).unwrap(), PerByte(fs));
    }

    #[test]
    fn size_round_trip(bytes in any::<u64>()) {
        prop_assert_eq!(parse_size("S", &format_size(bytes)).unwrap(), bytes);
    }

    #[test]
    fn small_time_round_trip(ps in 0u64..10_000_000_000) {
        prop_assert_eq!(parse_time("L", &format_time(ps)).unwrap(), ps);
    }
}

#[test]
fn round_trip_edges() {
    for ps in [0, 1, 999, 1_000, 1_001, 999_999, US, MS, S, S + 1, u64::MAX, u64::MAX - 1] {
        assert_eq!(parse_time("L", &format_time(ps)).unwrap(), ps, "{ps}");
    }
    for fs in [0, 1, 999, 1_000, 1_001, u64::MAX] {
        assert_eq!(parse_per_byte("G", &format_per_byte(PerByte(fs))).unwrap(), PerByte(fs));
    }
    for b in [0, 1, 1023, 1024, 1025, 1 << 40, u64::MAX] {
        assert_eq!(parse_size("S", &format_size(b)).unwrap(), b);
    }
}
