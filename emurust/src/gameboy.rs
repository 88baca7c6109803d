//! The whole machine and its scheduler.
//!
//! One frame = one pass of the scheduler loop until the LCD reports a frame boundary, exactly as
//! PyBoy's `tick()` defines it:
//!   1. target = max(4, cycles to the earliest of: timer overflow/reload, serial completion,
//!      next LCD transition);
//!   2. CPU batch: check interrupts once, then run whole instructions until `target` cycles have
//!      passed or an instruction wrote a register that can change the schedule (a halted CPU jumps
//!      straight to the deadline);
//!   3. catch up OAM DMA, serial, timer, then at most one LCD transition; stop if the frame ended.
//! Switching the LCD on or off also ends the frame, right after the writing instruction.

use crate::bus::{Bus, Profile, IF_JOYPAD};
use crate::cartridge::Cartridge;
use crate::cpu::Cpu;
use crate::error::{CpuFault, RomError};
use crate::ppu::{SCREEN_PIXELS, SCREEN_WIDTH};
use crate::state::{StateError, StateReader, StateWriter, STATE_MAGIC, STATE_VERSION};

/// emurust's own boot program (written for this project): sets the post-boot DMG register values,
/// switches the LCD on and unmaps itself with the write at 0x00FE, so execution continues at 0x0100.
///
/// ```text
/// 0000 31 FE FF   ld sp,$FFFE
/// 0003 21 26 FF   ld hl,$FF26
/// 0006 36 80      ld (hl),$80     ; NR52: sound on
/// 0008 2D         dec l
/// 0009 36 F3      ld (hl),$F3     ; NR51
/// 000B 2D         dec l
/// 000C 36 77      ld (hl),$77     ; NR50
/// 000E 3E FC      ld a,$FC
/// 0010 E0 47      ldh ($47),a     ; BGP
/// 0012 01 B0 01   ld bc,$01B0
/// 0015 C5         push bc
/// 0016 F1         pop af          ; A=$01 F=$B0
/// 0017 01 13 00   ld bc,$0013
/// 001A 11 D8 00   ld de,$00D8
/// 001D 21 4D 01   ld hl,$014D
/// 0020 C3 F8 00   jp $00F8
/// 00F8 3E 91      ld a,$91
/// 00FA E0 40      ldh ($40),a     ; LCDC: LCD on
/// 00FC 3E 01      ld a,$01
/// 00FE E0 50      ldh ($50),a     ; unmap the boot ROM; next PC is $0100
/// ```
pub fn default_boot_rom() -> [u8; 256] {
    let mut rom = [0u8; 256];
    let head: [u8; 0x23] = [
        0x31, 0xFE, 0xFF, 0x21, 0x26, 0xFF, 0x36, 0x80, 0x2D, 0x36, 0xF3, 0x2D, 0x36, 0x77, 0x3E, 0xFC, 0xE0, 0x47, 0x01,
        0xB0, 0x01, 0xC5, 0xF1, 0x01, 0x13, 0x00, 0x11, 0xD8, 0x00, 0x21, 0x4D, 0x01, 0xC3, 0xF8, 0x00,
    ];
    rom[..head.len()].copy_from_slice(&head);
    rom[0xF8..].copy_from_slice(&[0x3E, 0x91, 0xE0, 0x40, 0x3E, 0x01, 0xE0, 0x50]);
    rom
}

/// Registers as a plain struct, for tests and the Python binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers {
    pub a: u8,
    pub f: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
    pub e: u8,
    pub h: u8,
    pub l: u8,
    pub sp: u16,
    pub pc: u16,
}

#[derive(Clone)]
pub struct GameBoy {
    pub cpu: Cpu,
    pub bus: Bus,
    /// Frames completed since power-on.
    pub frame_count: u64,
    /// Buttons to apply at the start of the next frame.
    next_buttons: u8,
    /// Identifies the ROM in save states.
    rom_fingerprint: u64,
}

