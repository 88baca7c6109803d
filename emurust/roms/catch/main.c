/* CATCH: a small Game Boy game written for emurust's tests and benchmarks.
 *
 * Fruit, gold coins and bombs fall from the sky; move the paddle (LEFT/RIGHT, hold A to go faster)
 * to catch fruit (+1) and gold (+5) and to dodge bombs. Missing a fruit or catching a bomb costs a
 * life; the game is over after 3. START begins a game from the title and game-over screens.
 *
 * Raster effects exercise the LCD: a STAT (LYC) interrupt switches the window (the score bar on the
 * top 8 lines) off at line 8 and darkens the palette for the ground at line 128; the sky scrolls.
 *
 * Public RAM (read by the RL env, see docs/envs/gameboy.md):
 *   C0A0-C0A1 score (u16 little endian)   C0A2 lives          C0A3 state (0 title, 1 play, 2 over)
 *   C0A4 paddle x                          C0A5 catches (u8)   C0A6 misses (u8)
 *   C0A7 frame counter (u8)                C0A8-C0B9 six objects: kind (0 none 1 fruit 2 gold 3 bomb), x, y
 */
#include "gb.h"

extern const uint8_t game_tiles[];

#define TILE_SKY 0x60
#define TILE_STARS 0x61
#define TILE_GROUND 0x62
#define TILE_GRASS 0x63
#define TILE_PADDLE 0x64 /* three tiles: left, middle, right */
#define TILE_FRUIT 0x67

#define MAX_OBJECTS 6
#define PADDLE_Y 120     /* screen line of the paddle's top */
#define PADDLE_WIDTH 24
#define GROUND_LINE 128
#define BAR_LINES 8

enum { STATE_TITLE = 0, STATE_PLAY = 1, STATE_OVER = 2 };
enum { KIND_NONE = 0, KIND_FRUIT = 1, KIND_GOLD = 2, KIND_BOMB = 3 };

struct object {
    uint8_t kind, x, y;
};

__at(0xC0A0) volatile uint16_t score;
__at(0xC0A2) volatile uint8_t lives;
__at(0xC0A3) volatile uint8_t state;
__at(0xC0A4) volatile uint8_t paddle_x;
__at(0xC0A5) volatile uint8_t catches;
__at(0xC0A6) volatile uint8_t misses;
__at(0xC0A7) volatile uint8_t frame;
__at(0xC0A8) struct object objects[MAX_OBJECTS];

static uint8_t speed[MAX_OBJECTS];
static uint8_t spawn_timer;
static uint8_t bar_dirty;
static uint8_t scroll_phase;

/* STAT (LYC) interrupt: window off below the score bar, darker palette on the ground. */
static void raster(void) {
    if (LYC == BAR_LINES) {
        LCDC &= ~LCD_WIN_ON;
        LYC = GROUND_LINE;
    } else {
        BGP = 0xF9;
        LYC = BAR_LINES;
    }
}

/* VBlank: restore the top-of-frame settings. */
static void frame_start(void) {
    LCDC |= LCD_WIN_ON;
    BGP = 0xE4;
}

static void beep(uint8_t pitch) {
    REG8(0xFF12) = 0xA1;
    REG8(0xFF11) = 0x80;
    REG8(0xFF13) = pitch;
    REG8(0xFF14) = 0x86;
}

static void draw_background(void) {
    uint8_t x, y, row_phase = 0, phase;
    volatile uint8_t *map = (volatile uint8_t *)MAP_9800;
    /* A star where (7x + 13y) mod 5 == 0, computed incrementally (no division on the SM83). */
    for (y = 0; y < 32; y++) {
        phase = row_phase;
        for (x = 0; x < 32; x++) {
            uint8_t t = TILE_SKY;
            if (y == 16) t = TILE_GRASS;
            else if (y >= 17) t = TILE_GROUND;
            else if (phase == 0) t = TILE_STARS;
            *map++ = t;
            phase += 2;
            if (phase >= 5) phase -= 5;
        }
        row_phase += 3;
        if (row_phase >= 5) row_phase -= 5;
    }
}

static void draw_bar(void) {
    print_at(MAP_9C00, 0, 0, "SCORE ");
    print_number(MAP_9C00, 6, 0, score, 5);
    print_at(MAP_9C00, 12, 0, " LIVES ");
    print_number(MAP_9C00, 19, 0, lives, 1);
}

static void clear_message(void) {
    print_at(MAP_9800, 4, 7, "            ");
    print_at(MAP_9800, 4, 9, "            ");
}

static void show_message(const char *line1) {
    print_at(MAP_9800, 4, 7, line1);
    print_at(MAP_9800, 4, 9, "PRESS START ");
}

static void new_game(void) {
    uint8_t i;
    score = 0;
    lives = 3;
    catches = 0;
    misses = 0;
    paddle_x = 68;
    spawn_timer = 30;
    for (i = 0; i < MAX_OBJECTS; i++) objects[i].kind = KIND_NONE;
    state = STATE_PLAY;
    bar_dirty = 1;
}

