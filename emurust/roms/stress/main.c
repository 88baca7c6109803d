/* STRESS: a test program written for emurust's PyBoy parity tests. It is not a game: it cycles
 * through scenes that exercise what Blargg's CPU tests do not, and records what the CPU observes
 * in RAM so that any timing difference between two emulators shows up in memory as well as on
 * screen. Buttons change the parameters of every scene (random input = many code paths).
 *
 * Scenes (switch every 96 frames, or at once on SELECT):
 *   0 sprites: 40 moving sprites, up to 14 on a line, 8x8 / 8x16 (A), flips, OBP0/OBP1, BG priority,
 *     sprites at X=0 and X>=168; OBJ enable toggled by B
 *   1 raster: HBlank (mode 0) STAT interrupt on every line writes SCX from a sine table; LYC
 *     interrupts change BGP; SCY follows UP/DOWN
 *   2 window: WX/WY animated (WX below 7 and above 166 included), window switched off mid-frame,
 *     BG off (A) and signed tile data (B), map select toggles
 *   3 interrupts: timer at every TAC rate, serial transfers, joypad interrupt; TIMA/DIV sampled
 *   4 probes: STAT/LY sampled in tight loops with different load instructions, VRAM writes during
 *     mode 3 with locking and non-locking stores, OAM DMA from a mid-frame interrupt, EI/HALT cases
 *   5 cartridge: ROM bank switching with checksums, cartridge RAM banks, LCD off and on again
 *
 * Public RAM: C0A0 scene, C0A1 frame in scene, C0A2 timer IRQs, C0A3 serial IRQs, C0A4 joypad IRQs,
 *   C0A5 STAT IRQs, C0A6 ROM bank checksum, C0A7 cart RAM check, C0A8 buttons, C0A9 flags,
 *   C0B0-C0FF samples.
 */
#include "gb.h"

__at(0xC0A0) volatile uint8_t scene;
__at(0xC0A1) volatile uint8_t scene_frame;
__at(0xC0A2) volatile uint8_t timer_irqs;
__at(0xC0A3) volatile uint8_t serial_irqs;
__at(0xC0A4) volatile uint8_t joypad_irqs;
__at(0xC0A5) volatile uint8_t stat_irqs;
__at(0xC0A6) volatile uint8_t bank_sum;
__at(0xC0A7) volatile uint8_t ram_check;
__at(0xC0A8) volatile uint8_t buttons;
__at(0xC0A9) volatile uint8_t flags;
__at(0xC0B0) uint8_t samples[80];

#define SCENES 6
#define SCENE_FRAMES 96

/* 64-entry sine, amplitude 0..15. */
static const uint8_t sine[64] = {
    8, 9, 10, 11, 11, 12, 13, 13, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 13, 13, 12,
    11, 11, 10, 9, 8, 7, 6, 5, 4, 4, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 4, 4,
    5, 6, 7, 7, 7, 7, 8, 8, 8, 8};

static uint8_t phase;
static uint8_t amplitude = 1;
static uint8_t wave[64]; /* SCX per line, rebuilt each frame so the interrupt does no arithmetic */
static uint8_t sprite_x[40];
static uint8_t sprite_dx[40];
static uint8_t previous_buttons;
static uint8_t lyc_step;
static uint8_t second_oam_pending;

/* ---------- interrupt hooks ---------- */

static void stat_raster(void) {
    stat_irqs++;
    SCX = wave[(uint8_t)(LY + phase) & 63];
}

static void stat_lyc(void) {
    stat_irqs++;
    switch (lyc_step) {
    case 0:
        BGP = 0x1B; /* inverted */
        LYC = 40;
        break;
    case 1:
        BGP = 0xE4;
        LCDC &= ~LCD_WIN_ON;
        LYC = 96;
        break;
    case 2:
        BGP = 0x6C;
        WY = 100;
        LCDC |= LCD_WIN_ON;
        LYC = 130;
        break;
    default:
        BGP = 0xE4;
        LYC = 20;
        lyc_step = 0xFF;
        break;
    }
    lyc_step++;
}

/* Mid-frame OAM DMA: the lower half of the screen shows another sprite set. */
static void stat_dma(void) {
    stat_irqs++;
    if (second_oam_pending) {
        oam_dma();
        second_oam_pending = 0;
    }
}

static void on_timer(void) {
    timer_irqs++;
    if ((timer_irqs & 7) == 0) TMA = (uint8_t)(TMA + 37);
}

