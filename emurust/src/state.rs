//! Save states: a flat little-endian byte stream with a magic header and version.
//! Every component writes its fields in a fixed order; loading reads them back in the same order.

use std::fmt;

pub const STATE_MAGIC: &[u8; 8] = b"EMURUSTS";
pub const STATE_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    /// The stream ended early.
    Truncated,
    /// Not an emurust state, or written by another format version.
    BadHeader,
    /// The state was saved from a different ROM (title/checksum/size differ).
    WrongRom,
    /// Bytes left over after a complete state.
    TrailingBytes,
    /// A field holds a value the emulator can never produce.
    Invalid(&'static str),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Truncated => write!(f, "save state is truncated"),
            StateError::BadHeader => write!(f, "not an emurust save state (bad magic or version)"),
            StateError::WrongRom => write!(f, "save state belongs to a different ROM"),
            StateError::TrailingBytes => write!(f, "save state has trailing bytes"),
            StateError::Invalid(what) => write!(f, "save state has an invalid field: {what}"),
        }
    }
}

impl std::error::Error for StateError {}

#[derive(Default)]
pub struct StateWriter {
    pub buf: Vec<u8>,
}

impl StateWriter {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn bool(&mut self, v: bool) {
        self.buf.push(v as u8);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, v: &[u8]) {
        self.buf.extend_from_slice(v);
    }
}

pub struct StateReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> StateReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        StateReader { data, pos: 0 }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], StateError> {
        if self.data.len() - self.pos < n {
            return Err(StateError::Truncated);
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8, StateError> {
        Ok(self.take(1)?[0])
    }
    pub fn bool(&mut self) -> Result<bool, StateError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(StateError::Invalid("boolean")),
        }
    }
    pub fn u16(&mut self) -> Result<u16, StateError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    pub fn u32(&mut self) -> Result<u32, StateError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub fn u64(&mut self) -> Result<u64, StateError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub fn i64(&mut self) -> Result<i64, StateError> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub fn bytes_into(&mut self, out: &mut [u8]) -> Result<(), StateError> {
        let n = out.len();
        out.copy_from_slice(self.take(n)?);
        Ok(())
    }
    pub fn finish(&self) -> Result<(), StateError> {
        if self.pos == self.data.len() {
            Ok(())
        } else {
            Err(StateError::TrailingBytes)
        }
    }
}
