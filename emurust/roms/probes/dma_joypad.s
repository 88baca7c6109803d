; OAM DMA timing (OAM read at 4-cycle steps after the FF46 write, a restarted DMA, a source above
; 0xFE00), then joypad: P1 read with each select value while the test holds buttons, the joypad
; interrupt, and serial transfers. Results from C000.
        .include "common.inc"
main:
        ; Source page C1: bytes 0x10..0xAF.
        ld      hl, #0xC100
        ld      a, #0x10
1$:     ld      (hl+), a
        inc     a
        jr      nz, 1$
        ld      hl, #0xC000
        ld      e, #0
dma_loop:
        ld      a, #0xC1
        ldh     (0x46), a
        ld      a, e
        and     #0x0F
        jr      z, 3$
        ld      c, a
2$:     nop
        dec     c
        jr      nz, 2$
3$:     ld      a, (0xFE00)
        ld      (hl+), a
        ld      a, (0xFE01)
        ld      (hl+), a
        ld      c, #50
4$:     dec     c
        jr      nz, 4$
        ld      a, (0xFE9F)
        ld      (hl+), a
        inc     e
        ld      a, e
        cp      #24
        jr      nz, dma_loop
        ; Restart during a running DMA, and a source at 0xFE (reads the echo of work RAM).
        ld      a, #0xC1
        ldh     (0x46), a
        nop
        nop
        ld      a, #0xFE
        ldh     (0x46), a
        ld      c, #60
5$:     dec     c
        jr      nz, 5$
        ld      a, (0xFE05)
        ld      (hl+), a
        ; Joypad: read P1 with every select value for 600 frames (the test drives the buttons).
        ld      a, #0x10
        ldh     (0xFF), a               ; joypad interrupt
        ei
        ld      d, #0
frame_loop:
        ld      b, #144
        call    wait_ly
        ld      hl, #0xC400
        ld      a, d
        and     #0x3F
        add     a, a
        add     a, a
        add     a, a
        ld      l, a
        ld      a, #0x20
        ldh     (0x00), a
        ldh     a, (0x00)
        ld      (hl+), a
        ld      a, #0x10
        ldh     (0x00), a
        ldh     a, (0x00)
        ld      (hl+), a
        ldh     a, (0x00)               ; read again without writing
        ld      (hl+), a
        xor     a
        ldh     (0x00), a
        ldh     a, (0x00)
        ld      (hl+), a
        ld      a, #0x30
        ldh     (0x00), a
        ldh     a, (0x00)
        ld      (hl+), a
        ld      a, d
        ldh     (0x01), a               ; serial byte
        ld      a, #0x81
        ldh     (0x02), a
        ld      a, (0xC500)
        ld      (hl+), a
        ld      b, #143
        call    wait_ly
        inc     d
        jr      frame_loop

isr_joypad:
        push    af
        ld      a, (0xC500)
        inc     a
        ld      (0xC500), a
        ldh     a, (0x44)
        ld      (0xC501), a
        pop     af
        reti
isr_vblank:
isr_stat:
isr_timer:
isr_serial:
        reti
