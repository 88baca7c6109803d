//! LCD controller: the mode/LY state machine (driven by absolute cycle deadlines, one transition per
//! call, like PyBoy's LCD) and a line renderer that draws each line in one go at the start of its
//! HBlank (mode 0) from the registers, VRAM and OAM as they are at that moment.
//!
//! Frame layout with the LCD on (times from the frame's start, 456 cycles per line):
//!   line L < 144:  mode 2 at 0, mode 3 at 80, mode 0 at 80 + mode-3 length, LY+1 at 452;
//!   line 144:      mode 1 and the VBlank interrupt;
//!   lines 145-153: LY = L at the line start (LY reads 153 for the whole of line 153);
//!   at 70224:      frame end: LY = 0, mode 2.
//! The first frame after the LCD is switched on starts line 0 in mode 0 for 76 cycles (no mode 2),
//! uses a fixed 172-cycle mode 3, runs every later line 4 cycles early, and is blanked at VBlank.

use crate::state::{StateError, StateReader, StateWriter};

pub const SCREEN_WIDTH: usize = 160;
pub const SCREEN_HEIGHT: usize = 144;
pub const SCREEN_PIXELS: usize = SCREEN_WIDTH * SCREEN_HEIGHT;
pub const CYCLES_PER_LINE: u64 = 456;
pub const CYCLES_PER_FRAME: u64 = 70224;

/// Interrupt request bits returned by `tick`.
pub const IRQ_VBLANK: u8 = 0x01;
pub const IRQ_STAT: u8 = 0x02;

const MODE_HBLANK: u8 = 0;
const MODE_VBLANK: u8 = 1;
const MODE_OAM: u8 = 2;
const MODE_TRANSFER: u8 = 3;

/// SCX & 7 lengthens mode 3 by this many cycles (PyBoy rounds the fine scroll up to 4-cycle steps).
const SCX_PENALTY: [u64; 8] = [0, 4, 4, 4, 4, 8, 8, 8];

/// For a tile row's two bit planes (`lo`, `hi`), the 8 colour indices, leftmost pixel in the lowest
/// byte. Built from a table that spreads each plane's bits one per byte.
#[inline(always)]
fn tile_row_indices(lo: u8, hi: u8) -> u64 {
    SPREAD[lo as usize] | (SPREAD[hi as usize] << 1)
}

/// Maps 8 colour indices (one per byte, 0-3) through a palette register, 8 pixels at a time.
#[inline(always)]
fn apply_palette(indices: u64, palette: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let lo = indices & ONES;
    let hi = (indices >> 1) & ONES;
    let is3 = lo & hi;
    let is2 = hi & !lo;
    let is1 = lo & !hi;
    let is0 = ONES & !(lo | hi);
    // Each mask byte is 0 or 1, so multiplying by a shade (0-3) cannot carry into the next byte.
    is0 * (palette & 3) as u64 + is1 * ((palette >> 2) & 3) as u64 + is2 * ((palette >> 4) & 3) as u64 + is3 * (palette >> 6) as u64
}

/// SPREAD[b]: bit 7-i of b moved to bit 0 of byte i.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        let mut v = 0u64;
        while i < 8 {
            if b & (0x80 >> i) != 0 {
                v |= 1 << (8 * i);
            }
            i += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// The next transition of the LCD state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Event {
    /// Line `ly` enters mode 3.
    Transfer = 0,
    /// Line `ly` enters mode 0; the line is drawn.
    HBlank = 1,
    /// 4 cycles before the end of line `ly` (< 144): LY advances.
    LyAdvance = 2,
    /// Line `ly` (1..=143) enters mode 2.
    OamScan = 3,
    /// Line 144 starts: mode 1, VBlank interrupt.
    VBlankStart = 4,
    /// Lines 145..=153 start: LY advances.
    VBlankLine = 5,
    /// End of line 153: LY = 0, mode 2, the frame is complete.
    FrameEnd = 6,
    /// LCD off: another 70224-cycle frame has elapsed.
    OffFrameEnd = 7,
    /// The LCD was just switched on; its clock starts at the next catch-up (PyBoy starts it at the
    /// end of the writing instruction, not at the write).
    SwitchOn = 8,
}

