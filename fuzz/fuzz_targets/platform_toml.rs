//! A platform TOML file of any content: a platform or an error, never a panic; a
//! platform read back from its own TOML is the same platform.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsens_core::platform::Platform;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(platform) = Platform::from_toml(text, "fuzz.toml") {
        let again = Platform::from_toml(&platform.to_toml(), "again.toml").expect("a platform's own TOML reads back");
        assert_eq!(again, platform);
    }
});
