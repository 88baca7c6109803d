//! Blargg's DMG test ROMs, kept in `emurust/roms/blargg` (source and licence in its SOURCE.md), or
//! the folder named by `EMURUST_TEST_ROMS`.
//!
//! cpu_instrs, instr_timing and mem_timing print their result on the serial port; mem_timing-2 and
//! halt_bug report in cartridge RAM (signature DE B0 61 at A001, status at A000: 0x80 running,
//! 0x00 passed, anything else failed; text from A004).

use emurust::{GameBoy, Profile};
use std::path::PathBuf;

fn rom_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("EMURUST_TEST_ROMS") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("roms/blargg")
}

fn load(rel: &str) -> Vec<u8> {
    let path = rom_dir().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("cannot read {} ({e}); Blargg's ROMs belong in emurust/roms/blargg", path.display())
    })
}

enum Outcome {
    Passed(u64),
    Failed(String),
}

/// Runs until the ROM reports, on serial or in cartridge RAM, or `max_frames` pass.
fn run(rel: &str, profile: Profile, max_frames: u64) -> Outcome {
    let rom = load(rel);
    let mut gb = GameBoy::new(&rom, None, profile).expect("ROM loads");
    let mut serial = String::new();
    for frame in 1..=max_frames {
        if let Err(fault) = gb.run_frame(false) {
            return Outcome::Failed(format!("CPU fault: {fault}"));
        }
        serial.extend(gb.take_serial_output().iter().map(|&b| b as char));
        if serial.contains("Passed") {
            return Outcome::Passed(frame);
        }
        if serial.contains("Failed") {
            // Let the ROM finish printing the details.
            gb.run_frames(30, false).ok();
            serial.extend(gb.take_serial_output().iter().map(|&b| b as char));
            return Outcome::Failed(serial);
        }
        let cart = &gb.bus.cart;
        let sig = (1..4).map(|i| cart.ram_bank_byte(0, i).unwrap_or(0)).collect::<Vec<_>>();
        if sig == [0xDE, 0xB0, 0x61] {
            let status = cart.ram_bank_byte(0, 0).unwrap();
            if status != 0x80 {
                let text: String = (4..0x2000)
                    .map(|i| cart.ram_bank_byte(0, i).unwrap())
                    .take_while(|&b| b != 0)
                    .map(|b| b as char)
                    .collect();
                return if status == 0 { Outcome::Passed(frame) } else { Outcome::Failed(format!("status {status}: {text}")) };
            }
        }
    }
    Outcome::Failed(format!("no result after {max_frames} frames; serial so far: {serial:?}"))
}

fn expect_pass(rel: &str, profile: Profile, max_frames: u64) {
    match run(rel, profile, max_frames) {
        Outcome::Passed(_) => {}
        Outcome::Failed(msg) => panic!("{rel} ({profile:?}) failed: {msg}"),
    }
}

macro_rules! blargg {
    ($($name:ident => $path:expr, $frames:expr;)*) => {
        mod pyboy_profile {
            use super::*;
            $( #[test] fn $name() { expect_pass($path, Profile::PyBoy, $frames); } )*
        }
        mod hardware_profile {
            use super::*;
            $( #[test] fn $name() { expect_pass($path, Profile::Hardware, $frames); } )*
        }
    };
}

blargg! {
    cpu_instrs_01_special => "cpu_instrs/individual/01-special.gb", 1000;
    cpu_instrs_02_interrupts => "cpu_instrs/individual/02-interrupts.gb", 1000;
    cpu_instrs_03_op_sp_hl => "cpu_instrs/individual/03-op sp,hl.gb", 1000;
    cpu_instrs_04_op_r_imm => "cpu_instrs/individual/04-op r,imm.gb", 1000;
    cpu_instrs_05_op_rp => "cpu_instrs/individual/05-op rp.gb", 1000;
    cpu_instrs_06_ld_r_r => "cpu_instrs/individual/06-ld r,r.gb", 1000;
    cpu_instrs_07_jr_jp_call_ret_rst => "cpu_instrs/individual/07-jr,jp,call,ret,rst.gb", 1000;
    cpu_instrs_08_misc_instrs => "cpu_instrs/individual/08-misc instrs.gb", 1000;
    cpu_instrs_09_op_r_r => "cpu_instrs/individual/09-op r,r.gb", 2000;
    cpu_instrs_10_bit_ops => "cpu_instrs/individual/10-bit ops.gb", 2000;
    cpu_instrs_11_op_a_hl => "cpu_instrs/individual/11-op a,(hl).gb", 3000;
    cpu_instrs_all => "cpu_instrs/cpu_instrs.gb", 6000;
    instr_timing => "instr_timing/instr_timing.gb", 1000;
    mem_timing_all => "mem_timing/mem_timing.gb", 1000;
    mem_timing_01_read => "mem_timing/individual/01-read_timing.gb", 1000;
    mem_timing_02_write => "mem_timing/individual/02-write_timing.gb", 1000;
    mem_timing_03_modify => "mem_timing/individual/03-modify_timing.gb", 1000;
    mem_timing2_all => "mem_timing-2/mem_timing.gb", 1000;
    mem_timing2_01_read => "mem_timing-2/rom_singles/01-read_timing.gb", 1000;
    mem_timing2_02_write => "mem_timing-2/rom_singles/02-write_timing.gb", 1000;
    mem_timing2_03_modify => "mem_timing-2/rom_singles/03-modify_timing.gb", 1000;
}

/// halt_bug needs the HALT bug, which PyBoy does not emulate: it passes in the hardware profile...
#[test]
fn halt_bug_hardware_profile() {
    expect_pass("halt_bug.gb", Profile::Hardware, 1000);
}

/// ...and fails in the PyBoy profile exactly as PyBoy 2.8.1 does.
#[test]
fn halt_bug_pyboy_profile_fails_like_pyboy() {
    match run("halt_bug.gb", Profile::PyBoy, 1000) {
        Outcome::Passed(_) => panic!("the PyBoy profile must not emulate the HALT bug"),
        Outcome::Failed(msg) => assert!(msg.starts_with("status 1"), "unexpected failure: {msg}"),
    }
}
