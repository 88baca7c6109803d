//! SM83 CPU: registers, every base and CB-prefixed opcode, interrupts, EI delay, HALT, STOP.
//!
//! Instructions execute whole. Each memory access happens at a fixed offset (T-cycles) after the
//! instruction's start; devices are caught up to that time by the bus. The offsets follow PyBoy's
//! access timing (see `docs/envs/gameboy.md`), which Blargg's timing ROMs accept.

use crate::bus::{Bus, Profile};
use crate::error::CpuFault;
use crate::state::{StateError, StateReader, StateWriter};

pub const FLAG_Z: u8 = 0x80;
pub const FLAG_N: u8 = 0x40;
pub const FLAG_H: u8 = 0x20;
pub const FLAG_C: u8 = 0x10;

/// T-cycles for each base opcode (conditional branches: the not-taken count; taken adds below).
const CYCLES: [u8; 256] = [
    4, 12, 8, 8, 4, 4, 8, 4, 20, 8, 8, 8, 4, 4, 8, 4, // 0x
    4, 12, 8, 8, 4, 4, 8, 4, 12, 8, 8, 8, 4, 4, 8, 4, // 1x
    8, 12, 8, 8, 4, 4, 8, 4, 8, 8, 8, 8, 4, 4, 8, 4, // 2x
    8, 12, 8, 8, 12, 12, 12, 4, 8, 8, 8, 8, 4, 4, 8, 4, // 3x
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // 4x
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // 5x
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // 6x
    8, 8, 8, 8, 8, 8, 4, 8, 4, 4, 4, 4, 4, 4, 8, 4, // 7x
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // 8x
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // 9x
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // Ax
    4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 4, // Bx
    8, 12, 12, 16, 12, 16, 8, 16, 8, 16, 12, 4, 12, 24, 8, 16, // Cx
    8, 12, 12, 0, 12, 16, 8, 16, 8, 16, 12, 0, 12, 0, 8, 16, // Dx
    12, 12, 8, 0, 0, 16, 8, 16, 16, 4, 16, 0, 0, 0, 8, 16, // Ex
    12, 12, 8, 4, 0, 16, 8, 16, 12, 8, 16, 4, 0, 0, 8, 16, // Fx
];

pub const B: usize = 0;
pub const C: usize = 1;
pub const D: usize = 2;
pub const E: usize = 3;
pub const H: usize = 4;
pub const L: usize = 5;
pub const F: usize = 6;
pub const A: usize = 7;

/// Registers and interrupt state.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// B C D E H L F A, indexed by the 3-bit register field of opcodes (6, which encodes (HL) in
    /// opcodes, holds F here and is never reached through `reg`).
    pub r: [u8; 8],
    pub sp: u16,
    pub pc: u16,
    pub ime: bool,
    /// Instructions left until a pending EI sets IME (0 = none pending).
    pub ei_delay: u8,
    /// HALT is waiting for an interrupt. PC stays on the HALT opcode and moves past it on wake-up.
    pub halted: bool,
    /// The HALT was executed while an EI was still pending: waking up then leaves PC on the HALT
    /// (so an interrupt handler returns to it), as PyBoy does.
    pub halted_during_ei: bool,
    /// STOP (hardware profile): waiting for a button press.
    pub stopped: bool,
    /// HALT bug pending (hardware profile): the next opcode fetch leaves PC in place, so the byte
    /// after HALT is read twice. Set by HALT, which also ends the batch; consumed at the next batch.
    pub halt_bug: bool,
    /// Total T-cycles since power-on. While an instruction executes this is its start: memory access
    /// times are offsets from it, and the instruction's length is added when it completes.
    pub cycles: u64,
    pub fault: Option<CpuFault>,
}

impl Default for Cpu {
    fn default() -> Self {
        Cpu {
            r: [0; 8],
            sp: 0,
            pc: 0,
            ime: false,
            ei_delay: 0,
            halted: false,
            halted_during_ei: false,
            stopped: false,
            halt_bug: false,
            cycles: 0,
            fault: None,
        }
    }
}

