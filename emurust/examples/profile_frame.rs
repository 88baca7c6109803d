//! Debugging aid: per frame, scheduler batches, the halted fraction, instructions executed and the
//! most frequent opcodes. Usage: profile_frame ROM FRAMES [BUTTONS_FILE]
use emurust::{GameBoy, Profile};
use std::collections::HashMap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rom = std::fs::read(&args[1]).unwrap();
    let frames: u64 = args[2].parse().unwrap();
    let buttons = args.get(3).map(|p| std::fs::read(p).unwrap()).unwrap_or_default();
    let mut gb = GameBoy::new(&rom, None, Profile::PyBoy).unwrap();
    gb.run_frames(60, false).unwrap();
    let (mut instrs, mut halted, mut batches, mut total) = (0u64, 0u64, 0u64, 0u64);
    let mut ops: HashMap<u8, u64> = HashMap::new();
    for f in 0..frames {
        let b = if buttons.is_empty() { 0 } else { buttons[f as usize % buttons.len()] };
        let GameBoy { cpu, bus, .. } = &mut gb;
        if bus.joypad.set_pressed(b) {
            bus.interrupt_flag |= 0x10;
        }
        bus.ppu.render_enabled = false;
        let start = cpu.cycles;
        loop {
            let now = cpu.cycles;
            let deadline = bus.ppu.next_event().min(bus.next_device_event());
            let target = if deadline > now + 4 { deadline - now } else { 4 };
            batches += 1;
            let end = now + target;
            // Same as run_batch: the interrupt check (a zero-length batch), then whole instructions.
            cpu.run_batch(bus, 0);
            if cpu.halted {
                halted += end - cpu.cycles;
                cpu.cycles = end;
            } else {
                bus.batch_end = end;
                while cpu.cycles < bus.batch_end {
                    let op = bus.read(cpu.pc, cpu.cycles);
                    *ops.entry(op).or_insert(0) += 1;
                    cpu.step(bus);
                    instrs += 1;
                }
            }
            let c = cpu.cycles;
            bus.sync_dma(c);
            bus.sync_serial(c);
            bus.sync_timer(c);
            bus.sync_lcd(c);
            if bus.ppu.frame_done {
                bus.ppu.frame_done = false;
                break;
            }
        }
        total += cpu.cycles - start;
    }
    let n = frames as f64;
    println!(
        "batches/frame {:.0}, halted {:.3}, instructions/frame {:.0}, cycles/frame {:.0}",
        batches as f64 / n,
        halted as f64 / total as f64,
        instrs as f64 / n,
        total as f64 / n
    );
    let mut v: Vec<_> = ops.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1));
    for (op, c) in v.iter().take(16) {
        print!("{op:02X}:{:.0} ", *c as f64 / n);
    }
    println!();
}
