/* The double-dummy search of ai/solver.py, compiled.
 *
 * ai/solver.py is the reference: this file is the same alpha-beta (cache of bounds at
 * trick starts, the same move ordering and equivalent-card pruning, the same value with
 * its valat term, the same static estimate past a horizon), 30 to 60 times faster, so
 * that whole deals can be solved within a bot's time cap.  Values are unique, so both
 * must return the same numbers; tests/test_ai_solver.py checks them against each other
 * and against plain minimax, and checks the rule of legal cards below against
 * engine.deal.legal_cards.
 * The card tables (strength order, points, which cards beat which, the trumps) and the
 * ruff rule's two choices come from the engine through ai/solver.py, so that this file
 * knows no variant and no contract; only the rule of legal cards is written here again.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define LAST_TRICK 10
#define INF (1 << 20)
#define WAYS 4               /* entries per bucket of the cache */
#define CACHE_BITS 17        /* 2^17 buckets: 512 Ki entries of 28 bytes, 14 MiB */
#define CLOCK_EVERY 1023     /* look at the clock every 1024 nodes */
#define MAX_MOVES 32         /* moves[] never overflows, whatever the tables */
#define NO_LIMIT 1e9         /* seconds from which a search has no deadline */

typedef struct {
    uint32_t hands[4];
    int32_t low, high;
    uint8_t tag;             /* 0: empty; else 1 + (taken << 2 | leader) */
    uint8_t cards;           /* cards in the hands: what recomputing the entry costs */
} Entry;

typedef struct {
    PyObject_HEAD
    uint32_t beats[32];      /* cards that take the trick from each card */
    uint32_t trumps;         /* the trumps: one suit, none (NT) or every card (AT) */
    uint32_t ruffs;          /* the trump suit's cards, none in NT and AT */
    int points[32], strength[32], order[4][8];
    int no_undertrump_partner, must_undertrump;  /* Options' ruff rule (RULES 5.3) */
    int valat[4];            /* the valat term of a finished deal, by `taken` */
    uint8_t suit_points[4][256];
    int suit_weight[4][256]; /* solver.estimate's static weights, per suit byte */
    uint32_t hands[4];
    Entry *cache;
    size_t buckets;          /* of WAYS entries each, a power of two */
    long long nodes;
    struct timespec deadline;
    int has_deadline, timed_out, busy;
    int has_weights;         /* whether a look-ahead (depth > 0) can estimate */
} Core;

static int search(Core *c, const int *trick, int ntrick, int leader, int win_seat,
                  int win_card, int points, int taken, int depth, int alpha, int beta);

/* engine.deal.legal_cards (RULES 5.2, 5.3); `win_card` is ignored on an empty trick. */
static uint32_t legal_cards(const Core *c, uint32_t hand, const int *trick, int ntrick,
                            int win_card, int partner_winning)
{
    if (!ntrick)
        return hand;
    int led = trick[0] >> 3;
    uint32_t follow = hand & (0xFFu << (8 * led));
    if (follow) {
        if ((1u << trick[0]) & c->trumps) {  /* trumps led: over-trump if possible */
            uint32_t over = follow & c->beats[win_card];
            return over ? over : follow;
        }
        return follow;
    }
    uint32_t trumps = hand & c->ruffs;
    if (!trumps)
        return hand;
    uint32_t ruffed = (1u << win_card) & c->ruffs;
    uint32_t over = trumps & c->beats[win_card];
    if (partner_winning) {
        if (!ruffed || !c->no_undertrump_partner)
            return hand;
        uint32_t allowed = (hand & ~trumps) | over;
        return allowed ? allowed : hand;
    }
    if (ruffed)
        return over ? over : (c->must_undertrump ? trumps : hand);
    return trumps;
}

/* solver.distinct_moves: one card of each group of equivalent legal cards. */
static int distinct_moves(const Core *c, uint32_t legal, uint32_t remaining, int *moves)
{
    int n = 0;
    for (int suit = 0; suit < 4; suit++) {
        if (!(legal & (0xFFu << (8 * suit))))
            continue;
        int prev_legal = 0, prev_points = -1;
        for (int i = 0; i < 8; i++) {
            int card = c->order[suit][i];
            uint32_t bit = 1u << card;
            if (!(remaining & bit))
                continue;
            if (legal & bit) {
                if (!(prev_legal && c->points[card] == prev_points))
                    moves[n++] = card;
                prev_legal = 1;
                prev_points = c->points[card];
            } else {
                prev_legal = 0;
            }
        }
    }
    return n;
}

