/* emurust test ROMs: a small runtime (interrupt handlers, VBlank wait, joypad, OAM DMA, VRAM helpers,
 * text, random numbers). Written for this project. */
#include "gb.h"

extern const uint8_t font_1bpp[];

/* 256-byte aligned for OAM DMA (the linker places C variables from 0xC0A0 on). */
__at(0xC000) uint8_t shadow_oam[160];

volatile uint8_t vblank_count;
static volatile uint8_t vblank_seen;
static uint16_t rand_state = 0xACE1u;

void (*stat_hook)(void);
void (*timer_hook)(void);
void (*serial_hook)(void);
void (*joypad_hook)(void);
void (*vblank_hook)(void);

void isr_vblank(void) {
    vblank_seen = 1;
    vblank_count++;
    if (vblank_hook) vblank_hook();
}

void isr_stat(void) {
    if (stat_hook) stat_hook();
}

void isr_timer(void) {
    if (timer_hook) timer_hook();
}

void isr_serial(void) {
    if (serial_hook) serial_hook();
}

void isr_joypad(void) {
    if (joypad_hook) joypad_hook();
}

/* OAM DMA must run from HRAM: ld a,0xC0 / ldh (0x46),a / ld a,40 / loop: dec a / jr nz,loop / ret */
static const uint8_t dma_routine[] = {0x3E, 0xC0, 0xE0, 0x46, 0x3E, 0x28, 0x3D, 0x20, 0xFD, 0xC9};
#define HRAM_DMA 0xFF80

void gb_init(void) {
    uint8_t i;
    for (i = 0; i < sizeof(dma_routine); i++) REG8(HRAM_DMA + i) = dma_routine[i];
    for (i = 0; i < 160; i++) shadow_oam[i] = 0;
}

void oam_dma(void) {
    ((void (*)(void))HRAM_DMA)();
}

void wait_vblank(void) {
    vblank_seen = 0;
    while (!vblank_seen) HALT();
}

void lcd_off(void) {
    if (!(LCDC & LCD_ON)) return;
    while (LY < 144) {
    }
    LCDC &= ~LCD_ON;
}

uint8_t read_buttons(void) {
    uint8_t dirs, btns;
    P1 = 0x20; /* select directions */
    dirs = P1;
    dirs = P1;
    P1 = 0x10; /* select action buttons */
    btns = P1;
    btns = P1;
    P1 = 0x30;
    return (uint8_t)((~btns & 0x0F) | ((~dirs & 0x0F) << 4));
}

void vram_copy(uint16_t dst, const uint8_t *src, uint16_t n) {
    volatile uint8_t *d = (volatile uint8_t *)dst;
    while (n--) *d++ = *src++;
}

void vram_fill(uint16_t dst, uint8_t value, uint16_t n) {
    volatile uint8_t *d = (volatile uint8_t *)dst;
    while (n--) *d++ = value;
}

void load_font(uint16_t dst) {
    volatile uint8_t *d = (volatile uint8_t *)dst;
    uint16_t i;
    for (i = 0; i < 59 * 8; i++) {
        /* colour 3 on colour 0: both bit planes equal */
        *d++ = font_1bpp[i];
        *d++ = font_1bpp[i];
    }
}

void print_at(uint16_t map, uint8_t x, uint8_t y, const char *text) {
    volatile uint8_t *d = (volatile uint8_t *)(map + (uint16_t)y * 32 + x);
    while (*text) *d++ = (uint8_t)*text++;
}

void print_number(uint16_t map, uint8_t x, uint8_t y, uint16_t value, uint8_t digits) {
    volatile uint8_t *d = (volatile uint8_t *)(map + (uint16_t)y * 32 + x + digits);
    while (digits--) {
        *--d = (uint8_t)('0' + value % 10);
        value /= 10;
    }
}

void seed_rand(uint16_t seed) {
    rand_state = seed ? seed : 0xACE1u;
}

/* 16-bit xorshift (7, 9, 8). */
uint8_t rand8(void) {
    uint16_t x = rand_state;
    x ^= x << 7;
    x ^= x >> 9;
    x ^= x << 8;
    rand_state = x;
    return (uint8_t)(x >> 3);
}
