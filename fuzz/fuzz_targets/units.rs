//! The unit parsers on any text: a value or an error, never a panic; a value formatted
//! and parsed again is the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsens_core::platform::Dist;
use netsens_core::units::{format_per_byte, format_size, format_time, parse_per_byte, parse_size, parse_time};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(t) = parse_time("t", text) {
        assert_eq!(parse_time("t", &format_time(t)).ok(), Some(t));
    }
    if let Ok(c) = parse_per_byte("c", text) {
        assert_eq!(parse_per_byte("c", &format_per_byte(c)).ok(), Some(c));
    }
    if let Ok(s) = parse_size("s", text) {
        assert_eq!(parse_size("s", &format_size(s)).ok(), Some(s));
    }
    let _ = Dist::parse("d", text);
});
