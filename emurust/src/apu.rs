//! Audio registers (FF10-FF3F) as the CPU sees them. No sound is produced; what is modelled is what a
//! program can observe: read masks, power control through NR52, channel-enable flags driven by triggers,
//! DAC state, length counters and the channel 1 sweep overflow, clocked by the frame sequencer (512 Hz,
//! falling edge of divider bit 12).
//!
//! In the PyBoy-compatible profile the whole block reads 0x00 and ignores writes, as PyBoy does with
//! `sound_emulated=False`; see `Profile`.

use crate::state::{StateError, StateReader, StateWriter};

/// Bits that always read 1, per register FF10..FF2F (Pan Docs "Sound Controller").
const READ_MASK: [u8; 0x20] = [
    0x80, 0x3F, 0x00, 0xFF, 0xBF, // NR10-NR14
    0xFF, 0x3F, 0x00, 0xFF, 0xBF, // ---, NR21-NR24
    0x7F, 0xFF, 0x9F, 0xFF, 0xBF, // NR30-NR34
    0xFF, 0xFF, 0x00, 0x00, 0xBF, // ---, NR41-NR44
    0x00, 0x00, 0x70, // NR50, NR51, NR52
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // FF27-FF2F
];

/// Divider bit whose falling edge clocks the frame sequencer.
pub const FRAME_SEQUENCER_BIT: u32 = 12;

#[derive(Clone, Debug)]
pub struct Apu {
    /// Raw register values FF10..FF2F as written.
    regs: [u8; 0x20],
    pub wave_ram: [u8; 16],
    powered: bool,
    /// Channel enable flags (NR52 bits 0-3).
    enabled: [bool; 4],
    length: [u16; 4],
    /// Frame sequencer step 0..7.
    step: u8,
    sweep_timer: u8,
    sweep_enabled: bool,
    sweep_shadow: u16,
}

impl Default for Apu {
    fn default() -> Self {
        Apu {
            regs: [0; 0x20],
            wave_ram: [0; 16],
            powered: false,
            enabled: [false; 4],
            length: [0; 4],
            step: 0,
            sweep_timer: 0,
            sweep_enabled: false,
            sweep_shadow: 0,
        }
    }
}

/// Register offsets relative to FF10 of each channel's NRx1, NRx2 and NRx4.
const NRX1: [usize; 4] = [0x01, 0x06, 0x0B, 0x10];
const NRX2: [usize; 4] = [0x02, 0x07, 0x0C, 0x11];
const NRX4: [usize; 4] = [0x04, 0x09, 0x0E, 0x13];

impl Apu {
    fn max_length(ch: usize) -> u16 {
        if ch == 2 {
            256
        } else {
            64
        }
    }

    fn dac_on(&self, ch: usize) -> bool {
        if ch == 2 {
            self.regs[0x0A] & 0x80 != 0
        } else {
            self.regs[NRX2[ch]] & 0xF8 != 0
        }
    }

    fn sweep_next(&mut self) -> u16 {
        let shift = self.regs[0] & 7;
        let delta = self.sweep_shadow >> shift;
        let next = if self.regs[0] & 0x08 != 0 { self.sweep_shadow.wrapping_sub(delta) } else { self.sweep_shadow + delta };
        if next > 2047 {
            self.enabled[0] = false;
        }
        next
    }

    /// One frame-sequencer step: length at even steps, sweep at steps 2 and 6.
    pub fn frame_sequencer_step(&mut self) {
        if !self.powered {
            return;
        }
        if self.step % 2 == 0 {
            for ch in 0..4 {
                if self.regs[NRX4[ch]] & 0x40 != 0 && self.length[ch] > 0 {
                    self.length[ch] -= 1;
                    if self.length[ch] == 0 {
                        self.enabled[ch] = false;
                    }
                }
            }
        }
        if self.step == 2 || self.step == 6 {
            let period = (self.regs[0] >> 4) & 7;
            if self.sweep_timer > 0 {
                self.sweep_timer -= 1;
            }
            if self.sweep_timer == 0 {
                self.sweep_timer = if period == 0 { 8 } else { period };
                if self.sweep_enabled && period != 0 {
                    let next = self.sweep_next();
                    if next <= 2047 && self.regs[0] & 7 != 0 {
                        self.sweep_shadow = next;
                        self.regs[0x03] = next as u8;
                        self.regs[0x04] = (self.regs[0x04] & 0xF8) | ((next >> 8) as u8 & 7);
                        self.sweep_next();
                    }
                }
            }
        }
        self.step = (self.step + 1) & 7;
    }