impl Event {
    fn from_u8(v: u8) -> Option<Event> {
        Some(match v {
            0 => Event::Transfer,
            1 => Event::HBlank,
            2 => Event::LyAdvance,
            3 => Event::OamScan,
            4 => Event::VBlankStart,
            5 => Event::VBlankLine,
            6 => Event::FrameEnd,
            7 => Event::OffFrameEnd,
            8 => Event::SwitchOn,
            _ => return None,
        })
    }
}

#[derive(Clone)]
pub struct Ppu {
    pub vram: [u8; 0x2000],
    pub oam: [u8; 0xA0],
    pub lcdc: u8,
    /// STAT bits 3-6 (interrupt source enables).
    pub stat_enables: u8,
    pub scy: u8,
    pub scx: u8,
    pub ly: u8,
    pub lyc: u8,
    pub bgp: u8,
    pub obp0: u8,
    pub obp1: u8,
    pub wy: u8,
    pub wx: u8,
    pub mode: u8,
    lyc_flag: bool,
    /// Current level of the STAT interrupt line (OR of enabled sources); IF is set on a rising edge.
    stat_line: bool,
    /// Cycle count at which the current frame (or LCD-off period) began.
    frame_start: u64,
    /// Line 0 start for the line arithmetic: `frame_start`, or 4 cycles earlier in the first frame.
    line_base: u64,
    next_event_at: u64,
    event: Event,
    /// Cycle count of the last transition: a catch-up at that same count performs no other
    /// transition (PyBoy), so the next one is ready at max(next_event_at, last_tick_at + 1).
    last_tick_at: u64,
    ready_at: u64,
    first_frame: bool,
    /// Set when a frame boundary has been reached; the frame loop clears it.
    pub frame_done: bool,
    /// WY matched LY at a line start during this frame.
    window_triggered: bool,
    /// Window line counter as PyBoy keeps it: advanced *before* each drawn window line, reset to -1
    /// after line 143 is drawn, 0 at power-on (so the first rendered window starts one row down).
    pub window_line: i16,
    /// Draw lines during this frame (false while skipping frames).
    pub render_enabled: bool,
    /// Shades 0-3 (after palette mapping), row-major 160x144.
    pub screen: Box<[u8; SCREEN_PIXELS]>,
    /// Per visible line, the OAM indices of the first 10 sprites covering it (OAM order), derived
    /// from OAM and the sprite height; rebuilt lazily after either changes (see `invalidate_sprites`).
    line_sprites: Box<[[u8; 10]; SCREEN_HEIGHT]>,
    line_sprite_count: Box<[u8; SCREEN_HEIGHT]>,
    line_sprites_valid: bool,
}

impl Default for Ppu {
    fn default() -> Self {
        Ppu {
            vram: [0; 0x2000],
            oam: [0; 0xA0],
            lcdc: 0,
            stat_enables: 0,
            scy: 0,
            scx: 0,
            ly: 0,
            lyc: 0,
            bgp: 0xFC,
            obp0: 0xFF,
            obp1: 0xFF,
            wy: 0,
            wx: 0,
            mode: MODE_HBLANK,
            lyc_flag: false,
            stat_line: false,
            frame_start: 0,
            line_base: 0,
            next_event_at: CYCLES_PER_FRAME,
            event: Event::OffFrameEnd,
            last_tick_at: 0,
            ready_at: CYCLES_PER_FRAME,
            first_frame: false,
            frame_done: false,
            window_triggered: false,
            window_line: 0,
            render_enabled: true,
            // Before anything is drawn the buffer is black (PyBoy starts from an all-zero buffer).
            screen: Box::new([3; SCREEN_PIXELS]),
            line_sprites: Box::new([[0; 10]; SCREEN_HEIGHT]),
            line_sprite_count: Box::new([0; SCREEN_HEIGHT]),
            line_sprites_valid: false,
        }
    }
}

impl Ppu {
    #[inline]
    pub fn enabled(&self) -> bool {
        self.lcdc & 0x80 != 0
    }

    /// Cycle count of the next state transition.
    #[inline]
    pub fn next_event(&self) -> u64 {
        self.next_event_at
    }

    #[inline]
    fn line_start(&self, line: u8) -> u64 {
        if line == 0 {
            self.frame_start
        } else {
            self.line_base + CYCLES_PER_LINE * line as u64
        }
    }

