//! Thin PyO3 binding over the core (`GameBoy`) and the threaded batch (`VecGameBoy`).
//!
//! Rules kept here: every error becomes a Python exception (no panic crosses into Python: core calls
//! run under `catch_unwind`); batch steps release the GIL; output arrays are validated (dtype, shape,
//! C-contiguity, writeable) before anything runs.

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::batch::{write_screen, Batch, ObservationSpec, ScreenFormat, SHADE_INTENSITY};
use crate::bus::Profile;
use crate::error::RomError;
use crate::gameboy::{default_boot_rom, GameBoy as Core};
use crate::joypad::BUTTON_NAMES;
use crate::ppu::{SCREEN_HEIGHT, SCREEN_WIDTH};

create_exception!(_emurust, RomLoadError, PyValueError, "The ROM (or boot ROM) image was refused.");
create_exception!(_emurust, StateLoadError, PyValueError, "A save state could not be loaded.");
create_exception!(_emurust, EmulatorFault, PyRuntimeError, "The emulated CPU locked up (illegal opcode).");

fn rom_error(e: RomError) -> PyErr {
    RomLoadError::new_err(e.to_string())
}

/// Runs `f`, turning a Rust panic into a Python RuntimeError (belt and braces: the core does not panic).
fn guarded<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| PyRuntimeError::new_err("emurust internal error (a bug): the operation was aborted"))
}

fn parse_profile(name: &str) -> PyResult<Profile> {
    match name {
        "pyboy" => Ok(Profile::PyBoy),
        "hardware" => Ok(Profile::Hardware),
        other => Err(PyValueError::new_err(format!("profile must be 'pyboy' or 'hardware', got {other:?}"))),
    }
}

fn profile_name(p: Profile) -> &'static str {
    match p {
        Profile::PyBoy => "pyboy",
        Profile::Hardware => "hardware",
    }
}

fn button_bit(name: &str) -> PyResult<u8> {
    BUTTON_NAMES
        .iter()
        .position(|&n| n == name.to_ascii_lowercase())
        .map(|i| 1u8 << i)
        .ok_or_else(|| PyValueError::new_err(format!("unknown button {name:?}; expected one of {BUTTON_NAMES:?}")))
}

/// The bytes of a ROM or state argument: any bytes-like object of unsigned bytes (`bytes`,
/// `bytearray`, `memoryview`, a uint8 numpy array), as numpy users expect. Copied once: the core
/// keeps its own image anyway.
fn bytes_like(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    match PyBuffer::<u8>::get(obj) {
        Ok(buffer) => buffer.to_vec(obj.py()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be a bytes-like object of unsigned bytes (bytes, bytearray, memoryview or a uint8 numpy \
             array), got {}",
            obj.get_type()
        ))),
    }
}