static void on_serial(void) {
    serial_irqs++;
    if (serial_irqs & 3) {
        SB = serial_irqs;
        SC = 0x81;
    }
}

static void on_joypad(void) {
    joypad_irqs++;
}

/* ---------- setup ---------- */

static void fill_maps(void) {
    uint16_t i;
    volatile uint8_t *m = (volatile uint8_t *)MAP_9800;
    for (i = 0; i < 1024; i++) *m++ = (uint8_t)(0x20 + ((i * 3 + (i >> 5)) & 0x3F) % 59);
    m = (volatile uint8_t *)MAP_9C00;
    for (i = 0; i < 1024; i++) *m++ = (uint8_t)(0x30 + (i & 7));
}

static void load_signed_font(void) {
    /* The same glyphs in the 0x9000 block (signed tile numbers), drawn in colours 1 and 2. */
    extern const uint8_t font_1bpp[];
    volatile uint8_t *d = (volatile uint8_t *)(0x9000 + FONT_TILE * 16);
    uint16_t i;
    for (i = 0; i < 59 * 8; i++) {
        *d++ = font_1bpp[i];
        *d++ = (uint8_t)~font_1bpp[i];
    }
}

static void setup_sprites(void) {
    uint8_t i;
    for (i = 0; i < 40; i++) {
        sprite_x[i] = (uint8_t)(i * 23);
        sprite_dx[i] = 1 + (i % 3);
    }
}

static void reset_hooks(void) {
    DISABLE_INTERRUPTS();
    stat_hook = 0;
    timer_hook = 0;
    serial_hook = 0;
    joypad_hook = 0;
    STAT = 0;
    TAC = 0;
    IE = INT_VBLANK;
    IF = 0;
    LCDC = LCD_ON | LCD_TILES_8000 | LCD_OBJ_ON | LCD_BG_ON;
    SCX = 0;
    SCY = 0;
    WX = 7;
    WY = 0;
    BGP = 0xE4;
    ENABLE_INTERRUPTS();
}

/* ---------- scenes ---------- */

static void scene_sprites(void) {
    uint8_t i, *s = shadow_oam;
    uint8_t tall = (buttons & BTN_A) ? 1 : 0;
    if (tall) LCDC |= LCD_OBJ_16;
    else LCDC &= ~LCD_OBJ_16;
    if (buttons & BTN_B) LCDC &= ~LCD_OBJ_ON;
    else LCDC |= LCD_OBJ_ON;
    for (i = 0; i < 40; i++) {
        if (buttons & BTN_LEFT) sprite_x[i] -= sprite_dx[i];
        else sprite_x[i] += sprite_dx[i];
        /* Rows of 14 sprites share lines 24-31 and 80-87; others spread out. */
        if (i < 14) *s++ = 40;
        else if (i < 28) *s++ = 96 + (i & 1) * 4;
        else *s++ = (uint8_t)(16 + i * 4 + scene_frame);
        *s++ = (i == 3) ? 0 : ((i == 5) ? 170 : sprite_x[i]);
        *s++ = (uint8_t)(0x30 + i);
        *s++ = (uint8_t)(((i & 1) ? 0x20 : 0) | ((i & 2) ? 0x40 : 0) | ((i & 4) ? 0x10 : 0) | ((i % 5) == 0 ? 0x80 : 0));
    }
    if (buttons & BTN_UP) OBP0 = 0x1B;
    else OBP0 = 0xE4;
    OBP1 = (uint8_t)(0x90 + scene_frame);
}

static void scene_raster(void) {
    uint8_t i;
    phase++;
    for (i = 0; i < 64; i++) wave[i] = (uint8_t)(sine[i] * amplitude) >> 1;
    if (buttons & BTN_A) amplitude = (uint8_t)((amplitude + 1) & 3);
    if (buttons & BTN_UP) SCY--;
    if (buttons & BTN_DOWN) SCY++;
    if (buttons & BTN_RIGHT) phase += 3;
}

static void scene_window(void) {
    uint8_t lcdc = LCD_ON | LCD_OBJ_ON | LCD_WIN_ON | LCD_WIN_9C00;
    if (!(buttons & BTN_A)) lcdc |= LCD_BG_ON;
    if (!(buttons & BTN_B)) lcdc |= LCD_TILES_8000;
    if (scene_frame & 16) lcdc |= LCD_BG_9C00;
    if (buttons & BTN_DOWN) lcdc &= ~LCD_WIN_9C00;
    LCDC = lcdc;
    WX = (uint8_t)(scene_frame * 2 + ((buttons & BTN_RIGHT) ? 5 : 0));
    WY = (uint8_t)(scene_frame + ((buttons & BTN_UP) ? 60 : 0));
    SCX = (uint8_t)(scene_frame * 3);
    SCY = (uint8_t)(scene_frame >> 1);
}

