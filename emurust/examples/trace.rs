//! Debugging aid: runs a ROM and prints every scheduler batch and LCD catch-up between two cycle
//! counts, in the same format as the PyBoy tracer used while matching timings.
//! Usage: trace ROM FRAMES FROM_CYCLE TO_CYCLE [BUTTONS_FILE (one byte per frame)] [BOOT_ROM]
use emurust::{GameBoy, Profile};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rom = std::fs::read(&args[1]).unwrap();
    let frames: u64 = args[2].parse().unwrap();
    let from: u64 = args[3].parse().unwrap();
    let to: u64 = args[4].parse().unwrap();
    let buttons = args.get(5).filter(|s| !s.is_empty()).map(|p| std::fs::read(p).unwrap()).unwrap_or_default();
    let boot = args.get(6).map(|p| std::fs::read(p).unwrap());
    let mut gb = GameBoy::new(&rom, boot.as_deref(), Profile::PyBoy).unwrap();
    // EMURUST_TRACE_REAL=1: run the library's own frame loop (with its halted fast path) instead.
    if std::env::var("EMURUST_TRACE_REAL").is_ok() {
        for f in 0..frames {
            gb.set_buttons(buttons.get(f as usize).copied().unwrap_or(0));
            gb.run_frame(true).unwrap();
            if (from..=to).contains(&gb.cycles()) {
                println!("FRAME {} {}", f + 1, gb.cycles());
            }
        }
        return;
    }
    for f in 0..frames {
        gb.set_buttons(buttons.get(f as usize).copied().unwrap_or(0));
        // Same loop as GameBoy::run_frame, with prints.
        let GameBoy { cpu, bus, .. } = &mut gb;
        if bus.joypad.set_pressed(buttons.get(f as usize).copied().unwrap_or(0)) {
            bus.interrupt_flag |= 0x10;
        }
        bus.ppu.render_enabled = true;
        let fast = std::env::var("EMURUST_TRACE_FAST").is_ok();
        loop {
            if fast && cpu.halted && cpu.ei_delay == 0 && bus.interrupt_flag & bus.interrupt_enable & 0x1F == 0 && bus.dma_idle() {
                let device_event = bus.next_device_event();
                loop {
                    bus.ppu.skip_unobserved_modes(device_event);
                    let deadline = bus.ppu.next_event();
                    // A halted batch lasts at least 4 cycles; if it would reach a timer/serial
                    // event, the general loop must run it (it catches those devices up too).
                    if deadline.max(cpu.cycles + 4) >= device_event {
                        break;
                    }
                    let before = cpu.cycles;
                    cpu.cycles = deadline.max(cpu.cycles + 4);
                    if (from..=to).contains(&before) {
                        println!("F {:>9} -> {:>9} (deadline {} device {})", before, cpu.cycles, deadline, device_event);
                    }
                    bus.sync_lcd(cpu.cycles);
                    if bus.ppu.frame_done || bus.interrupt_flag & bus.interrupt_enable & 0x1F != 0 {
                        break;
                    }
                }
                if bus.ppu.frame_done {
                    bus.ppu.frame_done = false;
                    break;
                }
                if bus.interrupt_flag & bus.interrupt_enable & 0x1F != 0
                    || bus.ppu.next_event().max(cpu.cycles + 4) < bus.next_device_event()
                {
                    continue;
                }
            }
            let now = cpu.cycles;
            let deadline = bus.ppu.next_event().min(bus.next_device_event());
            let target = if deadline > now + 4 { deadline - now } else { 4 };
            cpu.run_batch(bus, target);
            let c = cpu.cycles;
            if (from..=to).contains(&now) {
                println!("B {:>9} +{:<5} -> {:>9} PC={:04x} IF={:02x}", now, target, c, cpu.pc, bus.interrupt_flag);
            }
            bus.sync_dma(c);
            bus.sync_serial(c);
            bus.sync_timer(c);
            bus.sync_lcd(c);
            if (from..=to).contains(&c) {
                let p = &bus.ppu;
                println!("   L {:>9} next={} LY={} mode={} ff={}", c, p.next_event(), p.ly, p.mode, p.frame_done);
            }
            if bus.ppu.frame_done {
                bus.ppu.frame_done = false;
                break;
            }
        }
        gb.frame_count += 1;
        if (from..=to).contains(&gb.cycles()) {
            println!("FRAME {} {}", f + 1, gb.cycles());
        }
    }
}
