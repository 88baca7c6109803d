; HALT and EI corner cases: where interrupt handlers return to, and HALT with IME=0 and a request
; pending. Results: C000.. return addresses (little endian), C010 counter after HALT with IME=0.
        .include "common.inc"
main:
        ld      a, #0x04
        ldh     (0xFF), a               ; IE = timer
        ld      hl, #0xC000
        ; (a) plain HALT with IME=1, woken by the timer
        call    arm_timer
        ei
        nop
        halt
        nop
        ; (b) EI;HALT with nothing pending
        di
        call    arm_timer
        ei
        halt
        nop
        ; (c) EI;NOP;HALT with a request already pending
        di
        ld      a, #0x04
        ldh     (0x0F), a
        ei
        nop
        halt
        nop
        ; (d) EI;HALT with a request already pending (returns to the HALT: it waits for one more)
        di
        ld      a, #0x04
        ldh     (0x0F), a
        call    arm_timer_long
        ei
        halt
        nop
        ; (e) HALT with IME=0 and a request pending: no wait
        di
        ld      a, #0x04
        ldh     (0x0F), a
        xor     a
        halt
        inc     a
        inc     a
        ld      (0xC010), a
        ; (f) DI then HALT, woken without dispatch by a timer request
        xor     a
        ldh     (0x0F), a
        call    arm_timer
        halt
        ldh     a, (0x05)
        ld      (0xC011), a
        ldh     a, (0x04)
        ld      (0xC012), a
        jp      finish

arm_timer:
        ld      a, #0xF8
        ldh     (0x05), a
        ld      a, #0x05
        ldh     (0x07), a
        ret
arm_timer_long:
        ld      a, #0x80
        ldh     (0x05), a
        ld      a, #0x05
        ldh     (0x07), a
        ret

isr_timer:
        xor     a
        ldh     (0x07), a               ; timer off
        pop     de                      ; return address -> results
        ld      a, e
        ld      (hl+), a
        ld      a, d
        ld      (hl+), a
        push    de
        ldh     a, (0x04)
        ld      (hl+), a
        reti
isr_vblank:
isr_stat:
isr_serial:
isr_joypad:
        reti
