//! Per-opcode unit tests of the SM83 core: cycle counts for every opcode (branches taken and not
//! taken), flags of the ALU checked exhaustively against independent formulations, DAA, 16-bit
//! arithmetic, CB-prefixed operations, EI/DI/RETI/HALT and illegal opcodes.

use emurust::cpu::{A, B, C, D, E, F, H, L};
use emurust::{GameBoy, Profile};

/// A machine positioned at 0x0100 (boot ROM done) with `code` there, IME off, nothing pending.
fn machine_with(code: &[u8]) -> GameBoy {
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x100 + code.len()].copy_from_slice(code);
    rom[0x134..0x138].copy_from_slice(b"OPS\0");
    rom[0x14D] = rom[0x134..0x14D].iter().fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1));
    let mut gb = GameBoy::new(&rom, None, Profile::PyBoy).unwrap();
    // Run the boot program to its end (PC = 0x0100), then stop the LCD so nothing interferes.
    while gb.cpu.pc != 0x100 {
        gb.cpu.step(&mut gb.bus);
    }
    gb.write_memory(0xFF40, 0x00);
    gb.bus.interrupt_flag = 0;
    gb.bus.interrupt_enable = 0;
    gb.cpu.sp = 0xDFF0;
    gb
}

/// Executes one instruction, returning the T-cycles it took.
fn step(gb: &mut GameBoy) -> u64 {
    let before = gb.cpu.cycles;
    gb.cpu.step(&mut gb.bus);
    gb.cpu.cycles - before
}

/// Documented T-cycle counts (Pan Docs opcode tables), as (not taken, taken) for conditionals,
/// organised by the x/y/z fields of the opcode.
fn expected_cycles(op: u8) -> (u64, u64) {
    let (x, y, z) = (op >> 6, (op >> 3) & 7, op & 7);
    let plain = |c: u64| (c, c);
    match (x, z) {
        (0, 0) => match y {
            0 | 2 => plain(4),    // NOP, STOP (a 2-byte NOP in PyBoy)
            1 => plain(20),       // LD (a16),SP
            3 => plain(12),       // JR e8
            _ => (8, 12),         // JR cc
        },
        (0, 1) => if y % 2 == 0 { plain(12) } else { plain(8) }, // LD rr,d16 / ADD HL,rr
        (0, 2) | (0, 3) => plain(8),                              // LD (rr),A etc. / INC,DEC rr
        (0, 4) | (0, 5) => if y == 6 { plain(12) } else { plain(4) },
        (0, 6) => if y == 6 { plain(12) } else { plain(8) },
        (0, 7) => plain(4),
        (1, _) => if op == 0x76 { plain(4) } else if y == 6 || z == 6 { plain(8) } else { plain(4) },
        (2, _) => if z == 6 { plain(8) } else { plain(4) },
        (3, 0) => match y {
            0..=3 => (8, 20),     // RET cc
            4 | 6 => plain(12),   // LDH (a8),A / LDH A,(a8)
            5 => plain(16),       // ADD SP,e8
            _ => plain(12),       // LD HL,SP+e8
        },
        (3, 1) => match y {
            1 | 3 => plain(16),   // RET, RETI
            5 => plain(4),        // JP HL
            7 => plain(8),        // LD SP,HL
            _ => plain(12),       // POP
        },
        (3, 2) => match y {
            0..=3 => (12, 16),    // JP cc
            4 | 6 => plain(8),    // LDH (C),A / LDH A,(C)
            _ => plain(16),       // LD (a16),A / LD A,(a16)
        },
        (3, 3) => if y == 0 { plain(16) } else { plain(4) }, // JP a16; DI, EI
        (3, 4) => (12, 24),       // CALL cc
        (3, 5) => if y == 1 { plain(24) } else { plain(16) }, // CALL a16; PUSH
        (3, 6) => plain(8),       // ALU A,d8
        _ => plain(16),           // RST
    }
}