static void spawn(void) {
    uint8_t i, r;
    for (i = 0; i < MAX_OBJECTS; i++) {
        if (objects[i].kind == KIND_NONE) {
            r = rand8();
            objects[i].kind = r < 26 ? KIND_GOLD : (r < 64 ? KIND_BOMB : KIND_FRUIT);
            objects[i].x = 8 + (rand8() % 144);
            objects[i].y = BAR_LINES;
            /* Faster as the score grows. */
            speed[i] = 1 + (rand8() & 1) + (score >= 40 ? 1 : 0);
            break;
        }
    }
    r = 48 - (score > 60 ? 30 : (uint8_t)(score >> 1));
    spawn_timer = 12 + (rand8() % r);
}

static void update_play(uint8_t buttons) {
    uint8_t i, step = (buttons & BTN_A) ? 3 : 2;
    if ((buttons & BTN_LEFT) && paddle_x > 8 + step) paddle_x -= step;
    else if ((buttons & BTN_LEFT)) paddle_x = 8;
    if ((buttons & BTN_RIGHT) && paddle_x < 160 - PADDLE_WIDTH - step) paddle_x += step;
    else if ((buttons & BTN_RIGHT)) paddle_x = 160 - PADDLE_WIDTH;

    for (i = 0; i < MAX_OBJECTS; i++) {
        struct object *o = &objects[i];
        if (o->kind == KIND_NONE) continue;
        o->y += speed[i];
        if (o->y + 8 >= PADDLE_Y && o->y < PADDLE_Y + 6 && o->x + 8 > paddle_x && o->x < paddle_x + PADDLE_WIDTH) {
            if (o->kind == KIND_BOMB) {
                lives--;
                misses++;
                beep(0x20);
            } else {
                score += (o->kind == KIND_GOLD) ? 5 : 1;
                catches++;
                beep(o->kind == KIND_GOLD ? 0xC0 : 0x80);
            }
            o->kind = KIND_NONE;
            bar_dirty = 1;
        } else if (o->y >= GROUND_LINE) {
            if (o->kind == KIND_FRUIT) {
                lives--;
                misses++;
                bar_dirty = 1;
            }
            o->kind = KIND_NONE;
        }
    }
    if (--spawn_timer == 0) spawn();
    if (lives == 0) {
        state = STATE_OVER;
        for (i = 0; i < MAX_OBJECTS; i++) objects[i].kind = KIND_NONE;
    }
}

static void write_sprites(void) {
    uint8_t i, *s = shadow_oam;
    /* Paddle: three sprites. */
    for (i = 0; i < 3; i++) {
        *s++ = state == STATE_PLAY ? PADDLE_Y + 16 : 0;
        *s++ = paddle_x + 8 + i * 8;
        *s++ = TILE_PADDLE + i;
        *s++ = 0;
    }
    for (i = 0; i < MAX_OBJECTS; i++) {
        struct object *o = &objects[i];
        *s++ = o->kind ? o->y + 16 : 0;
        *s++ = o->x + 8;
        *s++ = TILE_FRUIT + (o->kind ? o->kind - 1 : 0);
        /* Gold uses the second sprite palette. */
        *s++ = o->kind == KIND_GOLD ? 0x10 : 0;
    }
}

void main(void) {
    uint8_t buttons, previous = 0, pressed;

    gb_init();
    lcd_off();
    vram_fill(VRAM_TILES, 0, 16);
    load_font(VRAM_TILES + FONT_TILE * 16);
    vram_copy(VRAM_TILES + TILE_SKY * 16, game_tiles, 10 * 16);
    draw_background();
    vram_fill(MAP_9C00, ' ', 32 * 4);
    state = STATE_TITLE;
    show_message("   CATCH    ");
    score = 0;
    lives = 3;
    draw_bar();

    BGP = 0xE4;
    OBP0 = 0xE4;
    OBP1 = 0x90;
    WY = 0;
    WX = 7;
    SCX = 0;
    SCY = 0;
    LYC = BAR_LINES;
    STAT = 0x40; /* LYC interrupt */
    stat_hook = raster;
    vblank_hook = frame_start;
    IF = 0;
    IE = INT_VBLANK | INT_STAT;
    LCDC = LCD_ON | LCD_WIN_9C00 | LCD_WIN_ON | LCD_TILES_8000 | LCD_OBJ_ON | LCD_BG_ON;
    ENABLE_INTERRUPTS();

    while (1) {
        wait_vblank();
        /* VBlank work first, while VRAM and OAM are free. */
        oam_dma();
        if (bar_dirty) {
            draw_bar();
            bar_dirty = 0;
        }
        frame++;
        if ((frame & 3) == 0) SCX = ++scroll_phase;

        buttons = read_buttons();
        pressed = buttons & ~previous;
        previous = buttons;

        if (state == STATE_PLAY) {
            update_play(buttons);
            if (state == STATE_OVER) {
                wait_vblank();
                show_message(" GAME OVER  ");
            }
        } else {
            rand8(); /* the wait before START seeds the game */
            if (pressed & BTN_START) {
                wait_vblank();
                clear_message();
                new_game();
            }
        }
        write_sprites();
    }
}