fn optional_bytes_like(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u8>>> {
    obj.map(|o| bytes_like(o, what)).transpose()
}

fn check_address(addr: i64) -> PyResult<u16> {
    u16::try_from(addr).map_err(|_| PyIndexError::new_err(format!("address {addr} is outside 0x0000-0xFFFF")))
}

/// A single Game Boy (DMG).
#[pyclass(module = "emurust._emurust", name = "GameBoy")]
pub struct PyGameBoy {
    core: Core,
}

#[pymethods]
impl PyGameBoy {
    #[new]
    #[pyo3(signature = (rom, *, boot_rom=None, profile="pyboy"))]
    fn new(rom: &Bound<'_, PyAny>, boot_rom: Option<&Bound<'_, PyAny>>, profile: &str) -> PyResult<Self> {
        let profile = parse_profile(profile)?;
        let rom = bytes_like(rom, "rom")?;
        let boot_rom = optional_bytes_like(boot_rom, "boot_rom")?;
        let core = guarded(|| Core::new(&rom, boot_rom.as_deref(), profile))?.map_err(rom_error)?;
        Ok(PyGameBoy { core })
    }

    /// Advances `frames` frames (PyBoy's `tick`); only the last one is drawn when `render`.
    #[pyo3(signature = (frames=1, render=true))]
    fn tick(&mut self, py: Python<'_>, frames: i64, render: bool) -> PyResult<()> {
        let frames = u32::try_from(frames).map_err(|_| PyValueError::new_err(format!("frames must be between 0 and 2**32-1, got {frames}")))?;
        let core = &mut self.core;
        let result = py.detach(|| guarded(|| core.run_frames(frames, render)))?;
        result.map_err(|f| EmulatorFault::new_err(f.to_string()))
    }

    /// Buttons held from the next frame on, as a bitmask (bit 0 A, 1 B, 2 Select, 3 Start,
    /// 4 Right, 5 Left, 6 Up, 7 Down).
    #[getter]
    fn get_buttons(&self) -> u8 {
        self.core.buttons()
    }

    #[setter]
    fn set_buttons(&mut self, mask: i64) -> PyResult<()> {
        let m = u8::try_from(mask).map_err(|_| PyValueError::new_err(format!("button mask must be 0-255, got {mask}")))?;
        self.core.set_buttons(m);
        Ok(())
    }

    fn press(&mut self, button: &str) -> PyResult<()> {
        let bit = button_bit(button)?;
        self.core.set_buttons(self.core.buttons() | bit);
        Ok(())
    }

    fn release(&mut self, button: &str) -> PyResult<()> {
        let bit = button_bit(button)?;
        self.core.set_buttons(self.core.buttons() & !bit);
        Ok(())
    }

    /// The last drawn screen: "rgb" (144,160,3), "gray" (144,160) intensities, or "shades"
    /// (144,160) values 0-3. Always a new array.
    #[pyo3(signature = (format="rgb"))]
    fn screen<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyAny>> {
        let shades = self.core.screen();
        match format {
            "shades" => {
                let v: Vec<u8> = shades.to_vec();
                Ok(PyArray1::from_vec(py, v).reshape([SCREEN_HEIGHT, SCREEN_WIDTH])?.into_any())
            }
            "gray" => {
                let v: Vec<u8> = shades.iter().map(|&s| SHADE_INTENSITY[s as usize]).collect();
                Ok(PyArray1::from_vec(py, v).reshape([SCREEN_HEIGHT, SCREEN_WIDTH])?.into_any())
            }
            "rgb" => {
                let v: Vec<u8> = shades.iter().flat_map(|&s| [SHADE_INTENSITY[s as usize]; 3]).collect();
                Ok(PyArray1::from_vec(py, v).reshape([SCREEN_HEIGHT, SCREEN_WIDTH, 3])?.into_any())
            }
            other => Err(PyValueError::new_err(format!("format must be 'rgb', 'gray' or 'shades', got {other:?}"))),
        }
    }

    /// Reads one byte as the CPU would now (I/O registers included; 0xFFFF is IE).
    fn read(&mut self, addr: i64) -> PyResult<u8> {
        let a = check_address(addr)?;
        guarded(|| self.core.read_memory(a))
    }

    /// Reads `start..end` (end exclusive) as the CPU would now.
    fn read_range<'py>(&mut self, py: Python<'py>, start: i64, end: i64) -> PyResult<Bound<'py, PyBytes>> {
        if !(0..=0x10000).contains(&start) || !(start..=0x10000).contains(&end) {
            return Err(PyIndexError::new_err(format!("range {start:#x}..{end:#x} is outside 0x0000-0x10000")));
        }
        let v = guarded(|| (start..end).map(|a| self.core.read_memory(a as u16)).collect::<Vec<u8>>())?;
        Ok(PyBytes::new(py, &v))
    }

    /// Reads the given addresses without side effects (no device catch-up, no VRAM/OAM/DMA locks;
    /// I/O registers as of the end of the last CPU batch).
    fn peek_bytes<'py>(&self, py: Python<'py>, addresses: Vec<i64>) -> PyResult<Bound<'py, PyBytes>> {
        let v = addresses.into_iter().map(|a| check_address(a).map(|a| self.core.peek(a))).collect::<PyResult<Vec<u8>>>()?;
        Ok(PyBytes::new(py, &v))
    }

    /// `peek_bytes` over `start..end`.
    fn peek_range<'py>(&self, py: Python<'py>, start: i64, end: i64) -> PyResult<Bound<'py, PyBytes>> {
        if !(0..=0x10000).contains(&start) || !(start..=0x10000).contains(&end) {
            return Err(PyIndexError::new_err(format!("range {start:#x}..{end:#x} is outside 0x0000-0x10000")));
        }
        let v: Vec<u8> = (start..end).map(|a| self.core.peek(a as u16)).collect();
        Ok(PyBytes::new(py, &v))
    }

    /// Writes one byte as the CPU would (MBC registers included).
    fn write(&mut self, addr: i64, value: i64) -> PyResult<()> {
        let a = check_address(addr)?;
        let v = u8::try_from(value).map_err(|_| PyValueError::new_err(format!("value must be 0-255, got {value}")))?;
        guarded(|| self.core.write_memory(a, v))
    }

    /// CPU registers: a f b c d e h l sp pc, plus ime and halted.
    fn registers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.core.registers();
        let d = PyDict::new(py);
        for (k, v) in [("a", r.a), ("f", r.f), ("b", r.b), ("c", r.c), ("d", r.d), ("e", r.e), ("h", r.h), ("l", r.l)] {
            d.set_item(k, v)?;
        }
        d.set_item("sp", r.sp)?;
        d.set_item("pc", r.pc)?;
        d.set_item("ime", self.core.cpu.ime)?;
        d.set_item("halted", self.core.cpu.halted)?;
        Ok(d)
    }

    /// T-cycles since power-on.
    #[getter]
    fn cycles(&self) -> u64 {
        self.core.cycles()
    }

    /// Frames completed since power-on.
    #[getter]
    fn frame_count(&self) -> u64 {
        self.core.frame_count
    }

    #[getter]
    fn profile(&self) -> &'static str {
        profile_name(self.core.profile())
    }

    #[getter]
    fn title(&self) -> String {
        self.core.bus.cart.header.title.clone()
    }

    /// None while running; a description once the CPU has locked up.
    #[getter]
    fn fault(&self) -> Option<String> {
        self.core.fault().map(|f| f.to_string())
    }

    /// Bytes written to the serial port (SB) since the last call.
    fn serial_output<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let v = self.core.take_serial_output();
        PyBytes::new(py, &v)
    }

    /// Cartridge RAM, all banks (the battery save).
    fn cartridge_ram<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.core.bus.cart.ram())
    }

    /// Complete machine state as bytes.
    fn save_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = guarded(|| self.core.save_state())?;
        Ok(PyBytes::new(py, &v))
    }

    /// Restores a state made by `save_state` of the same ROM and profile; on error nothing changes.
    fn load_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let state = bytes_like(state, "state")?;
        guarded(|| self.core.load_state(&state))?.map_err(|e| StateLoadError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!(
            "GameBoy(title={:?}, profile={:?}, frame={}, cycles={})",
            self.core.bus.cart.header.title,
            profile_name(self.core.profile()),
            self.core.frame_count,
            self.core.cycles()
        )
    }
}