const ILLEGAL: [u8; 11] = [0xD3, 0xDB, 0xDD, 0xE3, 0xE4, 0xEB, 0xEC, 0xED, 0xF4, 0xFC, 0xFD];

#[test]
fn every_opcode_takes_its_documented_cycles() {
    for op in 0..=255u8 {
        if ILLEGAL.contains(&op) || op == 0xCB {
            continue;
        }
        let (not_taken, taken) = expected_cycles(op);
        for flags in [0x00u8, 0xF0] {
            let mut gb = machine_with(&[op, 0x00, 0xC0]);
            gb.cpu.r[F] = flags;
            gb.cpu.set_hl(0xC000);
            gb.cpu.set_bc(0xC010);
            gb.cpu.set_de(0xC020);
            let cycles = step(&mut gb);
            // Conditions: NZ/NC are true with flags 0x00, Z/C with 0xF0.
            let cond = match op {
                0x20 | 0x30 | 0xC0 | 0xD0 | 0xC2 | 0xD2 | 0xC4 | 0xD4 => Some(flags == 0x00),
                0x28 | 0x38 | 0xC8 | 0xD8 | 0xCA | 0xDA | 0xCC | 0xDC => Some(flags == 0xF0),
                _ => None,
            };
            let want = match cond {
                Some(true) => taken,
                Some(false) => not_taken,
                None => not_taken,
            };
            assert_eq!(cycles, want, "opcode {op:02X} with F={flags:02X}");
        }
    }
}

#[test]
fn every_cb_opcode_takes_its_documented_cycles() {
    for op in 0..=255u8 {
        let mut gb = machine_with(&[0xCB, op]);
        gb.cpu.set_hl(0xC000);
        let want = if op & 7 != 6 { 8 } else if (0x40..0x80).contains(&op) { 12 } else { 16 };
        assert_eq!(step(&mut gb), want, "CB {op:02X}");
    }
}

#[test]
fn illegal_opcodes_lock_the_cpu_without_panicking() {
    for op in ILLEGAL {
        let mut gb = machine_with(&[op]);
        gb.cpu.step(&mut gb.bus);
        assert!(gb.fault().is_some(), "{op:02X}");
        assert_eq!(gb.cpu.pc, 0x100);
        // Frames still advance time and report the fault.
        assert!(gb.run_frame(false).is_err());
    }
}

/// ALU results and flags computed independently with wide arithmetic.
fn alu_reference(kind: u8, a: u8, v: u8, carry: bool) -> (u8, u8) {
    let (a, v, c) = (a as i32, v as i32, carry as i32);
    let (res, z, n, h, cy) = match kind {
        0 => { let r = a + v; (r & 0xFF, r & 0xFF == 0, false, (a & 15) + (v & 15) > 15, r > 255) }
        1 => { let r = a + v + c; (r & 0xFF, r & 0xFF == 0, false, (a & 15) + (v & 15) + c > 15, r > 255) }
        2 | 7 => { let r = a - v; (if kind == 2 { r & 0xFF } else { a }, r & 0xFF == 0, true, (a & 15) < (v & 15), r < 0) }
        3 => { let r = a - v - c; (r & 0xFF, r & 0xFF == 0, true, (a & 15) < (v & 15) + c, r < 0) }
        4 => { let r = a & v; (r, r == 0, false, true, false) }
        5 => { let r = a ^ v; (r, r == 0, false, false, false) }
        _ => { let r = a | v; (r, r == 0, false, false, false) }
    };
    let f = (z as u8) << 7 | (n as u8) << 6 | (h as u8) << 5 | (cy as u8) << 4;
    (res as u8, f)
}

