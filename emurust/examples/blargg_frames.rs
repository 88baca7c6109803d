use emurust::{GameBoy, Profile};
fn main() {
    for path in std::env::args().skip(1) {
        let rom = std::fs::read(&path).unwrap();
        let mut gb = GameBoy::new(&rom, None, Profile::PyBoy).unwrap();
        let mut s = String::new();
        let mut f = 0;
        while f < 20000 {
            gb.run_frame(false).unwrap();
            f += 1;
            s.extend(gb.take_serial_output().iter().map(|&b| b as char));
            if s.contains("Passed") || s.contains("Failed") { break; }
            let c = &gb.bus.cart;
            if (1..4).map(|i| c.ram_bank_byte(0, i).unwrap()).collect::<Vec<_>>() == [0xDE, 0xB0, 0x61] && c.ram_bank_byte(0, 0) != Some(0x80) { break; }
        }
        println!("{f}\t{}\t{path}", gb.cycles());
    }
}