/// Checks that `obj` is a writeable, C-contiguous uint8 numpy array of exactly `shape`; returns a
/// raw pointer to its data (valid while the array lives and is not resized). Called once per step,
/// so it reads the array struct directly (no numpy borrow registry: nothing in Rust holds a borrow
/// of the array across calls, and the caller's arrays are checked against each other by address).
fn checked_output(obj: &Bound<'_, PyAny>, what: &str, shape: &[usize]) -> PyResult<(*mut u8, usize)> {
    let arr = obj.cast::<PyArrayDyn<u8>>().map_err(|_| {
        let dtype = obj.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| obj.get_type().to_string());
        PyTypeError::new_err(format!("{what} must be a numpy uint8 array, got {dtype}"))
    })?;
    if arr.shape() != shape {
        return Err(PyValueError::new_err(format!("{what} must have shape {shape:?}, got {:?}", arr.shape())));
    }
    if !arr.is_c_contiguous() {
        return Err(PyValueError::new_err(format!("{what} must be C-contiguous (use np.ascontiguousarray or allocate with np.empty)")));
    }
    // SAFETY: `arr` is a live numpy array (checked by the cast above); only its flags are read.
    if unsafe { (*arr.as_array_ptr()).flags } & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0 {
        return Err(PyValueError::new_err(format!("{what} is not writeable")));
    }
    Ok((arr.data(), arr.len()))
}