    fn schedule(&mut self, event: Event, at: u64) {
        self.event = event;
        self.next_event_at = at;
        self.ready_at = at.max(self.last_tick_at + 1);
    }

    /// Recomputes the STAT line; returns IRQ_STAT on a rising edge.
    #[inline]
    fn update_stat_line(&mut self, vblank_start: bool) -> u8 {
        // STAT enable bit of each mode's interrupt source (mode 3 has none).
        const MODE_SOURCE: [u8; 4] = [0x08, 0x10, 0x20, 0x00];
        let mut sources = MODE_SOURCE[self.mode as usize & 3] | ((self.lyc_flag as u8) << 6);
        if vblank_start {
            // The OAM source also fires when line 144 starts.
            sources |= 0x20;
        }
        let line = self.stat_enables & sources != 0;
        let rose = line && !self.stat_line;
        self.stat_line = line;
        if rose {
            IRQ_STAT
        } else {
            0
        }
    }

    fn compare_lyc(&mut self) {
        self.lyc_flag = self.ly == self.lyc;
    }

    /// Must be called after any change to OAM or to the sprite height (LCDC bit 2).
    #[inline]
    pub fn invalidate_sprites(&mut self) {
        self.line_sprites_valid = false;
    }

    /// Writes an OAM byte (CPU or DMA).
    #[inline]
    pub fn write_oam(&mut self, index: usize, value: u8) {
        if self.oam[index] != value {
            self.oam[index] = value;
            self.line_sprites_valid = false;
        }
    }

    /// Writes OAM bytes `start..start + values.len()` (DMA), like `write_oam` byte by byte.
    #[inline]
    pub fn write_oam_block(&mut self, start: usize, values: &[u8]) {
        let target = &mut self.oam[start..start + values.len()];
        if target != values {
            target.copy_from_slice(values);
            self.line_sprites_valid = false;
        }
    }

    fn rebuild_line_sprites(&mut self) {
        let height = if self.lcdc & 0x04 != 0 { 16 } else { 8 };
        self.line_sprite_count.fill(0);
        for s in 0..40u8 {
            // Sprite Y is stored +16; lines y-16 .. y-16+height.
            let top = self.oam[s as usize * 4] as i32 - 16;
            for line in top.max(0)..(top + height).min(SCREEN_HEIGHT as i32) {
                let n = &mut self.line_sprite_count[line as usize];
                if *n < 10 {
                    self.line_sprites[line as usize][*n as usize] = s;
                    *n += 1;
                }
            }
        }
        self.line_sprites_valid = true;
    }

    /// The first 10 sprites (OAM indices, OAM order) whose rows cover `line` (< 144).
    #[inline]
    fn sprites_on_line(&mut self, line: usize) -> ([u8; 10], usize) {
        if !self.line_sprites_valid {
            self.rebuild_line_sprites();
        }
        (self.line_sprites[line], self.line_sprite_count[line] as usize)
    }

    /// Mode-3 length for the current line: 172 + fine-scroll term + sprite term.
    fn transfer_length(&mut self) -> u64 {
        let len = 172 + SCX_PENALTY[(self.scx & 7) as usize];
        if self.lcdc & 0x02 == 0 || self.ly as usize >= SCREEN_HEIGHT {
            return len;
        }
        let (sprites, count) = self.sprites_on_line(self.ly as usize);
        if count == 0 {
            return len;
        }
        let mut visible = 0usize;
        let mut penalty: i64 = 0;
        let mut seen_x = [0u8; 10];
        for &s in &sprites[..count] {
            let x = self.oam[s as usize * 4 + 1];
            if x < 168 {
                penalty += 6;
                if !seen_x[..visible].contains(&x) {
                    let fine = (x as i64 + self.scx as i64 - 8) & 7;
                    penalty += (5 - fine).max(0);
                }
                seen_x[visible] = x;
                visible += 1;
            }
        }
        if visible == 0 {
            // Only sprites with X >= 168 on the line.
            len - 4
        } else {
            len + (penalty - 7).max(0) as u64
        }
    }

    /// Performs the due transition, if any (at most one per call). Returns interrupt request bits.
    #[inline(always)]
    pub fn tick(&mut self, now: u64) -> u8 {
        if now < self.ready_at {
            return 0;
        }
        self.transition(now)
    }