/* Stable sort of `moves` by ascending `keys`. */
static void sort_by(int *moves, int *keys, int n)
{
    for (int i = 1; i < n; i++) {
        int move = moves[i], key = keys[i], j = i;
        for (; j > 0 && keys[j - 1] > key; j--) {
            moves[j] = moves[j - 1];
            keys[j] = keys[j - 1];
        }
        moves[j] = move;
        keys[j] = key;
    }
}

/* solver._ordered: likely best moves first, so that alpha-beta cuts early. */
static void order_moves(const Core *c, int *moves, int n, int ntrick, int win_card,
                        int partner)
{
    int keys[MAX_MOVES];
    if (!ntrick) {  /* fattest first, then strongest */
        for (int i = 0; i < n; i++)
            keys[i] = -(c->points[moves[i]] * 64 + c->strength[moves[i]]);
        sort_by(moves, keys, n);
        return;
    }
    int winners[MAX_MOVES], others[MAX_MOVES], wkeys[MAX_MOVES], okeys[MAX_MOVES];
    int nw = 0, no = 0;
    for (int i = 0; i < n; i++) {
        int card = moves[i];
        if ((1u << card) & c->beats[win_card]) {
            wkeys[nw] = c->points[card] * 64 + c->strength[card];  /* cheapest winner */
            winners[nw++] = card;
        } else {
            okeys[no] = partner ? -c->points[card] : c->points[card];
            others[no++] = card;
        }
    }
    sort_by(winners, wkeys, nw);
    sort_by(others, okeys, no);
    const int *first = partner ? others : winners, *second = partner ? winners : others;
    int nfirst = partner ? no : nw, nsecond = partner ? nw : no;
    memcpy(moves, first, sizeof(int) * (size_t)nfirst);
    memcpy(moves + nfirst, second, sizeof(int) * (size_t)nsecond);
}

static int points_of(const Core *c, uint32_t cards)
{
    return c->suit_points[0][cards & 0xFF] + c->suit_points[1][cards >> 8 & 0xFF]
         + c->suit_points[2][cards >> 16 & 0xFF] + c->suit_points[3][cards >> 24];
}

static Entry *bucket_of(const Core *c, int tag)
{
    uint64_t h = (uint64_t)c->hands[0] * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)c->hands[1] * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)c->hands[2] * 0x165667B19E3779F9ull;
    h ^= (uint64_t)c->hands[3] * 0xD6E8FEB86659FD93ull;
    h ^= (uint64_t)tag * 0xFF51AFD7ED558CCDull;
    h ^= h >> 29;
    return c->cache + (size_t)(h & (c->buckets - 1)) * WAYS;
}

static int same_position(const Entry *e, const Core *c, int tag)
{
    return e->tag == tag && e->hands[0] == c->hands[0] && e->hands[1] == c->hands[1]
        && e->hands[2] == c->hands[2] && e->hands[3] == c->hands[3];
}

/* solver.estimate: team 0's share of the points still in the hands, by the weight of
 * its cards. */
static int estimate(const Core *c)
{
    int total = LAST_TRICK, ours = 0, theirs = 0;
    for (int seat = 0; seat < 4; seat++)
        for (int suit = 0; suit < 4; suit++) {
            int byte = c->hands[seat] >> (8 * suit) & 0xFF;
            total += c->suit_points[suit][byte];
            if (seat & 1)
                theirs += c->suit_weight[suit][byte];
            else
                ours += c->suit_weight[suit][byte];
        }
    return total * ours / (ours + theirs);
}

/* The value after `seat` plays `card`; the hands are restored before returning.
 * `depth`: the tricks still to complete before estimating the rest, 0 for no limit. */