/// Raw output pointer carried into the GIL-free section.
struct OutPtr(*mut u8, usize);
unsafe impl Send for OutPtr {}

impl OutPtr {
    /// SAFETY: the caller keeps the numpy array alive and unaliased for the slice's lifetime.
    unsafe fn slice<'a>(&self) -> &'a mut [u8] {
        if self.1 == 0 {
            &mut []
        } else {
            std::slice::from_raw_parts_mut(self.0, self.1)
        }
    }
}

/// N emulators of one ROM, stepped together on the calling thread and persistent workers, the GIL released.
#[pyclass(module = "emurust._emurust", name = "VecGameBoy")]
pub struct PyVecGameBoy {
    batch: Batch,
    /// Discrete action index -> button mask; None means actions are masks.
    action_table: Option<Vec<u8>>,
    reset_state: Option<Vec<u8>>,
    /// Button masks of the current step (a scratch buffer kept to avoid an allocation per step).
    buttons: Vec<u8>,
}

impl PyVecGameBoy {
    fn num_envs(&self) -> usize {
        self.batch.envs.len()
    }

    fn screen_shape(&self) -> Option<Vec<usize>> {
        self.screen_dims().map(|(dims, rank)| dims[..rank].to_vec())
    }

    /// The screen observation's shape as (dimensions, rank), without allocating (checked every step).
    fn screen_dims(&self) -> Option<([usize; 4], usize)> {
        let spec = &self.batch.spec;
        spec.screen.map(|f| {
            let dims = [self.num_envs(), spec.screen_height(), spec.screen_width(), 3];
            (dims, if f == ScreenFormat::Rgb { 4 } else { 3 })
        })
    }

    fn ram_shape(&self) -> Vec<usize> {
        vec![self.num_envs(), self.batch.spec.ram_addresses.len()]
    }

    /// Validates the requested outputs against the configuration.
    fn outputs(&self, screen_out: Option<&Bound<'_, PyAny>>, ram_out: Option<&Bound<'_, PyAny>>) -> PyResult<(OutPtr, OutPtr)> {
        let screen = match (self.screen_dims(), screen_out) {
            (Some((dims, rank)), Some(obj)) => {
                let (p, n) = checked_output(obj, "screen_out", &dims[..rank])?;
                OutPtr(p, n)
            }
            (Some((dims, rank)), None) => {
                return Err(PyValueError::new_err(format!(
                    "screen_out is required: this VecGameBoy observes the screen, shape {:?} uint8",
                    &dims[..rank]
                )))
            }
            (None, Some(_)) => return Err(PyValueError::new_err("screen_out given but this VecGameBoy was created with screen=None")),
            (None, None) => OutPtr(std::ptr::null_mut(), 0),
        };
        let n_ram = self.batch.spec.ram_addresses.len();
        let ram = match ram_out {
            Some(obj) if n_ram > 0 => {
                let (p, n) = checked_output(obj, "ram_out", &[self.num_envs(), n_ram])?;
                OutPtr(p, n)
            }
            Some(_) => return Err(PyValueError::new_err("ram_out given but this VecGameBoy has no ram_addresses")),
            None if n_ram > 0 => {
                return Err(PyValueError::new_err(format!("ram_out is required: shape {:?} uint8", self.ram_shape())))
            }
            None => OutPtr(std::ptr::null_mut(), 0),
        };
        if screen.1 != 0 && ram.1 != 0 {
            let (s0, s1) = (screen.0 as usize, screen.0 as usize + screen.1);
            let (r0, r1) = (ram.0 as usize, ram.0 as usize + ram.1);
            if s0 < r1 && r0 < s1 {
                return Err(PyValueError::new_err("screen_out and ram_out must not overlap"));
            }
        }
        Ok((screen, ram))
    }

