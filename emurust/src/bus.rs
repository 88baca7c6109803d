//! The memory map and I/O registers, with lazy device catch-up.
//!
//! Every access carries the cycle count at which it happens; timer, serial, LCD, OAM DMA and the
//! frame sequencer are brought up to that time before the register is read or written. The
//! scheduler in `gameboy.rs` also catches every device up after each CPU batch.

use crate::apu::{Apu, FRAME_SEQUENCER_BIT};
use crate::cartridge::Cartridge;
use crate::joypad::Joypad;
use crate::ppu::Ppu;
use crate::serial::Serial;
use crate::state::{StateError, StateReader, StateWriter};
use crate::timer::{Timer, NEVER};

/// Behaviours where PyBoy 2.8.1 and the DMG hardware differ. Frame-exact parity with PyBoy needs
/// `PyBoy`; Blargg's `halt_bug` and programs that rely on those hardware details need `Hardware`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Matches PyBoy 2.8.1 (`cgb=False, sound_emulated=False`): no HALT bug, P1 latched on write,
    /// audio registers read 0x00 and ignore writes, SB reads 0xFF, ROM-only bank quirk, RAM on carts
    /// without RAM.
    PyBoy,
    /// Hardware behaviour for those points: HALT bug, live P1 reads, audio register model, SB keeps
    /// the written byte until a transfer completes.
    Hardware,
}

pub const IF_VBLANK: u8 = 0x01;
pub const IF_STAT: u8 = 0x02;
pub const IF_TIMER: u8 = 0x04;
pub const IF_SERIAL: u8 = 0x08;
pub const IF_JOYPAD: u8 = 0x10;

/// OAM DMA: 160 bytes, one per 4 cycles, starting 12 cycles after the FF46 write.
#[derive(Clone, Debug)]
pub struct Dma {
    /// Value last written to FF46.
    pub register: u8,
    source: u16,
    /// Cycle count at which byte 0 is copied; NEVER when idle.
    start: u64,
    /// Bytes already copied.
    copied: u8,
}

impl Default for Dma {
    fn default() -> Self {
        Dma { register: 0, source: 0, start: NEVER, copied: 0 }
    }
}

impl Dma {
    #[inline]
    fn active(&self, now: u64) -> bool {
        self.start != NEVER && now >= self.start
    }
}

#[derive(Clone)]
pub struct Bus {
    pub profile: Profile,
    pub cart: Cartridge,
    pub wram: [u8; 0x2000],
    pub hram: [u8; 0x7F],
    /// FEA0-FEFF behaves as plain RAM.
    unusable: [u8; 0x60],
    pub ppu: Ppu,
    pub timer: Timer,
    pub serial: Serial,
    pub joypad: Joypad,
    pub apu: Apu,
    pub dma: Dma,
    pub interrupt_flag: u8,
    pub interrupt_enable: u8,
    /// Cycle count at which the current CPU batch ends. Writes that can change the schedule end it
    /// at once by setting 0 (`end_batch`), so the interpreter's loop needs a single comparison.
    pub batch_end: u64,
    /// Frame sequencer edges are counted up to this cycle count.
    apu_synced_to: u64,
}

impl Bus {
    pub fn new(cart: Cartridge, profile: Profile) -> Bus {
        Bus {
            profile,
            cart,
            wram: [0; 0x2000],
            hram: [0; 0x7F],
            unusable: [0; 0x60],
            ppu: Ppu::default(),
            timer: Timer::default(),
            serial: Serial::default(),
            joypad: Joypad::default(),
            apu: Apu::default(),
            dma: Dma::default(),
            interrupt_flag: 0,
            interrupt_enable: 0,
            batch_end: 0,
            apu_synced_to: 0,
        }
    }

    /// Ends the current CPU batch after the instruction being executed.
    #[inline(always)]
    pub fn end_batch(&mut self) {
        self.batch_end = 0;
    }

    /// Whether something asked to end the current CPU batch.
    #[inline(always)]
    pub fn batch_ended(&self) -> bool {
        self.batch_end == 0
    }

    #[inline]
    fn pyboy(&self) -> bool {
        self.profile == Profile::PyBoy
    }


    // ---- device catch-up -------------------------------------------------------------------

    /// Timer to `now`, raising its interrupt if due.
    #[inline]
    pub fn sync_timer(&mut self, now: u64) {
        if self.timer.sync(now) {
            self.interrupt_flag |= IF_TIMER;
        }
    }

    #[inline]
    pub fn sync_serial(&mut self, now: u64) {
        if self.serial.sync(now) {
            self.interrupt_flag |= IF_SERIAL;
        }
    }

