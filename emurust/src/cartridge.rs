//! Cartridge: header parsing, memory bank controllers (none, MBC1, MBC2, MBC3 with RTC, MBC5)
//! and cartridge RAM.
//!
//! Addresses seen here are CPU addresses: 0000-7FFF (ROM and MBC registers) and A000-BFFF (RAM/RTC).

use std::sync::Arc;

use crate::error::RomError;
use crate::state::{StateReader, StateWriter, StateError};

const ROM_BANK: usize = 0x4000;
const RAM_BANK: usize = 0x2000;
/// The header occupies 0x100-0x14F; anything shorter cannot be a cartridge.
const HEADER_END: usize = 0x150;
/// T-cycles per second: the MBC3 clock counts emulated time, never host time, so runs are deterministic.
pub const CYCLES_PER_SECOND: u64 = 4_194_304;

/// Which bank controller the header asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapperKind {
    RomOnly,
    Mbc1,
    Mbc2,
    Mbc3,
    Mbc5,
}

/// The parts of the cartridge header the emulator uses (0x134-0x14F).
#[derive(Clone, Debug)]
pub struct Header {
    pub title: String,
    pub cartridge_type: u8,
    pub mapper: MapperKind,
    pub has_ram: bool,
    pub has_battery: bool,
    pub has_rtc: bool,
    pub rom_size_code: u8,
    pub ram_size_code: u8,
    pub cgb_flag: u8,
    pub header_checksum: u8,
}

impl Header {
    /// Parses and validates the header; errors name the offending byte.
    pub fn parse(rom: &[u8]) -> Result<Header, RomError> {
        if rom.len() < HEADER_END {
            return Err(RomError::TooSmall(rom.len()));
        }
        let computed = rom[0x134..=0x14C].iter().fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1));
        if computed != rom[0x14D] {
            return Err(RomError::HeaderChecksum { stored: rom[0x14D], computed });
        }
        let cartridge_type = rom[0x147];
        // (mapper, ram, battery, rtc) per cartridge type byte (Pan Docs "The Cartridge Header").
        let (mapper, has_ram, has_battery, has_rtc) = match cartridge_type {
            0x00 => (MapperKind::RomOnly, false, false, false),
            0x08 => (MapperKind::RomOnly, true, false, false),
            0x09 => (MapperKind::RomOnly, true, true, false),
            0x01 => (MapperKind::Mbc1, false, false, false),
            0x02 => (MapperKind::Mbc1, true, false, false),
            0x03 => (MapperKind::Mbc1, true, true, false),
            0x05 => (MapperKind::Mbc2, true, false, false),
            0x06 => (MapperKind::Mbc2, true, true, false),
            0x0F => (MapperKind::Mbc3, false, true, true),
            0x10 => (MapperKind::Mbc3, true, true, true),
            0x11 => (MapperKind::Mbc3, false, false, false),
            0x12 => (MapperKind::Mbc3, true, false, false),
            0x13 => (MapperKind::Mbc3, true, true, false),
            0x19 | 0x1C => (MapperKind::Mbc5, false, false, false),
            0x1A | 0x1D => (MapperKind::Mbc5, true, false, false),
            0x1B | 0x1E => (MapperKind::Mbc5, true, true, false),
            other => return Err(RomError::UnsupportedMapper(other)),
        };
        let rom_size_code = rom[0x148];
        if rom_size_code > 8 {
            return Err(RomError::BadRomSizeCode(rom_size_code));
        }
        let ram_size_code = rom[0x149];
        if ram_size_code > 5 {
            return Err(RomError::BadRamSizeCode(ram_size_code));
        }
        let title_bytes = &rom[0x134..0x144];
        let title: String = title_bytes
            .iter()
            .take_while(|&&b| b != 0)
            .map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '?' })
            .collect();
        Ok(Header {
            title,
            cartridge_type,
            mapper,
            has_ram,
            has_battery,
            has_rtc,
            rom_size_code,
            ram_size_code,
            cgb_flag: rom[0x143],
            header_checksum: rom[0x14D],
        })
    }

    /// ROM size the header declares, in bytes (32 KiB << code).
    pub fn declared_rom_size(&self) -> usize {
        0x8000 << self.rom_size_code
    }

    /// Number of 8 KiB RAM banks. Size codes 0 and 1 still get one bank when the type has RAM.
    pub fn ram_banks(&self) -> usize {
        match self.ram_size_code {
            0 | 1 | 2 => 1,
            3 => 4,
            4 => 16,
            5 => 8,
            _ => 1,
        }
    }
}