/// FNV-1a over the ROM image, used to refuse save states from another ROM.
fn fingerprint(rom: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in rom {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h ^ rom.len() as u64
}

impl GameBoy {
    /// Powers on with `rom`. `boot_rom` defaults to emurust's own boot program.
    pub fn new(rom: &[u8], boot_rom: Option<&[u8]>, profile: Profile) -> Result<GameBoy, RomError> {
        let boot: [u8; 256] = match boot_rom {
            None => default_boot_rom(),
            Some(b) => b.try_into().map_err(|_| RomError::BadBootRom(b.len()))?,
        };
        let cart = Cartridge::new(rom, Some(&boot), profile == Profile::PyBoy)?;
        let bus = Bus::new(cart, profile);
        Ok(GameBoy { cpu: Cpu::default(), bus, frame_count: 0, next_buttons: 0, rom_fingerprint: fingerprint(rom) })
    }

    pub fn profile(&self) -> Profile {
        self.bus.profile
    }

    /// Buttons held from the start of the next frame on (bitmask, see `joypad.rs`).
    pub fn set_buttons(&mut self, buttons: u8) {
        self.next_buttons = buttons;
    }

    pub fn buttons(&self) -> u8 {
        self.next_buttons
    }

    pub fn fault(&self) -> Option<CpuFault> {
        self.cpu.fault
    }

    /// Runs one frame. With `render` false the screen buffer keeps its previous contents.
    /// Returns the fault if the CPU has locked up (the frame still advances the clock).
    pub fn run_frame(&mut self, render: bool) -> Result<(), CpuFault> {
        let cpu = &mut self.cpu;
        let bus = &mut self.bus;
        if bus.joypad.set_pressed(self.next_buttons) {
            bus.interrupt_flag |= IF_JOYPAD;
            cpu.stopped = false;
        }
        bus.ppu.render_enabled = render;
        loop {
            if cpu.halted && cpu.ei_delay == 0 && bus.interrupt_flag & bus.interrupt_enable & 0x1F == 0 && bus.dma_idle() {
                // Fast path, same result as the general loop: a halted CPU jumps exactly to each
                // deadline (at least 4 cycles), so step the LCD through its transitions until one
                // wakes the CPU or ends the frame, or a timer/serial event comes first.
                let device_event = bus.next_device_event();
                loop {
                    if !render {
                        if let Some(last_transition) = bus.ppu.skip_halted_lines(cpu.cycles, device_event) {
                            cpu.cycles = last_transition;
                        }
                    }
                    bus.ppu.skip_unobserved_modes(device_event);
                    let deadline = bus.ppu.next_event();
                    // A halted batch lasts at least 4 cycles; if it would reach a timer/serial
                    // event, the general loop must run it (it catches those devices up too).
                    if deadline.max(cpu.cycles + 4) >= device_event {
                        break;
                    }
                    cpu.cycles = deadline.max(cpu.cycles + 4);
                    bus.sync_lcd(cpu.cycles);
                    if bus.ppu.frame_done || bus.interrupt_flag & bus.interrupt_enable & 0x1F != 0 {
                        break;
                    }
                }
                if bus.ppu.frame_done {
                    bus.ppu.frame_done = false;
                    break;
                }
                if bus.interrupt_flag & bus.interrupt_enable & 0x1F != 0
                    || bus.ppu.next_event().max(cpu.cycles + 4) < bus.next_device_event()
                {
                    continue;
                }
            }
            let now = cpu.cycles;
            let deadline = bus.ppu.next_event().min(bus.next_device_event());
            let target = if deadline > now + 4 { deadline - now } else { 4 };
            cpu.run_batch(bus, target);
            let now = cpu.cycles;
            bus.sync_dma(now);
            bus.sync_serial(now);
            bus.sync_timer(now);
            bus.sync_lcd(now);
            if bus.ppu.frame_done {
                bus.ppu.frame_done = false;
                break;
            }
        }
        self.frame_count += 1;
        match self.cpu.fault {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Runs `frames` frames, rendering only the last one if `render`.
    pub fn run_frames(&mut self, frames: u32, render: bool) -> Result<(), CpuFault> {
        for i in 0..frames {
            self.run_frame(render && i + 1 == frames)?;
        }
        Ok(())
    }

    /// Screen shades 0 (lightest) to 3 (darkest), row-major 160x144.
    pub fn screen(&self) -> &[u8; SCREEN_PIXELS] {
        &self.bus.ppu.screen
    }

    pub fn screen_row(&self, y: usize) -> &[u8] {
        &self.bus.ppu.screen[y * SCREEN_WIDTH..(y + 1) * SCREEN_WIDTH]
    }

    pub fn registers(&self) -> Registers {
        let c = &self.cpu;
        use crate::cpu::{A, B, C, D, E, F, H, L};
        Registers { a: c.r[A], f: c.r[F], b: c.r[B], c: c.r[C], d: c.r[D], e: c.r[E], h: c.r[H], l: c.r[L], sp: c.sp, pc: c.pc }
    }

    pub fn cycles(&self) -> u64 {
        self.cpu.cycles
    }

    /// Reads memory as the CPU would at the current cycle count (I/O included; FFFF is IE).
    pub fn read_memory(&mut self, addr: u16) -> u8 {
        let now = self.cpu.cycles;
        self.bus.read(addr, now)
    }

    /// Writes memory as the CPU would (MBC registers included).
    pub fn write_memory(&mut self, addr: u16, value: u8) {
        let now = self.cpu.cycles;
        self.bus.write(addr, value, now);
    }

    /// Reads any address without side effects: no device is caught up, no DMA or VRAM lock applies,
    /// and I/O registers show their stored values (as of the last catch-up, i.e. the end of the last
    /// CPU batch). This is what RL observations and parity records use.
    #[inline]
    pub fn peek(&self, addr: u16) -> u8 {
        self.bus.peek(addr, self.cpu.cycles)
    }

    /// Bytes written to the serial port since the last call.
    pub fn take_serial_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bus.serial.output)
    }

    /// Complete machine state (not the ROM itself) as bytes.
    pub fn save_state(&self) -> Vec<u8> {
        let mut w = StateWriter::default();
        w.bytes(STATE_MAGIC);
        w.u32(STATE_VERSION);
        w.u64(self.rom_fingerprint);
        w.u8(match self.bus.profile {
            Profile::PyBoy => 0,
            Profile::Hardware => 1,
        });
        w.u64(self.frame_count);
        w.u8(self.next_buttons);
        self.cpu.save(&mut w);
        self.bus.save(&mut w);
        w.buf
    }

    /// Restores a state from `save_state`. On error the emulator is left unchanged.
    pub fn load_state(&mut self, data: &[u8]) -> Result<(), StateError> {
        let mut copy = self.clone();
        copy.load_state_into(data)?;
        *self = copy;
        Ok(())
    }

    fn load_state_into(&mut self, data: &[u8]) -> Result<(), StateError> {
        let mut r = StateReader::new(data);
        let mut magic = [0u8; 8];
        r.bytes_into(&mut magic)?;
        if &magic != STATE_MAGIC || r.u32()? != STATE_VERSION {
            return Err(StateError::BadHeader);
        }
        if r.u64()? != self.rom_fingerprint {
            return Err(StateError::WrongRom);
        }
        let profile = match r.u8()? {
            0 => Profile::PyBoy,
            1 => Profile::Hardware,
            _ => return Err(StateError::Invalid("profile")),
        };
        if profile != self.bus.profile {
            return Err(StateError::Invalid("state saved under another profile"));
        }
        self.frame_count = r.u64()?;
        self.next_buttons = r.u8()?;
        self.cpu.load(&mut r)?;
        self.bus.load(&mut r)?;
        r.finish()
    }
}