    /// Converts `actions` into button masks in `self.buttons` (reused every step, so no allocation).
    fn buttons_from(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.num_envs();
        // Called once per step: shape and dtype come from the array struct (no Python attribute
        // lookups), and the values are converted at once with the GIL held (no borrow registry).
        let dtype_error = || {
            let dtype = actions.getattr("dtype").map(|d| d.to_string()).unwrap_or_else(|_| actions.get_type().to_string());
            PyTypeError::new_err(format!("actions must be a numpy array of uint8, int32 or int64, got {dtype}"))
        };
        let untyped = actions.cast::<PyUntypedArray>().map_err(|_| dtype_error())?;
        let dtype = untyped.dtype();
        let py = actions.py();
        let kind = if dtype.is_equiv_to(&numpy::dtype::<u8>(py)) {
            0
        } else if dtype.is_equiv_to(&numpy::dtype::<i64>(py)) {
            1
        } else if dtype.is_equiv_to(&numpy::dtype::<i32>(py)) {
            2
        } else {
            return Err(dtype_error());
        };
        if untyped.shape() != [n] {
            return Err(PyValueError::new_err(format!("actions must have shape ({n},), got {:?}", untyped.shape())));
        }
        let table = self.action_table.as_deref();
        let to_mask = |i: i64| -> PyResult<u8> {
            match table {
                Some(table) => usize::try_from(i).ok().and_then(|i| table.get(i).copied()).ok_or_else(|| {
                    PyValueError::new_err(format!("action {i} is outside the action table (0..{})", table.len()))
                }),
                None => u8::try_from(i).map_err(|_| PyValueError::new_err(format!("button mask {i} is outside 0-255"))),
            }
        };
        let buttons = &mut self.buttons;
        buttons.clear();
        // SAFETY (the three `as_array`s): the array is 1-D of this dtype (checked above), read while
        // the GIL is held and converted before anything else runs; no Rust reference to it is alive.
        match kind {
            0 => {
                for &v in unsafe { actions.cast_unchecked::<PyArray1<u8>>().as_array() }.iter() {
                    buttons.push(to_mask(v as i64)?);
                }
            }
            1 => {
                for &v in unsafe { actions.cast_unchecked::<PyArray1<i64>>().as_array() }.iter() {
                    buttons.push(to_mask(v)?);
                }
            }
            _ => {
                for &v in unsafe { actions.cast_unchecked::<PyArray1<i32>>().as_array() }.iter() {
                    buttons.push(to_mask(v as i64)?);
                }
            }
        }
        Ok(())
    }

    fn env_index(&self, i: i64) -> PyResult<usize> {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < self.num_envs())
            .ok_or_else(|| PyIndexError::new_err(format!("env index {i} out of range 0..{}", self.num_envs())))
    }
}

