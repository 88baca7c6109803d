"""Tiny hand-built ROM images for binding tests (valid headers, broken headers, illegal opcodes)."""

from __future__ import annotations


def make_rom(code: dict[int, bytes] | None = None, cart_type: int = 0x00, rom_code: int = 0, ram_code: int = 0,
             size: int | None = None, fix_checksum: bool = True) -> bytes:
    """A ROM of NOPs with `code` placed at the given addresses and a correct header checksum."""
    rom = bytearray(size if size is not None else 0x8000 << rom_code)
    rom[0x100:0x104] = bytes([0x00, 0xC3, 0x50, 0x01])  # nop; jp 0x0150
    rom[0x134:0x13C] = b"ROMKIT\0\0"
    rom[0x147], rom[0x148], rom[0x149] = cart_type, rom_code, ram_code
    for addr, data in (code or {}).items():
        rom[addr:addr + len(data)] = data
    if fix_checksum:
        rom[0x14D] = (-sum(b + 1 for b in rom[0x134:0x14D])) & 0xFF
    return bytes(rom)


#: jr -2 at 0x150: loops forever (a valid, harmless program).
LOOP = {0x150: bytes([0x18, 0xFE])}
#: An illegal opcode right at the program start.
ILLEGAL = {0x150: bytes([0x3E, 0x05, 0xD3])}  # ld a,5 ; (illegal D3)