    /// One LCD transition if due.
    #[inline]
    pub fn sync_lcd(&mut self, now: u64) {
        #[cfg(feature = "trace")]
        let before = self.ppu.next_event();
        let irq = self.ppu.tick(now);
        #[cfg(feature = "trace")]
        if self.ppu.next_event() != before || now >= before {
            eprintln!("   S {:>9} next={} LY={} mode={}", now, self.ppu.next_event(), self.ppu.ly, self.ppu.mode);
        }
        self.interrupt_flag |= irq;
    }

    /// No OAM DMA running or pending.
    #[inline]
    pub fn dma_idle(&self) -> bool {
        self.dma.start == NEVER
    }

    /// Copies the OAM DMA bytes due by `now`.
    #[inline(always)]
    pub fn sync_dma(&mut self, now: u64) {
        if self.dma.active(now) {
            self.sync_dma_slow(now);
        }
    }

    #[inline(never)]
    fn sync_dma_slow(&mut self, now: u64) {
        let due = (((now - self.dma.start) / 4) + 1).min(160) as u8;
        if due > self.dma.copied && (0xC000..0xE000).contains(&self.dma.source) {
            // Work RAM source (the usual shadow OAM): the due bytes in one block.
            let (from, to) = (self.dma.copied as usize, due as usize);
            let base = (self.dma.source & 0x1FFF) as usize;
            self.ppu.write_oam_block(from, &self.wram[base + from..base + to]);
            self.dma.copied = due;
        }
        while self.dma.copied < due {
            let i = self.dma.copied as u16;
            let v = self.dma_source_read(self.dma.source.wrapping_add(i), now);
            self.ppu.write_oam(i as usize, v);
            self.dma.copied += 1;
        }
        if self.dma.copied == 160 {
            self.dma.start = NEVER;
        }
    }