    /// For a halted CPU: when the next transition is this line's mode 3, nothing is drawn and the
    /// HBlank STAT source is off, modes 3 and 0 of the line cannot be observed, so jump straight to
    /// the line's end event (the same state and times as taking both transitions). Only if that
    /// event comes before `limit` (the next timer/serial event). Returns whether it skipped.
    pub fn skip_unobserved_modes(&mut self, limit: u64) -> bool {
        if self.event != Event::Transfer || self.render_enabled || self.stat_enables & 0x08 != 0 || self.ly >= 144 {
            return false;
        }
        let line_start = self.line_start(self.ly);
        let (event, at) = if self.ly == 143 {
            (Event::VBlankStart, line_start + if self.first_frame { 452 } else { 456 })
        } else if self.first_frame && self.ly == 0 {
            (Event::LyAdvance, self.frame_start + 448)
        } else {
            (Event::LyAdvance, line_start + 452)
        };
        if at >= limit {
            return false;
        }
        self.mode = MODE_HBLANK;
        // The mode-2 source (if enabled) drops here; nothing can rise (no mode-0 source).
        let rose = self.update_stat_line(false);
        debug_assert_eq!(rose, 0);
        self.schedule(event, at);
        true
    }

    /// For a halted CPU, from line `ly`'s mode-3 event (not in the first frame): when nothing can
    /// observe the lines that follow (no rendering, no mode-0/mode-2 STAT source), jumps to the state
    /// right after mode 2 of line 143, or of the line before LYC's if the LYC source is on, the
    /// state the halted loop reaches by taking each line's (skipped) mode 3/0, LY advance and mode 2
    /// one by one. Only when that loop would take each of them exactly at its scheduled time (`now`
    /// at least 4 cycles before the first) and all before `limit` (the next timer/serial event).
    /// Returns the cycle count of the last transition (the new CPU cycle count).
    pub fn skip_halted_lines(&mut self, now: u64, limit: u64) -> Option<u64> {
        if self.event != Event::Transfer || self.first_frame || self.render_enabled || self.stat_enables & 0x28 != 0 {
            return None;
        }
        // The LY advance onto LYC's line may raise the STAT interrupt: stop one line before it.
        let last_line = if self.stat_enables & 0x40 != 0 && self.lyc > self.ly && self.lyc <= 143 { self.lyc - 1 } else { 143 };
        if last_line <= self.ly {
            return None;
        }
        let first_advance = self.line_start(self.ly) + 452;
        let last_line_start = self.line_start(last_line);
        if now + 4 > first_advance || last_line_start >= limit {
            return None;
        }
        // Mode 2 of each skipped line checks WY; each LY advance compares LYC (not the first frame).
        if self.wy > self.ly && self.wy <= last_line {
            self.window_triggered = true;
        }
        self.ly = last_line;
        self.lyc_flag = self.ly == self.lyc;
        self.mode = MODE_OAM;
        let rose = self.update_stat_line(false);
        debug_assert_eq!(rose, 0);
        self.last_tick_at = last_line_start;
        self.schedule(Event::Transfer, last_line_start + 80);
        Some(last_line_start)
    }