/// MBC3 real-time clock. Time is emulated T-cycles, so the clock is deterministic.
#[derive(Clone, Debug, Default)]
pub struct Rtc {
    /// Live counters.
    seconds: u8,
    minutes: u8,
    hours: u8,
    days: u16,
    halted: bool,
    day_carry: bool,
    /// Cycles accumulated towards the next second.
    sub_second_cycles: u64,
    /// Cycle count up to which the live counters are current.
    synced_at: u64,
    /// Latched copy read by the CPU: S, M, H, DL, DH.
    latched: [u8; 5],
    /// Last value written to 6000-7FFF; a 0x00 then 0x01 sequence latches.
    latch_armed: bool,
}

impl Rtc {
    fn sync(&mut self, now: u64) {
        if now <= self.synced_at {
            return;
        }
        let elapsed = now - self.synced_at;
        self.synced_at = now;
        if self.halted {
            return;
        }
        let total = self.sub_second_cycles + elapsed;
        self.sub_second_cycles = total % CYCLES_PER_SECOND;
        let mut secs = total / CYCLES_PER_SECOND;
        while secs > 0 {
            // Step one second at a time only through wrap points; large jumps are rare (a few per frame at most).
            secs -= 1;
            self.seconds = (self.seconds + 1) & 0x3F;
            if self.seconds == 60 {
                self.seconds = 0;
                self.minutes = (self.minutes + 1) & 0x3F;
                if self.minutes == 60 {
                    self.minutes = 0;
                    self.hours = (self.hours + 1) & 0x1F;
                    if self.hours == 24 {
                        self.hours = 0;
                        self.days += 1;
                        if self.days == 512 {
                            self.days = 0;
                            self.day_carry = true;
                        }
                    }
                }
            }
        }
    }

    fn day_high(&self) -> u8 {
        ((self.days >> 8) as u8 & 1) | if self.halted { 0x40 } else { 0 } | if self.day_carry { 0x80 } else { 0 }
    }

    fn latch(&mut self, now: u64) {
        self.sync(now);
        self.latched = [self.seconds, self.minutes, self.hours, self.days as u8, self.day_high()];
    }

    fn read(&mut self, register: u8, now: u64) -> u8 {
        match register {
            0x08 => self.latched[0],
            0x09 => self.latched[1],
            0x0A => self.latched[2],
            0x0B => self.latched[3],
            // Day high: day bit 8 as latched, halt and carry live.
            _ => {
                self.sync(now);
                (self.latched[4] & 1) | (self.day_high() & 0xC0)
            }
        }
    }

    fn write(&mut self, register: u8, value: u8, now: u64) {
        self.sync(now);
        match register {
            0x08 => {
                self.seconds = value & 0x3F;
                self.sub_second_cycles = 0;
            }
            0x09 => self.minutes = value & 0x3F,
            0x0A => self.hours = value & 0x1F,
            0x0B => self.days = (self.days & 0x100) | value as u16,
            _ => {
                self.days = (self.days & 0xFF) | ((value as u16 & 1) << 8);
                self.halted = value & 0x40 != 0;
                self.day_carry = value & 0x80 != 0;
            }
        }
    }

    fn save(&self, w: &mut StateWriter) {
        w.u8(self.seconds);
        w.u8(self.minutes);
        w.u8(self.hours);
        w.u16(self.days);
        w.bool(self.halted);
        w.bool(self.day_carry);
        w.u64(self.sub_second_cycles);
        w.u64(self.synced_at);
        w.bytes(&self.latched);
        w.bool(self.latch_armed);
    }

    fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        self.seconds = r.u8()?;
        self.minutes = r.u8()?;
        self.hours = r.u8()?;
        self.days = r.u16()?;
        self.halted = r.bool()?;
        self.day_carry = r.bool()?;
        self.sub_second_cycles = r.u64()?;
        self.synced_at = r.u64()?;
        r.bytes_into(&mut self.latched)?;
        self.latch_armed = r.bool()?;
        Ok(())
    }
}

/// The cartridge: ROM image, RAM, bank registers and (for MBC3) the clock.
#[derive(Clone)]
pub struct Cartridge {
    pub header: Header,
    /// Shared between clones (batches of emulators, save-state rollback).
    rom: Arc<[u8]>,
    rom_bank_count: usize,
    ram: Vec<u8>,
    ram_bank_count: usize,
    /// Copy of the quirk switch from the emulator profile (see `Profile`).
    pyboy_quirks: bool,
    /// MBC1 multicart (1 MiB with four sub-games): the high register shifts by 4 instead of 5.
    mbc1_multicart: bool,
    /// The boot ROM overlays 0000-00FF until the program writes FF50. The image then carries one
    /// extra bank (a copy of bank 0 with the boot ROM on top) that 0000-3FFF maps while it is active,
    /// so ROM reads never test for it.
    boot_mapped: bool,
    has_boot_bank: bool,

    // Bank registers (meaning depends on the mapper).
    ram_enabled: bool,
    rom_bank_low: u16,
    bank_high: u8,
    mbc1_mode: u8,
    /// MBC3: 0x00-0x07 RAM bank, 0x08-0x0C RTC register.
    mbc3_select: u8,
    rtc: Rtc,

    // Resolved offsets, recomputed on every bank write so reads are one add: for the 0000-3FFF
    // and 4000-7FFF windows, the image offset of the bank seen there minus the window's start
    // (wrapping), so image index = offset + address.
    bank_offsets: [usize; 2],
    ram_offset: usize,
}

impl Cartridge {
    pub fn new(rom: &[u8], boot_rom: Option<&[u8; 256]>, pyboy_quirks: bool) -> Result<Cartridge, RomError> {
        let header = Header::parse(rom)?;
        if rom.len() < 0x8000 {
            return Err(RomError::TooSmall(rom.len()));
        }
        if rom.len() < header.declared_rom_size() {
            return Err(RomError::Truncated { declared: header.declared_rom_size(), actual: rom.len() });
        }
        // Pad to a whole number of 16 KiB banks with 0xFF (open bus).
        let rom_bank_count = rom.len().div_ceil(ROM_BANK);
        let mut image = rom.to_vec();
        image.resize(rom_bank_count * ROM_BANK, 0xFF);
        if let Some(boot) = boot_rom {
            image.extend_from_within(0..ROM_BANK);
            let overlay = rom_bank_count * ROM_BANK;
            image[overlay..overlay + 256].copy_from_slice(boot);
        }

        let ram_bank_count = if header.mapper == MapperKind::Mbc2 { 1 } else { header.ram_banks() };
        let ram = vec![0u8; ram_bank_count * RAM_BANK];

        let mbc1_multicart = header.mapper == MapperKind::Mbc1 && image.len() == 0x10_0000 && {
            let logo = &image[0x104..0x134];
            (1..4).all(|k| &image[k * 0x40000 + 0x104..k * 0x40000 + 0x134] == logo)
        };

        let mut cart = Cartridge {
            header,
            rom: image.into(),
            rom_bank_count,
            ram,
            ram_bank_count,
            pyboy_quirks,
            mbc1_multicart,
            boot_mapped: boot_rom.is_some(),
            has_boot_bank: boot_rom.is_some(),
            ram_enabled: false,
            rom_bank_low: 1,
            bank_high: 0,
            mbc1_mode: 0,
            mbc3_select: 0,
            rtc: Rtc::default(),
            bank_offsets: [0, 0],
            ram_offset: 0,
        };
        cart.update_banks();
        Ok(cart)
    }

