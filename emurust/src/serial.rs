//! Serial port without a link partner. Test ROMs print through SB, so every byte written to SB is
//! kept in an output buffer. An internal-clock transfer completes 1024 cycles after the SC write.

use crate::state::{StateError, StateReader, StateWriter};
use crate::timer::NEVER;

/// Output bytes kept for the host; older bytes are dropped past this size.
const OUTPUT_LIMIT: usize = 1 << 16;
const TRANSFER_CYCLES: u64 = 1024;

#[derive(Clone, Debug)]
pub struct Serial {
    pub sb: u8,
    pub sc: u8,
    /// Cycle count at which the running transfer completes.
    transfer_done_at: u64,
    pub output: Vec<u8>,
}

impl Default for Serial {
    fn default() -> Self {
        Serial { sb: 0xFF, sc: 0x7E, transfer_done_at: NEVER, output: Vec::new() }
    }
}

impl Serial {
    /// Completes a transfer due by `now`; returns true when the serial interrupt is requested.
    pub fn sync(&mut self, now: u64) -> bool {
        if now >= self.transfer_done_at {
            self.transfer_done_at = NEVER;
            self.sc &= 0x7F;
            // Nothing is connected: the received byte is all ones.
            self.sb = 0xFF;
            return true;
        }
        false
    }

    pub fn next_event(&self) -> u64 {
        self.transfer_done_at
    }

    pub fn read_sb(&self, sb_reads_ff: bool) -> u8 {
        if sb_reads_ff {
            0xFF
        } else {
            self.sb
        }
    }

    pub fn write_sb(&mut self, value: u8) {
        self.sb = value;
        if self.output.len() >= OUTPUT_LIMIT {
            self.output.drain(..OUTPUT_LIMIT / 2);
        }
        self.output.push(value);
    }

    pub fn read_sc(&self) -> u8 {
        self.sc | 0x7E
    }

    pub fn write_sc(&mut self, value: u8, now: u64) {
        self.sc = value | 0x7E;
        self.transfer_done_at = if value & 0x81 == 0x81 { now + TRANSFER_CYCLES } else { NEVER };
    }

    pub fn save(&self, w: &mut StateWriter) {
        w.u8(self.sb);
        w.u8(self.sc);
        w.u64(self.transfer_done_at);
    }

    pub fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        self.sb = r.u8()?;
        self.sc = r.u8()?;
        self.transfer_done_at = r.u64()?;
        self.output.clear();
        Ok(())
    }
}
