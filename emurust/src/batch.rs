//! Many emulators stepped together on a `StepPool` (the calling thread and persistent workers),
//! writing observations straight into caller-owned buffers (one contiguous slice per output; each
//! emulator owns a disjoint chunk).

use std::sync::Mutex;

use crate::bus::Profile;
use crate::error::{CpuFault, RomError};
use crate::gameboy::GameBoy;
use crate::pool::{Chunks, StepPool};
use crate::ppu::{SCREEN_HEIGHT, SCREEN_PIXELS, SCREEN_WIDTH};
use crate::state::StateError;

/// PyBoy's default "Grey" palette: shade 0..3 -> 8-bit intensity (used for RGB and grayscale).
pub const SHADE_INTENSITY: [u8; 4] = [255, 153, 85, 0];

/// What the screen observation looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenFormat {
    /// (H, W, 3) uint8.
    Rgb,
    /// (H, W) uint8 intensity.
    Gray,
}

/// Observation layout shared by all emulators of a batch.
#[derive(Clone, Debug)]
pub struct ObservationSpec {
    /// None: no screen observation, and no frame is ever rendered.
    pub screen: Option<ScreenFormat>,
    /// Integer factor dividing 160 and 144; pixels are averaged over factor x factor blocks.
    pub downscale: usize,
    /// Addresses read after each step (any address; WRAM/HRAM/VRAM/OAM are read without side effects).
    pub ram_addresses: Vec<u16>,
}

impl ObservationSpec {
    pub fn screen_height(&self) -> usize {
        SCREEN_HEIGHT / self.downscale
    }
    pub fn screen_width(&self) -> usize {
        SCREEN_WIDTH / self.downscale
    }
    /// Bytes of screen observation per emulator.
    pub fn screen_len(&self) -> usize {
        match self.screen {
            None => 0,
            Some(ScreenFormat::Gray) => self.screen_height() * self.screen_width(),
            Some(ScreenFormat::Rgb) => self.screen_height() * self.screen_width() * 3,
        }
    }
    pub fn validate(&self) -> Result<(), String> {
        let d = self.downscale;
        if d == 0 || SCREEN_WIDTH % d != 0 || SCREEN_HEIGHT % d != 0 {
            return Err(format!("downscale must divide both 160 and 144 (1, 2, 4, 8 or 16), got {d}"));
        }
        Ok(())
    }
}

/// Gray value of a 2x2 block, indexed by its four shades (2 bits each: top-left, top-right,
/// bottom-left, bottom-right from the low bits up): the rounded mean of their intensities.
const BLOCK2_GRAY: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let mut sum = 0u32;
        let mut k = 0;
        while k < 4 {
            sum += SHADE_INTENSITY[(i >> (2 * k)) & 3] as u32;
            k += 1;
        }
        t[i] = ((sum + 2) / 4) as u8;
        i += 1;
    }
    t
};

/// Writes one emulator's screen observation into `out` (length `spec.screen_len()`): intensities
/// of PyBoy's palette, averaged over `downscale` x `downscale` blocks (rounded to nearest).
pub fn write_screen(gb: &GameBoy, spec: &ObservationSpec, out: &mut [u8]) {
    match spec.screen {
        None => {}
        Some(ScreenFormat::Gray) => write_screen_channels::<1>(gb.screen(), spec.downscale, out),
        Some(ScreenFormat::Rgb) => write_screen_channels::<3>(gb.screen(), spec.downscale, out),
    }
}

/// `write_screen` with the channel count known at compile time (each output pixel is a fixed-size
/// store, not a call).
fn write_screen_channels<const CHANNELS: usize>(screen: &[u8; SCREEN_PIXELS], d: usize, out: &mut [u8]) {
    let w = SCREEN_WIDTH / d;
    // Shades are 0-3 (palette-mapped; `Ppu::load` refuses others), so `& 3` changes nothing.
    let intensity = |s: u8| SHADE_INTENSITY[(s & 3) as usize];
    let out_rows = out.chunks_exact_mut(w * CHANNELS);
    match d {
        1 => {
            for (o, &s) in out.chunks_exact_mut(CHANNELS).zip(screen.iter()) {
                *<&mut [u8; CHANNELS]>::try_from(o).unwrap() = [intensity(s); CHANNELS];
            }
        }
        2 => {
            // The default observation: one table lookup per output pixel.
            for (o_row, rows) in out_rows.zip(screen.chunks_exact(2 * SCREEN_WIDTH)) {
                let (top, bottom) = rows.split_at(SCREEN_WIDTH);
                for ((o, t), b) in o_row.chunks_exact_mut(CHANNELS).zip(top.chunks_exact(2)).zip(bottom.chunks_exact(2)) {
                    let index = (t[0] & 3) | (t[1] & 3) << 2 | (b[0] & 3) << 4 | (b[1] & 3) << 6;
                    *<&mut [u8; CHANNELS]>::try_from(o).unwrap() = [BLOCK2_GRAY[index as usize]; CHANNELS];
                }
            }
        }
        _ => {
            let area = (d * d) as u32;
            let mut sums = [0u32; SCREEN_WIDTH];
            for (o_row, rows) in out_rows.zip(screen.chunks_exact(d * SCREEN_WIDTH)) {
                let sums = &mut sums[..w];
                sums.fill(0);
                for row in rows.chunks_exact(SCREEN_WIDTH) {
                    for (sum, block) in sums.iter_mut().zip(row.chunks_exact(d)) {
                        *sum += block.iter().map(|&s| intensity(s) as u32).sum::<u32>();
                    }
                }
                for (o, &sum) in o_row.chunks_exact_mut(CHANNELS).zip(sums.iter()) {
                    *<&mut [u8; CHANNELS]>::try_from(o).unwrap() = [((sum + area / 2) / area) as u8; CHANNELS];
                }
            }
        }
    }
}