#[test]
fn alu_register_forms_match_the_reference_exhaustively() {
    // ADD ADC SUB SBC AND XOR OR CP A,B for all A, B and carry.
    let mut gb = machine_with(&[0x00]);
    for kind in 0..8u8 {
        for a in 0..=255u8 {
            for v in 0..=255u8 {
                for carry in [false, true] {
                    let op = 0x80 | (kind << 3); // ALU A,B
                    // Execute through the real decoder by placing the opcode in WRAM.
                    gb.write_memory(0xC100, op);
                    gb.cpu.pc = 0xC100;
                    gb.cpu.r[A] = a;
                    gb.cpu.r[B] = v;
                    gb.cpu.r[F] = if carry { 0x10 } else { 0 };
                    gb.cpu.step(&mut gb.bus);
                    let (want_a, want_f) = alu_reference(kind, a, v, carry);
                    assert_eq!((gb.cpu.r[A], gb.cpu.r[F]), (want_a, want_f), "kind {kind} a={a:02X} v={v:02X} c={carry}");
                }
            }
        }
    }
}

#[test]
fn inc_dec_keep_carry_and_set_half_carry() {
    for v in 0..=255u8 {
        for carry in [0x00u8, 0x10] {
            let mut gb = machine_with(&[0x04, 0x05]); // INC B ; DEC B
            gb.cpu.r[B] = v;
            gb.cpu.r[F] = carry;
            step(&mut gb);
            let r = v.wrapping_add(1);
            let f = (if r == 0 { 0x80 } else { 0 }) | (if v & 15 == 15 { 0x20 } else { 0 }) | carry;
            assert_eq!((gb.cpu.r[B], gb.cpu.r[F]), (r, f), "INC {v:02X}");
            gb.cpu.r[B] = v;
            step(&mut gb);
            let r = v.wrapping_sub(1);
            let f = (if r == 0 { 0x80 } else { 0 }) | 0x40 | (if v & 15 == 0 { 0x20 } else { 0 }) | carry;
            assert_eq!((gb.cpu.r[B], gb.cpu.r[F]), (r, f), "DEC {v:02X}");
        }
    }
}

#[test]
fn daa_turns_binary_sums_and_differences_of_bcd_into_bcd() {
    let bcd = |n: u32| (((n / 10) << 4) | (n % 10)) as u8;
    for x in 0..100u32 {
        for y in 0..100u32 {
            // ADD then DAA.
            let mut gb = machine_with(&[0x80, 0x27, 0x90, 0x27]); // ADD A,B ; DAA ; SUB B ; DAA
            gb.cpu.r[A] = bcd(x);
            gb.cpu.r[B] = bcd(y);
            step(&mut gb);
            step(&mut gb);
            assert_eq!(gb.cpu.r[A], bcd((x + y) % 100), "{x}+{y}");
            assert_eq!(gb.cpu.r[F] & 0x10 != 0, x + y >= 100, "{x}+{y} carry");
            assert_eq!(gb.cpu.r[F] & 0x80 != 0, (x + y) % 100 == 0, "{x}+{y} zero");
            // SUB then DAA.
            gb.cpu.r[A] = bcd(x);
            step(&mut gb);
            step(&mut gb);
            assert_eq!(gb.cpu.r[A], bcd((x + 100 - y) % 100), "{x}-{y}");
            assert_eq!(gb.cpu.r[F] & 0x10 != 0, x < y, "{x}-{y} borrow");
        }
    }
}

#[test]
fn sp_plus_signed_byte_flags_come_from_the_low_byte() {
    for sp in [0x0000u16, 0x00FF, 0x0F0F, 0xFFF8, 0x1234, 0xDFF0] {
        for e in 0..=255u8 {
            for op in [0xE8u8, 0xF8] {
                let mut gb = machine_with(&[op, e]);
                gb.cpu.sp = sp;
                step(&mut gb);
                let result = sp.wrapping_add(e as i8 as u16);
                let got = if op == 0xE8 { gb.cpu.sp } else { gb.cpu.hl() };
                assert_eq!(got, result);
                let h = (sp & 0x0F) + (e as u16 & 0x0F) > 0x0F;
                let c = (sp & 0xFF) + e as u16 > 0xFF;
                assert_eq!(gb.cpu.r[F], (h as u8) << 5 | (c as u8) << 4, "{op:02X} sp={sp:04X} e={e:02X}");
            }
        }
    }
}

