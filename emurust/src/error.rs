//! Errors the core reports instead of panicking.

use std::fmt;

/// Why a ROM image was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RomError {
    /// Shorter than a header (0x150 bytes) or than the minimum 32 KiB image.
    TooSmall(usize),
    /// Header checksum byte 0x14D does not match bytes 0x134-0x14C.
    HeaderChecksum { stored: u8, computed: u8 },
    /// Cartridge type byte 0x147 names a controller this emulator does not implement.
    UnsupportedMapper(u8),
    /// ROM size code 0x148 out of range.
    BadRomSizeCode(u8),
    /// RAM size code 0x149 out of range.
    BadRamSizeCode(u8),
    /// The image is shorter than the size the header declares.
    Truncated { declared: usize, actual: usize },
    /// A boot ROM must be exactly 256 bytes (DMG).
    BadBootRom(usize),
}

impl fmt::Display for RomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RomError::TooSmall(n) => write!(f, "ROM is too small: {n} bytes (a cartridge image is at least 32768 bytes)"),
            RomError::HeaderChecksum { stored, computed } => write!(
                f,
                "bad cartridge header: checksum at 0x14D is 0x{stored:02X} but bytes 0x134-0x14C give 0x{computed:02X}"
            ),
            RomError::UnsupportedMapper(t) => write!(
                f,
                "unsupported cartridge type 0x{t:02X} at 0x147 (supported: ROM only, MBC1, MBC2, MBC3, MBC5)"
            ),
            RomError::BadRomSizeCode(c) => write!(f, "bad cartridge header: ROM size code 0x{c:02X} at 0x148"),
            RomError::BadRamSizeCode(c) => write!(f, "bad cartridge header: RAM size code 0x{c:02X} at 0x149"),
            RomError::Truncated { declared, actual } => {
                write!(f, "ROM is truncated: the header declares {declared} bytes but the image has {actual}")
            }
            RomError::BadBootRom(n) => write!(f, "a DMG boot ROM must be 256 bytes, got {n}"),
        }
    }
}

impl std::error::Error for RomError {}

/// Why the CPU stopped: the emulator keeps this state and refuses to run further.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuFault {
    /// One of the opcodes the SM83 does not define (D3 DB DD E3 E4 EB EC ED F4 FC FD).
    IllegalOpcode { opcode: u8, pc: u16 },
}

impl fmt::Display for CpuFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuFault::IllegalOpcode { opcode, pc } => {
                write!(f, "illegal opcode 0x{opcode:02X} at PC=0x{pc:04X}; the CPU has locked up")
            }
        }
    }
}
