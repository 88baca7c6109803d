; Switching the LCD off and on with different store instructions and at different phases; each
; switch ends a frame early in PyBoy's counting. Records LY/STAT/DIV after each switch at C000.
        .include "common.inc"
main:
        ld      hl, #0xC000
        ld      a, #0x91
        ldh     (0x40), a
        ld      e, #0                   ; variant
loop:
        ld      b, e
        ld      a, e
        and     #0x3F
        add     a, #40
        ld      b, a                    ; wait for a line 40..103
        call    wait_ly
        ld      a, e
        and     #7
        inc     a
        ld      c, a
        call    delay                   ; phase
        ld      a, e
        and     #3
        ld      b, #0x11                ; LCD off value
        call    store_lcdc
        ldh     a, (0x44)
        ld      (hl+), a
        ldh     a, (0x41)
        ld      (hl+), a
        ld      c, e
        inc     c
        call    delay
        ld      a, e
        rrca
        rrca
        and     #3
        ld      b, #0x91                ; LCD on
        call    store_lcdc
        ldh     a, (0x41)
        ld      (hl+), a
        ldh     a, (0x04)
        ld      (hl+), a
        inc     e
        ld      a, e
        cp      #48
        jr      nz, loop
        jp      finish

; Writes b to LCDC with the store selected by a: 0 LDH, 1 LD (HL), 2 LD (a16), 3 LD (DE).
store_lcdc:
        push    hl
        push    de
        or      a
        jr      nz, 1$
        ld      a, b
        ldh     (0x40), a
        jr      9$
1$:     dec     a
        jr      nz, 2$
        ld      hl, #0xFF40
        ld      (hl), b
        jr      9$
2$:     dec     a
        jr      nz, 3$
        ld      a, b
        ld      (0xFF40), a
        jr      9$
3$:     ld      de, #0xFF40
        ld      a, b
        ld      (de), a
9$:     pop     de
        pop     hl
        ret

isr_vblank:
isr_stat:
isr_timer:
isr_serial:
isr_joypad:
        reti
