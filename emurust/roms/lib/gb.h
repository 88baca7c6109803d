/* emurust test ROMs: Game Boy hardware registers and the small runtime in gb.c. */
#ifndef EMURUST_GB_H
#define EMURUST_GB_H

#include <stdint.h>

#define REG8(addr) (*(volatile uint8_t *)(addr))

#define P1   REG8(0xFF00)
#define SB   REG8(0xFF01)
#define SC   REG8(0xFF02)
#define DIV  REG8(0xFF04)
#define TIMA REG8(0xFF05)
#define TMA  REG8(0xFF06)
#define TAC  REG8(0xFF07)
#define IF   REG8(0xFF0F)
#define LCDC REG8(0xFF40)
#define STAT REG8(0xFF41)
#define SCY  REG8(0xFF42)
#define SCX  REG8(0xFF43)
#define LY   REG8(0xFF44)
#define LYC  REG8(0xFF45)
#define BGP  REG8(0xFF47)
#define OBP0 REG8(0xFF48)
#define OBP1 REG8(0xFF49)
#define WY   REG8(0xFF4A)
#define WX   REG8(0xFF4B)
#define IE   REG8(0xFFFF)

#define INT_VBLANK 0x01
#define INT_STAT   0x02
#define INT_TIMER  0x04
#define INT_SERIAL 0x08
#define INT_JOYPAD 0x10

/* LCDC bits */
#define LCD_ON        0x80
#define LCD_WIN_9C00  0x40
#define LCD_WIN_ON    0x20
#define LCD_TILES_8000 0x10
#define LCD_BG_9C00   0x08
#define LCD_OBJ_16    0x04
#define LCD_OBJ_ON    0x02
#define LCD_BG_ON     0x01

/* Buttons, in emurust's bit order. */
#define BTN_A      0x01
#define BTN_B      0x02
#define BTN_SELECT 0x04
#define BTN_START  0x08
#define BTN_RIGHT  0x10
#define BTN_LEFT   0x20
#define BTN_UP     0x40
#define BTN_DOWN   0x80

#define VRAM_TILES 0x8000
#define MAP_9800   0x9800
#define MAP_9C00   0x9C00

/* Sprite attribute table copied to OAM by oam_dma(); must be 256-byte aligned. */
extern __at(0xC000) uint8_t shadow_oam[160];

/* Frames counted by the VBlank handler. */
extern volatile uint8_t vblank_count;

/* Optional hooks run by the interrupt handlers (NULL = nothing). */
extern void (*stat_hook)(void);
extern void (*timer_hook)(void);
extern void (*serial_hook)(void);
extern void (*joypad_hook)(void);
extern void (*vblank_hook)(void);

void gb_init(void);                 /* copies the DMA routine to HRAM, clears OAM; call first */
void wait_vblank(void);             /* halts until the next VBlank interrupt */
void lcd_off(void);                 /* waits for LY >= 144, then switches the LCD off */
uint8_t read_buttons(void);         /* held buttons, BTN_* bits */
void oam_dma(void);                 /* shadow_oam -> OAM */
void vram_copy(uint16_t dst, const uint8_t *src, uint16_t n);
void vram_fill(uint16_t dst, uint8_t value, uint16_t n);
void load_font(uint16_t dst);       /* 1bpp font (digits, A-Z, punctuation) -> tiles */
void print_at(uint16_t map, uint8_t x, uint8_t y, const char *text);   /* font tiles start at FONT_TILE */
void print_number(uint16_t map, uint8_t x, uint8_t y, uint16_t value, uint8_t digits);
uint8_t rand8(void);
void seed_rand(uint16_t seed);

/* Tile index of the font's first glyph (' ') when loaded at 0x8000 + FONT_TILE*16. */
#define FONT_TILE 0x20

#define HALT() __asm__("halt")
#define ENABLE_INTERRUPTS() __asm__("ei")
#define DISABLE_INTERRUPTS() __asm__("di")

#endif