/// Writes the RAM observation (one byte per address).
pub fn write_ram(gb: &GameBoy, spec: &ObservationSpec, out: &mut [u8]) {
    for (o, &a) in out.iter_mut().zip(spec.ram_addresses.iter()) {
        *o = gb.peek(a);
    }
}

/// A batch of emulators running the same ROM.
pub struct Batch {
    pub envs: Vec<GameBoy>,
    pub spec: ObservationSpec,
    pub frame_skip: u32,
    /// State of a freshly powered-on emulator (what `reset` restores by default).
    pub power_on_state: Vec<u8>,
    pool: StepPool,
}

impl Batch {
    pub fn new(
        rom: &[u8],
        boot_rom: Option<&[u8]>,
        profile: Profile,
        num_envs: usize,
        frame_skip: u32,
        spec: ObservationSpec,
        num_threads: usize,
    ) -> Result<Batch, String> {
        if num_envs == 0 {
            return Err("num_envs must be at least 1".into());
        }
        if frame_skip == 0 {
            return Err("frame_skip must be at least 1".into());
        }
        spec.validate()?;
        let first = GameBoy::new(rom, boot_rom, profile).map_err(|e: RomError| e.to_string())?;
        let power_on_state = first.save_state();
        let envs = vec![first; num_envs];
        let pool = StepPool::new(num_threads)?;
        Ok(Batch { envs, spec, frame_skip, power_on_state, pool })
    }

    /// Threads stepping the batch, the calling thread included.
    pub fn num_threads(&self) -> usize {
        self.pool.threads()
    }

    /// The output buffers as one chunk per emulator (empty chunks where an output is unused).
    fn output_chunks<'a>(&self, screen_out: &'a mut [u8], ram_out: &'a mut [u8]) -> (Chunks<'a, u8>, Chunks<'a, u8>) {
        let n = self.envs.len();
        let (screen_len, ram_len) = (self.spec.screen_len(), self.spec.ram_addresses.len());
        assert_eq!(screen_out.len(), n * screen_len, "screen buffer size");
        assert_eq!(ram_out.len(), n * ram_len, "RAM buffer size");
        (Chunks::new(screen_out, screen_len, n), Chunks::new(ram_out, ram_len, n))
    }

    /// Advances every emulator `frame_skip` frames with `buttons[i]` held (only the last frame is
    /// rendered), then writes observations. `screen_out` holds `num_envs * spec.screen_len()` bytes
    /// and `ram_out` `num_envs * ram_addresses.len()` (either may be empty when unused).
    /// Returns the first emulator (lowest index) whose CPU is stopped by a fault, if any.
    pub fn step(&mut self, buttons: &[u8], screen_out: &mut [u8], ram_out: &mut [u8]) -> Option<(usize, CpuFault)> {
        let n = self.envs.len();
        assert_eq!(buttons.len(), n, "one button mask per emulator");
        let (screens, rams) = self.output_chunks(screen_out, ram_out);
        let envs = Chunks::new(&mut self.envs, 1, n);
        let spec = &self.spec;
        let render = spec.screen.is_some();
        let frames = self.frame_skip;
        let first_fault: Mutex<Option<(usize, CpuFault)>> = Mutex::new(None);
        self.pool.for_each(n, &|i| {
            // SAFETY: `for_each` calls each index once, so emulator i and its output chunks are ours.
            let (gb, screen, ram) = unsafe { (&mut envs.get(i)[0], screens.get(i), rams.get(i)) };
            gb.set_buttons(buttons[i]);
            let result = gb.run_frames(frames, render);
            // Unused outputs are empty chunks, which these leave alone.
            write_screen(gb, spec, screen);
            write_ram(gb, spec, ram);
            if let Err(fault) = result {
                // The lowest index, whichever thread finds it first (faults are rare: a lock per fault).
                let mut first = first_fault.lock().unwrap_or_else(|e| e.into_inner());
                if first.is_none_or(|(j, _)| i < j) {
                    *first = Some((i, fault));
                }
            }
        });
        first_fault.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes the current observations without stepping.
    pub fn observe(&mut self, screen_out: &mut [u8], ram_out: &mut [u8]) {
        let n = self.envs.len();
        let (screens, rams) = self.output_chunks(screen_out, ram_out);
        let (spec, envs) = (&self.spec, &self.envs);
        self.pool.for_each(n, &|i| {
            // SAFETY: `for_each` calls each index once.
            let (screen, ram) = unsafe { (screens.get(i), rams.get(i)) };
            write_screen(&envs[i], spec, screen);
            write_ram(&envs[i], spec, ram);
        });
    }

    /// Loads `state` into every emulator whose `mask` entry is true.
    pub fn load_state_where(&mut self, mask: &[bool], state: &[u8]) -> Result<(), StateError> {
        // Validate once on a scratch copy so that a bad state changes nothing.
        let mut probe = self.envs[0].clone();
        probe.load_state(state)?;
        assert_eq!(mask.len(), self.envs.len(), "one mask entry per emulator");
        let envs = Chunks::new(&mut self.envs, 1, mask.len());
        let probe = &probe;
        self.pool.for_each(mask.len(), &|i| {
            if mask[i] {
                // SAFETY: `for_each` calls each index once.
                unsafe { &mut envs.get(i)[0] }.clone_from(probe);
            }
        });
        Ok(())
    }
}