    /// The due transition (see `tick`).
    #[inline(never)]
    fn transition(&mut self, now: u64) -> u8 {
        self.last_tick_at = now;
        let at = self.next_event_at;
        match self.event {
            Event::Transfer => {
                self.mode = MODE_TRANSFER;
                let len = if self.first_frame && self.ly == 0 { 172 } else { self.transfer_length() };
                self.schedule(Event::HBlank, at + len);
                self.update_stat_line(false)
            }
            Event::HBlank => {
                self.mode = MODE_HBLANK;
                if self.render_enabled {
                    self.render_line();
                }
                let line_start = self.line_start(self.ly);
                if self.ly == 143 {
                    // LY becomes 144 together with VBlank; in the first frame 4 cycles earlier.
                    let vblank = line_start + if self.first_frame { 452 } else { 456 };
                    self.schedule(Event::VBlankStart, vblank);
                } else {
                    let end = if self.first_frame && self.ly == 0 { self.frame_start + 448 } else { line_start + 452 };
                    self.schedule(Event::LyAdvance, end);
                }
                self.update_stat_line(false)
            }
            Event::LyAdvance => {
                self.ly += 1;
                if self.first_frame {
                    // First frame after switch-on: the flag drops here and is compared at mode 2.
                    self.lyc_flag = false;
                } else {
                    self.compare_lyc();
                }
                self.schedule(Event::OamScan, self.line_start(self.ly));
                self.update_stat_line(false)
            }
            Event::OamScan => {
                self.mode = MODE_OAM;
                if self.first_frame {
                    self.compare_lyc();
                }
                if self.wy == self.ly {
                    self.window_triggered = true;
                }
                self.schedule(Event::Transfer, at + 80);
                self.update_stat_line(false)
            }
            Event::VBlankStart => {
                self.ly = 144;
                self.mode = MODE_VBLANK;
                self.compare_lyc();
                if self.first_frame {
                    self.fill_blank();
                }
                self.window_triggered = false;
                self.schedule(Event::VBlankLine, at + CYCLES_PER_LINE);
                IRQ_VBLANK | self.update_stat_line(true)
            }
            Event::VBlankLine => {
                // LY stops at 153; in the first frame the lines run 8 cycles early and one extra
                // transition (no visible change) happens 8 cycles before the frame ends.
                if self.ly < 153 {
                    self.ly += 1;
                }
                self.compare_lyc();
                let frame_end = self.frame_start + CYCLES_PER_FRAME;
                let next = at + CYCLES_PER_LINE;
                if self.ly == 153 && next >= frame_end {
                    self.schedule(Event::FrameEnd, frame_end);
                } else {
                    self.schedule(Event::VBlankLine, next.min(frame_end));
                }
                self.update_stat_line(false)
            }
            Event::FrameEnd => {
                self.frame_start += CYCLES_PER_FRAME;
                self.line_base = self.frame_start;
                self.first_frame = false;
                self.frame_done = true;
                self.ly = 0;
                self.mode = MODE_OAM;
                self.compare_lyc();
                self.window_triggered = self.wy == 0;
                self.schedule(Event::Transfer, self.frame_start + 80);
                self.update_stat_line(false)
            }
            Event::SwitchOn => {
                self.frame_start = now;
                self.line_base = now - 4;
                self.schedule(Event::Transfer, now + 76);
                0
            }
            Event::OffFrameEnd => {
                self.frame_start += CYCLES_PER_FRAME;
                self.frame_done = true;
                self.fill_blank();
                self.schedule(Event::OffFrameEnd, self.frame_start + CYCLES_PER_FRAME);
                0
            }
        }
    }

    /// LCDC write at `now` (after the caller synced the LCD). Switching the LCD on or off ends the frame.
    pub fn write_lcdc(&mut self, value: u8, now: u64) -> u8 {
        if (value ^ self.lcdc) & 0x04 != 0 {
            self.line_sprites_valid = false;
        }
        let was_on = self.enabled();
        self.lcdc = value;
        let is_on = self.enabled();
        if was_on && !is_on {
            self.ly = 0;
            self.mode = MODE_HBLANK;
            self.stat_line = false;
            self.frame_start = now;
            self.line_base = now;
            self.frame_done = true;
            self.window_triggered = false;
            self.fill_blank();
            self.schedule(Event::OffFrameEnd, now + CYCLES_PER_FRAME);
            0
        } else if !was_on && is_on {
            self.ly = 0;
            self.mode = MODE_HBLANK;
            self.first_frame = true;
            self.frame_done = true;
            self.window_triggered = self.wy == 0;
            self.compare_lyc();
            // The clock starts at the next catch-up (see Event::SwitchOn).
            self.schedule(Event::SwitchOn, now);
            self.update_stat_line(false)
        } else {
            0
        }
    }

    pub fn read_stat(&self) -> u8 {
        0x80 | self.stat_enables | if self.lyc_flag { 0x04 } else { 0 } | self.mode
    }

    pub fn write_stat(&mut self, value: u8) -> u8 {
        self.stat_enables = value & 0x78;
        if self.enabled() {
            self.update_stat_line(false)
        } else {
            0
        }
    }

    pub fn write_lyc(&mut self, value: u8) -> u8 {
        self.lyc = value;
        if self.enabled() {
            self.compare_lyc();
            self.update_stat_line(false)
        } else {
            0
        }
    }

    /// VRAM is inaccessible to the locking accessors during mode 3.
    #[inline]
    pub fn vram_locked(&self) -> bool {
        self.enabled() && self.mode == MODE_TRANSFER
    }

