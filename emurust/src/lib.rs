//! emurust: a Game Boy (DMG) emulator core for reinforcement learning.
//!
//! The core (`cpu`, `bus`, `cartridge`, `timer`, `ppu`, `joypad`, `serial`, `apu`) knows nothing of
//! Python; `batch` runs many emulators on a `pool::StepPool`
//! (the calling thread plus persistent workers); `python` is the thin PyO3 binding, compiled
//! only with the `python` feature.

pub mod apu;
pub mod batch;
pub mod bus;
pub mod cartridge;
pub mod cpu;
pub mod error;
pub mod gameboy;
pub mod joypad;
pub mod pool;
pub mod ppu;
pub mod serial;
pub mod state;
pub mod timer;

#[cfg(feature = "python")]
mod python;

pub use bus::Profile;
pub use error::{CpuFault, RomError};
pub use gameboy::{default_boot_rom, GameBoy, Registers};

/// Crate version, also exposed to Python.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
