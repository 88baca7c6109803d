/*
 * Reference implementation of PufferLib 3.0 "Ocean" Pong rules, written from the rules spec
 * (docs/envs/pong.md, section "Rules"), as the parity oracle and speed baseline for pongjax.
 *
 * All game state is float32 except the scores; arithmetic is plain IEEE float32 (build with
 * -ffp-contract=off so that no multiply-add is fused). A batch of envs is stepped by one call.
 *
 * Randomness: the only random draw is the ball's vertical speed at the start of each round,
 * (rand() % 2 - 1) * ball_initial_speed_y in PufferLib. A step starts at most one round, so each
 * step consumes at most one random bit. `round_bits` supplies that bit per env and step (so tests
 * can feed the bits our JAX env draws from its key); pass NULL to draw from rand() as PufferLib does.
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    float width, height;
    float paddle_width, paddle_height, paddle_speed;
    float ball_width, ball_height;
    float ball_initial_speed_x, ball_initial_speed_y;
    float ball_speed_y_increment, ball_max_speed_y;
    uint32_t max_score;
    int32_t frameskip;
    int32_t continuous;
    int32_t corrected; /* 0: PufferLib 3.0 quirks (stale obs after a point, integer score division) */
} PongConfig;

typedef struct {
    float paddle_yl, paddle_yr;
    float ball_x, ball_y, ball_vx, ball_vy;
    uint32_t score_l, score_r;
    int32_t tick, n_bounces;
    float obs[8];
} PongState;

static inline float min_paddle_y(const PongConfig *c) { return -c->paddle_height / 2; }
static inline float max_paddle_y(const PongConfig *c) { return c->height - c->paddle_height / 2; }

static inline float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

static void compute_observations(const PongConfig *c, PongState *s) {
    float lo = min_paddle_y(c), hi = max_paddle_y(c);
    s->obs[0] = (s->paddle_yl - lo) / (hi - lo);
    s->obs[1] = (s->paddle_yr - lo) / (hi - lo);
    s->obs[2] = s->ball_x / c->width;
    s->obs[3] = s->ball_y / c->height;
    s->obs[4] = (s->ball_vx + c->ball_initial_speed_x) / (2 * c->ball_initial_speed_x);
    s->obs[5] = (s->ball_vy + c->ball_max_speed_y) / (2 * c->ball_max_speed_y);
    if (c->corrected) {
        s->obs[6] = (float)s->score_l / (float)c->max_score;
        s->obs[7] = (float)s->score_r / (float)c->max_score;
    } else {
        /* PufferLib 3.0 divides unsigned integers: 0 until the score reaches max_score. */
        s->obs[6] = (float)(s->score_l / c->max_score);
        s->obs[7] = (float)(s->score_r / c->max_score);
    }
}

static int draw_bit(const uint8_t *bits) { return bits ? (*bits & 1) : (rand() % 2); }

/* draw_bit, also recording the bit drawn (when `out` is not NULL). */
static int draw_bit_logged(const uint8_t *bits, uint8_t *out) {
    int bit = draw_bit(bits);
    if (out) *out = (uint8_t)bit;
    return bit;
}

static void reset_round(const PongConfig *c, PongState *s, int bit) {
    s->paddle_yl = c->height / 2 - c->paddle_height / 2;
    s->paddle_yr = c->height / 2 - c->paddle_height / 2;
    s->ball_x = c->width / 5;
    s->ball_y = c->height / 2 - c->ball_height / 2;
    s->ball_vx = c->ball_initial_speed_x;
    s->ball_vy = (float)(bit - 1) * c->ball_initial_speed_y;
    s->tick = 0;
    s->n_bounces = 0;
}

static void reset_game(const PongConfig *c, PongState *s, int bit) {
    reset_round(c, s, bit);
    s->score_l = 0;
    s->score_r = 0;
    compute_observations(c, s);
}

void pong_reset(const PongConfig *c, PongState *envs, int32_t n, const uint8_t *bits) {
    for (int32_t i = 0; i < n; i++) reset_game(c, &envs[i], draw_bit(bits ? &bits[i] : NULL));
}

static float paddle_direction(const PongConfig *c, float action) {
    /* Subnormal directions count as 0: XLA on CPU flushes subnormals, and this keeps every
     * reachable state free of them, so both engines agree bit for bit. */
    if (c->continuous) return (action < FLT_MIN && action > -FLT_MIN) ? 0.0f : clampf(action, -1.0f, 1.0f);
    int a = (int)action;
    return a == 1 ? 1.0f : (a == 2 ? -1.0f : 0.0f);
}