static void sample_timer(void) {
    uint8_t i;
    for (i = 0; i < 16; i++) {
        samples[i * 2] = TIMA;
        samples[i * 2 + 1] = DIV;
    }
}

static void scene_interrupts(void) {
    if (scene_frame == 1) {
        timer_hook = on_timer;
        serial_hook = on_serial;
        joypad_hook = on_joypad;
        IE = INT_VBLANK | INT_TIMER | INT_SERIAL | INT_JOYPAD;
    }
    if ((scene_frame & 15) == 2) {
        TAC = (uint8_t)(0x04 | ((scene_frame >> 4) & 3));
        TIMA = (uint8_t)(0xF0 + (buttons & 15));
    }
    if ((scene_frame & 7) == 3) {
        SB = scene_frame;
        SC = (buttons & BTN_B) ? 0x80 : 0x81; /* external clock never completes */
    }
    if (buttons & BTN_A) DIV = 0;
    sample_timer();
    /* P1 read without rewriting it: PyBoy latches P1 at writes. */
    samples[40] = P1;
    P1 = 0x00;
    samples[41] = P1;
    P1 = 0x30;
    samples[42] = P1;
}

/* Samples STAT 24 times starting at LY == line, with several load instructions. */
static void probe_stat(uint8_t line) __naked {
    (void)line;
    __asm
    ld      b, a
1$: ldh     a, (0x44)
    cp      b
    jr      nz, 1$
    ld      de, #(_samples + 0)
    ld      c, #8
2$: ldh     a, (0x41)
    ld      (de), a
    inc     de
    dec     c
    jr      nz, 2$
    ld      hl, #0xFF41
    ld      c, #8
3$: ld      a, (hl)
    ld      (de), a
    inc     de
    dec     c
    jr      nz, 3$
    ld      c, #8
4$: ld      a, (0xFF41)
    ld      (de), a
    inc     de
    ld      a, (0xFF44)
    ld      (de), a
    inc     de
    dec     c
    jr      nz, 4$
    ret
    __endasm;
}

/* During mode 3, store with LD (DE),A (locked) and LD (HL),A (not locked), read back with both loads. */
static void probe_vram_lock(void) __naked {
    __asm
1$: ldh     a, (0x41)
    and     #3
    cp      #3
    jr      nz, 1$
    ld      a, #0x5A
    ld      de, #0x9BF0
    ld      (de), a
    ld      hl, #0x9BF1
    ld      (hl), a
    ld      a, (de)
    ld      (_samples + 32), a
    ld      a, (hl)
    ld      (_samples + 33), a
    ld      b, (hl)
    ld      a, b
    ld      (_samples + 34), a
    ld      hl, #0xFE00
    ld      a, (hl)
    ld      (_samples + 35), a
    ret
    __endasm;
}

/* EI;HALT with an interrupt already pending, and HALT with IME=0: PC effects show up in samples. */
static void probe_halt(void) __naked {
    __asm
    di
    ld      a, #0x04
    ldh     (0x0F), a       ; timer request pending
    ldh     a, (0xFF)
    push    af
    ld      a, #0x00
    ldh     (0xFF), a       ; IE = 0: HALT with nothing enabled would hang, so enable below
    ld      a, #0x01
    ldh     (0xFF), a
    ld      a, #0x01
    ldh     (0x0F), a       ; VBlank pending, enabled, IME = 0: HALT does not wait
    xor     a
    halt
    inc     a
    inc     a
    ld      (_samples + 36), a
    xor     a
    ldh     (0x0F), a
    pop     af
    ldh     (0xFF), a
    ei
    ret
    __endasm;
}

static void scene_probes(void) {
    uint8_t line = (uint8_t)(scene_frame + ((buttons & BTN_A) ? 50 : 0));
    if (line > 140) line = (uint8_t)(line - 100);
    probe_stat(line);
    probe_vram_lock();
    if ((scene_frame & 3) == 0) probe_halt();
    /* A second sprite set, copied by a DMA from the LYC interrupt at line 72. */
    if (scene_frame == 1) {
        stat_hook = stat_dma;
        LYC = 72;
        STAT = 0x40;
        IE = INT_VBLANK | INT_STAT;
    }
    second_oam_pending = 1;
}