    fn update_banks(&mut self) {
        let count = self.rom_bank_count;
        let (rom0, romx, ram_bank) = match self.header.mapper {
            MapperKind::RomOnly => (0, (self.rom_bank_low as usize) % count, 0),
            MapperKind::Mbc1 => {
                let shift = if self.mbc1_multicart { 4 } else { 5 };
                let low_mask = if self.mbc1_multicart { 0x0F } else { 0x1F };
                let high = (self.bank_high as usize) << shift;
                let romx = (high | (self.rom_bank_low as usize & low_mask)) % count;
                if self.mbc1_mode == 1 {
                    (high % count, romx, self.bank_high as usize)
                } else {
                    (0, romx, 0)
                }
            }
            MapperKind::Mbc2 => (0, (self.rom_bank_low as usize) % count, 0),
            MapperKind::Mbc3 => (0, (self.rom_bank_low as usize) % count, (self.mbc3_select & 0x07) as usize),
            MapperKind::Mbc5 => (0, (self.rom_bank_low as usize) % count, self.bank_high as usize),
        };
        let rom0 = if self.boot_mapped && rom0 == 0 { self.rom_bank_count } else { rom0 };
        self.bank_offsets = [rom0 * ROM_BANK, (romx * ROM_BANK).wrapping_sub(0x4000)];
        self.ram_offset = (ram_bank % self.ram_bank_count) * RAM_BANK;
    }

    #[inline(always)]
    pub fn read_rom(&self, addr: u16) -> u8 {
        // Callers pass 0000-7FFF; the mask keeps any other address in the ROM windows (and costs
        // nothing where the compiler already knows the range).
        let addr = addr as usize & 0x7FFF;
        let index = self.bank_offsets[addr >> 14].wrapping_add(addr);
        debug_assert!(index < self.rom.len());
        // SAFETY: `update_banks` only produces offsets of whole banks inside the image (bank numbers
        // are reduced modulo the bank count, the boot bank is the last one), biased by the window
        // start that `addr` adds back, so index < rom.len().
        unsafe { *self.rom.get_unchecked(index) }
    }

    /// The cartridge ROM (padded to whole banks, without the boot overlay).
    pub fn rom(&self) -> &[u8] {
        &self.rom[..self.rom_bank_count * ROM_BANK]
    }

    /// Whether the boot ROM still overlays 0000-00FF.
    pub fn boot_rom_mapped(&self) -> bool {
        self.boot_mapped
    }

    /// The FF50 write: the boot ROM disappears for good.
    pub fn unmap_boot_rom(&mut self) {
        self.boot_mapped = false;
        self.update_banks();
    }

