//! The halted-CPU fast paths (skipping unobservable LCD modes and whole lines) apply only to frames
//! that are not rendered, so a frame run without rendering must leave exactly the machine state of
//! the same frame rendered, the picture (and the renderer's window line counter) apart. Small programs that halt between interrupts
//! (VBlank, STAT with each source, LYC on and off the visible lines, timer at two rates, window
//! lines) are run both ways and their full save states compared after every frame.

use emurust::{GameBoy, Profile};

/// Interrupt and LCD set-up of one program.
struct Setup {
    interrupt_enable: u8,
    stat: u8,
    lyc: u8,
    tac: u8,
    wy: u8,
}

/// A ROM that programs IE, STAT, LYC, TAC and WY, enables interrupts, then loops: HALT, then a
/// busy loop whose length changes every pass (so the CPU halts on ever different lines). Every
/// handler counts its interrupts in a register and returns with RETI.
fn program(s: &Setup) -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    // Handlers: VBlank inc d, STAT inc e, timer inc h, serial/joypad plain RETI.
    for (vector, body) in [(0x40, &[0x14u8, 0xD9][..]), (0x48, &[0x1C, 0xD9]), (0x50, &[0x24, 0xD9]), (0x58, &[0xD9]), (0x60, &[0xD9])] {
        rom[vector..vector + body.len()].copy_from_slice(body);
    }
    let code: Vec<u8> = vec![
        0x3E, s.interrupt_enable, 0xE0, 0xFF, // ld a,IE ; ldh (FF),a
        0x3E, s.stat, 0xE0, 0x41, //             ld a,STAT ; ldh (41),a
        0x3E, s.lyc, 0xE0, 0x45, //              ld a,LYC ; ldh (45),a
        0x3E, s.tac, 0xE0, 0x07, //              ld a,TAC ; ldh (07),a
        0x3E, s.wy, 0xE0, 0x4A, //               ld a,WY ; ldh (4A),a
        0xAF, 0xE0, 0x0F, //                     xor a ; ldh (0F),a  (nothing pending)
        0xFB, //                                  ei
        // loop (0x0118):
        0x76, //                                  halt
        0x04, //                                  inc b
        0x78, //                                  ld a,b
        0xE6, 0x3F, //                            and $3F
        0x6F, //                                  ld l,a
        // spin (0x011E):
        0x2D, //                                  dec l
        0x20, 0xFD, //                            jr nz,spin
        0x18, 0xF5, //                            jr loop
    ];
    rom[0x100..0x100 + code.len()].copy_from_slice(&code);
    rom[0x134..0x138].copy_from_slice(b"FAST");
    rom[0x14D] = rom[0x134..0x14D].iter().fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1));
    rom
}

fn states_equal_except_screen(unrendered: &GameBoy, rendered: &GameBoy) -> bool {
    let mut copy = unrendered.clone();
    // What only rendering changes: the picture and the renderer's window line counter.
    copy.bus.ppu.screen = rendered.bus.ppu.screen.clone();
    copy.bus.ppu.window_line = rendered.bus.ppu.window_line;
    copy.save_state() == rendered.save_state()
}

#[test]
fn unrendered_frames_leave_the_same_state_as_rendered_ones() {
    let setups = [
        Setup { interrupt_enable: 0x01, stat: 0x00, lyc: 0, tac: 0, wy: 0 },
        Setup { interrupt_enable: 0x03, stat: 0x40, lyc: 100, tac: 0, wy: 50 },
        Setup { interrupt_enable: 0x03, stat: 0x40, lyc: 143, tac: 0, wy: 143 },
        Setup { interrupt_enable: 0x03, stat: 0x40, lyc: 150, tac: 0, wy: 200 },
        // STAT sources raise IF even when IE does not enable them.
        Setup { interrupt_enable: 0x01, stat: 0x40, lyc: 70, tac: 0, wy: 0 },
        Setup { interrupt_enable: 0x01, stat: 0x08, lyc: 0, tac: 0, wy: 0 },
        Setup { interrupt_enable: 0x03, stat: 0x20, lyc: 0, tac: 0, wy: 0 },
        Setup { interrupt_enable: 0x03, stat: 0x10, lyc: 0, tac: 0, wy: 10 },
        // Timer overflow every 4,096 cycles (inside the frame) and every 262,144 (across frames).
        Setup { interrupt_enable: 0x05, stat: 0x00, lyc: 0, tac: 0x05, wy: 0 },
        Setup { interrupt_enable: 0x05, stat: 0x00, lyc: 0, tac: 0x04, wy: 90 },
        Setup { interrupt_enable: 0x01, stat: 0x00, lyc: 0, tac: 0x06, wy: 0 },
    ];
    for (i, setup) in setups.iter().enumerate() {
        let rom = program(setup);
        let mut unrendered = GameBoy::new(&rom, None, Profile::PyBoy).unwrap();
        let mut rendered = unrendered.clone();
        for frame in 0..400 {
            // Buttons change now and then (joypad interrupt not enabled: IF only).
            let buttons = if frame % 37 < 5 { 0x01 } else { 0 };
            unrendered.set_buttons(buttons);
            rendered.set_buttons(buttons);
            unrendered.run_frame(false).unwrap();
            rendered.run_frame(true).unwrap();
            assert!(
                states_equal_except_screen(&unrendered, &rendered),
                "setup {i}: state differs after frame {frame} (cycles {} vs {})",
                unrendered.cycles(),
                rendered.cycles()
            );
        }
        // The program really halts and wakes (VBlank handler count in D).
        assert!(unrendered.registers().d > 0, "setup {i}: no VBlank interrupt was taken");
    }
}