impl Cpu {
    #[inline(always)]
    pub fn af(&self) -> u16 {
        u16::from_be_bytes([self.r[A], self.r[F]])
    }
    #[inline(always)]
    pub fn bc(&self) -> u16 {
        u16::from_be_bytes([self.r[B], self.r[C]])
    }
    #[inline(always)]
    pub fn de(&self) -> u16 {
        u16::from_be_bytes([self.r[D], self.r[E]])
    }
    #[inline(always)]
    pub fn hl(&self) -> u16 {
        u16::from_be_bytes([self.r[H], self.r[L]])
    }
    pub fn a(&self) -> u8 {
        self.r[A]
    }
    pub fn f(&self) -> u8 {
        self.r[F]
    }
    #[inline(always)]
    pub fn set_af(&mut self, v: u16) {
        self.r[A] = (v >> 8) as u8;
        self.r[F] = v as u8 & 0xF0;
    }
    #[inline(always)]
    pub fn set_bc(&mut self, v: u16) {
        self.r[B] = (v >> 8) as u8;
        self.r[C] = v as u8;
    }
    #[inline(always)]
    pub fn set_de(&mut self, v: u16) {
        self.r[D] = (v >> 8) as u8;
        self.r[E] = v as u8;
    }
    #[inline(always)]
    pub fn set_hl(&mut self, v: u16) {
        self.r[H] = (v >> 8) as u8;
        self.r[L] = v as u8;
    }

    #[inline(always)]
    fn flag(&self, mask: u8) -> bool {
        self.r[F] & mask != 0
    }

    #[inline(always)]
    fn set_flags(&mut self, z: bool, n: bool, h: bool, c: bool) {
        self.r[F] = (if z { FLAG_Z } else { 0 }) | (if n { FLAG_N } else { 0 }) | (if h { FLAG_H } else { 0 }) | (if c { FLAG_C } else { 0 });
    }

    // ---- memory helpers ---------------------------------------------------------------------
    // The interpreter keeps PC and the instruction's start time (`now`) in locals of the batch loop
    // (host registers) rather than in `self`, so the helpers take them as arguments; memory access
    // times are `now` + the access's offset in the instruction.

    #[inline(always)]
    fn fetch(bus: &mut Bus, pc: &mut u16, now: u64) -> u8 {
        let v = bus.read(*pc, now);
        *pc = pc.wrapping_add(1);
        v
    }

    #[inline(always)]
    fn fetch16(bus: &mut Bus, pc: &mut u16, now: u64) -> u16 {
        let lo = Self::fetch(bus, pc, now);
        let hi = Self::fetch(bus, pc, now);
        u16::from_le_bytes([lo, hi])
    }