static void scene_cartridge(void) {
    uint8_t bank, sum = 0;
    volatile uint8_t *rom = (volatile uint8_t *)0x4000;
    volatile uint8_t *ram = (volatile uint8_t *)0xA000;
    for (bank = 1; bank < 8; bank++) {
        REG8(0x2000) = bank;
        sum += rom[scene_frame] + rom[0x3FFF - scene_frame];
    }
    REG8(0x2000) = (buttons & BTN_A) ? 0 : 1; /* bank 0 selects 1 on MBC1, 0 on MBC5 */
    sum += rom[0x100];
    REG8(0x2000) = 1;
    bank_sum = sum;
    /* Cartridge RAM: enable, write a pattern in each bank (MBC1 mode 1 selects it), read it back. */
    REG8(0x0000) = 0x0A;
    REG8(0x6000) = 1;
    for (bank = 0; bank < 4; bank++) {
        REG8(0x4000) = bank;
        ram[scene_frame] = (uint8_t)(bank * 16 + scene_frame);
    }
    sum = 0;
    for (bank = 0; bank < 4; bank++) {
        REG8(0x4000) = bank;
        sum += ram[scene_frame];
    }
    REG8(0x6000) = 0;
    REG8(0x4000) = 0;
    if (REG8(0x0147) >= 0x0F && REG8(0x0147) <= 0x13) {
        /* MBC3: latch the clock (write 0 then 1 to 6000-7FFF) and read S, M, H, DL, DH; sometimes
         * set the seconds or halt the clock. */
        uint8_t reg;
        REG8(0x6000) = 0x00;
        REG8(0x6000) = 0x01;
        for (reg = 0x08; reg <= 0x0C; reg++) {
            REG8(0x4000) = reg;
            samples[48 + reg - 0x08] = ram[0];
        }
        if (buttons & BTN_UP) {
            REG8(0x4000) = 0x08;
            ram[0] = scene_frame & 63;
        }
        if (buttons & BTN_DOWN) {
            REG8(0x4000) = 0x0C;
            ram[0] = (scene_frame & 1) ? 0x40 : 0x00; /* halt / run */
        }
        REG8(0x4000) = 0;
    }
    if (!(buttons & BTN_B)) REG8(0x0000) = 0x00;
    ram_check = sum;
    /* Switch the LCD off for a moment every 32 frames (short frames in PyBoy's counting). */
    if ((scene_frame & 31) == 5) {
        lcd_off();
        flags++;
        LCDC = LCD_ON | LCD_TILES_8000 | LCD_OBJ_ON | LCD_BG_ON;
    }
}

static void enter_scene(uint8_t s) {
    reset_hooks();
    scene = s;
    scene_frame = 0;
    if (s == 1) {
        DISABLE_INTERRUPTS();
        stat_hook = stat_raster;
        STAT = 0x08; /* HBlank interrupt */
        IE = INT_VBLANK | INT_STAT;
        IF = 0;
        ENABLE_INTERRUPTS();
    } else if (s == 2) {
        DISABLE_INTERRUPTS();
        lyc_step = 0;
        stat_hook = stat_lyc;
        LYC = 20;
        STAT = 0x40;
        IE = INT_VBLANK | INT_STAT;
        IF = 0;
        ENABLE_INTERRUPTS();
    }
}

void main(void) {
    uint8_t pressed;
    gb_init();
    lcd_off();
    vram_fill(VRAM_TILES, 0, 16);
    load_font(VRAM_TILES + FONT_TILE * 16);
    load_signed_font();
    fill_maps();
    setup_sprites();
    OBP0 = 0xE4;
    OBP1 = 0x90;
    enter_scene(0);

    while (1) {
        wait_vblank();
        oam_dma();
        buttons = read_buttons();
        pressed = buttons & ~previous_buttons;
        previous_buttons = buttons;
        scene_frame++;
        if ((pressed & BTN_SELECT) || scene_frame >= SCENE_FRAMES) {
            enter_scene((uint8_t)((scene + 1) % SCENES));
        }
        switch (scene) {
        case 0: scene_sprites(); break;
        case 1: scene_raster(); break;
        case 2: scene_window(); scene_sprites(); break;
        case 3: scene_interrupts(); break;
        case 4: scene_probes(); scene_sprites(); break;
        default: scene_cartridge(); break;
        }
        if (pressed & BTN_START) SB = scene;
    }
}