#[pymethods]
impl PyVecGameBoy {
    #[new]
    #[pyo3(signature = (rom, num_envs, frame_skip=1, *, screen="gray", downscale=1, ram_addresses=Vec::new(),
                        action_table=None, boot_rom=None, profile="pyboy", num_threads=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        rom: &Bound<'_, PyAny>,
        num_envs: i64,
        frame_skip: i64,
        screen: Option<&str>,
        downscale: i64,
        ram_addresses: Vec<i64>,
        action_table: Option<Vec<i64>>,
        boot_rom: Option<&Bound<'_, PyAny>>,
        profile: &str,
        num_threads: i64,
    ) -> PyResult<Self> {
        let profile = parse_profile(profile)?;
        let rom = bytes_like(rom, "rom")?;
        let boot_rom = optional_bytes_like(boot_rom, "boot_rom")?;
        let (rom, boot_rom) = (rom.as_slice(), boot_rom.as_deref());
        if !(1..=1 << 20).contains(&num_envs) {
            return Err(PyValueError::new_err(format!("num_envs must be between 1 and 1048576, got {num_envs}")));
        }
        if !(1..=1 << 16).contains(&frame_skip) {
            return Err(PyValueError::new_err(format!("frame_skip must be between 1 and 65536, got {frame_skip}")));
        }
        let screen = match screen {
            None => None,
            Some("gray") => Some(ScreenFormat::Gray),
            Some("rgb") => Some(ScreenFormat::Rgb),
            Some(other) => return Err(PyValueError::new_err(format!("screen must be 'gray', 'rgb' or None, got {other:?}"))),
        };
        let downscale = usize::try_from(downscale).map_err(|_| PyValueError::new_err("downscale must be positive"))?;
        let ram_addresses = ram_addresses.into_iter().map(check_address).collect::<PyResult<Vec<u16>>>()?;
        let action_table = match action_table {
            None => None,
            Some(t) if t.is_empty() => return Err(PyValueError::new_err("action_table must not be empty")),
            Some(t) => Some(
                t.into_iter()
                    .map(|m| u8::try_from(m).map_err(|_| PyValueError::new_err(format!("action_table entry {m} is not a 0-255 button mask"))))
                    .collect::<PyResult<Vec<u8>>>()?,
            ),
        };
        let threads = usize::try_from(num_threads).map_err(|_| PyValueError::new_err("num_threads must be >= 0 (0 = one per core)"))?;
        let spec = ObservationSpec { screen, downscale, ram_addresses };
        // Parse the ROM first so ROM problems raise RomLoadError.
        guarded(|| Core::new(rom, boot_rom, profile))?.map_err(rom_error)?;
        let batch = guarded(|| Batch::new(rom, boot_rom, profile, num_envs as usize, frame_skip as u32, spec, threads))?
            .map_err(PyValueError::new_err)?;
        Ok(PyVecGameBoy { batch, action_table, reset_state: None, buttons: Vec::with_capacity(num_envs as usize) })
    }

    #[getter(num_envs)]
    fn num_envs_py(&self) -> usize {
        self.num_envs()
    }

    #[getter]
    fn frame_skip(&self) -> u32 {
        self.batch.frame_skip
    }

    #[getter]
    fn num_threads(&self) -> usize {
        self.batch.num_threads()
    }

    /// Shape of `screen_out`, or None without a screen observation.
    #[getter(screen_shape)]
    fn screen_shape_py(&self) -> Option<Vec<usize>> {
        self.screen_shape()
    }

    /// Shape of `ram_out`.
    #[getter(ram_shape)]
    fn ram_shape_py(&self) -> Vec<usize> {
        self.ram_shape()
    }

    #[getter]
    fn ram_addresses(&self) -> Vec<u16> {
        self.batch.spec.ram_addresses.clone()
    }

    #[getter]
    fn action_table(&self) -> Option<Vec<u8>> {
        self.action_table.clone()
    }

    /// Advances every emulator `frame_skip` frames and writes observations into the given arrays.
    /// `actions`: shape (num_envs,), button masks (uint8/int) or indices into `action_table`.
    /// Raises EmulatorFault (after the step) if any emulator's CPU has locked up.
    #[pyo3(signature = (actions, screen_out=None, ram_out=None))]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
        screen_out: Option<&Bound<'_, PyAny>>,
        ram_out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.buttons_from(actions)?;
        let (screen, ram) = self.outputs(screen_out, ram_out)?;
        let (batch, buttons) = (&mut self.batch, &self.buttons);
        // The arrays stay alive (borrowed by the caller's frame) for the whole call.
        let fault = py.detach(move || guarded(move || unsafe { batch.step(buttons, screen.slice(), ram.slice()) }))?;
        if let Some((i, f)) = fault {
            return Err(EmulatorFault::new_err(format!("emulator {i}: {f}")));
        }
        Ok(())
    }

    /// Writes the current observations without stepping.
    #[pyo3(signature = (screen_out=None, ram_out=None))]
    fn observe(&mut self, py: Python<'_>, screen_out: Option<&Bound<'_, PyAny>>, ram_out: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let (screen, ram) = self.outputs(screen_out, ram_out)?;
        let batch = &mut self.batch;
        py.detach(move || guarded(move || unsafe { batch.observe(screen.slice(), ram.slice()) }))
    }

    /// Faults per emulator (None where running).
    fn faults(&self) -> Vec<Option<String>> {
        self.batch.envs.iter().map(|g| g.fault().map(|f| f.to_string())).collect()
    }

    fn save_state<'py>(&self, py: Python<'py>, index: i64) -> PyResult<Bound<'py, PyBytes>> {
        let i = self.env_index(index)?;
        let v = guarded(|| self.batch.envs[i].save_state())?;
        Ok(PyBytes::new(py, &v))
    }

    fn load_state(&mut self, index: i64, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let i = self.env_index(index)?;
        let state = bytes_like(state, "state")?;
        guarded(|| self.batch.envs[i].load_state(&state))?.map_err(|e| StateLoadError::new_err(e.to_string()))
    }

    /// The state `reset` restores (None until set: `reset` then powers on afresh from cycle 0).
    #[getter]
    fn get_reset_state<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.reset_state.as_ref().map(|s| PyBytes::new(py, s))
    }

    #[setter]
    fn set_reset_state(&mut self, state: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let state = optional_bytes_like(state, "reset_state")?;
        if let Some(s) = &state {
            // Validate now so that reset never fails later.
            let mut probe = self.batch.envs[0].clone();
            guarded(|| probe.load_state(s))?.map_err(|e| StateLoadError::new_err(e.to_string()))?;
        }
        self.reset_state = state;
        Ok(())
    }

    /// Puts the emulators where `mask` is true (all if None) back to the reset state.
    #[pyo3(signature = (mask=None))]
    fn reset(&mut self, py: Python<'_>, mask: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let n = self.num_envs();
        let mask: Vec<bool> = match mask {
            None => vec![true; n],
            Some(obj) => {
                let arr = obj.cast::<PyArrayDyn<bool>>().map_err(|_| PyTypeError::new_err("mask must be a numpy bool array"))?;
                if arr.shape() != [n] {
                    return Err(PyValueError::new_err(format!("mask must have shape ({n},), got {:?}", arr.shape())));
                }
                arr.readonly().as_array().iter().copied().collect()
            }
        };
        let state = self.reset_state.clone().unwrap_or_else(|| self.batch.power_on_state.clone());
        let batch = &mut self.batch;
        py.detach(|| guarded(|| batch.load_state_where(&mask, &state)))?.map_err(|e| StateLoadError::new_err(e.to_string()))
    }

    fn __len__(&self) -> usize {
        self.num_envs()
    }
}

