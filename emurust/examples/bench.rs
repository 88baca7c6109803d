//! Frames per second of one emulator on one core: `bench ROM FRAMES [render 0|1] [buttons file]`.
use emurust::{GameBoy, Profile};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rom = std::fs::read(&args[1]).unwrap();
    let frames: usize = args[2].parse().unwrap();
    let render = args.get(3).map(|s| s == "1").unwrap_or(false);
    let buttons = args.get(4).map(|p| std::fs::read(p).unwrap()).unwrap_or_default();
    let mut gb = GameBoy::new(&rom, None, Profile::PyBoy).unwrap();
    gb.run_frames(60, false).unwrap();
    let start = Instant::now();
    for f in 0..frames {
        gb.set_buttons(if buttons.is_empty() { 0 } else { buttons[f % buttons.len()] });
        gb.run_frame(render).unwrap();
    }
    let dt = start.elapsed().as_secs_f64();
    println!("{:.0} frames/s ({} frames, render={render})", frames as f64 / dt, frames);
}
