//! emurust: a Game Boy (DMG) emulator core. The Python binding lives in `python.rs`
//! and is compiled only with the `python` feature.

#[cfg(feature = "python")]
mod python;

/// Crate version, also exposed to Python.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