static int play(Core *c, const int *trick, int ntrick, int leader, int win_seat,
                int win_card, int points, int taken, int depth, int seat, int card,
                int alpha, int beta)
{
    uint32_t bit = 1u << card;
    int result;
    c->hands[seat] ^= bit;
    if (!ntrick || (bit & c->beats[win_card])) {
        win_seat = seat;
        win_card = card;
    }
    points += c->points[card];
    if (ntrick < 3) {
        int next[4];
        if (ntrick)  /* trick is NULL at a trick start */
            memcpy(next, trick, sizeof(int) * (size_t)ntrick);
        next[ntrick] = card;
        result = search(c, next, ntrick + 1, leader, win_seat, win_card, points, taken,
                        depth, alpha, beta);
    } else {
        int last = !c->hands[seat];
        if (last)
            points += LAST_TRICK;
        int gained = (win_seat & 1) == 0 ? points : 0;
        taken |= 1 << (win_seat & 1);
        if (last)
            result = gained + c->valat[taken];
        else if (depth == 1)
            result = gained + estimate(c);
        else
            result = gained + search(c, NULL, 0, win_seat, -1, -1, 0, taken,
                                     depth ? depth - 1 : 0, alpha - gained, beta - gained);
    }
    c->hands[seat] ^= bit;
    return result;
}

static int search(Core *c, const int *trick, int ntrick, int leader, int win_seat,
                  int win_card, int points, int taken, int depth, int alpha, int beta)
{
    if (!(++c->nodes & CLOCK_EVERY) && c->has_deadline) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > c->deadline.tv_sec
            || (now.tv_sec == c->deadline.tv_sec && now.tv_nsec > c->deadline.tv_nsec))
            c->timed_out = 1;
    }
    if (c->timed_out)
        return 0;
    uint32_t remaining = c->hands[0] | c->hands[1] | c->hands[2] | c->hands[3];
    Entry *bucket = NULL, *found = NULL;
    /* A look-ahead's values depend on its depth: its entries are apart (depth <= 8). */
    int tag = 1 + (depth << 4 | taken << 2 | leader);
    if (!ntrick) {
        /* What is left bounds the value (see solver._search). */
        int most = points_of(c, remaining) + LAST_TRICK + ((taken & 2) ? 0 : c->valat[1]);
        if (most <= alpha)
            return most;
        int least = (taken & 1) ? 0 : c->valat[2];
        if (least >= beta)
            return least;
        bucket = bucket_of(c, tag);
        for (int i = 0; i < WAYS; i++) {
            if (same_position(&bucket[i], c, tag)) {
                found = &bucket[i];
                break;
            }
        }
        if (found) {
            int low = found->low, high = found->high;
            if (low == high || low >= beta)
                return low;
            if (high <= alpha)
                return high;
            if (low > alpha)
                alpha = low;
            if (high < beta)
                beta = high;
        }
    }
    int seat = (leader + ntrick) & 3;
    int partner = ntrick && ((win_seat - seat) & 1) == 0;
    uint32_t legal = legal_cards(c, c->hands[seat], trick, ntrick, win_card, partner);
    for (int i = 0; i < ntrick; i++)
        remaining |= 1u << trick[i];
    int moves[MAX_MOVES];
    int n = distinct_moves(c, legal, remaining, moves);
    if (n > 1)
        order_moves(c, moves, n, ntrick, win_card, partner);
    int alpha0 = alpha, beta0 = beta;
    int maximizing = (seat & 1) == 0;
    int best = maximizing ? -INF : INF;
    for (int i = 0; i < n; i++) {
        int value = play(c, trick, ntrick, leader, win_seat, win_card, points, taken, depth,
                         seat, moves[i], alpha, beta);
        if (c->timed_out)
            return 0;
        if (maximizing) {
            if (value > best) {
                best = value;
                if (value > alpha)
                    alpha = value;
            }
        } else if (value < best) {
            best = value;
            if (value < beta)
                beta = value;
        }
        if (alpha >= beta)
            break;
    }
    if (!ntrick) {
        /* The search below may have replaced `found` with another position: merge with
         * this position's entry only (solver._search reads the cache again here too). */
        if (found && !same_position(found, c, tag))
            found = NULL;
        int low = found ? found->low : -INF, high = found ? found->high : INF;
        if (best <= alpha0) {
            if (best < high)
                high = best;
        } else if (best >= beta0) {
            if (best > low)
                low = best;
        } else {
            low = high = best;
        }
        Entry *slot = found;
        if (!slot) {  /* an empty way, else the entry cheapest to recompute */
            slot = &bucket[0];
            for (int i = 0; i < WAYS && slot->tag; i++)
                if (!bucket[i].tag || bucket[i].cards < slot->cards)
                    slot = &bucket[i];
        }
        memcpy(slot->hands, c->hands, sizeof slot->hands);
        slot->low = low;
        slot->high = high;
        slot->tag = (uint8_t)tag;
        slot->cards = (uint8_t)__builtin_popcount(remaining);
    }
    return best;
}