#[test]
fn add_hl_sets_half_carry_from_bit_11_and_keeps_zero() {
    for (hl, bc) in [(0x0FFFu16, 0x0001u16), (0xFFFF, 0x0001), (0x1234, 0x0000), (0x8000, 0x8000)] {
        let mut gb = machine_with(&[0x09]);
        gb.cpu.set_hl(hl);
        gb.cpu.set_bc(bc);
        gb.cpu.r[F] = 0x80;
        step(&mut gb);
        assert_eq!(gb.cpu.hl(), hl.wrapping_add(bc));
        let h = (hl & 0xFFF) + (bc & 0xFFF) > 0xFFF;
        let c = hl as u32 + bc as u32 > 0xFFFF;
        assert_eq!(gb.cpu.r[F], 0x80 | (h as u8) << 5 | (c as u8) << 4);
    }
}

#[test]
fn cb_operations_on_registers_and_memory() {
    for v in 0..=255u8 {
        for carry in [false, true] {
            for kind in 0..8u8 {
                let c_in = carry as u8;
                let (r, c) = match kind {
                    0 => (v.rotate_left(1), v >> 7),
                    1 => (v.rotate_right(1), v & 1),
                    2 => ((v << 1) | c_in, v >> 7),
                    3 => ((v >> 1) | (c_in << 7), v & 1),
                    4 => (v << 1, v >> 7),
                    5 => (((v as i8) >> 1) as u8, v & 1),
                    6 => ((v << 4) | (v >> 4), 0),
                    _ => (v >> 1, v & 1),
                };
                let want_f = (if r == 0 { 0x80 } else { 0 }) | (c << 4);
                // Register form (on E) and memory form ((HL)).
                let mut gb = machine_with(&[0xCB, (kind << 3) | 3, 0xCB, (kind << 3) | 6]);
                gb.cpu.r[E] = v;
                gb.cpu.r[F] = if carry { 0x10 } else { 0 };
                step(&mut gb);
                assert_eq!((gb.cpu.r[E], gb.cpu.r[F]), (r, want_f), "CB kind {kind} v={v:02X} c={carry}");
                gb.cpu.set_hl(0xC080);
                gb.write_memory(0xC080, v);
                gb.cpu.r[F] = if carry { 0x10 } else { 0 };
                step(&mut gb);
                assert_eq!((gb.read_memory(0xC080), gb.cpu.r[F]), (r, want_f), "CB (HL) kind {kind} v={v:02X}");
            }
            for bit in 0..8u8 {
                let mut gb = machine_with(&[0xCB, 0x40 | (bit << 3) | 2, 0xCB, 0x80 | (bit << 3) | 2, 0xCB, 0xC0 | (bit << 3) | 2]);
                gb.cpu.r[D] = v;
                gb.cpu.r[F] = if carry { 0x10 } else { 0 };
                step(&mut gb); // BIT
                let z = v & (1 << bit) == 0;
                assert_eq!(gb.cpu.r[F], (z as u8) << 7 | 0x20 | (carry as u8) << 4);
                step(&mut gb); // RES
                assert_eq!(gb.cpu.r[D], v & !(1 << bit));
                step(&mut gb); // SET
                assert_eq!(gb.cpu.r[D], v | (1 << bit));
            }
        }
    }
}

#[test]
fn rotates_on_a_always_clear_zero() {
    for (op, v) in [(0x07u8, 0x00u8), (0x0F, 0x00), (0x17, 0x00), (0x1F, 0x00), (0x07, 0x80)] {
        let mut gb = machine_with(&[op]);
        gb.cpu.r[A] = v;
        step(&mut gb);
        assert_eq!(gb.cpu.r[F] & 0x80, 0, "{op:02X}");
    }
}

