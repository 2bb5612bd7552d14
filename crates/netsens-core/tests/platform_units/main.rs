//! Units, noise distributions and platform descriptions. Expected values are derived
//! by hand in the comments next to them. One module per subject.

mod dists;
mod overrides;
mod presets;
mod toml_files;
mod units;

/// The smallest platform file: the four required parameters of `[cluster]`.
const MINIMAL: &str = r#"
[cluster]
L = "5us"
o = "2.9us"
g = "5.8us"
G = "38MB/s"
"#;

fn msg<T: std::fmt::Debug>(r: netsens_core::Result<T>) -> String {
    let e = r.expect_err("expected an error");
    let text = e.to_string();
    assert!(!text.contains('\n'), "error is not one line: {text:?}");
    text
}