/* ------------------------------------------------------------------ Python type */

/* The items of a sequence of `n` integers within [low, high]. */
static int read_ints(PyObject *seq, long long *out, Py_ssize_t n, long long low,
                     long long high, const char *what)
{
    /* A tuple of our own: __index__ of an item may run code that changes `seq`. */
    PyObject *fast = PySequence_Tuple(seq);
    if (!fast)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items expected", what, n);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < low || v > high) {
            PyErr_Format(PyExc_ValueError, "%s: %lld is out of range", what, v);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(fast);
    return 0;
}

static int Core_init(Core *c, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"trumps", "beats", "points", "strength", "order", "ruffs",
                            "valat_weight", "no_undertrump_partner", "must_undertrump",
                            "cache_bits", "weights", NULL};
    PyObject *beats, *points, *strength, *order, *weights = NULL;
    long long trumps, ruffs;
    int weight, no_undertrump_partner, must_undertrump;
    int cache_bits = CACHE_BITS;
    /* Everything is read and checked before anything of `c` changes: a failed call leaves
     * the Core as it was, and a search cannot start in between (reading runs Python). */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LOOOOLipp|$iO", names, &trumps, &beats,
                                     &points, &strength, &order, &ruffs, &weight,
                                     &no_undertrump_partner, &must_undertrump, &cache_bits,
                                     &weights))
        return -1;
    long long beats_of[32], points_of_card[32], strength_of[32], flat_order[32];
    long long weight_of[32] = {0};  /* without weights, no look-ahead (below) */
    if ((weights && read_ints(weights, weight_of, 32, 1, 1000, "weights"))
        || read_ints(beats, beats_of, 32, 0, 0xFFFFFFFFll, "beats")
        || read_ints(points, points_of_card, 32, 0, 20, "points")
        || read_ints(strength, strength_of, 32, 0, 63, "strength")
        || read_ints(order, flat_order, 32, 0, 31, "order"))
        return -1;
    if (trumps < 0 || trumps > 0xFFFFFFFFll || ruffs < 0 || ruffs > 0xFFFFFFFFll
        || weight < 0 || weight > 1000 || cache_bits < 0 || cache_bits > 24) {
        PyErr_SetString(PyExc_ValueError, "trumps and ruffs are masks, valat_weight "
                        "0..1000, cache_bits 0..24");
        return -1;
    }
    uint32_t seen = 0;  /* in its suit's eight places, and all 32: each card once */
    for (int i = 0; i < 32; i++)
        seen |= flat_order[i] >> 3 == i >> 3 ? 1u << flat_order[i] : 0;
    if (seen != 0xFFFFFFFFu) {
        PyErr_SetString(PyExc_ValueError, "order: each suit's eight cards, suit by suit");
        return -1;
    }
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "a Core cannot be set up again while it searches");
        return -1;
    }
    size_t buckets = (size_t)1 << cache_bits;
    Entry *cache = buckets == c->buckets ? c->cache : NULL;
    if (!cache && !(cache = PyMem_Calloc(buckets * WAYS, sizeof(Entry)))) {
        PyErr_NoMemory();
        return -1;
    }
    if (cache == c->cache)  /* set up again: the cache may hold another contract's values */
        memset(cache, 0, buckets * WAYS * sizeof(Entry));
    else
        PyMem_Free(c->cache);
    c->cache = cache;
    c->buckets = buckets;
    c->trumps = (uint32_t)trumps;
    c->no_undertrump_partner = no_undertrump_partner;
    c->must_undertrump = must_undertrump;
    for (int i = 0; i < 32; i++) {
        c->beats[i] = (uint32_t)beats_of[i];
        c->points[i] = (int)points_of_card[i];
        c->strength[i] = (int)strength_of[i];
        c->order[i >> 3][i & 7] = (int)flat_order[i];
    }
    c->ruffs = (uint32_t)ruffs;
    c->valat[0] = 0;
    c->valat[1] = weight;
    c->valat[2] = -weight;
    c->valat[3] = 0;
    for (int suit = 0; suit < 4; suit++)
        for (int byte = 0; byte < 256; byte++) {
            int sum = 0;
            for (int r = 0; r < 8; r++)
                if (byte >> r & 1)
                    sum += c->points[8 * suit + r];
            c->suit_points[suit][byte] = (uint8_t)sum;
            sum = 0;
            for (int r = 0; r < 8; r++)
                if (byte >> r & 1)
                    sum += (int)weight_of[8 * suit + r];
            c->suit_weight[suit][byte] = sum;
        }
    c->has_weights = weights != NULL;
    return 0;
}

