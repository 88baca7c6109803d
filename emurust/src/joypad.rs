//! Joypad register P1 (FF00).
//!
//! Button bitmask used everywhere in emurust (1 = pressed):
//! bit 0 A, 1 B, 2 Select, 3 Start, 4 Right, 5 Left, 6 Up, 7 Down.
//! The low nibble is the "action buttons" group and the high nibble the "directions" group, in the
//! same bit order as the P1 input lines.

use crate::state::{StateError, StateReader, StateWriter};

pub const BUTTON_A: u8 = 1 << 0;
pub const BUTTON_B: u8 = 1 << 1;
pub const BUTTON_SELECT: u8 = 1 << 2;
pub const BUTTON_START: u8 = 1 << 3;
pub const BUTTON_RIGHT: u8 = 1 << 4;
pub const BUTTON_LEFT: u8 = 1 << 5;
pub const BUTTON_UP: u8 = 1 << 6;
pub const BUTTON_DOWN: u8 = 1 << 7;

/// Button names in bit order, as accepted by the Python API.
pub const BUTTON_NAMES: [&str; 8] = ["a", "b", "select", "start", "right", "left", "up", "down"];

#[derive(Clone, Debug, Default)]
pub struct Joypad {
    /// Buttons currently held (bitmask above).
    pub pressed: u8,
    /// Last value written to P1 (select lines in bits 4-5).
    select: u8,
    /// PyBoy computes P1 only when it is written; this is that latched value.
    latched: u8,
    written: bool,
}

impl Joypad {
    /// Input lines of the selected groups, active low (bits 0-3).
    fn lines(&self, select: u8) -> u8 {
        let mut low = 0x0F;
        if select & 0x10 == 0 {
            low &= !(self.pressed >> 4) & 0x0F;
        }
        if select & 0x20 == 0 {
            low &= !self.pressed & 0x0F;
        }
        low
    }

    /// Sets the held buttons; returns true if any button went from released to pressed.
    pub fn set_pressed(&mut self, buttons: u8) -> bool {
        let newly = buttons & !self.pressed;
        self.pressed = buttons;
        newly != 0
    }

    pub fn write(&mut self, value: u8, latched_model: bool) {
        self.select = value & 0x30;
        self.written = true;
        if latched_model {
            self.latched = match self.select {
                0x20 => 0xC0 | self.lines(0x20),
                0x10 => 0xC0 | self.lines(0x10),
                _ => 0xCF,
            };
        }
    }

    pub fn read(&self, latched_model: bool) -> u8 {
        if latched_model {
            if self.written {
                self.latched
            } else {
                0x00
            }
        } else {
            0xC0 | self.select | self.lines(self.select)
        }
    }

    pub fn save(&self, w: &mut StateWriter) {
        w.u8(self.pressed);
        w.u8(self.select);
        w.u8(self.latched);
        w.bool(self.written);
    }

    pub fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        self.pressed = r.u8()?;
        self.select = r.u8()?;
        self.latched = r.u8()?;
        self.written = r.bool()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardware_reads_are_live() {
        let mut j = Joypad::default();
        j.write(0x20, false); // directions
        j.set_pressed(BUTTON_DOWN | BUTTON_A);
        assert_eq!(j.read(false), 0xE7);
        j.write(0x10, false);
        assert_eq!(j.read(false), 0xDE);
    }

    #[test]
    fn pyboy_reads_are_latched_on_write() {
        let mut j = Joypad::default();
        assert_eq!(j.read(true), 0x00);
        j.set_pressed(BUTTON_DOWN);
        j.write(0x20, true);
        assert_eq!(j.read(true), 0xC7);
        j.set_pressed(0);
        assert_eq!(j.read(true), 0xC7, "no update until the next write");
        j.write(0x30, true);
        assert_eq!(j.read(true), 0xCF);
        j.set_pressed(BUTTON_A);
        j.write(0x00, true);
        assert_eq!(j.read(true), 0xCF);
    }
}