    /// Write to 0000-7FFF: bank controller registers.
    pub fn write_rom(&mut self, addr: u16, value: u8, now: u64) {
        match self.header.mapper {
            MapperKind::RomOnly => {
                // PyBoy maps bank ((v==0 ? 1 : v) & 1) on 2000-3FFF writes even without an MBC.
                if self.pyboy_quirks && (0x2000..0x4000).contains(&addr) {
                    let v = if value == 0 { 1 } else { value };
                    self.rom_bank_low = (v & 1) as u16;
                }
            }
            MapperKind::Mbc1 => match addr {
                0x0000..=0x1FFF => self.ram_enabled = value & 0x0F == 0x0A,
                0x2000..=0x3FFF => {
                    let v = value & 0x1F;
                    self.rom_bank_low = if v == 0 { 1 } else { v as u16 };
                }
                0x4000..=0x5FFF => self.bank_high = value & 0x03,
                _ => self.mbc1_mode = value & 1,
            },
            MapperKind::Mbc2 => {
                if addr < 0x4000 {
                    // Address bit 8 chooses between RAM enable (0) and ROM bank (1).
                    if addr & 0x100 == 0 {
                        self.ram_enabled = value & 0x0F == 0x0A;
                    } else {
                        let v = value & 0x0F;
                        self.rom_bank_low = if v == 0 { 1 } else { v as u16 };
                    }
                }
            }
            MapperKind::Mbc3 => match addr {
                0x0000..=0x1FFF => self.ram_enabled = value & 0x0F == 0x0A,
                0x2000..=0x3FFF => {
                    let v = value & 0x7F;
                    self.rom_bank_low = if v == 0 { 1 } else { v as u16 };
                }
                0x4000..=0x5FFF => self.mbc3_select = value,
                _ => {
                    if self.header.has_rtc {
                        if value == 0x01 && self.rtc.latch_armed {
                            self.rtc.latch(now);
                        }
                        self.rtc.latch_armed = value == 0x00;
                    }
                }
            },
            MapperKind::Mbc5 => match addr {
                0x0000..=0x1FFF => self.ram_enabled = value == 0x0A,
                0x2000..=0x2FFF => self.rom_bank_low = (self.rom_bank_low & 0x100) | value as u16,
                0x3000..=0x3FFF => self.rom_bank_low = (self.rom_bank_low & 0xFF) | ((value as u16 & 1) << 8),
                0x4000..=0x5FFF => {
                    // Bit 3 drives the rumble motor on rumble carts; it is not a bank bit there.
                    let rumble = matches!(self.header.cartridge_type, 0x1C..=0x1E);
                    self.bank_high = if rumble { value & 0x07 } else { value & 0x0F };
                }
                _ => {}
            },
        }
        self.update_banks();
    }

    /// Read of A000-BFFF.
    pub fn read_ram(&mut self, addr: u16, now: u64) -> u8 {
        let offset = (addr as usize) & 0x1FFF;
        match self.header.mapper {
            MapperKind::RomOnly => {
                if self.header.has_ram {
                    self.ram[offset]
                } else {
                    0xFF
                }
            }
            MapperKind::Mbc2 => {
                if self.ram_enabled {
                    // 512 half-bytes, repeated through A000-BFFF; the upper nibble is open bus.
                    0xF0 | (self.ram[offset & 0x1FF] & 0x0F)
                } else {
                    0xFF
                }
            }
            MapperKind::Mbc3 if self.mbc3_select >= 0x08 => {
                if self.ram_enabled && self.header.has_rtc && self.mbc3_select <= 0x0C {
                    self.rtc.read(self.mbc3_select, now)
                } else {
                    0xFF
                }
            }
            _ => {
                if self.ram_enabled && (self.header.has_ram || self.pyboy_quirks) {
                    self.ram[self.ram_offset + offset]
                } else {
                    0xFF
                }
            }
        }
    }

    /// Side-effect-free view of A000-BFFF as currently mapped (RTC registers show their latched values).
    pub fn peek_ram(&self, addr: u16) -> u8 {
        let offset = (addr as usize) & 0x1FFF;
        match self.header.mapper {
            MapperKind::RomOnly => {
                if self.header.has_ram {
                    self.ram[offset]
                } else {
                    0xFF
                }
            }
            MapperKind::Mbc2 => {
                if self.ram_enabled {
                    0xF0 | (self.ram[offset & 0x1FF] & 0x0F)
                } else {
                    0xFF
                }
            }
            MapperKind::Mbc3 if self.mbc3_select >= 0x08 => match self.mbc3_select {
                0x08..=0x0C if self.ram_enabled && self.header.has_rtc => self.rtc.latched[(self.mbc3_select - 8) as usize],
                _ => 0xFF,
            },
            _ => {
                if self.ram_enabled && (self.header.has_ram || self.pyboy_quirks) {
                    self.ram[self.ram_offset + offset]
                } else {
                    0xFF
                }
            }
        }
    }