static void Core_dealloc(Core *c)
{
    PyMem_Free(c->cache);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int read_hands(PyObject *hands, uint32_t *out)
{
    long long items[4];
    if (read_ints(hands, items, 4, 0, 0xFFFFFFFFll, "hands"))
        return -1;
    for (int s = 0; s < 4; s++)
        out[s] = (uint32_t)items[s];
    return 0;
}

static int read_trick(PyObject *seq, int *trick, int *ntrick)
{
    Py_ssize_t n = PySequence_Size(seq);
    if (n < 0)
        return -1;
    if (n > 3) {
        PyErr_SetString(PyExc_ValueError, "trick: at most three cards");
        return -1;
    }
    long long cards[3];
    if (read_ints(seq, cards, n, 0, 31, "trick"))
        return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        trick[i] = (int)cards[i];
    *ntrick = (int)n;
    return 0;
}

/* Core.search and Core.play: checks the position, then searches with the GIL released.
 * `card` is the card the seat to move plays first, or -1 to value the position itself. */
static PyObject *run(Core *c, PyObject *hands, PyObject *trick_seq, int leader, int taken,
                     int card, int alpha, int beta, double seconds, int depth)
{
    uint32_t held[4];
    int trick[4], ntrick;
    if (read_hands(hands, held) || read_trick(trick_seq, trick, &ntrick))
        return NULL;
    if (leader < 0 || leader > 3 || taken < 0 || taken > 3) {
        PyErr_SetString(PyExc_ValueError, "leader is 0..3 and taken 0..3");
        return NULL;
    }
    uint32_t seen = 0;
    for (int i = 0; i < 4 + ntrick; i++) {
        uint32_t cards = i < 4 ? held[i] : 1u << trick[i - 4];
        if (seen & cards) {
            PyErr_SetString(PyExc_ValueError, "a card is in two places");
            return NULL;
        }
        seen |= cards;
    }
    int seat = (leader + ntrick) & 3;
    if (card != -1 && (card < 0 || card > 31 || !(held[seat] >> card & 1))) {
        PyErr_SetString(PyExc_ValueError, "the card is not in the hand of the seat to move");
        return NULL;
    }
    for (int s = 0; s < 4; s++)
        if (__builtin_popcount(held[s]) > 8) {
            PyErr_SetString(PyExc_ValueError, "hands: at most eight cards each");
            return NULL;
        }
    if (depth < 0 || depth > 8 || (depth && !c->has_weights)) {
        PyErr_SetString(PyExc_ValueError, "depth: 0 (no limit) to 8, above 0 only with "
                        "the weights set");
        return NULL;
    }
    if (isnan(seconds)) {
        PyErr_SetString(PyExc_ValueError, "seconds: a number, negative for no limit");
        return NULL;
    }
    /* Every value lies well within (-INF, INF): a wider window changes nothing, and keeps
     * `alpha - gained` in play() from overflowing. */
    alpha = alpha < -INF ? -INF : alpha > INF ? INF : alpha;
    beta = beta < -INF ? -INF : beta > INF ? INF : beta;
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "a Core searches for one caller at a time");
        return NULL;
    }
    if (!c->cache) {
        PyErr_SetString(PyExc_RuntimeError, "Core.__init__ was not called");
        return NULL;
    }
    /* The trick's winner and points so far (engine.deal.trick_state). */
    int win_seat = -1, win_card = -1, points = 0;
    for (int i = 0; i < ntrick; i++) {
        if (i == 0 || ((1u << trick[i]) & c->beats[win_card])) {
            win_seat = (leader + i) & 3;
            win_card = trick[i];
        }
        points += c->points[trick[i]];
    }
    memcpy(c->hands, held, sizeof held);
    c->timed_out = 0;
    c->has_deadline = seconds >= 0 && seconds < NO_LIMIT;  /* inf: no limit, as in Python */
    if (c->has_deadline) {
        clock_gettime(CLOCK_MONOTONIC, &c->deadline);
        double whole = (double)(long long)seconds;
        c->deadline.tv_sec += (time_t)whole;
        c->deadline.tv_nsec += (long)((seconds - whole) * 1e9);
        if (c->deadline.tv_nsec >= 1000000000L) {
            c->deadline.tv_sec += 1;
            c->deadline.tv_nsec -= 1000000000L;
        }
    }
    c->busy = 1;
    int value;
    Py_BEGIN_ALLOW_THREADS
    if (card == -1)
        value = search(c, trick, ntrick, leader, win_seat, win_card, points, taken, depth,
                       alpha, beta);
    else
        value = play(c, trick, ntrick, leader, win_seat, win_card, points, taken, depth, seat,
                     card, alpha, beta);
    Py_END_ALLOW_THREADS
    c->busy = 0;
    if (c->timed_out)
        Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