    /// OAM is inaccessible to the locking accessors during modes 2 and 3.
    #[inline]
    pub fn oam_locked(&self) -> bool {
        self.enabled() && self.mode >= MODE_OAM
    }

    /// Fills the screen with BGP colour 0. PyBoy does this when the LCD goes off, at the end of each
    /// LCD-off frame and at VBlank of the first frame after switch-on, whether or not the frame is rendered.
    fn fill_blank(&mut self) {
        let shade = self.bgp & 3;
        self.screen.fill(shade);
    }

    /// Draws line `self.ly` into the screen buffer.
    fn render_line(&mut self) {
        let ly = self.ly as usize;
        if ly >= SCREEN_HEIGHT {
            return;
        }
        let lcdc = self.lcdc;
        // Colour index (0-3) of background/window per pixel, needed for sprite priority.
        let mut bg_index = [0u8; SCREEN_WIDTH];
        let window_x = self.wx as i32 - 7;
        let window_on = lcdc & 0x20 != 0 && self.window_triggered && window_x < SCREEN_WIDTH as i32;
        // PyBoy draws background and window when LCDC.0 is set or the window is active on this line.
        let bg_on = lcdc & 0x01 != 0 || window_on;

        if bg_on {
            let map_base = if lcdc & 0x08 != 0 { 0x1C00 } else { 0x1800 };
            let y = self.ly.wrapping_add(self.scy) as usize;
            self.fetch_map_row(map_base, y, self.scx as usize, &mut bg_index);
            if window_on {
                let map_base = if lcdc & 0x40 != 0 { 0x1C00 } else { 0x1800 };
                let start = window_x.max(0) as usize;
                let skip = (-window_x).max(0) as usize; // window columns left of the screen
                self.window_line += 1;
                let wline = (self.window_line as usize) & 0xFF;
                self.fetch_map_row(map_base, wline, skip, &mut bg_index[start..]);
            }
        }
        let row = &mut self.screen[ly * SCREEN_WIDTH..(ly + 1) * SCREEN_WIDTH];
        if bg_on {
            let bgp = self.bgp;
            for (out, idx) in row.chunks_exact_mut(8).zip(bg_index.chunks_exact(8)) {
                let v = u64::from_le_bytes(idx.try_into().unwrap());
                out.copy_from_slice(&apply_palette(v, bgp).to_le_bytes());
            }
        } else {
            row.fill(self.bgp & 3);
        }

        if lcdc & 0x02 != 0 {
            // Sprites behind the background vanish when the background was blanked (LCDC.0 = 0 and no
            // window); with the window active PyBoy draws the background anyway and compares per pixel.
            self.render_sprites(ly, &bg_index, bg_on);
        }
        if ly == SCREEN_HEIGHT - 1 {
            self.window_line = -1;
        }
    }

    /// Colour indices of `out.len()` pixels of tile map row `y` (0-255), from map pixel column `x0`.
    fn fetch_map_row(&self, map_base: usize, y: usize, x0: usize, out: &mut [u8]) {
        let y = y & 0xFF;
        let map_row = map_base + (y >> 3) * 32;
        let fine_y = (y & 7) * 2;
        let signed = self.lcdc & 0x10 == 0;
        let fine_x = x0 & 7;
        let tiles = (fine_x + out.len()).div_ceil(8);
        let mut buf = [0u8; SCREEN_WIDTH + 16];
        for t in 0..tiles {
            let tile = self.vram[map_row + ((x0 >> 3) + t) % 32];
            let addr = if signed { (0x1000 + (tile as i8 as i32) * 16) as usize } else { tile as usize * 16 } + fine_y;
            let pixels = tile_row_indices(self.vram[addr], self.vram[addr + 1]);
            buf[t * 8..t * 8 + 8].copy_from_slice(&pixels.to_le_bytes());
        }
        out.copy_from_slice(&buf[fine_x..fine_x + out.len()]);
    }