    /// Write of A000-BFFF.
    pub fn write_ram(&mut self, addr: u16, value: u8, now: u64) {
        let offset = (addr as usize) & 0x1FFF;
        match self.header.mapper {
            MapperKind::RomOnly => {
                if self.header.has_ram {
                    self.ram[offset] = value;
                }
            }
            MapperKind::Mbc2 => {
                if self.ram_enabled {
                    self.ram[offset & 0x1FF] = value & 0x0F;
                }
            }
            MapperKind::Mbc3 if self.mbc3_select >= 0x08 => {
                if self.ram_enabled && self.header.has_rtc && self.mbc3_select <= 0x0C {
                    self.rtc.write(self.mbc3_select, value, now);
                }
            }
            _ => {
                if self.ram_enabled && (self.header.has_ram || self.pyboy_quirks) {
                    self.ram[self.ram_offset + offset] = value;
                }
            }
        }
    }

    /// Cartridge RAM as stored (battery save contents), all banks.
    pub fn ram(&self) -> &[u8] {
        &self.ram
    }

    /// Reads a RAM byte by bank and offset, ignoring the enable register (for tests and tools).
    pub fn ram_bank_byte(&self, bank: usize, offset: usize) -> Option<u8> {
        self.ram.get(bank * RAM_BANK + offset).copied()
    }

    /// Replaces battery RAM with `data` (must have the same length).
    pub fn load_ram(&mut self, data: &[u8]) -> Result<(), String> {
        if data.len() != self.ram.len() {
            return Err(format!("cartridge RAM is {} bytes, got {}", self.ram.len(), data.len()));
        }
        self.ram.copy_from_slice(data);
        Ok(())
    }

    pub fn save_state(&self, w: &mut StateWriter) {
        w.bytes(&self.ram);
        w.bool(self.ram_enabled);
        w.u16(self.rom_bank_low);
        w.u8(self.bank_high);
        w.u8(self.mbc1_mode);
        w.u8(self.mbc3_select);
        w.bool(self.boot_mapped);
        self.rtc.save(w);
    }