#[test]
fn pop_af_clears_the_low_nibble_of_f() {
    let mut gb = machine_with(&[0xC5, 0xF1]); // PUSH BC ; POP AF
    gb.cpu.set_bc(0x12FF);
    step(&mut gb);
    step(&mut gb);
    assert_eq!((gb.cpu.r[A], gb.cpu.r[F]), (0x12, 0xF0));
}

#[test]
fn ei_takes_effect_after_the_next_instruction_and_di_cancels_it() {
    // EI ; NOP ; NOP with a VBlank request pending: the interrupt is taken after the first NOP.
    let mut gb = machine_with(&[0xFB, 0x00, 0x00, 0x00]);
    gb.bus.interrupt_enable = 0x01;
    gb.bus.interrupt_flag = 0x01;
    gb.cpu.run_batch(&mut gb.bus, 4); // EI
    assert!(!gb.cpu.ime);
    gb.cpu.run_batch(&mut gb.bus, 4); // NOP; IME set after it, the batch ends (request pending)
    assert!(gb.cpu.ime && gb.cpu.pc == 0x102);
    gb.cpu.run_batch(&mut gb.bus, 4); // dispatch (20 cycles) at the batch start
    assert_eq!(gb.cpu.pc, 0x40);
    assert!(!gb.cpu.ime);
    assert_eq!(gb.bus.interrupt_flag & 1, 0);
    assert_eq!(gb.read_memory(gb.cpu.sp) as u16 | (gb.read_memory(gb.cpu.sp + 1) as u16) << 8, 0x102);

    // EI ; DI: no interrupt.
    let mut gb = machine_with(&[0xFB, 0xF3, 0x00, 0x00]);
    gb.bus.interrupt_enable = 0x01;
    gb.bus.interrupt_flag = 0x01;
    for _ in 0..4 {
        gb.cpu.run_batch(&mut gb.bus, 4);
    }
    assert!(!gb.cpu.ime && gb.cpu.pc == 0x104);
}

#[test]
fn ei_inside_a_long_batch_behaves_as_in_short_ones() {
    // The interpreter's hot loop hands an EI's delay to the checked loop and resumes the batch;
    // this must match the 4-cycle batches above. Nothing pending: EI ; INC A ; INC A ; INC A all
    // run in one 16-cycle batch and IME is set after the first INC A.
    let mut gb = machine_with(&[0xFB, 0x3C, 0x3C, 0x3C, 0x00]);
    gb.cpu.r[A] = 0;
    gb.bus.interrupt_enable = 0x01;
    let before = gb.cpu.cycles;
    gb.cpu.run_batch(&mut gb.bus, 16);
    assert!(gb.cpu.ime);
    assert_eq!((gb.cpu.pc, gb.cpu.r[A], gb.cpu.cycles - before), (0x104, 3, 16));

    // A request pending: one long batch stops right after the instruction following EI (IME set,
    // request pending), and the next batch dispatches to the handler with 0x102 pushed.
    let mut gb = machine_with(&[0xFB, 0x00, 0x00, 0x00, 0x00]);
    gb.bus.interrupt_enable = 0x01;
    gb.bus.interrupt_flag = 0x01;
    let before = gb.cpu.cycles;
    gb.cpu.run_batch(&mut gb.bus, 100);
    assert!(gb.cpu.ime && gb.cpu.pc == 0x102);
    assert_eq!(gb.cpu.cycles - before, 8);
    gb.cpu.run_batch(&mut gb.bus, 4);
    assert_eq!(gb.cpu.pc, 0x40);
    assert_eq!(gb.read_memory(gb.cpu.sp) as u16 | (gb.read_memory(gb.cpu.sp + 1) as u16) << 8, 0x102);

    // EI ; EI ; NOP in one batch, nothing pending: IME is set after the second EI (its own delay
    // does not restart the first one's), and the batch runs on to its end.
    let mut gb = machine_with(&[0xFB, 0xFB, 0x00, 0x00, 0x00]);
    gb.bus.interrupt_enable = 0x01;
    gb.cpu.run_batch(&mut gb.bus, 8);
    assert!(gb.cpu.ime && gb.cpu.pc == 0x102);
    gb.cpu.run_batch(&mut gb.bus, 8);
    assert_eq!(gb.cpu.pc, 0x104);
}