    fn dma_source_read(&mut self, addr: u16, now: u64) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.cart.read_rom(addr),
            0x8000..=0x9FFF => self.ppu.vram[(addr & 0x1FFF) as usize],
            0xA000..=0xBFFF => self.cart.read_ram(addr, now),
            0xC000..=0xDFFF => self.wram[(addr & 0x1FFF) as usize],
            _ => 0xFF,
        }
    }

    /// Frame sequencer edges (divider bit 12 falling) up to `now`; only the hardware APU model uses them.
    fn sync_apu(&mut self, now: u64) {
        if self.pyboy() || now <= self.apu_synced_to {
            return;
        }
        let period = 2u64 << FRAME_SEQUENCER_BIT;
        let c0 = self.timer.counter(self.apu_synced_to);
        let c1 = self.timer.counter(now);
        let edges = (c1 / period - c0 / period).min(8);
        for _ in 0..edges {
            self.apu.frame_sequencer_step();
        }
        self.apu_synced_to = now;
    }

    /// Cycle count of the earliest timer or serial event.
    pub fn next_device_event(&self) -> u64 {
        self.timer.next_event().min(self.serial.next_event())
    }

    /// Side-effect-free read (see `GameBoy::peek`) at cycle count `now` (used only to tell whether
    /// OAM DMA is running, which makes OAM read 0xFF as it does for the CPU).
    pub fn peek(&self, addr: u16, now: u64) -> u8 {
        match addr {
            0x0000..=0x7FFF => self.cart.read_rom(addr),
            0x8000..=0x9FFF => self.ppu.vram[(addr & 0x1FFF) as usize],
            0xA000..=0xBFFF => self.cart.peek_ram(addr),
            0xC000..=0xFDFF => self.wram[(addr & 0x1FFF) as usize],
            0xFE00..=0xFE9F if self.dma.active(now) => 0xFF,
            0xFE00..=0xFE9F => self.ppu.oam[(addr - 0xFE00) as usize],
            0xFEA0..=0xFEFF => self.unusable[(addr - 0xFEA0) as usize],
            0xFF80..=0xFFFE => self.hram[(addr - 0xFF80) as usize],
            0xFFFF => self.interrupt_enable,
            0xFF00 => self.joypad.read(self.pyboy()),
            0xFF01 => self.serial.read_sb(self.pyboy()),
            0xFF02 => self.serial.read_sc(),
            0xFF04 => self.timer.read_div(self.timer_peek_time()),
            0xFF05 => self.timer.tima,
            0xFF06 => self.timer.tma,
            0xFF07 => self.timer.tac | 0xF8,
            0xFF0F => self.interrupt_flag | 0xE0,
            0xFF10..=0xFF3F => {
                if self.pyboy() {
                    0
                } else {
                    self.apu.read(addr)
                }
            }
            0xFF40 => self.ppu.lcdc,
            0xFF41 => self.ppu.read_stat(),
            0xFF42 => self.ppu.scy,
            0xFF43 => self.ppu.scx,
            0xFF44 => self.ppu.ly,
            0xFF45 => self.ppu.lyc,
            0xFF46 => self.dma.register,
            0xFF47 => self.ppu.bgp,
            0xFF48 => self.ppu.obp0,
            0xFF49 => self.ppu.obp1,
            0xFF4A => self.ppu.wy,
            0xFF4B => self.ppu.wx,
            _ => 0xFF,
        }
    }

    /// The cycle count the timer was last caught up to (DIV as last seen).
    fn timer_peek_time(&self) -> u64 {
        self.timer.synced_to()
    }

    // ---- CPU accesses ----------------------------------------------------------------------

    /// A CPU read at cycle count `now`. ROM, work RAM and high RAM are handled inline; everything
    /// else (I/O, VRAM, OAM, cartridge RAM) goes through `read_other`.
    #[inline(always)]
    pub fn read(&mut self, addr: u16, now: u64) -> u8 {
        if addr < 0x8000 {
            return self.cart.read_rom(addr);
        }
        if (0xC000..0xFE00).contains(&addr) {
            return self.wram[(addr & 0x1FFF) as usize];
        }
        if (0xFF80..0xFFFF).contains(&addr) {
            return self.hram[(addr - 0xFF80) as usize];
        }
        self.read_other(addr, now)
    }

    /// A data read (not an instruction fetch): same as `read`, testing work RAM first because
    /// stack and variable accesses dominate.
    #[inline(always)]
    pub fn read_data(&mut self, addr: u16, now: u64) -> u8 {
        if (0xC000..0xFE00).contains(&addr) {
            return self.wram[(addr & 0x1FFF) as usize];
        }
        if addr < 0x8000 {
            return self.cart.read_rom(addr);
        }
        if (0xFF80..0xFFFF).contains(&addr) {
            return self.hram[(addr - 0xFF80) as usize];
        }
        self.read_other(addr, now)
    }

    #[inline(never)]
    fn read_other(&mut self, addr: u16, now: u64) -> u8 {
        match addr >> 12 {
            0x8 | 0x9 => self.ppu.vram[(addr & 0x1FFF) as usize],
            0xA | 0xB => self.cart.read_ram(addr, now),
            _ => self.read_high(addr, now, now, false),
        }
    }

    /// Read by LD A,(HL) / LD A,(DE): LCD-side state is seen 4 cycles later and VRAM/OAM are locked
    /// while the LCD uses them.
    #[inline(always)]
    pub fn read_locking(&mut self, addr: u16, now: u64) -> u8 {
        if addr < 0x8000 || (0xC000..0xFE00).contains(&addr) {
            return self.read(addr, now);
        }
        self.read_locking_other(addr, now)
    }

    #[inline(never)]
    fn read_locking_other(&mut self, addr: u16, now: u64) -> u8 {
        match addr >> 12 {
            0x8 | 0x9 => {
                self.sync_lcd(now + 4);
                if self.ppu.vram_locked() {
                    0xFF
                } else {
                    self.ppu.vram[(addr & 0x1FFF) as usize]
                }
            }
            0xF => self.read_high(addr, now, now + 4, true),
            _ => self.read(addr, now),
        }
    }

    /// FE00-FFFF, and echo RAM F000-FDFF.
    fn read_high(&mut self, addr: u16, now: u64, lcd_now: u64, locking: bool) -> u8 {
        match addr {
            0xF000..=0xFDFF => self.wram[(addr & 0x1FFF) as usize],
            0xFE00..=0xFE9F => {
                self.sync_dma(lcd_now);
                if self.dma.active(lcd_now) {
                    return 0xFF;
                }
                if locking {
                    self.sync_lcd(lcd_now);
                    if self.ppu.oam_locked() {
                        return 0xFF;
                    }
                }
                self.ppu.oam[(addr - 0xFE00) as usize]
            }
            0xFEA0..=0xFEFF => self.unusable[(addr - 0xFEA0) as usize],
            0xFF80..=0xFFFE => self.hram[(addr - 0xFF80) as usize],
            0xFFFF => self.interrupt_enable,
            _ => self.read_io(addr, now, lcd_now),
        }
    }

    fn read_io(&mut self, addr: u16, now: u64, lcd_now: u64) -> u8 {
        match addr {
            0xFF00 => self.joypad.read(self.pyboy()),
            0xFF01 => {
                self.sync_serial(now);
                self.serial.read_sb(self.pyboy())
            }
            0xFF02 => {
                self.sync_serial(now);
                self.serial.read_sc()
            }
            0xFF04 => self.timer.read_div(now),
            0xFF05 => {
                self.sync_timer(now);
                self.timer.tima
            }
            0xFF06 => {
                self.sync_timer(now);
                self.timer.tma
            }
            0xFF07 => {
                self.sync_timer(now);
                self.timer.tac | 0xF8
            }
            0xFF0F => self.interrupt_flag | 0xE0,
            0xFF10..=0xFF3F => {
                if self.pyboy() {
                    0x00
                } else {
                    self.sync_apu(now);
                    self.apu.read(addr)
                }
            }
            0xFF40..=0xFF4B => {
                self.sync_lcd(lcd_now);
                let p = &self.ppu;
                match addr {
                    0xFF40 => p.lcdc,
                    0xFF41 => p.read_stat(),
                    0xFF42 => p.scy,
                    0xFF43 => p.scx,
                    0xFF44 => p.ly,
                    0xFF45 => p.lyc,
                    0xFF46 => self.dma.register,
                    0xFF47 => p.bgp,
                    0xFF48 => p.obp0,
                    0xFF49 => p.obp1,
                    0xFF4A => p.wy,
                    _ => p.wx,
                }
            }
            _ => 0xFF,
        }
    }

    /// A CPU write at cycle count `now`; work RAM and high RAM inline, the rest in `write_other`.
    #[inline(always)]
    pub fn write(&mut self, addr: u16, value: u8, now: u64) {
        if (0xC000..0xFE00).contains(&addr) {
            self.wram[(addr & 0x1FFF) as usize] = value;
        } else if (0xFF80..0xFFFF).contains(&addr) {
            self.hram[(addr - 0xFF80) as usize] = value;
        } else {
            self.write_other(addr, value, now);
        }
    }

    #[inline(never)]
    fn write_other(&mut self, addr: u16, value: u8, now: u64) {
        match addr >> 12 {
            0x0..=0x7 => {
                self.cart.write_rom(addr, value, now);
                self.end_batch();
            }
            0x8 | 0x9 => self.ppu.vram[(addr & 0x1FFF) as usize] = value,
            0xA | 0xB => self.cart.write_ram(addr, value, now),
            _ => self.write_high(addr, value, now, now, false),
        }
    }

    /// Write by LD (DE),A: VRAM/OAM are locked while the LCD uses them (checked 4 cycles later);
    /// LCD registers are written at `now` like any other write.
    #[inline(always)]
    pub fn write_locking(&mut self, addr: u16, value: u8, now: u64) {
        if (0xC000..0xFE00).contains(&addr) {
            return self.write(addr, value, now);
        }
        self.write_locking_other(addr, value, now)
    }

    #[inline(never)]
    fn write_locking_other(&mut self, addr: u16, value: u8, now: u64) {
        match addr >> 12 {
            0x8 | 0x9 => {
                self.sync_lcd(now + 4);
                if !self.ppu.vram_locked() {
                    self.ppu.vram[(addr & 0x1FFF) as usize] = value;
                }
            }
            0xFE if addr < 0xFEA0 => self.write_high(addr, value, now, now + 4, true),
            _ => self.write(addr, value, now),
        }
    }

    fn write_high(&mut self, addr: u16, value: u8, now: u64, lcd_now: u64, locking: bool) {
        match addr {
            0xF000..=0xFDFF => self.wram[(addr & 0x1FFF) as usize] = value,
            0xFE00..=0xFE9F => {
                self.sync_dma(lcd_now);
                if self.dma.active(lcd_now) {
                    return;
                }
                if locking {
                    self.sync_lcd(lcd_now);
                    if self.ppu.oam_locked() {
                        return;
                    }
                }
                self.ppu.write_oam((addr - 0xFE00) as usize, value);
            }
            0xFEA0..=0xFEFF => self.unusable[(addr - 0xFEA0) as usize] = value,
            0xFF80..=0xFFFE => self.hram[(addr - 0xFF80) as usize] = value,
            0xFFFF => {
                self.interrupt_enable = value;
                self.end_batch();
            }
            _ => self.write_io(addr, value, now, lcd_now),
        }
    }

    fn write_io(&mut self, addr: u16, value: u8, now: u64, lcd_now: u64) {
        if addr <= 0xFF4B || addr == 0xFF50 {
            self.end_batch();
        }
        match addr {
            0xFF00 => self.joypad.write(value, self.pyboy()),
            0xFF01 => {
                self.sync_serial(now);
                self.serial.write_sb(value);
            }
            0xFF02 => {
                self.sync_serial(now);
                self.serial.write_sc(value, now);
            }
            0xFF04 => {
                self.sync_apu(now);
                let fs_high = (self.timer.counter(now) >> FRAME_SEQUENCER_BIT) & 1 != 0;
                if self.timer.write_div(now) {
                    self.interrupt_flag |= IF_TIMER;
                }
                if fs_high && !self.pyboy() {
                    self.apu.frame_sequencer_step();
                }
            }
            0xFF05 => {
                if self.timer.write_tima(value, now) {
                    self.interrupt_flag |= IF_TIMER;
                }
            }
            0xFF06 => {
                if self.timer.write_tma(value, now) {
                    self.interrupt_flag |= IF_TIMER;
                }
            }
            0xFF07 => {
                if self.timer.write_tac(value, now) {
                    self.interrupt_flag |= IF_TIMER;
                }
            }
            0xFF0F => self.interrupt_flag = value & 0x1F,
            0xFF10..=0xFF3F => {
                if !self.pyboy() {
                    self.sync_apu(now);
                    self.apu.write(addr, value);
                }
            }
            0xFF40..=0xFF4B => {
                self.sync_lcd(lcd_now);
                let irq = match addr {
                    0xFF40 => self.ppu.write_lcdc(value, lcd_now),
                    0xFF41 => self.ppu.write_stat(value),
                    0xFF42 => {
                        self.ppu.scy = value;
                        0
                    }
                    0xFF43 => {
                        self.ppu.scx = value;
                        0
                    }
                    0xFF44 => 0, // LY is read-only
                    0xFF45 => self.ppu.write_lyc(value),
                    0xFF46 => {
                        self.start_dma(value, lcd_now);
                        0
                    }
                    0xFF47 => {
                        self.ppu.bgp = value;
                        0
                    }
                    0xFF48 => {
                        self.ppu.obp0 = value;
                        0
                    }
                    0xFF49 => {
                        self.ppu.obp1 = value;
                        0
                    }
                    0xFF4A => {
                        self.ppu.wy = value;
                        0
                    }
                    _ => {
                        self.ppu.wx = value;
                        0
                    }
                };
                self.interrupt_flag |= irq;
            }
            0xFF50 => {
                if value & 1 != 0 && self.cart.boot_rom_mapped() {
                    self.cart.unmap_boot_rom();
                }
            }
            _ => {}
        }
    }

    fn start_dma(&mut self, value: u8, now: u64) {
        self.sync_dma(now);
        let restart = self.dma.start != NEVER && now < self.dma.start;
        self.dma.register = value;
        // Sources FE00 and above read from the echo of work RAM.
        let page = if value >= 0xFE { value - 0x20 } else { value };
        self.dma.source = (page as u16) << 8;
        self.dma.copied = 0;
        self.dma.start = now + if restart { 8 } else { 12 };
    }

    pub fn save(&self, w: &mut StateWriter) {
        w.bytes(&self.wram);
        w.bytes(&self.hram);
        w.bytes(&self.unusable);
        w.u8(self.interrupt_flag);
        w.u8(self.interrupt_enable);
        w.u8(self.dma.register);
        w.u16(self.dma.source);
        w.u64(self.dma.start);
        w.u8(self.dma.copied);
        w.u64(self.apu_synced_to);
        self.cart.save_state(w);
        self.ppu.save(w);
        self.timer.save(w);
        self.serial.save(w);
        self.joypad.save(w);
        self.apu.save(w);
    }

    pub fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        r.bytes_into(&mut self.wram)?;
        r.bytes_into(&mut self.hram)?;
        r.bytes_into(&mut self.unusable)?;
        self.interrupt_flag = r.u8()? & 0x1F;
        self.interrupt_enable = r.u8()?;
        self.dma.register = r.u8()?;
        self.dma.source = r.u16()?;
        self.dma.start = r.u64()?;
        self.dma.copied = r.u8()?;
        if self.dma.copied > 160 {
            return Err(StateError::Invalid("DMA progress"));
        }
        self.apu_synced_to = r.u64()?;
        self.cart.load_state(r)?;
        self.ppu.load(r)?;
        self.timer.load(r)?;
        self.serial.load(r)?;
        self.joypad.load(r)?;
        self.apu.load(r)?;
        self.batch_end = 0;
        Ok(())
    }
}