    pub fn load_state(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        r.bytes_into(&mut self.ram)?;
        self.ram_enabled = r.bool()?;
        self.rom_bank_low = r.u16()?;
        self.bank_high = r.u8()?;
        self.mbc1_mode = r.u8()?;
        self.mbc3_select = r.u8()?;
        self.boot_mapped = r.bool()?;
        if self.boot_mapped && !self.has_boot_bank {
            return Err(StateError::Invalid("boot ROM mapped but none loaded"));
        }
        self.rtc.load(r)?;
        self.update_banks();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal valid ROM image of `banks` 16 KiB banks, bank n filled with n.
    pub fn test_rom(cart_type: u8, rom_code: u8, ram_code: u8) -> Vec<u8> {
        let banks = 2usize << rom_code;
        let mut rom = vec![0u8; banks * ROM_BANK];
        for (n, chunk) in rom.chunks_mut(ROM_BANK).enumerate() {
            chunk.fill(n as u8);
        }
        rom[0x134..0x144].fill(0);
        rom[0x134..0x138].copy_from_slice(b"TEST");
        rom[0x143] = 0;
        rom[0x147] = cart_type;
        rom[0x148] = rom_code;
        rom[0x149] = ram_code;
        rom[0x14A..0x14D].fill(0);
        let sum = rom[0x134..=0x14C].iter().fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1));
        rom[0x14D] = sum;
        rom
    }

    #[test]
    fn rejects_bad_roms() {
        assert!(matches!(Cartridge::new(&[0u8; 0x100], None, false), Err(RomError::TooSmall(_))));
        let mut rom = test_rom(0x00, 0, 0);
        rom[0x14D] ^= 1;
        assert!(matches!(Cartridge::new(&rom, None, false), Err(RomError::HeaderChecksum { .. })));
        let rom = test_rom(0x22, 0, 0);
        assert!(matches!(Cartridge::new(&rom, None, false), Err(RomError::UnsupportedMapper(0x22))));
        let rom = test_rom(0x01, 2, 0);
        assert!(matches!(Cartridge::new(&rom[..0x8000], None, false), Err(RomError::Truncated { .. })));
    }

    #[test]
    fn mbc1_banking() {
        let rom = test_rom(0x03, 6, 3); // 128 banks, 4 RAM banks
        let mut c = Cartridge::new(&rom, None, false).unwrap();
        assert_eq!(c.read_rom(0x4000), 1);
        c.write_rom(0x2000, 0, 0);
        assert_eq!(c.read_rom(0x4000), 1, "bank 0 selects 1");
        c.write_rom(0x2000, 0x05, 0);
        c.write_rom(0x4000, 0x02, 0);
        assert_eq!(c.read_rom(0x4000), 0x45);
        c.write_rom(0x2000, 0x00, 0);
        assert_eq!(c.read_rom(0x4000), 0x41, "zero check is on the 5-bit register only");
        assert_eq!(c.read_rom(0x0000), 0, "mode 0 keeps bank 0 at 0000");
        c.write_rom(0x6000, 1, 0);
        assert_eq!(c.read_rom(0x0000), 0x40, "mode 1 maps bank hi<<5 at 0000");
        // RAM: disabled reads FF; enabled and banked in mode 1.
        assert_eq!(c.read_ram(0xA000, 0), 0xFF);
        c.write_rom(0x0000, 0x0A, 0);
        c.write_ram(0xA000, 0x77, 0);
        c.write_rom(0x4000, 0x01, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0);
        c.write_rom(0x4000, 0x02, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0x77);
        assert_eq!(c.ram_bank_byte(2, 0), Some(0x77));
    }

    #[test]
    fn mbc2_ram_is_nibbles() {
        let rom = test_rom(0x06, 2, 0);
        let mut c = Cartridge::new(&rom, None, false).unwrap();
        c.write_rom(0x0000, 0x0A, 0);
        c.write_ram(0xA000, 0xAB, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0xFB);
        assert_eq!(c.read_ram(0xA200, 0), 0xFB, "512 bytes repeat");
        c.write_rom(0x2100, 0x03, 0);
        assert_eq!(c.read_rom(0x4000), 3);
    }

    #[test]
    fn mbc3_rtc_counts_emulated_time() {
        let rom = test_rom(0x10, 2, 3);
        let mut c = Cartridge::new(&rom, None, false).unwrap();
        c.write_rom(0x0000, 0x0A, 0);
        c.write_rom(0x4000, 0x08, 0);
        let t = 61 * CYCLES_PER_SECOND + 5;
        c.write_rom(0x6000, 0x00, t);
        c.write_rom(0x6000, 0x01, t);
        assert_eq!(c.read_ram(0xA000, t), 1);
        c.write_rom(0x4000, 0x09, t);
        assert_eq!(c.read_ram(0xA000, t), 1);
        // Halt stops the clock.
        c.write_rom(0x4000, 0x0C, t);
        c.write_ram(0xA000, 0x40, t);
        c.write_rom(0x6000, 0x00, t);
        c.write_rom(0x6000, 0x01, 10 * t);
        c.write_rom(0x4000, 0x09, t);
        assert_eq!(c.read_ram(0xA000, 10 * t), 1);
    }

    #[test]
    fn mbc5_nine_bit_bank_and_zero() {
        let rom = test_rom(0x1B, 8, 4); // 512 banks
        let mut c = Cartridge::new(&rom, None, false).unwrap();
        c.write_rom(0x2000, 0x00, 0);
        assert_eq!(c.read_rom(0x4000), 0, "bank 0 is valid at 4000");
        c.write_rom(0x2000, 0x05, 0);
        c.write_rom(0x3000, 0x01, 0);
        assert_eq!(c.read_rom(0x4000), (0x105 & 0xFF) as u8);
        c.write_rom(0x0000, 0x0B, 0);
        c.write_ram(0xA000, 1, 0);
        assert_eq!(c.read_ram(0xA000, 0), 0xFF, "MBC5 enables only on exactly 0x0A");
    }
}
