//! Build script: gives the shared library c-blosc2's SONAME.

fn main() {
    // Programs linked against c-blosc2 3.2/3.3 record NEEDED libblosc2.so.9; ours must answer to it.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblosc2.so.9");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