    /// Pushes `value`: high byte at time `at`, low byte 4 cycles later.
    #[inline(always)]
    fn push(&mut self, bus: &mut Bus, value: u16, at: u64) {
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, (value >> 8) as u8, at);
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, value as u8, at + 4);
    }

    /// Pops a word: low byte at time `at`, high byte 4 cycles later.
    #[inline(always)]
    fn pop(&mut self, bus: &mut Bus, at: u64) -> u16 {
        let lo = bus.read_data(self.sp, at);
        self.sp = self.sp.wrapping_add(1);
        let hi = bus.read_data(self.sp, at + 4);
        self.sp = self.sp.wrapping_add(1);
        u16::from_le_bytes([lo, hi])
    }

    /// Register by 3-bit index (B C D E H L - A); index 6 is (HL) and handled by callers.
    #[inline(always)]
    fn reg(&self, idx: u8) -> u8 {
        self.r[idx as usize & 7]
    }

    #[inline(always)]
    fn set_reg(&mut self, idx: u8, v: u8) {
        self.r[idx as usize & 7] = v;
    }

    // ---- ALU ---------------------------------------------------------------------------------

    #[inline(always)]
    fn alu(&mut self, op: u8, v: u8) {
        let a = self.r[A];
        match op & 7 {
            0 | 1 => {
                // ADD / ADC
                let carry = if op & 7 == 1 && self.flag(FLAG_C) { 1 } else { 0 };
                let r = a as u16 + v as u16 + carry as u16;
                self.r[A] = r as u8;
                self.set_flags(r as u8 == 0, false, (a & 0xF) + (v & 0xF) + carry > 0xF, r > 0xFF);
            }
            2 | 3 | 7 => {
                // SUB / SBC / CP
                let carry = if op & 7 == 3 && self.flag(FLAG_C) { 1 } else { 0 };
                let r = (a as i16) - (v as i16) - carry as i16;
                let h = ((a & 0xF) as i16) - ((v & 0xF) as i16) - (carry as i16) < 0;
                self.set_flags(r as u8 == 0, true, h, r < 0);
                if op & 7 != 7 {
                    self.r[A] = r as u8;
                }
            }
            4 => {
                self.r[A] = a & v;
                self.set_flags(self.r[A] == 0, false, true, false);
            }
            5 => {
                self.r[A] = a ^ v;
                self.set_flags(self.r[A] == 0, false, false, false);
            }
            _ => {
                self.r[A] = a | v;
                self.set_flags(self.r[A] == 0, false, false, false);
            }
        }
    }

    #[inline(always)]
    fn inc8(&mut self, v: u8) -> u8 {
        let r = v.wrapping_add(1);
        self.r[F] = (self.r[F] & FLAG_C) | if r == 0 { FLAG_Z } else { 0 } | if v & 0xF == 0xF { FLAG_H } else { 0 };
        r
    }

    #[inline(always)]
    fn dec8(&mut self, v: u8) -> u8 {
        let r = v.wrapping_sub(1);
        self.r[F] = (self.r[F] & FLAG_C) | FLAG_N | if r == 0 { FLAG_Z } else { 0 } | if v & 0xF == 0 { FLAG_H } else { 0 };
        r
    }

    #[inline(always)]
    fn add_hl(&mut self, v: u16) {
        let hl = self.hl();
        let r = hl as u32 + v as u32;
        self.r[F] = (self.r[F] & FLAG_Z) | if (hl & 0xFFF) + (v & 0xFFF) > 0xFFF { FLAG_H } else { 0 } | if r > 0xFFFF { FLAG_C } else { 0 };
        self.set_hl(r as u16);
    }

    /// SP + signed e8 with flags from the unsigned low-byte addition (ADD SP,e8 and LD HL,SP+e8).
    #[inline(always)]
    fn sp_plus(&mut self, e: u8) -> u16 {
        let sp = self.sp;
        let low = (sp & 0xFF) + e as u16;
        self.set_flags(false, false, (sp & 0xF) + (e as u16 & 0xF) > 0xF, low > 0xFF);
        sp.wrapping_add(e as i8 as u16)
    }

    #[inline(always)]
    fn daa(&mut self) {
        let mut a = self.r[A];
        let mut carry = self.flag(FLAG_C);
        if !self.flag(FLAG_N) {
            if carry || a > 0x99 {
                a = a.wrapping_add(0x60);
                carry = true;
            }
            if self.flag(FLAG_H) || (self.r[A] & 0x0F) > 9 {
                a = a.wrapping_add(0x06);
            }
        } else {
            if carry {
                a = a.wrapping_sub(0x60);
            }
            if self.flag(FLAG_H) {
                a = a.wrapping_sub(0x06);
            }
        }
        self.r[A] = a;
        self.r[F] = (self.r[F] & FLAG_N) | if a == 0 { FLAG_Z } else { 0 } | if carry { FLAG_C } else { 0 };
    }

    /// CB-prefixed rotate/shift/swap (op bits 3-5 select the operation).
    #[inline(always)]
    fn cb_shift(&mut self, op: u8, v: u8) -> u8 {
        let c_in = self.flag(FLAG_C) as u8;
        let (r, c) = match (op >> 3) & 7 {
            0 => (v.rotate_left(1), v & 0x80 != 0),      // RLC
            1 => (v.rotate_right(1), v & 1 != 0),        // RRC
            2 => ((v << 1) | c_in, v & 0x80 != 0),       // RL
            3 => ((v >> 1) | (c_in << 7), v & 1 != 0),   // RR
            4 => (v << 1, v & 0x80 != 0),                // SLA
            5 => ((v >> 1) | (v & 0x80), v & 1 != 0),    // SRA
            6 => (v.rotate_left(4), false),              // SWAP
            _ => (v >> 1, v & 1 != 0),                   // SRL
        };
        self.set_flags(r == 0, false, false, c);
        r
    }

    #[inline(always)]
    fn condition(&self, op: u8) -> bool {
        match (op >> 3) & 3 {
            0 => !self.flag(FLAG_Z),
            1 => self.flag(FLAG_Z),
            2 => !self.flag(FLAG_C),
            _ => self.flag(FLAG_C),
        }
    }

    // ---- interrupts and the batch loop --------------------------------------------------------

    #[inline]
    fn pending(bus: &Bus) -> u8 {
        bus.interrupt_flag & bus.interrupt_enable & 0x1F
    }

    /// Interrupt dispatch: 20 cycles, both PC bytes written at its first cycle.
    fn dispatch(&mut self, bus: &mut Bus) {
        let pc = self.pc;
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, (pc >> 8) as u8, self.cycles);
        // The high-byte push may overwrite IE and cancel the request: PC then becomes 0.
        let pending = Self::pending(bus);
        self.sp = self.sp.wrapping_sub(1);
        bus.write(self.sp, pc as u8, self.cycles);
        self.ime = false;
        if pending == 0 {
            self.pc = 0;
        } else {
            let bit = pending.trailing_zeros() as u16;
            bus.interrupt_flag &= !(1u8 << bit);
            self.pc = 0x40 + bit * 8;
        }
        self.cycles += 20;
    }

    /// One scheduler batch: check interrupts once, then run whole instructions until `target`
    /// cycles have passed or an instruction asks the scheduler to look at the devices again.
    pub fn run_batch(&mut self, bus: &mut Bus, target: u64) {
        if self.fault.is_some() {
            self.cycles += target;
            return;
        }
        // The dispatch below counts towards the batch.
        let end = self.cycles + target;
        if self.ei_delay == 0 {
            let pending = Self::pending(bus);
            if pending != 0 {
                if self.halted {
                    self.halted = false;
                    if !self.halted_during_ei {
                        self.pc = self.pc.wrapping_add(1);
                    }
                    self.halted_during_ei = false;
                }
                if self.ime {
                    if self.halt_bug {
                        // HALT bug with EI;HALT: the handler returns to the HALT itself.
                        self.halt_bug = false;
                        self.pc = self.pc.wrapping_sub(1);
                    }
                    self.dispatch(bus);
                }
            }
        }
        if self.halted || self.stopped {
            self.cycles = end;
            return;
        }
        bus.batch_end = end;
        if self.halt_bug && self.cycles < end {
            self.halt_bug = false;
            self.step_on_self::<false, true>(bus, end);
        }
        loop {
            // An EI delay left over from the previous batch (or the HALT-bug step, or an EI of the
            // hot loop below) runs down first.
            while self.ei_delay != 0 && self.cycles < bus.batch_end {
                self.step_checked(bus, end);
            }
            if self.cycles >= bus.batch_end {
                break;
            }
            // The hot loop: PC and the cycle count live in locals (host registers) and go back to
            // `self` when it ends. No EI delay is pending at an instruction's start here: an EI ends
            // the hot loop (see the 0xFB arm) and the loop above counts its delay down.
            let (mut pc, mut cycles) = (self.pc, self.cycles);
            while cycles < bus.batch_end {
                self.step_with::<true, false>(bus, end, &mut pc, &mut cycles);
            }
            (self.pc, self.cycles) = (pc, cycles);
            if self.ei_delay == 0 {
                break;
            }
            // An EI ended the hot loop by ending the batch; the batch goes on (EI writes nothing,
            // so the batch end was `end` when it ran).
            bus.batch_end = end;
        }
        if self.fault.is_some() {
            // A locked-up CPU lets time pass.
            self.cycles = self.cycles.max(end);
        }
    }

    /// Executes one instruction.
    #[inline(always)]
    pub fn step(&mut self, bus: &mut Bus) {
        // Outside `run_batch` the bus's batch end is whatever the caller set; an IME change
        // restores it (or ends the batch) as in the loop.
        let end = bus.batch_end;
        self.step_on_self::<true, true>(bus, end);
    }

    /// One instruction with the EI-delay countdown, off the hot loop (kept out of line so the
    /// interpreter's match is not copied into every caller).
    #[inline(never)]
    fn step_checked(&mut self, bus: &mut Bus, end: u64) {
        self.step_on_self::<true, true>(bus, end);
    }

    /// `step_with` on PC and the cycle count stored in `self`.
    #[inline(always)]
    fn step_on_self<const ADVANCE: bool, const EI_CHECK: bool>(&mut self, bus: &mut Bus, end: u64) {
        let (mut pc, mut cycles) = (self.pc, self.cycles);
        self.step_with::<ADVANCE, EI_CHECK>(bus, end, &mut pc, &mut cycles);
        (self.pc, self.cycles) = (pc, cycles);
    }

    /// One instruction; `ADVANCE = false` is the HALT bug's fetch that leaves PC in place. `pc` and
    /// `cycles` stand for `self.pc` and `self.cycles` (the caller keeps them in locals; the
    /// instruction starts at time `cycles` and adds its length to it).
    ///
    /// `EI_CHECK = true` counts down a pending EI delay after the instruction. `EI_CHECK = false`
    /// (the hot loop) may only run when no delay is pending (`ei_delay == 0`): only an EI can then
    /// start one, and that EI ends the batch so that `run_batch` counts the delay down with the
    /// next instruction if the batch has room for it, exactly as two consecutive steps of the
    /// checked loop would.
    #[inline(always)]
    fn step_with<const ADVANCE: bool, const EI_CHECK: bool>(&mut self, bus: &mut Bus, end: u64, pc: &mut u16, cycles: &mut u64) {
        let now = *cycles;
        let op = bus.read(*pc, now);
        if ADVANCE {
            *pc = pc.wrapping_add(1);
        }
        let mut len = CYCLES[op as usize] as u64;
        match op {
            0x00 => {}
            0x01 => {
                let v = Self::fetch16(bus, pc, now);
                self.set_bc(v);
            }
            0x11 => {
                let v = Self::fetch16(bus, pc, now);
                self.set_de(v);
            }
            0x21 => {
                let v = Self::fetch16(bus, pc, now);
                self.set_hl(v);
            }
            0x31 => self.sp = Self::fetch16(bus, pc, now),
            0x02 => bus.write(self.bc(), self.r[A], now),
            0x12 => bus.write_locking(self.de(), self.r[A], now),
            0x22 => {
                let hl = self.hl();
                bus.write(hl, self.r[A], now);
                self.set_hl(hl.wrapping_add(1));
            }
            0x32 => {
                let hl = self.hl();
                bus.write(hl, self.r[A], now);
                self.set_hl(hl.wrapping_sub(1));
            }
            0x0A => self.r[A] = bus.read_data(self.bc(), now),
            0x1A => self.r[A] = bus.read_locking(self.de(), now),
            0x2A => {
                let hl = self.hl();
                self.r[A] = bus.read_data(hl, now);
                self.set_hl(hl.wrapping_add(1));
            }
            0x3A => {
                let hl = self.hl();
                self.r[A] = bus.read_data(hl, now);
                self.set_hl(hl.wrapping_sub(1));
            }
            0x03 => self.set_bc(self.bc().wrapping_add(1)),
            0x13 => self.set_de(self.de().wrapping_add(1)),
            0x23 => self.set_hl(self.hl().wrapping_add(1)),
            0x33 => self.sp = self.sp.wrapping_add(1),
            0x0B => self.set_bc(self.bc().wrapping_sub(1)),
            0x1B => self.set_de(self.de().wrapping_sub(1)),
            0x2B => self.set_hl(self.hl().wrapping_sub(1)),
            0x3B => self.sp = self.sp.wrapping_sub(1),
            0x09 => self.add_hl(self.bc()),
            0x19 => self.add_hl(self.de()),
            0x29 => self.add_hl(self.hl()),
            0x39 => self.add_hl(self.sp),
            0x34 => {
                let hl = self.hl();
                let v = bus.read_data(hl, now);
                let r = self.inc8(v);
                bus.write(hl, r, now + 4);
            }
            0x35 => {
                let hl = self.hl();
                let v = bus.read_data(hl, now);
                let r = self.dec8(v);
                bus.write(hl, r, now + 4);
            }
            0x04 | 0x0C | 0x14 | 0x1C | 0x24 | 0x2C | 0x3C => {
                let idx = op >> 3;
                let r = self.inc8(self.reg(idx));
                self.set_reg(idx, r);
            }
            0x05 | 0x0D | 0x15 | 0x1D | 0x25 | 0x2D | 0x3D => {
                let idx = op >> 3;
                let r = self.dec8(self.reg(idx));
                self.set_reg(idx, r);
            }
            0x36 => {
                let v = Self::fetch(bus, pc, now);
                bus.write(self.hl(), v, now + 4);
            }
            0x06 | 0x0E | 0x16 | 0x1E | 0x26 | 0x2E | 0x3E => {
                let v = Self::fetch(bus, pc, now);
                self.set_reg(op >> 3, v);
            }
            0x07 => {
                let c = self.r[A] >> 7;
                self.r[A] = self.r[A].rotate_left(1);
                self.set_flags(false, false, false, c != 0);
            }
            0x0F => {
                let c = self.r[A] & 1;
                self.r[A] = self.r[A].rotate_right(1);
                self.set_flags(false, false, false, c != 0);
            }
            0x17 => {
                let c = self.r[A] >> 7;
                self.r[A] = (self.r[A] << 1) | self.flag(FLAG_C) as u8;
                self.set_flags(false, false, false, c != 0);
            }
            0x1F => {
                let c = self.r[A] & 1;
                self.r[A] = (self.r[A] >> 1) | ((self.flag(FLAG_C) as u8) << 7);
                self.set_flags(false, false, false, c != 0);
            }
            0x08 => {
                let addr = Self::fetch16(bus, pc, now);
                bus.write(addr, self.sp as u8, now);
                bus.write(addr.wrapping_add(1), (self.sp >> 8) as u8, now);
            }
            0x10 => {
                // STOP is two bytes long.
                *pc = pc.wrapping_add(1);
                if bus.profile == Profile::Hardware {
                    // DMG: the divider is reset and the CPU sleeps until a button is pressed.
                    bus.write(0xFF04, 0, now);
                    if bus.joypad.pressed == 0 {
                        self.stopped = true;
                        bus.end_batch();
                    }
                }
            }
            0x18 => {
                let e = Self::fetch(bus, pc, now) as i8;
                *pc = pc.wrapping_add(e as u16);
            }
            0x20 | 0x28 | 0x30 | 0x38 => {
                let e = Self::fetch(bus, pc, now) as i8;
                if self.condition(op) {
                    *pc = pc.wrapping_add(e as u16);
                    len += 4;
                }
            }
            0x27 => self.daa(),
            0x2F => {
                self.r[A] = !self.r[A];
                self.r[F] |= FLAG_N | FLAG_H;
            }
            0x37 => self.r[F] = (self.r[F] & FLAG_Z) | FLAG_C,
            0x3F => self.r[F] = (self.r[F] & (FLAG_Z | FLAG_C)) ^ FLAG_C,
            // HALT sits inside the LD block; handling it there gives one dense jump table.
            0x40..=0x7F => {
                let dst = (op >> 3) & 7;
                let src = op & 7;
                if op == 0x76 {
                    self.halt(bus, pc);
                } else if src == 6 {
                    let v = if op == 0x7E { bus.read_locking(self.hl(), now) } else { bus.read_data(self.hl(), now) };
                    self.set_reg(dst, v);
                } else if dst == 6 {
                    let v = self.reg(src);
                    bus.write(self.hl(), v, now);
                } else {
                    let v = self.reg(src);
                    self.set_reg(dst, v);
                }
            }
            0x80..=0xBF => {
                let src = op & 7;
                let v = if src == 6 { bus.read_data(self.hl(), now) } else { self.reg(src) };
                self.alu((op >> 3) & 7, v);
            }
            0xC6 | 0xCE | 0xD6 | 0xDE | 0xE6 | 0xEE | 0xF6 | 0xFE => {
                let v = Self::fetch(bus, pc, now);
                self.alu((op >> 3) & 7, v);
            }
            0xC0 | 0xC8 | 0xD0 | 0xD8 => {
                if self.condition(op) {
                    *pc = self.pop(bus, now + 8);
                    len += 12;
                }
            }
            0xC9 => *pc = self.pop(bus, now + 4),
            0xD9 => {
                *pc = self.pop(bus, now + 4);
                self.ime = true;
                bus.batch_end = if Self::pending(bus) != 0 { 0 } else { end };
            }
            0xC1 => {
                let v = self.pop(bus, now);
                self.set_bc(v);
            }
            0xD1 => {
                let v = self.pop(bus, now);
                self.set_de(v);
            }
            0xE1 => {
                let v = self.pop(bus, now);
                self.set_hl(v);
            }
            0xF1 => {
                let v = self.pop(bus, now);
                self.set_af(v);
            }
            0xC5 => self.push(bus, self.bc(), now + 8),
            0xD5 => self.push(bus, self.de(), now + 8),
            0xE5 => self.push(bus, self.hl(), now + 8),
            0xF5 => self.push(bus, self.af(), now + 8),
            0xC2 | 0xCA | 0xD2 | 0xDA => {
                let addr = Self::fetch16(bus, pc, now);
                if self.condition(op) {
                    *pc = addr;
                    len += 4;
                }
            }
            0xC3 => *pc = Self::fetch16(bus, pc, now),
            0xE9 => *pc = self.hl(),
            0xC4 | 0xCC | 0xD4 | 0xDC => {
                let addr = Self::fetch16(bus, pc, now);
                if self.condition(op) {
                    self.push(bus, *pc, now + 16);
                    *pc = addr;
                    len += 12;
                }
            }
            0xCD => {
                let addr = Self::fetch16(bus, pc, now);
                self.push(bus, *pc, now + 16);
                *pc = addr;
            }
            0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => {
                self.push(bus, *pc, now + 8);
                *pc = (op & 0x38) as u16;
            }
            0xE0 => {
                let n = Self::fetch(bus, pc, now);
                bus.write(0xFF00 | n as u16, self.r[A], now + 4);
            }
            0xF0 => {
                let n = Self::fetch(bus, pc, now);
                self.r[A] = bus.read_data(0xFF00 | n as u16, now + 4);
            }
            0xE2 => bus.write(0xFF00 | self.r[C] as u16, self.r[A], now),
            0xF2 => self.r[A] = bus.read_data(0xFF00 | self.r[C] as u16, now),
            0xEA => {
                let addr = Self::fetch16(bus, pc, now);
                bus.write(addr, self.r[A], now + 8);
            }
            0xFA => {
                let addr = Self::fetch16(bus, pc, now);
                self.r[A] = bus.read_data(addr, now + 8);
            }
            0xE8 => {
                let e = Self::fetch(bus, pc, now);
                self.sp = self.sp_plus(e);
            }
            0xF8 => {
                let e = Self::fetch(bus, pc, now);
                let v = self.sp_plus(e);
                self.set_hl(v);
            }
            0xF9 => self.sp = self.hl(),
            0xF3 => {
                self.ime = false;
                self.ei_delay = 0;
            }
            0xFB => {
                // IME is set after the next instruction (counted down below, so 2 here).
                if !EI_CHECK {
                    // No delay was pending: this step's countdown leaves 1. The hot loop (the only
                    // caller without the check) ends here so that `run_batch` runs the next
                    // instruction with the check if the batch continues.
                    debug_assert!(self.ei_delay == 0);
                    self.ei_delay = 1;
                    *cycles += len;
                    bus.end_batch();
                    return;
                }
                if self.ei_delay == 0 {
                    self.ei_delay = 2;
                }
            }
            0xCB => len = self.step_cb(bus, pc, now),
            _ => {
                // D3 DB DD E3 E4 EB EC ED F4 FC FD: the SM83 locks up.
                *pc = pc.wrapping_sub(1);
                self.fault = Some(CpuFault::IllegalOpcode { opcode: op, pc: *pc });
                bus.end_batch();
                return;
            }
        }
        *cycles += len;
        if EI_CHECK && self.ei_delay != 0 {
            self.ei_delay -= 1;
            if self.ei_delay == 0 {
                self.ime = true;
                // Overrides any earlier reason to end the batch in this step.
                bus.batch_end = if Self::pending(bus) != 0 { 0 } else { end };
            }
        }
    }

    #[inline(always)]
    fn halt(&mut self, bus: &mut Bus, pc: &mut u16) {
        if bus.profile == Profile::Hardware && !self.ime && Self::pending(bus) != 0 {
            // HALT bug: no halt, and the next opcode byte is read twice (see `halt_bug`).
            self.halt_bug = true;
            bus.end_batch();
            return;
        }
        // Wait on the HALT opcode itself; waking up moves PC past it (unless EI was still pending).
        *pc = pc.wrapping_sub(1);
        self.halted = true;
        self.halted_during_ei = self.ei_delay != 0;
        bus.end_batch();
    }

    #[inline(always)]
    fn step_cb(&mut self, bus: &mut Bus, pc: &mut u16, now: u64) -> u64 {
        let op = Self::fetch(bus, pc, now);
        let idx = op & 7;
        let bit = (op >> 3) & 7;
        if idx == 6 {
            let hl = self.hl();
            match op >> 6 {
                1 => {
                    let v = bus.read_data(hl, now + 4);
                    self.r[F] = (self.r[F] & FLAG_C) | FLAG_H | if v & (1 << bit) == 0 { FLAG_Z } else { 0 };
                    12
                }
                kind => {
                    let v = bus.read_data(hl, now + 4);
                    let r = match kind {
                        0 => self.cb_shift(op, v),
                        2 => v & !(1 << bit),
                        _ => v | (1 << bit),
                    };
                    bus.write(hl, r, now + 8);
                    16
                }
            }
        } else {
            let v = self.reg(idx);
            match op >> 6 {
                0 => {
                    let r = self.cb_shift(op, v);
                    self.set_reg(idx, r);
                }
                1 => self.r[F] = (self.r[F] & FLAG_C) | FLAG_H | if v & (1 << bit) == 0 { FLAG_Z } else { 0 },
                2 => self.set_reg(idx, v & !(1 << bit)),
                _ => self.set_reg(idx, v | (1 << bit)),
            }
            8
        }
    }

    pub fn save(&self, w: &mut StateWriter) {
        for v in [self.r[A], self.r[F], self.r[B], self.r[C], self.r[D], self.r[E], self.r[H], self.r[L]] {
            w.u8(v);
        }
        w.bool(self.halt_bug);
        w.u16(self.sp);
        w.u16(self.pc);
        w.bool(self.ime);
        w.u8(self.ei_delay);
        w.bool(self.halted);
        w.bool(self.halted_during_ei);
        w.bool(self.stopped);
        w.u64(self.cycles);
        match self.fault {
            None => w.u8(0),
            Some(CpuFault::IllegalOpcode { opcode, pc }) => {
                w.u8(1);
                w.u8(opcode);
                w.u16(pc);
            }
        }
    }

    pub fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        self.r[A] = r.u8()?;
        self.r[F] = r.u8()? & 0xF0;
        self.r[B] = r.u8()?;
        self.r[C] = r.u8()?;
        self.r[D] = r.u8()?;
        self.r[E] = r.u8()?;
        self.r[H] = r.u8()?;
        self.r[L] = r.u8()?;
        self.halt_bug = r.bool()?;
        self.sp = r.u16()?;
        self.pc = r.u16()?;
        self.ime = r.bool()?;
        self.ei_delay = r.u8()?;
        if self.ei_delay > 2 {
            return Err(StateError::Invalid("EI delay"));
        }
        self.halted = r.bool()?;
        self.halted_during_ei = r.bool()?;
        self.stopped = r.bool()?;
        self.cycles = r.u64()?;
        self.fault = match r.u8()? {
            0 => None,
            1 => {
                let opcode = r.u8()?;
                let pc = r.u16()?;
                Some(CpuFault::IllegalOpcode { opcode, pc })
            }
            _ => return Err(StateError::Invalid("CPU fault")),
        };
        Ok(())
    }
}