static PyObject *Core_search(Core *c, PyObject *args)
{
    PyObject *hands, *trick;
    int leader, taken, alpha, beta, depth = 0;
    double seconds;
    if (!PyArg_ParseTuple(args, "OOiiiid|i", &hands, &trick, &leader, &taken, &alpha, &beta,
                          &seconds, &depth))
        return NULL;
    return run(c, hands, trick, leader, taken, -1, alpha, beta, seconds, depth);
}

static PyObject *Core_play(Core *c, PyObject *args)
{
    PyObject *hands, *trick;
    int leader, taken, card, alpha, beta, depth = 0;
    double seconds;
    if (!PyArg_ParseTuple(args, "OOiiiiid|i", &hands, &trick, &leader, &taken, &card, &alpha,
                          &beta, &seconds, &depth))
        return NULL;
    if (card == -1) {
        PyErr_SetString(PyExc_ValueError, "card: 0..31");
        return NULL;
    }
    return run(c, hands, trick, leader, taken, card, alpha, beta, seconds, depth);
}

static PyObject *Core_legal(Core *c, PyObject *args)
{
    PyObject *trick_seq;
    long long hand;
    int win_card, partner, trick[4], ntrick;
    if (!PyArg_ParseTuple(args, "LOip", &hand, &trick_seq, &win_card, &partner))
        return NULL;
    if (hand < 0 || hand > 0xFFFFFFFFll) {
        PyErr_SetString(PyExc_ValueError, "hand: a mask of 32 bits");
        return NULL;
    }
    if (read_trick(trick_seq, trick, &ntrick))
        return NULL;
    if (ntrick && (win_card < 0 || win_card > 31)) {
        PyErr_SetString(PyExc_ValueError, "win_card: 0..31");
        return NULL;
    }
    return PyLong_FromUnsignedLong(
        legal_cards(c, (uint32_t)hand, trick, ntrick, win_card, partner));
}

static PyObject *Core_nodes(Core *c, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(c->nodes);
}

static PyMethodDef Core_methods[] = {
    {"search", (PyCFunction)Core_search, METH_VARARGS,
     "search(hands, trick, leader, taken, alpha, beta, seconds, depth=0) -> value, or "
     "None when `seconds` (negative: no limit) ran out first; depth: tricks to complete "
     "before estimating the rest (0: to the end)"},
    {"play", (PyCFunction)Core_play, METH_VARARGS,
     "play(hands, trick, leader, taken, card, alpha, beta, seconds, depth=0) -> the value "
     "after the seat to move plays `card`, or None when `seconds` ran out first"},
    {"legal", (PyCFunction)Core_legal, METH_VARARGS,
     "legal(hand, trick, win_card, partner_winning) -> the cards that may be played"},
    {NULL}};

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_nodes, NULL, "positions searched so far", NULL},
    {NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ai._solver.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The exact search of one contract under one set of rules, with its cache.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ai._solver",
    .m_doc = "The exact search of ai/solver.py, compiled.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__solver(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
