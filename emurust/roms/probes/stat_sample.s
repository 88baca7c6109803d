; STAT and LY as the CPU sees them, sampled every 20 cycles across line boundaries with LDH and
; with LD A,(HL) (which sees the LCD 4 cycles later), for every SCX fine scroll and with sprites of
; several X positions on the sampled lines (mode-3 length). 64 variants x 24 samples from C000.
        .include "common.inc"
main:
        ; Sprites on lines 60-67 at X = 8, 16, 40, 61, 90, 168 and 10 more on lines 90-97.
        ld      hl, #0xFE00
        ld      de, #sprite_table
        ld      b, #64
1$:     ld      a, (de)
        ld      (hl+), a
        inc     de
        dec     b
        jr      nz, 1$
        ld      a, #0x93                ; LCD on, sprites on
        ldh     (0x40), a
        ld      hl, #0xC000
        ld      e, #0
loop:
        ld      a, e
        and     #7
        ldh     (0x43), a               ; SCX fine scroll
        ld      a, e
        and     #0x18
        rlca
        add     a, #30                  ; line 30, 46, 62 or 78
        ld      b, a
        call    wait_ly
        ld      a, e
        and     #0x20
        jr      z, 2$
        nop
2$:     ld      a, e
        and     #0x03
        inc     a
        ld      c, a
        call    delay
        ld      d, #12
3$:     ldh     a, (0x41)
        ld      (hl+), a
        dec     d
        jr      nz, 3$
        push    hl
        ld      d, #12
        ld      bc, #0xFF41
        ld      hl, #0xC800
4$:     ld      a, (bc)
        ld      (hl+), a
        dec     d
        jr      nz, 4$
        pop     hl
        push    hl
        ld      hl, #0xFF41
        ld      d, #6
5$:     ld      a, (hl)
        ld      (0xC900), a
        dec     d
        jr      nz, 5$
        ld      a, (0xC900)
        pop     hl
        ld      (hl+), a
        ldh     a, (0x44)
        ld      (hl+), a
        inc     e
        ld      a, e
        cp      #64
        jr      nz, loop
        jp      finish

sprite_table:
        .db     76, 8, 0x41, 0,   76, 16, 0x42, 0,   76, 40, 0x43, 0,   76, 61, 0x44, 0
        .db     76, 90, 0x45, 0,  76, 168, 0x46, 0,  70, 13, 0x47, 0,   70, 0, 0x48, 0
        .db     106, 20, 0x41, 0, 106, 21, 0x41, 0,  106, 22, 0x41, 0,  106, 30, 0x41, 0
        .db     106, 50, 0x41, 0, 106, 70, 0x41, 0,  106, 77, 0x41, 0,  106, 100, 0x41, 0

isr_vblank:
isr_stat:
isr_timer:
isr_serial:
isr_joypad:
        reti