    pub fn read(&self, addr: u16) -> u8 {
        match addr {
            0xFF30..=0xFF3F => self.wave_ram[(addr - 0xFF30) as usize],
            0xFF26 => {
                let mut v = 0x70 | if self.powered { 0x80 } else { 0 };
                for ch in 0..4 {
                    if self.enabled[ch] {
                        v |= 1 << ch;
                    }
                }
                v
            }
            0xFF10..=0xFF2F => {
                let i = (addr - 0xFF10) as usize;
                self.regs[i] | READ_MASK[i]
            }
            _ => 0xFF,
        }
    }

    pub fn write(&mut self, addr: u16, value: u8) {
        if (0xFF30..=0xFF3F).contains(&addr) {
            self.wave_ram[(addr - 0xFF30) as usize] = value;
            return;
        }
        if addr == 0xFF26 {
            let on = value & 0x80 != 0;
            if self.powered && !on {
                // Power off clears every register and stops all channels.
                self.regs = [0; 0x20];
                self.enabled = [false; 4];
                self.sweep_enabled = false;
            }
            if !self.powered && on {
                self.step = 0;
            }
            self.powered = on;
            return;
        }
        let i = (addr - 0xFF10) as usize;
        if !self.powered {
            // With power off only the length registers stay writable (DMG).
            if let Some(ch) = NRX1.iter().position(|&r| r == i) {
                self.length[ch] = if ch == 2 { 256 - value as u16 } else { 64 - (value & 0x3F) as u16 };
            }
            return;
        }
        self.regs[i] = value;
        for ch in 0..4 {
            if i == NRX1[ch] {
                self.length[ch] = if ch == 2 { 256 - value as u16 } else { 64 - (value & 0x3F) as u16 };
            }
            if (ch != 2 && i == NRX2[ch]) || (ch == 2 && i == 0x0A) {
                if !self.dac_on(ch) {
                    self.enabled[ch] = false;
                }
            }
            if i == NRX4[ch] && value & 0x80 != 0 {
                if self.length[ch] == 0 {
                    self.length[ch] = Self::max_length(ch);
                }
                self.enabled[ch] = self.dac_on(ch);
                if ch == 0 {
                    self.sweep_shadow = ((self.regs[0x04] as u16 & 7) << 8) | self.regs[0x03] as u16;
                    let period = (self.regs[0] >> 4) & 7;
                    self.sweep_timer = if period == 0 { 8 } else { period };
                    self.sweep_enabled = period != 0 || self.regs[0] & 7 != 0;
                    if self.regs[0] & 7 != 0 {
                        self.sweep_next();
                    }
                }
            }
        }
    }

    pub fn save(&self, w: &mut StateWriter) {
        w.bytes(&self.regs);
        w.bytes(&self.wave_ram);
        w.bool(self.powered);
        for ch in 0..4 {
            w.bool(self.enabled[ch]);
            w.u16(self.length[ch]);
        }
        w.u8(self.step);
        w.u8(self.sweep_timer);
        w.bool(self.sweep_enabled);
        w.u16(self.sweep_shadow);
    }

    pub fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        r.bytes_into(&mut self.regs)?;
        r.bytes_into(&mut self.wave_ram)?;
        self.powered = r.bool()?;
        for ch in 0..4 {
            self.enabled[ch] = r.bool()?;
            self.length[ch] = r.u16()?;
        }
        self.step = r.u8()? & 7;
        self.sweep_timer = r.u8()?;
        self.sweep_enabled = r.bool()?;
        self.sweep_shadow = r.u16()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_counter_disables_channel() {
        let mut a = Apu::default();
        a.write(0xFF26, 0x80);
        a.write(0xFF17, 0xF0); // ch2 DAC on
        a.write(0xFF16, 0x3E); // length 2
        a.write(0xFF19, 0xC0); // trigger with length enable
        assert_eq!(a.read(0xFF26) & 0x02, 0x02);
        a.frame_sequencer_step(); // step 0: length 1
        assert_eq!(a.read(0xFF26) & 0x02, 0x02);
        a.frame_sequencer_step(); // step 1: nothing
        a.frame_sequencer_step(); // step 2: length 0 -> off
        assert_eq!(a.read(0xFF26) & 0x02, 0);
    }

    #[test]
    fn power_off_clears_and_blocks_writes() {
        let mut a = Apu::default();
        a.write(0xFF26, 0x80);
        a.write(0xFF24, 0x77);
        assert_eq!(a.read(0xFF24), 0x77);
        a.write(0xFF26, 0x00);
        assert_eq!(a.read(0xFF24), 0x00);
        a.write(0xFF24, 0x77);
        assert_eq!(a.read(0xFF24), 0x00);
        assert_eq!(a.read(0xFF26), 0x70);
        assert_eq!(a.read(0xFF11), 0x3F);
    }
}