#[test]
fn interrupt_priority_and_dispatch_cost() {
    let mut gb = machine_with(&[0x00]);
    gb.cpu.ime = true;
    gb.bus.interrupt_enable = 0x1F;
    gb.bus.interrupt_flag = 0x1C; // timer, serial, joypad
    let before = gb.cpu.cycles;
    gb.cpu.run_batch(&mut gb.bus, 1);
    assert_eq!(gb.cpu.pc, 0x50, "timer has priority over serial and joypad");
    assert_eq!(gb.cpu.cycles - before, 20);
    assert_eq!(gb.bus.interrupt_flag, 0x18);
}

#[test]
fn halt_waits_and_wakes_past_the_halt() {
    // HALT with IME=0 and nothing pending waits; a request wakes it without dispatch.
    let mut gb = machine_with(&[0x76, 0x3C]); // HALT ; INC A
    gb.cpu.r[A] = 0;
    gb.bus.interrupt_enable = 0x04;
    gb.cpu.run_batch(&mut gb.bus, 100);
    assert!(gb.cpu.halted && gb.cpu.pc == 0x100);
    gb.cpu.run_batch(&mut gb.bus, 100);
    assert!(gb.cpu.halted, "still waiting");
    gb.bus.interrupt_flag = 0x04;
    gb.cpu.run_batch(&mut gb.bus, 4);
    assert!(!gb.cpu.halted);
    assert_eq!((gb.cpu.pc, gb.cpu.r[A]), (0x102, 1));
}

#[test]
fn halt_bug_only_in_the_hardware_profile() {
    for (profile, want) in [(Profile::PyBoy, 2u8), (Profile::Hardware, 3)] {
        let mut rom = vec![0u8; 0x8000];
        rom[0x100..0x104].copy_from_slice(&[0x76, 0x3C, 0x3C, 0x00]); // HALT ; INC A ; INC A
        rom[0x14D] = rom[0x134..0x14D].iter().fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1));
        let mut gb = GameBoy::new(&rom, None, profile).unwrap();
        while gb.cpu.pc != 0x100 {
            gb.cpu.step(&mut gb.bus);
        }
        gb.cpu.r[A] = 0;
        gb.cpu.ime = false;
        gb.bus.interrupt_enable = 0x04;
        gb.bus.interrupt_flag = 0x04;
        for _ in 0..4 {
            gb.cpu.run_batch(&mut gb.bus, 4);
        }
        assert_eq!(gb.cpu.r[A], want, "{profile:?}: the HALT bug reads INC A twice");
    }
}

#[test]
fn ld_instructions_move_the_right_bytes() {
    // LD B,C ... every LD r,r' through (HL).
    for dst in 0..8u8 {
        for src in 0..8u8 {
            if dst == 6 && src == 6 {
                continue;
            }
            let mut gb = machine_with(&[0x40 | (dst << 3) | src]);
            let values = [0x11u8, 0x22, 0x33, 0x44, 0xC0, 0x90, 0, 0x77];
            for (i, v) in values.iter().enumerate() {
                if i != 6 {
                    gb.cpu.r[[B, C, D, E, H, L, F, A][i]] = *v;
                }
            }
            gb.write_memory(0xC090, 0x5A);
            let hl = gb.cpu.hl();
            let src_value = if src == 6 { 0x5A } else { values[src as usize] };
            step(&mut gb);
            let got = if dst == 6 { gb.read_memory(hl) } else { gb.cpu.r[[B, C, D, E, H, L, F, A][dst as usize]] };
            assert_eq!(got, src_value, "LD {dst},{src}");
        }
    }
}
