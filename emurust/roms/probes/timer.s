; Timer corner cases around a TIMA overflow: reads of TIMA/IF, writes of TIMA/TMA at 4-cycle steps
; through the zero and reload windows, and DIV/TAC writes that make falling edges. From C000.
        .include "common.inc"
main:
        ld      hl, #0xC000
        ld      e, #0
loop:
        xor     a
        ldh     (0x07), a
        ldh     (0x0F), a
        ld      a, #0x80
        ldh     (0x06), a               ; TMA
        ld      a, #0xFD
        ldh     (0x05), a               ; TIMA: 3 ticks to overflow
        xor     a
        ldh     (0x04), a               ; DIV = 0: known phase
        ld      a, #0x05
        ldh     (0x07), a               ; 16 cycles per tick
        ld      a, e
        and     #0x0F
        inc     a
        ld      c, a
2$:     dec     c                       ; 4*(e&15)+.. cycles of delay in 4-cycle steps
        jr      z, 3$
        nop
        jr      2$
3$:     ld      a, e
        and     #0x30
        jr      nz, 4$
        ldh     a, (0x05)               ; action 0: read TIMA
        jr      9$
4$:     cp      #0x10
        jr      nz, 5$
        ld      a, #0x33
        ldh     (0x05), a               ; action 1: write TIMA
        jr      8$
5$:     cp      #0x20
        jr      nz, 6$
        ld      a, #0x44
        ldh     (0x06), a               ; action 2: write TMA
        jr      8$
6$:     xor     a
        ldh     (0x04), a               ; action 3: DIV write (falling edge when bit 3 high)
8$:     ldh     a, (0x05)
9$:     ld      (hl+), a
        ldh     a, (0x0F)
        ld      (hl+), a
        ldh     a, (0x05)
        ld      (hl+), a
        ldh     a, (0x0F)
        ld      (hl+), a
        inc     e
        ld      a, e
        cp      #64
        jr      nz, loop
        ; TAC changes that drop the selected bit: every rate pair.
        ld      e, #0
tac_loop:
        xor     a
        ldh     (0x05), a
        ldh     (0x04), a
        ld      a, e
        and     #3
        or      #4
        ldh     (0x07), a
        ld      a, e
        and     #0x0C
        add     a, #4
        ld      c, a
        call    delay
        ld      a, e
        rrca
        rrca
        and     #3
        ldh     (0x07), a               ; switch rate (and disable when bit 2 clear)
        ldh     a, (0x05)
        ld      (hl+), a
        inc     e
        ld      a, e
        cp      #32
        jr      nz, tac_loop
        jp      finish

isr_vblank:
isr_stat:
isr_timer:
isr_serial:
isr_joypad:
        reti
