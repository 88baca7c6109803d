; STAT interrupt sources one by one and together (rising edge of their OR), LYC and STAT written
; mid-frame, VBlank. Each STAT interrupt records LY, STAT and DIV at C000 (up to 2 KiB).
        .include "common.inc"
main:
        ld      hl, #0xC000
        ld      a, #0x91
        ldh     (0x40), a
        ld      a, #0x03
        ldh     (0xFF), a               ; VBlank + STAT
        ld      e, #0
loop:
        ; Select sources: the variant's bits 0-3 become STAT bits 3-6.
        ld      a, e
        and     #0x0F
        rlca
        rlca
        rlca
        ld      d, a
        ld      a, e
        rlca
        rlca
        and     #0x7C
        add     a, #7
        ldh     (0x45), a               ; LYC
        ld      b, #20
        call    wait_ly
        ld      a, d
        ldh     (0x41), a
        ei
        ld      b, #24
        call    wait_ly
        di
        ; LYC written to the current line (compare at the write) and STAT rewritten.
        ldh     a, (0x44)
        inc     a
        ldh     (0x45), a
        ld      a, #0x40
        ldh     (0x41), a
        ei
        ld      b, #30
        call    wait_ly
        halt
        nop
        di
        xor     a
        ldh     (0x41), a
        inc     e
        ld      a, e
        cp      #32
        jr      nz, loop
        jp      finish

isr_stat:
        push    af
        ldh     a, (0x44)
        ld      (hl+), a
        ldh     a, (0x41)
        ld      (hl+), a
        ldh     a, (0x04)
        ld      (hl+), a
        ld      a, h
        cp      #0xC8
        jr      c, 1$
        ld      h, #0xC0                ; wrap the log
1$:     pop     af
        reti
isr_vblank:
        push    af
        ldh     a, (0x04)
        ld      (0xCF00), a
        pop     af
        reti
isr_timer:
isr_serial:
isr_joypad:
        reti