/* One agent step of one env. Returns through *reward and *terminal. */
static void step_one(const PongConfig *c, PongState *s, float action, const uint8_t *bit, float *reward, uint8_t *terminal,
                     uint8_t *bit_out) {
    float dir = paddle_direction(c, action);
    float lo = min_paddle_y(c), hi = max_paddle_y(c);
    s->tick += 1;
    *reward = 0.0f;
    *terminal = 0;
    for (int32_t f = 0; f < c->frameskip; f++) {
        s->paddle_yr += c->paddle_speed * dir;
        float delta = s->ball_y - (s->paddle_yl + c->paddle_height / 2);
        delta = clampf(delta, -c->paddle_speed, c->paddle_speed);
        s->paddle_yl += delta;
        s->paddle_yl = clampf(s->paddle_yl, lo, hi);
        s->paddle_yr = clampf(s->paddle_yr, lo, hi);
        s->ball_x += s->ball_vx;
        s->ball_y += s->ball_vy;
        if (s->ball_y < 0 || s->ball_y + c->ball_height > c->height) s->ball_vy = -s->ball_vy;
        if (s->ball_x < 0) {
            if (s->ball_y + c->ball_height > s->paddle_yl && s->ball_y < s->paddle_yl + c->paddle_height) {
                s->ball_vx = -s->ball_vx;
                s->n_bounces += 1;
            } else {
                s->score_r += 1;
                *reward = 1.0f;
                if (s->score_r == c->max_score) {
                    *terminal = 1;
                    reset_game(c, s, draw_bit_logged(bit, bit_out));
                } else {
                    reset_round(c, s, draw_bit_logged(bit, bit_out));
                    if (c->corrected) compute_observations(c, s);
                }
                return;
            }
        }
        if (s->ball_x + c->ball_width > c->width) {
            if (s->ball_y + c->ball_height > s->paddle_yr && s->ball_y < s->paddle_yr + c->paddle_height) {
                s->ball_vx = -s->ball_vx;
                s->n_bounces += 1;
                *reward = 0.1f;
                s->ball_vy += c->ball_speed_y_increment * dir;
                s->ball_vy = clampf(s->ball_vy, -c->ball_max_speed_y, c->ball_max_speed_y);
                if (s->ball_vy < 0.01f && s->ball_vy > -0.01f) s->ball_vy = c->ball_speed_y_increment;
                s->ball_x = clampf(s->ball_x, 0, c->width - c->ball_width);
                s->ball_y = clampf(s->ball_y, 0, c->height - c->ball_height);
            } else {
                s->score_l += 1;
                *reward = -1.0f;
                if (s->score_l == c->max_score) {
                    *terminal = 1;
                    reset_game(c, s, draw_bit_logged(bit, bit_out));
                } else {
                    reset_round(c, s, draw_bit_logged(bit, bit_out));
                    if (c->corrected) compute_observations(c, s);
                }
                return;
            }
        }
        compute_observations(c, s);
    }
}

/* Steps n envs once. actions: n floats (discrete action ids as floats, or the continuous
 * direction). bits: n random bits for this step, or NULL to use rand(). */
void pong_step(const PongConfig *c, PongState *envs, int32_t n, const float *actions, const uint8_t *bits,
               float *rewards, uint8_t *terminals) {
    for (int32_t i = 0; i < n; i++)
        step_one(c, &envs[i], actions[i], bits ? &bits[i] : NULL, &rewards[i], &terminals[i], NULL);
}

/* As pong_step with rand() for the round-start bits (PufferLib's own source of randomness, drawn in
 * env order from the process-wide stream), recording in bits_out the bit each env drew this step,
 * or 2 where it drew none. Used to replay PufferLib's own runs in our engines. */
void pong_step_rand_logged(const PongConfig *c, PongState *envs, int32_t n, const float *actions, float *rewards,
                           uint8_t *terminals, uint8_t *bits_out) {
    for (int32_t i = 0; i < n; i++) {
        bits_out[i] = 2;
        step_one(c, &envs[i], actions[i], NULL, &rewards[i], &terminals[i], &bits_out[i]);
    }
}

/* Copies the observations of n envs into obs (n x 8, row-major). */
void pong_observations(const PongState *envs, int32_t n, float *obs) {
    for (int32_t i = 0; i < n; i++) memcpy(&obs[8 * i], envs[i].obs, sizeof(envs[i].obs));
}

/* Benchmark loop: `steps` steps of n envs with uniformly random discrete actions drawn from rand(),
 * round starts drawn from rand() as in PufferLib. Returns the sum of rewards (to keep the work). */
double pong_random_rollout(const PongConfig *c, PongState *envs, int32_t n, int64_t steps, uint32_t seed) {
    srand(seed);
    double total = 0.0;
    float reward;
    uint8_t terminal;
    for (int64_t t = 0; t < steps; t++) {
        for (int32_t i = 0; i < n; i++) {
            float action = c->continuous ? (float)rand() / (float)RAND_MAX * 2.0f - 1.0f : (float)(rand() % 3);
            step_one(c, &envs[i], action, NULL, &reward, &terminal, NULL);
            total += reward;
        }
    }
    return total;
}

int32_t pong_state_size(void) { return (int32_t)sizeof(PongState); }
int32_t pong_config_size(void) { return (int32_t)sizeof(PongConfig); }
