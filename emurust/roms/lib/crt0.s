; emurust test ROMs: start-up file for sdcc's sm83 port (written for this project).
;
; Lays out the cartridge: restart and interrupt vectors, the entry point at 0x0100 (the header bytes
; 0x0104-0x014F are filled in by makebin), RAM initialisation, then main().
; Interrupt vectors save all registers and call the C handlers isr_vblank, isr_stat, isr_timer,
; isr_serial and isr_joypad (defined in gb.c), then return with RETI.

        .module crt0
        .globl  _main
        .globl  _isr_vblank, _isr_stat, _isr_timer, _isr_serial, _isr_joypad
        .globl  s__DATA, l__DATA, s__INITIALIZER, l__INITIALIZER, s__INITIALIZED

        .area   _HEADER (ABS)

        ; Restart vectors are unused: RST 0x38 (opcode 0xFF, what blank ROM reads as) stops here.
        .org    0x0038
        di
crash:  halt
        jr      crash

        .org    0x0040
        jp      vblank_entry
        .org    0x0048
        jp      stat_entry
        .org    0x0050
        jp      timer_entry
        .org    0x0058
        jp      serial_entry
        .org    0x0060
        jp      joypad_entry

        .org    0x0100
        nop
        jp      init

        ; 0x0104-0x014F: header, written by makebin.
        .org    0x0150
init:
        di
        ld      sp, #0xE000
        ; Zero the C variables (_DATA), then copy initialised variables from ROM.
        ld      hl, #s__DATA
        ld      bc, #l__DATA
        call    zero_fill
        ld      de, #s__INITIALIZED
        ld      hl, #s__INITIALIZER
        ld      bc, #l__INITIALIZER
        call    copy_bytes
        call    gsinit
        call    _main
forever:
        halt
        jr      forever

; hl = destination, bc = count
zero_fill:
        ld      a, b
        or      c
        ret     z
        xor     a
        ld      (hl+), a
        dec     bc
        jr      zero_fill

; hl = source, de = destination, bc = count
copy_bytes:
        ld      a, b
        or      c
        ret     z
        ld      a, (hl+)
        ld      (de), a
        inc     de
        dec     bc
        jr      copy_bytes

; Each interrupt entry saves the registers the C handler may clobber.
vblank_entry:
        push    af
        push    bc
        push    de
        push    hl
        call    _isr_vblank
        jr      isr_exit
stat_entry:
        push    af
        push    bc
        push    de
        push    hl
        call    _isr_stat
        jr      isr_exit
timer_entry:
        push    af
        push    bc
        push    de
        push    hl
        call    _isr_timer
        jr      isr_exit
serial_entry:
        push    af
        push    bc
        push    de
        push    hl
        call    _isr_serial
        jr      isr_exit
joypad_entry:
        push    af
        push    bc
        push    de
        push    hl
        call    _isr_joypad
isr_exit:
        pop     hl
        pop     de
        pop     bc
        pop     af
        reti

        ; Area order: code and constant data in ROM, then variables in RAM (see roms.py for bases).
        .area   _HOME
        .area   _CODE
        .area   _INITIALIZER
        .area   _GSINIT
gsinit::
        .area   _GSFINAL
        ret
        .area   _DATA
        .area   _INITIALIZED
        .area   _BSEG
        .area   _BSS
        .area   _HEAP