    fn render_sprites(&mut self, ly: usize, bg_index: &[u8; SCREEN_WIDTH], bg_enabled: bool) {
        let height: i32 = if self.lcdc & 0x04 != 0 { 16 } else { 8 };
        // First 10 sprites in OAM order covering this line (X is not considered).
        let (sprites, n) = self.sprites_on_line(ly);
        let mut chosen = [(0u8, 0usize); 10];
        for (c, &s) in chosen.iter_mut().zip(sprites[..n].iter()) {
            *c = (self.oam[s as usize * 4 + 1], s as usize);
        }
        let chosen = &mut chosen[..n];
        // Draw back to front: the lowest X (then lowest OAM index) ends on top.
        chosen.sort_unstable_by(|a, b| b.cmp(a));
        let row = ly * SCREEN_WIDTH;
        for &(x, s) in chosen.iter() {
            let y = self.oam[s * 4] as i32 - 16;
            let mut tile = self.oam[s * 4 + 2];
            let attr = self.oam[s * 4 + 3];
            let mut line = ly as i32 - y;
            if attr & 0x40 != 0 {
                line = height - 1 - line;
            }
            if height == 16 {
                tile &= 0xFE;
            }
            let addr = tile as usize * 16 + line as usize * 2;
            let (mut lo, mut hi) = (self.vram[addr], self.vram[addr + 1]);
            if attr & 0x20 != 0 {
                lo = lo.reverse_bits();
                hi = hi.reverse_bits();
            }
            let pixels = tile_row_indices(lo, hi).to_le_bytes();
            let palette = if attr & 0x10 != 0 { self.obp1 } else { self.obp0 };
            let behind_bg = attr & 0x80 != 0;
            if behind_bg && !bg_enabled {
                continue;
            }
            for (col, &idx) in pixels.iter().enumerate() {
                let sx = x as i32 - 8 + col as i32;
                if idx == 0 || !(0..SCREEN_WIDTH as i32).contains(&sx) {
                    continue;
                }
                if behind_bg && bg_index[sx as usize] != 0 {
                    continue;
                }
                self.screen[row + sx as usize] = (palette >> (idx * 2)) & 3;
            }
        }
    }

    pub fn save(&self, w: &mut StateWriter) {
        w.bytes(&self.vram);
        w.bytes(&self.oam);
        for v in [
            self.lcdc, self.stat_enables, self.scy, self.scx, self.ly, self.lyc, self.bgp, self.obp0, self.obp1, self.wy,
            self.wx, self.mode,
        ] {
            w.u8(v);
        }
        w.bool(self.lyc_flag);
        w.bool(self.stat_line);
        w.u64(self.frame_start);
        w.u64(self.line_base);
        w.u64(self.next_event_at);
        w.u8(self.event as u8);
        w.u64(self.last_tick_at);
        w.bool(self.first_frame);
        w.bool(self.frame_done);
        w.bool(self.window_triggered);
        w.u16(self.window_line as u16);
        w.bytes(&self.screen[..]);
    }

    pub fn load(&mut self, r: &mut StateReader) -> Result<(), StateError> {
        r.bytes_into(&mut self.vram)?;
        r.bytes_into(&mut self.oam)?;
        self.line_sprites_valid = false;
        self.lcdc = r.u8()?;
        self.stat_enables = r.u8()? & 0x78;
        self.scy = r.u8()?;
        self.scx = r.u8()?;
        self.ly = r.u8()?;
        self.lyc = r.u8()?;
        self.bgp = r.u8()?;
        self.obp0 = r.u8()?;
        self.obp1 = r.u8()?;
        self.wy = r.u8()?;
        self.wx = r.u8()?;
        self.mode = r.u8()? & 3;
        self.lyc_flag = r.bool()?;
        self.stat_line = r.bool()?;
        self.frame_start = r.u64()?;
        self.line_base = r.u64()?;
        self.next_event_at = r.u64()?;
        self.event = Event::from_u8(r.u8()?).ok_or(StateError::Invalid("LCD event"))?;
        self.last_tick_at = r.u64()?;
        self.ready_at = self.next_event_at.max(self.last_tick_at + 1);
        self.first_frame = r.bool()?;
        self.frame_done = r.bool()?;
        self.window_triggered = r.bool()?;
        self.window_line = r.u16()? as i16;
        if self.ly > 153 {
            return Err(StateError::Invalid("LY"));
        }
        r.bytes_into(&mut self.screen[..])?;
        if self.screen.iter().any(|&s| s > 3) {
            return Err(StateError::Invalid("screen shade"));
        }
        Ok(())
    }
}
