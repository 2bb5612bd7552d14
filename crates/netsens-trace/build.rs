//! Compiles the C reader of native/otf2read against Debian's libotf2 (libotf2-trace-dev).
fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../native/otf2read");
    cc::Build::new()
        .file(dir.join("otf2_reader.c"))
        .file(dir.join("otf2_synth.c"))
        .file(dir.join("otf2_scorep_synth.c"))
        .file(dir.join("otf2_write.c"))
        .include(&dir)
        .flag("-std=c11")
        .warnings_into_errors(true)
        .compile("netsens_otf2read");
    println!("cargo:rerun-if-changed={}", dir.join("otf2_reader.c").display());
    println!("cargo:rerun-if-changed={}", dir.join("otf2_reader.h").display());
    println!("cargo:rerun-if-changed={}", dir.join("otf2_synth.c").display());
    println!("cargo:rerun-if-changed={}", dir.join("otf2_scorep_synth.c").display());
    println!("cargo:rerun-if-changed={}", dir.join("otf2_synth.h").display());
    println!("cargo:rerun-if-changed={}", dir.join("otf2_write.c").display());
    println!("cargo:rustc-link-lib=otf2");
}