/// Screen of a GameBoy as a grayscale/RGB observation (same conversion as VecGameBoy).
#[pyfunction]
#[pyo3(signature = (gameboy, screen="gray", downscale=1))]
fn observe_screen<'py>(py: Python<'py>, gameboy: &PyGameBoy, screen: &str, downscale: usize) -> PyResult<Bound<'py, PyAny>> {
    let format = match screen {
        "gray" => ScreenFormat::Gray,
        "rgb" => ScreenFormat::Rgb,
        other => return Err(PyValueError::new_err(format!("screen must be 'gray' or 'rgb', got {other:?}"))),
    };
    let spec = ObservationSpec { screen: Some(format), downscale, ram_addresses: vec![] };
    spec.validate().map_err(PyValueError::new_err)?;
    let mut out = vec![0u8; spec.screen_len()];
    write_screen(&gameboy.core, &spec, &mut out);
    let (h, w) = (spec.screen_height(), spec.screen_width());
    Ok(match format {
        ScreenFormat::Gray => PyArray1::from_vec(py, out).reshape([h, w])?.into_any(),
        ScreenFormat::Rgb => PyArray1::from_vec(py, out).reshape([h, w, 3])?.into_any(),
    })
}

#[pymodule]
#[pyo3(name = "_emurust")]
fn emurust_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", crate::VERSION)?;
    m.add_class::<PyGameBoy>()?;
    m.add_class::<PyVecGameBoy>()?;
    m.add_function(wrap_pyfunction!(observe_screen, m)?)?;
    m.add("RomLoadError", py.get_type::<RomLoadError>())?;
    m.add("StateLoadError", py.get_type::<StateLoadError>())?;
    m.add("EmulatorFault", py.get_type::<EmulatorFault>())?;
    m.add("BUTTON_NAMES", BUTTON_NAMES.to_vec())?;
    m.add("DEFAULT_BOOT_ROM", PyBytes::new(py, &default_boot_rom()))?;
    m.add("SCREEN_SHAPE", (SCREEN_HEIGHT, SCREEN_WIDTH))?;
    Ok(())
}
